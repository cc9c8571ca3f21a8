//! What a session sends that it reads from the core: the History preload, the view, the
//! devices, a waiting call as the modal shows it, and the core's events as protocol messages.
use std::sync::Arc;

use super::super::proto::{
    AskWire, DeviceWire, HISTORY_CHUNK_BYTES, MAX_LINE, ServerMsg, ViewWire,
};
use crate::mcp::confirm::ConfirmRequest;
use crate::mcp::{Core, ServerEvent};
use crate::tui::event::CoreView;

/// The History preload as the in-process History reads it (the audit trail's recent records,
/// as stored: already redacted), in chunks under [`HISTORY_CHUNK_BYTES`].
pub(super) async fn history(core: &Arc<Core>) -> Vec<ServerMsg> {
    let c = core.clone();
    let cap = core.config().history.size.max(1);
    let records = tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        if let Err(e) = c.audit.visit_recent(cap, |r| out.push(r)) {
            tracing::error!(error = %e, "the audit trail could not be read back for an attached control centre");
        }
        out
    })
    .await
    .unwrap_or_default();
    let source = format!("audit trail ({})", core.audit.path().display());
    let mut chunks = Vec::new();
    let (mut chunk, mut size) = (Vec::new(), 0usize);
    for r in records {
        let n = serde_json::to_vec(&r).map(|v| v.len()).unwrap_or(0);
        if n > MAX_LINE / 2 {
            // One record too big for any line: left out, as a line too long would end the link.
            tracing::warn!(
                seq = r.seq,
                bytes = n,
                "an audit record too large for the attach channel is left out of the History preload"
            );
            continue;
        }
        if size + n > HISTORY_CHUNK_BYTES && !chunk.is_empty() {
            chunks.push(std::mem::take(&mut chunk));
            size = 0;
        }
        size += n;
        chunk.push(r);
    }
    chunks.push(chunk);
    let last = chunks.len() - 1;
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, records)| ServerMsg::History {
            records,
            source: source.clone(),
            last: i == last,
        })
        .collect()
}

pub(super) fn view(core: &Core) -> ServerMsg {
    ServerMsg::View {
        view: ViewWire::from_view(&CoreView::read(core, String::new())),
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
                selected: core.selections.selected_by_anyone(&d.id),
                serial: d.serial,
                state: d.state.to_string(),
                model: d.model,
            })
            .collect(),
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
