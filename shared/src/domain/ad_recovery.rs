//! Rewarded-ad recovery: what an ad restores and how a session ends.

use crate::closed_set::closed_set;

closed_set! {
    /// What a watched ad restores.
    pub enum AdKind in "ad-kind" {
        Hearts = "hearts",
        BonusAttempts = "bonusAttempts",
        StreakProtection = "streakProtection",
    }
}

closed_set! {
    /// How a session's completion ended.
    pub enum AdOutcome in "ad-outcome" {
        Completed = "completed",
        Failed = "failed",
    }
}

closed_set! {
    /// Where an ad session stands: open until its completion's outcome is stored.
    pub enum AdSessionStatus in "ad-session-status" {
        Created = "created",
        Completed = "completed",
        Failed = "failed",
    }
}
