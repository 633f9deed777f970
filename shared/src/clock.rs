//! The service clock and Beijing calendar boundaries.
//!
//! Every time rule (days, weeks, months, heart regeneration, expiries) reads
//! [`Clock::now`], never the system clock directly, so `QUIZ_CLOCK_START` and tests can
//! move time.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Asia::Shanghai;

/// A clock that runs in real time from a configurable start and can be moved forward.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Milliseconds added to the system clock; shared by every clone.
    shift_ms: Arc<AtomicI64>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self {
            shift_ms: Arc::new(AtomicI64::new(0)),
        }
    }

    /// A clock that reads `start` now and runs on in real time from there.
    pub fn starting_at(start: DateTime<Utc>) -> Self {
        let clock = Self::system();
        clock.set(start);
        clock
    }

    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() + Duration::milliseconds(self.shift_ms.load(Ordering::Relaxed))
    }

    /// Unix milliseconds, the form instants are stored in.
    pub fn now_ms(&self) -> i64 {
        self.now().timestamp_millis()
    }

    /// Moves the clock by `by` (tests and demos; never backwards in production use).
    pub fn advance(&self, by: Duration) {
        self.shift_ms
            .fetch_add(by.num_milliseconds(), Ordering::Relaxed);
    }

    /// Makes the clock read `at` now.
    pub fn set(&self, at: DateTime<Utc>) {
        let shift = at.timestamp_millis() - Utc::now().timestamp_millis();
        self.shift_ms.store(shift, Ordering::Relaxed);
    }
}

/// Converts Unix milliseconds into an instant.
pub fn from_ms(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or(DateTime::<Utc>::MIN_UTC)
}

/// Beijing (UTC+08:00, no daylight saving since 1991) calendar arithmetic.
pub mod beijing {
    use super::*;

    fn local_midnight_to_utc(date: NaiveDate) -> DateTime<Utc> {
        let local = NaiveDateTime::new(date, NaiveTime::MIN);
        match Shanghai.from_local_datetime(&local).earliest() {
            Some(t) => t.with_timezone(&Utc),
            // unreachable for Shanghai; the fixed offset is the same answer
            None => Utc.from_utc_datetime(&(local - Duration::hours(8))),
        }
    }

    /// The Beijing calendar day of an instant.
    pub fn day(at: DateTime<Utc>) -> NaiveDate {
        at.with_timezone(&Shanghai).date_naive()
    }

    /// The stored form of a day: `YYYY-MM-DD`.
    pub fn day_key(day: NaiveDate) -> String {
        day.format("%Y-%m-%d").to_string()
    }

    /// The instant a Beijing day starts.
    pub fn day_start(day: NaiveDate) -> DateTime<Utc> {
        local_midnight_to_utc(day)
    }

    /// A Beijing wall-clock instant (tests write the rules' edges this way).
    #[cfg(test)]
    pub fn wall(y: i32, m: u32, d: u32, h: u32, min: u32, s: u32) -> DateTime<Utc> {
        Shanghai
            .with_ymd_and_hms(y, m, d, h, min, s)
            .single()
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_default()
    }

    /// The next Beijing midnight strictly after `at`.
    pub fn next_midnight(at: DateTime<Utc>) -> DateTime<Utc> {
        local_midnight_to_utc(day(at) + Duration::days(1))
    }

    /// Monday of the Beijing week containing `at`.
    pub fn week_start(at: DateTime<Utc>) -> NaiveDate {
        let d = day(at);
        d - Duration::days(i64::from(d.weekday().num_days_from_monday()))
    }

    /// Sunday of the Beijing week containing `at`.
    pub fn week_end(at: DateTime<Utc>) -> NaiveDate {
        week_start(at) + Duration::days(6)
    }

    /// Monday of the next Beijing week.
    pub fn next_week_start(at: DateTime<Utc>) -> NaiveDate {
        week_start(at) + Duration::days(7)
    }

    /// The number of the Beijing week of an instant (Unix milliseconds): whole weeks
    /// since Monday 1969-12-29, Beijing. UTC+08:00 is fixed, so it is plain arithmetic
    /// that SQL can do too ([`WEEK_NUMBER_SQL`]).
    pub fn week_number(ms: i64) -> i64 {
        ((ms + 8 * 3_600_000).div_euclid(86_400_000) + 3).div_euclid(7)
    }

    /// [`week_number`] of the column `created_at` (not negative), in portable SQL.
    pub const WEEK_NUMBER_SQL: &str = "((created_at + 28800000) / 86400000 + 3) / 7";

    /// The number of the Beijing day of an instant: whole days since 1970-01-01,
    /// Beijing ([`DAY_NUMBER_SQL`] in SQL); its week is `(day + 3) / 7`.
    pub fn day_number(ms: i64) -> i64 {
        (ms + 8 * 3_600_000).div_euclid(86_400_000)
    }

    /// [`day_number`] of the column `created_at` (not negative), in portable SQL.
    pub const DAY_NUMBER_SQL: &str = "((created_at + 28800000) / 86400000)";

    /// The first instant (Unix milliseconds) of Beijing day number `n`.
    pub fn day_number_start_ms(n: i64) -> i64 {
        n * 86_400_000 - 8 * 3_600_000
    }

    /// The Monday of week number `n` (see [`week_number`]).
    pub fn week_of_number(n: i64) -> NaiveDate {
        NaiveDate::from_ymd_opt(1969, 12, 29).unwrap_or_default() + Duration::days(7 * n)
    }

    /// Whole seconds since this Beijing week began.
    pub fn seconds_into_week(at: DateTime<Utc>) -> i64 {
        (at - local_midnight_to_utc(week_start(at))).num_seconds()
    }

    /// The instant the Beijing calendar month after the one containing `at` starts.
    pub fn next_month_start(at: DateTime<Utc>) -> DateTime<Utc> {
        let d = day(at);
        let (year, month) = if d.month() == 12 {
            (d.year() + 1, 1)
        } else {
            (d.year(), d.month() + 1)
        };
        let first = NaiveDate::from_ymd_opt(year, month, 1).unwrap_or(d);
        local_midnight_to_utc(first)
    }
}

#[cfg(test)]
mod tests {
    use super::beijing::*;
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|e| panic!("bad test instant {s}: {e}"))
    }
    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn day_turns_at_16_utc() {
        assert_eq!(day(t("2026-11-20T15:59:59Z")), d("2026-11-20"));
        assert_eq!(day(t("2026-11-20T16:00:00Z")), d("2026-11-21"));
        assert_eq!(day_key(day(t("2026-11-20T16:00:00Z"))), "2026-11-21");
    }

    #[test]
    fn next_midnight_is_the_following_16_utc() {
        assert_eq!(
            next_midnight(t("2026-11-20T15:59:59Z")),
            t("2026-11-20T16:00:00Z")
        );
        assert_eq!(
            next_midnight(t("2026-11-20T16:00:00Z")),
            t("2026-11-21T16:00:00Z")
        );
        assert_eq!(day_start(d("2026-11-21")), t("2026-11-20T16:00:00Z"));
    }

    #[test]
    fn week_runs_monday_to_sunday_beijing() {
        // 2026-11-22 is a Sunday, 2026-11-23 a Monday.
        let sunday_last_second = t("2026-11-22T15:59:59Z");
        let monday_first_second = t("2026-11-22T16:00:00Z");
        assert_eq!(week_start(sunday_last_second), d("2026-11-16"));
        assert_eq!(week_end(sunday_last_second), d("2026-11-22"));
        assert_eq!(next_week_start(sunday_last_second), d("2026-11-23"));
        assert_eq!(week_start(monday_first_second), d("2026-11-23"));
        assert_eq!(week_end(monday_first_second), d("2026-11-29"));
        // Monday 00:00 Beijing is still Sunday in UTC.
        assert_eq!(monday_first_second.weekday(), chrono::Weekday::Sun);
    }

    #[test]
    fn week_numbers_name_the_beijing_weeks() {
        for at in [
            "2026-11-22T15:59:59.999Z",
            "2026-11-22T16:00:00Z",
            "2026-11-18T04:00:00Z",
            "1970-01-01T00:00:00Z",
            "2038-02-28T23:59:59Z",
        ] {
            let at = t(at);
            assert_eq!(
                week_of_number(week_number(at.timestamp_millis())),
                week_start(at),
                "{at}"
            );
        }
        assert_eq!(
            week_number(t("2026-11-22T16:00:00Z").timestamp_millis())
                - week_number(t("2026-11-22T15:59:59Z").timestamp_millis()),
            1
        );
    }

    #[test]
    fn seconds_into_week_starts_at_zero_on_monday() {
        assert_eq!(seconds_into_week(t("2026-11-22T16:00:00Z")), 0);
        assert_eq!(seconds_into_week(t("2026-11-22T15:59:59Z")), 7 * 86_400 - 1);
    }

    #[test]
    fn month_boundaries_follow_beijing_time() {
        // 2026-11-30T16:00Z is already December 1st in Beijing.
        assert_eq!(
            next_month_start(t("2026-11-30T15:59:59Z")),
            t("2026-11-30T16:00:00Z")
        );
        assert_eq!(
            next_month_start(t("2026-11-30T16:00:00Z")),
            t("2026-12-31T16:00:00Z")
        );
        // December rolls into the next year.
        assert_eq!(
            next_month_start(t("2026-12-15T00:00:00Z")),
            t("2026-12-31T16:00:00Z")
        );
    }

    #[test]
    fn clock_can_be_set_and_advanced() {
        let clock = Clock::starting_at(t("2026-01-01T00:00:00Z"));
        let start = clock.now();
        assert!((start - t("2026-01-01T00:00:00Z")).num_seconds().abs() < 5);
        clock.advance(Duration::hours(30));
        assert!((clock.now() - start).num_hours() >= 30);
        let shared = clock.clone();
        shared.advance(Duration::days(1));
        assert!((clock.now() - start).num_hours() >= 54);
    }
}
