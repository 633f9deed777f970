//! Weekly leaderboard keys: the all-players board and one board per region, as
//! `weekly_xp.board` and the rank index store them.

use crate::ids::PlayerId;
use std::fmt;

/// The key of a weekly board: `topic:all`, or `region:{code}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardKey(String);

impl BoardKey {
    const ALL_PLAYERS: &'static str = "topic:all";
    const REGION_PREFIX: &'static str = "region:";

    /// The board of every player.
    pub fn all_players() -> Self {
        Self(Self::ALL_PLAYERS.to_string())
    }

    /// The board of one region (its code, e.g. `310000`).
    pub fn region(code: &str) -> Self {
        Self(format!("{}{code}", Self::REGION_PREFIX))
    }

    /// The boards a player's XP goes to: every player's, and their region's when they
    /// have one (in that order).
    pub fn of_player(region_code: Option<&str>) -> Vec<Self> {
        let mut boards = vec![Self::all_players()];
        boards.extend(region_code.map(Self::region));
        boards
    }

    /// [`Self::of_player`], as stored.
    pub fn stored_of_player(region_code: Option<&str>) -> Vec<String> {
        Self::of_player(region_code)
            .into_iter()
            .map(String::from)
            .collect()
    }

    /// A key as stored; None when it is neither form.
    pub fn parse(stored: &str) -> Option<Self> {
        let valid = stored == Self::ALL_PLAYERS
            || stored
                .strip_prefix(Self::REGION_PREFIX)
                .is_some_and(|code| !code.is_empty());
        valid.then(|| Self(stored.to_string()))
    }

    pub fn is_all_players(&self) -> bool {
        self.0 == Self::ALL_PLAYERS
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for BoardKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<BoardKey> for String {
    fn from(key: BoardKey) -> Self {
        key.0
    }
}

impl PartialEq<str> for BoardKey {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

/// The part of a board's shown rows that makes one page as a viewer sees it. A held
/// viewer is on no board others see, yet sees themselves at the rank they would have
/// (`hidden_rank`, 1-based): their page is the shown rows with them put in at that
/// rank, so the shown rows after them read one rank lower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The shown rows to read: from this 0-based position …
    pub offset: i64,
    /// … this many.
    pub limit: i64,
    /// Where the viewer goes among them, when on this page.
    pub insert_at: Option<usize>,
}

/// The shown rows of the page at `offset`, `limit` for a viewer hidden at
/// `hidden_rank` (None: a viewer on the board like anyone, or without a row).
pub fn window(offset: i64, limit: i64, hidden_rank: Option<i64>) -> Window {
    let plain = Window {
        offset,
        limit,
        insert_at: None,
    };
    let Some(rank) = hidden_rank else {
        return plain;
    };
    let at = rank - 1;
    if at < offset {
        Window {
            offset: offset - 1,
            ..plain
        }
    } else if at < offset + limit {
        Window {
            offset,
            limit: limit - 1,
            insert_at: usize::try_from(at - offset).ok(),
        }
    } else {
        plain
    }
}

/// A row of a board to rank in memory (a league cohort: a few dozen rows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub player_id: PlayerId,
    pub xp: i64,
    pub last_earned_at: i64,
    /// Held or banned: on no board others see.
    pub hidden: bool,
}

/// Rows in board order (XP down, the earlier to reach it first, then the greater id),
/// each with its rank: among the shown rows, and for a hidden row the rank it would
/// have (one after the shown rows ahead of it).
pub fn ranked(mut rows: Vec<Standing>) -> Vec<(Standing, i64)> {
    rows.sort_by(|a, b| {
        b.xp.cmp(&a.xp)
            .then(a.last_earned_at.cmp(&b.last_earned_at))
            .then(b.player_id.cmp(&a.player_id))
    });
    let mut shown_ahead = 0;
    rows.into_iter()
        .map(|r| {
            let rank = shown_ahead + 1;
            if !r.hidden {
                shown_ahead += 1;
            }
            (r, rank)
        })
        .collect()
}

/// The key of a league cohort's board in the frozen standings: `league:{cohortId}`.
pub fn league_board(cohort_id: &str) -> String {
    format!("league:{cohort_id}")
}

#[cfg(test)]
mod tests {
    use super::{BoardKey, Standing, Window, ranked, window};

    #[test]
    fn rows_rank_in_board_order_and_hidden_rows_where_they_would_be() {
        let row = |id: &str, xp, at, hidden| Standing {
            player_id: id.into(),
            xp,
            last_earned_at: at,
            hidden,
        };
        let out = ranked(vec![
            row("a", 10, 5, false),
            row("b", 30, 9, false),
            row("c", 10, 5, true),
            row("d", 10, 1, false),
            row("e", 10, 5, false),
        ]);
        let order: Vec<(&str, i64)> = out
            .iter()
            .map(|(r, k)| (r.player_id.as_str(), *k))
            .collect();
        // b; then d (earlier); then at the same instant the greater id first: e, c, a
        assert_eq!(
            order,
            vec![("b", 1), ("d", 2), ("e", 3), ("c", 4), ("a", 4)]
        );
    }

    #[test]
    fn a_hidden_viewer_is_put_in_at_their_rank() {
        let plain = |offset, limit| Window {
            offset,
            limit,
            insert_at: None,
        };
        assert_eq!(window(20, 10, None), plain(20, 10));
        // on an earlier page: this page's shown rows start one earlier
        assert_eq!(window(20, 10, Some(5)), plain(19, 10));
        assert_eq!(window(20, 10, Some(20)), plain(19, 10));
        // on this page: one shown row fewer, the viewer at their place
        assert_eq!(
            window(20, 10, Some(21)),
            Window {
                offset: 20,
                limit: 9,
                insert_at: Some(0)
            }
        );
        assert_eq!(
            window(20, 10, Some(30)),
            Window {
                offset: 20,
                limit: 9,
                insert_at: Some(9)
            }
        );
        // on a later page: nothing changes here
        assert_eq!(window(20, 10, Some(31)), plain(20, 10));
        assert_eq!(
            window(0, 1, Some(1)),
            Window {
                offset: 0,
                limit: 0,
                insert_at: Some(0)
            }
        );
    }

    #[test]
    fn keys_are_spelled_as_stored() {
        assert_eq!(BoardKey::all_players().as_str(), "topic:all");
        assert_eq!(BoardKey::region("310000").as_str(), "region:310000");
        assert_eq!(
            BoardKey::of_player(Some("110000")),
            vec![BoardKey::all_players(), BoardKey::region("110000")]
        );
        assert_eq!(BoardKey::of_player(None), vec![BoardKey::all_players()]);
    }

    #[test]
    fn parse_accepts_only_the_two_forms() {
        assert!(BoardKey::parse("topic:all").is_some_and(|k| k.is_all_players()));
        assert_eq!(
            BoardKey::parse("region:310000"),
            Some(BoardKey::region("310000"))
        );
        for bad in ["", "topic:", "region:", "topic:history", "310000"] {
            assert_eq!(BoardKey::parse(bad), None, "{bad}");
        }
    }
}
