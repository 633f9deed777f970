//! How a player's identity is known (`player_identities.provider`), and how the sign-in
//! providers are offered.

use crate::closed_set::closed_set;

closed_set! {
    /// How a sign-in provider is offered: `secondary` (the phone number, beside a
    /// guest) or `third_party` (an account of another company, shown with its icon).
    pub enum ProviderKind in "prov-kind" {
        Secondary = "secondary",
        ThirdParty = "third_party",
    }
}

closed_set! {
    /// A platform a sign-in provider is offered on.
    pub enum Platform in "prov-platform" {
        Ios = "ios",
        Android = "android",
        Harmony = "harmony",
    }
}

closed_set! {
    /// The provider of a player identity.
    pub enum IdentityProvider in "people-method" {
        Device = "device",
        Phone = "phone",
        Huawei = "huawei",
        Apple = "apple",
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
