//! Anchors: the chain's head (which trail, which server run, sequence number, hash, time, why)
//! sent outside the audit file, to a sink a process of the same user can add to but not
//! rewrite: syslog, over its local datagram socket or to a collector over TCP (RFC 5424
//! messages, RFC 6587 octet-counting framing on TCP) ([`sink`]).
//!
//! The writer anchors at start and stop, after every destructive, denied or refused record
//! (once it is synced), after each rotation and size-cap deletion, and every few seconds while
//! records flow. `spock-tui audit verify --anchors FILE` reads them back from the collector's
//! log ([`parse_line`]) and checks the trail against them ([`check`]).
//!
//! Anchors prove tampering; they never excuse it. Anyone running as the same user can send a
//! forged one (`logger -t spock-tui …`), so every rule only adds findings: an anchored record
//! must be in the file with that hash, a later anchored seq than the file holds is a
//! truncation, and two hashes for one seq are a rewrite.
//!
//! Each anchor is both a structured-data element (`[spock@32473 …]`, 32473 being the
//! enterprise number RFC 5612 sets aside for documentation) and the same `key=value` pairs in
//! the message text, because rsyslog's traditional file format drops structured data.
use std::path::Path;

use sha2::{Digest, Sha256};

pub mod check;
pub mod sink;

pub use check::{AnchorReport, FileFacts, KeptFacts, check, kept_cap};
pub use sink::{Sink, Target};

/// The structured-data ID of an anchor.
pub const SD_ID: &str = "spock@32473";
/// What starts an anchor's message text.
const MSG_MARK: &str = "audit anchor ";
/// authpriv.notice: where Debian's rsyslog keeps security records (`/var/log/auth.log`).
const PRI: u8 = 10 * 8 + 5;

/// Why an anchor was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Start,
    Stop,
    /// A destructive, denied or refused record, once it is on disk.
    Record,
    Rotate,
    /// The size cap deleted the oldest rotated file(s).
    Cap,
    /// Records flowed since the last anchor.
    Tick,
    /// The kept file ([`super::KEPT_FILE`]) reached its own cap: its oldest lines were dropped.
    KeptCap,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Start => "start",
            Reason::Stop => "stop",
            Reason::Record => "record",
            Reason::Rotate => "rotate",
            Reason::Cap => "cap",
            Reason::Tick => "tick",
            Reason::KeptCap => "kept-cap",
        }
    }

    fn parse(s: &str) -> Option<Reason> {
        [
            Reason::Start,
            Reason::Stop,
            Reason::Record,
            Reason::Rotate,
            Reason::Cap,
            Reason::Tick,
            Reason::KeptCap,
        ]
        .into_iter()
        .find(|r| r.as_str() == s)
    }
}

/// One anchor: record `seq` of trail `trail` hashes to `hash` (`seq` 0 with the genesis hash:
/// the trail is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub trail: String,
    pub run: String,
    pub seq: u64,
    pub hash: String,
    pub time: String,
    pub reason: Reason,
    /// On `start` and `cap`: the trail's total size cap in bytes, what a later deletion at
    /// the cap is checked against; on `kept-cap`: the kept file's cap.
    pub cap: Option<u64>,
    /// On `cap`: the oldest seq left in the trail's files after the deletion; on `kept-cap`:
    /// the seq below which the kept file's refused records were dropped.
    pub first: Option<u64>,
    /// On `record`: the record's outcome (`ok`, `denied`, `refused`, …): only refused records
    /// may ever leave the kept file.
    pub outcome: Option<String>,
}

/// The trail's identity in anchors: a digest of the user and the audit directory, so the
/// anchors of other users' and other homes' trails in one syslog are told apart, and nothing
/// kept beside the trail (which its writer's user could delete) is needed to know it.
pub fn trail_id(dir: &Path) -> String {
    use std::os::unix::fs::MetadataExt as _;
    // The path as the server and verify are given it, made absolute and tidied but with its
    // links left alone: a home moved away and replaced by a link to it is still this trail
    // (resolving the link would make it a new one, and every anchor "another trail's").
    let abs = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(dir)
    };
    let mut clean = std::path::PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    // The directory's owner, the server's user (it creates the directory, private to it):
    // root verifying that user's trail gets the same identity.
    // SAFETY: getuid has no failure mode and touches no memory.
    let uid = std::fs::metadata(&clean).map_or_else(|_| unsafe { libc::getuid() }, |m| m.uid());
    let d = Sha256::digest(format!("{uid}:{}", clean.display()).as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

impl Anchor {
    fn pairs(&self) -> Vec<(&'static str, String)> {
        let mut p = vec![
            ("trail", self.trail.clone()),
            ("run", self.run.clone()),
            ("seq", self.seq.to_string()),
            ("hash", self.hash.clone()),
            ("time", self.time.clone()),
            ("reason", self.reason.as_str().to_string()),
        ];
        if let Some(c) = self.cap {
            p.push(("cap", c.to_string()));
        }
        if let Some(f) = self.first {
            p.push(("first", f.to_string()));
        }
        if let Some(o) = &self.outcome {
            p.push(("outcome", o.clone()));
        }
        p
    }

    /// The RFC 5424 message: `<85>1 TIME HOST spock-tui PID anchor [spock@32473 …] audit anchor …`.
    pub fn rfc5424(&self, host: &str, pid: u32) -> String {
        let sd: String = self
            .pairs()
            .iter()
            .map(|(k, v)| format!(" {k}=\"{}\"", sd_escape(v)))
            .collect();
        let text: Vec<String> = self
            .pairs()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!(
            "<{PRI}>1 {} {} spock-tui {pid} anchor [{SD_ID}{sd}] {MSG_MARK}{}",
            header_field(&self.time),
            header_field(host),
            text.join(" ")
        )
    }
}

/// PARAM-VALUE escaping (RFC 5424 section 6.3.3).
fn sd_escape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        if matches!(c, '"' | '\\' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A header field is printable ASCII without spaces, at most 255 long, `-` when empty.
fn header_field(v: &str) -> String {
    let s: String = v
        .chars()
        .filter(|c| c.is_ascii_graphic())
        .take(255)
        .collect();
    if s.is_empty() { "-".into() } else { s }
}

/// The anchor a syslog line carries, whatever wrote the line (rsyslog's traditional format,
/// RFC 5424, a `logger` command): the structured-data element when present, else the
/// `key=value` pairs after `audit anchor`. `None` for any other line or an incomplete anchor.
pub fn parse_line(line: &str) -> Option<Anchor> {
    let mut fields: Vec<(String, String)> = Vec::new();
    if let Some(at) = line.find(&format!("[{SD_ID} ")) {
        let mut rest = &line[at + SD_ID.len() + 2..];
        loop {
            rest = rest.trim_start();
            if rest.starts_with(']') || rest.is_empty() {
                break;
            }
            let eq = rest.find("=\"")?;
            let key = rest[..eq].to_string();
            let mut value = String::new();
            let mut chars = rest[eq + 2..].char_indices();
            let end = loop {
                match chars.next()? {
                    (_, '\\') => value.push(chars.next()?.1),
                    (i, '"') => break eq + 2 + i + 1,
                    (_, c) => value.push(c),
                }
            };
            fields.push((key, value));
            rest = &rest[end..];
        }
    } else if let Some(at) = line.find(MSG_MARK) {
        for word in line[at + MSG_MARK.len()..].split_whitespace() {
            if let Some((k, v)) = word.split_once('=') {
                fields.push((k.to_string(), v.to_string()));
            }
        }
    } else {
        return None;
    }
    let get = |k: &str| {
        fields
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let hash = get("hash")?;
    if hash.len() != 64 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(Anchor {
        trail: get("trail")?,
        run: get("run")?,
        seq: get("seq")?.parse().ok()?,
        hash: hash.to_ascii_lowercase(),
        time: get("time").unwrap_or_default(),
        reason: Reason::parse(&get("reason")?)?,
        cap: get("cap").and_then(|c| c.parse().ok()),
        first: get("first").and_then(|f| f.parse().ok()),
        outcome: get("outcome"),
    })
}

/// Every anchor in a syslog file (the collector's, so usually another user's: read as is, not
/// through the private opener), in the order written.
pub fn read_file(path: &Path) -> std::io::Result<Vec<Anchor>> {
    read_from(std::fs::File::open(path)?)
}

/// [`read_file`] from any reader (`journalctl -t spock-tui -o cat | … --anchors -`).
pub fn read_from(r: impl std::io::Read) -> std::io::Result<Vec<Anchor>> {
    use std::io::BufRead as _;
    let mut out = Vec::new();
    let mut reader = std::io::BufReader::new(r);
    let mut buf = Vec::new();
    while reader.read_until(b'\n', &mut buf)? > 0 {
        if let Some(a) = parse_line(&String::from_utf8_lossy(&buf)) {
            out.push(a);
        }
        buf.clear();
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
