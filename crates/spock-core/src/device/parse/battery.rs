//! `dumpsys battery`: level, charging status and source, health, temperature, voltage.
//!
//! Status and health are printed as BatteryManager's integer constants; they are turned into
//! words here because an agent should not need the constant table.
use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Battery {
    pub level: Option<u32>,
    pub scale: Option<u32>,
    /// Level as a percentage of scale.
    pub percent: Option<u32>,
    /// charging / discharging / not charging / full / unknown.
    pub status: Option<String>,
    /// ac / usb / wireless / dock / none.
    pub plugged: Option<String>,
    /// good / overheat / dead / over voltage / unspecified failure / cold / unknown.
    pub health: Option<String>,
    /// Degrees Celsius (printed in tenths).
    pub temperature_c: Option<f64>,
    pub voltage_mv: Option<u32>,
    pub technology: Option<String>,
    pub present: Option<bool>,
    /// True when `dumpsys battery set ...` froze the values ("UPDATES STOPPED").
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub simulated: bool,
}

// BatteryManager.BATTERY_STATUS_*
fn status_word(code: i64) -> &'static str {
    match code {
        2 => "charging",
        3 => "discharging",
        4 => "not charging",
        5 => "full",
        _ => "unknown",
    }
}

// BatteryManager.BATTERY_HEALTH_*
fn health_word(code: i64) -> &'static str {
    match code {
        2 => "good",
        3 => "overheat",
        4 => "dead",
        5 => "over voltage",
        6 => "unspecified failure",
        7 => "cold",
        _ => "unknown",
    }
}

pub fn parse(text: &str) -> Battery {
    let mut b = Battery::default();
    let mut powered: Vec<&'static str> = Vec::new();
    let mut saw_powered = false;
    for line in text.lines() {
        if line.contains("UPDATES STOPPED") {
            b.simulated = true;
        }
        let Some((key, value)) = line.trim().split_once(':') else {
            continue;
        };
        let value = value.trim();
        let num = value.parse::<i64>().ok();
        let unsigned = num.and_then(|n| u32::try_from(n).ok());
        match key {
            "level" => b.level = unsigned,
            "scale" => b.scale = unsigned,
            "status" => b.status = num.map(|n| status_word(n).to_string()),
            "health" => b.health = num.map(|n| health_word(n).to_string()),
            "temperature" => b.temperature_c = num.map(|n| n as f64 / 10.0),
            "voltage" => b.voltage_mv = unsigned,
            "technology" if !value.is_empty() => b.technology = Some(value.to_string()),
            "present" => b.present = value.parse().ok(),
            "AC powered" | "USB powered" | "Wireless powered" | "Dock powered" => {
                saw_powered = true;
                if value == "true" {
                    powered.push(match key {
                        "AC powered" => "ac",
                        "USB powered" => "usb",
                        "Wireless powered" => "wireless",
                        _ => "dock",
                    });
                }
            }
            _ => {}
        }
    }
    if saw_powered {
        b.plugged = Some(if powered.is_empty() {
            "none".into()
        } else {
            powered.join("+")
        });
    }
    b.percent = match (b.level, b.scale) {
        (Some(l), Some(s)) if s > 0 => Some(l.saturating_mul(100) / s),
        (Some(l), None) => Some(l),
        _ => None,
    };
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn emulator_battery() {
        let b = parse(&fixture("dumpsys/battery.txt"));
        assert_eq!(b.level, Some(100));
        assert_eq!(b.scale, Some(100));
        assert_eq!(b.percent, Some(100));
        assert_eq!(b.status.as_deref(), Some("charging"));
        assert_eq!(b.plugged.as_deref(), Some("ac"));
        assert_eq!(b.health.as_deref(), Some("good"));
        assert_eq!(b.temperature_c, Some(25.0));
        // "voltage: 5000" is the real field; "Max charging voltage: 5000000" must not win.
        assert_eq!(b.voltage_mv, Some(5000));
        assert_eq!(b.technology.as_deref(), Some("Li-ion"));
        assert_eq!(b.present, Some(true));
        assert!(!b.simulated);
        let json = serde_json::to_value(&b).unwrap();
        assert_eq!(json["temperatureC"], 25.0);
        assert!(json.get("simulated").is_none());
    }

    #[test]
    fn unplugged_discharging_and_frozen() {
        let text = "Current Battery Service state:\n  (UPDATES STOPPED -- use 'reset' to restart)\n  \
                    AC powered: false\n  USB powered: false\n  Wireless powered: false\n  \
                    status: 3\n  health: 7\n  level: 41\n  scale: 200\n  temperature: -15\n";
        let b = parse(text);
        assert_eq!(b.plugged.as_deref(), Some("none"));
        assert_eq!(b.status.as_deref(), Some("discharging"));
        assert_eq!(b.health.as_deref(), Some("cold"));
        assert_eq!(b.percent, Some(20));
        assert_eq!(b.temperature_c, Some(-1.5));
        assert!(b.simulated);
        assert_eq!(parse("Can't find service: battery"), Battery::default());
    }
}
