//! Tamper evidence: every record carries `prev`, the hex SHA-256 of the previous record's line
//! (its bytes as written, without the `\n`). The first record ever chains from [`GENESIS`]; the
//! first record of a file chains from the last record of the file before it (rotated files are
//! `audit.1.jsonl`, `audit.2.jsonl`, … oldest first, then the live `audit.jsonl`).
//!
//! [`verify`] walks the files in that order and reports the first break: a line that is not a
//! record, a record whose `prev` does not match the line before it (that line was altered, or
//! records between them are missing), or a record without `prev` after the chain began.
//! Records written before this existed carry no `prev`; they are counted, not a break. When the
//! total cap removed the oldest files, the oldest file left may chain from a record that is
//! gone; that is not a break either.
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::AuditError;
use super::anchor::{Anchor, AnchorReport, FileFacts};
use super::file::{FILE_NAME, rotated_files};

/// What the first record of a trail chains from.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The hex SHA-256 of one line, without its `\n`.
pub fn line_hash(line: &[u8]) -> String {
    Sha256::digest(line)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where the chain breaks first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub file: PathBuf,
    /// 1-based line number in `file`.
    pub line: usize,
    pub seq: Option<u64>,
    pub what: String,
}

impl std::fmt::Display for Break {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, line {}", self.file.display(), self.line)?;
        if let Some(s) = self.seq {
            write!(f, ", seq {s}")?;
        }
        write!(f, ": {}", self.what)
    }
}

/// What [`verify`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verified {
    pub records: usize,
    pub files: usize,
    /// Records from before the chain existed (no `prev`), at the start of the trail.
    pub unchained: usize,
    pub broken: Option<Break>,
    /// The sequence number of the oldest record on disk, when it chains from a record that is
    /// gone: the records before it were deleted at the trail's size cap (their destructive,
    /// denied and refused ones are in [`super::file::KEPT_FILE`]).
    pub starts_after_deleted: Option<u64>,
    /// Destructive calls with a `started` record and no ending: the server stopped while they
    /// ran (whether they took effect is not known). A call running as verify reads is one too.
    pub interrupted: Vec<u64>,
    /// What this trail's anchors say about it ([`verify_anchored`]); `None` without anchors.
    pub anchors: Option<AnchorReport>,
}

/// The trail's files, oldest first: rotated ones by number, then the live file (if present).
pub fn trail_files(dir: &Path) -> Result<Vec<PathBuf>, AuditError> {
    let mut files: Vec<PathBuf> = rotated_files(dir)?.into_iter().map(|(_, p)| p).collect();
    let live = dir.join(FILE_NAME);
    if live.exists() {
        files.push(live);
    }
    Ok(files)
}

struct Seen {
    file: usize,
    line: usize,
    seq: Option<u64>,
}

/// Checks the chain across every file of the trail in `dir`.
pub fn verify(dir: &Path) -> Result<Verified, AuditError> {
    walk(dir, None)
}

/// [`verify`], then the trail against `anchors` (every anchor read back: those of other
/// trails are counted and passed over). The anchor report is left out when the chain itself
/// is broken.
pub fn verify_anchored(dir: &Path, anchors: &[Anchor]) -> Result<Verified, AuditError> {
    let trail = super::anchor::trail_id(dir);
    let (mine, foreign): (Vec<Anchor>, Vec<Anchor>) =
        anchors.iter().cloned().partition(|a| a.trail == trail);
    let mut out = walk(dir, Some(&mine))?;
    if let Some(r) = out.anchors.as_mut() {
        r.foreign = foreign.len();
    }
    Ok(out)
}

fn walk(dir: &Path, anchors: Option<&[Anchor]>) -> Result<Verified, AuditError> {
    let wanted = anchors
        .map(super::anchor::check::wanted)
        .unwrap_or_default();
    let mut facts = FileFacts::default();
    let files = trail_files(dir)?;
    let mut out = Verified {
        files: files.len(),
        ..Verified::default()
    };
    let mut expected: Option<String> = None;
    let mut chained = false;
    let mut last: Option<Seen> = None;
    let mut before_last: Option<u64> = None;
    // Bytes of the trail's lines so far, oldest file first (what a cap deletion is sized by).
    let mut bytes: u64 = 0;
    for (fi, path) in files.iter().enumerate() {
        let Some(f) = super::file::open_verify(path)? else {
            continue;
        };
        let mut line_no = 0;
        let mut broken: Option<Break> = None;
        let is_live = fi + 1 == files.len();
        super::file::raw_lines_bounded(&mut BufReader::new(f), path, |raw| {
            line_no += 1;
            if broken.is_some() || raw.iter().all(u8::is_ascii_whitespace) {
                return Ok(());
            }
            let complete = raw.last() == Some(&b'\n');
            let text = raw.strip_suffix(b"\n").unwrap_or(raw);
            bytes += raw.len() as u64;
            let here = |seq, what: String| Break {
                file: path.clone(),
                line: line_no,
                seq,
                what,
            };
            let Ok(v) = serde_json::from_slice::<Value>(text) else {
                if !complete && is_live {
                    // Being written right now, or torn by a crash (repaired at the next start):
                    // the anchors tell which ([`super::anchor::check`]).
                    facts.torn =
                        Some(torn_seq(text).unwrap_or_else(|| facts.last_seq.map_or(1, |l| l + 1)));
                    return Ok(());
                }
                broken = Some(here(None, "not a valid record (altered or damaged)".into()));
                return Ok(());
            };
            let seq = v.get("seq").and_then(Value::as_u64);
            if v.get("outcome").and_then(Value::as_str) == Some("started")
                && let Some(s) = seq
            {
                out.interrupted.push(s);
            }
            if let Some(s) = v.get("started").and_then(Value::as_u64) {
                out.interrupted.retain(|&i| i != s);
            }
            if let Some(s) = seq {
                facts.first_seq.get_or_insert(s);
                facts.last_seq = Some(facts.last_seq.map_or(s, |l| l.max(s)));
                if wanted.contains(&s) {
                    facts.hashes.insert(s, line_hash(text));
                    facts.bytes_at.insert(s, bytes);
                }
                if v.get("prev").is_none() {
                    facts.last_unchained = Some(s);
                }
            }
            match v.get("prev").and_then(Value::as_str) {
                None if chained => {
                    broken = Some(here(seq, "no hash of the previous record".into()));
                    return Ok(());
                }
                None => out.unchained += 1,
                Some(p) => {
                    if out.records == 0 && p != GENESIS {
                        out.starts_after_deleted = Some(seq.unwrap_or(0));
                    }
                    chained = true;
                    if let Some(exp) = &expected
                        && p != exp
                    {
                        broken = Some(blame(&files, &last, before_last, here(seq, String::new())));
                        return Ok(());
                    }
                    // Chained, yet numbers missing: records were taken out and the chain
                    // recomputed over the gap (an honest writer numbers every record it writes).
                    if let (Some(l), Some(s)) = (last.as_ref().and_then(|l| l.seq), seq)
                        && expected.is_some()
                        && s != l + 1
                    {
                        let what = if s == l + 2 {
                            format!(
                                "record seq {} is missing before it, yet it chains from the record before: taken out, and the chain made to run over the gap",
                                l + 1
                            )
                        } else if s > l + 1 {
                            format!(
                                "records seq {}..={} are missing before it, yet it chains from the record before them: taken out, and the chain made to run over the gap",
                                l + 1,
                                s - 1
                            )
                        } else {
                            format!(
                                "seq {s} follows seq {l}: records reordered or renumbered, and the chain recomputed"
                            )
                        };
                        broken = Some(here(seq, what));
                        return Ok(());
                    }
                }
            }
            expected = Some(line_hash(text));
            before_last = last.as_ref().and_then(|l| l.seq);
            last = Some(Seen {
                file: fi,
                line: line_no,
                seq,
            });
            out.records += 1;
            Ok(())
        })?;
        if broken.is_some() {
            out.broken = broken;
            return Ok(out);
        }
    }
    if anchors.is_some() {
        facts.kept = Some(kept_facts(&dir.join(super::file::KEPT_FILE))?);
    }
    out.anchors = anchors.map(|a| super::anchor::check(a, &facts));
    Ok(out)
}

/// The seq a torn line names, when it got that far (`"seq":N` is the record's first field).
fn torn_seq(text: &[u8]) -> Option<u64> {
    let s = String::from_utf8_lossy(text);
    let at = s.find("\"seq\":")? + 6;
    let digits: String = s[at..].chars().take_while(char::is_ascii_digit).collect();
    // A number cut short is not the seq: it must be followed by the next field.
    (s[at + digits.len()..].starts_with(',')).then(|| digits.parse().ok())?
}

/// Each line of the kept file: its seq and hash (lines are the trail's lines, byte for byte).
fn kept_facts(path: &Path) -> Result<super::anchor::KeptFacts, AuditError> {
    let mut k = super::anchor::KeptFacts::default();
    let Some(f) = super::file::open_verify(path)? else {
        return Ok(k);
    };
    super::file::raw_lines_bounded(&mut BufReader::new(f), path, |raw| {
        if raw.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let text = raw.strip_suffix(b"\n").unwrap_or(raw);
        match super::file::line_seq(text) {
            Some(s) => {
                k.lines.push((s, line_hash(text)));
                k.sizes.push(raw.len() as u64);
            }
            None => k.unreadable += 1,
        }
        Ok(())
    })?;
    Ok(k)
}

/// A record's `prev` does not match the line before it: either that line was altered (the
/// sequence numbers run on) or records between them are missing (they jump).
fn blame(files: &[PathBuf], last: &Option<Seen>, before_last: Option<u64>, here: Break) -> Break {
    let Some(l) = last else {
        return Break {
            what: "does not chain from the previous record".into(),
            ..here
        };
    };
    let runs_on = matches!((l.seq, here.seq), (Some(a), Some(b)) if b == a + 1);
    let last_in_order = match (before_last, l.seq) {
        (Some(a), Some(b)) => b == a + 1,
        _ => true,
    };
    if runs_on || !last_in_order {
        return Break {
            file: files[l.file].clone(),
            line: l.line,
            seq: l.seq,
            what: format!(
                "record altered: its hash no longer matches the one the next record ({}, line {}) carries",
                here.file.display(),
                here.line
            ),
        };
    }
    let what = match (l.seq, here.seq) {
        (Some(a), Some(b)) if b > a + 1 && b == a + 2 => {
            format!("record seq {} is missing before it", a + 1)
        }
        (Some(a), Some(b)) if b > a + 1 => {
            format!("records seq {}..={} are missing before it", a + 1, b - 1)
        }
        _ => "does not chain from the previous record (records missing or reordered)".into(),
    };
    Break { what, ..here }
}
