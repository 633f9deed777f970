//! A player's game resources and every rule that changes them: hearts that come back
//! over time, daily attempts and daily XP that reset at Beijing midnight, streaks,
//! check-ins and levels. Pure: the data layer loads a [`Resources`], the service applies
//! these rules, the data layer stores the result.

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::rules::GameRules;
use crate::clock::{beijing, from_ms};

/// The stored resources of one player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resources {
    pub hearts: i64,
    /// While below max, hearts come back one per interval counted from here.
    pub hearts_regen_from: Option<i64>,
    pub attempts_day: Option<String>,
    pub attempts_used: i64,
    pub bonus_attempts: i64,
    pub xp: i64,
    pub daily_xp_day: Option<String>,
    pub daily_xp: i64,
    pub streak_days: i64,
    pub streak_last_day: Option<String>,
    pub streak_protected_until: Option<i64>,
    pub check_in_days: i64,
    /// Review XP earned today (reset with `daily_xp`), capped by `REVIEW_XP_DAILY`.
    pub review_xp: i64,
    /// Hearts review challenges gave back today (reset with `daily_xp`), capped by
    /// `REVIEW_HEARTS_DAILY`.
    pub review_hearts: i64,
}

/// Why a resource could not be spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    NoHearts,
    NoAttempts,
}

/// Level reached with `xp`: level L needs 100·L·(L−1)/2 cumulative XP (level 1 at 0).
pub fn level_for(xp: i64) -> i64 {
    let mut level = 1;
    while xp_for_level(level + 1) <= xp {
        level += 1;
    }
    level
}

/// Cumulative XP a level needs.
pub fn xp_for_level(level: i64) -> i64 {
    100 * level * (level - 1) / 2
}

/// XP still missing to the next level.
pub fn xp_to_next_level(xp: i64) -> i64 {
    xp_for_level(level_for(xp) + 1) - xp
}

impl Resources {
    /// A new player's resources.
    pub fn new(rules: &GameRules) -> Self {
        Self {
            hearts: rules.max_hearts,
            hearts_regen_from: None,
            attempts_day: None,
            attempts_used: 0,
            bonus_attempts: 0,
            xp: 0,
            daily_xp_day: None,
            daily_xp: 0,
            streak_days: 0,
            streak_last_day: None,
            streak_protected_until: None,
            check_in_days: 0,
            review_xp: 0,
            review_hearts: 0,
        }
    }

    /// Brings the stored state up to `now`: hearts regained so far are counted in (the
    /// regeneration clock keeps its partial progress), and the daily counters of an
    /// earlier Beijing day are reset.
    pub fn at(mut self, now: DateTime<Utc>, rules: &GameRules) -> Self {
        let today = beijing::day_key(beijing::day(now));
        if self.hearts < rules.max_hearts {
            let interval = Duration::minutes(rules.heart_regen_minutes)
                .num_milliseconds()
                .max(1);
            let from = self.hearts_regen_from.unwrap_or(now.timestamp_millis());
            let regained = (now.timestamp_millis() - from).max(0) / interval;
            self.hearts = (self.hearts + regained).min(rules.max_hearts);
            self.hearts_regen_from = if self.hearts >= rules.max_hearts {
                None
            } else {
                Some(from + regained * interval)
            };
        } else {
            self.hearts_regen_from = None;
        }
        if self.attempts_day.as_deref() != Some(today.as_str()) {
            self.attempts_day = Some(today.clone());
            self.attempts_used = 0;
            self.bonus_attempts = 0;
        }
        if self.daily_xp_day.as_deref() != Some(today.as_str()) {
            self.daily_xp_day = Some(today);
            self.daily_xp = 0;
            self.review_xp = 0;
            self.review_hearts = 0;
        }
        self
    }

    /// When the next heart comes back (None at max). Call on a state brought to `now`.
    pub fn next_heart_at(&self, rules: &GameRules) -> Option<DateTime<Utc>> {
        (self.hearts < rules.max_hearts).then(|| {
            let from = self
                .hearts_regen_from
                .map(from_ms)
                .unwrap_or(DateTime::<Utc>::MIN_UTC);
            from + Duration::minutes(rules.heart_regen_minutes)
        })
    }

    pub fn attempts_left(&self, rules: &GameRules) -> i64 {
        (rules.daily_attempts_max + self.bonus_attempts - self.attempts_used).max(0)
    }

    /// Whether a wrong answer can be paid for (`RULE_WRONG_ANSWER_HEARTS`). Call on a
    /// state brought to `now`.
    pub fn can_pay_for_wrong_answer(&self, rules: &GameRules) -> bool {
        self.hearts >= rules.wrong_answer_hearts
    }

    /// Takes what a wrong answer costs; short of it, refused. The regeneration clock
    /// starts when hearts first drop below max.
    pub fn pay_for_wrong_answer(
        &mut self,
        now: DateTime<Utc>,
        rules: &GameRules,
    ) -> Result<(), Refusal> {
        if !self.can_pay_for_wrong_answer(rules) {
            return Err(Refusal::NoHearts);
        }
        let cost = rules.wrong_answer_hearts;
        if cost > 0 && self.hearts >= rules.max_hearts {
            self.hearts_regen_from = Some(now.timestamp_millis());
        }
        self.hearts -= cost;
        Ok(())
    }

    /// Adds hearts (ad recovery), up to max.
    pub fn gain_hearts(&mut self, n: i64, rules: &GameRules) {
        self.hearts = (self.hearts + n).min(rules.max_hearts);
        if self.hearts >= rules.max_hearts {
            self.hearts_regen_from = None;
        }
    }

    /// Spends one daily attempt; none left, refused.
    pub fn use_attempt(&mut self, rules: &GameRules) -> Result<(), Refusal> {
        if self.attempts_left(rules) <= 0 {
            return Err(Refusal::NoAttempts);
        }
        self.attempts_used += 1;
        Ok(())
    }

    /// Adds XP to the total and to today's XP. Call on a state brought to `now`.
    pub fn gain_xp(&mut self, amount: i64) {
        self.xp += amount;
        self.daily_xp += amount;
    }

    /// Review XP a right review answer earns now: `REVIEW_XP` while today's review XP
    /// is under `REVIEW_XP_DAILY`, the rest of the allowance at its edge, then 0. Call
    /// on a state brought to `now`.
    pub fn review_xp_due(&self, rules: &GameRules) -> i64 {
        rules
            .review_xp
            .min(rules.review_xp_daily - self.review_xp)
            .max(0)
    }

    /// Adds review XP (counted in the day's review allowance too).
    pub fn gain_review_xp(&mut self, amount: i64) {
        self.gain_xp(amount);
        self.review_xp += amount;
    }

    /// A heart back for a good review, while today's review hearts are under
    /// `REVIEW_HEARTS_DAILY` and hearts under the maximum. Call on a state brought to `now`.
    pub fn gain_review_heart(&mut self, rules: &GameRules) {
        if self.review_hearts < rules.review_hearts_daily && self.hearts < rules.max_hearts {
            self.gain_hearts(1, rules);
            self.review_hearts += 1;
        }
    }

    /// The streak as it stands on `today` (see [`Self::record_activity`]).
    pub fn streak_on(&self, today: NaiveDate) -> i64 {
        match self.streak_last_day.as_deref().and_then(parse_day) {
            Some(last) if self.continues(last, today) => self.streak_days,
            _ => 0,
        }
    }

    /// A streak continues on `today` when the last active day is today or yesterday, or
    /// when streak protection covers every day in between.
    fn continues(&self, last: NaiveDate, today: NaiveDate) -> bool {
        if today - last <= Duration::days(1) {
            return true;
        }
        let yesterday = today - Duration::days(1);
        self.streak_protected_until
            .is_some_and(|ms| beijing::day(from_ms(ms)) >= yesterday)
    }

    /// Counts an accepted answer on `today` towards the streak.
    pub fn record_activity(&mut self, today: NaiveDate) {
        let today_key = beijing::day_key(today);
        if self.streak_last_day.as_deref() == Some(today_key.as_str()) {
            return;
        }
        self.streak_days = self.streak_on(today) + 1;
        self.streak_last_day = Some(today_key);
    }
}

fn parse_day(s: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|e| panic!("{s}: {e}"))
    }
    fn d(s: &str) -> NaiveDate {
        parse_day(s).unwrap_or_else(|| panic!("{s}"))
    }
    fn rules() -> GameRules {
        GameRules::default()
    }

    #[test]
    fn levels_follow_the_triangular_rule() {
        assert_eq!(level_for(0), 1);
        assert_eq!(level_for(99), 1);
        assert_eq!(level_for(100), 2);
        assert_eq!(level_for(299), 2);
        assert_eq!(level_for(300), 3);
        assert_eq!(level_for(600), 4);
        assert_eq!(xp_to_next_level(0), 100);
        assert_eq!(xp_to_next_level(130), 170);
        assert_eq!(xp_to_next_level(300), 300);
    }

    #[test]
    fn hearts_regenerate_keeping_partial_progress() {
        let r = rules();
        let t0 = t("2026-11-18T04:00:00Z");
        let mut s = Resources::new(&r).at(t0, &r);
        s.pay_for_wrong_answer(t0, &r)
            .unwrap_or_else(|e| panic!("{e:?}"));
        s.pay_for_wrong_answer(t0 + Duration::minutes(10), &r)
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(s.hearts, 3);
        // the clock started at the first loss: one heart back at t0+30
        let s = s.at(t0 + Duration::minutes(45), &r);
        assert_eq!(s.hearts, 4);
        assert_eq!(s.next_heart_at(&r), Some(t0 + Duration::minutes(60)));
        let s = s.at(t0 + Duration::minutes(60), &r);
        assert_eq!(s.hearts, 5);
        assert_eq!(s.next_heart_at(&r), None);
        assert_eq!(s.hearts_regen_from, None);
    }

    #[test]
    fn no_heart_to_lose_is_refused() {
        let r = rules();
        let t0 = t("2026-11-18T04:00:00Z");
        let mut s = Resources::new(&r).at(t0, &r);
        for _ in 0..5 {
            assert!(s.pay_for_wrong_answer(t0, &r).is_ok());
        }
        assert_eq!(s.pay_for_wrong_answer(t0, &r), Err(Refusal::NoHearts));
        assert_eq!(s.hearts, 0);
    }

    #[test]
    fn attempts_reset_at_beijing_midnight() {
        let r = rules();
        let before = t("2026-11-18T15:59:59Z");
        let mut s = Resources::new(&r).at(before, &r);
        for _ in 0..10 {
            assert!(s.use_attempt(&r).is_ok());
        }
        assert_eq!(s.use_attempt(&r), Err(Refusal::NoAttempts));
        let same_day = s.clone().at(before, &r);
        assert_eq!(same_day.attempts_left(&r), 0);
        let next_day = s.at(t("2026-11-18T16:00:00Z"), &r);
        assert_eq!(next_day.attempts_left(&r), 10);
    }

    #[test]
    fn daily_xp_resets_but_total_stays() {
        let r = rules();
        let mut s = Resources::new(&r).at(t("2026-11-18T10:00:00Z"), &r);
        s.gain_xp(30);
        let s = s.at(t("2026-11-18T16:00:01Z"), &r);
        assert_eq!((s.xp, s.daily_xp), (30, 0));
    }

    #[test]
    fn streaks_count_consecutive_active_days() {
        let r = rules();
        let mut s = Resources::new(&r);
        s.record_activity(d("2026-11-18"));
        s.record_activity(d("2026-11-18"));
        assert_eq!(s.streak_days, 1);
        s.record_activity(d("2026-11-19"));
        assert_eq!(s.streak_days, 2);
        assert_eq!(s.streak_on(d("2026-11-20")), 2);
        assert_eq!(s.streak_on(d("2026-11-21")), 0);
        s.record_activity(d("2026-11-21"));
        assert_eq!(s.streak_days, 1);
    }

    #[test]
    fn protection_covers_a_missed_day() {
        let r = rules();
        let mut s = Resources::new(&r);
        s.record_activity(d("2026-11-18"));
        s.record_activity(d("2026-11-19"));
        // protected through the end of the 20th (Beijing)
        s.streak_protected_until = Some(beijing::day_start(d("2026-11-21")).timestamp_millis() - 1);
        assert_eq!(s.streak_on(d("2026-11-21")), 2);
        s.record_activity(d("2026-11-21"));
        assert_eq!(s.streak_days, 3);
        // not two missed days
        assert_eq!(s.streak_on(d("2026-11-24")), 0);
    }
}
