//! `dumpsys connectivity` (the default network and each network agent's type, interface,
//! addresses and transports) and `dumpsys wifi` (enabled, connection, SSID, RSSI, speed).
use serde::Serialize;

use super::denial;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Connectivity {
    /// Set when the dump was refused; every other field is then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_readable: Option<String>,
    pub default_network: Option<u32>,
    /// Transport of the default network: WIFI / CELLULAR / ETHERNET / VPN / ...
    pub active_type: Option<String>,
    pub networks: Vec<NetworkAgent>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkAgent {
    pub network: Option<u32>,
    /// Legacy type and subtype, e.g. `MOBILE[NR]` or `WIFI`.
    pub r#type: Option<String>,
    /// CONNECTED / CONNECTING / DISCONNECTED ...
    pub state: Option<String>,
    pub interface: Option<String>,
    pub addresses: Vec<String>,
    pub dns: Vec<String>,
    pub transports: Vec<String>,
    pub validated: bool,
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = s.find(open)? + open.len();
    let end = s[start..].find(close)?;
    Some(&s[start..start + end])
}

fn list(s: &str, label: &str) -> Vec<String> {
    between(s, label, "]")
        .map(|b| {
            b.trim()
                .trim_start_matches('[')
                .split([' ', ','])
                .filter(|w| !w.is_empty())
                .map(|w| w.trim_start_matches('/').to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The type and state in `ni{…}`: `MOBILE[NR] CONNECTED extra: …`
/// (`NetworkInfo.toSimpleString`, Android 10+), or Android 9's whole `NetworkInfo.toString`,
/// `[type: WIFI[], state: CONNECTED/CONNECTED, reason: …]` (an empty subtype printed as `[]`,
/// the state followed by its detailed state; tests/fixtures/public/dumpsys_connectivity/).
fn type_and_state(ni: &str) -> (Option<String>, Option<String>) {
    if let Some(fields) = ni.strip_prefix("[type: ") {
        fn field(s: &str) -> Option<&str> {
            s.split(',').next().map(str::trim).filter(|v| !v.is_empty())
        }
        let ty = field(fields).map(|t| t.strip_suffix("[]").unwrap_or(t).to_string());
        let state = fields
            .split_once(", state: ")
            .and_then(|(_, s)| field(s))
            .and_then(|s| s.split('/').next())
            .map(str::to_string);
        return (ty, state);
    }
    let mut words = ni.split_whitespace();
    (
        words.next().map(str::to_string),
        words.next().map(str::to_string),
    )
}

fn agent(line: &str) -> NetworkAgent {
    let ni = between(line, "ni{", "}").unwrap_or("");
    let (r#type, state) = type_and_state(ni);
    let nc = between(line, "nc{[", "]}").unwrap_or("");
    let transports = between(nc, "Transports: ", " ")
        .map(|t| t.split('|').map(str::to_string).collect())
        .unwrap_or_default();
    let caps = between(nc, "Capabilities: ", " ").unwrap_or("");
    NetworkAgent {
        network: between(line, "network{", "}").and_then(|n| n.parse().ok()),
        r#type,
        state,
        interface: between(line, "InterfaceName: ", " ").map(str::to_string),
        addresses: list(line, "LinkAddresses: ["),
        dns: list(line, "DnsAddresses: ["),
        transports,
        validated: caps.split('&').any(|c| c == "VALIDATED"),
    }
}

pub fn parse_connectivity(text: &str) -> Connectivity {
    if let Some(reason) = denial(text) {
        return Connectivity {
            not_readable: Some(reason),
            ..Default::default()
        };
    }
    let mut c = Connectivity::default();
    let mut in_current = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(n) = t.strip_prefix("Active default network:") {
            c.default_network = n.trim().parse().ok();
        }
        if !line.starts_with(' ') && !t.is_empty() {
            in_current = t == "Current Networks:";
            continue;
        }
        if in_current && t.starts_with("NetworkAgentInfo{") {
            c.networks.push(agent(t));
        }
    }
    c.active_type = c
        .networks
        .iter()
        .find(|n| n.network.is_some() && n.network == c.default_network)
        .and_then(|n| n.transports.first().cloned());
    c
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WifiState {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_readable: Option<String>,
    pub enabled: Option<bool>,
    /// Supplicant state COMPLETED.
    pub connected: Option<bool>,
    pub ssid: Option<String>,
    pub bssid: Option<String>,
    pub ip: Option<String>,
    pub rssi: Option<i32>,
    pub link_speed_mbps: Option<i32>,
    pub frequency_mhz: Option<i32>,
    pub supplicant_state: Option<String>,
    /// SSIDs of saved networks.
    pub saved_networks: Vec<String>,
}

fn wifi_field<'a>(info: &'a str, label: &str) -> Option<&'a str> {
    info.split(", ")
        .find_map(|p| p.strip_prefix(label))
        .map(str::trim)
}

pub fn parse_wifi(text: &str) -> WifiState {
    if let Some(reason) = denial(text) {
        return WifiState {
            not_readable: Some(reason),
            ..Default::default()
        };
    }
    let mut w = WifiState::default();
    let mut in_saved = false;
    for line in text.lines() {
        let t = line.trim();
        match t {
            "Wi-Fi is enabled" => w.enabled = Some(true),
            "Wi-Fi is disabled" => w.enabled = Some(false),
            _ => {}
        }
        if t.contains("Configured networks Begin") {
            in_saved = true;
        } else if t.contains("Configured networks End") {
            in_saved = false;
        } else if in_saved
            && t.starts_with('-')
            && let Some(ssid) = between(t, "SSID: \"", "\"")
            && !w.saved_networks.iter().any(|s| s == ssid)
        {
            w.saved_networks.push(ssid.to_string());
        }
        let Some(info) = t.strip_prefix("mWifiInfo ") else {
            continue;
        };
        if w.supplicant_state.is_some() {
            continue;
        }
        let known = |v: Option<&str>| {
            v.filter(|s| !s.starts_with('<') && *s != "null")
                .map(|s| s.trim_matches('"').to_string())
        };
        w.ssid = known(wifi_field(info, "SSID:"));
        w.bssid = known(wifi_field(info, "BSSID:"));
        w.ip = known(wifi_field(info, "IP:")).map(|ip| ip.trim_start_matches('/').to_string());
        w.rssi = wifi_field(info, "RSSI:")
            .and_then(|v| v.parse().ok())
            .filter(|r| *r > -127);
        w.link_speed_mbps = wifi_field(info, "Link speed:")
            .and_then(|v| v.trim_end_matches("Mbps").parse().ok())
            .filter(|s| *s >= 0);
        w.frequency_mhz = wifi_field(info, "Frequency:")
            .and_then(|v| v.trim_end_matches("MHz").parse().ok())
            .filter(|f| *f > 0);
        w.supplicant_state = wifi_field(info, "Supplicant state:").map(str::to_string);
        w.connected = w.supplicant_state.as_deref().map(|s| s == "COMPLETED");
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn emulator_connectivity() {
        let c = parse_connectivity(&fixture("dumpsys/connectivity-emulator.txt"));
        assert_eq!(c.not_readable, None);
        assert_eq!(c.default_network, Some(102));
        assert_eq!(c.active_type.as_deref(), Some("CELLULAR"));
        assert_eq!(c.networks.len(), 1);
        let n = &c.networks[0];
        assert_eq!(
            (n.r#type.as_deref(), n.state.as_deref()),
            (Some("MOBILE[NR]"), Some("CONNECTED"))
        );
        assert_eq!(n.interface.as_deref(), Some("eth0"));
        assert_eq!(n.addresses, vec!["10.0.2.15/24"]);
        assert_eq!(n.dns, vec!["10.0.2.3"]);
        assert!(n.validated);
    }

    #[test]
    fn emulator_wifi_disconnected() {
        let w = parse_wifi(&fixture("dumpsys/wifi-emulator.txt"));
        assert_eq!(w.enabled, Some(true));
        assert_eq!(w.connected, Some(false));
        assert_eq!(w.supplicant_state.as_deref(), Some("DISCONNECTED"));
        assert_eq!(
            (w.ssid.clone(), w.bssid.clone(), w.ip.clone()),
            (None, None, None)
        );
        assert_eq!(
            (w.rssi, w.link_speed_mbps, w.frequency_mhz),
            (None, None, None)
        );
        assert_eq!(w.saved_networks, vec!["AndroidWifi"]);
    }

    #[test]
    fn denial_is_reported_not_crashed() {
        let text = fixture("dumpsys/wifi-permission-denial.txt");
        let w = parse_wifi(&text);
        assert!(
            w.not_readable
                .as_deref()
                .unwrap()
                .contains("can't dump WifiService")
        );
        assert_eq!(w.enabled, None);
        let json = serde_json::to_value(&w).unwrap();
        assert!(json["notReadable"].is_string());
        assert!(parse_connectivity(&text).not_readable.is_some());
    }

    #[test]
    fn connected_wifi_info_line() {
        // Field layout of WifiInfo.toString() as in the fixture, with a live connection.
        let text = "Wi-Fi is enabled\nmWifiInfo SSID: \"HomeNet\", BSSID: 02:15:b2:00:01:00, MAC: 02:15:b2:00:00:00, IP: /192.168.1.20, Security type: 2, Supplicant state: COMPLETED, Wi-Fi standard: 11ac, RSSI: -52, Link speed: 433Mbps, Tx Link speed: 433Mbps, Frequency: 5180MHz, Net ID: 0\n";
        let w = parse_wifi(text);
        assert_eq!(w.ssid.as_deref(), Some("HomeNet"));
        assert_eq!(w.ip.as_deref(), Some("192.168.1.20"));
        assert_eq!(
            (w.rssi, w.link_speed_mbps, w.frequency_mhz),
            (Some(-52), Some(433), Some(5180))
        );
        assert_eq!(w.connected, Some(true));
    }
}
