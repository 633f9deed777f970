//! The game-rule defaults of operations.md §6, in one place. Each can be overridden by
//! the `RULE_*` environment variable named beside it (see the README).

use crate::config::Reader;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRules {
    /// `RULE_MAX_HEARTS`.
    pub max_hearts: i64,
    /// `RULE_HEART_REGEN_MINUTES`: one heart back every this many minutes below max.
    pub heart_regen_minutes: i64,
    /// `RULE_DAILY_ATTEMPTS`: attempts per Beijing day.
    pub daily_attempts_max: i64,
    /// `RULE_XP_PER_CORRECT`.
    pub xp_per_correct: i64,
    /// `RULE_DAILY_XP_GOAL`.
    pub daily_xp_goal: i64,
    /// `RULE_HIGH_REWARD_SESSIONS`.
    pub high_reward_sessions_max: i64,
    /// `RULE_QUESTIONS_PER_CHALLENGE`.
    pub questions_per_challenge: i64,
    /// `RULE_CARD_VIEW_XP`: first view of a card.
    pub card_view_xp: i64,
    /// `RULE_FIRST_CARD_XP`: first card a player ever opens.
    pub first_card_xp: i64,
    /// `RULE_AD_SESSION_MINUTES`: lifetime of an ad-recovery session.
    pub ad_session_minutes: i64,
    /// `RULE_AD_HEARTS_PER_DAY`.
    pub ad_hearts_per_day: i64,
    /// `RULE_AD_ATTEMPTS_PER_DAY`.
    pub ad_attempts_per_day: i64,
    /// `RULE_STREAK_PROTECTION_COOLDOWN_DAYS`.
    pub streak_protection_cooldown_days: i64,
}

impl Default for GameRules {
    fn default() -> Self {
        Self {
            max_hearts: 5,
            heart_regen_minutes: 30,
            daily_attempts_max: 10,
            xp_per_correct: 10,
            daily_xp_goal: 50,
            high_reward_sessions_max: 0,
            questions_per_challenge: 5,
            card_view_xp: 3,
            first_card_xp: 15,
            ad_session_minutes: 10,
            ad_hearts_per_day: 5,
            ad_attempts_per_day: 3,
            streak_protection_cooldown_days: 7,
        }
    }
}

impl GameRules {
    pub(crate) fn from_reader(r: &mut Reader<'_>) -> Self {
        let d = Self::default();
        let mut positive = |name: &str, default: i64, min: i64| {
            let v: i64 = r.parsed(name, default);
            if v < min {
                r.errors.push(format!("{name}={v}: must be at least {min}"));
                default
            } else {
                v
            }
        };
        Self {
            max_hearts: positive("RULE_MAX_HEARTS", d.max_hearts, 1),
            heart_regen_minutes: positive("RULE_HEART_REGEN_MINUTES", d.heart_regen_minutes, 1),
            daily_attempts_max: positive("RULE_DAILY_ATTEMPTS", d.daily_attempts_max, 1),
            xp_per_correct: positive("RULE_XP_PER_CORRECT", d.xp_per_correct, 0),
            daily_xp_goal: positive("RULE_DAILY_XP_GOAL", d.daily_xp_goal, 1),
            high_reward_sessions_max: positive(
                "RULE_HIGH_REWARD_SESSIONS",
                d.high_reward_sessions_max,
                0,
            ),
            questions_per_challenge: positive(
                "RULE_QUESTIONS_PER_CHALLENGE",
                d.questions_per_challenge,
                1,
            ),
            card_view_xp: positive("RULE_CARD_VIEW_XP", d.card_view_xp, 0),
            first_card_xp: positive("RULE_FIRST_CARD_XP", d.first_card_xp, 0),
            ad_session_minutes: positive("RULE_AD_SESSION_MINUTES", d.ad_session_minutes, 1),
            ad_hearts_per_day: positive("RULE_AD_HEARTS_PER_DAY", d.ad_hearts_per_day, 0),
            ad_attempts_per_day: positive("RULE_AD_ATTEMPTS_PER_DAY", d.ad_attempts_per_day, 0),
            streak_protection_cooldown_days: positive(
                "RULE_STREAK_PROTECTION_COOLDOWN_DAYS",
                d.streak_protection_cooldown_days,
                0,
            ),
        }
    }
}
