//! Approval through the client in 2026-07-28, which has no server-to-client requests: the
//! multi-round-trip request (SEP-2322). The first `tools/call` of a destructive call is answered
//! with an `input_required` result holding the form and a `requestState`; the call itself stays
//! here, waiting, until the client retries the same `tools/call` with the person's answer and the
//! echoed state, or the confirmation times out.
//!
//! The echoed `requestState` is the client's to write, so it carries nothing but a handle: 128
//! random bits naming the waiting call in [`Rounds`]. A handle answers once (taking it removes
//! it, whatever the retry says); a retry must be the call that was asked (same tool, the same
//! arguments by a hash of their canonical JSON, the same client name over the same transport),
//! or the waiting call is denied and the retry refused; handles that were answered or expired
//! are remembered (the last [`ENDED_KEPT`]) so a replay or a late retry is told which, and one
//! never issued is refused as such. At most [`MAX_PENDING`] calls wait this way at once,
//! whatever names clients give.
//!
//! The approved call runs in the task of its first request, so its progress and log records
//! (`_meta` of that request) go to that request's stream, which has ended: the retry gets the
//! result alone.
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{ElicitRequest, InputRequest, InputRequests, InputRequiredResult};
use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::super::confirm::{Answered, Ask, TooManyWaiting};
use super::super::core::Core;
use super::super::ctx::CallOutcome;
use super::super::events::{ClientId, DecidedBy, Decision, Transport};

/// How many calls may wait for a retry at once, over all clients.
pub const MAX_PENDING: usize = 64;
/// How many answered or expired handles are remembered, to name a replay or a late retry.
pub const ENDED_KEPT: usize = 1024;
/// The key of the approval form in `inputRequests` (and of its answer in `inputResponses`).
pub const KEY: &str = "spock_approval";

/// What a call was asked as; its retry must be asked as the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    tool: String,
    args: [u8; 32],
    client: String,
}

impl Asked {
    pub fn of(tool: &str, args: &Value, client: Option<&ClientId>, via: Transport) -> Asked {
        let mut canon = String::new();
        canonical(args, &mut canon);
        Asked {
            tool: tool.to_string(),
            args: Sha256::digest(canon.as_bytes()).into(),
            client: format!("{} over {}", client_label(client), via.label()),
        }
    }

    /// What differs, first found.
    fn differs(&self, retry: &Asked) -> Option<&'static str> {
        if self.tool != retry.tool {
            Some("tool")
        } else if self.args != retry.args {
            Some("arguments")
        } else if self.client != retry.client {
            Some("client")
        } else {
            None
        }
    }
}

/// A client as the audit names it (`name/version`, or `unknown`).
pub fn client_label(client: Option<&ClientId>) -> String {
    client
        .map(|c| format!("{}/{}", c.name, c.version))
        .unwrap_or_else(|| "unknown".into())
}

/// JSON with every object's keys sorted, so equal arguments hash the same however ordered.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// What a waiting call hears from its retry.
#[derive(Debug)]
enum Reply {
    /// The retry matched: the answer under [`KEY`], if it carried one.
    Answer(Option<Value>),
    /// The retry was another call (what differs): this call's approval is void.
    Mismatch(&'static str),
}

struct Live {
    call_id: u64,
    asked: Asked,
    reply: oneshot::Sender<Reply>,
    /// The call's task, whose outcome answers the retry.
    join: Option<JoinHandle<Option<CallOutcome>>>,
    cancel: CancellationToken,
}

/// How a handle that no longer waits ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Answered { call_id: u64 },
    Expired { call_id: u64 },
}

/// What a retry's `requestState` named.
pub enum Taken {
    /// The waiting call it was issued for, answered now: its task gives the retry's result.
    Matched(Retry),
    /// A waiting call asked as something else; that call is denied.
    Mismatched {
        call_id: u64,
        what: &'static str,
    },
    Ended(Ended),
    /// Never issued here (or forgotten).
    Unknown,
}

/// The answered call, for the retry to wait on.
pub struct Retry {
    pub join: Option<JoinHandle<Option<CallOutcome>>>,
    pub cancel: CancellationToken,
}

/// The calls waiting for a retry, by handle.
#[derive(Default)]
pub struct Rounds {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    live: HashMap<String, Live>,
    ended: HashMap<String, Ended>,
    order: VecDeque<String>,
}

impl Inner {
    fn end(&mut self, handle: &str, how: Ended) {
        if self.ended.insert(handle.to_string(), how).is_none() {
            self.order.push_back(handle.to_string());
        }
        while self.order.len() > ENDED_KEPT {
            if let Some(old) = self.order.pop_front() {
                self.ended.remove(&old);
            }
        }
    }
}

impl Rounds {
    /// Refused when [`MAX_PENDING`] calls already wait.
    pub fn room(&self) -> Result<(), TooManyWaiting> {
        let n = self
            .inner
            .lock()
            .map(|i| i.live.len())
            .unwrap_or(MAX_PENDING);
        if n >= MAX_PENDING {
            return Err(TooManyWaiting {
                client: "all clients together (2026-07-28 approvals)".into(),
                waiting: n,
            });
        }
        Ok(())
    }

    fn insert(&self, handle: &str, live: Live) -> bool {
        match self.inner.lock() {
            Ok(mut i) if i.live.len() < MAX_PENDING => {
                i.live.insert(handle.to_string(), live);
                true
            }
            _ => false,
        }
    }

    /// Gives a waiting call the task it runs in (done by the request that was answered
    /// `input_required`, before that answer leaves). A call no longer waiting keeps running.
    pub fn attach(&self, handle: &str, join: JoinHandle<Option<CallOutcome>>) {
        if let Ok(mut i) = self.inner.lock()
            && let Some(l) = i.live.get_mut(handle)
        {
            l.join = Some(join);
        }
    }

    /// A retry names `handle`: the waiting call is taken (once) and answered with `response`
    /// if the retry is that call, denied if it is not.
    pub fn take(&self, handle: &str, retry: &Asked, response: Option<Value>) -> Taken {
        let Ok(mut i) = self.inner.lock() else {
            return Taken::Unknown;
        };
        if let Some(live) = i.live.remove(handle) {
            i.end(
                handle,
                Ended::Answered {
                    call_id: live.call_id,
                },
            );
            return match live.asked.differs(retry) {
                None => {
                    let _ = live.reply.send(Reply::Answer(response));
                    Taken::Matched(Retry {
                        join: live.join,
                        cancel: live.cancel,
                    })
                }
                Some(what) => {
                    let _ = live.reply.send(Reply::Mismatch(what));
                    Taken::Mismatched {
                        call_id: live.call_id,
                        what,
                    }
                }
            };
        }
        match i.ended.get(handle) {
            Some(e) => Taken::Ended(*e),
            None => Taken::Unknown,
        }
    }

    /// The timeout: true if the call still waited (it is expired now), false if a retry took
    /// it first (its answer is on the way).
    fn expire(&self, handle: &str) -> bool {
        let Ok(mut i) = self.inner.lock() else {
            return true;
        };
        match i.live.remove(handle) {
            Some(l) => {
                i.end(handle, Ended::Expired { call_id: l.call_id });
                true
            }
            None => false,
        }
    }

    /// The call was decided another way (a person answered it): a retry is told it was
    /// answered.
    fn settled(&self, handle: &str) {
        if let Ok(mut i) = self.inner.lock()
            && let Some(l) = i.live.remove(handle)
        {
            i.end(handle, Ended::Answered { call_id: l.call_id });
        }
    }

    fn forget(&self, handle: &str) {
        if let Ok(mut i) = self.inner.lock() {
            i.live.remove(handle);
        }
    }

    /// The server stops: every waiting call is denied now (recorded), not left to the timeout.
    pub fn close(&self) {
        if let Ok(mut i) = self.inner.lock() {
            i.live.clear();
        }
    }

    pub fn waiting(&self) -> usize {
        self.inner.lock().map(|i| i.live.len()).unwrap_or(0)
    }
}

/// The request's side of a call that may wait for a retry: where the `input_required` answer
/// goes, and the call's own cancellation (no longer the first request's once it waits).
pub struct Asker {
    out: Mutex<Option<oneshot::Sender<Suspended>>>,
    cancel: CancellationToken,
}

/// A call now waiting for its retry: what the first request answers.
pub struct Suspended {
    pub result: InputRequiredResult,
    pub handle: String,
}

impl Asker {
    pub fn new(cancel: CancellationToken) -> (Arc<Asker>, oneshot::Receiver<Suspended>) {
        let (tx, rx) = oneshot::channel();
        let asker = Asker {
            out: Mutex::new(Some(tx)),
            cancel,
        };
        (Arc::new(asker), rx)
    }
}

/// 128 random bits, hex.
fn new_handle() -> Option<String> {
    let mut buf = [0u8; 16];
    getrandom::fill(&mut buf).ok()?;
    Some(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// Asks through an `input_required` answer and waits for the retry (or the timeout).
pub(super) async fn suspend(
    core: &Core,
    asker: &Asker,
    label: &str,
    ask: &Ask,
    asked: Asked,
    timeout: Duration,
) -> Answered {
    let Some(handle) = new_handle() else {
        tracing::warn!("no randomness for an approval handle; the call is denied");
        return Answered::default_no(DecidedBy::Dropped);
    };
    let (tx, mut rx) = oneshot::channel();
    let live = Live {
        call_id: ask.call_id,
        asked,
        reply: tx,
        join: None,
        cancel: asker.cancel.clone(),
    };
    let rounds = core.kept::<Rounds>();
    if !rounds.insert(&handle, live) {
        return Answered::default_no(DecidedBy::Dropped);
    }
    // A person who attached may answer first (the confirmer then stops waiting for this):
    // the handle no longer waits, and a later retry is told the call was answered.
    struct Settled<'a>(&'a Rounds, &'a str);
    impl Drop for Settled<'_> {
        fn drop(&mut self) {
            self.0.settled(self.1);
        }
    }
    let _settled = Settled(&rounds, &handle);
    let mut requests = InputRequests::new();
    requests.insert(
        KEY.to_string(),
        InputRequest::Elicitation(ElicitRequest::new(super::form(ask))),
    );
    let result = InputRequiredResult::new(Some(requests), Some(handle.clone()));
    let out = asker.out.lock().ok().and_then(|mut o| o.take());
    let sent = out.is_some_and(|o| {
        o.send(Suspended {
            result,
            handle: handle.clone(),
        })
        .is_ok()
    });
    if !sent {
        // Nobody can carry the question to the client (the request is gone).
        rounds.forget(&handle);
        return Answered::default_no(DecidedBy::Dropped);
    }
    let mut reply = match tokio::time::timeout(timeout, &mut rx).await {
        Ok(r) => r.ok(),
        Err(_) if rounds.expire(&handle) => {
            return Answered::default_no(DecidedBy::Timeout);
        }
        // Taken by a retry as the time ran out: it came in time, its answer is sent.
        Err(_) => rx.await.ok(),
    };
    // Switched off while it waited: the answer counts no more.
    if !core.config().confirm.via_client && reply.is_some() {
        reply = None;
    }
    let decider = Some(super::decider(
        label,
        "answered on its retry (input_required)",
    ));
    match reply {
        Some(Reply::Answer(Some(v))) => Answered {
            decision: Decision {
                approved: super::approves_value(&v),
                by: DecidedBy::Client,
            },
            decider,
        },
        // A retry that carried no answer to the form approves nothing.
        Some(Reply::Answer(None)) => Answered {
            decision: Decision::deny(DecidedBy::Client),
            decider,
        },
        Some(Reply::Mismatch(what)) => Answered {
            decision: Decision::deny(DecidedBy::Dropped),
            decider: Some(format!(
                "nobody: a retry with this call's requestState changed its {what}, so the \
                 approval is void (MCP client {label})"
            )),
        },
        None => Answered::default_no(DecidedBy::Dropped),
    }
}

#[cfg(test)]
mod tests;
