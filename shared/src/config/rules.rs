//! Game rules and limits read from the environment.

use super::Reader;
use crate::domain::fairplay::FairPlayRules;
use crate::domain::league::LeagueRules;
use crate::domain::minor::MinorRules;
use crate::domain::question_stats::QualityRules;
use crate::domain::rules::GameRules;

/// The game rules from `RULE_*` (the defaults where unset).
pub(super) fn game_rules(r: &mut Reader<'_>) -> GameRules {
    let d = GameRules::default();
    let mut positive = |name: &str, default: i64, min: i64| {
        let v: i64 = r.parsed(name, default);
        if v < min {
            r.errors.push(format!("{name}={v}: must be at least {min}"));
            default
        } else {
            v
        }
    };
    let mut rules = GameRules {
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
        review_xp: positive("REVIEW_XP", d.review_xp, 0),
        review_xp_daily: positive("REVIEW_XP_DAILY", d.review_xp_daily, 0),
        review_hearts_daily: positive("REVIEW_HEARTS_DAILY", d.review_hearts_daily, 0),
        wrong_answer_hearts: positive("RULE_WRONG_ANSWER_HEARTS", d.wrong_answer_hearts, 0),
    };
    if rules.wrong_answer_hearts > rules.max_hearts {
        r.errors.push(format!(
            "RULE_WRONG_ANSWER_HEARTS={}: may be at most RULE_MAX_HEARTS ({})",
            rules.wrong_answer_hearts, rules.max_hearts
        ));
        rules.wrong_answer_hearts = d.wrong_answer_hearts.min(rules.max_hearts);
    }
    rules
}

/// The question-quality thresholds from `RULE_*` (the defaults where unset): rates are
/// 0-1, counts at least 1.
pub(super) fn quality_rules(r: &mut Reader<'_>) -> QualityRules {
    let d = QualityRules::default();
    let share = |name: &str, default: f64, r: &mut Reader<'_>| {
        let v: f64 = r.parsed(name, default);
        if (0.0..=1.0).contains(&v) {
            v
        } else {
            r.errors.push(format!("{name}={v}: must be 0-1"));
            default
        }
    };
    let too_easy_accuracy = share("RULE_TOO_EASY_ACCURACY", d.too_easy_accuracy, r);
    let too_hard_accuracy = share("RULE_TOO_HARD_ACCURACY", d.too_hard_accuracy, r);
    let dead_distractor_rate = share("RULE_DEAD_DISTRACTOR_RATE", d.dead_distractor_rate, r);
    let discrimination_group = share("RULE_DISCRIMINATION_GROUP", d.discrimination_group, r);
    let discrimination_floor: f64 = r.parsed("RULE_DISCRIMINATION_FLOOR", d.discrimination_floor);
    if !(-1.0..=1.0).contains(&discrimination_floor) {
        r.errors
            .push("RULE_DISCRIMINATION_FLOOR must be -1 to 1".into());
    }
    let mut count = |name: &str, default: i64| {
        let v: i64 = r.parsed(name, default);
        if v < 1 {
            r.errors.push(format!("{name}={v}: must be at least 1"));
            default
        } else {
            v
        }
    };
    QualityRules {
        min_attempts: count("RULE_STATS_MIN_ATTEMPTS", d.min_attempts),
        dead_distractor_min_attempts: count(
            "RULE_DEAD_DISTRACTOR_MIN_ATTEMPTS",
            d.dead_distractor_min_attempts,
        ),
        too_easy_accuracy,
        too_hard_accuracy,
        dead_distractor_rate,
        discrimination_floor,
        discrimination_group,
    }
}

/// The fair-play thresholds from `FAIRPLAY_*` (the defaults where unset).
pub(super) fn fairplay_rules(r: &mut Reader<'_>) -> FairPlayRules {
    let d = FairPlayRules::default();
    let rules = FairPlayRules {
        min_ms: r.parsed("FAIRPLAY_MIN_MS", d.min_ms),
        median_percent: r.parsed("FAIRPLAY_MEDIAN_PERCENT", d.median_percent),
        pace_min_players: r.parsed("FAIRPLAY_PACE_MIN_PLAYERS", d.pace_min_players),
        claim_tolerance_ms: r.parsed("FAIRPLAY_CLAIM_TOLERANCE_MS", d.claim_tolerance_ms),
        hold_score: r.parsed("FAIRPLAY_HOLD_SCORE", d.hold_score),
    };
    if !(0..=60_000).contains(&rules.min_ms)
        || !(0..=100).contains(&rules.median_percent)
        || !(0..=600_000).contains(&rules.claim_tolerance_ms)
        || rules.hold_score < 1
        || rules.pace_min_players < 1
    {
        r.errors.push(
            "FAIRPLAY_MIN_MS must be 0-60000, FAIRPLAY_MEDIAN_PERCENT 0-100, \
             FAIRPLAY_CLAIM_TOLERANCE_MS 0-600000, FAIRPLAY_HOLD_SCORE and \
             FAIRPLAY_PACE_MIN_PLAYERS at least 1"
                .into(),
        );
    }
    rules
}

/// The league settings from `LEAGUE_*` (the defaults where unset).
pub(super) fn league_rules(r: &mut Reader<'_>) -> LeagueRules {
    let d = LeagueRules::default();
    let rules = LeagueRules {
        cohort_size: r.parsed("LEAGUE_COHORT_SIZE", d.cohort_size),
        promote: r.parsed("LEAGUE_PROMOTE", d.promote),
        demote: r.parsed("LEAGUE_DEMOTE", d.demote),
    };
    if !(2..=1000).contains(&rules.cohort_size)
        || rules.promote < 0
        || rules.demote < 0
        || rules.promote + rules.demote > rules.cohort_size
    {
        r.errors.push(
            "LEAGUE_COHORT_SIZE must be 2-1000, LEAGUE_PROMOTE and LEAGUE_DEMOTE not negative \
             and together at most the cohort size"
                .into(),
        );
    }
    rules
}

/// Request rate limits (per process, per client address, per route), and SMS abuse and
/// feedback limits (in the database, so they hold across processes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `RATE_LIMIT_AUTH_PER_MINUTE`: guest, vendor, refresh, phone and link sign-in routes.
    pub auth_per_minute: u32,
    /// `RATE_LIMIT_SEND_CODE_PER_MINUTE`: `/auth/phone/send-code`.
    pub send_code_per_minute: u32,
    /// `RATE_LIMIT_PLAYER_WRITES_PER_MINUTE`: requests that write, per player (all their
    /// tokens together) and process: every write a signed-in player can make
    /// (`player-api`'s `rate_limit::PLAYER_WRITES`).
    pub player_writes_per_minute: u32,
    /// `SMS_RESEND_SECONDS`: the resend window of one number.
    pub sms_resend_seconds: i64,
    /// `SMS_CODE_TTL_SECONDS`: how long a console code is valid.
    pub sms_code_ttl_seconds: i64,
    /// `SMS_MAX_SENDS_PER_PHONE_PER_DAY`.
    pub sms_sends_per_phone_per_day: i64,
    /// `SMS_MAX_SENDS_PER_IP_PER_DAY`.
    pub sms_sends_per_ip_per_day: i64,
    /// `SMS_MAX_VERIFY_FAILURES`: wrong codes after which the pending code is dead.
    pub sms_max_verify_failures: i64,
    /// `JWKS_MIN_REFETCH_SECONDS`: least time between JWKS refetches caused by an unknown
    /// key id (so random key ids cannot make the service hammer HUAWEI or Apple).
    pub jwks_min_refetch_seconds: u64,
    /// `FEEDBACK_PER_HOUR`: feedback one player may send per clock hour.
    pub feedback_per_hour: i64,
    /// `FEEDBACK_PER_ADDRESS_PER_HOUR`: feedback sent from one client address per clock
    /// hour (every player behind it together; raise it behind a carrier-grade NAT).
    pub feedback_per_address_per_hour: i64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            auth_per_minute: 10,
            send_code_per_minute: 5,
            player_writes_per_minute: 120,
            sms_resend_seconds: 60,
            sms_code_ttl_seconds: 300,
            sms_sends_per_phone_per_day: 10,
            sms_sends_per_ip_per_day: 20,
            sms_max_verify_failures: 5,
            jwks_min_refetch_seconds: 10,
            feedback_per_hour: 10,
            feedback_per_address_per_hour: 30,
        }
    }
}

impl Limits {
    pub(super) fn from_reader(r: &mut Reader<'_>) -> Self {
        let d = Self::default();
        let limits = Self {
            auth_per_minute: r.parsed("RATE_LIMIT_AUTH_PER_MINUTE", d.auth_per_minute),
            send_code_per_minute: r
                .parsed("RATE_LIMIT_SEND_CODE_PER_MINUTE", d.send_code_per_minute),
            player_writes_per_minute: r.parsed(
                "RATE_LIMIT_PLAYER_WRITES_PER_MINUTE",
                d.player_writes_per_minute,
            ),
            sms_resend_seconds: r.parsed("SMS_RESEND_SECONDS", d.sms_resend_seconds),
            sms_code_ttl_seconds: r.parsed("SMS_CODE_TTL_SECONDS", d.sms_code_ttl_seconds),
            sms_sends_per_phone_per_day: r.parsed(
                "SMS_MAX_SENDS_PER_PHONE_PER_DAY",
                d.sms_sends_per_phone_per_day,
            ),
            sms_sends_per_ip_per_day: r
                .parsed("SMS_MAX_SENDS_PER_IP_PER_DAY", d.sms_sends_per_ip_per_day),
            sms_max_verify_failures: r.parsed("SMS_MAX_VERIFY_FAILURES", d.sms_max_verify_failures),
            jwks_min_refetch_seconds: r
                .parsed("JWKS_MIN_REFETCH_SECONDS", d.jwks_min_refetch_seconds),
            feedback_per_hour: r.parsed("FEEDBACK_PER_HOUR", d.feedback_per_hour),
            feedback_per_address_per_hour: r.parsed(
                "FEEDBACK_PER_ADDRESS_PER_HOUR",
                d.feedback_per_address_per_hour,
            ),
        };
        if !(1..=10_000).contains(&limits.feedback_per_hour)
            || !(1..=100_000).contains(&limits.feedback_per_address_per_hour)
        {
            r.errors.push(
                "FEEDBACK_PER_HOUR must be 1-10000 and FEEDBACK_PER_ADDRESS_PER_HOUR 1-100000"
                    .into(),
            );
        }
        if limits.auth_per_minute == 0
            || limits.send_code_per_minute == 0
            || limits.player_writes_per_minute == 0
        {
            r.errors
                .push("RATE_LIMIT_*_PER_MINUTE must be at least 1".into());
        }
        if limits.sms_sends_per_phone_per_day < 1
            || limits.sms_sends_per_ip_per_day < 1
            || limits.sms_max_verify_failures < 1
            || limits.sms_resend_seconds < 0
            || limits.sms_code_ttl_seconds < 1
        {
            r.errors.push("SMS_* limits must be positive".into());
        }
        limits
    }
}

/// Minor mode's daily limits by age band and its activity gap (`MINOR_*`; the CAC
/// guide's limits where unset).
pub(super) fn minor_rules(r: &mut Reader<'_>) -> MinorRules {
    let d = MinorRules::default();
    let mut minutes = |name: &str, default: i64| {
        let v: i64 = r.parsed(name, default);
        if (0..=1440).contains(&v) {
            v
        } else {
            r.errors.push(format!("{name}={v}: must be 0-1440 minutes"));
            default
        }
    };
    let under8_minutes = minutes("MINOR_LIMIT_UNDER8_MINUTES", d.under8_minutes);
    let from8to12_minutes = minutes("MINOR_LIMIT_8TO12_MINUTES", d.from8to12_minutes);
    let from12to16_minutes = minutes("MINOR_LIMIT_12TO16_MINUTES", d.from12to16_minutes);
    let from16to18_minutes = minutes("MINOR_LIMIT_16TO18_MINUTES", d.from16to18_minutes);
    let gap: i64 = r.parsed("MINOR_ACTIVITY_GAP_SECONDS", d.activity_gap_cap_secs);
    let activity_gap_cap_secs = if (1..=3600).contains(&gap) {
        gap
    } else {
        r.errors
            .push(format!("MINOR_ACTIVITY_GAP_SECONDS={gap}: must be 1-3600"));
        d.activity_gap_cap_secs
    };
    MinorRules {
        under8_minutes,
        from8to12_minutes,
        from12to16_minutes,
        from16to18_minutes,
        activity_gap_cap_secs,
        ..d
    }
}
