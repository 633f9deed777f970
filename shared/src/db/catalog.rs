//! Categories, knowledge cards and the skill tree (admin): filled in by the catalog work.
