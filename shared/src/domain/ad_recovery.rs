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
    /// The platform an ad is watched on.
    pub enum AdPlatform in "ad-platform" {
        Ios = "ios",
        Android = "android",
        Harmony = "harmony",
        Web = "web",
    }
}

closed_set! {
    /// Why a recovery is refused: no session is opened (`daily_limit_reached`,
    /// `cooldown_active`, `already_subscribed`, `invalid_type`, `too_many_open_sessions`:
    /// three are open, complete one or let it expire), or a completion failed (also
    /// `ad_not_completed`, `provider_verification_failed`, `session_expired`).
    pub enum AdRefusal in "ad-refusal" {
        DailyLimitReached = "daily_limit_reached",
        CooldownActive = "cooldown_active",
        AlreadySubscribed = "already_subscribed",
        InvalidType = "invalid_type",
        TooManyOpenSessions = "too_many_open_sessions",
        AdNotCompleted = "ad_not_completed",
        ProviderVerificationFailed = "provider_verification_failed",
        SessionExpired = "session_expired",
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
