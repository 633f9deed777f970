//! Admin question bank tests (to be written).
