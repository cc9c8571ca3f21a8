//! A minimal [`Target`] for exercising the protocol side before (and apart from) the real
//! device core: an in-memory file store and a handful of shell commands.
//!
//! It is NOT a faithful phone: `sim::device::SimDevice` is. The protocol tests (unit and
//! integration) serve it because they test wire formats, not device behaviour. The
//! unknown-command message follows a real phone's `sh`.
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;

use crate::{
    BoxFuture, DeviceIdentity, FileStat, Framebuffer, FsError, ShellChunk, ShellIo, Target,
};

#[derive(Debug, Clone)]
enum Entry {
    Dir,
    File { mode: u32, mtime: u32, data: Bytes },
}

pub struct PlaceholderTarget {
    identity: DeviceIdentity,
    files: std::sync::Arc<Mutex<BTreeMap<String, Entry>>>,
    reboots: Mutex<Vec<String>>,
}

fn parent(path: &str) -> String {
    match path.trim_end_matches('/').rfind('/') {
        Some(0) | None => "/".to_owned(),
        Some(i) => path[..i].to_owned(),
    }
}

fn normalize(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        "/".to_owned()
    } else {
        trimmed.to_owned()
    }
}

impl PlaceholderTarget {
    pub fn new(serial: &str, model: &str) -> PlaceholderTarget {
        let files: BTreeMap<String, Entry> =
            ["/", "/data", "/data/local", "/data/local/tmp", "/sdcard"]
                .iter()
                .map(|d| (d.to_string(), Entry::Dir))
                .collect();
        PlaceholderTarget {
            identity: DeviceIdentity {
                serial: serial.to_owned(),
                product: "sdk_gphone64_x86_64".to_owned(),
                model: model.to_owned(),
                device: "emu64x".to_owned(),
            },
            files: std::sync::Arc::new(Mutex::new(files)),
            reboots: Mutex::new(Vec::new()),
        }
    }

    /// The `reboot:` arguments received so far.
    pub fn reboots(&self) -> Vec<String> {
        self.reboots.lock().map(|r| r.clone()).unwrap_or_default()
    }

    fn with_files<T>(&self, f: impl FnOnce(&mut BTreeMap<String, Entry>) -> T) -> T {
        let mut guard = match self.files.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        f(&mut guard)
    }
}

async fn run_line(
    files: std::sync::Arc<Mutex<BTreeMap<String, Entry>>>,
    model: String,
    line: String,
    mut io: ShellIo,
) -> i32 {
    let mut status = 0;
    for segment in line.split(';') {
        let Ok(words) = shell_words::split(segment) else {
            let _ = io
                .out
                .send(ShellChunk::Stderr(Bytes::from(
                    "/system/bin/sh: syntax error: unterminated quoted string\n",
                )))
                .await;
            return 1;
        };
        let Some((cmd, args)) = words.split_first() else {
            continue;
        };
        let out = |s: String| ShellChunk::Stdout(Bytes::from(s));
        status = match cmd.as_str() {
            "echo" => {
                let _ = io.out.send(out(format!("{}\n", args.join(" ")))).await;
                0
            }
            "exit" => return args.first().and_then(|a| a.parse().ok()).unwrap_or(0),
            "true" => 0,
            "false" => 1,
            "sleep" => {
                let secs: f64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(0.0);
                tokio::time::sleep(Duration::from_secs_f64(secs.clamp(0.0, 3600.0))).await;
                0
            }
            "getprop" if args.first().map(String::as_str) == Some("ro.product.model") => {
                let _ = io.out.send(out(format!("{model}\n"))).await;
                0
            }
            "cat" if args.is_empty() => {
                while let Some(chunk) = io.stdin.recv().await {
                    let _ = io.out.send(ShellChunk::Stdout(chunk)).await;
                }
                0
            }
            "cat" => {
                let mut code = 0;
                for path in args {
                    let found = files
                        .lock()
                        .ok()
                        .and_then(|f| f.get(&normalize(path)).cloned());
                    let chunk = match found {
                        Some(Entry::File { data, .. }) => ShellChunk::Stdout(data),
                        Some(Entry::Dir) => {
                            code = 1;
                            ShellChunk::Stderr(Bytes::from(format!(
                                "cat: {path}: Is a directory\n"
                            )))
                        }
                        None => {
                            code = 1;
                            ShellChunk::Stderr(Bytes::from(format!(
                                "cat: {path}: No such file or directory\n"
                            )))
                        }
                    };
                    let _ = io.out.send(chunk).await;
                }
                code
            }
            "mkdir" => {
                if let Ok(mut f) = files.lock() {
                    for dir in args.iter().filter(|a| !a.starts_with('-')) {
                        let mut at = String::new();
                        for part in dir.split('/').filter(|p| !p.is_empty()) {
                            at = format!("{at}/{part}");
                            f.entry(at.clone()).or_insert(Entry::Dir);
                        }
                    }
                }
                0
            }
            other => {
                let msg = format!("/system/bin/sh: {other}: inaccessible or not found\n");
                let _ = io.out.send(ShellChunk::Stderr(Bytes::from(msg))).await;
                127
            }
        };
    }
    status
}

impl Target for PlaceholderTarget {
    fn identity(&self) -> DeviceIdentity {
        self.identity.clone()
    }

    fn shell(&self, command: String, io: ShellIo) -> BoxFuture<i32> {
        Box::pin(run_line(
            self.files.clone(),
            self.identity.model.clone(),
            command,
            io,
        ))
    }

    fn stat(&self, path: &str) -> Result<FileStat, FsError> {
        self.with_files(|f| match f.get(&normalize(path)) {
            Some(Entry::Dir) => Ok(FileStat {
                mode: 0o040771,
                size: 4096,
                mtime: 1_700_000_000,
            }),
            Some(Entry::File { mode, mtime, data }) => Ok(FileStat {
                mode: 0o100000 | mode,
                size: data.len() as u64,
                mtime: *mtime,
            }),
            None => Err(FsError::NotFound),
        })
    }

    fn list(&self, path: &str) -> Result<Vec<(String, FileStat)>, FsError> {
        let dir = normalize(path);
        match self.with_files(|f| f.get(&dir).cloned()) {
            Some(Entry::Dir) => {}
            Some(Entry::File { .. }) => return Err(FsError::NotDirectory),
            None => return Err(FsError::NotFound),
        }
        let names: Vec<String> = self.with_files(|f| {
            f.keys()
                .filter(|k| *k != "/" && parent(k) == dir)
                .cloned()
                .collect()
        });
        Ok(names
            .into_iter()
            .filter_map(|full| {
                let st = self.stat(&full).ok()?;
                let name = full.rsplit('/').next().unwrap_or_default().to_owned();
                Some((name, st))
            })
            .collect())
    }

    fn read(&self, path: &str) -> Result<Bytes, FsError> {
        self.with_files(|f| match f.get(&normalize(path)) {
            Some(Entry::File { data, .. }) => Ok(data.clone()),
            Some(Entry::Dir) => Err(FsError::IsDirectory),
            None => Err(FsError::NotFound),
        })
    }

    fn write(&self, path: &str, mode: u32, mtime: u32, data: Bytes) -> Result<(), FsError> {
        let path = normalize(path);
        self.with_files(|f| {
            match f.get(&parent(&path)) {
                Some(Entry::Dir) => {}
                Some(Entry::File { .. }) => return Err(FsError::NotDirectory),
                None => return Err(FsError::NotFound),
            }
            if matches!(f.get(&path), Some(Entry::Dir)) {
                return Err(FsError::IsDirectory);
            }
            f.insert(
                path,
                Entry::File {
                    mode: mode & 0o7777,
                    mtime,
                    data,
                },
            );
            Ok(())
        })
    }

    fn framebuffer(&self) -> Framebuffer {
        let (width, height) = (4u32, 2u32);
        let rgba = (0..width * height)
            .flat_map(|i| [i as u8 * 30, 0x80, 0xff - i as u8, 0xff])
            .collect();
        Framebuffer {
            width,
            height,
            rgba,
        }
    }

    fn reboot(&self, target: &str) {
        if let Ok(mut r) = self.reboots.lock() {
            r.push(target.to_owned());
        }
    }
}
