//! Network state: `ip addr` interfaces and addresses here, `dumpsys connectivity` and
//! `dumpsys wifi` in [`dumpsys`]. A dump the shell may not read (`Permission Denial: ...`,
//! as when run without the DUMP permission) yields a `notReadable` reason, not an error, so
//! `android_get_network_info` can report that section in place and still show the rest.
use serde::Serialize;

mod dumpsys;

pub use dumpsys::{Connectivity, NetworkAgent, WifiState, parse_connectivity, parse_wifi};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Interface {
    pub index: Option<u32>,
    /// Without the `@NONE` / `@if3` link suffix.
    pub name: String,
    /// Administratively up (`UP` in the flags).
    pub up: bool,
    /// Operational state: UP / DOWN / UNKNOWN.
    pub state: Option<String>,
    pub flags: Vec<String>,
    pub mtu: Option<u32>,
    pub mac: Option<String>,
    pub addresses: Vec<IpAddress>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IpAddress {
    /// "ipv4" or "ipv6".
    pub family: String,
    pub address: String,
    pub prefix: Option<u8>,
    pub scope: Option<String>,
}

/// The reason a dump refused to print (`Permission Denial: ...`), if it did.
pub(crate) fn denial(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with("Permission Denial"))
        .map(str::to_string)
}

fn word_after<'a>(words: &[&'a str], key: &str) -> Option<&'a str> {
    words
        .iter()
        .position(|w| *w == key)
        .and_then(|i| words.get(i + 1))
        .copied()
}

pub fn parse_ip_addr(text: &str) -> Vec<Interface> {
    let mut out: Vec<Interface> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        let words: Vec<&str> = t.split_whitespace().collect();
        let starts_block = !line.starts_with(' ') && words.len() >= 2 && words[0].ends_with(':');
        if starts_block && let Ok(index) = words[0].trim_end_matches(':').parse::<u32>() {
            let name = words[1].trim_end_matches(':');
            let name = name.split('@').next().unwrap_or(name).to_string();
            let flags: Vec<String> = words
                .get(2)
                .filter(|f| f.starts_with('<'))
                .map(|f| {
                    f.trim_matches(['<', '>'])
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            out.push(Interface {
                index: Some(index),
                name,
                up: flags.iter().any(|f| f == "UP"),
                state: word_after(&words, "state").map(str::to_string),
                flags,
                mtu: word_after(&words, "mtu").and_then(|m| m.parse().ok()),
                mac: None,
                addresses: Vec::new(),
            });
            continue;
        }
        let Some(iface) = out.last_mut() else {
            continue;
        };
        match words.first().copied() {
            Some(link) if link.starts_with("link/") => {
                iface.mac = words
                    .get(1)
                    .filter(|m| m.len() == 17 && m.matches(':').count() == 5)
                    .map(|m| m.to_string());
            }
            Some(fam @ ("inet" | "inet6")) => {
                let Some(cidr) = words.get(1) else { continue };
                let (address, prefix) = cidr.split_once('/').unwrap_or((cidr, ""));
                iface.addresses.push(IpAddress {
                    family: if fam == "inet" { "ipv4" } else { "ipv6" }.to_string(),
                    address: address.to_string(),
                    prefix: prefix.parse().ok(),
                    scope: word_after(&words, "scope").map(str::to_string),
                });
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn pixel_ip_addr() {
        let text = fixture("misc/ip-addr-pixel.txt");
        let ifs = parse_ip_addr(&text);
        let headers = text
            .lines()
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .count();
        assert_eq!(ifs.len(), headers);
        let lo = &ifs[0];
        assert_eq!(
            (lo.name.as_str(), lo.up, lo.state.as_deref()),
            ("lo", true, Some("UNKNOWN"))
        );
        assert_eq!(lo.addresses[0].address, "127.0.0.1");
        assert_eq!(lo.addresses[1].family, "ipv6");
        let wlan = ifs.iter().find(|i| i.name == "wlan0").unwrap();
        assert_eq!(
            (wlan.index, wlan.mtu, wlan.up),
            (Some(47), Some(1500), true)
        );
        assert_eq!(wlan.state.as_deref(), Some("UP"));
        assert_eq!(wlan.mac.as_deref(), Some("aa:ac:4c:0f:82:c2"));
        assert_eq!(wlan.addresses[0].address, "192.168.0.181");
        assert_eq!(wlan.addresses[0].prefix, Some(24));
        assert_eq!(wlan.addresses[0].scope.as_deref(), Some("global"));
        assert_eq!(wlan.addresses[1].address, "fe80::a8ac:4cff:fe0f:82c2");
        assert_eq!(wlan.addresses[1].scope.as_deref(), Some("link"));
        let tunl = ifs.iter().find(|i| i.name == "tunl0").unwrap();
        assert!(!tunl.up && tunl.state.as_deref() == Some("DOWN"));
        let tun = ifs.iter().find(|i| i.name == "tun0").unwrap();
        assert_eq!(tun.addresses.len(), 3);
        assert_eq!(tun.mac, None);
        assert!(ifs.iter().filter(|i| i.name.starts_with("rmnet")).count() >= 30);
    }

    #[test]
    fn denial_text() {
        let d = denial(&fixture("dumpsys/wifi-permission-denial.txt")).unwrap();
        assert!(d.starts_with("Permission Denial: can't dump WifiService from from pid=22120"));
        assert!(parse_ip_addr("Cannot bind netlink socket: Permission denied").is_empty());
    }
}
