//! Approval through the MCP client, opt-in (`[confirm] via_client = true`): with no control
//! centre attached, a destructive call's confirmation is sent to the calling client as an
//! elicitation (`elicitation/create`, form mode, the 2025-06-18 / 2025-11-25 single round
//! trip) when that client declared elicitation support. It carries what the modal shows (tool,
//! device, client, every argument, reason), defaults to no, and waits the same timeout; the
//! answer and who gave it are audited (`decidedBy: client`, the client's name as decider).
//! Clients without elicitation keep today's denial. 2026-07-28 forbids server-to-client
//! requests (its multi-round-trip `input_required` results are not implemented here), so calls
//! of that era are never asked this way.
//!
//! This trusts the client to show the request to a person: nothing stops an agent's own
//! client from answering its own question. That is why it is off by default. An answer can
//! only approve the call it was asked for: each elicitation is its own JSON-RPC request,
//! answered by id, and one that comes after the timeout answers nothing (the call was denied).
use std::future::Future;

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

/// The calling client, when it can be asked.
#[derive(Clone)]
pub struct Client {
    peer: Peer<RoleServer>,
    label: String,
}

tokio::task_local! {
    static CLIENT: Client;
}

/// The client of a request, if it declared form elicitation on a 2025-era session.
pub fn of_request(ctx: &RequestContext<RoleServer>) -> Option<Client> {
    if ctx
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
    {
        return None;
    }
    let peer = ctx.peer.clone();
    let info = peer.peer_info()?;
    // Form mode: declared, or implied by an elicitation capability that names no mode.
    let e = info.capabilities.elicitation.as_ref()?;
    if e.form.is_none() && e.url.is_some() {
        return None;
    }
    let label = format!("{}/{}", info.client_info.name, info.client_info.version);
    Some(Client { peer, label })
}

/// Runs `f` (one client call) with its client reachable for approval.
pub async fn scope<F: Future>(client: Option<Client>, f: F) -> F::Output {
    match client {
        Some(c) => CLIENT.scope(c, f).await,
        None => f.await,
    }
}

/// Asks for a destructive call's approval: through the calling client when `via_client` is on,
/// nobody is attached and the client can be asked; else as always (a control centre, or no).
pub async fn ask(core: &Core, ask: Ask) -> Result<Answered, TooManyWaiting> {
    let via = ask.transport != Transport::Tui
        && core.config().confirm.via_client
        && !core.confirmer.has_responder();
    let client = via.then(|| CLIENT.try_with(Clone::clone).ok()).flatten();
    match client {
        None => core.confirmer.ask_for_client(ask).await,
        Some(c) => {
            let timeout = core.confirmer.timeout();
            core.confirmer
                .ask_for_client_via(&ask, elicit(c, &ask, timeout))
                .await
        }
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
    let client = ask
        .client
        .as_ref()
        .map(|c| format!("{}/{}", c.name, c.version))
        .unwrap_or_else(|| "unknown".into());
    m.push_str(&format!("Client: {client} over {:?}\n", ask.transport));
    if let Some(r) = &ask.reason {
        m.push_str(&format!("Reason: {r}\n"));
    }
    let args = serde_json::to_string_pretty(&ask.arguments).unwrap_or_else(|_| "{}".into());
    m.push_str(&format!("Arguments:\n{args}\n"));
    m.push_str("Approve only if you, a person, have read all of this.");
    m
}

/// Whether an answer approves: accepted, with `approve` exactly `true`.
pub fn approves(action: &ElicitationAction, content: Option<&Value>) -> bool {
    matches!(action, ElicitationAction::Accept)
        && content.and_then(|c| c.get("approve")) == Some(&Value::Bool(true))
}

async fn elicit(client: Client, ask: &Ask, timeout: std::time::Duration) -> Answered {
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
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(ask),
        requested_schema: schema,
    };
    let decider = Some(format!(
        "MCP client {} (elicitation; trusted to have asked a person)",
        client.label
    ));
    let mut opts = PeerRequestOptions::no_options();
    opts.timeout = Some(timeout);
    let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
    let answer = match client.peer.send_request_with_option(request, opts).await {
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
            via: None,
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
        ] {
            assert!(m.contains(part), "{part} missing from {m}");
        }
    }
}
