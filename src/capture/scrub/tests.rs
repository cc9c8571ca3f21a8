//! The scrub on real captures (tests/fixtures), with identifiers planted where a phone puts
//! them: none is left, in any text, and what identifies nobody is kept.
use super::*;

fn fixture(rel: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A phone's texts as a capture holds them, with planted identifiers.
fn planted() -> Vec<String> {
    let getprop = fixture("getprop/emu-a9-sdk_gphone_x86.txt")
        + "[persist.radio.imei]: [490154203237518]\n[persist.sys.device_name]: [Ann's Pixel]\n\
           [ril.serialnumber]: [R58M12ABCDE]\n";
    let wifi = fixture("dumpsys/wifi-emulator.txt");
    let net = fixture("public/dumpsys_connectivity/emu_a9_connectivity.txt");
    let logcat = fixture("misc/logcat-threadtime-crash-wsa.txt")
        + "12-02 10:00:00.000  1000  1000 I Sync    : syncing ann.lee@gmail.com over AndroidWifi\n\
           12-02 10:00:01.000  1000  1000 I Accounts: Account {name=ann.lee@gmail.com, type=com.google}\n\
           12-02 10:00:02.000  1000  1000 I Dialer  : calling +44 20 7946 0958 from Ann's Pixel\n\
           12-02 10:00:03.000  1000  1000 I Radio   : imei 490154203237518 sn R58M12ABCDE\n";
    let ui = fixture("uiautomator/rn-wdio-login-edittext.xml").replacen(
        "text=\"Email\"",
        "text=\"ann.lee@gmail.com\"",
        1,
    );
    let listing = "EMULATOR29X0X11X0 device product:sdk_gphone_x86 \
                   model:Android_SDK_built_for_x86 device:generic_x86 transport_id:1\n"
        .to_string();
    vec![getprop, wifi, net, logcat, ui, listing]
}

const PLANTED: &[&str] = &[
    "EMULATOR29X0X11X0",
    "490154203237518",
    "Ann's Pixel",
    "R58M12ABCDE",
    "ann.lee@gmail.com",
    "+44 20 7946 0958",
    "AndroidWifi",
    "02:15:b2:00:00:00",
    "192.168.232.2",
];

#[test]
fn no_planted_identifier_is_left_in_any_text() {
    let texts = planted();
    let mut s = Scrubber::default();
    texts.iter().for_each(|t| s.learn(t));
    let out: Vec<String> = texts.iter().map(|t| s.apply(t)).collect();
    for id in PLANTED {
        for (i, t) in out.iter().enumerate() {
            assert!(!t.contains(id), "{id} left in text {i}");
        }
    }
    // Learned in one shape, gone in every other: the Wi-Fi name from dumpsys is gone from a
    // log line that says it bare.
    assert!(
        out[3].contains("syncing person-1@example.invalid over wifi-1"),
        "{}",
        out[3]
    );
    // Each kind is reported with what it became.
    let report = s.report();
    let kinds: Vec<&str> = report.iter().map(|r| r.kind.as_str()).collect();
    for k in [
        "serial", "imei", "email", "phone", "wifi", "mac", "ip", "name",
    ] {
        assert!(kinds.contains(&k), "{k} not reported: {kinds:?}");
    }
}

#[test]
fn what_identifies_nobody_is_kept_and_parsers_still_read_it() {
    let texts = planted();
    let mut s = Scrubber::default();
    texts.iter().for_each(|t| s.learn(t));
    let getprop = s.apply(&texts[0]);
    for kept in [
        "[ro.product.model]: [Android SDK built for x86]",
        "[ro.build.version.sdk]: [28]",
        "[ro.build.fingerprint]:",
    ] {
        assert!(getprop.contains(kept), "{kept} was scrubbed");
    }
    let props = spock_core::device::parse::getprop::parse(&getprop);
    assert_eq!(
        props.get("ro.serialno").map(String::as_str),
        Some("serial-1")
    );
    // The same value gets the same placeholder everywhere; loopback and netmasks stay.
    let net = s.apply(&texts[2]);
    assert!(
        net.contains("0.0.0.0") && !net.contains("192.168.232.1 "),
        "{net}"
    );
    // The UI dump still parses, with the e-mail replaced in the field.
    let tree = spock_core::uitree::parse(&s.apply(&texts[4])).expect("parses");
    assert!(
        tree.nodes()
            .iter()
            .any(|n| n.text == "person-1@example.invalid")
    );
}

#[test]
fn the_imei_check_digit_decides_and_dull_values_stay() {
    assert!(luhn("490154203237518") && !luhn("490154203237519"));
    let mut s = Scrubber::default();
    s.learn("[ro.serialno]: [unknown]\nuptime 123456789012345 x 490154203237518\n");
    assert_eq!(s.placeholder("unknown"), None);
    assert_eq!(
        s.placeholder("123456789012345"),
        None,
        "no IMEI check digit"
    );
    assert_eq!(s.placeholder("490154203237518"), Some("000000000000001"));
}
