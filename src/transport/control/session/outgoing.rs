//! What a session sends that it reads from the core: the History preload, the view, the
//! devices, a waiting call as the modal shows it, and the core's events as protocol messages.
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::audit::AuditRecord;
use crate::mcp::confirm::ConfirmRequest;
use crate::mcp::{Core, ServerEvent};
use crate::protocol::{
    AskWire, CoreView, DeviceWire, HISTORY_CHUNK_BYTES, MAX_LINE, ServerMsg, ViewWire,
};

/// The History preload as the in-process History reads it (the audit trail's recent records,
/// as stored: already redacted), as `history` lines under [`HISTORY_CHUNK_BYTES`], the last
/// one marked `last`. Each record is serialized as soon as it is read and each line sent as
/// soon as it is full: parsed JSON costs several times its text (the whole preload held as
/// parsed records, here and in the control centre, left a control centre with 10,000
/// History entries at about 230 MB resident), and memory freed after such a peak mostly
/// stays with the process.
pub(super) fn history(core: &Arc<Core>) -> mpsc::Receiver<Vec<u8>> {
    let c = core.clone();
    let cap = core.config().history.size.max(1);
    let source = format!("audit trail ({})", core.audit.path().display());
    // One line waiting while the next is read: the reader keeps pace with the writer.
    let (tx, rx) = mpsc::channel(1);
    tokio::task::spawn_blocking(move || {
        let mut lines = HistoryLines::new(source, tx);
        // A `started` record whose call is running now is left out: History would take it for
        // a call a server stopped during (the call is running, not interrupted).
        let open = |r: &AuditRecord| {
            r.outcome == crate::audit::Outcome::Started && c.sessions.started_running(r.seq)
        };
        if let Err(e) = c.audit.visit_recent(cap, |r| {
            if !open(&r) {
                lines.add(&r)
            }
        }) {
            tracing::error!(error = %e, "the audit trail could not be read back for an attached control centre");
        }
        lines.send(true);
    });
    rx
}

/// The preload's line being filled (its records, serialized and comma-separated), and where
/// full ones go.
struct HistoryLines {
    tx: mpsc::Sender<Vec<u8>>,
    source: String,
    records: Vec<u8>,
    /// The session stopped listening (its client left): the rest is read and dropped.
    gone: bool,
}

impl HistoryLines {
    fn new(source: String, tx: mpsc::Sender<Vec<u8>>) -> HistoryLines {
        HistoryLines {
            tx,
            source,
            records: Vec::new(),
            gone: false,
        }
    }

    fn add(&mut self, r: &AuditRecord) {
        if self.gone {
            return;
        }
        let Ok(json) = serde_json::to_vec(r) else {
            return;
        };
        if json.len() > MAX_LINE / 2 {
            // One record too big for any line: left out, as a line too long would end the link.
            tracing::warn!(
                seq = r.seq,
                bytes = json.len(),
                "an audit record too large for the attach channel is left out of the History preload"
            );
            return;
        }
        if self.records.len() + json.len() > HISTORY_CHUNK_BYTES && !self.records.is_empty() {
            self.send(false);
        }
        if !self.records.is_empty() {
            self.records.push(b',');
        }
        self.records.extend_from_slice(&json);
    }

    /// [`ServerMsg::History`] as serde writes it, around the records already serialized.
    fn line(&self, last: bool) -> Vec<u8> {
        let mut l = Vec::with_capacity(self.records.len() + self.source.len() + 64);
        l.extend_from_slice(br#"{"type":"history","records":["#);
        l.extend_from_slice(&self.records);
        l.extend_from_slice(br#"],"source":"#);
        let _ = serde_json::to_writer(&mut l, &self.source);
        l.extend_from_slice(if last {
            br#","last":true}"#
        } else {
            br#","last":false}"#
        });
        l
    }

    fn send(&mut self, last: bool) {
        let line = self.line(last);
        self.records.clear();
        if !self.gone && self.tx.blocking_send(line).is_err() {
            self.gone = true;
        }
    }
}

pub(super) fn view(core: &Core) -> ServerMsg {
    ServerMsg::View {
        view: Box::new(ViewWire::from_view(&CoreView::read(core, String::new()))),
    }
}

pub(super) fn wire(req: &ConfirmRequest) -> AskWire {
    let a = &req.ask;
    AskWire {
        call_id: a.call_id,
        tool: a.tool.into(),
        title: a.title.into(),
        level: a.level,
        client: a.client.clone(),
        transport: a.transport,
        via: a.via.clone(),
        verified: Some(a.verified.clone()),
        device: a.device.clone(),
        device_model: a.device_model.clone(),
        arguments: a.arguments.clone(),
        reason: a.reason.clone(),
        timeout_ms: req.timeout.as_millis() as u64,
        remaining_ms: req.remaining().as_millis() as u64,
    }
}

pub(super) fn devices(core: &Core) -> ServerMsg {
    ServerMsg::Devices {
        devices: core
            .devices
            .snapshot()
            .into_iter()
            .map(|d| DeviceWire {
                selected: core.sessions.selections.selected_by_anyone(&d.id),
                serial: d.serial,
                state: d.state.to_string(),
                model: d.model,
            })
            .collect(),
        problems: core.devices.server_problems(),
    }
}

/// The core's events as the protocol carries them; the rest are not (yet) sent.
pub(super) fn event(core: &Core, ev: ServerEvent) -> Option<ServerMsg> {
    Some(match ev {
        ServerEvent::CallStarted {
            call_id,
            at,
            tool,
            level,
            transport,
            client,
            device,
            arguments,
            person,
        } => ServerMsg::CallStarted {
            call_id,
            at,
            tool,
            level,
            transport,
            client,
            device,
            arguments,
            person,
        },
        ServerEvent::CallArguments { call_id, arguments } => {
            ServerMsg::CallArguments { call_id, arguments }
        }
        ServerEvent::CallFinished {
            call_id,
            tool,
            outcome,
            duration,
            decision,
            device,
            result,
            images,
            record,
        } => ServerMsg::CallFinished {
            call_id,
            tool,
            outcome,
            duration_ms: duration.as_secs_f64() * 1000.0,
            decision,
            device,
            result,
            images,
            record,
        },
        ServerEvent::DevicesChanged | ServerEvent::Device { .. } => devices(core),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Level, Transport};

    #[test]
    fn a_history_line_is_what_serde_writes_for_the_message() {
        let records: Vec<AuditRecord> = (1..=3)
            .map(|seq| {
                let mut r = AuditRecord::new(
                    "android_tap",
                    Level::SafeAction,
                    Transport::Http,
                    serde_json::json!({"x": seq, "text": "a \"quoted\" é"}),
                );
                r.seq = seq;
                r.result = Some(serde_json::json!({"ok": true}));
                r
            })
            .collect();
        let (tx, mut rx) = mpsc::channel(8);
        let mut lines = HistoryLines::new("audit trail (/tmp/\"x\")".into(), tx);
        for r in &records {
            lines.add(r);
        }
        lines.send(true);
        let line = rx.try_recv().unwrap();
        let expected = ServerMsg::History {
            records,
            source: "audit trail (/tmp/\"x\")".into(),
            last: true,
        };
        assert_eq!(
            String::from_utf8(line).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
        // An empty trail is one empty, last line.
        let (tx, mut rx) = mpsc::channel(8);
        HistoryLines::new("s".into(), tx).send(true);
        assert_eq!(
            rx.try_recv().unwrap(),
            br#"{"type":"history","records":[],"source":"s","last":true}"#.to_vec()
        );
    }

    #[test]
    fn a_long_preload_is_cut_into_lines_under_the_chunk_size() {
        let record = |seq: u64, bytes: usize| {
            let mut r = AuditRecord::new(
                "android_get_screen",
                Level::ReadOnly,
                Transport::Http,
                serde_json::json!({"pad": "y".repeat(bytes)}),
            );
            r.seq = seq;
            r
        };
        let (tx, mut rx) = mpsc::channel(64);
        let mut lines = HistoryLines::new("s".into(), tx);
        for seq in 1..=10 {
            lines.add(&record(seq, 300 * 1024));
        }
        // Too large for any line: left out, the others still go.
        lines.add(&record(11, MAX_LINE));
        lines.add(&record(12, 10));
        lines.send(true);
        let mut seqs = Vec::new();
        let mut lasts = Vec::new();
        while let Ok(line) = rx.try_recv() {
            assert!(line.len() <= HISTORY_CHUNK_BYTES + 1024, "{}", line.len());
            let Ok(ServerMsg::History { records, last, .. }) = serde_json::from_slice(&line) else {
                panic!("not a history line");
            };
            seqs.extend(records.iter().map(|r| r.seq));
            lasts.push(last);
        }
        assert_eq!(seqs, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]);
        assert!(lasts.len() > 2, "{lasts:?}");
        assert_eq!(lasts.iter().filter(|l| **l).count(), 1);
        assert_eq!(lasts.last(), Some(&true));
    }
}
