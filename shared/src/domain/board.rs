//! Weekly leaderboard keys: the all-players board and one board per region, as
//! `weekly_xp.board` and the rank index store them.

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

#[cfg(test)]
mod tests {
    use super::BoardKey;

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
