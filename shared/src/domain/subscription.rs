//! A player's subscription: its tier and its status.

use crate::closed_set::closed_set;

closed_set! {
    /// What a player pays for: `free` without a subscription.
    pub enum Tier in "people-tier" {
        Free = "free",
        Pro = "pro",
        ProPlus = "proplus",
    }
}

closed_set! {
    /// Where a subscription stands: `none` without one.
    pub enum SubscriptionStatus in "sub-status" {
        None = "none",
        Active = "active",
        Expired = "expired",
        Cancelled = "cancelled",
    }
}

impl Tier {
    /// A paid tier.
    pub fn is_paid(self) -> bool {
        matches!(self, Self::Pro | Self::ProPlus)
    }
}
