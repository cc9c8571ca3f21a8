//! The display's rotation and what follows from it: the size apps and `screencap` see, how a
//! point on the (unrotated) touch panel lands on the rotated screen, and how the screen's
//! layout is stretched from the scenario's upright one.
//!
//! Rotation follows AOSP: with `accelerometer_rotation` 0 the display takes `user_rotation`
//! (`Settings.System`, 0..=3 = `Surface.ROTATION_0..270`), which is what `wm user-rotation lock
//! N` writes (WindowManagerShellCommand.runDisplayUserRotation →
//! `freezeDisplayRotation`, aosp-mirror/platform_frameworks_base
//! services/core/java/com/android/server/wm/WindowManagerShellCommand.java @6319db42).
//! The virtual device has no accelerometer, so auto-rotate keeps it upright (rotation 0).
//!
//! The touch panel does not turn with the display: `TouchInputMapper::rotateAndScale` maps raw
//! panel coordinates into the rotated surface ("90 - swap x/y and reverse y", "270 - swap x/y
//! and reverse x"; AOSP frameworks/native services/inputflinger/reader/mapper/
//! TouchInputMapper.cpp, as vendored in nohajc/vendor-adb-patched @7f722c8d).
//!
//! Scenario screens are laid out upright; in landscape the same layout is stretched to the
//! turned screen (every bound scaled), so a dump's bounds, a screenshot and a tap agree.
use super::ui::UiTree;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// Natural (upright) width and height in pixels, as `wm size` prints them.
    pub natural: (u32, u32),
    /// 0..=3: `Surface.ROTATION_0`, `_90`, `_180`, `_270`.
    pub rotation: u8,
}

impl Display {
    pub fn turned(&self) -> bool {
        self.rotation % 2 == 1
    }

    /// Width and height in the current orientation (what screencap and apps see).
    pub fn size(&self) -> (u32, u32) {
        let (w, h) = self.natural;
        if self.turned() { (h, w) } else { (w, h) }
    }

    /// A point on the panel, already scaled to natural pixels, on the rotated screen
    /// (`TouchInputMapper::rotateAndScale`).
    pub fn panel_to_screen(&self, (x, y): (f32, f32)) -> (f32, f32) {
        let w = self.natural.0.saturating_sub(1) as f32;
        let h = self.natural.1.saturating_sub(1) as f32;
        match self.rotation {
            1 => (y, w - x),
            2 => (w - x, h - y),
            3 => (h - y, x),
            _ => (x, y),
        }
    }

    /// A screen point in the upright layout the scenario describes.
    pub fn screen_to_layout(&self, x: i32, y: i32) -> (i32, i32) {
        if !self.turned() {
            return (x, y);
        }
        let (w, h) = (i64::from(self.natural.0), i64::from(self.natural.1));
        let (x, y) = (i64::from(x), i64::from(y));
        ((x * w / h.max(1)) as i32, (y * h / w.max(1)) as i32)
    }

    fn layout_to_screen(&self, x: i32, y: i32) -> (i32, i32) {
        if !self.turned() {
            return (x, y);
        }
        let (w, h) = (i64::from(self.natural.0), i64::from(self.natural.1));
        let (x, y) = (i64::from(x), i64::from(y));
        ((x * h / w.max(1)) as i32, (y * w / h.max(1)) as i32)
    }

    /// The uiautomator dump as it reads in this orientation: `rotation="N"` on `<hierarchy>`
    /// and every `bounds` stretched to the turned screen.
    pub fn dump_xml(&self, xml: &str) -> String {
        let xml = xml.replacen(
            "<hierarchy rotation=\"0\"",
            &format!("<hierarchy rotation=\"{}\"", self.rotation),
            1,
        );
        if !self.turned() {
            return xml;
        }
        let mut out = String::with_capacity(xml.len());
        let mut rest = xml.as_str();
        while let Some(i) = rest.find("bounds=\"") {
            let start = i + "bounds=\"".len();
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let end = rest.find('"').unwrap_or(rest.len());
            let b = &rest[..end];
            match super::ui::Bounds::parse(b) {
                Some(b) => {
                    let (l, t) = self.layout_to_screen(b.left, b.top);
                    let (r, bt) = self.layout_to_screen(b.right, b.bottom);
                    out.push_str(&format!("[{l},{t}][{r},{bt}]"));
                }
                None => out.push_str(b),
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    /// The tree a screenshot draws: the dump's, in this orientation.
    pub fn screen_tree(&self, ui: &UiTree) -> UiTree {
        if self.rotation == 0 {
            return ui.clone();
        }
        UiTree::parse(&self.dump_xml(ui.xml())).unwrap_or_else(|_| ui.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PHONE: (u32, u32) = (1080, 2400);

    #[test]
    fn panel_corners_follow_aosp_rotation() {
        // Rotation 1 (90°): the panel's top-left corner is the screen's bottom-left.
        let d = Display {
            natural: PHONE,
            rotation: 1,
        };
        assert_eq!(d.size(), (2400, 1080));
        assert_eq!(d.panel_to_screen((0.0, 0.0)), (0.0, 1079.0));
        assert_eq!(d.panel_to_screen((1079.0, 2399.0)), (2399.0, 0.0));
        // Rotation 3 (270°): the panel's top-left corner is the screen's top-right.
        let d = Display {
            natural: PHONE,
            rotation: 3,
        };
        assert_eq!(d.panel_to_screen((0.0, 0.0)), (2399.0, 0.0));
        let d = Display {
            natural: PHONE,
            rotation: 2,
        };
        assert_eq!(d.size(), PHONE);
        assert_eq!(d.panel_to_screen((0.0, 0.0)), (1079.0, 2399.0));
    }

    #[test]
    fn dump_bounds_stretch_and_taps_land_back() {
        let d = Display {
            natural: PHONE,
            rotation: 1,
        };
        let xml = "<hierarchy rotation=\"0\"><node text=\"Go\" bounds=\"[0,1200][540,2400]\"/></hierarchy>";
        let out = d.dump_xml(xml);
        assert!(out.contains("rotation=\"1\""), "{out}");
        assert!(out.contains("bounds=\"[0,540][1200,1080]\""), "{out}");
        // The centre of the turned bounds is inside the upright ones.
        let (x, y) = d.screen_to_layout(600, 810);
        assert!(
            (0..540).contains(&x) && (1200..2400).contains(&y),
            "{x},{y}"
        );
    }
}
