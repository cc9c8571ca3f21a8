//! `pm install PATH`: reads the APK's manifest (package, versionCode, versionName) as
//! PackageParser does, and installs or replaces the app with PackageManagerShellCommand's
//! answers: `Success`, or `Failure [INSTALL_FAILED_VERSION_DOWNGRADE: …]` for an older
//! version without `-d`, `Failure [INSTALL_PARSE_FAILED_NOT_APK: …]` for a file that is no APK.
//! The binary-XML reading is the client's (`spock_core::device::parse::apk`) again: the phone
//! and the client each read the manifest for themselves.
use std::io::Read;

use super::Ctx;
use crate::device::state::InstalledApp;
use crate::scenario::AppSpec;

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
        .map_err(|e| format!("not a zip archive: {e}"))?;
    let entry = zip
        .by_name("AndroidManifest.xml")
        .map_err(|_| "no AndroidManifest.xml".to_string())?;
    let mut xml = Vec::new();
    entry
        .take(MAX_MANIFEST)
        .read_to_end(&mut xml)
        .map_err(|e| format!("reading AndroidManifest.xml: {e}"))?;
    read_manifest_xml(&xml)
}

/// `pm install [-r] [-d] [-t] [-g] [-i PKG] PATH` (also `cmd package install`).
pub fn install(ctx: &mut Ctx, args: &[&str]) -> i32 {
    let mut downgrade = false;
    let mut path = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "-d" => downgrade = true,
            "-i" | "--user" | "--install-location" | "-S" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            p => path = Some(p.to_string()),
        }
    }
    let Some(path) = path else {
        ctx.errln("Error: must either specify a package size or an APK file");
        return 1;
    };
    let data = match ctx.st.fs.read(&path) {
        Ok(d) => d,
        Err(_) => {
            ctx.errln(&format!("Error: Can't open file: {path}"));
            return 1;
        }
    };
    let info = match read_apk(&data) {
        Ok(i) => i,
        Err(e) => {
            ctx.outln(&format!(
                "Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse {path}: {e}]"
            ));
            return 1;
        }
    };
    if let Some(old) = ctx.st.installed.get(&info.package)
        && old.spec.version_code > info.version_code
        && !downgrade
    {
        ctx.outln(&format!(
            "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code {} is older than current {}]",
            info.version_code, old.spec.version_code
        ));
        return 1;
    }
    let uid = ctx
        .st
        .installed
        .get(&info.package)
        .map_or_else(|| 10150 + ctx.st.installed.len() as u32 + 50, |a| a.uid);
    let previous = ctx.st.installed.get(&info.package).map(|a| a.spec.clone());
    let spec = AppSpec {
        package: info.package.clone(),
        label: previous
            .as_ref()
            .map_or_else(|| info.package.clone(), |p| p.label.clone()),
        version_name: info.version_name.clone().unwrap_or_default(),
        version_code: info.version_code,
        ..previous.unwrap_or(AppSpec {
            package: String::new(),
            label: String::new(),
            launcher: None,
            version_name: String::new(),
            version_code: 0,
            debuggable: false,
            system: false,
            permissions: Default::default(),
            first_screen: None,
            functions: Vec::new(),
        })
    };
    ctx.st.force_stop(&info.package);
    let permissions = spec.permissions.clone();
    let code_hash = crate::device::state::code_hash(&info.package);
    ctx.st.installed.insert(
        info.package.clone(),
        InstalledApp {
            spec,
            uid,
            permissions,
            code_hash,
        },
    );
    ctx.outln("Success");
    0
}
