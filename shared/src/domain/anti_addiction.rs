//! The licensed-game profile's rules (NPPA notice 2021 No. 14 and the NPPA real-name
//! interface): resident ID numbers checked before they are sent, the birth date an
//! NPPA `pi` carries, and the hour minors may play: 20:00-21:00 Beijing time on
//! Fridays, Saturdays, Sundays and statutory holidays.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveTime, Utc, Weekday};

use crate::clock::beijing;
use crate::closed_set::closed_set;
use crate::domain::minor::{AgeBand, MinorReason, MinorRefusal};

closed_set! {
    /// Where a player's real-name verification stands (none: never tried).
    pub enum RealNameStatus in "real-name-status" {
        Pending = "pending",
        Verified = "verified",
        Failed = "failed",
    }
}

/// The play window's start and end, Beijing wall-clock hours.
pub const WINDOW_FROM_HOUR: u32 = 20;
pub const WINDOW_UNTIL_HOUR: u32 = 21;

/// How far ahead a window is looked for: every week has a Friday.
pub const WINDOW_LOOKAHEAD_DAYS: i64 = 7;

/// Whether minors may play on Beijing day `day`: a Friday, Saturday or Sunday, or a
/// statutory holiday of the calendar staff keep. A make-up working day on a weekend is
/// still a weekend: the notice names weekdays and holidays only.
pub fn is_play_day(day: NaiveDate, holidays: &[NaiveDate]) -> bool {
    matches!(day.weekday(), Weekday::Fri | Weekday::Sat | Weekday::Sun) || holidays.contains(&day)
}

fn at_hour(day: NaiveDate, hour: u32) -> DateTime<Utc> {
    let time = NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or(NaiveTime::MIN);
    beijing::day_start(day) + (time - NaiveTime::MIN)
}

/// Whether a minor may play at `now` (20:00:00 to 20:59:59 of a play day); if not,
/// when the next window opens (`holidays` must cover the next
/// [`WINDOW_LOOKAHEAD_DAYS`] days; with none, the next Friday's window).
pub fn window_refusal(now: DateTime<Utc>, holidays: &[NaiveDate]) -> Option<MinorRefusal> {
    let today = beijing::day(now);
    let (start, end) = (
        at_hour(today, WINDOW_FROM_HOUR),
        at_hour(today, WINDOW_UNTIL_HOUR),
    );
    if is_play_day(today, holidays) && now >= start && now < end {
        return None;
    }
    let first = if now < start { 0 } else { 1 };
    let next = (first..=WINDOW_LOOKAHEAD_DAYS)
        .map(|n| today + Duration::days(n))
        .find(|day| is_play_day(*day, holidays))
        .map(|day| at_hour(day, WINDOW_FROM_HOUR));
    Some(MinorRefusal {
        reason: MinorReason::Window,
        next_allowed_at: next,
    })
}

/// A resident ID number that cannot be sent for verification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdNumberError {
    /// Not 17 digits and a check character.
    Format,
    /// The check character does not match (ISO 7064 MOD 11-2).
    Checksum,
    /// Digits 7-14 are not a date before today.
    BirthDate,
}

/// The ISO 7064 MOD 11-2 check character of an ID number's first 17 digits (`X` for
/// 10); none when `body` is not 17 ASCII digits.
pub fn check_character(body: &str) -> Option<char> {
    const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let bytes = body.as_bytes();
    if bytes.len() != 17 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let sum: u32 = bytes
        .iter()
        .zip(WEIGHTS)
        .map(|(d, w)| u32::from(d - b'0') * w)
        .sum();
    Some(char::from(b"10X98765432"[(sum % 11) as usize]))
}

/// Checks an 18-character resident ID number (GB 11643-1999): 17 digits, then the
/// ISO 7064 MOD 11-2 check character (`X` for 10); answers the birth date it carries.
pub fn check_id_number(id: &str, today: NaiveDate) -> Result<NaiveDate, IdNumberError> {
    let bytes = id.as_bytes();
    if bytes.len() != 18 || !(bytes[17].is_ascii_digit() || bytes[17] == b'X' || bytes[17] == b'x')
    {
        return Err(IdNumberError::Format);
    }
    let expected = check_character(&id[..17]).ok_or(IdNumberError::Format)?;
    if char::from(bytes[17].to_ascii_uppercase()) != expected {
        return Err(IdNumberError::Checksum);
    }
    let birth =
        NaiveDate::parse_from_str(&id[6..14], "%Y%m%d").map_err(|_| IdNumberError::BirthDate)?;
    if birth >= today || birth.year() < 1900 {
        return Err(IdNumberError::BirthDate);
    }
    Ok(birth)
}

/// The birth date an NPPA `pi` carries: its first six characters are the date as
/// YYYYMMDD written in base 26 (`0-9`, then `a-p`).
pub fn birth_date_of_pi(pi: &str) -> Option<NaiveDate> {
    if pi.len() != 38 {
        return None;
    }
    let mut value: u32 = 0;
    for c in pi.get(..6)?.chars() {
        let digit = c.to_digit(26)?;
        value = value.checked_mul(26)?.checked_add(digit)?;
    }
    NaiveDate::from_ymd_opt(
        i32::try_from(value / 10_000).ok()?,
        (value / 100) % 100,
        value % 100,
    )
}

/// Whole years of age on `today`.
pub fn age_on(birth: NaiveDate, today: NaiveDate) -> i32 {
    let mut age = today.year() - birth.year();
    if (today.month(), today.day()) < (birth.month(), birth.day()) {
        age -= 1;
    }
    age
}

/// The age band of a verified birth date on `today`.
pub fn band_on(birth: NaiveDate, today: NaiveDate) -> AgeBand {
    match age_on(birth, today) {
        ..8 => AgeBand::Under8,
        8..12 => AgeBand::From8To12,
        12..16 => AgeBand::From12To16,
        16..18 => AgeBand::From16To18,
        _ => AgeBand::Adult,
    }
}

/// What a player's account row says about protecting them: the band they declared, and
/// their real-name verification (the licensed-game profile).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayGuard {
    pub declared: Option<AgeBand>,
    pub real_name: Option<RealNameStatus>,
    /// NPPA's id of the verified person (its first characters are the birth date).
    pub pi: Option<String>,
}

/// How a player is protected today.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protection {
    /// No limits (an adult, or minor mode off).
    None,
    /// Minor mode's limits by `band`; with `windows`, also only the licensed-game
    /// profile's play hours (a verified minor).
    Minor { band: AgeBand, windows: bool },
    /// The licensed-game profile serves no play before real-name verification.
    RealNameRequired,
}

impl PlayGuard {
    /// The verified birth date (from the `pi`).
    pub fn verified_birth(&self) -> Option<NaiveDate> {
        match self.real_name {
            Some(RealNameStatus::Verified) => self.pi.as_deref().and_then(birth_date_of_pi),
            _ => None,
        }
    }

    /// The protection on Beijing day `today`. Education: the declared band. Licensed
    /// game: nothing before verification; a verified minor is in minor mode by the
    /// age the verification says (or a younger band declared) and plays only in the
    /// windows; a verified adult may still declare a band.
    pub fn protection(&self, licensed_game: bool, today: NaiveDate) -> Protection {
        let declared = self.declared.filter(|b| b.is_minor());
        if licensed_game {
            let Some(birth) = self.verified_birth() else {
                return Protection::RealNameRequired;
            };
            let verified = band_on(birth, today);
            if verified.is_minor() {
                let band = declared.map_or(verified, |d| d.min(verified));
                return Protection::Minor {
                    band,
                    windows: true,
                };
            }
        }
        match declared {
            Some(band) => Protection::Minor {
                band,
                windows: false,
            },
            None => Protection::None,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::clock::beijing::wall as bj;

    fn date(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap_or_default()
    }

    #[test]
    fn friday_evening_is_open_from_20_00_00_to_20_59_59() {
        // 2026-11-20 is a Friday
        assert!(window_refusal(bj(2026, 11, 20, 19, 59, 59), &[]).is_some());
        assert_eq!(window_refusal(bj(2026, 11, 20, 20, 0, 0), &[]), None);
        assert_eq!(window_refusal(bj(2026, 11, 20, 20, 59, 59), &[]), None);
        let closed = window_refusal(bj(2026, 11, 20, 21, 0, 0), &[]);
        assert_eq!(
            closed,
            Some(MinorRefusal {
                reason: MinorReason::Window,
                next_allowed_at: Some(bj(2026, 11, 21, 20, 0, 0)),
            })
        );
    }

    #[test]
    fn a_holiday_opens_a_weekday_and_an_ordinary_thursday_does_not() {
        let wednesday = date(2026, 9, 30);
        assert_eq!(wednesday.weekday(), Weekday::Wed);
        let holiday = [date(2026, 10, 1)];
        assert_eq!(window_refusal(bj(2026, 10, 1, 20, 30, 0), &holiday), None);
        // 2026-10-1 is a Thursday: without the holiday it is closed until Friday
        assert_eq!(
            window_refusal(bj(2026, 10, 1, 20, 30, 0), &[]),
            Some(MinorRefusal {
                reason: MinorReason::Window,
                next_allowed_at: Some(bj(2026, 10, 2, 20, 0, 0)),
            })
        );
        // on a Wednesday before it, the holiday's window is the next one
        assert_eq!(
            window_refusal(bj(2026, 9, 30, 12, 0, 0), &holiday).and_then(|r| r.next_allowed_at),
            Some(bj(2026, 10, 1, 20, 0, 0))
        );
    }

    #[test]
    fn id_numbers_are_checked_before_they_are_sent() {
        let today = date(2026, 11, 29);
        // a preset of the NPPA test system
        assert_eq!(
            check_id_number("110000190101010001", today),
            Ok(date(1901, 1, 1))
        );
        assert_eq!(
            check_id_number("11000019010101000X", today),
            Err(IdNumberError::Checksum)
        );
        assert_eq!(
            check_id_number("1100001901010100", today),
            Err(IdNumberError::Format)
        );
        assert_eq!(
            check_id_number("11000019011301000a", today),
            Err(IdNumberError::Format)
        );
        // the interface specification's sample fails its own checksum
        assert_eq!(
            check_id_number("371321199012310912", today),
            Err(IdNumberError::Checksum)
        );
        assert_eq!(
            check_id_number("371321199012310916", today),
            Ok(date(1990, 12, 31))
        );
    }

    #[test]
    fn a_pi_carries_the_birth_date_in_base_26() {
        // the specification's example and a preset of the test system
        assert_eq!(
            birth_date_of_pi("1hpfml09b57f3f8185f8cb5094ea3f26278efb"),
            Some(date(2010, 1, 1))
        );
        assert_eq!(
            birth_date_of_pi("1fffbjzos82bs9cnyj1dna7d6d29zg4esnh99u"),
            Some(date(1901, 1, 1))
        );
        assert_eq!(birth_date_of_pi("short"), None);
    }

    #[test]
    fn ages_turn_on_the_birthday() {
        let birth = date(2008, 11, 29);
        assert_eq!(band_on(birth, date(2026, 11, 28)), AgeBand::From16To18);
        assert_eq!(band_on(birth, date(2026, 11, 29)), AgeBand::Adult);
        assert_eq!(
            band_on(date(2020, 1, 1), date(2026, 11, 29)),
            AgeBand::Under8
        );
    }

    #[test]
    fn the_licensed_profile_protects_by_the_verified_age() {
        let today = date(2026, 11, 29);
        // born 2010-01-01 (16): 16to18; declared 8to12 is younger and wins
        let minor = PlayGuard {
            declared: None,
            real_name: Some(RealNameStatus::Verified),
            pi: Some("1hpfml09b57f3f8185f8cb5094ea3f26278efb".into()),
        };
        assert_eq!(
            minor.protection(true, today),
            Protection::Minor {
                band: AgeBand::From16To18,
                windows: true
            }
        );
        let declared = PlayGuard {
            declared: Some(AgeBand::From8To12),
            ..minor.clone()
        };
        assert_eq!(
            declared.protection(true, today),
            Protection::Minor {
                band: AgeBand::From8To12,
                windows: true
            }
        );
        // an adult declared older changes nothing
        let adult_declared = PlayGuard {
            declared: Some(AgeBand::Adult),
            ..minor.clone()
        };
        assert_eq!(
            adult_declared.protection(true, today),
            Protection::Minor {
                band: AgeBand::From16To18,
                windows: true
            }
        );
        // the education profile goes by the declaration alone
        assert_eq!(minor.protection(false, today), Protection::None);
        // unverified, pending or failed: nothing is served in the licensed profile
        for real_name in [
            None,
            Some(RealNameStatus::Pending),
            Some(RealNameStatus::Failed),
        ] {
            let guard = PlayGuard {
                real_name,
                ..minor.clone()
            };
            assert_eq!(guard.protection(true, today), Protection::RealNameRequired);
        }
        // a verified adult (born 1901)
        let adult = PlayGuard {
            declared: None,
            real_name: Some(RealNameStatus::Verified),
            pi: Some("1fffbjzos82bs9cnyj1dna7d6d29zg4esnh99u".into()),
        };
        assert_eq!(adult.protection(true, today), Protection::None);
    }

    proptest! {
        #[test]
        fn the_next_window_is_open_and_later(secs in 0i64..(800 * 86_400), holiday_offsets in proptest::collection::vec(0i64..7, 0..3)) {
            let now = bj(2026, 1, 1, 0, 0, 0) + Duration::seconds(secs);
            let holidays: Vec<NaiveDate> = holiday_offsets.iter().map(|n| beijing::day(now) + Duration::days(*n)).collect();
            if let Some(refusal) = window_refusal(now, &holidays) {
                let next = refusal.next_allowed_at.unwrap_or(now);
                prop_assert!(next > now);
                prop_assert_eq!(window_refusal(next, &holidays), None);
            }
        }

        #[test]
        fn a_valid_id_number_with_one_digit_changed_fails(n in 0u64..1_000_000_000, day in 0i64..20_000, at in 0usize..17) {
            let birth = date(1960, 1, 1) + Duration::days(day);
            let body = format!("110105{}{:03}", birth.format("%Y%m%d"), n % 1000);
            let id = format!("{body}{}", check_character(&body).unwrap_or('?'));
            prop_assert_eq!(check_id_number(&id, date(2026, 11, 29)), Ok(birth));
            let mut changed = id.into_bytes();
            changed[at] = b'0' + (changed[at] - b'0' + 1) % 10;
            let changed = String::from_utf8(changed).unwrap_or_default();
            prop_assert!(check_id_number(&changed, date(2026, 11, 29)).is_err());
        }
    }
}
