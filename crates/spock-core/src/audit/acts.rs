//! Records of what happened without an agent's tool call, built here and nowhere else: a lease
//! that ended (expired, its holder gone, broken by the person), a batch run that ended, an
//! approval an attached terminal sent that did not count. Each has the shape of a call's
//! record, named by what it was (`android_lease_device`, `android_batch_run_end`,
//! `attach_decide`), so History, the trail's readers and `audit verify` read them as they read
//! calls. The names are stable: scripts and the Python tests look records up by them.
use serde_json::{Value, json};

use super::record::{AuditRecord, DecidedBy, Decision, Level, Outcome, Transport};

/// A lease's end, recorded as a call of the lease tool.
pub const LEASE_TOOL: &str = "android_lease_device";
/// The record that closes each batch run.
pub const RUN_END_TOOL: &str = "android_batch_run_end";
/// An attached terminal's approval that did not count (not displayed, or too early).
pub const REFUSED_APPROVAL_TOOL: &str = "attach_decide";

/// A lease on `device` ended (`event`: `expired`, `disconnected`, `broken`, …), as `client`
/// over `transport`; `info` is the lease as the lease tool shows it. A break is the person's
/// act, approved by key.
pub fn lease_ended(
    device: &str,
    event: &str,
    transport: Transport,
    client: String,
    broken: Option<DecidedBy>,
    info: Value,
) -> AuditRecord {
    let mut rec = AuditRecord::new(
        LEASE_TOOL,
        Level::SafeAction,
        transport,
        json!({ "serial": device, "event": event }),
    );
    rec.client = client;
    rec.device = Some(device.to_string());
    rec.outcome = Outcome::Ok;
    if let Some(by) = broken {
        rec.decision = Some(Decision { approved: true, by });
    }
    rec.result = Some(info);
    rec
}

/// A batch run ended: its final state as the outcome, the summary as the result and the
/// reason it stopped as the error, linked to the run (`batchRun`), from the client that
/// started it.
pub fn run_ended(
    run_id: &str,
    client: String,
    outcome: Outcome,
    duration_ms: u64,
    summary: Option<Value>,
    stopped: Option<String>,
) -> AuditRecord {
    let mut a = AuditRecord::new(
        RUN_END_TOOL,
        Level::ReadOnly,
        Transport::Batch,
        json!({ "runId": run_id }),
    );
    a.client = client;
    a.outcome = outcome;
    a.duration_ms = duration_ms;
    a.batch_run = Some(run_id.to_string());
    a.result = summary;
    a.error = stopped;
    a
}

/// `terminal` sent an approval of `call_id` (a call of `tool`) that did not count, for
/// `why`; the call keeps waiting.
pub fn approval_refused(call_id: u64, tool: &str, terminal: &str, why: &str) -> AuditRecord {
    let mut r = AuditRecord::new(
        REFUSED_APPROVAL_TOOL,
        Level::Destructive,
        Transport::Tui,
        json!({ "callId": call_id, "tool": tool, "approve": true }),
    );
    r.client = terminal.to_string();
    r.outcome = Outcome::Refused;
    r.error = Some(why.to_string());
    r
}
