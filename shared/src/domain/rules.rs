//! The game-rule defaults of operations.md §6, in one place. Each can be overridden by
//! the `RULE_*` environment variable named beside it (see the README).

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
    /// `REVIEW_XP`: a right answer in a review challenge.
    pub review_xp: i64,
    /// `REVIEW_XP_DAILY`: review XP a player may earn in a Beijing day.
    pub review_xp_daily: i64,
    /// `REVIEW_HEARTS_DAILY`: hearts review challenges may give back in a Beijing day.
    pub review_hearts_daily: i64,
    /// `RULE_WRONG_ANSWER_HEARTS`: what a wrong answer in a track's challenge costs.
    pub wrong_answer_hearts: i64,
}

impl GameRules {
    /// The most XP one player can earn in a Beijing day under these rules: every
    /// attempt of the day (its own and those ads give back) a challenge answered all
    /// right with each answer's card opened, the first card of all, and the day's review
    /// allowance. What a merge may add to a day on the boards (`domain::merge`).
    pub fn daily_xp_ceiling(&self) -> i64 {
        let answers = (self.daily_attempts_max.max(0) + self.ad_attempts_per_day.max(0))
            .saturating_mul(self.questions_per_challenge.max(0));
        answers
            .saturating_mul(
                self.xp_per_correct
                    .max(0)
                    .saturating_add(self.card_view_xp.max(0)),
            )
            .saturating_add(self.first_card_xp.max(0))
            .saturating_add(self.review_xp_daily.max(0))
    }
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
            review_xp: 5,
            review_xp_daily: 50,
            review_hearts_daily: 5,
            wrong_answer_hearts: 1,
        }
    }
}
