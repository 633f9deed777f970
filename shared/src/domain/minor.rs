//! Minor mode (CAC's minor-mode guide, 移动互联网未成年人模式建设指南): a daily play-time
//! limit by age band, no play at night, no rewarded ads. Pure rules over the service
//! clock and the day's counted play; the counting itself is one SQL statement
//! (`db::minors::count_activity`) that follows [`counted_gap_ms`].

use chrono::{DateTime, Duration, NaiveTime, Timelike, Utc};
use chrono_tz::Asia::Shanghai;

use crate::clock::beijing;
use crate::closed_set::closed_set;

closed_set! {
    /// The age band a player (or their guardian) declares; `adult` is minor mode off.
    pub enum AgeBand in "age-band" {
        Under8 = "under8",
        From8To12 = "8to12",
        From12To16 = "12to16",
        From16To18 = "16to18",
        Adult = "adult",
    }
}

impl AgeBand {
    /// Every band but `adult` puts the player in minor mode.
    pub fn is_minor(self) -> bool {
        self != Self::Adult
    }
}

closed_set! {
    /// Why minor protection refused a request (`error.details.reason`).
    pub enum MinorReason in "minor-reason" {
        /// The day's play-time limit is used up.
        DailyLimit = "daily_limit",
        /// 22:00-06:00 Beijing time.
        Curfew = "curfew",
        /// Rewarded ads are not offered to minors.
        AdsUnavailable = "ads_unavailable",
        /// Outside the play windows of the licensed-game profile.
        Window = "window",
    }
}

/// A refusal: its reason and when the player may play again (none: not while in minor
/// mode, as for rewarded ads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinorRefusal {
    pub reason: MinorReason,
    pub next_allowed_at: Option<DateTime<Utc>>,
}

/// The daily limits by band and how play is counted (`MINOR_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinorRules {
    pub under8_minutes: i64,
    pub from8to12_minutes: i64,
    pub from12to16_minutes: i64,
    pub from16to18_minutes: i64,
    /// The most one gap between two answers (or between serving a challenge and its
    /// first answer) counts: a player who put the phone down is not playing.
    pub activity_gap_cap_secs: i64,
    /// Curfew start and end, Beijing wall-clock hours (22 and 6).
    pub curfew_from_hour: u32,
    pub curfew_until_hour: u32,
}

impl Default for MinorRules {
    /// The CAC guide's limits: under 8, 40 minutes; 8 to 16, one hour; 16 to 18, two
    /// hours; no use from 22:00 to 06:00.
    fn default() -> Self {
        Self {
            under8_minutes: 40,
            from8to12_minutes: 60,
            from12to16_minutes: 60,
            from16to18_minutes: 120,
            activity_gap_cap_secs: 120,
            curfew_from_hour: 22,
            curfew_until_hour: 6,
        }
    }
}

impl MinorRules {
    /// The band's daily limit in milliseconds; none for an adult.
    pub fn daily_limit_ms(&self, band: AgeBand) -> Option<i64> {
        let minutes = match band {
            AgeBand::Under8 => self.under8_minutes,
            AgeBand::From8To12 => self.from8to12_minutes,
            AgeBand::From12To16 => self.from12to16_minutes,
            AgeBand::From16To18 => self.from16to18_minutes,
            AgeBand::Adult => return None,
        };
        Some(minutes * 60_000)
    }

    /// The most one gap between two activities counts, in milliseconds.
    pub fn gap_cap_ms(&self) -> i64 {
        self.activity_gap_cap_secs * 1000
    }
}

/// What a Beijing day's counted play is at `now`: the stored count when it is of
/// today, else nothing yet.
pub fn played_today_ms(stored: Option<(&str, i64)>, now: DateTime<Utc>) -> i64 {
    let today = beijing::day_key(beijing::day(now));
    match stored {
        Some((day, ms)) if day == today => ms,
        _ => 0,
    }
}

/// How much of the time since the last activity counts as play: the gap, capped, and
/// nothing when the clock went back.
pub fn counted_gap_ms(last_activity_ms: i64, now_ms: i64, cap_ms: i64) -> i64 {
    (now_ms - last_activity_ms).clamp(0, cap_ms)
}

/// The Beijing instant `hour`:00 on the day of `at` (Beijing).
fn at_hour(at: DateTime<Utc>, hour: u32) -> DateTime<Utc> {
    let time = NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or(NaiveTime::MIN);
    beijing::day_start(beijing::day(at)) + (time - NaiveTime::MIN)
}

/// Whether `at` falls in the night curfew, and when it ends.
pub fn curfew_end(at: DateTime<Utc>, rules: &MinorRules) -> Option<DateTime<Utc>> {
    let hour = at.with_timezone(&Shanghai).hour();
    if hour >= rules.curfew_from_hour {
        Some(at_hour(at, rules.curfew_until_hour) + Duration::days(1))
    } else if hour < rules.curfew_until_hour {
        Some(at_hour(at, rules.curfew_until_hour))
    } else {
        None
    }
}

/// The first instant of the next Beijing day outside the curfew: when a used-up daily
/// limit lets the player play again.
fn next_day_morning(at: DateTime<Utc>, rules: &MinorRules) -> DateTime<Utc> {
    let midnight = beijing::next_midnight(at);
    curfew_end(midnight, rules).unwrap_or(midnight)
}

/// Whether a player in `band` who has played `played_ms` today may play at `now`, and
/// if not why and until when. The curfew comes before the limit: it is the reason that
/// ends first only when the limit is not used up.
pub fn play_refusal(
    band: AgeBand,
    played_ms: i64,
    now: DateTime<Utc>,
    rules: &MinorRules,
) -> Option<MinorRefusal> {
    let limit = rules.daily_limit_ms(band)?;
    if played_ms >= limit {
        return Some(MinorRefusal {
            reason: MinorReason::DailyLimit,
            next_allowed_at: Some(next_day_morning(now, rules)),
        });
    }
    curfew_end(now, rules).map(|end| MinorRefusal {
        reason: MinorReason::Curfew,
        next_allowed_at: Some(end),
    })
}

/// Rewarded ads: never offered in minor mode.
pub fn ad_refusal(band: AgeBand) -> Option<MinorRefusal> {
    band.is_minor().then_some(MinorRefusal {
        reason: MinorReason::AdsUnavailable,
        next_allowed_at: None,
    })
}

/// Whole minutes of today's limit left (rounded down, never negative).
pub fn minutes_left(band: AgeBand, played_ms: i64, rules: &MinorRules) -> Option<i64> {
    rules
        .daily_limit_ms(band)
        .map(|limit| (limit - played_ms).max(0) / 60_000)
}

/// A guardian PIN: exactly four ASCII digits.
pub fn is_valid_pin(pin: &str) -> bool {
    pin.len() == 4 && pin.bytes().all(|b| b.is_ascii_digit())
}

/// Wrong PIN tries a Beijing day before the PIN locks until the next midnight: a
/// 4-digit PIN then takes years of guessing (10,000 PINs at five a day), not weeks.
pub const PIN_TRIES_A_DAY: i64 = 5;

/// The wrong tries left today, from the stored count and when the last one was; 0
/// while locked.
pub fn pin_tries_left(
    failures: i64,
    last_failed_at: Option<i64>,
    locked_until: Option<i64>,
    day_start: i64,
    now_ms: i64,
) -> i64 {
    if locked_until.is_some_and(|until| until > now_ms) {
        return 0;
    }
    let today = if last_failed_at.is_some_and(|at| at >= day_start) {
        failures
    } else {
        0
    };
    (PIN_TRIES_A_DAY - today).clamp(0, PIN_TRIES_A_DAY)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::clock::beijing::wall as bj;

    #[test]
    fn the_guide_s_limits_are_the_defaults() {
        let r = MinorRules::default();
        assert_eq!(r.daily_limit_ms(AgeBand::Under8), Some(40 * 60_000));
        assert_eq!(r.daily_limit_ms(AgeBand::From8To12), Some(60 * 60_000));
        assert_eq!(r.daily_limit_ms(AgeBand::From12To16), Some(60 * 60_000));
        assert_eq!(r.daily_limit_ms(AgeBand::From16To18), Some(120 * 60_000));
        assert_eq!(r.daily_limit_ms(AgeBand::Adult), None);
    }

    #[test]
    fn curfew_runs_from_22_to_06_beijing() {
        let r = MinorRules::default();
        assert_eq!(curfew_end(bj(2026, 11, 25, 21, 59, 59), &r), None);
        assert_eq!(
            curfew_end(bj(2026, 11, 25, 22, 0, 0), &r),
            Some(bj(2026, 11, 26, 6, 0, 0))
        );
        assert_eq!(
            curfew_end(bj(2026, 11, 26, 5, 59, 59), &r),
            Some(bj(2026, 11, 26, 6, 0, 0))
        );
        assert_eq!(curfew_end(bj(2026, 11, 26, 6, 0, 0), &r), None);
    }

    #[test]
    fn a_used_up_limit_opens_again_the_next_morning() {
        let r = MinorRules::default();
        let now = bj(2026, 11, 25, 15, 0, 0);
        assert_eq!(
            play_refusal(AgeBand::Under8, 40 * 60_000 - 1, now, &r),
            None
        );
        assert_eq!(
            play_refusal(AgeBand::Under8, 40 * 60_000, now, &r),
            Some(MinorRefusal {
                reason: MinorReason::DailyLimit,
                next_allowed_at: Some(bj(2026, 11, 26, 6, 0, 0)),
            })
        );
        // an adult is never refused
        assert_eq!(
            play_refusal(AgeBand::Adult, i64::MAX, bj(2026, 11, 25, 23, 0, 0), &r),
            None
        );
    }

    #[test]
    fn play_counts_in_beijing_days() {
        // 23:59:59 Beijing is the same day; 00:00:00 the next
        let late = bj(2026, 11, 25, 23, 59, 59);
        assert_eq!(played_today_ms(Some(("2026-11-25", 500)), late), 500);
        assert_eq!(
            played_today_ms(Some(("2026-11-25", 500)), late + Duration::seconds(1)),
            0
        );
        assert_eq!(played_today_ms(None, late), 0);
    }

    #[test]
    fn minutes_left_round_down_and_stop_at_zero() {
        let r = MinorRules::default();
        assert_eq!(minutes_left(AgeBand::From8To12, 0, &r), Some(60));
        assert_eq!(minutes_left(AgeBand::From8To12, 1, &r), Some(59));
        assert_eq!(minutes_left(AgeBand::From8To12, 2 * 3_600_000, &r), Some(0));
        assert_eq!(minutes_left(AgeBand::Adult, 0, &r), None);
    }

    #[test]
    fn ads_are_refused_to_every_minor_band() {
        for band in AgeBand::ALL {
            assert_eq!(ad_refusal(band).is_some(), band.is_minor());
        }
    }

    #[test]
    fn pins_are_four_digits() {
        assert!(is_valid_pin("0123"));
        for bad in ["123", "12345", "12a4", "١٢٣٤", ""] {
            assert!(!is_valid_pin(bad), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn a_counted_gap_is_between_zero_and_the_cap(last in any::<i32>(), now in any::<i32>(), cap in 0i64..10_000_000) {
            let gap = counted_gap_ms(i64::from(last), i64::from(now), cap);
            prop_assert!((0..=cap).contains(&gap));
        }

        #[test]
        fn a_refusal_always_names_a_later_time(secs in 0i64..(400 * 86_400), played in 0i64..(3 * 3_600_000)) {
            let r = MinorRules::default();
            let now = bj(2026, 1, 1, 0, 0, 0) + Duration::seconds(secs);
            for band in AgeBand::ALL {
                if let Some(refusal) = play_refusal(band, played, now, &r) {
                    let next = refusal.next_allowed_at.unwrap_or(now);
                    prop_assert!(next > now);
                    // the time named is outside the curfew
                    prop_assert_eq!(curfew_end(next, &r), None);
                }
            }
        }
    }
}
