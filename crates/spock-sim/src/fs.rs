//! The virtual device's filesystem, in memory: what `adb push`/`pull`, `ls`, `stat`, `rm`,
//! `cat` and tools that write files (`screencap -p FILE`, `uiautomator dump FILE`) see.
//!
//! It models what the shell user meets on a phone: `/sdcard` is a symlink to
//! `/storage/emulated/0`, `/data/local/tmp` is writable, `/data/data/…` is permission denied
//! and `/system` is read-only. Paths are absolute and walked as the kernel walks them: one
//! component at a time, a symlink's target spliced in where it is met (absolute from `/`,
//! relative from the link's directory), `..` taken from wherever the walk has got to, and more
//! than 40 links in one walk is ELOOP (Linux's `MAXSYMLINKS`). The shell user can make links
//! where a phone lets it (`/data/local/tmp`: ext4/f2fs), not on emulated storage (`/storage`,
//! so `/sdcard`: sdcardfs and Android's FUSE daemon have no symlinks).
use std::collections::{BTreeMap, VecDeque};

use bytes::Bytes;

use super::{FileStat, FsError};

const S_IFDIR: u32 = 0o040000;
const S_IFREG: u32 = 0o100000;
const S_IFLNK: u32 = 0o120000;
/// Linux's `MAXSYMLINKS`: links followed in one path walk before ELOOP.
const MAX_LINKS: usize = 40;

#[derive(Debug, Clone)]
enum Kind {
    Dir,
    File(Bytes),
    Link(String),
}

#[derive(Debug, Clone)]
struct Entry {
    kind: Kind,
    perm: u32,
    mtime: u32,
}

#[derive(Debug, Clone)]
pub struct Fs {
    entries: BTreeMap<String, Entry>,
    now: u32,
}

impl Default for Fs {
    fn default() -> Self {
        Fs::new(1_700_000_000)
    }
}

/// Normalises an absolute path lexically: `/sdcard/./a/../b/` → `/sdcard/b`.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

fn parent_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

impl Fs {
    pub fn new(now: u32) -> Fs {
        let mut fs = Fs {
            entries: BTreeMap::new(),
            now,
        };
        for d in [
            "/",
            "/data",
            "/data/local",
            "/data/local/tmp",
            "/data/data",
            "/data/user",
            "/data/app",
            "/storage",
            "/storage/emulated",
            "/storage/emulated/0",
            "/storage/emulated/0/Android",
            "/storage/emulated/0/DCIM",
            "/storage/emulated/0/Download",
            "/storage/emulated/0/Movies",
            "/storage/emulated/0/Pictures",
            "/storage/emulated/0/Documents",
            "/system",
            "/system/bin",
            "/vendor",
            "/proc",
            "/dev",
            "/sys",
        ] {
            fs.put(d, Kind::Dir, 0o771);
        }
        fs.put("/sdcard", Kind::Link("/storage/self/primary".into()), 0o777);
        fs.put("/storage/self", Kind::Dir, 0o755);
        fs.put(
            "/storage/self/primary",
            Kind::Link("/storage/emulated/0".into()),
            0o777,
        );
        fs.put("/system/build.prop", Kind::File(Bytes::new()), 0o600);
        fs
    }

    fn put(&mut self, path: &str, kind: Kind, perm: u32) {
        self.entries.insert(
            path.to_string(),
            Entry {
                kind,
                perm,
                mtime: self.now,
            },
        );
    }

    /// A read-only file the kernel or the system provides (`/proc/…`), with its directories,
    /// put in place with no permission checks.
    pub fn put_system_file(&mut self, path: &str, data: Bytes) {
        let path = normalize(path);
        let parents: Vec<usize> = path.match_indices('/').map(|(i, _)| i).skip(1).collect();
        for end in parents {
            let dir = &path[..end];
            if !self.entries.contains_key(dir) {
                self.put(dir, Kind::Dir, 0o555);
            }
        }
        self.put(&path, Kind::File(data), 0o444);
    }

    /// A symlink put in place with no permission checks: what root or a vendor image left
    /// (scenario and test setup). `target` is stored as written.
    pub fn put_symlink(&mut self, target: &str, link: &str) -> Result<(), FsError> {
        let real = self.walk(link, false)?;
        if self.entries.contains_key(&real) {
            return Err(FsError::Exists);
        }
        self.put(&real, Kind::Link(target.to_string()), 0o777);
        Ok(())
    }

    /// `symlink(2)` as the shell user: `target` is stored verbatim (toybox `ln -s` passes it
    /// through untouched), the link's own name is not followed, an existing name is EEXIST,
    /// and emulated storage has no symlinks at all (EPERM here; the FUSE daemon of Android 11+
    /// answers ENOSYS, sdcardfs EPERM: either way `ln` fails).
    pub fn symlink(&mut self, target: &str, link: &str) -> Result<(), FsError> {
        if target.is_empty() {
            return Err(FsError::NotFound);
        }
        let real = self.walk(link, false)?;
        if self.entries.contains_key(&real) {
            return Err(FsError::Exists);
        }
        if real == "/storage" || real.starts_with("/storage/") {
            return Err(FsError::NotPermitted);
        }
        self.writable_parent(&real)?;
        self.put(&real, Kind::Link(target.to_string()), 0o777);
        Ok(())
    }

    /// `readlink(2)`: a link's target as stored; EINVAL (here `NotFound`) for anything else.
    pub fn readlink(&self, path: &str) -> Result<String, FsError> {
        let real = self.walk(path, false)?;
        if Fs::denied(&real) {
            return Err(FsError::PermissionDenied);
        }
        match self.entries.get(&real).map(|e| &e.kind) {
            Some(Kind::Link(t)) => Ok(t.clone()),
            _ => Err(FsError::NotFound),
        }
    }

    pub fn set_now(&mut self, now: u32) {
        self.now = now;
    }

    /// App-private trees the shell user (uid 2000) cannot enter.
    fn denied(path: &str) -> bool {
        let under = |p: &str| path == p || path.starts_with(&format!("{p}/"));
        under("/data/data") || under("/data/user") || under("/data/app")
    }

    fn read_only(path: &str) -> bool {
        let under = |p: &str| path == p || path.starts_with(&format!("{p}/"));
        under("/system") || under("/vendor") || under("/proc") || under("/sys") || path == "/"
    }

    /// Follows symlinks in every component, the last one included (`stat`, `open`).
    pub fn resolve(&self, path: &str) -> Result<String, FsError> {
        self.walk(path, true)
    }

    /// The kernel's path walk. `follow_last`: whether a symlink in the last component is
    /// followed (`stat`) or named itself (`lstat`, `unlink`, `symlink`); a trailing slash always
    /// follows it, as on Linux. Missing components are kept as written, so the result names
    /// where a new file would go.
    fn walk(&self, path: &str, follow_last: bool) -> Result<String, FsError> {
        let follow_last = follow_last || (path.len() > 1 && path.ends_with('/'));
        let mut todo: VecDeque<String> = path
            .split('/')
            .filter(|c| !c.is_empty() && *c != ".")
            .map(str::to_string)
            .collect();
        let mut cur: Vec<String> = Vec::new();
        let mut links = 0;
        while let Some(c) = todo.pop_front() {
            if c == "." {
                continue;
            }
            if c == ".." {
                cur.pop();
                continue;
            }
            cur.push(c);
            let here = format!("/{}", cur.join("/"));
            let last = todo.is_empty();
            match self.entries.get(&here).map(|e| &e.kind) {
                Some(Kind::Link(target)) if follow_last || !last => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(FsError::Loop);
                    }
                    cur.pop();
                    if target.starts_with('/') {
                        cur.clear();
                    }
                    for part in target.split('/').rev() {
                        if !part.is_empty() {
                            todo.push_front(part.to_string());
                        }
                    }
                }
                Some(Kind::File(_)) if !last => return Err(FsError::NotDirectory),
                _ => {}
            }
        }
        Ok(format!("/{}", cur.join("/")))
    }

    fn entry(&self, path: &str) -> Result<(String, &Entry), FsError> {
        let real = self.resolve(path)?;
        if Fs::denied(&real) {
            return Err(FsError::PermissionDenied);
        }
        match self.entries.get(&real) {
            Some(e) => Ok((real, e)),
            None => {
                // A missing path under a regular file is ENOTDIR, as on Linux.
                let mut p = parent_of(&real).to_string();
                loop {
                    if let Some(Entry {
                        kind: Kind::File(_),
                        ..
                    }) = self.entries.get(&p)
                    {
                        return Err(FsError::NotDirectory);
                    }
                    if p == "/" {
                        return Err(FsError::NotFound);
                    }
                    p = parent_of(&p).to_string();
                }
            }
        }
    }

    fn stat_of(e: &Entry) -> FileStat {
        let (ty, size) = match &e.kind {
            Kind::Dir => (S_IFDIR, 4096),
            Kind::File(b) => (S_IFREG, b.len() as u64),
            Kind::Link(t) => (S_IFLNK, t.len() as u64),
        };
        FileStat {
            mode: ty | (e.perm & 0o7777),
            size,
            mtime: e.mtime,
        }
    }

    pub fn stat(&self, path: &str) -> Result<FileStat, FsError> {
        self.entry(path).map(|(_, e)| Fs::stat_of(e))
    }

    /// `lstat`: does not follow a final symlink.
    pub fn lstat(&self, path: &str) -> Result<FileStat, FsError> {
        let full = self.walk(path, false)?;
        if Fs::denied(&full) {
            return Err(FsError::PermissionDenied);
        }
        match self.entries.get(&full) {
            Some(e) => Ok(Fs::stat_of(e)),
            None => self.stat(path),
        }
    }

    pub fn list(&self, path: &str) -> Result<Vec<(String, FileStat)>, FsError> {
        let (real, e) = self.entry(path)?;
        if !matches!(e.kind, Kind::Dir) {
            return Err(FsError::NotDirectory);
        }
        let prefix = if real == "/" {
            "/".to_string()
        } else {
            format!("{real}/")
        };
        Ok(self
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(k, _)| k.len() > prefix.len() && !k[prefix.len()..].contains('/'))
            .map(|(k, e)| (k[prefix.len()..].to_string(), Fs::stat_of(e)))
            .collect())
    }

    pub fn read(&self, path: &str) -> Result<Bytes, FsError> {
        match &self.entry(path)?.1.kind {
            Kind::File(b) => Ok(b.clone()),
            Kind::Dir => Err(FsError::IsDirectory),
            Kind::Link(_) => Err(FsError::NotFound),
        }
    }

    fn writable_parent(&self, real: &str) -> Result<(), FsError> {
        if Fs::denied(real) {
            return Err(FsError::PermissionDenied);
        }
        if Fs::read_only(real) {
            return Err(FsError::ReadOnly);
        }
        match self.entries.get(parent_of(real)).map(|e| &e.kind) {
            Some(Kind::Dir) => Ok(()),
            Some(_) => Err(FsError::NotDirectory),
            None => Err(FsError::NotFound),
        }
    }

    pub fn write(&mut self, path: &str, mode: u32, mtime: u32, data: Bytes) -> Result<(), FsError> {
        let real = self.resolve(path)?;
        if let Some(Entry {
            kind: Kind::Dir, ..
        }) = self.entries.get(&real)
        {
            return Err(FsError::IsDirectory);
        }
        self.writable_parent(&real)?;
        let perm = if mode & 0o7777 == 0 {
            0o660
        } else {
            mode & 0o7777
        };
        self.entries.insert(
            real,
            Entry {
                kind: Kind::File(data),
                perm,
                mtime: if mtime == 0 { self.now } else { mtime },
            },
        );
        Ok(())
    }

    /// What adbd's `do_send` does with a pushed file (AOSP `adb/daemon/file_sync_service.cpp`):
    /// a regular file or a symlink already at `path` is unlinked first, so a push replaces a
    /// link rather than writing through it, then the file is created.
    pub fn replace_file(
        &mut self,
        path: &str,
        mode: u32,
        mtime: u32,
        data: Bytes,
    ) -> Result<(), FsError> {
        let real = self.walk(path, false)?;
        if matches!(
            self.entries.get(&real).map(|e| &e.kind),
            Some(Kind::File(_) | Kind::Link(_))
        ) {
            self.writable_parent(&real)?;
            self.entries.remove(&real);
        }
        self.write(&real, mode, mtime, data)
    }

    /// `mkdir` (with `parents`: `mkdir -p`, no error if it exists).
    pub fn mkdir(&mut self, path: &str, parents: bool) -> Result<(), FsError> {
        let real = self.resolve(path)?;
        if self.entries.contains_key(&real) {
            return if parents {
                Ok(())
            } else {
                Err(FsError::IsDirectory)
            };
        }
        if parents && !self.entries.contains_key(parent_of(&real)) {
            self.mkdir(parent_of(&real), true)?;
        }
        self.writable_parent(&real)?;
        self.put(&real, Kind::Dir, 0o771);
        Ok(())
    }

    /// `rm` / `rm -r`. Removing a directory without `recursive` is EISDIR.
    /// A symlink is removed itself, never what it points to (`unlink(2)`).
    pub fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        let real = self.walk(path.trim_end_matches('/'), false)?;
        if Fs::denied(&real) {
            return Err(FsError::PermissionDenied);
        }
        let is_dir = match self.entries.get(&real) {
            None => return Err(FsError::NotFound),
            Some(e) => matches!(e.kind, Kind::Dir),
        };
        self.writable_parent(&real)?;
        if is_dir {
            if !recursive {
                return Err(FsError::IsDirectory);
            }
            let prefix = format!("{real}/");
            self.entries.retain(|k, _| !k.starts_with(&prefix));
        }
        self.entries.remove(&real);
        Ok(())
    }

    pub fn is_dir(&self, path: &str) -> bool {
        self.stat(path).is_ok_and(|s| s.mode & 0o170000 == S_IFDIR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdcard_is_the_same_dir_as_storage_emulated_0() {
        let mut fs = Fs::default();
        let data = Bytes::from_static(b"\x00\x01binary\xff");
        fs.write("/sdcard/a.bin", 0o644, 5, data.clone()).unwrap();
        assert_eq!(fs.read("/storage/emulated/0/a.bin").unwrap(), data);
        assert_eq!(fs.stat("/sdcard/a.bin").unwrap().mode, 0o100644);
        let names: Vec<String> = fs
            .list("/sdcard")
            .unwrap()
            .into_iter()
            .map(|x| x.0)
            .collect();
        assert!(names.contains(&"a.bin".to_string()));
        assert_eq!(fs.lstat("/sdcard").unwrap().mode & 0o170000, S_IFLNK);
    }

    #[test]
    fn shell_user_limits() {
        let mut fs = Fs::default();
        assert_eq!(fs.list("/data/data/com.x"), Err(FsError::PermissionDenied));
        assert_eq!(
            fs.write("/system/x", 0, 0, Bytes::new()),
            Err(FsError::ReadOnly)
        );
        assert_eq!(fs.read("/sdcard/nope"), Err(FsError::NotFound));
        fs.mkdir("/data/local/tmp/a/b", true).unwrap();
        assert_eq!(
            fs.remove("/data/local/tmp/a", false),
            Err(FsError::IsDirectory)
        );
        fs.remove("/data/local/tmp/a", true).unwrap();
        assert!(!fs.is_dir("/data/local/tmp/a/b"));
    }

    #[test]
    fn links_are_walked_as_the_kernel_walks_them() {
        let mut fs = Fs::default();
        fs.mkdir("/data/local/tmp/a/b", true).unwrap();
        fs.symlink("a/b", "/data/local/tmp/l").unwrap();
        // Relative targets start from the link's directory; `..` climbs from where the link
        // led, not from the name as written.
        assert_eq!(
            fs.resolve("/data/local/tmp/l").unwrap(),
            "/data/local/tmp/a/b"
        );
        assert_eq!(
            fs.resolve("/data/local/tmp/l/..").unwrap(),
            "/data/local/tmp/a"
        );
        assert_eq!(fs.resolve("/sdcard/..").unwrap(), "/storage/emulated");
        assert_eq!(
            fs.lstat("/data/local/tmp/l").unwrap().mode & 0o170000,
            S_IFLNK
        );
        assert_eq!(
            fs.stat("/data/local/tmp/l").unwrap().mode & 0o170000,
            S_IFDIR
        );
        assert_eq!(
            fs.lstat("/data/local/tmp/l/").unwrap().mode & 0o170000,
            S_IFDIR
        );
        assert_eq!(fs.readlink("/data/local/tmp/l").unwrap(), "a/b");
        // open(O_CREAT) through a dangling link creates what it names; adbd's push does not.
        fs.symlink("/data/local/tmp/t1", "/data/local/tmp/d1")
            .unwrap();
        fs.write("/data/local/tmp/d1", 0o644, 0, Bytes::from_static(b"x"))
            .unwrap();
        assert!(fs.read("/data/local/tmp/t1").is_ok());
        fs.symlink("/data/local/tmp/t2", "/data/local/tmp/d2")
            .unwrap();
        fs.replace_file("/data/local/tmp/d2", 0o644, 0, Bytes::from_static(b"y"))
            .unwrap();
        assert_eq!(fs.read("/data/local/tmp/t2"), Err(FsError::NotFound));
        assert_eq!(
            fs.lstat("/data/local/tmp/d2").unwrap().mode & 0o170000,
            S_IFREG
        );
        // rm removes a link, never what it leads to.
        fs.remove("/data/local/tmp/l", false).unwrap();
        assert!(fs.is_dir("/data/local/tmp/a/b"));
        assert_eq!(fs.symlink("x", "/data/local/tmp/d1"), Err(FsError::Exists));
        assert_eq!(fs.symlink("x", "/sdcard/y"), Err(FsError::NotPermitted));
        assert_eq!(fs.symlink("x", "/system/y"), Err(FsError::ReadOnly));
        fs.symlink("loop", "/data/local/tmp/loop").unwrap();
        assert_eq!(fs.read("/data/local/tmp/loop"), Err(FsError::Loop));
    }
}
