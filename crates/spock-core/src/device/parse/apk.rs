//! What an APK says it is: the `package`, `versionCode` and `versionName` of its manifest,
//! read before it is installed (so replacing or downgrading an installed app can be asked).
//!
//! An APK is a zip whose `AndroidManifest.xml` is Android's binary XML (`ResXMLTree`, the
//! chunk format of frameworks/base `libs/androidfw/ResourceTypes.cpp`): a string pool, then
//! element chunks whose attributes hold a string index or a typed value. Only the first
//! element (`<manifest>`) is read.
use std::io::Read;

/// The manifest's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApkInfo {
    pub package: String,
    pub version_code: u64,
    pub version_name: Option<String>,
}

const RES_STRING_POOL: u16 = 0x0001;
const RES_XML: u16 = 0x0003;
const RES_XML_START_ELEMENT: u16 = 0x0102;
const UTF8_FLAG: u32 = 0x100;
const TYPE_STRING: u8 = 0x03;
const TYPE_INT_DEC: u8 = 0x10;
const TYPE_INT_HEX: u8 = 0x11;
const NO_INDEX: u32 = 0xFFFF_FFFF;
/// A manifest larger than this is no manifest.
const MAX_MANIFEST: u64 = 4 * 1024 * 1024;

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// One string of a pool (UTF-8 or UTF-16, lengths as `ResStringPool` encodes them).
fn pool_string(b: &[u8], pool: usize, index: u32) -> Option<String> {
    let count = u32_at(b, pool + 8)?;
    if index >= count {
        return None;
    }
    let flags = u32_at(b, pool + 16)?;
    let strings = pool + u32_at(b, pool + 20)? as usize;
    let header = usize::from(u16_at(b, pool + 2)?);
    let off = u32_at(b, pool + header + 4 * index as usize)? as usize;
    let mut at = strings + off;
    if flags & UTF8_FLAG != 0 {
        // UTF-16 length, then UTF-8 length, each one or two bytes.
        let skip = |at: &mut usize| -> Option<usize> {
            let first = *b.get(*at)? as usize;
            *at += 1;
            if first & 0x80 != 0 {
                let second = *b.get(*at)? as usize;
                *at += 1;
                Some(((first & 0x7f) << 8) | second)
            } else {
                Some(first)
            }
        };
        skip(&mut at)?;
        let len = skip(&mut at)?;
        String::from_utf8(b.get(at..at + len)?.to_vec()).ok()
    } else {
        let mut len = usize::from(u16_at(b, at)?);
        at += 2;
        if len & 0x8000 != 0 {
            len = ((len & 0x7fff) << 16) | usize::from(u16_at(b, at)?);
            at += 2;
        }
        let units: Option<Vec<u16>> = (0..len).map(|i| u16_at(b, at + 2 * i)).collect();
        String::from_utf16(&units?).ok()
    }
}

/// The `<manifest>` element's identity from binary XML.
pub fn read_manifest_xml(b: &[u8]) -> Result<ApkInfo, String> {
    if u16_at(b, 0) != Some(RES_XML) {
        return Err("AndroidManifest.xml is not Android binary XML".into());
    }
    let mut at = usize::from(u16_at(b, 2).ok_or("truncated")?);
    let mut pool = None;
    while at + 8 <= b.len() {
        let ty = u16_at(b, at).ok_or("truncated")?;
        let size = u32_at(b, at + 4).ok_or("truncated")? as usize;
        if size < 8 {
            return Err("a chunk of AndroidManifest.xml has no size".into());
        }
        if ty == RES_STRING_POOL {
            pool = Some(at);
        } else if ty == RES_XML_START_ELEMENT {
            let pool = pool.ok_or("no string pool before the first element")?;
            return manifest_element(b, pool, at);
        }
        at = at.checked_add(size).ok_or("chunk size overflows")?;
    }
    Err("AndroidManifest.xml has no element".into())
}

fn manifest_element(b: &[u8], pool: usize, at: usize) -> Result<ApkInfo, String> {
    let header = usize::from(u16_at(b, at + 2).ok_or("truncated")?);
    let ext = at + header;
    let name = pool_string(b, pool, u32_at(b, ext + 4).ok_or("truncated")?);
    if name.as_deref() != Some("manifest") {
        return Err(format!("the first element is {name:?}, not manifest"));
    }
    let attr_start = usize::from(u16_at(b, ext + 8).ok_or("truncated")?);
    let attr_size = usize::from(u16_at(b, ext + 10).ok_or("truncated")?);
    let count = usize::from(u16_at(b, ext + 12).ok_or("truncated")?);
    let (mut package, mut code, mut vname) = (None, None, None);
    for i in 0..count {
        let a = ext + attr_start + i * attr_size;
        let name = pool_string(b, pool, u32_at(b, a + 4).ok_or("truncated")?);
        let raw = u32_at(b, a + 8).ok_or("truncated")?;
        let data_type = *b.get(a + 15).ok_or("truncated")?;
        let data = u32_at(b, a + 16).ok_or("truncated")?;
        let text = if raw != NO_INDEX {
            pool_string(b, pool, raw)
        } else if data_type == TYPE_STRING {
            pool_string(b, pool, data)
        } else {
            None
        };
        match name.as_deref() {
            Some("package") => package = text,
            Some("versionName") => vname = text,
            Some("versionCode") => {
                code = match data_type {
                    TYPE_INT_DEC | TYPE_INT_HEX => Some(u64::from(data)),
                    _ => text.and_then(|t| t.parse().ok()),
                }
            }
            _ => {}
        }
    }
    Ok(ApkInfo {
        package: package.ok_or("the manifest names no package")?,
        version_code: code.unwrap_or(0),
        version_name: vname,
    })
}

/// Reads an APK's manifest identity.
pub fn read_apk(apk: &[u8]) -> Result<ApkInfo, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(apk))
        .map_err(|e| format!("not an APK (not a zip archive): {e}"))?;
    let entry = zip
        .by_name("AndroidManifest.xml")
        .map_err(|_| "not an APK: it has no AndroidManifest.xml".to_string())?;
    let mut xml = Vec::new();
    entry
        .take(MAX_MANIFEST)
        .read_to_end(&mut xml)
        .map_err(|e| format!("reading AndroidManifest.xml: {e}"))?;
    read_manifest_xml(&xml)
}

/// Writes the binary XML of a `<manifest package=… versionCode=… versionName=…/>`, the way
/// aapt2 lays it out (UTF-16 string pool, `versionCode` as a decimal integer): for tests and
/// the virtual device's fixtures.
pub fn manifest_xml(package: &str, version_code: u32, version_name: &str) -> Vec<u8> {
    let strings = [
        "manifest",
        "package",
        "versionCode",
        "versionName",
        package,
        version_name,
    ];
    let mut data = Vec::new();
    let mut offsets = Vec::new();
    for s in strings {
        offsets.push(data.len() as u32);
        let units: Vec<u16> = s.encode_utf16().collect();
        data.extend_from_slice(&(units.len() as u16).to_le_bytes());
        for u in units {
            data.extend_from_slice(&u.to_le_bytes());
        }
        data.extend_from_slice(&[0, 0]);
    }
    while data.len() % 4 != 0 {
        data.push(0);
    }
    let mut pool = Vec::new();
    let header = 28u32;
    let strings_start = header + 4 * strings.len() as u32;
    let size = strings_start + data.len() as u32;
    for v in [
        u32::from(RES_STRING_POOL) | (28 << 16),
        size,
        strings.len() as u32,
        0,
        0,
        strings_start,
        0,
    ] {
        pool.extend_from_slice(&v.to_le_bytes());
    }
    for o in offsets {
        pool.extend_from_slice(&o.to_le_bytes());
    }
    pool.extend_from_slice(&data);
    let attr = |name: u32, raw: u32, ty: u8, value: u32| {
        let mut a = Vec::new();
        for v in [NO_INDEX, name, raw] {
            a.extend_from_slice(&v.to_le_bytes());
        }
        a.extend_from_slice(&8u16.to_le_bytes());
        a.push(0);
        a.push(ty);
        a.extend_from_slice(&value.to_le_bytes());
        a
    };
    let attrs = [
        attr(1, 4, TYPE_STRING, 4),
        attr(2, NO_INDEX, TYPE_INT_DEC, version_code),
        attr(3, 5, TYPE_STRING, 5),
    ];
    let mut el = Vec::new();
    let el_size = 16 + 20 + 20 * attrs.len() as u32;
    for v in [
        u32::from(RES_XML_START_ELEMENT) | (16 << 16),
        el_size,
        1,
        NO_INDEX,
        NO_INDEX,
        0,
    ] {
        el.extend_from_slice(&v.to_le_bytes());
    }
    for v in [20u16, 20, attrs.len() as u16, 0, 0, 0] {
        el.extend_from_slice(&v.to_le_bytes());
    }
    for a in attrs {
        el.extend_from_slice(&a);
    }
    let total = 8 + pool.len() + el.len();
    let mut out = Vec::new();
    out.extend_from_slice(&(u32::from(RES_XML) | (8 << 16)).to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&pool);
    out.extend_from_slice(&el);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_it_writes_and_refuses_what_is_not_a_manifest() {
        let xml = manifest_xml("com.example.todo", 42, "4.2-beta");
        assert_eq!(
            read_manifest_xml(&xml).unwrap(),
            ApkInfo {
                package: "com.example.todo".into(),
                version_code: 42,
                version_name: Some("4.2-beta".into()),
            }
        );
        for bad in [&b""[..], b"PK\x03\x04", &xml[..40]] {
            assert!(read_manifest_xml(bad).is_err());
        }
        assert!(read_apk(b"not a zip").unwrap_err().contains("not an APK"));
    }
}
