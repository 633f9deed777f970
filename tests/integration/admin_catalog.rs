//! Admin catalog tests (to be written).
