//! The frame `screencap` writes without `-p`, read on the host: the device skips its own PNG
//! encoding, which on a phone is most of the command's time.
//!
//! AOSP's `cmds/screencap/screencap.cpp` writes little-endian `u32`s, width, height and the
//! HAL pixel format (and since Android P (API 28) a fourth, the dataspace: 0 unknown, 1 sRGB,
//! 2 Display P3), then `height` rows of `width × bytes-per-pixel` bytes, stride padding already
//! stripped. Which header a device wrote shows in the length: exactly one of `len - 16` and
//! `len - 12` can equal `width × height × bpp`. Anything else (a torn stream, text, a hostile
//! header) is refused before a byte is allocated for it: the only buffer made is the RGBA copy,
//! whose size follows from the pixels that actually arrived.

/// Why a raw frame could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RawError {
    /// A pixel format this reader does not know: the caller asks the device for a PNG instead.
    #[error("pixel format {0} is not one this reader knows")]
    UnknownFormat(u32),
    #[error("{0}")]
    Malformed(String),
}

/// A whole frame as RGBA, every pixel opaque.
#[derive(Debug)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// HAL pixel formats (`system/graphics-base-v1.0.h`) and their bytes per pixel.
const RGBA_8888: u32 = 1;
const RGBX_8888: u32 = 2;
const RGB_888: u32 = 3;
const RGB_565: u32 = 4;
const BGRA_8888: u32 = 5;

fn bytes_per_pixel(format: u32) -> Option<u64> {
    match format {
        RGBA_8888 | RGBX_8888 | BGRA_8888 => Some(4),
        RGB_888 => Some(3),
        RGB_565 => Some(2),
        _ => None,
    }
}

fn word(b: &[u8], i: usize) -> Option<u32> {
    let w = b.get(i * 4..i * 4 + 4)?;
    Some(u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// Reads one raw frame. Alpha is set opaque whatever the device wrote: a screen has no
/// transparency, and some devices leave that byte undefined (RGBX) or zero.
pub fn decode(b: &[u8]) -> Result<Frame, RawError> {
    let bad = |why: String| Err(RawError::Malformed(why));
    let (Some(w), Some(h), Some(format)) = (word(b, 0), word(b, 1), word(b, 2)) else {
        return bad(format!(
            "{} bytes, shorter than the 12-byte header",
            b.len()
        ));
    };
    if w == 0 || h == 0 {
        return bad(format!("the header says {w}x{h}"));
    }
    // Width × height fits a u64; times the bytes per pixel it may not (a hostile header), and
    // then it matches no length.
    let pixels = u64::from(w) * u64::from(h);
    let len = b.len() as u64;
    let header_for = |bpp: u64| {
        let want = pixels.checked_mul(bpp)?;
        if len.checked_sub(16) == Some(want) {
            Some(16)
        } else if len.checked_sub(12) == Some(want) {
            Some(12)
        } else {
            None
        }
    };
    let Some(bpp) = bytes_per_pixel(format) else {
        // A frame whose length fits its size at some pixel width (FP16 is 8 bytes, RGBA_1010102
        // 4) is a format this reader lacks; anything else is not a frame at all.
        if (1..=8).any(|bpp| header_for(bpp).is_some()) {
            return Err(RawError::UnknownFormat(format));
        }
        return bad(format!(
            "{w}x{h} in pixel format {format} does not fit the {} bytes that arrived",
            b.len()
        ));
    };
    let Some(header) = header_for(bpp) else {
        return bad(format!(
            "{w}x{h} at {bpp} bytes a pixel needs {} bytes after a 12- or 16-byte header, \
             but {len} bytes arrived in all",
            u128::from(pixels) * u128::from(bpp)
        ));
    };
    let px = &b[header..];
    let rgba = match format {
        RGBA_8888 | RGBX_8888 => {
            let mut v = px.to_vec();
            v.chunks_exact_mut(4).for_each(|p| p[3] = 255);
            v
        }
        BGRA_8888 => {
            let mut v = px.to_vec();
            v.chunks_exact_mut(4).for_each(|p| {
                p.swap(0, 2);
                p[3] = 255;
            });
            v
        }
        RGB_888 => px
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        // RGB_565 is one little-endian u16 a pixel: red in the top five bits, blue in the low.
        _ => px
            .chunks_exact(2)
            .flat_map(|p| {
                let v = u16::from_le_bytes([p[0], p[1]]);
                let (r, g, b) = ((v >> 11) & 0x1F, (v >> 5) & 0x3F, v & 0x1F);
                let widen5 = |c: u16| ((c << 3) | (c >> 2)) as u8;
                [widen5(r), ((g << 2) | (g >> 4)) as u8, widen5(b), 255]
            })
            .collect(),
    };
    Ok(Frame {
        width: w,
        height: h,
        rgba,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(words: &[u32], px: &[u8]) -> Vec<u8> {
        let mut v: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        v.extend_from_slice(px);
        v
    }

    #[test]
    fn four_word_header_rgba_as_android_p_and_later_write_it() {
        // 2×1, RGBA_8888, dataspace sRGB; the device left alpha at 0.
        let f = decode(&frame(&[2, 1, 1, 1], &[1, 2, 3, 0, 4, 5, 6, 7])).unwrap();
        assert_eq!((f.width, f.height), (2, 1));
        assert_eq!(f.rgba, [1, 2, 3, 255, 4, 5, 6, 255]);
    }

    #[test]
    fn three_word_header_as_older_releases_write_it() {
        // RGBX_8888 (format 2), the fourth byte undefined.
        let f = decode(&frame(&[1, 2, 2], &[9, 8, 7, 0x5A, 1, 1, 1, 0])).unwrap();
        assert_eq!((f.width, f.height), (1, 2));
        assert_eq!(f.rgba, [9, 8, 7, 255, 1, 1, 1, 255]);
        // Three pixels of RGB_888 on a 3-word header: 12 + 9 bytes.
        let f = decode(&frame(&[3, 1, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9])).unwrap();
        assert_eq!(f.rgba, [1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255]);
    }

    #[test]
    fn bgra_is_swapped_and_rgb565_widened() {
        let f = decode(&frame(&[1, 1, 5, 0], &[10, 20, 30, 40])).unwrap();
        assert_eq!(f.rgba, [30, 20, 10, 255]);
        // White, pure red, pure green, pure blue, black.
        let px: Vec<u8> = [0xFFFFu16, 0xF800, 0x07E0, 0x001F, 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let f = decode(&frame(&[5, 1, 4, 0], &px)).unwrap();
        assert_eq!(
            f.rgba,
            [
                255, 255, 255, 255, 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 255
            ]
        );
    }

    #[test]
    fn a_real_shaped_phone_frame() {
        // 1080×2400 RGBA with a 4-word header, as an Android 14 phone sends it.
        let (w, h) = (1080u32, 2400u32);
        let px: Vec<u8> = (0..w * h)
            .flat_map(|i| [(i % 251) as u8, 0, 0, 255])
            .collect();
        let f = decode(&frame(&[w, h, 1, 1], &px)).unwrap();
        assert_eq!((f.width, f.height), (w, h));
        assert_eq!(f.rgba.len(), px.len());
        assert_eq!(
            &f.rgba[4 * 1000..4 * 1000 + 4],
            &[(1000 % 251) as u8, 0, 0, 255]
        );
    }

    #[test]
    fn truncated_hostile_and_garbage_input_is_an_error_not_a_panic() {
        let m = |b: &[u8]| match decode(b) {
            Err(RawError::Malformed(why)) => why,
            other => panic!("{other:?}"),
        };
        assert!(m(b"").contains("shorter than the 12-byte header"));
        assert!(m(&[1, 0, 0, 0, 1, 0]).contains("shorter"));
        // A torn stream: two pixels short. (Exactly four bytes short would read as a whole
        // frame behind a 3-word header: the length is all that tells the two apart.)
        let whole = frame(&[2, 2, 1, 0], &[0; 16]);
        let why = m(&whole[..whole.len() - 8]);
        m(&whole[..whole.len() - 1]);
        assert!(why.contains("2x2") && why.contains("16 bytes"), "{why}");
        // Two bytes too many fit neither header.
        let mut long = whole.clone();
        long.extend_from_slice(&[0, 0]);
        m(&long);
        // A hostile header: 4 billion squared pixels, 32 bytes of data. Nothing is allocated
        // for the claim; the length check refuses it.
        m(&frame(&[u32::MAX, u32::MAX, 1, 0], &[0; 16]));
        m(&frame(&[100_000, 100_000, 1, 0], &[0; 64]));
        m(&frame(&[u32::MAX, u32::MAX, 0x16, 0], &[0; 16]));
        m(&frame(&[0, 10, 1, 0], &[]));
        m(&frame(&[10, 0, 1], &[]));
        // Text where a frame should be (an error message on stdout).
        m(b"Capturing failed.\nSaving image failed.\n");
        // A PNG is not a raw frame either.
        m(&[
            0x89, b'P', b'N', b'G', 13, 10, 26, 10, 0, 0, 0, 13, b'I', b'H', b'D', b'R',
        ]);
    }

    #[test]
    fn an_unknown_format_is_named_so_the_caller_can_ask_for_a_png() {
        // RGBA_FP16 (0x16): not read here.
        assert_eq!(
            decode(&frame(&[1, 1, 0x16, 0], &[0; 8])).unwrap_err(),
            RawError::UnknownFormat(0x16)
        );
    }
}
