//! One change of a player's resources as it is recorded: the deltas, the ledger row's
//! before/after snapshots and the weekly-board increments, built once from the states
//! before and after. The answer, card views, ad completions and check-ins all make one,
//! and `db::progress::write` stores it (progress row, ledger row, weekly XP) together.

use chrono::{DateTime, Utc};

use super::board::BoardKey;
use super::resources::Resources;
use super::rules::GameRules;
use crate::clock::beijing;
use crate::ids::PlayerId;

/// What one change gives and takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deltas {
    pub xp: i64,
    pub hearts: i64,
    pub attempts: i64,
    pub coins: i64,
}

/// The weekly boards a change's XP goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeeklyXp {
    /// The Beijing week's first day, `YYYY-MM-DD`.
    pub week_start: String,
    /// Every player's board first, then the player's region's (if any).
    pub boards: Vec<BoardKey>,
    pub xp: i64,
    /// The instant earned in whole seconds, the boards' tie precision.
    pub earned_at: i64,
}

/// A change of one player's resources under its idempotency key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceChange {
    pub player_id: PlayerId,
    /// The ledger's idempotency key: a change is recorded at most once.
    pub key: String,
    /// The ledger's `source` (e.g. `challenge_answer`).
    pub source: String,
    pub before: Resources,
    pub after: Resources,
    pub deltas: Deltas,
    /// The ledger's snapshots (JSON) of `before` and `after`.
    pub before_snapshot: String,
    pub after_snapshot: String,
    /// None when the change earns no XP.
    pub weekly: Option<WeeklyXp>,
    pub at_ms: i64,
    /// Recorded in the ledger under `key` (at most once). A change of nothing the
    /// ledger tracks (a check-in's count) is not: it has its own once-only record.
    pub ledgered: bool,
}

impl ResourceChange {
    /// The change from `before` to `after` (both brought to `now`) of a player in
    /// `region_code`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        player_id: &PlayerId,
        region_code: Option<&str>,
        key: String,
        source: &str,
        before: Resources,
        after: Resources,
        rules: &GameRules,
        now: DateTime<Utc>,
    ) -> Self {
        let at_ms = now.timestamp_millis();
        let deltas = Deltas {
            xp: after.xp - before.xp,
            hearts: after.hearts - before.hearts,
            attempts: after.attempts_left(rules) - before.attempts_left(rules),
            coins: 0,
        };
        let weekly = (deltas.xp != 0).then(|| WeeklyXp {
            week_start: beijing::day_key(beijing::week_start(now)),
            boards: BoardKey::of_player(region_code),
            xp: deltas.xp,
            earned_at: earned_at(at_ms),
        });
        Self {
            player_id: player_id.clone(),
            key,
            source: source.to_string(),
            before_snapshot: snapshot(&before, rules),
            after_snapshot: snapshot(&after, rules),
            before,
            after,
            deltas,
            weekly,
            at_ms,
            ledgered: true,
        }
    }

    /// A change of what the ledger does not track (no XP, hearts or attempts): written
    /// with the progress row only.
    pub fn untracked(
        player_id: &PlayerId,
        before: Resources,
        after: Resources,
        rules: &GameRules,
        now: DateTime<Utc>,
    ) -> Self {
        Self {
            ledgered: false,
            ..Self::new(
                player_id,
                None,
                String::new(),
                "",
                before,
                after,
                rules,
                now,
            )
        }
    }
}

/// The ledger's snapshot of resources: what a player sees of them.
pub fn snapshot(r: &Resources, rules: &GameRules) -> String {
    serde_json::json!({
        "hearts": r.hearts,
        "attemptsLeft": r.attempts_left(rules),
        "xp": r.xp,
        "streakDays": r.streak_days,
    })
    .to_string()
}

/// The last-earned instant stored for XP earned at `at_ms`: whole seconds, the
/// leaderboards' tie precision.
pub fn earned_at(at_ms: i64) -> i64 {
    at_ms - at_ms.rem_euclid(1000)
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::{BoardKey, ResourceChange, earned_at};
    use crate::domain::resources::Resources;
    use crate::domain::rules::GameRules;

    #[test]
    fn a_change_carries_its_deltas_snapshots_and_boards() {
        let rules = GameRules::default();
        // Wednesday 2026-11-25 10:00 Beijing: the week began on Monday the 23rd
        let now = Utc.with_ymd_and_hms(2026, 11, 25, 2, 0, 0).unwrap()
            + chrono::Duration::milliseconds(1234);
        let before = Resources::new(&rules).at(now, &rules);
        let mut after = before.clone();
        after.gain_xp(10);
        after.use_attempt(&rules).unwrap();
        let change = ResourceChange::new(
            &"p1".into(),
            Some("310000"),
            "answer:s:q".into(),
            "challenge_answer",
            before,
            after,
            &rules,
            now,
        );
        assert_eq!(change.deltas.xp, 10);
        assert_eq!(change.deltas.attempts, -1);
        assert_eq!(change.deltas.hearts, 0);
        let weekly = change.weekly.expect("XP goes to the boards");
        assert_eq!(weekly.week_start, "2026-11-23");
        assert_eq!(
            weekly.boards,
            vec![BoardKey::all_players(), BoardKey::region("310000")]
        );
        assert_eq!(weekly.earned_at, now.timestamp_millis() - 234);
        assert!(change.after_snapshot.contains("\"xp\":10"));
        assert!(change.before_snapshot.contains("\"xp\":0"));
    }

    #[test]
    fn no_xp_no_boards() {
        let rules = GameRules::default();
        let now = Utc.with_ymd_and_hms(2026, 11, 25, 2, 0, 0).unwrap();
        let r = Resources::new(&rules).at(now, &rules);
        let change = ResourceChange::new(
            &"p1".into(),
            None,
            "k".into(),
            "s",
            r.clone(),
            r,
            &rules,
            now,
        );
        assert_eq!(change.weekly, None);
    }

    #[test]
    fn earned_at_truncates_to_whole_seconds() {
        assert_eq!(earned_at(1_999), 1_000);
        assert_eq!(earned_at(2_000), 2_000);
        assert_eq!(earned_at(-1), -1_000);
    }
}
