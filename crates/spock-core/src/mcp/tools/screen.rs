//! Screenshots as MCP image content, with the scale back to screen coordinates stated so a tap
//! computed from the image lands right.
//!
//! The device is asked for a raw frame (`screencap` over `exec:`, binary-exact; read in
//! [`raw`]) and the host downscales and encodes it: a phone spends most of `screencap -p`
//! encoding a PNG (published medians ~1.5–2.1 s against 675 ms raw, BENCHMARKS.md §10), and the
//! host had to decode that PNG again before it could scale it. A device that answers a PNG
//! sooner (a virtual device or emulator on the same host, where 10 MB of raw pixels through adb
//! cost more than the encoding) is asked for PNGs instead, once it showed it
//! (`device::screencap_format`). A pixel format the reader does not know is asked for again as a PNG,
//! once. A full-size PNG (`maxSize: 0`) is still asked for as `-p` and passed on as the device
//! sent it (see [`wants_raw`]). Conversions run off the async runtime, at most one per core
//! (`imagework`).
use std::io::Cursor;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages};
use crate::mcp::result::{Image, ToolError};
use crate::mcp::toolsets::Toolset;
use crate::uitree::UiTree;

mod raw;

/// Longest side by default: small enough for every client's message limits, large enough to
/// read text.
pub const DEFAULT_MAX: u32 = 1280;
const RAW_CAP: usize = 64 << 20;
/// The last chunk of every complete PNG: length 0, `IEND`, its CRC.
const PNG_IEND: [u8; 12] = [0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82];

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Jpeg,
    Png,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ShotArgs {
    pub serial: Option<String>,
    /// Longest side of the returned image in pixels (default 1280; 0 keeps the device's size).
    pub max_size: Option<u32>,
    /// jpeg (default, smaller) or png (lossless).
    pub format: Option<Format>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShotInfo {
    pub serial: String,
    pub format: String,
    pub width: u32,
    pub height: u32,
    pub screen_width: u32,
    pub screen_height: u32,
    /// Multiply image coordinates by this to get screen coordinates for android_tap.
    pub scale_to_screen: f64,
    pub bytes: usize,
    /// How many regions were blacked out because a redaction rule hides their text from
    /// the agent (the control centre's copy stays whole).
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden_regions: usize,
    /// Set when the frame came back black: the screen off, or a window that forbids
    /// screenshots (FLAG_SECURE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, thiserror::Error)]
enum ImgError {
    #[error(
        "the device's screencap output is not a PNG ({0}); the screen may be protected (FLAG_SECURE) or locked"
    )]
    Decode(String),
    #[error("the device's raw screencap output is not a whole frame ({0})")]
    Raw(raw::RawError),
    #[error("could not encode the screenshot: {0}")]
    Encode(String),
}

/// A region of the screen to black out, in screen pixels: `[left, top, right, bottom)`.
pub type Region = (i32, i32, i32, i32);

/// What the device sent.
enum Shot {
    /// `screencap -p`: the device encoded a PNG.
    Png(Vec<u8>),
    /// `screencap`: a raw frame (see [`raw`]), converted here.
    Raw(bytes::Bytes),
}

/// A converted screenshot: the image for the caller, its size and the screen's, and the
/// person's whole PNG when regions were blacked out for the agent.
#[derive(Debug)]
struct Converted {
    data: Vec<u8>,
    width: u32,
    height: u32,
    screen_width: u32,
    screen_height: u32,
    whole: Option<Vec<u8>>,
    /// Nothing showed between the system bars ([`all_black`]; checked only when the pixels
    /// were decoded).
    blank: bool,
}

/// Whether to ask the device for a raw frame rather than a PNG: whenever the host converts the
/// image anyway (downscale, JPEG, blacking out), unless this device answered a PNG sooner
/// (`Device::screencap_prefers_png`: a phone encodes a PNG slowly, a virtual device quickly,
/// and there the raw frame's 10 MB through adb cost more). A full-size PNG is the device's own,
/// passed on as it came: encoding it again here made that call ~8× slower on the virtual
/// device (BENCHMARKS.md §10).
fn wants_raw(max: u32, format: Format, dev: &Device) -> bool {
    if format == Format::Png && max == 0 {
        return false;
    }
    !dev.screencap_prefers_png()
}

fn convert(shot: Shot, max: u32, format: Format, black: &[Region]) -> Result<Converted, ImgError> {
    match shot {
        Shot::Png(png) => convert_png(png, max, format, black),
        Shot::Raw(bytes) => {
            let frame = raw::decode(&bytes).map_err(ImgError::Raw)?;
            drop(bytes);
            let (sw, sh) = (frame.width, frame.height);
            let rgba = image::RgbaImage::from_raw(sw, sh, frame.rgba)
                .ok_or_else(|| ImgError::Encode(format!("{sw}x{sh}: a frame of the wrong size")))?;
            // The person's copy is whole: encoded before anything is blacked out.
            let whole = if black.is_empty() {
                None
            } else {
                Some(encode_png(rgba.as_raw(), sw, sh)?)
            };
            let mut out = finish(rgba, max, format, black)?;
            out.whole = whole;
            Ok(out)
        }
    }
}

fn convert_png(
    png: Vec<u8>,
    max: u32,
    format: Format,
    black: &[Region],
) -> Result<Converted, ImgError> {
    let as_sent = |png: Vec<u8>, sw: u32, sh: u32| Converted {
        data: png,
        width: sw,
        height: sh,
        screen_width: sw,
        screen_height: sh,
        whole: None,
        blank: false,
    };
    // A PNG that is already small enough goes back as the device sent it: its size comes from
    // the header, and the IEND trailer shows it arrived whole; no decode, no re-encode.
    // Blacking out needs the pixels, so it always decodes.
    if format == Format::Png && black.is_empty() {
        let (sw, sh) = image::ImageReader::with_format(Cursor::new(&png), image::ImageFormat::Png)
            .into_dimensions()
            .map_err(|e| ImgError::Decode(e.to_string()))?;
        if (max == 0 || sw.max(sh) <= max) && png.ends_with(&PNG_IEND) {
            return Ok(as_sent(png, sw, sh));
        }
    }
    let rgba = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .map_err(|e| ImgError::Decode(e.to_string()))?
        .into_rgba8();
    let (sw, sh) = rgba.dimensions();
    if format == Format::Png && fit(sw, sh, max) == (sw, sh) && black.is_empty() {
        return Ok(as_sent(png, sw, sh));
    }
    // The person's copy is the device's PNG as it came (no extra conversion).
    let whole = (!black.is_empty()).then_some(png);
    let mut out = finish(rgba, max, format, black)?;
    out.whole = whole;
    Ok(out)
}

/// Blacks out, downscales to fit `max` and encodes the screen's pixels.
fn finish(
    mut rgba: image::RgbaImage,
    max: u32,
    format: Format,
    black: &[Region],
) -> Result<Converted, ImgError> {
    let (sw, sh) = rgba.dimensions();
    let blank = all_black(&rgba);
    black_out(&mut rgba, black);
    let (w, h) = fit(sw, sh, max);
    let pixels = if (w, h) == (sw, sh) {
        rgba.into_raw()
    } else {
        shrink(rgba.into_raw(), (sw, sh), (w, h))?
    };
    let data = match format {
        Format::Png => encode_png(&pixels, w, h)?,
        Format::Jpeg => {
            let (jw, jh) = match (u16::try_from(w), u16::try_from(h)) {
                (Ok(a), Ok(b)) => (a, b),
                _ => return Err(ImgError::Encode(format!("{w}x{h} is too large for JPEG"))),
            };
            let mut out = Vec::new();
            jpeg_encoder::Encoder::new(&mut out, 80)
                .encode(&pixels, jw, jh, jpeg_encoder::ColorType::Rgba)
                .map_err(|e| ImgError::Encode(e.to_string()))?;
            out
        }
    };
    Ok(Converted {
        data,
        width: w,
        height: h,
        screen_width: sw,
        screen_height: sh,
        whole: None,
        blank,
    })
}

/// Whether the frame shows nothing between the system bars (every channel of every pixel at
/// most 8 of 255 in the band from 8 % to 92 % of its height): what a phone captures with the
/// screen off, or of a window that forbids screenshots, which since Android 12 comes out black
/// while the status and navigation bars around it are still drawn. A dark theme still shows its
/// text there. Stops at the first pixel that shows something, so an ordinary screen costs a
/// few pixels.
fn all_black(rgba: &image::RgbaImage) -> bool {
    let (w, h) = rgba.dimensions();
    let row = (w as usize) * 4;
    let (top, bottom) = ((h as usize) * 8 / 100, (h as usize) * 92 / 100);
    rgba.as_raw()
        .get(top * row..bottom.max(top + 1).min(h as usize) * row)
        .unwrap_or_default()
        .chunks_exact(4)
        .all(|p| p[0] <= 8 && p[1] <= 8 && p[2] <= 8)
}

/// What the agent is told about a black frame.
const BLACK_FRAME: &str = "the screen came back black: it is off (android_press_key WAKEUP) or \
     the app forbids screenshots (FLAG_SECURE; android_get_ui_tree still reads it)";

fn encode_png(rgba: &[u8], w: u32, h: u32) -> Result<Vec<u8>, ImgError> {
    use image::ImageEncoder;
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(rgba, w, h, image::ExtendedColorType::Rgba8)
        .map_err(|e| ImgError::Encode(e.to_string()))?;
    Ok(out)
}

/// Paints each region opaque black (clamped to the image) before any scaling, so no
/// downscaled pixel carries a trace of what was under it.
fn black_out(rgba: &mut image::RgbaImage, black: &[Region]) {
    let (w, h) = rgba.dimensions();
    let clamp = |v: i32, max: u32| u32::try_from(v.max(0)).unwrap_or(0).min(max);
    for &(l, t, r, b) in black {
        let (x0, x1) = (clamp(l, w), clamp(r, w));
        let (y0, y1) = (clamp(t, h), clamp(b, h));
        for y in y0..y1 {
            for x in x0..x1 {
                rgba.put_pixel(x, y, image::Rgba([0, 0, 0, 255]));
            }
        }
    }
}

/// Where the agent must not see the pixels: the bounds of every node whose text or content
/// description an agent-only rule hides, and of every editable field shown as a marker for
/// what it held or holds a fragment of (the tree hides it; the image must too).
pub fn hidden_regions(
    redactor: &crate::redact::Redactor,
    tree: &crate::uitree::UiTree,
) -> Vec<Region> {
    use crate::redact::Audience;
    use std::borrow::Cow;
    tree.nodes()
        .iter()
        .filter(|n| {
            [&n.text, &n.content_desc]
                .into_iter()
                .any(|s| matches!(redactor.redact_str(s, Audience::Agent), Cow::Owned(_)))
                || redactor.hides_field(n)
        })
        .filter_map(|n| n.bounds)
        .map(|b| (b.left, b.top, b.right, b.bottom))
        .collect()
}

/// The size that fits `sw`×`sh` into `max`×`max`, keeping the aspect ratio (0: no limit).
fn fit(sw: u32, sh: u32, max: u32) -> (u32, u32) {
    let longest = sw.max(sh);
    if max == 0 || longest <= max {
        return (sw, sh);
    }
    let scale = |side: u32| {
        let v = (u64::from(side) * u64::from(max) + u64::from(longest) / 2) / u64::from(longest);
        u32::try_from(v).unwrap_or(max).max(1)
    };
    (scale(sw), scale(sh))
}

/// Area-averaging downscale (a box filter over each destination pixel's footprint: text stays
/// readable), SIMD where the CPU has it. Screens are opaque, so alpha is left alone.
fn shrink(rgba: Vec<u8>, (sw, sh): (u32, u32), (w, h): (u32, u32)) -> Result<Vec<u8>, ImgError> {
    use fast_image_resize as fr;
    let src = fr::images::Image::from_vec_u8(sw, sh, rgba, fr::PixelType::U8x4)
        .map_err(|e| ImgError::Encode(e.to_string()))?;
    let mut dst = fr::images::Image::new(w, h, fr::PixelType::U8x4);
    let opts = fr::ResizeOptions::new()
        .resize_alg(fr::ResizeAlg::Convolution(fr::FilterType::Box))
        .use_alpha(false);
    fr::Resizer::new()
        .resize(&src, &mut dst, &opts)
        .map_err(|e| ImgError::Encode(e.to_string()))?;
    Ok(dst.into_vec())
}

/// Runs `screencap` (`-p` for a PNG) with progress ticks; empty output is an error.
async fn shoot(ctx: &Ctx, dev: &Device, png: bool) -> Result<bytes::Bytes, ToolError> {
    let cmd = if png { "screencap -p" } else { "screencap" };
    ctx.still_allowed_on(dev)?;
    let started = std::time::Instant::now();
    let out = crate::progress::ticking(
        "screenshot",
        std::time::Duration::from_secs(1),
        dev.exec_out(cmd, ctx.timeout(), RAW_CAP),
    )
    .await?;
    if out.is_empty() {
        return Err(ToolError::device(
            "screencap returned nothing: the screen may be protected (FLAG_SECURE), off or locked",
        ));
    }
    dev.note_screencap(png, started.elapsed());
    Ok(out)
}

/// Converts off the async runtime, at most one conversion per core.
async fn convert_off(
    shot: Shot,
    max: u32,
    format: Format,
    black: Vec<Region>,
) -> Result<Result<Converted, ImgError>, ToolError> {
    crate::mcp::imagework::run(move || convert(shot, max, format, &black))
        .await
        .map_err(ToolError::internal)
}

/// Capture `dev`'s screen.
pub async fn capture(
    ctx: &Ctx,
    dev: &Device,
    max: u32,
    format: Format,
) -> Result<(Image, ShotInfo), ToolError> {
    // For an agent, the tree locates what redaction hides, which the image must hide too
    // (only when some rule hides anything from agents; never for the person). It is read
    // first: see [`capture_after`].
    if hides_for_agent(ctx) {
        let (shot, _) = capture_after(ctx, dev, max, format, super::ui::dump_raw(ctx, dev)).await;
        return shot;
    }
    let raw = wants_raw(max, format, dev);
    let out = shoot(ctx, dev, !raw).await;
    captured(ctx, dev, max, format, raw, out, None).await
}

/// Whether a screenshot for this caller must black out what redaction hides from agents.
fn hides_for_agent(ctx: &Ctx) -> bool {
    ctx.audience() == crate::redact::Audience::Agent
        && ctx
            .core
            .redactor
            .has_rules_for(crate::redact::Audience::Agent)
}

/// Read `tree` (the unredacted UI dump of the screen, e.g. an action's settle dump), then
/// capture the screen, and locate in that tree what the image must hide from an agent.
/// Returns the capture and the tree, for the caller's own use.
///
/// One after the other, never at once: `uiautomator dump` waits for the app to go idle, while
/// `screencap` takes whatever frame is on the glass. Started together after an action, the
/// capture would show the screen before an animated change (the one the action left) and
/// the tree the screen after it: the image would not be the screen sent back, and what the
/// old screen showed would be blacked out where the new one has it, which is nowhere.
pub async fn capture_after<F>(
    ctx: &Ctx,
    dev: &Device,
    max: u32,
    format: Format,
    tree: F,
) -> (
    Result<(Image, ShotInfo), ToolError>,
    Result<UiTree, ToolError>,
)
where
    F: std::future::Future<Output = Result<UiTree, ToolError>>,
{
    let tree = tree.await;
    let needed = hides_for_agent(ctx).then_some(&tree);
    if let Some(Err(e)) = needed {
        // Nothing could be located: no capture at all.
        return (Err(withheld(e)), tree);
    }
    let raw = wants_raw(max, format, dev);
    let out = shoot(ctx, dev, !raw).await;
    let shot = captured(ctx, dev, max, format, raw, out, needed).await;
    (shot, tree)
}

/// No image rather than one that may show what the tree would have hidden.
fn withheld(e: &ToolError) -> ToolError {
    ToolError::device(format!(
        "the screenshot was withheld: the UI tree, needed to black out what redaction hides, \
         could not be read ({})",
        e.message
    ))
}

/// A capture's bytes made into the image an agent gets: `tree` (when something must be hidden)
/// locates the regions to black out.
async fn captured(
    ctx: &Ctx,
    dev: &Device,
    max: u32,
    format: Format,
    raw: bool,
    out: Result<bytes::Bytes, ToolError>,
    tree: Option<&Result<UiTree, ToolError>>,
) -> Result<(Image, ShotInfo), ToolError> {
    let out = out?;
    let black = match tree {
        None => Vec::new(),
        Some(Ok(tree)) => hidden_regions(&ctx.core.redactor, tree),
        // Without the tree nothing can be located: the agent gets no image rather than one
        // that may show what the tree would have hidden.
        Some(Err(e)) => return Err(withheld(e)),
    };
    let hidden_regions = black.len();
    let shot = if raw {
        Shot::Raw(out)
    } else {
        Shot::Png(out.to_vec())
    };
    let converted = match convert_off(shot, max, format, black.clone()).await? {
        // A pixel format the raw reader lacks: the device encodes a PNG instead (once).
        Err(ImgError::Raw(raw::RawError::UnknownFormat(f))) => {
            tracing::debug!(
                serial = dev.serial(),
                format = f,
                "raw screencap: asking for a PNG"
            );
            // Never the quicker one again on this device: the PNG answered below wins.
            dev.note_screencap(false, std::time::Duration::MAX);
            let png = shoot(ctx, dev, true).await?;
            convert_off(Shot::Png(png.to_vec()), max, format, black).await?
        }
        other => other,
    }
    .map_err(|e| ToolError::device(e.to_string()))?;
    let Converted {
        data,
        width: w,
        height: h,
        screen_width: sw,
        screen_height: sh,
        whole,
        blank,
    } = converted;
    let mime = if format == Format::Png {
        "image/png"
    } else {
        "image/jpeg"
    };
    let info = ShotInfo {
        serial: dev.serial().to_string(),
        format: if format == Format::Png { "png" } else { "jpeg" }.into(),
        width: w,
        height: h,
        screen_width: sw,
        screen_height: sh,
        scale_to_screen: if w == 0 {
            1.0
        } else {
            f64::from(sw) / f64::from(w)
        },
        bytes: data.len(),
        hidden_regions,
        warning: blank.then(|| BLACK_FRAME.to_string()),
    };
    let whole = whole.map(|data| {
        Box::new(Image {
            mime: "image/png",
            data,
            width: sw,
            height: sh,
            whole: None,
        })
    });
    Ok((
        Image {
            mime,
            data,
            width: w,
            height: h,
            whole,
        },
        info,
    ))
}

async fn take(ctx: Ctx, a: ShotArgs) -> Result<WithImages<ShotInfo>, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let (img, info) = capture(
        &ctx,
        &dev,
        a.max_size.unwrap_or(DEFAULT_MAX),
        a.format.unwrap_or_default(),
    )
    .await?;
    Ok(WithImages {
        value: info,
        images: vec![img],
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_take_screenshot",
            title: "Screenshot",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "The screen as an image (jpeg, longest side 1280 by default; maxSize, format). \
                          scaleToScreen converts image coordinates to screen coordinates.",
        }
        .def(take),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_black_when_nothing_shows_between_the_system_bars() {
        let black = image::Rgba([0, 0, 0, 255]);
        let mut img = image::RgbaImage::from_pixel(100, 200, black);
        assert!(all_black(&img));
        // Status and navigation bars drawn around a protected window: still black.
        for x in 0..100 {
            img.put_pixel(x, 3, image::Rgba([255, 255, 255, 255]));
            img.put_pixel(x, 196, image::Rgba([255, 255, 255, 255]));
        }
        assert!(all_black(&img));
        // One lit pixel in the middle (a dark theme's text) is a screen that shows something.
        img.put_pixel(50, 100, image::Rgba([40, 40, 40, 255]));
        assert!(!all_black(&img));
        // Near-black noise is still black.
        let mut noise = image::RgbaImage::from_pixel(10, 10, image::Rgba([8, 3, 0, 255]));
        assert!(all_black(&noise));
        noise.put_pixel(5, 5, image::Rgba([9, 0, 0, 255]));
        assert!(!all_black(&noise));
        // A degenerate frame does not panic.
        assert!(all_black(&image::RgbaImage::new(1, 1)));
    }

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 7])
        });
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    /// The PNG path as the tests knew it: (image, width, height, screen width, screen height).
    fn convert(
        png: Vec<u8>,
        max: u32,
        format: Format,
        black: &[Region],
    ) -> Result<(Vec<u8>, u32, u32, u32, u32), ImgError> {
        let c = super::convert(Shot::Png(png), max, format, black)?;
        Ok((c.data, c.width, c.height, c.screen_width, c.screen_height))
    }

    /// A raw frame as an Android P+ device writes it: 4-word header, RGBA_8888, alpha 0.
    fn raw_frame(w: u32, h: u32) -> bytes::Bytes {
        let mut v: Vec<u8> = [w, h, 1, 1].iter().flat_map(|x| x.to_le_bytes()).collect();
        for y in 0..h {
            for x in 0..w {
                v.extend_from_slice(&[(x % 256) as u8, (y % 256) as u8, 7, 0]);
            }
        }
        bytes::Bytes::from(v)
    }

    /// Width and height from a baseline JPEG's SOF0 frame header.
    fn jpeg_size(j: &[u8]) -> Option<(u32, u32)> {
        let mut i = 2;
        while i + 9 < j.len() {
            if j[i] != 0xFF {
                return None;
            }
            let marker = j[i + 1];
            let len = usize::from(u16::from_be_bytes([j[i + 2], j[i + 3]]));
            if marker == 0xC0 {
                let h = u16::from_be_bytes([j[i + 5], j[i + 6]]);
                let w = u16::from_be_bytes([j[i + 7], j[i + 8]]);
                return Some((u32::from(w), u32::from(h)));
            }
            i += 2 + len;
        }
        None
    }

    #[test]
    fn downscales_and_reports_scale() {
        let (jpeg, w, h, sw, sh) = convert(png(1080, 2400), 1200, Format::Jpeg, &[]).unwrap();
        assert_eq!((sw, sh), (1080, 2400));
        assert_eq!(h, 1200);
        assert_eq!(w, 540);
        assert_eq!(&jpeg[..2], &[0xFF, 0xD8]);
        assert_eq!(
            jpeg_size(&jpeg),
            Some((540, 1200)),
            "the frame header says what we report"
        );
        assert_eq!(&jpeg[jpeg.len() - 2..], &[0xFF, 0xD9]);
        let (same, w, _, _, _) = convert(png(100, 50), 0, Format::Png, &[]).unwrap();
        assert_eq!(w, 100);
        assert_eq!(&same[1..4], b"PNG");
        assert!(matches!(
            convert(b"not a png".to_vec(), 0, Format::Png, &[]),
            Err(ImgError::Decode(_))
        ));
    }

    #[test]
    fn a_whole_png_small_enough_goes_back_byte_for_byte_and_a_torn_one_is_refused() {
        let orig = png(300, 600);
        let (out, w, h, sw, sh) = convert(orig.clone(), 0, Format::Png, &[]).unwrap();
        assert_eq!(out, orig);
        assert_eq!((w, h, sw, sh), (300, 600, 300, 600));
        let (out, ..) = convert(orig.clone(), 600, Format::Png, &[]).unwrap();
        assert_eq!(out, orig);
        // Larger than asked: decoded and scaled, so not the same bytes.
        let (out, w, h, ..) = convert(orig.clone(), 300, Format::Png, &[]).unwrap();
        assert_ne!(out, orig);
        assert_eq!((w, h), (150, 300));
        // Each pixel averages its 2×2 footprint: (10, 10) covers (20..22, 20..22) of the source.
        let small = image::load_from_memory(&out).unwrap().to_rgba8();
        let [r, g, b, a] = small.get_pixel(10, 10).0;
        assert!((19..=22).contains(&r) && (19..=22).contains(&g), "{r} {g}");
        assert_eq!((b, a), (7, 255));
        let torn = orig[..orig.len() - 40].to_vec();
        assert!(matches!(
            convert(torn, 0, Format::Png, &[]),
            Err(ImgError::Decode(_))
        ));
    }

    #[test]
    fn hidden_regions_are_black_in_the_agents_copy_and_force_a_decode() {
        let orig = png(200, 100);
        // A PNG that would pass through untouched is decoded when something must be hidden.
        let (out, w, h, ..) = convert(orig.clone(), 0, Format::Png, &[(10, 10, 50, 30)]).unwrap();
        assert_ne!(out, orig);
        assert_eq!((w, h), (200, 100));
        let img = image::load_from_memory(&out).unwrap().into_rgba8();
        for (x, y) in [(10, 10), (49, 29), (30, 20)] {
            assert_eq!(img.get_pixel(x, y).0, [0, 0, 0, 255], "({x},{y})");
        }
        let src = image::load_from_memory(&orig).unwrap().into_rgba8();
        assert_eq!(img.get_pixel(60, 40), src.get_pixel(60, 40));
        // Out-of-range regions are clamped, not a panic.
        convert(orig, 100, Format::Jpeg, &[(-5, -5, 5000, 5000)]).unwrap();
    }

    #[test]
    fn regions_come_from_nodes_an_agent_only_rule_hides() {
        let xml = r#"<?xml version='1.0' ?><hierarchy rotation="0"><node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[0,0][1080,2400]"><node index="0" text="Visa •••• 4242" resource-id="" class="android.widget.TextView" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[63,780][1017,840]" /><node index="1" text="" resource-id="" class="android.view.View" package="p" content-desc="token ghp_abcdefghijklmnopqrstuvwxyz0123456789" clickable="false" enabled="true" password="false" bounds="[1,2][3,4]" /><node index="2" text="Settings" resource-id="" class="android.widget.TextView" package="p" content-desc="" clickable="false" enabled="true" password="false" bounds="[5,6][7,8]" /></node></hierarchy>"#;
        let tree = crate::uitree::parse(xml).unwrap();
        let r = crate::redact::Redactor::with_defaults_and(&[crate::redact::RedactionRule {
            name: "card".into(),
            pattern: "•+ (?P<secret>[0-9]{4})".into(),
            scope: crate::redact::Scope::AgentOnly,
        }])
        .unwrap();
        assert_eq!(
            hidden_regions(&r, &tree),
            vec![(63, 780, 1017, 840), (1, 2, 3, 4)]
        );
        assert!(hidden_regions(&crate::redact::Redactor::with_defaults(), &tree).len() == 1);
    }

    #[test]
    fn a_raw_frame_becomes_the_same_jpeg_sizes_and_an_opaque_png() {
        let c = super::convert(Shot::Raw(raw_frame(1080, 2400)), 1200, Format::Jpeg, &[]).unwrap();
        assert_eq!((c.screen_width, c.screen_height), (1080, 2400));
        assert_eq!((c.width, c.height), (540, 1200));
        assert_eq!(jpeg_size(&c.data), Some((540, 1200)));
        assert!(c.whole.is_none());
        // Full size PNG from raw: the pixels as sent, made opaque.
        let c = super::convert(Shot::Raw(raw_frame(300, 200)), 0, Format::Png, &[]).unwrap();
        assert_eq!((c.width, c.height, c.screen_width), (300, 200, 300));
        let img = image::load_from_memory(&c.data).unwrap().into_rgba8();
        assert_eq!(img.get_pixel(20, 30).0, [20, 30, 7, 255]);
        // The same screen as PNG and as raw gives the same downscaled pixels.
        let from_png = convert(png(300, 200), 150, Format::Png, &[]).unwrap().0;
        let from_raw = super::convert(Shot::Raw(raw_frame(300, 200)), 150, Format::Png, &[])
            .unwrap()
            .data;
        assert_eq!(
            image::load_from_memory(&from_png).unwrap().into_rgba8(),
            image::load_from_memory(&from_raw).unwrap().into_rgba8()
        );
    }

    #[test]
    fn a_raw_frame_with_hidden_regions_keeps_a_whole_png_for_the_person() {
        let c = super::convert(
            Shot::Raw(raw_frame(200, 100)),
            0,
            Format::Jpeg,
            &[(10, 10, 50, 30)],
        )
        .unwrap();
        let whole = image::load_from_memory_with_format(
            c.whole.as_deref().unwrap(),
            image::ImageFormat::Png,
        )
        .unwrap()
        .into_rgba8();
        assert_eq!(
            whole.get_pixel(30, 20).0,
            [30, 20, 7, 255],
            "the person's copy is whole"
        );
        let png_out = super::convert(
            Shot::Raw(raw_frame(200, 100)),
            0,
            Format::Png,
            &[(10, 10, 50, 30)],
        )
        .unwrap();
        let agent = image::load_from_memory(&png_out.data).unwrap().into_rgba8();
        assert_eq!(agent.get_pixel(30, 20).0, [0, 0, 0, 255]);
        assert_eq!(agent.get_pixel(60, 40).0, [60, 40, 7, 255]);
    }

    #[test]
    fn a_torn_or_foreign_raw_frame_is_a_clear_error_and_an_unknown_format_asks_for_png() {
        let whole = raw_frame(64, 64);
        let torn = whole.slice(..whole.len() - 100);
        let e = super::convert(Shot::Raw(torn), 0, Format::Jpeg, &[]).unwrap_err();
        assert!(
            matches!(e, ImgError::Raw(raw::RawError::Malformed(_))),
            "{e:?}"
        );
        assert!(e.to_string().contains("not a whole frame"), "{e}");
        let mut fp16: Vec<u8> = [2u32, 2, 0x16, 0]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        fp16.extend_from_slice(&[0; 32]);
        assert!(matches!(
            super::convert(Shot::Raw(fp16.into()), 0, Format::Jpeg, &[]),
            Err(ImgError::Raw(raw::RawError::UnknownFormat(0x16)))
        ));
    }
}
