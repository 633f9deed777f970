//! The client address every per-address limit counts against (sign-in rate limits, the
//! SMS per-address daily limit, admin sign-in throttling), operations.md §3.
//!
//! Behind proxies, `X-Forwarded-For` is a list each hop appends to: entries left of
//! what the trusted proxies appended were written by the client and prove nothing. The
//! client is therefore the entry the outermost trusted proxy appended, the
//! `TRUSTED_PROXY_HOPS`-th from the right. (`axum-client-ip`/`client-ip` take only the
//! rightmost entry of the last header line, i.e. exactly one hop, so they cannot serve
//! `TRUSTED_PROXY_HOPS` > 1; the rule is small enough to keep here with its tests.)
//!
//! IPv6 clients get a whole /64 each from their provider, so a limit per single IPv6
//! address would be 2^64 limits; every limit counts them per /64 ([`LimitKey`]).

use std::fmt;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{Extensions, HeaderMap};

/// How this deployment finds its clients' addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddressRule {
    /// `TRUST_FORWARDED_FOR`: read `X-Forwarded-For` at all (only behind proxies that
    /// append to it).
    pub trust_forwarded_for: bool,
    /// `TRUSTED_PROXY_HOPS`: how many trusted proxies append to it (at least 1).
    pub trusted_proxy_hops: usize,
}

impl Default for ClientAddressRule {
    fn default() -> Self {
        Self {
            trust_forwarded_for: false,
            trusted_proxy_hops: 1,
        }
    }
}

impl ClientAddressRule {
    /// The client's address: the socket peer, or with `TRUST_FORWARDED_FOR` the entry the
    /// outermost trusted proxy appended. `None` only without a peer (never on a socket).
    pub fn client_address(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> Option<IpAddr> {
        let peer = peer.map(|p| canonical(p.ip()));
        if !self.trust_forwarded_for {
            return peer;
        }
        forwarded_entry(headers, self.trusted_proxy_hops.max(1)).or(peer)
    }

    /// The key per-address limits count the request against.
    pub fn limit_key(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> LimitKey {
        LimitKey::of(
            self.client_address(headers, peer)
                .unwrap_or(IpAddr::from([0, 0, 0, 0])),
        )
    }

    /// [`Self::limit_key`] of a request, its peer taken from axum's `ConnectInfo`.
    pub fn limit_key_of(&self, headers: &HeaderMap, extensions: &Extensions) -> LimitKey {
        let peer = extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0);
        self.limit_key(headers, peer)
    }
}

/// The `hops`-th entry from the right of all `X-Forwarded-For` lines taken together (a
/// repeated header is one comma-separated list, RFC 9110 §5.3). With fewer entries than
/// hops every entry was appended by a trusted proxy, so the leftmost is taken. An entry
/// that is no address (a proxy misconfigured) gives `None`: the peer is used instead.
fn forwarded_entry(headers: &HeaderMap, hops: usize) -> Option<IpAddr> {
    // Walks from the right, so a client's padding is never even looked at. A line that
    // is not text ends the walk with no address (the peer is used): skipping it would
    // hand the choice to whatever the client wrote before it.
    let mut entry = None;
    let mut taken = 0;
    'lines: for line in headers.get_all("x-forwarded-for").iter().rev() {
        if taken == hops {
            break;
        }
        let text = line.to_str().ok()?;
        for e in text.rsplit(',').map(str::trim).filter(|e| !e.is_empty()) {
            if taken == hops {
                break 'lines;
            }
            entry = Some(e);
            taken += 1;
        }
    }
    parse_entry(entry?).map(canonical)
}

/// An address as proxies write it: bare, or with a port (`203.0.113.7:4711`,
/// `[2001:db8::1]:4711`).
fn parse_entry(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

/// IPv4 addresses carried in IPv6 (`::ffff:203.0.113.7`) are the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// A router state that knows its deployment's [`ClientAddressRule`].
pub trait ClientAddressSource {
    fn client_address_rule(&self) -> ClientAddressRule;
}

/// Extractor: what per-address limits count the request against (its client address,
/// an IPv6 address as its /64), for any state that knows the rule.
pub struct ClientAddress(pub LimitKey);

impl<S: ClientAddressSource + Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(
            state
                .client_address_rule()
                .limit_key_of(&parts.headers, &parts.extensions),
        ))
    }
}

/// Extractor: the client's whole address, as the audit log records it (limits count
/// [`ClientAddress`]'s key instead); `0.0.0.0` only without a peer (never on a socket).
pub struct ClientIp(pub IpAddr);

impl<S: ClientAddressSource + Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0);
        Ok(Self(
            state
                .client_address_rule()
                .client_address(&parts.headers, peer)
                .unwrap_or(IpAddr::from([0, 0, 0, 0])),
        ))
    }
}

/// What a per-address limit counts: one IPv4 address, or one IPv6 /64 network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitKey {
    V4(std::net::Ipv4Addr),
    /// The network's address (the last 64 bits zero).
    V6Net64(Ipv6Addr),
}

impl LimitKey {
    pub fn of(ip: IpAddr) -> Self {
        match canonical(ip) {
            IpAddr::V4(v4) => Self::V4(v4),
            IpAddr::V6(v6) => {
                let bits = u128::from(v6) & !u128::from(u64::MAX);
                Self::V6Net64(Ipv6Addr::from(bits))
            }
        }
    }
}

/// `203.0.113.7` or `2001:db8:1:2::/64`: the form stored in per-address counters.
impl fmt::Display for LimitKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::V4(v4) => write!(f, "{v4}"),
            Self::V6Net64(net) => write!(f, "{net}/64"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(lines: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for line in lines {
            h.append(
                "x-forwarded-for",
                line.parse().unwrap_or_else(|_| unreachable!()),
            );
        }
        h
    }

    fn rule(hops: usize) -> ClientAddressRule {
        ClientAddressRule {
            trust_forwarded_for: true,
            trusted_proxy_hops: hops,
        }
    }

    const PEER: Option<SocketAddr> = Some(SocketAddr::new(
        IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 9)),
        4000,
    ));

    fn ip(s: &str) -> Option<IpAddr> {
        s.parse().ok()
    }

    #[test]
    fn untrusted_header_is_ignored() {
        let h = headers(&["198.51.100.1"]);
        assert_eq!(
            ClientAddressRule::default().client_address(&h, PEER),
            ip("10.0.0.9")
        );
    }

    #[test]
    fn entries_written_by_the_client_are_never_the_address() {
        // The client sent "1.2.3.4"; the one trusted proxy appended the real address.
        let h = headers(&["1.2.3.4, 203.0.113.7"]);
        assert_eq!(rule(1).client_address(&h, PEER), ip("203.0.113.7"));
        // Two trusted hops: the outer one appended the client, the inner one the outer.
        let h = headers(&["1.2.3.4, 203.0.113.7, 10.0.0.2"]);
        assert_eq!(rule(2).client_address(&h, PEER), ip("203.0.113.7"));
    }

    #[test]
    fn repeated_header_lines_are_one_list() {
        let h = headers(&["1.2.3.4", "5.6.7.8, 203.0.113.7"]);
        assert_eq!(rule(1).client_address(&h, PEER), ip("203.0.113.7"));
        assert_eq!(rule(2).client_address(&h, PEER), ip("5.6.7.8"));
    }

    #[test]
    fn a_line_that_is_not_text_ends_the_walk_at_the_peer() {
        let mut h = headers(&["198.51.100.1"]);
        h.append(
            "x-forwarded-for",
            HeaderValue::from_bytes(b"\xff\xfe").unwrap_or_else(|_| unreachable!()),
        );
        h.append(
            "x-forwarded-for",
            "203.0.113.7".parse().unwrap_or_else(|_| unreachable!()),
        );
        // The trusted proxy's own entry is read; the walk needs no further.
        assert_eq!(rule(1).client_address(&h, PEER), ip("203.0.113.7"));
        // One more hop reaches the unreadable line: no address from the header.
        assert_eq!(rule(2).client_address(&h, PEER), ip("10.0.0.9"));
        assert_eq!(rule(3).client_address(&h, PEER), ip("10.0.0.9"));
    }

    #[test]
    fn fewer_entries_than_hops_take_the_leftmost() {
        let h = headers(&["203.0.113.7"]);
        assert_eq!(rule(3).client_address(&h, PEER), ip("203.0.113.7"));
    }

    #[test]
    fn ports_brackets_and_mapped_addresses() {
        let h = headers(&["203.0.113.7:4711"]);
        assert_eq!(rule(1).client_address(&h, PEER), ip("203.0.113.7"));
        let h = headers(&["[2001:db8::1]:4711"]);
        assert_eq!(rule(1).client_address(&h, PEER), ip("2001:db8::1"));
        let h = headers(&["::ffff:203.0.113.7"]);
        assert_eq!(rule(1).client_address(&h, PEER), ip("203.0.113.7"));
    }

    #[test]
    fn garbage_or_no_header_falls_back_to_the_peer() {
        assert_eq!(
            rule(1).client_address(&headers(&["garbage"]), PEER),
            ip("10.0.0.9")
        );
        assert_eq!(rule(1).client_address(&headers(&[]), PEER), ip("10.0.0.9"));
        assert_eq!(
            rule(1).client_address(&headers(&["1.2.3.4, "]), PEER),
            ip("1.2.3.4")
        );
    }

    #[test]
    fn a_long_header_costs_bounded_memory() {
        let long = vec!["9.9.9.9"; 10_000].join(",") + ",203.0.113.7";
        let h = headers(&[&long]);
        assert_eq!(rule(1).client_address(&h, PEER), ip("203.0.113.7"));
        assert_eq!(rule(2).client_address(&h, PEER), ip("9.9.9.9"));
    }

    #[test]
    fn ipv6_counts_per_64() {
        let a = LimitKey::of(
            "2001:db8:1:2:aaaa::1"
                .parse()
                .unwrap_or_else(|_| unreachable!()),
        );
        let b = LimitKey::of(
            "2001:db8:1:2:bbbb::2"
                .parse()
                .unwrap_or_else(|_| unreachable!()),
        );
        let c = LimitKey::of("2001:db8:1:3::1".parse().unwrap_or_else(|_| unreachable!()));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        let v4 = LimitKey::of(
            "::ffff:203.0.113.7"
                .parse()
                .unwrap_or_else(|_| unreachable!()),
        );
        assert_eq!(v4.to_string(), "203.0.113.7");
    }
}
