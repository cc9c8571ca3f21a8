//! What the package manager reads of an APK before it installs it: the "lite" parse that
//! `pm install PATH` runs first (`PackageManagerShellCommand.setParamsSize` calling
//! `ApkLiteParseUtils.parseApkLite`, frameworks/base; revisions in `tests/fixtures/SOURCES.md`).
//!
//! This is the phone's reading, written from Android's side and kept apart from the client's
//! (`spock_core::device::parse::apk` reads the same bytes for its own reasons; the two are never
//! checked against each other, each is checked against APKs built by Android's own aapt and
//! aapt2 in `tests/fixtures/apk/`). It follows the platform's steps:
//! - `ApkAssets` opens the zip: a file that is no zip is `INSTALL_PARSE_FAILED_NOT_APK`;
//! - `ResXMLTree::setTo` (`libs/androidfw/ResourceTypes.cpp`) checks the whole binary XML
//!   before anything is read: chunk sizes inside their parent and on 4-byte boundaries, a string
//!   pool, a first node. A file it refuses throws "Corrupt XML binary file", a missing
//!   `AndroidManifest.xml` throws "AndroidManifest.xml": both are
//!   `INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION`;
//! - there must be an element ("No start tag found"), the first one `<manifest>` ("No
//!   <manifest> tag"), its `package` (no namespace) a valid name (`validateName`: "Invalid
//!   manifest package: …");
//! - `versionCode` and `versionCodeMajor` are found by name in the android namespace and count
//!   only when their value is an integer (`getAttributeIntValue`), composed into the long
//!   version code; `versionName` is found by its resource id through the XML's resource map, as
//!   the full parse's `TypedArray` finds it. A `versionName` that is a resource reference is
//!   not looked up in `resources.arsc` here (a phone would): the virtual device shows none.
//!
//! Not modelled: signatures (a phone refuses an unsigned APK with
//! `INSTALL_PARSE_FAILED_NO_CERTIFICATES`; the virtual device installs it), splits, SDK levels.
use std::io::Read;

/// What the lite parse gives the install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApkLite {
    pub package: String,
    /// `versionCodeMajor` in the high 32 bits, `versionCode` in the low
    /// (`PackageInfo.composeLongVersionCode`).
    pub long_version_code: u64,
    pub version_name: Option<String>,
}

/// Why the lite parse failed: the `ParseResult` error that `setParamsSize` puts in its
/// exception.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFailure {
    /// `ApkAssets` could not open it: `INSTALL_PARSE_FAILED_NOT_APK`.
    NotApk,
    /// An exception while reading the manifest (its message kept as the cause):
    /// `INSTALL_PARSE_FAILED_UNEXPECTED_EXCEPTION`.
    Unexpected(String),
    /// `INSTALL_PARSE_FAILED_MANIFEST_MALFORMED`.
    Malformed(&'static str),
    /// `INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME`, with `validateName`'s reason.
    BadPackageName(String),
}

impl ParseFailure {
    /// The `ParseResult`'s message for the APK at `path`.
    pub fn message(&self, path: &str) -> String {
        match self {
            Self::NotApk | Self::Unexpected(_) => format!("Failed to parse {path}"),
            Self::Malformed(why) => (*why).to_string(),
            Self::BadPackageName(why) => format!("Invalid manifest package: {why}"),
        }
    }
}

const CORRUPT: &str = "Corrupt XML binary file";
const ANDROID_NS: &str = "http://schemas.android.com/apk/res/android";
/// `android:versionName` (`android.R.attr.versionName`).
const ATTR_VERSION_NAME: u32 = 0x0101_021c;
/// Far above any manifest; a larger entry is read no further.
const MANIFEST_LIMIT: u64 = 8 << 20;

mod kind {
    pub const STRING_POOL: u16 = 0x0001;
    pub const XML: u16 = 0x0003;
    pub const FIRST_NODE: u16 = 0x0100;
    pub const LAST_NODE: u16 = 0x017f;
    pub const START_ELEMENT: u16 = 0x0102;
    pub const RESOURCE_MAP: u16 = 0x0180;
}

/// Reads the APK the way `parseApkLite` does.
pub fn parse(apk: &[u8]) -> Result<ApkLite, ParseFailure> {
    let mut zip =
        zip::ZipArchive::new(std::io::Cursor::new(apk)).map_err(|_| ParseFailure::NotApk)?;
    let mut xml = Vec::new();
    match zip.by_name("AndroidManifest.xml") {
        Ok(entry) => entry
            .take(MANIFEST_LIMIT)
            .read_to_end(&mut xml)
            .map_err(|e| ParseFailure::Unexpected(e.to_string()))?,
        // `ApkAssets.openXml` throws FileNotFoundException with the entry's name.
        Err(_) => return Err(ParseFailure::Unexpected("AndroidManifest.xml".into())),
    };
    let tree = Tree::load(&xml).ok_or_else(|| ParseFailure::Unexpected(CORRUPT.into()))?;
    lite(&tree)
}

/// Little-endian fields of a byte slice; `None` past its end.
struct Le<'a>(&'a [u8]);

impl Le<'_> {
    fn u8(&self, at: usize) -> Option<u8> {
        self.0.get(at).copied()
    }
    fn u16(&self, at: usize) -> Option<u16> {
        let b = self.0.get(at..at.checked_add(2)?)?;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&self, at: usize) -> Option<u32> {
        let b = self.0.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// One chunk's header (`ResChunk_header`), checked as `validate_chunk` checks it.
#[derive(Clone, Copy)]
struct Chunk {
    kind: u16,
    start: usize,
    header: usize,
    end: usize,
}

fn chunk_at(data: &Le<'_>, start: usize, limit: usize, min_header: usize) -> Option<Chunk> {
    let kind = data.u16(start)?;
    let header = usize::from(data.u16(start + 2)?);
    let size = data.u32(start + 4)? as usize;
    let aligned = (header | size) & 3 == 0;
    let end = start.checked_add(size)?;
    (aligned && header >= min_header && size >= header && end <= limit).then_some(Chunk {
        kind,
        start,
        header,
        end,
    })
}

/// The string pool, every string decoded up front (`ResStringPool`). A string that cannot be
/// decoded is `None`, as `stringAt` fails for that one only.
fn string_pool(data: &Le<'_>, c: Chunk) -> Option<Vec<Option<String>>> {
    if c.header < 28 {
        return None;
    }
    let count = data.u32(c.start + 8)? as usize;
    let utf8 = data.u32(c.start + 16)? & 0x100 != 0;
    let strings = c.start + data.u32(c.start + 20)? as usize;
    let offsets = c.start + c.header;
    if count > 0 && (offsets.checked_add(count.checked_mul(4)?)? > c.end || strings >= c.end) {
        return None;
    }
    let one = |i: usize| -> Option<String> {
        let at = strings.checked_add(data.u32(offsets + 4 * i)? as usize)?;
        let body = Le(data.0.get(at..c.end)?);
        if utf8 {
            // UTF-16 length, then UTF-8 length: one byte, or two with the high bit set.
            let len8 = |at: usize| -> Option<(usize, usize)> {
                let b = usize::from(body.u8(at)?);
                if b & 0x80 == 0 {
                    Some((b, at + 1))
                } else {
                    Some((((b & 0x7f) << 8) | usize::from(body.u8(at + 1)?), at + 2))
                }
            };
            let (_, at) = len8(0)?;
            let (n, at) = len8(at)?;
            String::from_utf8(body.0.get(at..at + n)?.to_vec()).ok()
        } else {
            // One unit, or two with the high bit of the first set.
            let first = usize::from(body.u16(0)?);
            let (n, at) = if first & 0x8000 == 0 {
                (first, 2)
            } else {
                (((first & 0x7fff) << 16) | usize::from(body.u16(2)?), 4)
            };
            let units = body.0.get(at..at + 2 * n)?;
            let units: Vec<u16> = units
                .chunks_exact(2)
                .map(|u| u16::from_le_bytes([u[0], u[1]]))
                .collect();
            String::from_utf16(&units).ok()
        }
    };
    Some((0..count).map(one).collect())
}

/// A binary XML document as `ResXMLTree` holds it once loaded: its strings, its attributes'
/// resource ids, and its first element (none when it has only namespaces).
struct Tree<'a> {
    data: Le<'a>,
    strings: Vec<Option<String>>,
    resource_ids: Vec<u32>,
    root: Option<Chunk>,
}

impl<'a> Tree<'a> {
    /// `None` where `setTo` fails ("Corrupt XML binary file").
    fn load(xml: &'a [u8]) -> Option<Tree<'a>> {
        let data = Le(xml);
        let top = chunk_at(&data, 0, xml.len(), 8)?;
        if top.kind != kind::XML {
            return None;
        }
        let (mut strings, mut resource_ids, mut root) = (None, Vec::new(), None);
        let mut nodes = false;
        let mut at = top.start + top.header;
        while at < top.end {
            let c = chunk_at(&data, at, top.end, 8)?;
            match c.kind {
                kind::STRING_POOL => strings = Some(string_pool(&data, c)?),
                kind::RESOURCE_MAP => {
                    resource_ids = (c.start + c.header..c.end)
                        .step_by(4)
                        .map(|i| data.u32(i))
                        .collect::<Option<_>>()?;
                }
                kind::FIRST_NODE..=kind::LAST_NODE => {
                    // Nodes need the strings read before them; the first element is the root.
                    strings.as_ref()?;
                    if c.header < 16 {
                        return None;
                    }
                    nodes = true;
                    if c.kind == kind::START_ELEMENT {
                        let ext = c.start + c.header;
                        let first = usize::from(data.u16(ext + 8)?);
                        let each = usize::from(data.u16(ext + 10)?);
                        let count = usize::from(data.u16(ext + 12)?);
                        if ext + first + each * count > c.end {
                            return None;
                        }
                        root = Some(c);
                        break;
                    }
                }
                _ => {}
            }
            at = c.end;
        }
        // "Bad XML block: no root element node found".
        if !nodes {
            return None;
        }
        Some(Tree {
            data,
            strings: strings?,
            resource_ids,
            root,
        })
    }

    fn string(&self, index: u32) -> Option<&str> {
        self.strings.get(index as usize)?.as_deref()
    }

    /// The root element's name and its attributes.
    fn root(&self) -> Option<(&str, Vec<Attr>)> {
        let c = self.root?;
        let ext = c.start + c.header;
        let name = self.string(self.data.u32(ext + 4)?)?;
        let first = usize::from(self.data.u16(ext + 8)?);
        let each = usize::from(self.data.u16(ext + 10)?);
        let count = usize::from(self.data.u16(ext + 12)?);
        let attrs = (0..count)
            .map(|i| {
                let a = ext + first + i * each;
                Some(Attr {
                    ns: self.data.u32(a)?,
                    name: self.data.u32(a + 4)?,
                    raw: self.data.u32(a + 8)?,
                    kind: self.data.u8(a + 15)?,
                    data: self.data.u32(a + 16)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some((name, attrs))
    }
}

/// One attribute (`ResXMLTree_attribute`): string references and its typed value.
struct Attr {
    ns: u32,
    name: u32,
    raw: u32,
    kind: u8,
    data: u32,
}

const NONE: u32 = u32::MAX;
const TYPE_STRING: u8 = 0x03;
const TYPE_FIRST_INT: u8 = 0x10;
const TYPE_LAST_INT: u8 = 0x1f;

fn lite(tree: &Tree<'_>) -> Result<ApkLite, ParseFailure> {
    if tree.root.is_none() {
        return Err(ParseFailure::Malformed("No start tag found"));
    }
    let corrupt = || ParseFailure::Unexpected(CORRUPT.into());
    let (element, attrs) = tree.root().ok_or_else(corrupt)?;
    if element != "manifest" {
        return Err(ParseFailure::Malformed("No <manifest> tag"));
    }
    let named = |ns: Option<&str>, name: &str| {
        attrs.iter().find(|a| {
            let a_ns = (a.ns != NONE).then(|| tree.string(a.ns)).flatten();
            tree.string(a.name) == Some(name) && a_ns == ns
        })
    };
    // `getAttributeValue(null, "package")`: the raw string, else a string value.
    let package = named(None, "package").and_then(|a| {
        if a.raw != NONE {
            tree.string(a.raw)
        } else if a.kind == TYPE_STRING {
            tree.string(a.data)
        } else {
            None
        }
    });
    // A missing package is a NullPointerException inside validateName.
    let package = package.ok_or_else(|| ParseFailure::Unexpected("NullPointerException".into()))?;
    if package != "android" {
        valid_name(package).map_err(ParseFailure::BadPackageName)?;
    }
    let int = |name: &str| {
        named(Some(ANDROID_NS), name)
            .filter(|a| (TYPE_FIRST_INT..=TYPE_LAST_INT).contains(&a.kind))
            .map_or(0, |a| u64::from(a.data))
    };
    let version_name = attrs
        .iter()
        .find(|a| tree.resource_ids.get(a.name as usize) == Some(&ATTR_VERSION_NAME))
        .filter(|a| a.kind == TYPE_STRING)
        .and_then(|a| tree.string(a.data))
        .map(str::to_string);
    Ok(ApkLite {
        package: package.to_string(),
        long_version_code: (int("versionCodeMajor") << 32) | int("versionCode"),
        version_name,
    })
}

/// `FrameworkParsingPackageUtils.validateName(name, requireSeparator = true, requireFilename
/// = true)`: segments of letters, then letters, digits and `_`, joined by dots.
fn valid_name(name: &str) -> Result<(), String> {
    let (mut separated, mut segment_start) = (false, true);
    for c in name.chars() {
        if c.is_ascii_alphabetic() {
            segment_start = false;
            continue;
        }
        if !segment_start && (c.is_ascii_digit() || c == '_') {
            continue;
        }
        if c != '.' {
            return Err(format!("bad character '{c}'"));
        }
        separated = true;
        segment_start = true;
    }
    if matches!(name, "" | "." | "..") {
        return Err("Invalid filename".into());
    }
    if separated {
        Ok(())
    } else {
        Err("must have at least one '.' separator".into())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    const TODO: &[u8] = include_bytes!("../../../../../tests/fixtures/apk/aapt2-todo.apk");
    const NOTES: &[u8] = include_bytes!("../../../../../tests/fixtures/apk/aapt-notes.apk");
    const SHOP: &[u8] = include_bytes!("../../../../../tests/fixtures/apk/aapt2-shop.apk");

    fn entry(apk: &[u8], name: &str) -> Vec<u8> {
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(apk)).unwrap();
        let mut out = Vec::new();
        zip.by_name(name).unwrap().read_to_end(&mut out).unwrap();
        out
    }

    fn zipped(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut buf = std::io::Cursor::new(Vec::new());
        let mut z = zip::ZipWriter::new(&mut buf);
        for (name, bytes) in files {
            z.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            z.write_all(bytes).unwrap();
        }
        z.finish().unwrap();
        buf.into_inner()
    }

    /// The manifest of `apk` with `from` (UTF-16, as aapt writes the manifest's pool) replaced.
    fn with_package(apk: &[u8], from: &str, to: &str) -> Vec<u8> {
        assert_eq!(from.len(), to.len());
        let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        let (from, to) = (utf16(from), utf16(to));
        let mut xml = entry(apk, "AndroidManifest.xml");
        let at = xml.windows(from.len()).position(|w| w == from).unwrap();
        xml[at..at + to.len()].copy_from_slice(&to);
        zipped(&[("AndroidManifest.xml", &xml)])
    }

    #[test]
    fn reads_what_aapt_and_aapt2_built() {
        // What `aapt dump badging` says of each (tests/fixtures/SOURCES.md).
        assert_eq!(
            parse(TODO).unwrap(),
            ApkLite {
                package: "com.example.todo".into(),
                long_version_code: 42,
                version_name: Some("4.2-beta".into()),
            }
        );
        // versionCode 0x10 (a hex integer) with versionCodeMajor 1; a UTF-16 name beyond ASCII.
        assert_eq!(
            parse(NOTES).unwrap(),
            ApkLite {
                package: "org.example.notes.beta".into(),
                long_version_code: (1 << 32) | 16,
                version_name: Some("2.0 – Ωmega".into()),
            }
        );
        // versionName is @string/version_name: resolved by a phone, not here.
        assert_eq!(
            parse(SHOP).unwrap(),
            ApkLite {
                package: "com.example.shop".into(),
                long_version_code: 7,
                version_name: None,
            }
        );
    }

    #[test]
    fn a_utf8_pool_decodes_and_a_layout_is_no_manifest() {
        // aapt2 writes a layout's pool in UTF-8 (the manifest's in UTF-16).
        let layout = entry(TODO, "res/layout/activity_main.xml");
        let tree = Tree::load(&layout).unwrap();
        assert!(
            tree.strings
                .iter()
                .any(|s| s.as_deref() == Some("Tâches – ToDo ✓")),
            "{:?}",
            tree.strings
        );
        assert_eq!(tree.root().unwrap().0, "LinearLayout");
        let apk = zipped(&[("AndroidManifest.xml", &layout)]);
        assert_eq!(
            parse(&apk),
            Err(ParseFailure::Malformed("No <manifest> tag"))
        );
    }

    #[test]
    fn what_a_phone_refuses_is_refused_with_its_reason() {
        let path = "/data/local/tmp/x.apk";
        assert_eq!(parse(b"not a zip"), Err(ParseFailure::NotApk));
        assert_eq!(
            parse(b"not a zip").unwrap_err().message(path),
            "Failed to parse /data/local/tmp/x.apk"
        );
        let no_manifest = zipped(&[("classes.dex", b"dex\n035\0")]);
        assert_eq!(
            parse(&no_manifest),
            Err(ParseFailure::Unexpected("AndroidManifest.xml".into()))
        );
        let manifest = entry(TODO, "AndroidManifest.xml");
        for cut in [0, 7, 8, manifest.len() / 2, manifest.len() - 4] {
            let apk = zipped(&[("AndroidManifest.xml", &manifest[..cut])]);
            assert_eq!(
                parse(&apk),
                Err(ParseFailure::Unexpected(CORRUPT.into())),
                "cut at {cut}"
            );
        }
        // A real manifest up to its namespace: nodes, but no element.
        let mut at = 8;
        loop {
            let kind = u16::from_le_bytes([manifest[at], manifest[at + 1]]);
            at += u32::from_le_bytes(manifest[at + 4..at + 8].try_into().unwrap()) as usize;
            if kind == kind::FIRST_NODE {
                break;
            }
        }
        let mut head = manifest[..at].to_vec();
        head[4..8].copy_from_slice(&(at as u32).to_le_bytes());
        assert_eq!(
            parse(&zipped(&[("AndroidManifest.xml", &head)])),
            Err(ParseFailure::Malformed("No start tag found"))
        );
        let plain = zipped(&[("AndroidManifest.xml", b"<manifest package=\"a.b\"/>")]);
        assert_eq!(parse(&plain), Err(ParseFailure::Unexpected(CORRUPT.into())));
        let no_dot = with_package(TODO, "com.example.todo", "comXexampleXtodo");
        let f = parse(&no_dot).unwrap_err();
        assert_eq!(
            f.message(path),
            "Invalid manifest package: must have at least one '.' separator"
        );
        let dash = with_package(TODO, "com.example.todo", "com.example.to-o");
        assert_eq!(
            parse(&dash).unwrap_err().message(path),
            "Invalid manifest package: bad character '-'"
        );
        let digit_first = with_package(TODO, "com.example.todo", "com.example.2odo");
        assert!(matches!(
            parse(&digit_first),
            Err(ParseFailure::BadPackageName(_))
        ));
    }
}
