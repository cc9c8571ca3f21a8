//! The attack corpus (tests/corpora/capture_scrub.jsonl): each identifier an attacker planted in
//! a phone's outputs, with the line it appears on (`text`) and every form of it that must not be
//! left (`secrets`). All the lines are learned together, with a real capture around them, as one
//! bundle would be; then each is scrubbed on its own. What the scrubber does not catch yet is
//! listed in [`KNOWN_LIMITS`], and it must still get through, so the list stays true.
use super::*;

fn read(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The attacked phone's adb serial: the capture learns it from the device list, not a text.
const SERIAL: &str = "98AX1B2C3D";

/// What the attacked phone said elsewhere in the same bundle, that some entries rely on (their
/// note says "known"): the adb device list and the getprop line the Wi-Fi name was learned from.
const CONTEXT: &[&str] = &[
    "98AX1B2C3D             device usb:1-1 product:panther model:Pixel_7 device:panther \
     transport_id:1\n",
    "[persist.vendor.wifi.last_ssid]: [Annies Home 5G]\n",
];

/// Entries the scrubber is not expected to catch (by a distinctive part of their `planted`), and
/// why. Each must still leave a secret: one that no longer does is taken off the list. "Upstream"
/// marks what a real capture hides before the scrub (the default redaction rules, or
/// `password_fields_masked` for a UI dump), so only the scrubber's own gap is recorded here.
const KNOWN_LIMITS: &[(&str, &str)] = &[
    (
        "PwSecret99!",
        "a password field's text is nothing the scrubber knows (upstream: password_fields_masked)",
    ),
    (
        "HomeNet-Neutral",
        "an unseen Wi-Fi name under a neutral key: nothing says it is one",
    ),
    (
        "[vendor.wlan.hw3]",
        "12 bare hex digits under a neutral key: no separator, no mac/bssid label",
    ),
    (
        "bare 6502530012",
        "ten bare digits with no label are not taken for a phone number",
    ),
    (
        "judy=40example.com",
        "quoted-printable (`=40` for `@`) is not decoded",
    ),
    (
        "ipAddress=922003648",
        "an IPv4 address written as one integer is not decoded",
    ),
    (
        "paul (at) gmail",
        "an obfuscated e-mail (`(at)`, `(dot)`) is not read as one",
    ),
    (
        "98AX-1B2C-3D",
        "the serial regrouped with dashes is not one of its shapes",
    ),
    (
        "3C:5A:B4:XX:XX:60",
        "a masked MAC (OUI and last byte) is not a MAC shape",
    ),
    (
        "my p&#97;ssword",
        "a password field's text (upstream: password_fields_masked)",
    ),
    (
        "random/boot_id",
        "the boot ID is a bare UUID in the output: the scrubber alone cannot tell it (upstream: \
         the capture learns it from its command, `capture::scrubbed`)",
    ),
];

struct Entry {
    kind: String,
    planted: String,
    text: String,
    secrets: Vec<String>,
}

fn corpus() -> Vec<Entry> {
    let text = read("tests/corpora/capture_scrub.jsonl");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            let v: serde_json::Value =
                serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", i + 1));
            let s = |k: &str| {
                v[k].as_str()
                    .unwrap_or_else(|| panic!("line {}: no {k}", i + 1))
                    .to_string()
            };
            let secrets: Vec<String> = v["secrets"]
                .as_array()
                .unwrap_or_else(|| panic!("line {}: no secrets", i + 1))
                .iter()
                .map(|x| x.as_str().expect("a secret is a string").to_string())
                .collect();
            assert!(!secrets.is_empty(), "line {}: no secrets", i + 1);
            Entry {
                kind: s("kind"),
                planted: s("planted"),
                text: s("text"),
                secrets,
            }
        })
        .collect()
}

#[test]
fn every_planted_identifier_is_scrubbed_but_the_known_limits() {
    let entries = corpus();
    assert!(entries.len() >= 133, "{} entries", entries.len());
    let getprop = read("tests/fixtures/getprop/pixel8pro-husky.txt");
    let wifi = read("tests/fixtures/dumpsys/wifi-emulator.txt");

    let mut s = Scrubber::default();
    s.known("serial", SERIAL);
    for t in [getprop.as_str(), wifi.as_str()]
        .into_iter()
        .chain(CONTEXT.iter().copied())
    {
        s.learn(t);
    }
    entries.iter().for_each(|e| s.learn(&e.text));

    for (limit, _) in KNOWN_LIMITS {
        let n = entries.iter().filter(|e| e.planted.contains(limit)).count();
        assert_eq!(n, 1, "KNOWN_LIMITS {limit:?} names {n} entries, not one");
    }
    let mut failures = Vec::new();
    let mut scrubbed = 0;
    for e in &entries {
        let out = s.apply(&e.text);
        let left: Vec<&String> = e
            .secrets
            .iter()
            .filter(|x| out.contains(x.as_str()))
            .collect();
        let limit = KNOWN_LIMITS.iter().find(|(l, _)| e.planted.contains(l));
        match (left.is_empty(), limit) {
            (true, None) => scrubbed += 1,
            (false, Some(_)) => {}
            (false, None) => failures.push(format!(
                "[{}] {:?}: {left:?} left in {out:?}",
                e.kind, e.planted
            )),
            (true, Some((l, _))) => failures.push(format!(
                "[{}] {:?} is scrubbed now: take {l:?} off KNOWN_LIMITS",
                e.kind, e.planted
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scrubbed; {} failures:\n{}",
        scrubbed,
        entries.len(),
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(scrubbed + KNOWN_LIMITS.len(), entries.len());

    // The adb serial is gone from the device list too, and what identifies nobody is kept.
    assert!(!s.apply(CONTEXT[0]).contains(SERIAL));
    let props = s.apply(&getprop);
    for kept in [
        "[ro.product.model]: [Pixel 8 Pro]",
        "[ro.build.version.sdk]: [36]",
    ] {
        assert!(props.contains(kept), "{kept} was scrubbed");
    }
}
