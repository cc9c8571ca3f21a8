//! Path guards for `android_push_file` / `android_pull_file`.
//!
//! Device paths are allowed only under [`DEVICE_ROOTS`]; everything else is refused, not
//! confirmed (the seed: one conditional gate that sometimes prompts would be a second safety
//! model). The check is lexical here; the tool resolves the real path on the device with
//! `realpath` and calls [`device_path`] again on the answer, which catches symlinks.
//! Local push sources must resolve (symlinks included) inside the roots the caller names:
//! push and pull compose into an arbitrary local read otherwise. [`open_local_source`] then
//! opens the resolved file once, from the root down without following any link, so a link
//! swapped in after the check is refused rather than read, and refuses a hard-linked file
//! (a second name for a file that may live outside the roots).
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
    #[error("`{path}` changed while it was checked (a symbolic link appeared in it); not read")]
    Changed { path: PathBuf },
    #[error("`{path}` is not a regular file")]
    NotRegular { path: PathBuf },
    #[error(
        "`{path}` has {links} hard links, so it may be a file from outside the project and pull \
         directories; copy it into the root and push the copy"
    )]
    HardLinks { path: PathBuf, links: u64 },
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

/// [`local_source`], then the file opened exactly once: each component from the root down
/// with `openat(O_NOFOLLOW)` (a link swapped in after the check fails the open instead of
/// being followed), checked as opened (a regular file with one link). The bytes pushed are
/// read from the returned handle, never by path again. Blocking.
pub fn open_local_source(
    p: &Path,
    roots: &[PathBuf],
) -> Result<(PathBuf, std::fs::File), PathRefusal> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    let resolved = local_source(p, roots)?;
    let root = roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .filter(|r| resolved.starts_with(r))
        .max_by_key(|r| r.as_os_str().len())
        .ok_or_else(|| PathRefusal::OutsideLocalRoots {
            path: p.to_path_buf(),
            resolved: resolved.clone(),
        })?;
    let changed = || PathRefusal::Changed {
        path: resolved.clone(),
    };
    let gone = |source: std::io::Error| PathRefusal::Unresolvable {
        path: p.to_path_buf(),
        source,
    };
    let open_at = |dir: Option<&OwnedFd>, name: &std::ffi::OsStr, flags: libc::c_int| {
        let c = std::ffi::CString::new(name.as_bytes()).map_err(|_| PathRefusal::ControlChar)?;
        let flags = flags | libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK;
        let at = dir.map_or(libc::AT_FDCWD, AsRawFd::as_raw_fd);
        // SAFETY: a valid C string and a directory descriptor we hold (or AT_FDCWD).
        let fd = unsafe { libc::openat(at, c.as_ptr(), flags) };
        if fd < 0 {
            let e = std::io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ELOOP | libc::ENOTDIR) => changed(),
                _ => gone(e),
            });
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    };
    let mut dir = open_at(None, root.as_os_str(), libc::O_DIRECTORY)?;
    let rel: Vec<_> = resolved
        .strip_prefix(&root)
        .map_err(|_| changed())?
        .components()
        .map(|c| c.as_os_str().to_owned())
        .collect();
    let Some((last, parents)) = rel.split_last() else {
        return Err(PathRefusal::NotRegular { path: resolved });
    };
    for name in parents {
        dir = open_at(Some(&dir), name, libc::O_DIRECTORY)?;
    }
    let file = std::fs::File::from(open_at(Some(&dir), last, 0)?);
    let meta = file.metadata().map_err(gone)?;
    if !meta.is_file() {
        return Err(PathRefusal::NotRegular { path: resolved });
    }
    let links = std::os::unix::fs::MetadataExt::nlink(&meta);
    if links != 1 {
        return Err(PathRefusal::HardLinks {
            path: resolved,
            links,
        });
    }
    // SAFETY: F_GETFL/F_SETFL on a descriptor we hold: reads block normally again.
    unsafe {
        let fl = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
        if fl >= 0 {
            libc::fcntl(file.as_raw_fd(), libc::F_SETFL, fl & !libc::O_NONBLOCK);
        }
    }
    Ok((resolved, file))
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
