//! Leagues: ten tiers, weekly cohorts of at most a few dozen players of one tier, and
//! who moves up or down when a week ends.

use crate::closed_set::closed_set;

closed_set! {
    /// A league tier, lowest first: a new player starts in the first. Stored as its
    /// number, its place in this list.
    pub enum LeagueTier in "league-tier" {
        Bronze = "bronze",
        Silver = "silver",
        Gold = "gold",
        Sapphire = "sapphire",
        Ruby = "ruby",
        Emerald = "emerald",
        Amethyst = "amethyst",
        Pearl = "pearl",
        Obsidian = "obsidian",
        Diamond = "diamond",
    }
}

/// The tier of a stored number (the lowest for a number out of range).
pub fn tier_name(tier: i64) -> LeagueTier {
    usize::try_from(tier)
        .ok()
        .and_then(|t| LeagueTier::ALL.get(t))
        .copied()
        .unwrap_or(LeagueTier::Bronze)
}

pub const TOP_TIER: i64 = LeagueTier::ALL.len() as i64 - 1;

/// The thresholds (`LEAGUE_*`, see the README).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeagueRules {
    /// `LEAGUE_COHORT_SIZE`: players per cohort at most.
    pub cohort_size: i64,
    /// `LEAGUE_PROMOTE`: the top this many of a cohort move up a tier.
    pub promote: i64,
    /// `LEAGUE_DEMOTE`: the bottom this many move down.
    pub demote: i64,
}

impl Default for LeagueRules {
    fn default() -> Self {
        Self {
            cohort_size: 30,
            promote: 7,
            demote: 5,
        }
    }
}

/// The id of cohort `seq` of a week and tier: `{weekStart}:{tier}:{seq}`.
pub fn cohort_id(week_start: &str, tier: i64, seq: i64) -> String {
    format!("{}{seq}", cohort_prefix(week_start, tier))
}

/// What the ids of a week and tier's cohorts begin with: `{weekStart}:{tier}:`.
pub fn cohort_prefix(week_start: &str, tier: i64) -> String {
    format!("{week_start}:{}:", tier_name(tier))
}

closed_set! {
    /// Where a rank of a cohort leads when the week ends.
    pub enum Zone in "zone" {
        Promotion = "promotion",
        Stay = "stay",
        Demotion = "demotion",
    }
}

impl Zone {
    /// The tier after the week.
    pub fn next_tier(self, tier: i64) -> i64 {
        match self {
            Zone::Promotion => (tier + 1).min(TOP_TIER),
            Zone::Stay => tier,
            Zone::Demotion => (tier - 1).max(0),
        }
    }
}

/// How many of a cohort of `ranked` players (those shown) promote and demote in `tier`:
/// none above the top tier or below the lowest, and a small cohort's demotion zone
/// never reaches into its promotion zone.
pub fn zone_sizes(tier: i64, ranked: i64, rules: &LeagueRules) -> (i64, i64) {
    let promote = if tier >= TOP_TIER {
        0
    } else {
        rules.promote.min(ranked)
    };
    let demote = if tier <= 0 {
        0
    } else {
        rules.demote.min(ranked - promote).max(0)
    };
    (promote, demote)
}

/// The zone of 1-based `rank` among `ranked` players of a cohort of `tier`.
pub fn zone(tier: i64, rank: i64, ranked: i64, rules: &LeagueRules) -> Zone {
    let (promote, demote) = zone_sizes(tier, ranked, rules);
    if rank <= promote {
        Zone::Promotion
    } else if rank > ranked - demote {
        Zone::Demotion
    } else {
        Zone::Stay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_cohort_promotes_seven_and_demotes_five() {
        let rules = LeagueRules::default();
        let zones: Vec<Zone> = (1..=30).map(|r| zone(3, r, 30, &rules)).collect();
        assert!(zones[..7].iter().all(|z| *z == Zone::Promotion));
        assert!(zones[7..25].iter().all(|z| *z == Zone::Stay));
        assert!(zones[25..].iter().all(|z| *z == Zone::Demotion));
    }

    #[test]
    fn the_ends_of_the_ladder() {
        let rules = LeagueRules::default();
        // nobody above diamond, nobody below bronze
        assert_eq!(zone(TOP_TIER, 1, 30, &rules), Zone::Stay);
        assert_eq!(zone(0, 30, 30, &rules), Zone::Stay);
        assert_eq!(Zone::Promotion.next_tier(TOP_TIER), TOP_TIER);
        assert_eq!(Zone::Demotion.next_tier(0), 0);
        assert_eq!(Zone::Promotion.next_tier(0), 1);
        assert_eq!(tier_name(0), "bronze");
        assert_eq!(tier_name(TOP_TIER), "diamond");
        assert_eq!(tier_name(99), "bronze");
    }

    #[test]
    fn a_small_cohort_never_demotes_its_promoted() {
        let rules = LeagueRules::default();
        assert_eq!(zone_sizes(2, 9, &rules), (7, 2));
        assert_eq!(zone_sizes(2, 5, &rules), (5, 0));
        assert_eq!(zone(2, 8, 9, &rules), Zone::Demotion);
        assert_eq!(zone(2, 7, 9, &rules), Zone::Promotion);
        // at the top, the five last still go down
        assert_eq!(zone_sizes(TOP_TIER, 9, &rules), (0, 5));
    }

    #[test]
    fn cohort_ids_name_week_tier_and_number() {
        assert_eq!(cohort_id("2026-11-23", 2, 14), "2026-11-23:gold:14");
    }
}
