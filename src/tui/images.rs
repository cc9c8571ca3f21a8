//! A call's images: described as size and dimensions instead of being drawn as a wall of
//! base64, and kept for saving.
//!
//! They come two ways: typed, beside the JSON (`CallFinished`'s `images`, what a tool such as
//! `android_take_screenshot` returns as MCP image content), and embedded in the JSON, as any
//! object shaped like MCP image content: `"type": "image"`, base64 `"data"` and an `image/*`
//! `"mimeType"`. [`of_call`] gathers both.
use std::sync::Arc;

use base64::Engine as _;
use serde_json::Value;

use crate::mcp::events::CallImage;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundImage {
    pub mime: String,
    /// Shared with the history record it came from: details redraw without copying it.
    pub bytes: Arc<[u8]>,
    /// Read from the image header; `None` when the bytes do not decode.
    pub dimensions: Option<(u32, u32)>,
}

impl FoundImage {
    pub fn new(mime: impl Into<String>, bytes: Arc<[u8]>) -> FoundImage {
        FoundImage {
            mime: mime.into(),
            dimensions: dimensions(&bytes),
            bytes,
        }
    }

    pub fn summary(&self) -> String {
        let dims = self
            .dimensions
            .map_or_else(|| "undecodable".to_string(), |(w, h)| format!("{w}×{h}"));
        format!("<{} {} {dims}>", self.mime, human_size(self.bytes.len()))
    }

    pub fn extension(&self) -> &'static str {
        match self.mime.as_str() {
            "image/png" => "png",
            "image/jpeg" | "image/jpg" => "jpg",
            "image/webp" => "webp",
            "image/gif" => "gif",
            _ => "bin",
        }
    }
}

/// Write `images` to `dir` (created private) as `stem-1.png`, …; the line for the footer.
/// Blocking: run it off the loop.
pub fn save(dir: &std::path::Path, stem: &str, images: &[FoundImage]) -> String {
    if let Err(e) = crate::config::paths::private_dir(dir) {
        return format!("cannot create {}: {e}", dir.display());
    }
    let safe: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut saved = Vec::new();
    for (i, img) in images.iter().enumerate() {
        let path = dir.join(format!("{safe}-{}.{}", i + 1, img.extension()));
        match crate::config::paths::write_atomic(&path, &img.bytes) {
            Ok(()) => saved.push(path.display().to_string()),
            Err(e) => return format!("cannot write {}: {e}", path.display()),
        }
    }
    format!("saved {}", saved.join(", "))
}

pub fn human_size(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    }
}

fn as_image(obj: &serde_json::Map<String, Value>) -> Option<(&str, &str)> {
    let mime = obj.get("mimeType").and_then(Value::as_str)?;
    let data = obj.get("data").and_then(Value::as_str)?;
    let typed = obj.get("type").and_then(Value::as_str) == Some("image");
    (typed && mime.starts_with("image/")).then_some((mime, data))
}

fn dimensions(bytes: &[u8]) -> Option<(u32, u32)> {
    // `image` is built for PNG only; screenshots default to JPEG, whose header is read here.
    if let Some(d) = jpeg_dimensions(bytes) {
        return Some(d);
    }
    image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

/// Width and height from a JPEG's start-of-frame header (baseline, progressive or any other
/// SOFn), walking the marker segments that come before it.
fn jpeg_dimensions(j: &[u8]) -> Option<(u32, u32)> {
    if !j.starts_with(&[0xFF, 0xD8]) {
        return None;
    }
    let mut i = 2;
    loop {
        if *j.get(i)? != 0xFF {
            return None;
        }
        let marker = *j.get(i + 1)?;
        match marker {
            // Fill bytes before a marker.
            0xFF => i += 1,
            // Markers without a length: TEM, RSTn.
            0x01 | 0xD0..=0xD7 => i += 2,
            // End of image or start of scan before any frame header: no dimensions.
            0xD9 | 0xDA => return None,
            _ => {
                let len = usize::from(u16::from_be_bytes([*j.get(i + 2)?, *j.get(i + 3)?]));
                // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC).
                if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                    let h = u16::from_be_bytes([*j.get(i + 5)?, *j.get(i + 6)?]);
                    let w = u16::from_be_bytes([*j.get(i + 7)?, *j.get(i + 8)?]);
                    return (w > 0 && h > 0).then_some((u32::from(w), u32::from(h)));
                }
                if len < 2 {
                    return None;
                }
                i += 2 + len;
            }
        }
    }
}

fn walk<'a>(v: &'a Value, out: &mut Vec<(&'a str, &'a str)>) {
    match v {
        Value::Object(o) => {
            if let Some(img) = as_image(o) {
                out.push(img);
                return;
            }
            o.values().for_each(|x| walk(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
        _ => {}
    }
}

/// Every image in `v`, decoded, in document order.
pub fn find(v: &Value) -> Vec<FoundImage> {
    let mut raw = Vec::new();
    walk(v, &mut raw);
    let b64 = base64::engine::general_purpose::STANDARD;
    raw.into_iter()
        .map(|(mime, data)| {
            FoundImage::new(mime, b64.decode(data.as_bytes()).unwrap_or_default().into())
        })
        .collect()
}

/// Every image of a finished call: those the tool returned beside its JSON, then those the
/// JSON itself embeds.
pub fn of_call(images: &[CallImage], result: &Value) -> Vec<FoundImage> {
    images
        .iter()
        .map(|i| FoundImage::new(i.mime.as_str(), i.data.clone()))
        .chain(find(result))
        .collect()
}

/// `v` with each image's base64 replaced by its summary, for display.
pub fn summarised(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            if let Some((mime, data)) = as_image(o) {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data.as_bytes())
                    .unwrap_or_default();
                let img = FoundImage::new(mime, bytes.into());
                let mut o = o.clone();
                o.insert("data".into(), Value::String(img.summary()));
                return Value::Object(o);
            }
            Value::Object(o.iter().map(|(k, x)| (k.clone(), summarised(x))).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(summarised).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    pub fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::new(w, h);
        let mut out = Vec::new();
        img.write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn finds_and_describes_images() {
        let data = base64::engine::general_purpose::STANDARD.encode(png(12, 34));
        let v =
            json!({"content": [{"type": "image", "mimeType": "image/png", "data": data}], "n": 1});
        let found = find(&v);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].dimensions, Some((12, 34)));
        assert_eq!(found[0].extension(), "png");
        let s = summarised(&v).to_string();
        assert!(s.contains("<image/png") && s.contains("12×34>"), "{s}");
        assert!(!s.contains(&data));
    }

    fn jpeg(w: u16, h: u16) -> Vec<u8> {
        let mut out = Vec::new();
        let pixels = vec![128u8; usize::from(w) * usize::from(h) * 3];
        jpeg_encoder::Encoder::new(&mut out, 80)
            .encode(&pixels, w, h, jpeg_encoder::ColorType::Rgb)
            .unwrap();
        out
    }

    #[test]
    fn a_jpeg_shows_its_dimensions() {
        let data = base64::engine::general_purpose::STANDARD.encode(jpeg(576, 1280));
        let v = json!({"type": "image", "mimeType": "image/jpeg", "data": data});
        let found = find(&v);
        assert_eq!(found[0].dimensions, Some((576, 1280)));
        assert_eq!(found[0].extension(), "jpg");
        let s = summarised(&v).to_string();
        assert!(s.contains("576×1280>"), "{s}");
        assert!(!s.contains("undecodable"), "{s}");
        // A progressive frame header is read the same way.
        let mut progressive = jpeg(3, 2);
        let at = progressive
            .windows(2)
            .position(|w| w == [0xFF, 0xC0])
            .unwrap();
        progressive[at + 1] = 0xC2;
        assert_eq!(jpeg_dimensions(&progressive), Some((3, 2)));
        // Cut short, or not a JPEG: no dimensions and no panic.
        assert_eq!(jpeg_dimensions(&progressive[..at + 4]), None);
        assert_eq!(jpeg_dimensions(&[0xFF, 0xD8, 0xFF]), None);
        assert_eq!(jpeg_dimensions(&png(2, 2)), None);
    }

    #[test]
    fn garbage_is_not_a_panic() {
        let v = json!({"type": "image", "mimeType": "image/png", "data": "!!!not base64"});
        let f = find(&v);
        assert_eq!(f[0].dimensions, None);
        assert!(f[0].summary().contains("undecodable"));
        assert!(find(&json!({"type": "text", "data": "x"})).is_empty());
    }
}
