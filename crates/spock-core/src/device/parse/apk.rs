//! What an APK says it is: the `package`, version code and `versionName` of its manifest,
//! read before it is installed (so replacing or downgrading an installed app can be asked).
//!
//! An APK is a zip whose `AndroidManifest.xml` is Android's binary XML (`ResXMLTree`, the
//! chunk format of frameworks/base `libs/androidfw/ResourceTypes.cpp`): a string pool, then
//! element chunks whose attributes hold a string index or a typed value. Only the first
//! element (`<manifest>`) is read, its attributes by name. The version code is the one the
//! device reports (`versionCodeMajor` above `versionCode`); a `versionName` that is a resource
//! reference is not looked up (none is given).
//!
//! The virtual device reads the same bytes its own way (`spock_sim::shell::pm::apk`); neither is
//! tested against the other: both are tested on APKs built by Android's aapt and aapt2
//! (`tests/fixtures/apk/`, described in `tests/fixtures/SOURCES.md`).
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
const RES_XML_START_NAMESPACE: u16 = 0x0100;
const RES_XML_END_NAMESPACE: u16 = 0x0101;
const RES_XML_END_ELEMENT: u16 = 0x0103;
const RES_XML_RESOURCE_MAP: u16 = 0x0180;
const TYPE_STRING: u8 = 0x03;
const TYPE_INT_DEC: u8 = 0x10;
const TYPE_INT_HEX: u8 = 0x11;
const NO_INDEX: u32 = 0xFFFF_FFFF;
const ANDROID_NS: &str = "http://schemas.android.com/apk/res/android";
/// Where the manifest ends before its chunks say it should.
const CUT: &str = "AndroidManifest.xml is cut short";
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
    let mut at = usize::from(u16_at(b, 2).ok_or(CUT)?);
    let mut pool = None;
    while at + 8 <= b.len() {
        let ty = u16_at(b, at).ok_or(CUT)?;
        let size = u32_at(b, at + 4).ok_or(CUT)? as usize;
        if size < 8 {
            return Err("a chunk of AndroidManifest.xml has no size".into());
        }
        if at.checked_add(size).is_none_or(|end| end > b.len()) {
            return Err(CUT.into());
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
    let header = usize::from(u16_at(b, at + 2).ok_or(CUT)?);
    let ext = at + header;
    let name = pool_string(b, pool, u32_at(b, ext + 4).ok_or(CUT)?);
    match name.as_deref() {
        Some("manifest") => {}
        Some(other) => return Err(format!("the first element is <{other}>, not <manifest>")),
        None => return Err("the first element has no name".into()),
    }
    let attr_start = usize::from(u16_at(b, ext + 8).ok_or(CUT)?);
    let attr_size = usize::from(u16_at(b, ext + 10).ok_or(CUT)?);
    let count = usize::from(u16_at(b, ext + 12).ok_or(CUT)?);
    let (mut package, mut code, mut major, mut vname) = (None, None, None, None);
    for i in 0..count {
        let a = ext + attr_start + i * attr_size;
        let name = pool_string(b, pool, u32_at(b, a + 4).ok_or(CUT)?);
        let raw = u32_at(b, a + 8).ok_or(CUT)?;
        let data_type = *b.get(a + 15).ok_or(CUT)?;
        let data = u32_at(b, a + 16).ok_or(CUT)?;
        // The value if it is a string, else its raw text (aapt keeps it beside numbers); a
        // `versionName` that is a resource reference is neither, so it gives no name.
        let string = (data_type == TYPE_STRING)
            .then(|| pool_string(b, pool, data))
            .flatten();
        let text = || {
            string.clone().or_else(|| {
                (raw != NO_INDEX)
                    .then(|| pool_string(b, pool, raw))
                    .flatten()
            })
        };
        let number = || match data_type {
            TYPE_INT_DEC | TYPE_INT_HEX => Some(u64::from(data)),
            _ => text().and_then(|t| t.parse().ok()),
        };
        match name.as_deref() {
            Some("package") => package = text(),
            Some("versionName") => vname = string,
            Some("versionCode") => code = number(),
            Some("versionCodeMajor") => major = number(),
            _ => {}
        }
    }
    // As `PackageInfo.getLongVersionCode` composes it: the major code in the high 32 bits.
    let low = code.unwrap_or(0) & 0xFFFF_FFFF;
    Ok(ApkInfo {
        package: package.ok_or("the manifest names no package")?,
        version_code: ((major.unwrap_or(0) & 0xFFFF_FFFF) << 32) | low,
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

/// Writes the binary XML of a `<manifest package=… android:versionCode=… android:versionName=…/>`
/// in aapt2's layout (as in `tests/fixtures/apk/aapt2-todo.apk`): a UTF-16 string pool whose
/// first strings are the attribute names that have resource ids, the resource map, the
/// `android` namespace around the element, attributes ordered by resource id with `package`
/// last, `versionCode` a decimal integer. For tests and the virtual device's fixtures.
pub fn manifest_xml(package: &str, version_code: u32, version_name: &str) -> Vec<u8> {
    // Indices into `strings`.
    const VERSION_CODE: u32 = 0;
    const VERSION_NAME: u32 = 1;
    const PREFIX: u32 = 2;
    const URI: u32 = 3;
    const PACKAGE: u32 = 4;
    const MANIFEST: u32 = 5;
    const PACKAGE_VALUE: u32 = 6;
    const NAME_VALUE: u32 = 7;
    let strings = [
        "versionCode",
        "versionName",
        "android",
        ANDROID_NS,
        "package",
        "manifest",
        package,
        version_name,
    ];
    let le32 = |out: &mut Vec<u8>, vs: &[u32]| {
        for v in vs {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    let chunk = |kind: u16, header: u16, body: &[u8]| {
        let mut c = Vec::new();
        c.extend_from_slice(&kind.to_le_bytes());
        c.extend_from_slice(&header.to_le_bytes());
        c.extend_from_slice(&(8 + body.len() as u32).to_le_bytes());
        c.extend_from_slice(body);
        c
    };

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
    let strings_start = 28 + 4 * strings.len() as u32;
    let mut pool = Vec::new();
    le32(&mut pool, &[strings.len() as u32, 0, 0, strings_start, 0]);
    le32(&mut pool, &offsets);
    pool.extend_from_slice(&data);

    let mut resource_map = Vec::new();
    le32(&mut resource_map, &[0x0101_021b, 0x0101_021c]);

    // A node's line number and comment, then its extension.
    let node = |kind: u16, ext: &[u8]| {
        let mut body = Vec::new();
        le32(&mut body, &[1, NO_INDEX]);
        body.extend_from_slice(ext);
        chunk(kind, 16, &body)
    };
    let mut namespace = Vec::new();
    le32(&mut namespace, &[PREFIX, URI]);
    let attr = |ns: u32, name: u32, raw: u32, ty: u8, value: u32| {
        let mut a = Vec::new();
        le32(&mut a, &[ns, name, raw]);
        a.extend_from_slice(&8u16.to_le_bytes());
        a.extend_from_slice(&[0, ty]);
        le32(&mut a, &[value]);
        a
    };
    let attrs = [
        attr(URI, VERSION_CODE, NO_INDEX, TYPE_INT_DEC, version_code),
        attr(URI, VERSION_NAME, NAME_VALUE, TYPE_STRING, NAME_VALUE),
        attr(NO_INDEX, PACKAGE, PACKAGE_VALUE, TYPE_STRING, PACKAGE_VALUE),
    ];
    let mut element = Vec::new();
    le32(&mut element, &[NO_INDEX, MANIFEST]);
    for v in [20u16, 20, attrs.len() as u16, 0, 0, 0] {
        element.extend_from_slice(&v.to_le_bytes());
    }
    for a in attrs {
        element.extend_from_slice(&a);
    }
    let mut end_element = Vec::new();
    le32(&mut end_element, &[NO_INDEX, MANIFEST]);

    let mut body = chunk(RES_STRING_POOL, 28, &pool);
    body.extend(chunk(RES_XML_RESOURCE_MAP, 8, &resource_map));
    body.extend(node(RES_XML_START_NAMESPACE, &namespace));
    body.extend(node(RES_XML_START_ELEMENT, &element));
    body.extend(node(RES_XML_END_ELEMENT, &end_element));
    body.extend(node(RES_XML_END_NAMESPACE, &namespace));
    chunk(RES_XML, 8, &body)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = crate::testdata::fixtures_dir().join("apk").join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn entry(apk: &[u8], name: &str) -> Vec<u8> {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(apk)).unwrap();
        let mut out = Vec::new();
        zip.by_name(name).unwrap().read_to_end(&mut out).unwrap();
        out
    }

    fn zipped(name: &str, bytes: &[u8]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut buf);
        z.start_file(name, zip::write::SimpleFileOptions::default())
            .unwrap();
        z.write_all(bytes).unwrap();
        z.finish().unwrap();
        buf.into_inner()
    }

    /// The chunk types from the document's first child to its first element.
    fn chunks_to_first_element(xml: &[u8]) -> Vec<u16> {
        let mut at = usize::from(u16_at(xml, 2).unwrap());
        let mut kinds = Vec::new();
        while kinds.last() != Some(&RES_XML_START_ELEMENT) {
            kinds.push(u16_at(xml, at).unwrap());
            at += u32_at(xml, at + 4).unwrap() as usize;
        }
        kinds
    }

    #[test]
    fn reads_the_apks_aapt_and_aapt2_built() {
        // What `aapt dump badging` says of each (tests/fixtures/SOURCES.md).
        let info = |package: &str, code: u64, name: Option<&str>| ApkInfo {
            package: package.into(),
            version_code: code,
            version_name: name.map(str::to_string),
        };
        assert_eq!(
            read_apk(&fixture("aapt2-todo.apk")).unwrap(),
            info("com.example.todo", 42, Some("4.2-beta"))
        );
        // versionCode 0x10 (a hex integer) under versionCodeMajor 1: the device reports
        // 4294967312. The name is UTF-16 beyond ASCII.
        assert_eq!(
            read_apk(&fixture("aapt-notes.apk")).unwrap(),
            info(
                "org.example.notes.beta",
                (1 << 32) | 16,
                Some("2.0 – Ωmega")
            )
        );
        // versionName is @string/version_name, a reference: no name rather than a wrong one.
        assert_eq!(
            read_apk(&fixture("aapt2-shop.apk")).unwrap(),
            info("com.example.shop", 7, None)
        );
    }

    #[test]
    fn a_layout_is_refused_by_its_element_name_from_a_utf8_pool() {
        // aapt2 writes a layout's string pool in UTF-8, the manifest's in UTF-16.
        let layout = entry(&fixture("aapt2-todo.apk"), "res/layout/activity_main.xml");
        assert_ne!(u32_at(&layout, 8 + 16).unwrap() & UTF8_FLAG, 0);
        assert_eq!(
            read_apk(&zipped("AndroidManifest.xml", &layout)).unwrap_err(),
            "the first element is <LinearLayout>, not <manifest>"
        );
    }

    #[test]
    fn what_is_no_apk_or_no_manifest_is_refused_with_why() {
        assert!(read_apk(b"not a zip").unwrap_err().contains("not an APK"));
        assert_eq!(
            read_apk(&zipped("classes.dex", b"dex\n035\0")).unwrap_err(),
            "not an APK: it has no AndroidManifest.xml"
        );
        let manifest = entry(&fixture("aapt2-todo.apk"), "AndroidManifest.xml");
        for bad in [
            &b""[..],
            b"PK\x03\x04",
            &manifest[..40],
            b"<manifest package=\"a.b\"/>",
        ] {
            assert!(read_manifest_xml(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            read_manifest_xml(&manifest[..300]).unwrap_err(),
            "AndroidManifest.xml is cut short"
        );
    }

    #[test]
    fn writes_a_manifest_as_aapt2_lays_one_out_and_reads_it_back() {
        let xml = manifest_xml("com.example.todo", 42, "4.2-beta");
        let aapt2 = entry(&fixture("aapt2-todo.apk"), "AndroidManifest.xml");
        assert_eq!(
            chunks_to_first_element(&xml),
            chunks_to_first_element(&aapt2)
        );
        assert_eq!(
            read_manifest_xml(&xml).unwrap(),
            read_manifest_xml(&aapt2).unwrap()
        );
    }
}
