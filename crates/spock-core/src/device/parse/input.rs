//! `dumpsys input`: the display rotation the touchscreen is mapped with.
//!
//! `TouchInputMapper::dumpSurface` prints the viewport (`DisplayViewport::toString`:
//! `Viewport INTERNAL: displayId=0, …, orientation=1, logicalFrame=[…]`) and, up to Android 12,
//! `SurfaceOrientation: 1` (AOSP frameworks/native
//! services/inputflinger/reader/mapper/TouchInputMapper.cpp, as vendored in
//! nohajc/vendor-adb-patched @7f722c8d). Newer releases print the rotation as `ROTATION_90`,
//! or as `ui::Rotation`'s own name (`InputDeviceOrientation: Rotation0` on a vivo tablet,
//! tests/fixtures/public/dumpsys_input/); every spelling is read, and degrees too.

/// The rotation (0..=3, `Surface.ROTATION_0..270`) of the first touchscreen's display, or
/// `None` when the dump does not say.
pub fn touch_rotation(text: &str) -> Option<u8> {
    let value = |v: &str| -> Option<u8> {
        let v = v
            .trim()
            .trim_end_matches(',')
            .trim_start_matches("ROTATION_")
            .trim_start_matches("Rotation")
            .trim_start_matches("DISPLAY_ORIENTATION_");
        match v {
            "0" => Some(0),
            "1" | "90" => Some(1),
            "2" | "180" => Some(2),
            "3" | "270" => Some(3),
            _ => None,
        }
    };
    for line in text.lines() {
        let l = line.trim();
        if let Some(v) = l
            .strip_prefix("SurfaceOrientation:")
            .or_else(|| l.strip_prefix("InputDeviceOrientation:"))
        {
            return value(v);
        }
        if l.starts_with("Viewport INTERNAL:")
            && let Some(rest) = l.split(", ").find_map(|f| f.strip_prefix("orientation="))
        {
            return value(rest);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_spelling() {
        assert_eq!(touch_rotation("      SurfaceOrientation: 3\n"), Some(3));
        let vp = "      Viewport INTERNAL: displayId=0, uniqueId=local:1, port=129, orientation=1, logicalFrame=[0, 0, 2400, 1080], isActive=[1]\n";
        assert_eq!(touch_rotation(vp), Some(1));
        let vp14 = vp.replace("orientation=1", "orientation=ROTATION_270");
        assert_eq!(touch_rotation(&vp14), Some(3));
        assert_eq!(
            touch_rotation("Input Manager State:\n  Interactive: true\n"),
            None
        );
        assert_eq!(touch_rotation("      SurfaceOrientation: 7\n"), None);
    }
}
