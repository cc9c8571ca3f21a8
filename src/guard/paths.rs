//! Path guards for `android_push_file` / `android_pull_file`.
//!
//! Device paths are allowed only under [`DEVICE_ROOTS`]; everything else is refused, not
//! confirmed (the seed: one conditional gate that sometimes prompts would be a second safety
//! model). The check is lexical here; the tool resolves the real path on the device with
//! `realpath` and calls [`device_path`] again on the answer, which catches symlinks.
//! Local push sources must resolve (symlinks included) inside the roots the caller names:
//! push and pull compose into an arbitrary local read otherwise.
use std::path::{Path, PathBuf};

/// Where a device path may point.
pub const DEVICE_ROOTS: &[&str] = &["/sdcard", "/storage", "/data/local/tmp"];

const MAX_PATH: usize = 4096;

#[derive(Debug, thiserror::Error)]
pub enum PathRefusal {
    #[error("the path is empty")]
    Empty,
    #[error("the path is longer than {MAX_PATH} bytes")]
    TooLong,
    #[error(
        "the path contains a control character (NUL, newline, …), which no real file name here needs"
    )]
    ControlChar,
    #[error("device paths must be absolute (start with `/`), got `{0}`")]
    Relative(String),
    #[error("`{path}` climbs above `/` with `..`")]
    AboveRoot { path: String },
    #[error("`{path}` uses `..` to leave the storage volume `{volume}`")]
    LeavesVolume { path: String, volume: String },
    #[error("`{shown}` is outside the allowed device roots (/sdcard, /storage, /data/local/tmp)")]
    OutsideDeviceRoots { shown: String },
    #[error("`{path}` could not be resolved locally: {source}")]
    Unresolvable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{path}` resolves to `{resolved}`, outside the project and pull directories")]
    OutsideLocalRoots { path: PathBuf, resolved: PathBuf },
    #[error("no local roots are configured, so no local file may be pushed")]
    NoLocalRoots,
}

/// Normalises a device path and allows it only under [`DEVICE_ROOTS`]; returns the normalised
/// path (`.` and `..` resolved, slashes collapsed, backslashes read as slashes).
///
/// Percent-encoding is decoded (repeatedly, for `%252e`) and the decoded form must pass too:
/// a layer further down may decode it, and a path that only escapes once decoded is still
/// hostile. The path returned is the normalised original, not the decoded one, because that
/// is the file the agent named.
pub fn device_path(p: &str) -> Result<String, PathRefusal> {
    let normal = normalise(p)?;
    let mut decoded = p.to_string();
    for _ in 0..4 {
        let next = percent_decode(&decoded);
        if next == decoded {
            break;
        }
        normalise(&next)?;
        decoded = next;
    }
    Ok(normal)
}

fn normalise(p: &str) -> Result<String, PathRefusal> {
    if p.is_empty() {
        return Err(PathRefusal::Empty);
    }
    if p.len() > MAX_PATH {
        return Err(PathRefusal::TooLong);
    }
    if p.chars().any(char::is_control) {
        return Err(PathRefusal::ControlChar);
    }
    let p = p.replace('\\', "/");
    if !p.starts_with('/') {
        return Err(PathRefusal::Relative(p));
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                let before: Option<Vec<&str>> = volume(&parts).map(<[&str]>::to_vec);
                if parts.pop().is_none() {
                    return Err(PathRefusal::AboveRoot { path: p.clone() });
                }
                // `..` may move about inside a volume but never out of the one it entered:
                // `/storage/emulated/0/../../data` names no file an agent needs.
                if let Some(vol) = before
                    && !parts.starts_with(&vol)
                {
                    return Err(PathRefusal::LeavesVolume {
                        path: p.clone(),
                        volume: format!("/{}", vol.join("/")),
                    });
                }
            }
            c => parts.push(c),
        }
    }
    let normal = format!("/{}", parts.join("/"));
    let inside = DEVICE_ROOTS.iter().any(|root| {
        normal == *root
            || normal
                .strip_prefix(root)
                .is_some_and(|rest| rest.starts_with('/'))
    });
    if !inside {
        return Err(PathRefusal::OutsideDeviceRoots { shown: normal });
    }
    Ok(normal)
}

/// The storage volume (or allowed root) a path is in, as its leading components.
fn volume<'a, 'b>(parts: &'b [&'a str]) -> Option<&'b [&'a str]> {
    let n = match parts {
        ["data", "local", "tmp", ..] => 3,
        ["sdcard", ..] => 1,
        ["storage", "emulated", _, ..] | ["storage", "self", "primary", ..] => 3,
        ["storage", "emulated" | "self"] => 1,
        ["storage", _, ..] => 2,
        ["storage"] => 1,
        _ => return None,
    };
    Some(&parts[..n])
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|c| hex(*c)),
                b.get(i + 2).and_then(|c| hex(*c)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Canonicalises a local file to push (symlinks resolved) and requires it inside one of
/// `roots` (the project directories and the pull directory). A relative path is looked up
/// under each root in order. The file must exist: a path that cannot be resolved cannot be
/// checked.
pub fn local_source(p: &Path, roots: &[PathBuf]) -> Result<PathBuf, PathRefusal> {
    if p.as_os_str().is_empty() {
        return Err(PathRefusal::Empty);
    }
    let roots: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .collect();
    if roots.is_empty() {
        return Err(PathRefusal::NoLocalRoots);
    }
    let candidates: Vec<PathBuf> = if p.is_absolute() {
        vec![p.to_path_buf()]
    } else {
        roots.iter().map(|r| r.join(p)).collect()
    };
    let mut last_err = None;
    for c in &candidates {
        match std::fs::canonicalize(c) {
            Ok(resolved) => {
                if roots.iter().any(|r| resolved.starts_with(r)) {
                    return Ok(resolved);
                }
                return Err(PathRefusal::OutsideLocalRoots {
                    path: p.to_path_buf(),
                    resolved,
                });
            }
            Err(e) => last_err = Some(e),
        }
    }
    let source = last_err.unwrap_or_else(|| std::io::Error::other("no candidate path"));
    Err(PathRefusal::Unresolvable {
        path: p.to_path_buf(),
        source,
    })
}
