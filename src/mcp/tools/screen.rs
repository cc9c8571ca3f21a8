//! Screenshots as MCP image content: `screencap -p` over `exec:` (binary-exact), downscaled
//! and re-encoded off the async runtime, with the scale back to screen coordinates stated so a
//! tap computed from the image lands right.
use std::io::Cursor;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages};
use crate::mcp::result::{Image, ToolError};
use crate::mcp::server::Ctx;

/// Longest side by default: small enough for every client's message limits, large enough to
/// read text.
pub const DEFAULT_MAX: u32 = 1280;
const RAW_CAP: usize = 64 << 20;

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

fn convert(
    png: Vec<u8>,
    max: u32,
    format: Format,
) -> Result<(Vec<u8>, u32, u32, u32, u32), ImgError> {
    let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
        .map_err(|e| ImgError::Decode(e.to_string()))?;
    let (sw, sh) = (img.width(), img.height());
    let longest = sw.max(sh);
    // `thumbnail` averages pixel boxes: an order of magnitude faster than a filtered resize on
    // a full phone frame, and just as readable for text at these sizes.
    let img = if max > 0 && longest > max {
        img.thumbnail(max, max)
    } else {
        img
    };
    let (w, h) = (img.width(), img.height());
    if format == Format::Png && w == sw && h == sh {
        return Ok((png, w, h, sw, sh));
    }
    let mut out = Cursor::new(Vec::new());
    match format {
        Format::Png => img.write_to(&mut out, image::ImageFormat::Png),
        Format::Jpeg => image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 80)
            .encode_image(&img.to_rgb8()),
    }
    .map_err(|e| ImgError::Encode(e.to_string()))?;
    Ok((out.into_inner(), w, h, sw, sh))
}

/// Capture `dev`'s screen.
pub async fn capture(
    ctx: &Ctx,
    dev: &Device,
    max: u32,
    format: Format,
) -> Result<(Image, ShotInfo), ToolError> {
    let png = dev.exec_out("screencap -p", ctx.timeout(), RAW_CAP).await?;
    if png.is_empty() {
        return Err(ToolError::device(
            "screencap returned nothing: the screen may be protected (FLAG_SECURE), off or locked",
        ));
    }
    let png = png.to_vec();
    let (data, w, h, sw, sh) = tokio::task::spawn_blocking(move || convert(png, max, format))
        .await
        .map_err(|e| ToolError::internal(format!("image worker failed: {e}")))?
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
    };
    Ok((
        Image {
            mime,
            data,
            width: w,
            height: h,
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

    #[test]
    fn downscales_and_reports_scale() {
        let (jpeg, w, h, sw, sh) = convert(png(1080, 2400), 1200, Format::Jpeg).unwrap();
        assert_eq!((sw, sh), (1080, 2400));
        assert_eq!(h, 1200);
        assert_eq!(w, 540);
        assert_eq!(&jpeg[..2], &[0xFF, 0xD8]);
        let (same, w, _, _, _) = convert(png(100, 50), 0, Format::Png).unwrap();
        assert_eq!(w, 100);
        assert_eq!(&same[1..4], b"PNG");
        assert!(matches!(
            convert(b"not a png".to_vec(), 0, Format::Png),
            Err(ImgError::Decode(_))
        ));
    }
}
