//! Whether a category is offered to players.

use crate::closed_set::closed_set;

closed_set! {
    /// A category's status: `active` (its questions are played) or `inactive`
    /// (archived: kept, offered to nobody).
    pub enum CategoryStatus in "cat-status" {
        Active = "active",
        Inactive = "inactive",
    }
}
