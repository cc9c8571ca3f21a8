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
    ("imei", "IMEI/MEID/ICCID/IMSI numbers"),
    (
        "id",
        "per-device and per-boot identifiers (Android ID, boot ID, chip and partition IDs)",
    ),
    ("account", "account names"),
    ("email", "e-mail addresses"),
    ("phone", "phone numbers"),
    ("wifi", "Wi-Fi network names"),
    ("mac", "MAC addresses (Wi-Fi, Bluetooth, access points)"),
    (
        "ip",
        "network addresses (IPv4 other than loopback, every IPv6 but ::1)",
    ),
    (
        "name",
        "names given to the phone or the build (device, Bluetooth and build host names)",
    ),
    (
        "secret",
        "passwords, PINs, keys and tokens written out in the outputs",
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
    "true",
    "false",
    "<unknown ssid>",
    "00:00:00:00:00:00",
    "02:00:00:00:00:00",
];

/// A value this short is replaced only as a word of its own (a Wi-Fi network called "Home"
/// is not taken out of "Homepage"); a longer one wherever it occurs.
const WORD_ONLY: usize = 5;

#[derive(Debug, Default)]
pub struct Scrubber {
    /// Each value, in each shape it may be written in → (kind, placeholder).
    found: BTreeMap<String, (&'static str, String)>,
    counts: BTreeMap<&'static str, usize>,
    /// Every shape as one pattern, longest first: built at the first [`Scrubber::apply`] after
    /// the last value learned.
    compiled: std::sync::OnceLock<Option<Regex>>,
}

struct Patterns {
    email: Regex,
    digits15: Regex,
    imei_grouped: Regex,
    iccid: Regex,
    labelled_number: Regex,
    phone: Vec<Regex>,
    mac: Vec<Regex>,
    labelled_mac: Regex,
    ipv4: Regex,
    ipv6: Regex,
    ssid: Vec<Regex>,
    account: Regex,
    prop: Regex,
    secret: Vec<Regex>,
    entity: Regex,
    percent: Regex,
    unicode_escape: Regex,
}

fn patterns() -> &'static Patterns {
    static P: std::sync::OnceLock<Patterns> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        let re = |s: &str| Regex::new(s).expect("a fixed pattern");
        Patterns {
            email: re(r"[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[^\W\d_]{2,}"),
            digits15: re(r"\b\d{15}\b"),
            imei_grouped: re(r"\b\d{2}[- ]\d{6}[- ]\d{6}[- ]\d\b"),
            iccid: re(r"\b89\d{2}(?:[ -]?\d{4}){3}[ -]?\d{3,4}[0-9F]?\b"),
            labelled_number: re(
                r#"(?i)\b(imei|meid|iccid|imsi|esn)\w*["']?\s*[=:]?\s*["']?([0-9a-f][0-9a-f -]{9,22}[0-9a-f])"#,
            ),
            phone: vec![
                re(r"(?:\+|%2B|\btel:\+?)[1-9][0-9 ()./-]{6,20}[0-9]"),
                re(r"\(\d{3}\)\s?\d{3}[-.\s]\d{4}\b"),
                re(r"\b\d{3}[.-]\d{3}[.-]\d{4}\b"),
                re(r"\b0\d{2,4}[ -]\d{3,4}[ -]?\d{3,4}\b"),
                re(r#"(?i)\b(?:phone|tel|call(?:ing)?|msisdn|number|mobile)\b["']?\s*[=:]?\s*["']?(\+?\d[\d ().-]{7,16}\d)"#),
            ],
            mac: vec![
                re(r"(?i)\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b"),
                re(r"(?i)\b[0-9a-f]{2}(?:-[0-9a-f]{2}){5}\b"),
                re(r"(?i)\b[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}\b"),
            ],
            labelled_mac: re(r#"(?i)(?:mac|bssid)\w*["']?\s*[=:]\s*["']?([0-9a-f]{12})\b"#),
            ipv4: re(r"\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b"),
            ipv6: re(r"(?i)[0-9a-f:]*:[0-9a-f:]*:[0-9a-f:.]*"),
            ssid: vec![
                re(r#"(?i)\bSSID: "([^"\n]+)""#),
                re(r#"(?i)\bSSID: ([^",\n<][^,\n]*?),"#),
                re(r#"(?i)\bssid="([^"\n]+)""#),
                re(r#"(?i)"ssid"\s*:\s*"([^"\n]+)""#),
                re(r#"(?i)\bssid=([^\s,"}]+)"#),
                re(r#"ConfigKey="([^"\n]+)""#),
                re(r#"(?im)\bSSID: ([^",\n<][^,\n]*?)\s*$"#),
                re(r#"(?i)\bnetwork "([^"\n]+)""#),
            ],
            account: re(r"Account \{name=([^,}\n]+), type="),
            prop: re(r"(?m)^\[([^\]]+)\]: \[([^\]\n]*)\]"),
            secret: vec![
                re(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
                re(r"\b[rs]k_(?:live|test)_[0-9A-Za-z]{10,}"),
                re(r"\b1//0[0-9A-Za-z_-]{20,}"),
                re(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----"),
                re(r"-----BEGIN [A-Z ]*PRIVATE KEY-----\s*([A-Za-z0-9+/=\s]{16,})"),
                re(r"(?i)\b(?:Bearer|Basic)\s+([A-Za-z0-9._~+/-]{8,}=*)"),
                re(r#"(?i)\b(?:pass|passwd|password|pwd|passcode|pin|psk|presharedkey|secret|token|api_?key)\b["']?\s*[=:]\s*["']?([^"'\s&,;}\]]{3,})"#),
            ],
            entity: re(r"&#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}));"),
            percent: re(r"%([0-9a-fA-F]{2})"),
            unicode_escape: re(r"\\u([0-9a-fA-F]{4})"),
        }
    })
}

/// An IPv4 address that can say where a phone is: not loopback, unspecified, multicast,
/// broadcast or a netmask, nor the documentation range the placeholders come from.
fn identifying_ip(v: &str) -> bool {
    if v.contains(':') {
        return v
            .parse::<std::net::Ipv6Addr>()
            .is_ok_and(|a| !a.is_loopback() && !a.is_unspecified() && !v.starts_with("2001:db8"));
    }
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
    let any = |words: &[&str]| words.iter().any(|w| k.contains(w));
    if k.contains("serial") {
        Some("serial")
    } else if any(&["imei", "meid", "iccid", "imsi"]) {
        Some("imei")
    } else if any(&["msisdn", "line1", "phone_number", "phonenumber"]) {
        Some("phone")
    } else if any(&[
        "device_name",
        "bt.name",
        "bluetooth.name",
        "build.host",
        "build.user",
        "friendly",
        "owner",
    ]) {
        Some("name")
    } else if k.contains("ssid") {
        Some("wifi")
    } else if any(&["macaddr", "wifimac", "btmac", "mac_address"]) {
        Some("mac")
    } else if any(&[
        "android_id",
        "hostname",
        "soc.id",
        "socid",
        "vbmeta.device",
        "uuid",
        "advertising",
        "adid",
        "boot_id",
        "chipid",
        "chip_id",
    ]) {
        Some("id")
    } else if any(&[
        "password", "passwd", "secret", "token", "psk", "apikey", "api_key",
    ]) {
        Some("secret")
    } else {
        None
    }
}

/// Every escaping a text may carry an identifier in, undone: XML character references, URL
/// percent-encoding (twice, for a value encoded twice) and JSON `\u` escapes. Only the forms
/// that differ from `text`.
fn decoded_forms(text: &str) -> Vec<String> {
    let p = patterns();
    let mut out = Vec::new();
    let entities = decode_entities(text);
    let url = |t: &str| {
        p.percent
            .replace_all(t, |c: &regex::Captures| {
                u8::from_str_radix(&c[1], 16)
                    .ok()
                    .filter(u8::is_ascii)
                    .map(|b| (b as char).to_string())
                    .unwrap_or_else(|| c[0].to_string())
            })
            .into_owned()
    };
    let once = url(&entities);
    let twice = url(&once);
    let unicode = p
        .unicode_escape
        .replace_all(&twice, |c: &regex::Captures| {
            u32::from_str_radix(&c[1], 16)
                .ok()
                .and_then(char::from_u32)
                .map(String::from)
                .unwrap_or_else(|| c[0].to_string())
        })
        .into_owned();
    for t in [entities, once, twice, unicode] {
        if t != text && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// XML numeric character references decoded, but for the characters that must stay escaped
/// inside a double-quoted attribute (`<`, `&`, `"`): the text means the same to an XML parser,
/// and a value written partly as references (`98AX&#49;B2`) reads as itself.
pub fn decode_entities(text: &str) -> String {
    patterns()
        .entity
        .replace_all(text, |c: &regex::Captures| {
            let code = match (c.get(1), c.get(2)) {
                (Some(h), _) => u32::from_str_radix(h.as_str(), 16).ok(),
                (_, Some(d)) => d.as_str().parse().ok(),
                _ => None,
            };
            match code.and_then(char::from_u32) {
                Some(ch) if !matches!(ch, '<' | '&' | '"') && !ch.is_control() => ch.to_string(),
                _ => c[0].to_string(),
            }
        })
        .into_owned()
}

/// The shapes a value of `kind` may also be written in.
fn shapes(kind: &str, v: &str) -> Vec<String> {
    let mut out = vec![v.to_string(), v.to_lowercase(), v.to_uppercase()];
    let url = |s: &str| {
        s.replace('%', "%25")
            .replace('@', "%40")
            .replace(' ', "%20")
            .replace('+', "%2B")
            .replace(':', "%3A")
    };
    out.push(url(v));
    out.push(url(&url(v)));
    // Every character but letters and digits percent-encoded, in both cases of hex.
    let all: String = v
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_string()
            } else {
                let mut b = [0u8; 4];
                c.encode_utf8(&mut b)
                    .bytes()
                    .map(|x| format!("%{x:02X}"))
                    .collect()
            }
        })
        .collect();
    out.push(all.clone());
    out.push(all.to_lowercase());
    // Apostrophes: straight and curly.
    out.push(v.replace('\'', "\u{2019}"));
    out.push(v.replace('\u{2019}', "'"));
    out.push(v.replace('@', "\\u0040"));
    out.push(v.replace('@', "&#64;"));
    out.push(v.replace(' ', "+"));
    let digits: String = v.chars().filter(char::is_ascii_digit).collect();
    match kind {
        "imei" | "phone" if digits.len() >= 9 => out.push(digits),
        "mac" => {
            let hex: String = v.chars().filter(char::is_ascii_hexdigit).collect();
            if hex.len() == 12 {
                let pairs: Vec<&str> = (0..6).map(|i| &hex[i * 2..i * 2 + 2]).collect();
                for sep in [":", "-", ""] {
                    let m = pairs.join(sep);
                    out.push(m.to_lowercase());
                    out.push(m.to_uppercase());
                }
                let quads = format!("{}.{}.{}", &hex[0..4], &hex[4..8], &hex[8..12]);
                out.push(quads.to_lowercase());
            }
        }
        "serial" | "id" | "wifi" | "name" => {
            use base64::Engine;
            out.push(base64::engine::general_purpose::STANDARD.encode(v));
            let hex: String = v.bytes().map(|b| format!("{b:02x}")).collect();
            out.push(hex);
        }
        _ => {}
    }
    out.retain(|s| s.chars().count() >= 3);
    out.sort();
    out.dedup();
    out
}

impl Scrubber {
    /// `value` identifies, as `kind`.
    pub fn known(&mut self, kind: &'static str, value: &str) {
        let v = value.trim().trim_matches('"');
        if DULL.contains(&v.to_lowercase().as_str()) || v.chars().count() < 3 {
            return;
        }
        if kind == "ip" && !identifying_ip(v) {
            return;
        }
        // Another spelling of a value already known: its shapes too, with its placeholder.
        if let Some((k, placeholder)) = self.found.get(v).cloned() {
            for shape in shapes(k, v) {
                self.found.entry(shape).or_insert((k, placeholder.clone()));
            }
            self.compiled = std::sync::OnceLock::new();
            return;
        }
        let n = self.counts.entry(kind).or_insert(0);
        *n += 1;
        let n = *n;
        let placeholder = match kind {
            "serial" => format!("serial-{n}"),
            "imei" => format!("{n:015}"),
            "id" => format!("00000000-0000-0000-0000-{n:012}"),
            "account" => format!("account-{n}"),
            "email" => format!("person-{n}@example.invalid"),
            "phone" => format!("+1555{n:07}"),
            "wifi" => format!("wifi-{n}"),
            "mac" => format!("02:00:00:00:{:02x}:{:02x}", n / 256, n % 256),
            "ip" if v.contains(':') => format!("2001:db8::{n:x}"),
            "ip" => format!("192.0.2.{}", n % 250 + 1),
            "secret" => format!("«secret-{n}»"),
            _ => format!("{kind}-{n}"),
        };
        for shape in shapes(kind, v) {
            self.found
                .entry(shape)
                .or_insert((kind, placeholder.clone()));
        }
        self.compiled = std::sync::OnceLock::new();
    }

    /// Reads `text` for identifiers (first pass), as written and with every escaping undone.
    pub fn learn(&mut self, text: &str) {
        self.learn_one(text);
        for t in decoded_forms(text) {
            self.learn_one(&t);
        }
    }

    fn learn_one(&mut self, text: &str) {
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
                self.known("wifi", &c[1]);
            }
        }
        for m in p.digits15.find_iter(text) {
            if luhn(m.as_str()) {
                self.known("imei", m.as_str());
            }
        }
        for m in p.imei_grouped.find_iter(text) {
            let digits: String = m.as_str().chars().filter(char::is_ascii_digit).collect();
            if luhn(&digits) {
                self.known("imei", m.as_str());
            }
        }
        for m in p.iccid.find_iter(text) {
            self.known("imei", m.as_str());
        }
        for c in p.labelled_number.captures_iter(text) {
            self.known("imei", &c[2]);
        }
        for re in &p.phone {
            for c in re.captures_iter(text) {
                let m = c.get(1).unwrap_or_else(|| c.get(0).expect("the match"));
                self.known("phone", m.as_str());
            }
        }
        for re in &p.mac {
            for m in re.find_iter(text) {
                self.known("mac", m.as_str());
            }
        }
        for c in p.labelled_mac.captures_iter(text) {
            self.known("mac", &c[1]);
        }
        for m in p.ipv4.find_iter(text) {
            self.known("ip", m.as_str());
        }
        for m in p.ipv6.find_iter(text) {
            let a = m.as_str().trim_end_matches([':', '.']);
            let a = a.split('/').next().unwrap_or(a);
            if (a.contains("::") || a.matches(':').count() == 7)
                && a.parse::<std::net::Ipv6Addr>().is_ok()
            {
                self.known("ip", a);
            }
        }
        for re in &p.secret {
            for c in re.captures_iter(text) {
                let m = c.get(1).unwrap_or_else(|| c.get(0).expect("the match"));
                self.known("secret", m.as_str());
            }
        }
    }

    /// `text` with every learned value replaced by its placeholder (second pass): character
    /// references decoded first (so a value written partly as references is found), then the
    /// longest values first, and a placeholder is never looked into again.
    pub fn apply(&self, text: &str) -> String {
        let text = decode_entities(text);
        if self.found.is_empty() {
            return text;
        }
        let compiled = self.compiled.get_or_init(|| {
            let mut values: Vec<&String> = self.found.keys().collect();
            values.sort_by_key(|v| std::cmp::Reverse(v.len()));
            let alternation = values
                .iter()
                .map(|v| regex::escape(v))
                .collect::<Vec<_>>()
                .join("|");
            regex::RegexBuilder::new(&alternation)
                .size_limit(256 << 20)
                .build()
                .ok()
        });
        let Some(re) = compiled else {
            // Never written unscrubbed: a pattern too large to build hides the whole text.
            return "«not kept: the scrub could not be applied»".into();
        };
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        re.replace_all(&text, |c: &regex::Captures| {
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
mod corpus;
#[cfg(test)]
mod tests;
