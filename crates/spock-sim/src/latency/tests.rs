use super::profile::classify_line;
use super::*;
use crate::services::ShellMode;

fn shell(line: &str) -> Service {
    Service::Shell {
        mode: ShellMode::V2,
        command: line.into(),
    }
}

#[test]
fn instant_counts_but_charges_nothing() {
    let p = Pacer::default();
    assert_eq!(
        p.charge(&shell("uiautomator dump /dev/tty")),
        Duration::ZERO
    );
    assert_eq!(
        p.charge(&shell("input tap 1 2 && input text hi")),
        Duration::ZERO
    );
    let s = p.stats();
    assert_eq!(s.profile, "instant");
    assert_eq!(s.services, 2);
    assert_eq!(s.total_commands, 3);
    assert_eq!(s.commands["input"].count, 2);
    assert_eq!(s.commands["uiautomator dump"].count, 1);
}

#[test]
fn phone_costs_fall_in_the_table_and_repeat_with_the_seed() {
    let run = || {
        let p = Pacer::default();
        p.set(Profile::Phone, Some(7));
        (0..20)
            .map(|_| p.charge(&shell("uiautomator dump /dev/tty")).as_millis() as u64)
            .collect::<Vec<_>>()
    };
    let a = run();
    assert_eq!(a, run(), "same seed, same charges");
    assert!(a.iter().all(|&ms| (1000..=2200).contains(&ms)), "{a:?}");
    assert!(a.iter().any(|&ms| ms != a[0]), "there is a spread: {a:?}");
}

#[test]
fn the_meter_also_prices_each_command_at_its_median() {
    let p = Pacer::default();
    p.set(Profile::Phone, Some(7));
    p.charge(&shell("uiautomator dump /dev/tty"));
    p.charge(&shell("input tap 1 2 && input swipe 1 2 3 4 300"));
    let s = p.stats();
    assert_eq!(s.commands["uiautomator dump"].median_ms, 1600);
    assert_eq!(
        s.commands["input"].median_ms,
        350 + 350 + 300,
        "a swipe adds its duration"
    );
    assert_eq!(s.total_median_ms, 1600 + 1000);
    assert_ne!(
        s.total_device_ms, s.total_median_ms,
        "the charge has a spread, the median not"
    );
    // Another seed draws other charges for the same commands, at the same medians.
    let q = Pacer::default();
    q.set(Profile::Phone, Some(8));
    q.charge(&shell("uiautomator dump /dev/tty"));
    q.charge(&shell("input tap 1 2 && input swipe 1 2 3 4 300"));
    assert_eq!(q.stats().total_median_ms, s.total_median_ms);
    // `phone-median` charges exactly the medians.
    let m = Pacer::default();
    m.set(Profile::parse("phone-median").unwrap(), Some(7));
    assert_eq!(
        m.charge(&shell("uiautomator dump /dev/tty")).as_millis(),
        1600
    );
    assert_eq!(m.charge(&shell("input tap 1 2")).as_millis(), 350);
    assert_eq!(m.stats().total_device_ms, m.stats().total_median_ms);
    assert_eq!(m.stats().profile, "phone-median");
}

#[test]
fn classes_and_swipe_durations() {
    assert_eq!(
        classify_line("screencap -p"),
        vec![(Class::ScreencapPng, 0)]
    );
    assert_eq!(
        classify_line("'screencap' '-p'"),
        vec![(Class::ScreencapPng, 0)]
    );
    assert_eq!(
        classify_line("am start -W -n a/.B"),
        vec![(Class::AmStart, 0)]
    );
    assert_eq!(
        classify_line("input swipe 1 2 3 4 800"),
        vec![(Class::Input, 800)]
    );
    assert_eq!(
        classify_line("input touchscreen swipe 1 2 3 4"),
        vec![(Class::Input, 300)]
    );
    assert_eq!(classify_line("input keyevent 66"), vec![(Class::Input, 0)]);
    assert_eq!(
        classify_line("dumpsys window | grep mCurrentFocus"),
        vec![(Class::Dumpsys, 0), (Class::Shell, 0)]
    );
    assert_eq!(classify_line("pm list packages -3"), vec![(Class::Pm, 0)]);
    assert_eq!(classify_line("'unterminated"), vec![(Class::Shell, 0)]);
    let p = Pacer::default();
    p.set(Profile::Phone, None);
    let ms = p.charge(&shell("input swipe 1 2 3 4 800")).as_millis();
    assert!((1000..=1300).contains(&ms), "{ms}");
}

#[test]
fn reset_keeps_the_profile() {
    let p = Pacer::default();
    p.set(Profile::Phone, None);
    p.charge(&Service::Framebuffer);
    p.reset_stats();
    let s = p.stats();
    assert_eq!((s.profile, s.total_commands), ("phone", 0));
}
