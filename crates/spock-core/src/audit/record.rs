//! One audit entry, as it is written (one JSON line) and shown in the history pane.
//!
//! Large binary content is replaced before a record is stored ([`scrub_binary`]): a
//! screenshot in every history line would make the file useless to read and slow to load,
//! while its size and SHA-256 still say what was returned.
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Strings longer than this that are valid base64 are stored as a digest.
pub const MAX_INLINE_BASE64: usize = 4096;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    /// Assigned by [`super::Audit::append`]; strictly increasing and contiguous.
    #[serde(default)]
    pub seq: u64,
    /// When the call started: RFC 3339, UTC, milliseconds.
    pub time: String,
    /// `name/version` from `initialize`, or `unknown`: never guessed.
    pub client: String,
    pub transport: Transport,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    pub tool: String,
    pub level: Level,
    #[serde(default)]
    pub arguments: Value,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
    /// The terminal that answered the confirmation: `pid 4242 on /dev/pts/3` for an attached
    /// control centre, or the serving process's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decider: Option<String>,
    /// Why a safe tool's call was destructive (then `level` says destructive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub escalated: Option<String>,
    /// The batch run this call belonged to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_run: Option<String>,
    /// What the server verified about who asked (transport, the person's terminal or the
    /// client's connection, peer credentials, address), apart from `client`, which is the
    /// client's claim. Absent in records from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<crate::model::Verified>,
    /// A claim: where the client's relay said it came from (`ssh from …`, from its
    /// `SSH_CONNECTION`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_via: Option<String>,
    /// The `seq` of this call's `started` record ([`Outcome::Started`]): a destructive call has
    /// two records, the one written before it ran and this one, its ending. Readers show the
    /// pair as one call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<u64>,
}

impl AuditRecord {
    /// A record stamped now, client `unknown`, outcome `ok`; fill in the rest as it happens.
    pub fn new(
        tool: impl Into<String>,
        level: Level,
        transport: Transport,
        arguments: Value,
    ) -> Self {
        Self {
            seq: 0,
            time: now_rfc3339(),
            client: "unknown".into(),
            transport,
            device: None,
            tool: tool.into(),
            level,
            arguments,
            outcome: Outcome::Ok,
            result: None,
            error: None,
            duration_ms: 0,
            decision: None,
            decider: None,
            escalated: None,
            batch_run: None,
            verified: None,
            claimed_via: None,
            started: None,
        }
    }
}

impl AuditRecord {
    /// A destructive, denied or refused call: its record is on disk before its answer goes
    /// back ([`super::Audit::append_answered`]) and it is never dropped from the trail.
    pub fn must_keep(&self) -> bool {
        self.level == Level::Destructive
            || matches!(self.outcome, Outcome::Denied | Outcome::Refused)
            || self.decision.is_some_and(|d| !d.approved)
    }
}

pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

// One vocabulary for calls across the program: the audit trail stores the core's own types.
pub use crate::model::{DecidedBy, Decision, Level, Outcome, Transport};

/// Replaces MCP image/audio content and long base64 strings with
/// `{ "omitted": <mime or "base64">, "bytes": N, "sha256": hex }`.
pub fn scrub_binary(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let is_media = matches!(
                map.get("type").and_then(Value::as_str),
                Some("image" | "audio")
            );
            if is_media && let Some(Value::String(data)) = map.get("data") {
                let mime = map
                    .get("mimeType")
                    .and_then(Value::as_str)
                    .unwrap_or("application/octet-stream");
                *v = omitted(mime, data);
                return;
            }
            for (_, child) in map.iter_mut() {
                scrub_binary(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(scrub_binary),
        Value::String(s) if s.len() > MAX_INLINE_BASE64 && looks_base64(s) => {
            let replaced = omitted("base64", s);
            *v = replaced;
        }
        _ => {}
    }
}

fn looks_base64(s: &str) -> bool {
    s.bytes().all(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_' | b'\n' | b'\r')
    })
}

fn omitted(mime: &str, data: &str) -> Value {
    let compact: String = data.chars().filter(|c| !c.is_whitespace()).collect();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .or_else(|_| base64::engine::general_purpose::URL_SAFE.decode(&compact));
    let bytes = decoded.unwrap_or_else(|_| data.as_bytes().to_vec());
    json!({
        "omitted": mime,
        "bytes": bytes.len(),
        "sha256": hex(&Sha256::digest(&bytes)),
    })
}

/// The most a record keeps of one string in a call's arguments. An agent can send megabytes
/// in an argument nothing reads whole (a search text); kept whole, each such call pushed 12 MB
/// into the trail, and a flood of them drove the size cap to delete the oldest files.
pub const MAX_RECORDED_STRING: usize = 16 * 1024;

/// Strings in `v` (a call's arguments) longer than [`MAX_RECORDED_STRING`] bytes are kept as
/// their first 1 KiB, their size and their SHA-256.
pub fn cap_strings(v: &mut Value) {
    match v {
        Value::Object(map) => map.values_mut().for_each(cap_strings),
        Value::Array(items) => items.iter_mut().for_each(cap_strings),
        Value::String(s) if s.len() > MAX_RECORDED_STRING => {
            let mut head = 1024;
            while !s.is_char_boundary(head) {
                head -= 1;
            }
            *v = json!({
                "head": &s[..head],
                "omitted": "text",
                "bytes": s.len(),
                "sha256": hex(&Sha256::digest(s.as_bytes())),
            });
        }
        _ => {}
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_with_the_documented_names() {
        let mut r = AuditRecord::new(
            "android_tap",
            Level::SafeAction,
            Transport::Stdio,
            json!({"x": 1}),
        );
        r.duration_ms = 12;
        r.batch_run = Some("run-1".into());
        r.decision = Some(Decision::deny(DecidedBy::NoResponder));
        let v = serde_json::to_value(&r).expect("serialises");
        assert_eq!(v["durationMs"], 12);
        assert_eq!(v["batchRun"], "run-1");
        assert_eq!(v["level"], "safe_action");
        assert_eq!(v["transport"], "stdio");
        assert_eq!(
            v["decision"],
            json!({"approved": false, "by": "no_responder"})
        );
        assert_eq!(v["outcome"], "ok");
        // Millisecond RFC 3339 in UTC, e.g. 2024-05-01T12:00:00.123Z.
        assert_eq!(r.time.len(), 24, "{}", r.time);
        assert!(r.time.ends_with('Z'));
        let back: AuditRecord = serde_json::from_value(v).expect("reads back");
        assert_eq!(back, r);
    }

    #[test]
    fn images_and_long_base64_are_replaced_by_a_digest() {
        let png = base64::engine::general_purpose::STANDARD.encode(vec![7u8; 6000]);
        let mut v = json!({
            "content": [
                {"type": "image", "data": png, "mimeType": "image/png"},
                {"type": "text", "text": "short"}
            ],
            "structuredContent": {"zip": base64::engine::general_purpose::STANDARD.encode(vec![1u8; 5000])},
        });
        scrub_binary(&mut v);
        assert_eq!(v["content"][0]["omitted"], "image/png");
        assert_eq!(v["content"][0]["bytes"], 6000);
        assert_eq!(v["content"][0]["sha256"].as_str().map(str::len), Some(64));
        assert_eq!(v["content"][1]["text"], "short");
        assert_eq!(v["structuredContent"]["zip"]["omitted"], "base64");
        assert_eq!(v["structuredContent"]["zip"]["bytes"], 5000);
        // Long ordinary text (a logcat dump) is not base64 and stays.
        let mut text = json!("E AndroidRuntime: FATAL EXCEPTION: main ".repeat(200));
        let before = text.clone();
        scrub_binary(&mut text);
        assert_eq!(text, before);
    }
}
