//! Which addresses `fetch-index` may connect to.
//!
//! Refused always: link-local (169.254.0.0/16, fe80::/10, where cloud
//! metadata services live), unspecified, multicast, broadcast, and known
//! metadata addresses outside link-local. IPv4-mapped and NAT64 IPv6
//! addresses are judged by the IPv4 address inside them. Loopback is allowed
//! unless the operator asks for strict mode. The check runs on every address
//! a name resolves to, at connection time, for every redirect hop.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is refused, or `None` when it is allowed.
pub fn refusal(ip: IpAddr, strict: bool) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refusal_v4(v4, strict),
        IpAddr::V6(v6) => {
            if let Some(v4) = embedded_v4(v6) {
                return refusal_v4(v4, strict);
            }
            refusal_v6(v6, strict)
        }
    }
}

fn refusal_v4(ip: Ipv4Addr, strict: bool) -> Option<&'static str> {
    const METADATA: [Ipv4Addr; 2] = [
        Ipv4Addr::new(100, 100, 100, 200), // Alibaba Cloud
        Ipv4Addr::new(192, 0, 0, 192),     // Oracle Cloud (classic)
    ];
    if ip.is_link_local() {
        Some("link-local address (cloud metadata lives there)")
    } else if METADATA.contains(&ip) {
        Some("cloud metadata address")
    } else if ip.is_unspecified() {
        Some("unspecified address")
    } else if ip.is_multicast() {
        Some("multicast address")
    } else if ip.is_broadcast() {
        Some("broadcast address")
    } else if strict && ip.is_loopback() {
        Some("loopback address (strict mode)")
    } else {
        None
    }
}

fn refusal_v6(ip: Ipv6Addr, strict: bool) -> Option<&'static str> {
    let first = ip.segments()[0];
    if (first & 0xffc0) == 0xfe80 {
        Some("link-local address")
    } else if ip == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
        Some("cloud metadata address")
    } else if ip.is_unspecified() {
        Some("unspecified address")
    } else if ip.is_multicast() {
        Some("multicast address")
    } else if strict && ip.is_loopback() {
        Some("loopback address (strict mode)")
    } else {
        None
    }
}

/// The IPv4 address carried by an IPv4-mapped (`::ffff:a.b.c.d`),
/// IPv4-compatible (`::a.b.c.d`) or NAT64 (`64:ff9b::a.b.c.d`) address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    let nat64 = s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0];
    let compatible = s[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_loopback() && !ip.is_unspecified();
    (nat64 || compatible).then_some(tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn metadata_and_link_local_are_refused_in_every_spelling() {
        for bad in [
            "169.254.169.254",
            "169.254.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "::169.254.169.254",
            "fe80::1",
            "fd00:ec2::254",
            "100.100.100.200",
            "0.0.0.0",
            "::",
            "224.0.0.1",
            "ff02::1",
            "255.255.255.255",
        ] {
            assert!(refusal(ip(bad), false).is_some(), "{bad} allowed");
        }
    }

    #[test]
    fn ordinary_and_loopback_addresses_pass_unless_strict() {
        for good in [
            "93.184.216.34",
            "10.0.0.1",
            "2606:4700::1111",
            "127.0.0.1",
            "::1",
        ] {
            assert_eq!(refusal(ip(good), false), None, "{good}");
        }
        assert!(refusal(ip("127.0.0.1"), true).is_some());
        assert!(refusal(ip("::1"), true).is_some());
        assert!(refusal(ip("::ffff:127.0.0.1"), true).is_some());
    }
}
