//! `getevent -pl` (input devices, their event types, absolute axes and input properties)
//! and the Linux input event codes needed to write `sendevent` streams (multi-touch
//! protocol B: slot, tracking id, position, then SYN_REPORT).
//!
//! With `-l` codes print as names (`ABS_MT_POSITION_X : value 0, min 0, max 1079, ...`);
//! without it as hex (`0035  : value 0, ...`); both are read, names looked up in [`codes`].
use serde::Serialize;

/// Linux `input-event-codes.h` values used to drive a touchscreen.
pub mod codes {
    pub const EV_SYN: u16 = 0x00;
    pub const EV_KEY: u16 = 0x01;
    pub const EV_ABS: u16 = 0x03;
    pub const SYN_REPORT: u16 = 0;
    pub const BTN_TOUCH: u16 = 0x14a;
    pub const BTN_TOOL_FINGER: u16 = 0x145;
    pub const ABS_X: u16 = 0x00;
    pub const ABS_Y: u16 = 0x01;
    pub const ABS_MT_SLOT: u16 = 0x2f;
    pub const ABS_MT_TOUCH_MAJOR: u16 = 0x30;
    pub const ABS_MT_TOUCH_MINOR: u16 = 0x31;
    pub const ABS_MT_WIDTH_MAJOR: u16 = 0x32;
    pub const ABS_MT_POSITION_X: u16 = 0x35;
    pub const ABS_MT_POSITION_Y: u16 = 0x36;
    pub const ABS_MT_TRACKING_ID: u16 = 0x39;
    pub const ABS_MT_PRESSURE: u16 = 0x3a;

    const ABS: [(&str, u16); 12] = [
        ("ABS_X", ABS_X),
        ("ABS_Y", ABS_Y),
        ("ABS_PRESSURE", 0x18),
        ("ABS_MT_SLOT", ABS_MT_SLOT),
        ("ABS_MT_TOUCH_MAJOR", ABS_MT_TOUCH_MAJOR),
        ("ABS_MT_TOUCH_MINOR", ABS_MT_TOUCH_MINOR),
        ("ABS_MT_WIDTH_MAJOR", ABS_MT_WIDTH_MAJOR),
        ("ABS_MT_ORIENTATION", 0x34),
        ("ABS_MT_POSITION_X", ABS_MT_POSITION_X),
        ("ABS_MT_POSITION_Y", ABS_MT_POSITION_Y),
        ("ABS_MT_TRACKING_ID", ABS_MT_TRACKING_ID),
        ("ABS_MT_PRESSURE", ABS_MT_PRESSURE),
    ];

    pub fn abs_code(name: &str) -> Option<u16> {
        ABS.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
    }

    pub fn abs_name(code: u16) -> Option<&'static str> {
        ABS.iter().find(|(_, c)| *c == code).map(|(n, _)| *n)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputDevice {
    /// `/dev/input/eventN`.
    pub path: String,
    pub name: Option<String>,
    /// Event types with the codes listed for each: `KEY`, `SW`, `ABS`, ...
    pub events: Vec<EventType>,
    pub abs: Vec<AbsAxis>,
    pub input_props: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventType {
    pub name: String,
    pub r#type: Option<u16>,
    pub codes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AbsAxis {
    /// `ABS_MT_POSITION_X`, or the hex code when the name is unknown.
    pub name: String,
    pub code: Option<u16>,
    pub value: i32,
    pub min: i32,
    pub max: i32,
    pub fuzz: i32,
    pub flat: i32,
    pub resolution: i32,
}

impl InputDevice {
    /// A direct-touch multi-touch screen: the node to write `sendevent` gestures to.
    pub fn is_touchscreen(&self) -> bool {
        let has = |n: &str| self.abs.iter().any(|a| a.name == n);
        has("ABS_MT_POSITION_X")
            && has("ABS_MT_POSITION_Y")
            && self.input_props.iter().any(|p| p == "INPUT_PROP_DIRECT")
    }

    pub fn axis(&self, name: &str) -> Option<&AbsAxis> {
        self.abs.iter().find(|a| a.name == name)
    }
}

fn axis(name_part: &str, values: &str) -> Option<AbsAxis> {
    let raw = name_part.trim();
    let (name, code) = match u16::from_str_radix(raw, 16) {
        Ok(c) if raw.len() == 4 => (
            codes::abs_name(c).map_or(raw.to_string(), str::to_string),
            Some(c),
        ),
        _ => (raw.to_string(), codes::abs_code(raw)),
    };
    let num = |key: &str| -> Option<i32> {
        values
            .split(',')
            .find_map(|p| p.trim().strip_prefix(key)?.trim().parse().ok())
    };
    Some(AbsAxis {
        name,
        code,
        value: num("value").unwrap_or(0),
        min: num("min")?,
        max: num("max")?,
        fuzz: num("fuzz").unwrap_or(0),
        flat: num("flat").unwrap_or(0),
        resolution: num("resolution").unwrap_or(0),
    })
}

pub fn parse_devices(text: &str) -> Vec<InputDevice> {
    let mut out: Vec<InputDevice> = Vec::new();
    let mut in_props = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("add device ") {
            let path = rest.split_once(": ").map_or(rest, |(_, p)| p).trim();
            out.push(InputDevice {
                path: path.to_string(),
                ..Default::default()
            });
            in_props = false;
            continue;
        }
        let Some(dev) = out.last_mut() else { continue };
        if let Some(n) = t.strip_prefix("name:") {
            dev.name = Some(n.trim().trim_matches('"').to_string());
        } else if t == "events:" {
            in_props = false;
        } else if t == "input props:" {
            in_props = true;
        } else if in_props {
            if t != "<none>" && !t.is_empty() {
                dev.input_props.push(t.to_string());
            }
        } else if let Some((head, rest)) = t.split_once("):").filter(|(h, _)| h.contains(" (")) {
            // `KEY (0001): KEY_VOLUMEDOWN KEY_VOLUMEUP` or `ABS (0003): ABS_X : value 0, ...`
            let (name, ty) = head.split_once(" (").unwrap_or((head, ""));
            dev.events.push(EventType {
                name: name.trim().to_string(),
                r#type: u16::from_str_radix(ty.trim(), 16).ok(),
                codes: Vec::new(),
            });
            event_codes(dev, rest);
        } else if !dev.events.is_empty() && !t.contains(':') || t.contains(": value") {
            event_codes(dev, t);
        }
    }
    out
}

fn event_codes(dev: &mut InputDevice, rest: &str) {
    if let Some((name, values)) = rest.split_once(" : ").or_else(|| rest.split_once(": ")) {
        if let Some(a) = axis(name, values) {
            if let Some(ev) = dev.events.last_mut() {
                ev.codes.push(a.name.clone());
            }
            dev.abs.push(a);
        }
        return;
    }
    if let Some(ev) = dev.events.last_mut() {
        ev.codes.extend(rest.split_whitespace().map(str::to_string));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn chiron_devices() {
        let devs = parse_devices(&fixture("misc/getevent-pl-mi-mix2-chiron.txt"));
        assert_eq!(devs.len(), 7);
        assert_eq!(devs[0].path, "/dev/input/event6");
        assert_eq!(
            devs[0].name.as_deref(),
            Some("msm8998-tasha-snd-card Button Jack")
        );
        let keys = &devs[0].events[0];
        assert_eq!((keys.name.as_str(), keys.r#type), ("KEY", Some(1)));
        assert_eq!(
            keys.codes,
            vec![
                "KEY_VOLUMEDOWN",
                "KEY_VOLUMEUP",
                "KEY_MEDIA",
                "BTN_3",
                "BTN_4",
                "BTN_5"
            ]
        );
        assert_eq!(devs[0].input_props, vec!["INPUT_PROP_ACCELEROMETER"]);
        assert!(devs[1].input_props.is_empty(), "<none> is not a property");
        assert_eq!(devs[1].events[0].codes.len(), 8);
        assert_eq!(devs[4].events.len(), 2, "gpio-keys has KEY and SW");

        let touch: Vec<&InputDevice> = devs.iter().filter(|d| d.is_touchscreen()).collect();
        assert_eq!(touch.len(), 1);
        let t = touch[0];
        assert_eq!(
            (t.path.as_str(), t.name.as_deref()),
            ("/dev/input/event1", Some("synaptics_dsx"))
        );
        assert_eq!(t.abs.len(), 8);
        let x = t.axis("ABS_MT_POSITION_X").unwrap();
        assert_eq!(
            (x.min, x.max, x.code),
            (0, 1079, Some(codes::ABS_MT_POSITION_X))
        );
        assert_eq!(t.axis("ABS_MT_POSITION_Y").unwrap().max, 2159);
        assert_eq!(t.axis("ABS_MT_SLOT").unwrap().max, 9);
        assert_eq!(t.axis("ABS_MT_TRACKING_ID").unwrap().max, 65535);
        assert!(t.events[0].codes.contains(&"BTN_TOUCH".to_string()));
    }

    #[test]
    fn hex_codes_without_l_and_constants() {
        let text = "add device 1: /dev/input/event2\n  name:     \"touch\"\n  events:\n    \
                    ABS (0003): 0035  : value 0, min 0, max 1439, fuzz 0, flat 0, resolution 0\n                \
                    0036  : value 0, min 0, max 3119, fuzz 0, flat 0, resolution 0\n  input props:\n    \
                    INPUT_PROP_DIRECT\n";
        let d = &parse_devices(text)[0];
        assert!(d.is_touchscreen());
        assert_eq!(d.axis("ABS_MT_POSITION_Y").unwrap().max, 3119);
        assert_eq!(codes::ABS_MT_TRACKING_ID, 0x39);
        assert_eq!(codes::BTN_TOUCH, 0x14a);
        assert_eq!(codes::abs_code("ABS_MT_PRESSURE"), Some(0x3a));
        assert!(parse_devices("could not open /dev/input").is_empty());
    }
}
