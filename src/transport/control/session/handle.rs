//! One attached session's state and its handlers: each input the session's loop waits on (a
//! client line, a request to answer, a core event, a notice, the controller's status, a timer)
//! is one method here, returning the [`Step`] the loop takes. The consent rules are in
//! [`Session::decide`] and [`Session::displayed`].
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use super::outgoing::{event, view, wire};
use super::{Line, VIEW_SETTLE, notice_or_error};
use crate::mcp::confirm::{ConfirmRequest, Notice};
use crate::mcp::navigation::NavRequest;
use crate::mcp::{Core, ServerEvent};
use crate::protocol::{
    ARMING_MS, AccessChange, BatchCmd, ClientMsg, ErrorCode, ServerCtl, ServerMsg, ServerStatus,
    SettingField,
};
use crate::transport::control::batch_io::BatchLink;
use crate::transport::control::commands::{self, Actor};
use crate::transport::switch::ServerHandle;

/// What the loop does after one input.
pub(super) enum Step {
    /// Send this to the client.
    Send(ServerMsg),
    /// Send this, then end the session.
    Last(ServerMsg),
    /// Nothing to send.
    Skip,
    /// End the session.
    Stop,
}

impl From<Option<ServerMsg>> for Step {
    fn from(m: Option<ServerMsg>) -> Step {
        m.map_or(Step::Skip, Step::Send)
    }
}

pub(super) struct Session {
    pub(super) core: Arc<Core>,
    pub(super) you: String,
    pub(super) actor: Actor,
    pub(super) held: HashMap<u64, ConfirmRequest>,
    pub(super) displayed: HashMap<u64, Instant>,
    /// Agents' navigation requests waiting for this terminal's answer, by wire id.
    pub(super) navs: HashMap<u64, NavRequest>,
    pub(super) next_nav: u64,
    pub(super) batch: BatchLink,
    pub(super) server: ServerHandle,
    /// Results of off-loop work (a saved file), sent when they land.
    pub(super) replies: mpsc::UnboundedSender<ServerMsg>,
    /// This terminal reported its screen: "none" again when it leaves.
    pub(super) wrote_screen: bool,
    /// A fresh view follows what may have changed it, at most every [`VIEW_SETTLE`].
    pub(super) view_due: Option<Instant>,
    /// The controller still reports (it ends when the process stops).
    pub(super) status_live: bool,
    /// The trail's state as last sent (anchors, failures, a verify change it on the writer
    /// thread): looked at every few seconds, a view sent when it changed.
    pub(super) trail_seen: crate::audit::TrailState,
    /// The control credential, and the generation of it this terminal holds: it moves when
    /// this terminal rotates it ([`u64::MAX`] while its rotation runs), so only the others
    /// are detached.
    pub(super) credential: crate::config::token::TokenStore,
    pub(super) holds: Arc<std::sync::atomic::AtomicU64>,
}

impl Session {
    fn view_soon(&mut self) {
        self.view_due
            .get_or_insert_with(|| Instant::now() + VIEW_SETTLE);
    }

    fn forget(&mut self, call_id: u64) {
        self.held.remove(&call_id);
        self.displayed.remove(&call_id);
    }

    pub(super) fn trail_looked_at(&mut self) -> Step {
        let t = self.core.audit.trail_state();
        if t != self.trail_seen {
            self.trail_seen = t;
            self.view_soon();
        }
        Step::Skip
    }

    pub(super) fn view_now(&mut self) -> Step {
        self.view_due = None;
        Step::Send(view(&self.core))
    }

    /// A destructive call waits for a person: this terminal holds a copy until it answers,
    /// or the request is decided elsewhere or withdrawn.
    pub(super) fn asked(&mut self, req: ConfirmRequest) -> Step {
        let m = ServerMsg::ConfirmAsked { ask: wire(&req) };
        self.held.insert(req.ask.call_id, req);
        Step::Send(m)
    }

    pub(super) fn navigation_asked(&mut self, req: NavRequest) -> Step {
        let id = self.next_nav;
        self.next_nav += 1;
        let m = ServerMsg::Navigate {
            id,
            screen: req.screen.clone(),
            select: req.select.clone(),
        };
        self.navs.insert(id, req);
        Step::Send(m)
    }

    pub(super) fn replied(&mut self, m: ServerMsg) -> Step {
        self.view_soon();
        Step::Send(m)
    }

    pub(super) fn status_changed(
        &mut self,
        r: Result<(), watch::error::RecvError>,
        status: &mut watch::Receiver<ServerStatus>,
    ) -> Step {
        match r {
            Ok(()) => {
                self.view_soon();
                Step::Send(ServerMsg::ServerStatus {
                    status: status.borrow_and_update().clone(),
                })
            }
            // The controller ended: the process is stopping; the goodbye follows.
            Err(_) => {
                self.status_live = false;
                Step::Skip
            }
        }
    }

    pub(super) fn noticed(&mut self, n: Result<Notice, broadcast::error::RecvError>) -> Step {
        match n {
            Ok(Notice::Decided {
                call_id,
                approved,
                by,
            }) => {
                self.forget(call_id);
                Step::Send(ServerMsg::Decided {
                    call_id,
                    approved,
                    by,
                })
            }
            Ok(Notice::Withdrawn {
                call_id,
                timed_out,
                why,
            }) => {
                self.forget(call_id);
                Step::Send(ServerMsg::Withdrawn {
                    call_id,
                    timed_out,
                    why,
                })
            }
            Ok(Notice::ClientSaid {
                call_id,
                approved,
                by,
            }) => Step::Send(ServerMsg::ClientSaid {
                call_id,
                approved,
                by,
            }),
            Err(broadcast::error::RecvError::Lagged(_)) => Step::Skip,
            Err(broadcast::error::RecvError::Closed) => Step::Stop,
        }
    }

    pub(super) fn core_event(
        &mut self,
        ev: Result<ServerEvent, broadcast::error::RecvError>,
    ) -> Step {
        match ev {
            Ok(ev) => {
                self.view_soon();
                event(&self.core, ev).into()
            }
            Err(broadcast::error::RecvError::Lagged(lost)) => {
                self.view_soon();
                Step::Send(ServerMsg::Lagged { lost })
            }
            Err(broadcast::error::RecvError::Closed) => Step::Stop,
        }
    }

    pub(super) async fn line(&mut self, line: Option<Line>) -> Step {
        match line {
            None | Some(Line::Msg(ClientMsg::Detach)) => Step::Stop,
            Some(Line::Bad(why)) => Step::Send(ServerMsg::error(ErrorCode::BadMessage, why)),
            Some(Line::Msg(m)) => self.command(m).await.into(),
        }
    }

    /// One command from the client; the answer to send, if any.
    pub(super) async fn command(&mut self, m: ClientMsg) -> Option<ServerMsg> {
        match m {
            ClientMsg::Hello { .. } | ClientMsg::Prove { .. } => Some(ServerMsg::error(
                ErrorCode::BadMessage,
                "already attached: the handshake is not a command",
            )),
            ClientMsg::Detach => None,
            ClientMsg::Access { change } => self.access(change),
            ClientMsg::Setting { field, value } => self.setting(field, value),
            ClientMsg::BreakLease { id, device } => Some(ServerMsg::Notice {
                message: commands::break_lease(&self.core, id, &device, &self.actor),
            }),
            ClientMsg::Batch { cmd } => self.batch(cmd),
            ClientMsg::Server { action } => self.server_ctl(action),
            ClientMsg::ReloadTools => self.reload_tools(),
            ClientMsg::RotateCredential => self.rotate_credential(),
            ClientMsg::Screen { name } => self.screen(&name),
            ClientMsg::Navigated { id, error } => self.navigated(id, error),
            ClientMsg::Displayed { call_id } => self.displayed(call_id),
            ClientMsg::Decide { call_id, approve } => self.decide(call_id, approve).await,
        }
    }

    fn access(&mut self, change: AccessChange) -> Option<ServerMsg> {
        tracing::info!(terminal = %self.you, ?change, "access changed from an attached control centre");
        match commands::access(&self.core, &change, &self.actor) {
            Ok(what) => {
                // In force at once; written to the file off the loop.
                let (core, tx) = (self.core.clone(), self.replies.clone());
                tokio::task::spawn_blocking(move || {
                    let _ = tx.send(notice_or_error(commands::save_access(&core, &what)));
                });
                None
            }
            Err(e) => Some(ServerMsg::error(ErrorCode::Failed, e)),
        }
    }

    fn setting(&mut self, field: SettingField, value: u64) -> Option<ServerMsg> {
        tracing::info!(terminal = %self.you, ?field, value, "setting changed from an attached control centre");
        let (core, tx) = (self.core.clone(), self.replies.clone());
        let actor = self.actor.clone();
        tokio::task::spawn_blocking(move || {
            let _ = tx.send(notice_or_error(commands::setting(
                &core, field, value, &actor,
            )));
        });
        None
    }

    fn batch(&mut self, cmd: BatchCmd) -> Option<ServerMsg> {
        self.batch.perform_as(cmd, self.actor.client.clone());
        None
    }

    /// The own tools read again, off the loop; the answer says what loaded (an error names
    /// each file that did not, with its line).
    fn reload_tools(&mut self) -> Option<ServerMsg> {
        tracing::info!(terminal = %self.you, "own tools reloaded from an attached control centre");
        let (core, tx) = (self.core.clone(), self.replies.clone());
        tokio::task::spawn_blocking(move || {
            let report = core.reload_own_tools();
            let _ = tx.send(if report.errors.is_empty() {
                ServerMsg::Notice {
                    message: format!("reloaded: {}", report.summary()),
                }
            } else {
                ServerMsg::error(ErrorCode::Failed, format!("reloaded: {}", report.summary()))
            });
        });
        None
    }

    /// The control credential replaced, off the loop; this terminal keeps its place.
    fn rotate_credential(&mut self) -> Option<ServerMsg> {
        use std::sync::atomic::Ordering;
        tracing::info!(terminal = %self.you, "control credential rotated from a control centre");
        let (core, tx) = (self.core.clone(), self.replies.clone());
        let (store, holds, actor) = (
            self.credential.clone(),
            self.holds.clone(),
            self.actor.clone(),
        );
        let before = holds.swap(u64::MAX, Ordering::SeqCst);
        tokio::task::spawn_blocking(move || {
            let r = commands::rotate_credential(&core, &store, &actor);
            holds.store(
                if r.is_ok() {
                    store.generation()
                } else {
                    before
                },
                Ordering::SeqCst,
            );
            let _ = tx.send(notice_or_error(r));
        });
        None
    }

    fn server_ctl(&mut self, action: ServerCtl) -> Option<ServerMsg> {
        tracing::info!(terminal = %self.you, ?action, "server control from an attached control centre");
        if self.server.send(action) {
            None
        } else {
            Some(ServerMsg::error(
                ErrorCode::Failed,
                "the server controller has stopped (the process is stopping)",
            ))
        }
    }

    fn screen(&mut self, name: &str) -> Option<ServerMsg> {
        // What agents read back: a screen's name, nothing that could draw.
        let name: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(32)
            .collect();
        if let Ok(mut slot) = self.core.screen.write() {
            *slot = name;
        }
        self.wrote_screen = true;
        None
    }

    fn navigated(&mut self, id: u64, error: Option<String>) -> Option<ServerMsg> {
        let Some(req) = self.navs.remove(&id) else {
            return Some(ServerMsg::error(
                ErrorCode::NotPending,
                format!("navigation request {id} is not waiting for an answer"),
            ));
        };
        match error {
            None => {
                if let Ok(mut slot) = self.core.screen.write() {
                    *slot = req.screen.clone();
                }
                req.applied();
            }
            Some(why) => req.refused(why),
        }
        None
    }

    /// The client says the whole request is on its screen: the arming time starts now.
    fn displayed(&mut self, call_id: u64) -> Option<ServerMsg> {
        if !self.held.contains_key(&call_id) {
            return refused(
                ErrorCode::NotPending,
                format!("call {call_id} is not waiting for an answer"),
                call_id,
            );
        }
        // The first acknowledgement starts the arming time; repeats do not restart it.
        self.displayed.entry(call_id).or_insert_with(Instant::now);
        None
    }

    /// The person's answer. A denial counts for any request this terminal holds; an approval
    /// only [`ARMING_MS`] after this terminal said it displayed the request. A refused
    /// approval is audited and the call keeps waiting.
    async fn decide(&mut self, call_id: u64, approve: bool) -> Option<ServerMsg> {
        if !self.held.contains_key(&call_id) {
            return refused(
                ErrorCode::NotPending,
                format!("call {call_id} is not waiting for an answer (decided or withdrawn)"),
                call_id,
            );
        }
        if approve {
            let why = match self.displayed.get(&call_id) {
                None => Some((
                    ErrorCode::NotDisplayed,
                    "approval refused: this terminal never acknowledged displaying the request"
                        .to_string(),
                )),
                Some(at) if at.elapsed() < Duration::from_millis(ARMING_MS) => Some((
                    ErrorCode::TooEarly,
                    format!(
                        "approval refused: sent {} ms after the request was displayed; approvals count from {ARMING_MS} ms",
                        at.elapsed().as_millis()
                    ),
                )),
                Some(_) => None,
            };
            if let Some((code, message)) = why {
                self.audit_refusal(call_id, code, &message).await;
                return refused(code, format!("{message}; the call still waits"), call_id);
            }
        }
        if let Some(req) = self.held.remove(&call_id) {
            req.answer(approve);
        }
        self.displayed.remove(&call_id);
        None
    }

    /// A refused approval is on the audit trail (before the refusal goes back): which
    /// terminal, which call, why.
    async fn audit_refusal(&self, call_id: u64, code: ErrorCode, message: &str) {
        let tool = self.held.get(&call_id).map(|r| r.ask.tool).unwrap_or("?");
        tracing::warn!(terminal = %self.you, call_id, tool, ?code, "attach approval refused");
        let r = crate::audit::acts::approval_refused(call_id, tool, &self.you, message);
        self.core.audit.append_answered(r).await;
    }
}

/// An error about `call_id`, sent back to the client.
fn refused(code: ErrorCode, message: String, call_id: u64) -> Option<ServerMsg> {
    Some(ServerMsg::Error {
        code,
        message,
        call_id: Some(call_id),
    })
}
