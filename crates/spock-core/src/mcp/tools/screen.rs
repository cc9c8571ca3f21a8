//! Screenshots as MCP image content: `screencap -p` over `exec:` (binary-exact), downscaled
//! and re-encoded off the async runtime, at most one conversion per core (`imagework`), with the scale back to screen coordinates stated so a
//! tap computed from the image lands right.
use std::io::Cursor;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages};
use crate::mcp::result::{Image, ToolError};
use crate::mcp::server::Ctx;
use crate::mcp::toolsets::Toolset;

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
    #[error("could not encode the screenshot: {0}")]
    Encode(String),
}

/// A region of the screen to black out, in screen pixels: `[left, top, right, bottom)`.
pub type Region = (i32, i32, i32, i32);

fn convert(
    png: Vec<u8>,
    max: u32,
    format: Format,
    black: &[Region],
) -> Result<(Vec<u8>, u32, u32, u32, u32), ImgError> {
    // A PNG that is already small enough goes back as the device sent it: its size comes from
    // the header, and the IEND trailer shows it arrived whole; no decode, no re-encode.
    // Blacking out needs the pixels, so it always decodes.
    if format == Format::Png && black.is_empty() {
        let (sw, sh) = image::ImageReader::with_format(Cursor::new(&png), image::ImageFormat::Png)
            .into_dimensions()
            .map_err(|e| ImgError::Decode(e.to_string()))?;
        if (max == 0 || sw.max(sh) <= max) && png.ends_with(&PNG_IEND) {
            return Ok((png, sw, sh, sw, sh));
        }
    }
    let mut rgba = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .map_err(|e| ImgError::Decode(e.to_string()))?
        .into_rgba8();
    let (sw, sh) = rgba.dimensions();
    black_out(&mut rgba, black);
    let (w, h) = fit(sw, sh, max);
    if format == Format::Png && (w, h) == (sw, sh) && black.is_empty() {
        return Ok((png, w, h, sw, sh));
    }
    let pixels = if (w, h) == (sw, sh) {
        rgba.into_raw()
    } else {
        shrink(rgba.into_raw(), (sw, sh), (w, h))?
    };
    let mut out = Vec::new();
    match format {
        Format::Png => {
            use image::ImageEncoder;
            image::codecs::png::PngEncoder::new(&mut out)
                .write_image(&pixels, w, h, image::ExtendedColorType::Rgba8)
                .map_err(|e| ImgError::Encode(e.to_string()))?;
        }
        Format::Jpeg => {
            let (jw, jh) = match (u16::try_from(w), u16::try_from(h)) {
                (Ok(a), Ok(b)) => (a, b),
                _ => return Err(ImgError::Encode(format!("{w}x{h} is too large for JPEG"))),
            };
            jpeg_encoder::Encoder::new(&mut out, 80)
                .encode(&pixels, jw, jh, jpeg_encoder::ColorType::Rgba)
                .map_err(|e| ImgError::Encode(e.to_string()))?;
        }
    }
    Ok((out, w, h, sw, sh))
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
/// description an agent-only rule hides (the tree hides it; the image must too).
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

/// Capture `dev`'s screen.
pub async fn capture(
    ctx: &Ctx,
    dev: &Device,
    max: u32,
    format: Format,
) -> Result<(Image, ShotInfo), ToolError> {
    // For an agent, the tree is read alongside the capture (concurrently: the added wait is
    // the longer of the two, not their sum) to find what the tree hides, which the image
    // must hide too. Only when some rule hides anything from agents; never for the person.
    let for_agent = ctx.audience() == crate::redact::Audience::Agent
        && ctx
            .core
            .redactor
            .has_rules_for(crate::redact::Audience::Agent);
    let (png, tree) = if for_agent {
        let (png, tree) = tokio::join!(
            crate::progress::ticking(
                "screenshot",
                std::time::Duration::from_secs(1),
                dev.exec_out("screencap -p", ctx.timeout(), RAW_CAP)
            ),
            super::ui::dump_raw(ctx, dev)
        );
        (png, Some(tree))
    } else {
        (
            crate::progress::ticking(
                "screenshot",
                std::time::Duration::from_secs(1),
                dev.exec_out("screencap -p", ctx.timeout(), RAW_CAP),
            )
            .await,
            None,
        )
    };
    let png = png?;
    let black = match tree {
        None => Vec::new(),
        Some(Ok(tree)) => hidden_regions(&ctx.core.redactor, &tree),
        // Without the tree nothing can be located: the agent gets no image rather than one
        // that may show what the tree would have hidden.
        Some(Err(e)) => {
            return Err(ToolError::device(format!(
                "the screenshot was withheld: the UI tree, needed to black out what redaction \
                 hides, could not be read ({})",
                e.message
            )));
        }
    };
    if png.is_empty() {
        return Err(ToolError::device(
            "screencap returned nothing: the screen may be protected (FLAG_SECURE), off or locked",
        ));
    }
    let png = png.to_vec();
    let hidden_regions = black.len();
    // The person's copy is the device's PNG as it came (no extra conversion).
    let whole = (!black.is_empty()).then(|| png.clone());
    let (data, w, h, sw, sh) =
        crate::mcp::imagework::run(move || convert(png, max, format, &black))
            .await
            .map_err(ToolError::internal)?
            .map_err(|e| ToolError::device(e.to_string()))?;
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

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 7])
        });
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
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
}
