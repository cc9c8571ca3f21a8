//! `wm size` and `wm density`: the physical value, the override a user or test set with
//! `wm size 720x1280`, and the one in effect (the override when there is one).
//!
//! No real capture with provenance exists (SOURCES.md, "Looked for, not found"); the
//! samples in the tests follow WindowManagerShellCommand's `Physical size: %dx%d` /
//! `Override size: %dx%d` / `Physical density: %d` / `Override density: %d` lines exactly.
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenSize {
    pub physical: Option<Size>,
    pub r#override: Option<Size>,
    /// What apps see: the override if set, else the physical size.
    pub effective: Option<Size>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScreenDensity {
    pub physical: Option<u32>,
    pub r#override: Option<u32>,
    pub effective: Option<u32>,
}

fn field<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .map(str::trim)
}

fn size(s: &str) -> Option<Size> {
    let (w, h) = s.split_once('x')?;
    Some(Size {
        width: w.trim().parse().ok()?,
        height: h.trim().parse().ok()?,
    })
}

pub fn parse_size(text: &str) -> ScreenSize {
    let physical = field(text, "Physical size:").and_then(size);
    let r#override = field(text, "Override size:").and_then(size);
    ScreenSize {
        physical,
        r#override,
        effective: r#override.or(physical),
    }
}

pub fn parse_density(text: &str) -> ScreenDensity {
    let physical = field(text, "Physical density:").and_then(|s| s.parse().ok());
    let r#override = field(text, "Override density:").and_then(|s| s.parse().ok());
    ScreenDensity {
        physical,
        r#override,
        effective: r#override.or(physical),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_physical_only_and_override() {
        let s = parse_size("Physical size: 1080x2400\n");
        assert_eq!(
            s.physical,
            Some(Size {
                width: 1080,
                height: 2400
            })
        );
        assert_eq!(s.effective, s.physical);
        assert_eq!(s.r#override, None);
        let s = parse_size("Physical size: 1080x2400\nOverride size: 720x1600\n");
        assert_eq!(
            s.effective,
            Some(Size {
                width: 720,
                height: 1600
            })
        );
        assert_eq!(s.physical.map(|p| p.width), Some(1080));
        let json = serde_json::to_value(s).unwrap();
        assert_eq!(json["override"]["width"], 720);
    }

    #[test]
    fn density_and_garbage() {
        let d = parse_density("Physical density: 420\r\nOverride density: 320\r\n");
        assert_eq!(
            (d.physical, d.r#override, d.effective),
            (Some(420), Some(320), Some(320))
        );
        let d = parse_density("/system/bin/sh: wm: inaccessible or not found");
        assert_eq!(d.effective, None);
        assert_eq!(parse_size("Physical size: axb").physical, None);
    }
}
