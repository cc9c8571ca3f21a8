//! Input: `input tap|swipe|keyevent|keycombination|text|draganddrop|motionevent`, `getevent -p[l]` (the
//! device's input nodes, touchscreen with multi-touch axes, in the layout of
//! `fixtures/misc/getevent-pl-mi-mix2-chiron.txt`) and `sendevent` into the touch decoder.
use super::{Ctx, keycodes};
use crate::touch::{self, TOUCH_DEVICE};

mod keys;
use keys::{Meta, key_combination, press};

const USAGE: &str = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad
      keyboard
      mouse
      touchpad
      gamepad
      touchnavigation
      joystick
      touchscreen
      stylus
      trackball

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--duration <duration to hold key down in ms>] [--doubletap] [--async] [--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      scroll (Default: rotaryencoder) scroll <x> <y> [axis_value] (for pointer-based sources) [axis_value] (for non pointer-based sources)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)";

const SOURCES: &[&str] = &[
    "dpad",
    "keyboard",
    "mouse",
    "touchpad",
    "gamepad",
    "touchnavigation",
    "joystick",
    "touchscreen",
    "stylus",
    "trackball",
    "rotaryencoder",
];

fn coord(s: &str) -> Option<i32> {
    s.parse::<f32>().ok().map(|v| v.round() as i32)
}

fn bad(ctx: &mut Ctx, cmd: &str) -> i32 {
    ctx.errln(&format!("Error: Invalid arguments for command: {cmd}"));
    ctx.errln(USAGE);
    1
}

pub fn input(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut rest: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    if rest.first().is_some_and(|s| SOURCES.contains(s)) {
        rest.remove(0);
    }
    if rest.first() == Some(&"-d") && rest.len() >= 2 {
        rest.drain(..2);
    }
    let Some((&cmd, params)) = rest.split_first() else {
        ctx.errln(USAGE);
        return 1;
    };
    match cmd {
        "tap" => match params {
            [x, y] => match (coord(x), coord(y)) {
                (Some(x), Some(y)) => {
                    ctx.st.tap(x, y, false);
                    0
                }
                _ => bad(ctx, cmd),
            },
            _ => bad(ctx, cmd),
        },
        "swipe" | "draganddrop" => {
            let nums: Option<Vec<i32>> = params.iter().map(|p| coord(p)).collect();
            match nums.as_deref() {
                Some([x1, y1, x2, y2]) => {
                    ctx.st.swipe((*x1, *y1), (*x2, *y2));
                    0
                }
                Some([x1, y1, x2, y2, ms]) => {
                    if (x2 - x1).abs() + (y2 - y1).abs() < 10 && *ms >= 500 {
                        // `input swipe x y x y 1000` is how tools long-press.
                        ctx.st.tap(*x1, *y1, true);
                    } else {
                        ctx.st.swipe((*x1, *y1), (*x2, *y2));
                    }
                    0
                }
                _ => bad(ctx, cmd),
            }
        }
        "text" => match params {
            [] => bad(ctx, cmd),
            words => {
                // `input text` turns %s into spaces; the shell has already removed quoting.
                let text = words.join(" ").replace("%s", " ");
                ctx.st.input_event();
                ctx.st.type_text(&text);
                0
            }
        },
        "keyevent" => {
            // `runKeyEvent`: leading `--` options, then keys; `--delay` takes a value. A name
            // `keyCodeFromString` does not know is sent as KEYCODE_UNKNOWN, silently.
            let mut keys = params;
            while let Some(opt) = keys.first().filter(|k| k.starts_with("--")) {
                keys = &keys[if *opt == "--delay" {
                    2.min(keys.len())
                } else {
                    1
                }..];
            }
            if keys.is_empty() {
                return bad(ctx, cmd);
            }
            for k in keys {
                if let Some(code) = keycodes::from_string(k) {
                    press(ctx, code, Meta::default());
                }
            }
            0
        }
        "keycombination" => key_combination(ctx, params),
        "motionevent" => match params {
            [action, x, y] => match (coord(x), coord(y)) {
                (Some(x), Some(y)) => {
                    motion(ctx, &action.to_ascii_uppercase(), x, y);
                    0
                }
                _ => bad(ctx, cmd),
            },
            _ => bad(ctx, cmd),
        },
        "press" | "roll" | "scroll" => 0,
        _ => {
            ctx.errln(&format!("Error: Unknown command: {cmd}"));
            ctx.errln(USAGE);
            1
        }
    }
}

/// `input motionevent`: DOWN/MOVE/UP become touch events through the same decoder as
/// `sendevent`, so a DOWN…UP pair is a tap or a swipe.
fn motion(ctx: &mut Ctx, action: &str, x: i32, y: i32) {
    use touch::*;
    let d = &mut ctx.st.touch;
    let mut out = None;
    match action {
        "DOWN" => {
            d.feed(EV_ABS, ABS_MT_SLOT, 0);
            d.feed(EV_ABS, ABS_MT_TRACKING_ID, 1);
            d.feed(EV_ABS, ABS_MT_POSITION_X, x);
            d.feed(EV_ABS, ABS_MT_POSITION_Y, y);
            out = d.feed(EV_SYN, SYN_REPORT, 0);
        }
        "MOVE" => {
            d.feed(EV_ABS, ABS_MT_SLOT, 0);
            d.feed(EV_ABS, ABS_MT_POSITION_X, x);
            d.feed(EV_ABS, ABS_MT_POSITION_Y, y);
            out = d.feed(EV_SYN, SYN_REPORT, 0);
        }
        "UP" | "CANCEL" => {
            d.feed(EV_ABS, ABS_MT_SLOT, 0);
            d.feed(EV_ABS, ABS_MT_POSITION_X, x);
            d.feed(EV_ABS, ABS_MT_POSITION_Y, y);
            d.feed(EV_SYN, SYN_REPORT, 0);
            d.feed(EV_ABS, ABS_MT_TRACKING_ID, -1);
            out = d.feed(EV_SYN, SYN_REPORT, 0);
        }
        _ => {}
    }
    if let Some(g) = out {
        ctx.st.gesture(g);
    }
}

struct Node {
    path: &'static str,
    name: &'static str,
    keys: &'static [(&'static str, u16)],
    abs: bool,
    props: &'static str,
}

const NODES: &[Node] = &[
    Node {
        path: "/dev/input/event3",
        name: "uinput-fpc",
        keys: &[("KEY_WAKEUP", 0x8f)],
        abs: false,
        props: "<none>",
    },
    Node {
        path: TOUCH_DEVICE,
        name: "fts",
        keys: &[
            ("KEY_WAKEUP", 0x8f),
            ("BTN_TOOL_FINGER", 0x145),
            ("BTN_TOUCH", 0x14a),
        ],
        abs: true,
        props: "INPUT_PROP_DIRECT",
    },
    Node {
        path: "/dev/input/event1",
        name: "gpio-keys",
        keys: &[("KEY_VOLUMEDOWN", 0x72), ("KEY_VOLUMEUP", 0x73)],
        abs: false,
        props: "<none>",
    },
    Node {
        path: "/dev/input/event0",
        name: "s2mpg12-power-keys",
        keys: &[("KEY_POWER", 0x74)],
        abs: false,
        props: "<none>",
    },
];

pub fn getevent(ctx: &mut Ctx, args: &[String]) -> i32 {
    let flags: String = args
        .iter()
        .skip(1)
        .filter_map(|a| a.strip_prefix('-'))
        .collect();
    let labels = flags.contains('l');
    let probe = flags.contains('p');
    let d = ctx.st.scenario.device.clone();
    let abs = [
        ("ABS_MT_SLOT", 0x2f, 0, touch::SLOTS as i64 - 1),
        ("ABS_MT_TOUCH_MAJOR", 0x30, 0, 255),
        ("ABS_MT_TOUCH_MINOR", 0x31, 0, 255),
        ("ABS_MT_POSITION_X", 0x35, 0, i64::from(d.width) - 1),
        ("ABS_MT_POSITION_Y", 0x36, 0, i64::from(d.height) - 1),
        ("ABS_MT_TRACKING_ID", 0x39, 0, 65535),
        ("ABS_MT_PRESSURE", 0x3a, 0, 255),
    ];
    let mut out = String::new();
    for (i, n) in NODES.iter().enumerate() {
        out.push_str(&format!("add device {}: {}\n", i + 1, n.path));
        out.push_str(&format!("  name:     \"{}\"\n", n.name));
        if !probe {
            continue;
        }
        out.push_str("  events:\n");
        let keys: Vec<String> = n
            .keys
            .iter()
            .map(|(l, c)| {
                if labels {
                    format!("{l:<22}")
                } else {
                    format!("{c:04x}  ")
                }
            })
            .collect();
        out.push_str(&format!("    KEY (0001): {}\n", keys.join("").trim_end()));
        if n.abs {
            for (j, (l, c, min, max)) in abs.iter().enumerate() {
                let head = if j == 0 {
                    "    ABS (0003): "
                } else {
                    "                "
                };
                let name = if labels {
                    format!("{l:<22}")
                } else {
                    format!("{c:04x}  ")
                };
                out.push_str(&format!(
                    "{head}{name}: value 0, min {min}, max {max}, fuzz 0, flat 0, resolution 0\n"
                ));
            }
        }
        out.push_str(&format!("  input props:\n    {}\n", n.props));
    }
    ctx.out(&out);
    0
}

pub fn sendevent(ctx: &mut Ctx, args: &[String]) -> i32 {
    let [_, dev, ty, code, value] = args else {
        ctx.errln("usage: sendevent DEVICE TYPE CODE VALUE");
        return 1;
    };
    if !NODES.iter().any(|n| n.path == dev) {
        ctx.errln(&format!("sendevent: {dev}: No such file or directory"));
        return 1;
    }
    let (Some(ty), Some(code), Some(value)) = (
        touch::parse_value(ty),
        touch::parse_value(code),
        touch::parse_value(value),
    ) else {
        ctx.errln(&format!("sendevent: bad number '{}'", args[2..].join(" ")));
        return 1;
    };
    if dev != TOUCH_DEVICE {
        return 0;
    }
    ctx.st.touch.rotation = ctx.st.rotation();
    if let Some(g) = ctx.st.touch.feed(ty as u16, code as u16, value) {
        ctx.st.gesture(g);
    }
    0
}
