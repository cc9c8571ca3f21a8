//! The cost table: what each kind of device command costs on a phone, and where the figure
//! comes from. Costs are a median and a spread (uniform, ±); a swipe also takes its own
//! duration. Sources are public measurements (BENCHMARKS.md, "Phone-like latency", lists the
//! same with what each measured); where none was found the figure is an estimate and says so.
use crate::services::Service;
use crate::shell::parse;

/// A latency profile, chosen with `--latency` (or `SPOCK_SIM_LATENCY`) or at run time through
/// the control endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Answers as fast as the machine can (the default).
    #[default]
    Instant,
    /// A mid-range phone over USB.
    Phone,
    /// The same phone with every command at its median: no spread, so two runs of different
    /// command sequences compare without the luck of the draw.
    PhoneMedian,
}

impl Profile {
    pub fn parse(name: &str) -> Option<Profile> {
        match name.trim().to_ascii_lowercase().as_str() {
            "instant" | "none" | "off" | "" => Some(Profile::Instant),
            "phone" => Some(Profile::Phone),
            "phone-median" => Some(Profile::PhoneMedian),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Instant => "instant",
            Profile::Phone => "phone",
            Profile::PhoneMedian => "phone-median",
        }
    }

    pub fn cost(self, class: Class) -> Cost {
        match self {
            Profile::Instant => Cost::ZERO,
            Profile::Phone => phone(class),
            Profile::PhoneMedian => Cost {
                spread_ms: 0,
                ..phone(class)
            },
        }
    }
}

/// The kinds of command the table prices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    UiDump,
    ScreencapPng,
    ScreencapRaw,
    AmStart,
    Am,
    Input,
    Pm,
    Dumpsys,
    Getprop,
    Shell,
    Sync,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::UiDump => "uiautomator dump",
            Class::ScreencapPng => "screencap -p",
            Class::ScreencapRaw => "screencap (raw)",
            Class::AmStart => "am start",
            Class::Am => "am (other)",
            Class::Input => "input",
            Class::Pm => "pm / cmd",
            Class::Dumpsys => "dumpsys",
            Class::Getprop => "getprop",
            Class::Shell => "plain shell",
            Class::Sync => "sync (push/pull/stat)",
        }
    }
}

/// Median and spread in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    pub median_ms: u64,
    pub spread_ms: u64,
}

impl Cost {
    pub const ZERO: Cost = Cost {
        median_ms: 0,
        spread_ms: 0,
    };
    const fn ms(median_ms: u64, spread_ms: u64) -> Cost {
        Cost {
            median_ms,
            spread_ms,
        }
    }
}

/// The phone profile. Each line: the figure, then the measurement it rests on.
fn phone(class: Class) -> Cost {
    match class {
        // 1–4 s per hierarchy dump right after an activity start, faster once idle
        // (dtmilano/CulebraTester2-public#17, 2022, real device); uiautomator waits for the
        // app to go idle before walking the tree (openatx/uiautomator2#116: "classic uiautomator
        // dump" on busy screens). Median 1.6 s, 1.0–2.2 s.
        Class::UiDump => Cost::ms(1600, 600),
        // `adb exec-out screencap -p`: median 2122 ms, p10 661, p90 3007 on an Android 15
        // emulator at 1440×3120 (elliotgao2.github.io/handsets, "Why adb screencap is slow");
        // "2 s and more" on phones (mzlogin/awesome-adb#54). At the Pixel 7's 1080×2400:
        // median 1.5 s, 0.8–2.2 s.
        Class::ScreencapPng => Cost::ms(1500, 700),
        // Raw `screencap` / framebuffer: 675 ms median, p10–p90 664–683 ms (same source).
        Class::ScreencapRaw => Cost::ms(675, 15),
        // `am start -W`: TotalTime 355 ms / WaitTime 365 ms for a warm activity
        // (topic.alibabacloud.com, "How do I calculate the App startup time in Android"), plus
        // the `am` JVM start (as for `input`). Median 700 ms, 450–950.
        Class::AmStart => Cost::ms(700, 250),
        // Other `am` verbs and `monkey`: a JVM start and one binder call (as `input`).
        Class::Am => Cost::ms(350, 150),
        // `input tap|text|keyevent|swipe`: each starts a Java process (Genymobile/scrcpy#231);
        // 226 ms per tap on real hardware (mobile-next/mobilecli#412), 300–400 ms
        // (quamotion/madb#56), up to 1160 ms on a Galaxy Note 4 (prog.world, "tap, swipe and
        // two smoking events"). Median 350 ms, 200–500. A swipe adds its duration.
        Class::Input => Cost::ms(350, 150),
        // `pm` and `cmd package`: a Java command like `input` (scrcpy#231); no direct
        // measurement found, priced as `input`'s JVM start.
        Class::Pm => Cost::ms(350, 150),
        // Estimate (no published figure found): a native binder dump, no JVM.
        Class::Dumpsys => Cost::ms(120, 60),
        // Estimate: one adb shell round trip over USB for a native one-liner.
        Class::Getprop => Cost::ms(40, 15),
        Class::Shell => Cost::ms(40, 15),
        Class::Sync => Cost::ms(40, 15),
    }
}

/// The commands a service runs, each with extra time it asks for itself (a swipe's duration).
pub fn commands_of(service: &Service) -> Vec<(Class, u64)> {
    match service {
        Service::Shell { command, .. } | Service::Exec { command } => classify_line(command),
        Service::Sync => vec![(Class::Sync, 0)],
        Service::Framebuffer => vec![(Class::ScreencapRaw, 0)],
        Service::Reboot { .. } => vec![(Class::Shell, 0)],
    }
}

/// Every simple command of a shell line, classified. Lines that do not parse cost one plain
/// shell command (the shell itself answers the syntax error).
pub fn classify_line(line: &str) -> Vec<(Class, u64)> {
    let Ok(script) = parse::parse(line) else {
        return vec![(Class::Shell, 0)];
    };
    let out: Vec<(Class, u64)> = script
        .iter()
        .flat_map(|(_, pipe)| pipe.cmds.iter())
        .map(|cmd| classify(&cmd.args))
        .collect();
    if out.is_empty() {
        vec![(Class::Shell, 0)]
    } else {
        out
    }
}

fn classify(args: &[String]) -> (Class, u64) {
    let word = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let name = word(0).rsplit('/').next().unwrap_or("");
    let class = match name {
        "uiautomator" => Class::UiDump,
        "screencap" if args.iter().any(|a| a == "-p" || a.ends_with(".png")) => Class::ScreencapPng,
        "screencap" => Class::ScreencapRaw,
        "am" if word(1) == "start" || word(1) == "start-activity" => Class::AmStart,
        "am" | "monkey" => Class::Am,
        "input" => {
            let at = args
                .iter()
                .enumerate()
                .skip(1)
                .find(|(_, a)| !a.starts_with('-') && !is_source(a));
            let extra = match at {
                // `input swipe x1 y1 x2 y2 [ms]`: the gesture takes its duration (300 ms default).
                Some((i, sub)) if sub == "swipe" || sub == "draganddrop" => args
                    .get(i + 5)
                    .and_then(|a| a.parse::<u64>().ok())
                    .unwrap_or(300)
                    .min(60_000),
                _ => 0,
            };
            return (Class::Input, extra);
        }
        "pm" | "cmd" => Class::Pm,
        "dumpsys" => Class::Dumpsys,
        "getprop" => Class::Getprop,
        _ => Class::Shell,
    };
    (class, 0)
}

/// `input [source] <command>`: the optional input source before the command.
fn is_source(a: &str) -> bool {
    matches!(
        a,
        "keyboard"
            | "mouse"
            | "joystick"
            | "touchnavigation"
            | "touchpad"
            | "trackball"
            | "stylus"
            | "dpad"
            | "gesture"
            | "touchscreen"
            | "gamepad"
            | "rotaryencoder"
    )
}
