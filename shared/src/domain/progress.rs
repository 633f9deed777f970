//! Resource rules that depend on time: heart regeneration, daily XP, streaks.

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::rules::GameRules;
use crate::clock::{beijing, from_ms};

/// Hearts at `now` given the stored count and the instant regeneration started from,
/// and when the next heart comes back (None at max).
pub fn hearts_at(
    stored: i64,
    regen_from_ms: Option<i64>,
    now: DateTime<Utc>,
    rules: &GameRules,
) -> (i64, Option<DateTime<Utc>>) {
    if stored >= rules.max_hearts {
        return (stored, None);
    }
    let interval = Duration::minutes(rules.heart_regen_minutes);
    let from = regen_from_ms.map(from_ms).unwrap_or(now);
    let elapsed = (now - from).max(Duration::zero());
    let regained = elapsed.num_milliseconds() / interval.num_milliseconds().max(1);
    let hearts = (stored + regained).min(rules.max_hearts);
    if hearts >= rules.max_hearts {
        (hearts, None)
    } else {
        let next = from + interval * i32::try_from(regained + 1).unwrap_or(i32::MAX);
        (hearts, Some(next))
    }
}

/// XP earned on `today` given the stored day and its total.
pub fn daily_xp_on(stored_day: Option<&str>, stored_xp: i64, today: NaiveDate) -> i64 {
    if stored_day == Some(beijing::day_key(today).as_str()) {
        stored_xp
    } else {
        0
    }
}

/// The streak as it stands on `today`: kept while the last active day is today or
/// yesterday, or while protection covers the days in between.
pub fn streak_on(
    streak_days: i64,
    last_day: Option<&str>,
    protected_until_ms: Option<i64>,
    today: NaiveDate,
) -> i64 {
    let Some(last) = last_day.and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()) else {
        return 0;
    };
    if today - last <= Duration::days(1) {
        return streak_days;
    }
    // Every missed day (after `last`, before `today`) must be covered by protection.
    let yesterday = today - Duration::days(1);
    let covered = protected_until_ms
        .map(|ms| beijing::day(from_ms(ms)) >= yesterday)
        .unwrap_or(false);
    if covered { streak_days } else { 0 }
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
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn hearts_regenerate_one_per_interval_up_to_max() {
        let rules = GameRules::default();
        let from = t("2026-11-21T00:00:00Z");
        let ms = Some(from.timestamp_millis());
        assert_eq!(hearts_at(5, None, from, &rules), (5, None));
        assert_eq!(
            hearts_at(3, ms, from + Duration::minutes(29), &rules),
            (3, Some(from + Duration::minutes(30)))
        );
        assert_eq!(
            hearts_at(3, ms, from + Duration::minutes(30), &rules),
            (4, Some(from + Duration::minutes(60)))
        );
        assert_eq!(
            hearts_at(3, ms, from + Duration::minutes(60), &rules),
            (5, None)
        );
        assert_eq!(
            hearts_at(0, ms, from + Duration::days(3), &rules),
            (5, None)
        );
    }

    #[test]
    fn daily_xp_resets_with_the_beijing_day() {
        assert_eq!(daily_xp_on(Some("2026-11-21"), 40, d("2026-11-21")), 40);
        assert_eq!(daily_xp_on(Some("2026-11-20"), 40, d("2026-11-21")), 0);
        assert_eq!(daily_xp_on(None, 0, d("2026-11-21")), 0);
    }

    #[test]
    fn streak_survives_one_day_and_protection() {
        assert_eq!(streak_on(4, Some("2026-11-21"), None, d("2026-11-21")), 4);
        assert_eq!(streak_on(4, Some("2026-11-20"), None, d("2026-11-21")), 4);
        assert_eq!(streak_on(4, Some("2026-11-19"), None, d("2026-11-21")), 0);
        // protected through the end of 2026-11-20 (Beijing): the gap day is covered
        let end_of_20th = beijing::day_start(d("2026-11-21")).timestamp_millis() - 1;
        assert_eq!(
            streak_on(4, Some("2026-11-19"), Some(end_of_20th), d("2026-11-21")),
            4
        );
        assert_eq!(streak_on(0, None, None, d("2026-11-21")), 0);
    }
}
