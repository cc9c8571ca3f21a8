//! Approval through the MCP client, opt-in (`[confirm] via_client = true`): with no control
//! centre attached, a destructive call's confirmation is asked of the calling client when that
//! client declared form elicitation. In 2025-06-18 / 2025-11-25 sessions it is a server-to-client
//! `elicitation/create` request (one round trip); in 2026-07-28, which has no server-to-client
//! requests and carries the client's capabilities in each request's `_meta`, it is the
//! multi-round-trip request ([`rounds`]): the first `tools/call` is answered `input_required`
//! with the same form and a `requestState`, the call waits here, and the client's retry of that
//! `tools/call` carries the answer. Either way the form shows what the modal shows (tool, device,
//! client, every argument, reason), defaults to no, and waits the same timeout; the answer and
//! who gave it are audited (`decidedBy: client`, the client's name as decider). Clients without
//! elicitation keep today's denial.
//!
//! This trusts the client to show the request to a person: nothing stops an agent's own
//! client from answering its own question. That is why it is off by default. An answer can
//! only approve the call it was asked for: a 2025 elicitation is its own JSON-RPC request,
//! answered by id, and one that comes after the timeout answers nothing (the call was denied);
//! a 2026 `requestState` is an unguessable one-shot handle kept server-side, valid only for a
//! retry of the same tool with the same arguments from the same client before the timeout, and
//! the device the call resolves to must still be the one shown ([`in_rounds`]). A retry that is
//! refused (another call's state, a replay, a late or forged one) is refused as its own audited
//! call ([`refusing`]), and runs nothing.
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    BooleanSchema, ClientResult, ElicitRequest, ElicitRequestParams, ElicitationAction,
    ElicitationSchema, PrimitiveSchemaDefinition, ProtocolVersion, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext, ServiceError};
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use super::confirm::{Answered, Ask, TooManyWaiting};
use super::core::Core;
use super::events::{DecidedBy, Decision, Transport};
use super::result::{ErrorKind, ToolError};

pub mod rounds;

pub use rounds::{Asked, Asker, KEY, Rounds, Suspended, Taken};

/// The calling client, when it can be asked.
#[derive(Clone)]
pub struct Client {
    label: String,
    via: Via,
}

#[derive(Clone)]
enum Via {
    /// A 2025-era session: a request of our own.
    Session(Peer<RoleServer>),
    /// 2026-07-28: an `input_required` answer and the client's retry.
    Rounds(Arc<Asker>),
}

tokio::task_local! {
    static CLIENT: Client;
    static REFUSAL: Refusal;
}

/// The client of a request, if it declared form elicitation: on a 2025-era session, or on a
/// 2026-07-28 request whose caller can carry an `input_required` answer (`rounds`).
pub fn of_request(ctx: &RequestContext<RoleServer>, rounds: Option<Arc<Asker>>) -> Option<Client> {
    let modern = ctx
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    let (caps, info) = if modern {
        (ctx.client_capabilities()?, ctx.client_info())
    } else {
        let info = ctx.peer.peer_info()?;
        (info.capabilities.clone(), Some(info.client_info.clone()))
    };
    // Form mode: declared, or implied by an elicitation capability that names no mode.
    let e = caps.elicitation.as_ref()?;
    if e.form.is_none() && e.url.is_some() {
        return None;
    }
    let label = info
        .map(|i| format!("{}/{}", i.name, i.version))
        .unwrap_or_else(|| "unknown".into());
    let via = if modern {
        Via::Rounds(rounds?)
    } else {
        Via::Session(ctx.peer.clone())
    };
    Some(Client { label, via })
}

/// Runs `f` (one client call) with its client reachable for approval.
pub async fn scope<F: Future>(client: Option<Client>, f: F) -> F::Output {
    match client {
        Some(c) => CLIENT.scope(c, f).await,
        None => f.await,
    }
}

/// Whether this call's client is asked through `input_required` rounds: its approval arrives
/// on a later request, so the pipeline checks the device still resolves as shown.
pub fn in_rounds() -> bool {
    CLIENT
        .try_with(|c| matches!(c.via, Via::Rounds(_)))
        .unwrap_or(false)
}

/// Why a retry's `requestState` was not accepted: the retry is refused as a call of its own.
#[derive(Debug, Clone)]
pub struct Refusal {
    why: String,
    decision: Option<Decision>,
}

impl Refusal {
    /// What a retry that matched no waiting call is told (and the audit records).
    pub fn of(taken: &Taken) -> Option<Refusal> {
        let again = "nothing was run; call again without requestState to be asked anew";
        let (why, decision) = match taken {
            Taken::Matched(_) => return None,
            Taken::Mismatched { call_id, what } => (
                format!(
                    "its requestState was issued for call #{call_id}, but this retry is not \
                     that call (its {what} changed); a requestState answers only the call it \
                     was asked for, so call #{call_id} is denied too and {again}"
                ),
                None,
            ),
            Taken::Ended(rounds::Ended::Answered { call_id }) => (
                format!(
                    "its requestState (call #{call_id}) was already answered, and each answers \
                     once; {again}"
                ),
                None,
            ),
            Taken::Ended(rounds::Ended::Expired { call_id }) => (
                format!(
                    "the approval of call #{call_id} timed out before this retry (the default \
                     is no); {again}"
                ),
                Some(Decision::deny(DecidedBy::Timeout)),
            ),
            Taken::Unknown => (
                format!("its requestState is not one this server issued (or long gone); {again}"),
                None,
            ),
        };
        Some(Refusal { why, decision })
    }
}

/// Runs `f` (one client call) refused, if its retry was (see [`refused`]).
pub async fn refusing<F: Future>(refusal: Option<Refusal>, f: F) -> F::Output {
    match refusal {
        Some(r) => REFUSAL.scope(r, f).await,
        None => f.await,
    }
}

/// The refusal of this call, decided before it began (its `requestState` was not accepted).
pub fn refused(tool: &str) -> Option<(ToolError, Option<Decision>)> {
    REFUSAL
        .try_with(|r| {
            let e = ToolError::new(ErrorKind::Denied, format!("{tool} was not run: {}.", r.why))
                .with_details(match r.decision {
                    Some(d) => serde_json::json!({ "decision": d, "requestState": "refused" }),
                    None => serde_json::json!({ "requestState": "refused" }),
                });
            (e, r.decision)
        })
        .ok()
}

/// Asks for a destructive call's approval: through the calling client when `via_client` is on,
/// nobody is attached and the client can be asked; else as always (a control centre, or no).
/// `args` are the call's own (not the shown copy): a 2026 retry must repeat exactly them.
pub async fn ask(core: &Core, ask: Ask, args: &Value) -> Result<Answered, TooManyWaiting> {
    let via = ask.transport != Transport::Tui
        && core.config().confirm.via_client
        && !core.confirmer.has_responder();
    let client = via.then(|| CLIENT.try_with(Clone::clone).ok()).flatten();
    let timeout = core.confirmer.timeout();
    match client {
        None => core.confirmer.ask_for_client(ask).await,
        Some(Client {
            label,
            via: Via::Session(peer),
        }) => {
            core.confirmer
                .ask_for_client_via(&ask, elicit(peer, &label, &ask, timeout))
                .await
        }
        Some(Client {
            label,
            via: Via::Rounds(asker),
        }) => {
            core.kept::<Rounds>().room()?;
            let asked = Asked::of(ask.tool, args, ask.client.as_ref(), ask.transport);
            core.confirmer
                .ask_for_client_via(
                    &ask,
                    rounds::suspend(core, &asker, &label, &ask, asked, timeout),
                )
                .await
        }
    }
}

/// Who answered through a client, as the audit names it.
fn decider(label: &str, how: &str) -> String {
    format!("MCP client {label} (elicitation, {how}; trusted to have asked a person)")
}

/// The approval form: the modal's content, one checkbox, default no.
fn form(ask: &Ask) -> ElicitRequestParams {
    let mut props = std::collections::BTreeMap::new();
    props.insert(
        "approve".to_string(),
        PrimitiveSchemaDefinition::Boolean(
            BooleanSchema::new()
                .title(format!("Approve call #{} ({})", ask.call_id, ask.tool))
                .description("Leave unchecked, decline or cancel to deny.")
                .with_default(false),
        ),
    );
    let mut schema = ElicitationSchema::new(props);
    schema.required = Some(vec!["approve".into()]);
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(ask),
        requested_schema: schema,
    }
}

/// What the person reading the client's form is shown: the modal's content.
pub fn message(ask: &Ask) -> String {
    let mut m = format!(
        "spock-tui asks for approval of a destructive call (call #{}; the default is no).\n\
         Tool: {} ({})\n",
        ask.call_id, ask.title, ask.tool
    );
    if let Some(d) = &ask.device {
        m.push_str(&format!("Device: {d}"));
        if let Some(model) = &ask.device_model {
            m.push_str(&format!(" ({model})"));
        }
        m.push('\n');
    }
    m.push_str(&format!(
        "Asked by (verified): {}\n",
        ask.verified.describe()
    ));
    let claims = crate::model::who::claims(&ask.verified, &ask.client, ask.via.as_deref());
    if !claims.is_empty() {
        m.push_str(&format!("The client {claims} (not verified)\n"));
    }
    if let Some(r) = &ask.reason {
        m.push_str(&format!("Reason: {r}\n"));
    }
    let args = serde_json::to_string_pretty(&ask.arguments).unwrap_or_else(|_| "{}".into());
    m.push_str(&format!("Arguments:\n{}\n", visible(&args)));
    m.push_str("Approve only if you, a person, have read all of this.");
    m
}

/// `text` with every character a person cannot see or that reorders what they see (controls,
/// zero-width and format characters, bidirectional overrides, line and paragraph separators)
/// written as `<U+XXXX>`: the client shows the arguments as they are, not as they look.
pub fn visible(text: &str) -> String {
    let hidden = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(
                c as u32,
                0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
                    | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0x3164
                    | 0xFE00..=0xFE0F | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB
                    | 0x1D173..=0x1D17A | 0xE0000..=0xE0FFF
            )
    };
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if hidden(c) {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether an answer approves: accepted, with `approve` exactly `true`.
pub fn approves(action: &ElicitationAction, content: Option<&Value>) -> bool {
    matches!(action, ElicitationAction::Accept)
        && content.and_then(|c| c.get("approve")) == Some(&Value::Bool(true))
}

/// [`approves`] for an answer as JSON (a 2026 retry's `inputResponses` entry): anything that
/// is not an `ElicitResult` accepting with `approve: true` denies.
pub fn approves_value(v: &Value) -> bool {
    v.get("action")
        .cloned()
        .and_then(|a| serde_json::from_value::<ElicitationAction>(a).ok())
        .is_some_and(|a| approves(&a, v.get("content")))
}

async fn elicit(
    peer: Peer<RoleServer>,
    label: &str,
    ask: &Ask,
    timeout: std::time::Duration,
) -> Answered {
    let decider = Some(decider(label, "asked in its session"));
    let mut opts = PeerRequestOptions::no_options();
    opts.timeout = Some(timeout);
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(form(ask)));
    let answer = match peer.send_request_with_option(request, opts).await {
        Ok(handle) => match handle.await_response().await {
            Ok(ClientResult::ElicitResult(r)) => Ok(r),
            Ok(_) => Err(ServiceError::UnexpectedResponse),
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    let by = |approved, by| Answered {
        decision: Decision { approved, by },
        decider: decider.clone(),
    };
    match answer {
        Ok(r) => by(approves(&r.action, r.content.as_ref()), DecidedBy::Client),
        Err(ServiceError::Timeout { .. }) => Answered {
            decision: Decision::deny(DecidedBy::Timeout),
            decider: None,
        },
        Err(e) => {
            tracing::warn!(error = %e, "the client's elicitation failed; the call is denied");
            Answered {
                decision: Decision::deny(DecidedBy::Dropped),
                decider: None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What a person cannot see, or what reorders what they see, is written out in the
    /// message (finding 8 of docs/reviews/issue-39: a right-to-left override made the shown
    /// command read differently from what runs).
    #[test]
    fn the_message_writes_out_invisible_and_reordering_characters() {
        let shown = visible("pm trim-caches 64G\u{202E}G46\u{200B}\u{2028}x\ny");
        assert_eq!(shown, "pm trim-caches 64G<U+202E>G46<U+200B><U+2028>x\ny");
        assert_eq!(visible("café 東京"), "café 東京");
    }

    #[test]
    fn only_an_explicit_accept_with_approve_true_approves() {
        let yes = json!({"approve": true});
        assert!(approves(&ElicitationAction::Accept, Some(&yes)));
        assert!(!approves(
            &ElicitationAction::Accept,
            Some(&json!({"approve": false}))
        ));
        assert!(!approves(
            &ElicitationAction::Accept,
            Some(&json!({"approve": "true"}))
        ));
        assert!(!approves(&ElicitationAction::Accept, None));
        assert!(!approves(&ElicitationAction::Decline, Some(&yes)));
        assert!(!approves(&ElicitationAction::Cancel, Some(&yes)));
        assert!(approves_value(
            &json!({"action": "accept", "content": {"approve": true}})
        ));
        for no in [
            json!({"action": "accept", "content": {"approve": false}}),
            json!({"action": "accept", "content": {"approve": "true"}}),
            json!({"action": "accept"}),
            json!({"action": "decline", "content": {"approve": true}}),
            json!({"action": "ACCEPT", "content": {"approve": true}}),
            json!({"content": {"approve": true}}),
            json!("accept"),
        ] {
            assert!(!approves_value(&no), "{no}");
        }
    }

    #[test]
    fn the_message_shows_what_the_modal_shows() {
        let ask = Ask {
            call_id: 42,
            tool: "android_uninstall_app",
            title: "Uninstall app",
            level: crate::mcp::registry::Level::Destructive,
            client: None,
            transport: Transport::Http,
            via: Some("ssh from 10.9.8.7:22".into()),
            verified: crate::model::Verified::client(
                Transport::Http,
                Some("http session 1a2b3c4d".into()),
                crate::model::Peer {
                    addr: Some("127.0.0.1:5555".into()),
                    ..Default::default()
                },
            ),
            device: Some("emulator-5554".into()),
            device_model: Some("Pixel 8".into()),
            arguments: json!({"packageName": "com.example.shop", "keepData": false}),
            reason: Some("clean install".into()),
        };
        let m = message(&ask);
        for part in [
            "#42",
            "android_uninstall_app",
            "emulator-5554",
            "Pixel 8",
            "com.example.shop",
            "keepData",
            "clean install",
            "default is no",
            "Asked by (verified): an MCP client over http (http session 1a2b3c4d): from 127.0.0.1:5555",
            "claims ssh from 10.9.8.7:22 (not verified)",
        ] {
            assert!(m.contains(part), "{part} missing from {m}");
        }
    }
}
