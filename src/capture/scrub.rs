//! What identifies the person or the phone in a capture, found and replaced before the bundle is
//! written.
//!
//! Two passes: every output and answer is read first ([`Scrubber::learn`]) and each identifier
//! found anywhere (by its context: a getprop key, `SSID: "…"`, `Account {name=…`; or by its
//! shape: an e-mail address, a 15-digit number that passes the IMEI check digit, an
//! international phone number, a MAC address, a LAN address) becomes a value to replace; then
//! every text is rewritten ([`Scrubber::apply`]) with each value replaced wherever it occurs, in
//! whatever context, so a Wi-Fi name learned from `dumpsys` is gone from logcat too. Each
//! distinct value gets a stable placeholder of its kind (`person-1@example.invalid`,
//! `serial-2`, `192.0.2.3`), so a replay still tells two of them apart and parsers still read
//! them as what they were.
use std::collections::BTreeMap;

use regex::Regex;

/// The kinds, in the order the report lists them.
pub const KINDS: &[(&str, &str)] = &[
    (
        "serial",
        "serials (the adb serial, ro.serialno and every other *serial* property)",
    ),
    ("imei", "IMEI/MEID/ICCID numbers"),
    ("account", "account names"),
    ("email", "e-mail addresses"),
    ("phone", "phone numbers"),
    ("wifi", "Wi-Fi network names"),
    ("mac", "MAC addresses (Wi-Fi, Bluetooth, access points)"),
    ("ip", "network addresses other than loopback"),
    (
        "name",
        "names the person gave the phone (device and Bluetooth name)",
    ),
];

/// Values that say nothing about anyone (compared in lower case): a platform's defaults.
const DULL: &[&str] = &[
    "",
    "unknown",
    "null",
    "none",
    "0",
    "android",
    "<unknown ssid>",
    "00:00:00:00:00:00",
    "02:00:00:00:00:00",
];

/// A value this short is replaced only as a word of its own (a Wi-Fi network called "Home"
/// is not taken out of "Homepage"); a longer one wherever it occurs.
const WORD_ONLY: usize = 5;

#[derive(Debug, Default)]
pub struct Scrubber {
    /// Value → (kind, placeholder).
    found: BTreeMap<String, (&'static str, String)>,
    counts: BTreeMap<&'static str, usize>,
}

struct Patterns {
    email: Regex,
    digits15: Regex,
    phone: Regex,
    mac: Regex,
    ipv4: Regex,
    ssid: Vec<Regex>,
    account: Regex,
    prop: Regex,
}

fn patterns() -> &'static Patterns {
    static P: std::sync::OnceLock<Patterns> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).expect("a fixed pattern");
        Patterns {
            email: re(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
            digits15: re(r"\b\d{15}\b"),
            phone: re(r"(?:\+|\btel:\+?)[1-9][0-9 ()./-]{6,20}[0-9]"),
            mac: re(r"(?i)\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b"),
            ipv4: re(r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b"),
            ssid: vec![
                re(r#"(?i)\bSSID: "([^"\n]+)""#),
                re(r#"(?i)\bSSID: ([^",\n<][^,\n]*?),"#),
                re(r#"(?i)\bssid="([^"\n]+)""#),
                re(r#"(?i)"ssid"\s*:\s*"([^"\n]+)""#),
                re(r#"(?i)\bssid=([^\s,"}]+)"#),
            ],
            account: re(r"Account \{name=([^,}\n]+), type="),
            prop: re(r"(?m)^\[([^\]]+)\]: \[([^\]\n]*)\]"),
        }
    })
}

/// An IPv4 address that can say where a phone is: not loopback, unspecified, multicast,
/// broadcast or a netmask, nor the documentation range the placeholders come from.
fn identifying_ip(v: &str) -> bool {
    let octets: Vec<u32> = v.split('.').filter_map(|o| o.parse().ok()).collect();
    octets.len() == 4
        && octets.iter().all(|&o| o <= 255)
        && !matches!(octets[0], 0 | 127 | 224..=255)
        && !octets.starts_with(&[192, 0, 2])
}

/// The IMEI check digit (Luhn) holds.
fn luhn(digits: &str) -> bool {
    let mut sum = 0;
    for (i, c) in digits.bytes().rev().enumerate() {
        let mut d = u32::from(c - b'0');
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    sum % 10 == 0
}

/// The kind a getprop key's value is, when it identifies the phone or the person.
fn prop_kind(key: &str) -> Option<&'static str> {
    let k = key.to_ascii_lowercase();
    if k.contains("serial") {
        Some("serial")
    } else if ["imei", "meid", "iccid", "imsi"]
        .iter()
        .any(|w| k.contains(w))
    {
        Some("imei")
    } else if ["msisdn", "line1", "phone_number", "phonenumber"]
        .iter()
        .any(|w| k.contains(w))
    {
        Some("phone")
    } else if k.contains("device_name") || k.contains("bt.name") || k.ends_with("bluetooth.name") {
        Some("name")
    } else if k.contains("ssid") {
        Some("wifi")
    } else if k.contains("macaddr") || k.contains("wifimac") || k.contains("btmac") {
        Some("mac")
    } else {
        None
    }
}

impl Scrubber {
    /// `value` identifies, as `kind`.
    pub fn known(&mut self, kind: &'static str, value: &str) {
        let v = value.trim();
        if DULL.contains(&v.to_ascii_lowercase().as_str()) || v.len() < 3 {
            return;
        }
        if kind == "ip" && !identifying_ip(v) {
            return;
        }
        if self.found.contains_key(v) {
            return;
        }
        let n = self.counts.entry(kind).or_insert(0);
        *n += 1;
        let n = *n;
        let placeholder = match kind {
            "serial" => format!("serial-{n}"),
            "imei" => format!("{n:015}"),
            "account" => format!("account-{n}"),
            "email" => format!("person-{n}@example.invalid"),
            "phone" => format!("+1555{n:07}"),
            "wifi" => format!("wifi-{n}"),
            "mac" => format!("02:00:00:00:{:02x}:{:02x}", n / 256, n % 256),
            "ip" => format!("192.0.2.{}", n % 250 + 1),
            _ => format!("{kind}-{n}"),
        };
        self.found.insert(v.to_string(), (kind, placeholder));
    }

    /// Reads `text` for identifiers (first pass).
    pub fn learn(&mut self, text: &str) {
        let p = patterns();
        for c in p.prop.captures_iter(text) {
            if let Some(kind) = prop_kind(&c[1]) {
                self.known(kind, &c[2]);
            }
        }
        for m in p.email.find_iter(text) {
            self.known("email", m.as_str());
        }
        for c in p.account.captures_iter(text) {
            self.known("account", &c[1]);
        }
        for re in &p.ssid {
            for c in re.captures_iter(text) {
                self.known("wifi", c[1].trim_matches('"'));
            }
        }
        for m in p.digits15.find_iter(text) {
            if luhn(m.as_str()) {
                self.known("imei", m.as_str());
            }
        }
        for m in p.phone.find_iter(text) {
            self.known("phone", m.as_str());
        }
        for m in p.mac.find_iter(text) {
            self.known("mac", &m.as_str().to_ascii_lowercase());
            if m.as_str() != m.as_str().to_ascii_lowercase() {
                let (k, ph) = self.found[&m.as_str().to_ascii_lowercase()].clone();
                self.found.insert(m.as_str().to_string(), (k, ph));
            }
        }
        for m in p.ipv4.find_iter(text) {
            self.known("ip", m.as_str());
        }
    }

    /// `text` with every learned value replaced by its placeholder (second pass): longest
    /// values first, and a placeholder is never looked into again.
    pub fn apply(&self, text: &str) -> String {
        if self.found.is_empty() {
            return text.to_string();
        }
        let mut values: Vec<&String> = self.found.keys().collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        let alternation = values
            .iter()
            .map(|v| regex::escape(v))
            .collect::<Vec<_>>()
            .join("|");
        let Ok(re) = Regex::new(&alternation) else {
            return text.to_string();
        };
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        re.replace_all(text, |c: &regex::Captures| {
            let m = c.get(0).expect("the whole match");
            let v = m.as_str();
            let glued = word(text[..m.start()].chars().next_back()) && word(v.chars().next())
                || word(text[m.end()..].chars().next()) && word(v.chars().next_back());
            if v.chars().count() <= WORD_ONLY && glued {
                v.to_string()
            } else {
                self.found[v].1.clone()
            }
        })
        .into_owned()
    }

    /// `value` (a JSON answer) with every string rewritten by [`Self::apply`].
    pub fn apply_json(&self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) => *s = self.apply(s),
            serde_json::Value::Array(a) => a.iter_mut().for_each(|v| self.apply_json(v)),
            serde_json::Value::Object(o) => {
                let old = std::mem::take(o);
                for (k, mut v) in old {
                    self.apply_json(&mut v);
                    o.insert(self.apply(&k), v);
                }
            }
            _ => {}
        }
    }

    /// What was replaced: per kind, how many distinct values and what they became.
    pub fn report(&self) -> Vec<spock_sim::replay::Scrubbed> {
        KINDS
            .iter()
            .filter_map(|(kind, _)| {
                let count = self.counts.get(kind).copied().unwrap_or(0);
                (count > 0).then(|| spock_sim::replay::Scrubbed {
                    kind: (*kind).to_string(),
                    count,
                    replaced_by: self
                        .found
                        .values()
                        .find(|(k, _)| k == kind)
                        .map(|(_, p)| p.clone())
                        .unwrap_or_default(),
                })
            })
            .collect()
    }

    /// The placeholder `value` became, if it was learned.
    pub fn placeholder(&self, value: &str) -> Option<&str> {
        self.found.get(value.trim()).map(|(_, p)| p.as_str())
    }
}

#[cfg(test)]
mod tests;
