//! Where a question comes from.

use crate::closed_set::closed_set;

closed_set! {
    /// Who wrote a question: the studio's content staff, or players (user-generated).
    pub enum QuestionSource in "source" {
        System = "system",
        Ugc = "ugc",
    }
}
