//! The console's menu as a type: each entry its address, its label and the id scripts and
//! tests find it by. A page names its entry (`me.chrome(Nav::Questions)`) and the layout
//! draws the menu from [`Nav::MENU`], so an entry cannot be misspelt on either side.

use super::{i18n, urls};

/// An entry of the console's menu: the one a page belongs to is marked current.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nav {
    Dashboard,
    Questions,
    Attention,
    Import,
    Media,
    SkillTree,
    Categories,
    Cards,
    Players,
    FairPlay,
    Feedback,
    Providers,
    Holidays,
    Admins,
    Audit,
    /// The admin's own second factor, beside the sign-out rather than in the menu.
    Mfa,
}

impl Nav {
    /// The main menu, in its order.
    pub const MENU: [Nav; 15] = [
        Nav::Dashboard,
        Nav::Questions,
        Nav::Attention,
        Nav::Import,
        Nav::Media,
        Nav::SkillTree,
        Nav::Categories,
        Nav::Cards,
        Nav::Players,
        Nav::FairPlay,
        Nav::Feedback,
        Nav::Providers,
        Nav::Holidays,
        Nav::Admins,
        Nav::Audit,
    ];

    /// The entries beside the admin's name.
    pub const ACCOUNT: [Nav; 1] = [Nav::Mfa];

    pub fn href(self) -> &'static str {
        match self {
            Nav::Dashboard => urls::HOME,
            Nav::Questions => urls::QUESTIONS,
            Nav::Attention => urls::ATTENTION,
            Nav::Import => urls::IMPORT,
            Nav::Media => urls::MEDIA,
            Nav::SkillTree => urls::SKILL_TREE,
            Nav::Categories => urls::CATEGORIES,
            Nav::Cards => urls::CARDS,
            Nav::Players => urls::PLAYERS,
            Nav::FairPlay => urls::FAIR_PLAY,
            Nav::Feedback => urls::FEEDBACK,
            Nav::Providers => urls::PROVIDERS,
            Nav::Holidays => urls::HOLIDAYS,
            Nav::Admins => urls::ADMINS,
            Nav::Audit => urls::AUDIT,
            Nav::Mfa => urls::MFA,
        }
    }

    /// Its label in the page's language.
    pub fn label(self) -> String {
        i18n::t(match self {
            Nav::Dashboard => "nav-dashboard",
            Nav::Questions => "nav-questions",
            Nav::Attention => "nav-attention",
            Nav::Import => "nav-import",
            Nav::Media => "nav-media",
            Nav::SkillTree => "nav-skill-tree",
            Nav::Categories => "nav-categories",
            Nav::Cards => "nav-cards",
            Nav::Players => "nav-players",
            Nav::FairPlay => "nav-fair-play",
            Nav::Feedback => "nav-feedback",
            Nav::Providers => "nav-providers",
            Nav::Holidays => "nav-holidays",
            Nav::Admins => "nav-admins",
            Nav::Audit => "nav-audit",
            Nav::Mfa => "nav-mfa",
        })
    }

    /// The `id` of its link, for the entries scripts and tests click.
    pub fn link_id(self) -> Option<&'static str> {
        match self {
            Nav::Attention => Some("attention-link"),
            Nav::Media => Some("media-link"),
            Nav::FairPlay => Some("fair-play-link"),
            Nav::Holidays => Some("holidays-link"),
            Nav::Mfa => Some("mfa-link"),
            _ => None,
        }
    }

    /// Whether this entry is `current`, the page's own.
    pub fn is(&self, current: &Nav) -> bool {
        self == current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_drawn_once() {
        let all: Vec<Nav> = Nav::MENU.iter().chain(&Nav::ACCOUNT).copied().collect();
        for (i, a) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|b| b != a), "{a:?} twice");
            assert!(all[i + 1..].iter().all(|b| b.href() != a.href()), "{a:?}");
        }
        assert_eq!(all.len(), 16);
    }
}
