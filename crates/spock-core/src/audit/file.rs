//! The audit file on disk: reading it back after a crash, opening it privately (through
//! `config::private`: never a link, never someone else's file), and finding the rotated files.
//!
//! The file is append-only JSON lines. A process killed mid-write leaves at most one torn
//! last line; reading back drops it (or keeps it, when the only thing missing was the
//! newline) and truncates the file to the last good line so the next append starts clean. A
//! corrupt line in the middle (disk trouble, a hand edit) is skipped and counted, never fatal.
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;

use super::{AuditError, AuditRecord};
use crate::config::private::{self, Open};

pub(super) const FILE_NAME: &str = "audit.jsonl";
/// Where a rotated file's destructive, denied and refused records go, byte for byte, before
/// the size cap deletes the file: no flood of other calls can push them out of the trail.
pub const KEPT_FILE: &str = "audit.kept.jsonl";

/// What reading the existing file found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Records read back (before keeping only the most recent `cap`).
    pub loaded: usize,
    /// Complete lines that did not parse.
    pub skipped_corrupt: usize,
    /// A last line without its newline was found (and dropped unless it parsed).
    pub torn_tail: bool,
    /// The last record's seq in the trail's files (0: none).
    pub file_seq: u64,
    /// The last anchored seq in the local state file, when it is readable.
    pub state_seq: Option<u64>,
    /// The anchor log (`audit.anchor_source`): not set, read (with this trail's highest
    /// anchored seq, if it holds any), or unreadable.
    pub source: Source,
}

/// Whether the anchors could be read back at start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Source {
    #[default]
    NotSet,
    Read(Option<u64>),
    Unreadable,
}

impl LoadReport {
    /// Where sequence numbers continue from, and why: the last anchor where it could be read,
    /// else the larger of the trail's files and the local state file.
    pub fn resumed(&self) -> String {
        let local = self.file_seq.max(self.state_seq.unwrap_or(0));
        if let Source::Read(Some(a)) = self.source {
            return if a > local {
                format!(
                    "continuing after seq {a} from the last anchor: the trail's files end at seq {} (records {}..={a} were anchored and are missing)",
                    self.file_seq,
                    self.file_seq + 1
                )
            } else {
                format!("continuing after seq {local}, checked against the last anchor (seq {a})")
            };
        }
        let why = match self.source {
            Source::NotSet => "",
            Source::Read(_) => " (the anchor log holds none of this trail's anchors)",
            Source::Unreadable => " (the anchor log could not be read)",
        };
        match self.state_seq {
            Some(s) if s > self.file_seq => format!(
                "continuing after seq {s} from the audit state file: the trail's files end at seq {} (records {}..={s} are missing){why}",
                self.file_seq,
                self.file_seq + 1
            ),
            Some(_) => format!(
                "continuing after seq {} from the trail's files{why}",
                self.file_seq
            ),
            None => format!(
                "continuing after seq {} from the trail's files (no audit state file){why}",
                self.file_seq
            ),
        }
    }

    /// The sequence number the trail continues after.
    pub fn continue_after(&self) -> u64 {
        let local = self.file_seq.max(self.state_seq.unwrap_or(0));
        match self.source {
            Source::Read(Some(a)) => local.max(a),
            _ => local,
        }
    }
}

pub(super) struct Loaded {
    pub recent: VecDeque<Arc<AuditRecord>>,
    pub next_seq: u64,
    /// Destructive, denied and refused records, oldest first (they are never out of reach).
    pub kept: Vec<Arc<AuditRecord>>,
    /// The hash of the file's last line ([`super::chain`]), if it has one.
    pub last_hash: Option<String>,
    pub report: LoadReport,
}

pub(super) fn io(path: &Path, source: std::io::Error) -> AuditError {
    AuditError::Io {
        path: path.to_path_buf(),
        source,
    }
}

pub(super) fn prepare_dir(dir: &Path) -> Result<(), AuditError> {
    private::private_dir(dir).map_err(|e| io(dir, e))
}

/// Opens (creating) the file for appending, private to this user (never through a link).
pub(super) fn open_append(path: &Path) -> Result<File, AuditError> {
    private::open(path, Open::Append).map_err(|e| io(path, e))
}

/// Opens an existing trail file for reading (never through a link); `None` when absent.
pub(super) fn open_read(path: &Path) -> Result<Option<File>, AuditError> {
    match private::open(path, Open::Read) {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path, e)),
    }
}

/// Opens a trail file to verify it, whoever owns it (root or the person checking another
/// user's trail): read only, never through a link, and only a regular file (a FIFO put in
/// its place must not hang the check). `None` when absent.
pub(super) fn open_verify(path: &Path) -> Result<Option<File>, AuditError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let f = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, e)),
    };
    let m = f.metadata().map_err(|e| io(path, e))?;
    if !m.is_file() {
        return Err(io(
            path,
            std::io::Error::other("not a regular file (replaced by something else)"),
        ));
    }
    Ok(Some(f))
}

pub(super) fn load(path: &Path, cap: usize) -> Result<Loaded, AuditError> {
    let mut out = Loaded {
        recent: VecDeque::new(),
        next_seq: 1,
        kept: Vec::new(),
        last_hash: None,
        report: LoadReport::default(),
    };
    let Some(file) = open_read(path)? else {
        return Ok(out);
    };
    let mut good_len: u64 = 0;
    let mut max_seq = 0;
    let mut repair: Option<Repair> = None;
    raw_lines(&mut BufReader::new(file), path, |line| {
        let n = line.len() as u64;
        let complete = line.last() == Some(&b'\n');
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        if text.iter().all(u8::is_ascii_whitespace) {
            good_len += n;
            return Ok(());
        }
        let parsed = serde_json::from_slice::<AuditRecord>(text).ok();
        if complete || parsed.is_some() {
            out.last_hash = Some(super::chain::line_hash(text));
        }
        if !complete {
            out.report.torn_tail = true;
            repair = Some(if parsed.is_some() {
                Repair::AddNewline
            } else {
                Repair::TruncateTo(good_len)
            });
        }
        match parsed {
            Some(rec) => {
                max_seq = max_seq.max(rec.seq);
                out.report.loaded += 1;
                let rec = Arc::new(rec);
                if rec.must_keep() {
                    out.kept.push(rec.clone());
                }
                out.recent.push_back(rec);
                if out.recent.len() > cap {
                    out.recent.pop_front();
                }
            }
            None if complete => out.report.skipped_corrupt += 1,
            None => {}
        }
        good_len += n;
        Ok(())
    })?;
    out.next_seq = max_seq + 1;
    match repair {
        Some(Repair::TruncateTo(len)) => {
            let f = private::open(path, Open::Write).map_err(|e| io(path, e))?;
            f.set_len(len).map_err(|e| io(path, e))?;
            f.sync_all().map_err(|e| io(path, e))?;
        }
        Some(Repair::AddNewline) => {
            let mut f = open_append(path)?;
            f.write_all(b"\n").map_err(|e| io(path, e))?;
            f.sync_all().map_err(|e| io(path, e))?;
        }
        None => {}
    }
    Ok(out)
}

/// Rotated files in `dir` (`audit.N.jsonl`), oldest (lowest N) first.
pub(super) fn rotated_files(dir: &Path) -> Result<Vec<(u64, std::path::PathBuf)>, AuditError> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(io(dir, e)),
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(n) = name
            .to_str()
            .and_then(|n| n.strip_prefix("audit."))
            .and_then(|n| n.strip_suffix(".jsonl"))
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        out.push((n, e.path()));
    }
    out.sort();
    Ok(out)
}

/// The hash and seq of the last non-blank line of `path`, if it has one (seq 0 when that line
/// is not a record).
pub(super) fn last_line(path: &Path) -> Result<Option<(String, u64)>, AuditError> {
    let mut last = None;
    each_line(path, |l| last = Some(l.to_vec()))?;
    Ok(last.map(|l| (super::chain::line_hash(&l), line_seq(&l).unwrap_or(0))))
}

/// The `seq` of a line that is a JSON object carrying one.
pub(super) fn line_seq(line: &[u8]) -> Option<u64> {
    serde_json::from_slice::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("seq").and_then(serde_json::Value::as_u64))
}

/// The seq of the first record of `path`, if it has one.
pub(super) fn first_seq(path: &Path) -> Result<Option<u64>, AuditError> {
    let Some(file) = open_read(path)? else {
        return Ok(None);
    };
    let mut line = Vec::new();
    let mut r = BufReader::new(file);
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line).map_err(|e| io(path, e))? == 0 {
            return Ok(None);
        }
        if let Some(s) = line_seq(&line) {
            return Ok(Some(s));
        }
    }
}

/// The kept file over `cap` bytes: its oldest *refused* records go (the calls the server
/// refused before anyone was asked: an agent can make any number of them) until it holds at
/// most three quarters of it (a new file renamed over the old). Records of calls that ran or
/// that a person denied are never dropped: each took a person, or a timeout, to make. Returns
/// one past the newest seq dropped, when it dropped any.
pub(super) fn trim_kept(path: &Path, cap: u64) -> Result<Option<u64>, AuditError> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size <= cap {
        return Ok(None);
    }
    let mut lines = Vec::new();
    each_line(path, |l| lines.push(l.to_vec()))?;
    let refused = |l: &[u8]| {
        serde_json::from_slice::<AuditRecord>(l)
            .ok()
            .filter(|r| r.outcome == crate::model::Outcome::Refused)
            .map(|r| r.seq)
    };
    let mut total = size;
    let mut drop_upto: Option<u64> = None;
    let mut dropped = 0usize;
    let mut keep = vec![true; lines.len()];
    for (i, l) in lines.iter().enumerate() {
        if total <= cap / 4 * 3 {
            break;
        }
        if let Some(seq) = refused(l) {
            keep[i] = false;
            total = total.saturating_sub(l.len() as u64 + 1);
            drop_upto = Some(drop_upto.map_or(seq, |d: u64| d.max(seq)));
            dropped += 1;
        }
    }
    if dropped == 0 {
        tracing::warn!(file = %path.display(), bytes = size, "the kept file is over its cap (a quarter of audit.max_total_mb) and holds no refused records to drop: it keeps growing");
        return Ok(None);
    }
    let tmp = path.with_extension("jsonl.tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut f = open_append(&tmp)?;
    for (l, k) in lines.iter().zip(&keep) {
        if *k {
            f.write_all(l).map_err(|e| io(&tmp, e))?;
            f.write_all(b"\n").map_err(|e| io(&tmp, e))?;
        }
    }
    f.sync_all().map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))?;
    tracing::warn!(file = %path.display(), dropped, "the kept file is over its cap (a quarter of audit.max_total_mb): its oldest refused records were dropped");
    Ok(drop_upto.map(|d| d + 1))
}

/// Lines longer than this are not records ([`raw_lines_bounded`]).
pub(super) const MAX_LINE: usize = 64 * 1024 * 1024;

/// [`raw_lines`] for reading a trail someone else may have planted (verify): a line over
/// [`MAX_LINE`] is handed over cut to that length (so it reads as no record) and the rest of it
/// skipped, never held: a sparse file of many GiB without a newline costs no memory.
pub(super) fn raw_lines_bounded(
    reader: &mut impl BufRead,
    path: &Path,
    f: impl FnMut(&[u8]) -> Result<(), AuditError>,
) -> Result<(), AuditError> {
    lines_upto(reader, path, Some(MAX_LINE), f)
}

/// Every line as read, its `\n` included (the last one lacks it when a write was torn).
pub(super) fn raw_lines(
    reader: &mut impl BufRead,
    path: &Path,
    f: impl FnMut(&[u8]) -> Result<(), AuditError>,
) -> Result<(), AuditError> {
    lines_upto(reader, path, None, f)
}

fn lines_upto(
    reader: &mut impl BufRead,
    path: &Path,
    limit: Option<usize>,
    mut f: impl FnMut(&[u8]) -> Result<(), AuditError>,
) -> Result<(), AuditError> {
    use std::io::Read as _;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = match limit {
            Some(max) => reader
                .by_ref()
                .take(max as u64 + 1)
                .read_until(b'\n', &mut line),
            None => reader.read_until(b'\n', &mut line),
        }
        .map_err(|e| io(path, e))?;
        if n == 0 {
            return Ok(());
        }
        if let Some(max) = limit
            && line.len() > max
            && line.last() != Some(&b'\n')
        {
            skip_line(reader, path)?;
            line.truncate(max);
            line.push(b'\n');
        }
        f(&line)?;
    }
}

/// Reads past the rest of the current line without keeping it.
fn skip_line(reader: &mut impl BufRead, path: &Path) -> Result<(), AuditError> {
    loop {
        let buf = reader.fill_buf().map_err(|e| io(path, e))?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(());
            }
            None => {
                let l = buf.len();
                reader.consume(l);
            }
        }
    }
}

/// The destructive, denied and refused records of `path`, oldest first. Lines that cannot be
/// one are passed over without parsing.
pub(super) fn kept_records(path: &Path) -> Result<Vec<Arc<AuditRecord>>, AuditError> {
    let mut out = Vec::new();
    each_kept(path, |_, r| out.push(Arc::new(r)))?;
    Ok(out)
}

/// The lines of `path`'s destructive, denied and refused records, as they are in the file.
pub(super) fn kept_lines(path: &Path) -> Result<Vec<Vec<u8>>, AuditError> {
    let mut out = Vec::new();
    each_kept(path, |l, _| out.push(l.to_vec()))?;
    Ok(out)
}

fn each_kept(path: &Path, mut f: impl FnMut(&[u8], AuditRecord)) -> Result<(), AuditError> {
    each_line(path, |l| {
        let s = String::from_utf8_lossy(l);
        if (s.contains(r#""level":"destructive""#)
            || s.contains(r#""outcome":"denied""#)
            || s.contains(r#""outcome":"refused""#)
            || s.contains(r#""approved":false"#))
            && let Ok(r) = serde_json::from_slice::<AuditRecord>(l)
            && r.must_keep()
        {
            f(l, r);
        }
    })
}

/// Each non-blank line of the file, in order, without its `\n`; a missing file has none.
fn each_line(path: &Path, mut f: impl FnMut(&[u8])) -> Result<(), AuditError> {
    let Some(file) = open_read(path)? else {
        return Ok(());
    };
    let mut reader = BufReader::new(file);
    raw_lines(&mut reader, path, |line| {
        if !line.iter().all(u8::is_ascii_whitespace) {
            f(line.strip_suffix(b"\n").unwrap_or(line));
        }
        Ok(())
    })
}

/// [`visit_tail`] across the trail's files (oldest first): the last `n` records of them all.
/// A file deleted meanwhile (the cap) simply has no lines.
pub(super) fn visit_tail_many(
    files: &[std::path::PathBuf],
    n: usize,
    f: &mut dyn FnMut(AuditRecord),
) -> Result<(), AuditError> {
    let mut need = n;
    let mut start = files.len();
    let mut skip = 0;
    for (i, p) in files.iter().enumerate().rev() {
        if need == 0 {
            break;
        }
        let mut count = 0usize;
        each_line(p, |_| count += 1)?;
        start = i;
        skip = count.saturating_sub(need);
        need = need.saturating_sub(count);
    }
    for (i, p) in files.iter().enumerate().skip(start) {
        let mut s = if i == start { skip } else { 0 };
        each_line(p, |line| {
            if s > 0 {
                s -= 1;
            } else if let Ok(rec) = serde_json::from_slice::<AuditRecord>(line) {
                f(rec);
            }
        })?;
    }
    Ok(())
}

enum Repair {
    TruncateTo(u64),
    AddNewline,
}
