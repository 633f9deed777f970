//! Question bank (admin): filled in by the question-bank work.
