//! `screencap`: draws the current UI tree as pixels, so a screenshot shows what the dump says.
//!
//! Every node's bounds become a rectangle (clickable nodes tinted, text fields boxed), and its
//! text (or content-desc, dimmer) is drawn with the `font8x8` bitmap font scaled up. The same
//! pixels serve `screencap -p` (PNG) and the `framebuffer:` service (RGBA).
use font8x8::UnicodeFonts;
use image::{ImageEncoder, Rgba, RgbaImage};

use super::device::ui::{Bounds, UiTree};

const BACKGROUND: Rgba<u8> = Rgba([250, 250, 250, 255]);
const BORDER: Rgba<u8> = Rgba([200, 200, 205, 255]);
const CLICKABLE: Rgba<u8> = Rgba([227, 236, 250, 255]);
const FIELD: Rgba<u8> = Rgba([255, 255, 255, 255]);
const FIELD_BORDER: Rgba<u8> = Rgba([90, 100, 120, 255]);
const FOCUSED_BORDER: Rgba<u8> = Rgba([26, 115, 232, 255]);
const TEXT: Rgba<u8> = Rgba([32, 33, 36, 255]);
const DESC: Rgba<u8> = Rgba([110, 112, 120, 255]);

fn clip(b: &Bounds, w: u32, h: u32) -> Option<(u32, u32, u32, u32)> {
    let l = b.left.clamp(0, w as i32) as u32;
    let t = b.top.clamp(0, h as i32) as u32;
    let r = b.right.clamp(0, w as i32) as u32;
    let bt = b.bottom.clamp(0, h as i32) as u32;
    (r > l && bt > t).then_some((l, t, r, bt))
}

fn fill(img: &mut RgbaImage, (l, t, r, b): (u32, u32, u32, u32), c: Rgba<u8>) {
    for y in t..b {
        for x in l..r {
            img.put_pixel(x, y, c);
        }
    }
}

fn outline(img: &mut RgbaImage, (l, t, r, b): (u32, u32, u32, u32), c: Rgba<u8>, width: u32) {
    let width = width.min((r - l) / 2).min((b - t) / 2).max(1);
    fill(img, (l, t, r, (t + width).min(b)), c);
    fill(img, (l, b.saturating_sub(width).max(t), r, b), c);
    fill(img, (l, t, (l + width).min(r), b), c);
    fill(img, (r.saturating_sub(width).max(l), t, r, b), c);
}

fn glyph(c: char) -> [u8; 8] {
    // Password fields show bullets; the basic font has none, '*' reads the same.
    let c = if c == '•' { '*' } else { c };
    font8x8::BASIC_FONTS
        .get(c)
        .or_else(|| font8x8::LATIN_FONTS.get(c))
        .or_else(|| font8x8::GREEK_FONTS.get(c))
        .or_else(|| font8x8::BOX_FONTS.get(c))
        .or_else(|| font8x8::BASIC_FONTS.get('?'))
        .unwrap_or([0; 8])
}

/// Draws `text` inside `area`, one line, scaled to fit the height and clipped to the area.
fn draw_text(img: &mut RgbaImage, area: (u32, u32, u32, u32), text: &str, c: Rgba<u8>) {
    let (l, t, r, b) = area;
    let h = b - t;
    let scale = (h.saturating_sub(8) / 8).clamp(1, 4);
    let glyph_h = 8 * scale;
    let y0 = t + h.saturating_sub(glyph_h) / 2;
    let mut x0 = l + 8.min((r - l) / 4);
    for ch in text.chars() {
        if x0 + 8 * scale > r {
            break;
        }
        let g = glyph(ch);
        for (row, bits) in g.iter().enumerate() {
            for col in 0..8u32 {
                if bits & (1 << col) != 0 {
                    let px = x0 + col * scale;
                    let py = y0 + row as u32 * scale;
                    fill(img, (px, py, (px + scale).min(r), (py + scale).min(b)), c);
                }
            }
        }
        x0 += 8 * scale;
    }
}

/// Renders the tree at the device's resolution.
pub fn render(ui: &UiTree, width: u32, height: u32) -> RgbaImage {
    let mut img = RgbaImage::from_pixel(width.max(1), height.max(1), BACKGROUND);
    for n in ui.nodes() {
        let Some(area) = clip(&n.bounds, width, height) else {
            continue;
        };
        if n.is_editable() {
            fill(&mut img, area, FIELD);
            let border = if n.focused {
                FOCUSED_BORDER
            } else {
                FIELD_BORDER
            };
            outline(&mut img, area, border, 3);
        } else if n.clickable {
            fill(&mut img, area, CLICKABLE);
            outline(&mut img, area, BORDER, 2);
        } else {
            outline(&mut img, area, BORDER, 1);
        }
        if !n.text.is_empty() {
            draw_text(&mut img, area, &n.text, TEXT);
        } else if !n.content_desc.is_empty() {
            draw_text(&mut img, area, &n.content_desc, DESC);
        }
    }
    img
}

/// PNG bytes of [`render`], as `screencap -p` writes them.
pub fn png(ui: &UiTree, width: u32, height: u32) -> Vec<u8> {
    png_of(&render(ui, width, height))
}

/// An opaque black frame: what a phone's `screencap` shows with the screen off, or of a window
/// that forbids screenshots.
pub fn black(width: u32, height: u32) -> RgbaImage {
    RgbaImage::from_pixel(width.max(1), height.max(1), Rgba([0, 0, 0, 255]))
}

/// PNG bytes of `img`, as `screencap -p` writes them.
pub fn png_of(img: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    let enc = image::codecs::png::PngEncoder::new_with_quality(
        &mut out,
        image::codecs::png::CompressionType::Fast,
        image::codecs::png::FilterType::Sub,
    );
    // Writing into a Vec cannot fail for a well-formed RGBA buffer of the stated size.
    if enc
        .write_image(
            img.as_raw(),
            img.width(),
            img.height(),
            image::ExtendedColorType::Rgba8,
        )
        .is_err()
    {
        out.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_text_pixels_inside_node() {
        let xml = "<hierarchy rotation=\"0\"><node text=\"Hi\" class=\"android.widget.TextView\" clickable=\"true\" bounds=\"[0,0][200,60]\"/></hierarchy>";
        let ui = UiTree::parse(xml).unwrap();
        let img = render(&ui, 300, 100);
        let dark = img.pixels().filter(|p| p.0 == TEXT.0).count();
        assert!(dark > 50, "text drawn: {dark}");
        assert_eq!(img.get_pixel(250, 80).0, BACKGROUND.0);
        let bytes = png(&ui, 300, 100);
        let back = image::load_from_memory(&bytes).unwrap();
        assert_eq!((back.width(), back.height()), (300, 100));
    }
}
