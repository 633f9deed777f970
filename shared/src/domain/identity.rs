//! How a player's identity is known: the provider of `player_identities.provider`.

use std::fmt;

/// The provider of a player identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdentityProvider {
    /// A guest's device id.
    Device,
    /// A phone number verified by SMS.
    Phone,
    /// HUAWEI ID (the id token's `sub`).
    Huawei,
    /// Sign in with Apple (the id token's `sub`).
    Apple,
}

impl IdentityProvider {
    pub const ALL: [Self; 4] = [Self::Device, Self::Phone, Self::Huawei, Self::Apple];

    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Device => "device",
            Self::Phone => "phone",
            Self::Huawei => "huawei",
            Self::Apple => "apple",
        }
    }

    pub fn parse(stored: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == stored)
    }
}

impl fmt::Display for IdentityProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::IdentityProvider;

    #[test]
    fn round_trips_its_spelling() {
        for p in IdentityProvider::ALL {
            assert_eq!(IdentityProvider::parse(p.as_str()), Some(p));
        }
        assert_eq!(IdentityProvider::parse("wechat"), None);
    }
}
