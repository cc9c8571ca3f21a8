//! `McpServer`: the rmcp `ServerHandler` every transport serves, one value per connection
//! (stdio, legacy SSE) or request (streamable HTTP). It answers the protocol's requests (tools,
//! resources, prompts, completion, logging, subscriptions) and hands each `tools/call` to the
//! one pipeline in [`super`]; no tool logic of its own.
use crate::mcp::core::Core;
use crate::mcp::events::{ClientId, Transport};
use crate::mcp::lease::{Connection, Session};
use crate::mcp::registry::ToolDef;
use crate::mcp::toolsets::Selection;
use crate::redact::{Audience, redact_password_nodes};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResponse, Implementation, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

use super::{CallOutcome, CallRequest, Origin};

/// One MCP session's handler. Cheap to clone; all state lives in [`Core`].
#[derive(Clone)]
pub struct McpServer {
    core: Arc<Core>,
    transport: Transport,
    /// Dropped with the last clone, when the stdio or SSE connection closes: its leases end.
    conn: Arc<Connection>,
    /// Cancelled by the transport when the client is gone (its stdio connection reached EOF):
    /// every call of the connection still waiting (for a person, or running) is cancelled, so
    /// a modal for nobody closes at once and a late yes runs nothing.
    gone: CancellationToken,
    /// This session's `logging/setLevel` (2025 era).
    log: Arc<crate::mcp::logging::SessionLog>,
    /// This session's `resources/subscribe`s (2025 era).
    subs: Arc<crate::mcp::subscribe::SessionSubs>,
    /// This session's `tools/list_changed` when the person changes access (2025 era).
    tools_watch: Arc<crate::mcp::subscribe::ToolListWatch>,
}

impl McpServer {
    pub fn new(core: Arc<Core>, transport: Transport) -> Self {
        let conn = Arc::new(Connection::new(core.clone(), transport));
        McpServer {
            core,
            transport,
            conn,
            gone: CancellationToken::new(),
            log: Arc::default(),
            subs: Arc::default(),
            tools_watch: Arc::default(),
        }
    }

    /// Who is calling, for reads and completions made outside `tools/call`.
    fn origin_of(&self, ctx: &RequestContext<RoleServer>) -> Result<Origin, McpError> {
        let client = self.client_of(ctx);
        let session = Some(self.session_of(&client, ctx)?);
        Ok(Origin {
            transport: self.transport,
            client,
            session,
        })
    }

    /// Runs a client's call with what its request asked for besides the answer: progress
    /// (`progressToken`), log records (2026-07-28 `logLevel`), approval through the client
    /// (elicitation).
    async fn with_extras<F: std::future::Future>(
        &self,
        ctx: &RequestContext<RoleServer>,
        client: Option<crate::mcp::elicit::Client>,
        f: F,
    ) -> F::Output {
        let progress = ctx
            .meta
            .get_progress_token()
            .map(|t| crate::mcp::progress::Reporter::sink(ctx.peer.clone(), t));
        // Boxed: the call pipeline's future is large, and each scope would copy it again
        // on a worker thread's stack.
        let f = Box::pin(crate::progress::scope(progress, Box::pin(f)));
        let f = Box::pin(crate::mcp::elicit::scope(client, f));
        Box::pin(crate::mcp::logging::during(
            &self.core,
            &ctx.peer,
            ctx.meta.log_level(),
            f,
        ))
        .await
    }

    /// Where this connection's client came from, as its relay reported it (`ssh from …`).
    pub fn via(mut self, via: Option<String>) -> Self {
        if let Some(conn) = Arc::get_mut(&mut self.conn) {
            conn.set_via(via);
        }
        self
    }

    /// What the transport verified about this connection's other end (the relay's peer
    /// credentials and parent process; a TCP peer's address).
    pub fn peer(mut self, peer: Option<crate::model::Peer>) -> Self {
        if let Some(conn) = Arc::get_mut(&mut self.conn) {
            conn.set_peer(peer);
        }
        self
    }

    /// The toolsets this connection's client asked for (`spock-tui relay --toolsets …`).
    pub fn toolsets(mut self, sel: Selection) -> Self {
        if let Some(conn) = Arc::get_mut(&mut self.conn) {
            conn.set_toolsets(sel);
        }
        self
    }

    /// The token the transport cancels when this connection's client is gone.
    pub fn client_gone(mut self, gone: CancellationToken) -> Self {
        self.gone = gone;
        self
    }

    /// The connection a call came through: this service's for stdio and SSE; for HTTP the
    /// session named by `Mcp-Session-Id`, or (stateless 2026-07-28) only the client's name. It
    /// carries the toolsets the endpoint asked for (`/mcp?toolsets=…`); a name that is no
    /// toolset is the client's error.
    fn session_of(
        &self,
        client: &Option<ClientId>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Session, McpError> {
        if let Some(s) = self.conn.session() {
            return Ok(s.clone());
        }
        let parts = ctx.extensions.get::<http::request::Parts>();
        let facts = parts
            .and_then(|p| p.extensions.get::<crate::mcp::who::RequestFacts>())
            .cloned()
            .unwrap_or_default();
        let sid = facts.session_id.as_deref();
        let session = match sid {
            Some(sid) => Session::http(sid),
            None => Session::stateless(client),
        };
        // The address the HTTP server accepted this request's connection from.
        let addr = parts
            .and_then(|p| p.extensions.get::<crate::mcp::who::PeerAddr>())
            .map(|a| crate::model::Peer {
                addr: Some(a.0.to_string()),
                ..Default::default()
            });
        let session = session.with_peer(addr);
        let asked = facts
            .toolsets
            .as_deref()
            .map(Selection::parse)
            .transpose()
            .map_err(|e| {
                McpError::invalid_params(format!("?toolsets= on the endpoint: {e}"), None)
            })?;
        Ok(match asked {
            Some(sel) => session.with_toolsets(sel),
            None => session,
        })
    }

    /// What this request's client is listed, noted for the control centre.
    fn advertised(&self, client: &Option<ClientId>, session: &Session) -> Selection {
        let sel = self.core.toolsets.for_session(Some(session));
        if let Some(c) = client {
            self.core.client_toolsets(self.transport, c, sel.label());
        }
        sel
    }

    fn client_of(&self, ctx: &RequestContext<RoleServer>) -> Option<ClientId> {
        ctx.client_info().and_then(named)
    }
}

/// The client's own name, or `None` when it never gave one: rmcp stands in its own build
/// identity (`rmcp` and its version, `Implementation::default()`) for a stateless 2026-07-28
/// request without `clientInfo`, which must read "unknown", not as the server's library.
fn named(i: rmcp::model::Implementation) -> Option<ClientId> {
    let stand_in = rmcp::model::Implementation::default();
    let unnamed =
        i.name.trim().is_empty() || (i.name == stand_in.name && i.version == stand_in.version);
    (!unnamed).then_some(ClientId {
        name: i.name,
        version: i.version,
    })
}

/// `message` with a note for each tool it names that this client is not listed: the set that
/// holds it and how to get the set listed (an agent on `core` alone is never pointed at a tool
/// it cannot call without being told how).
fn unlisted_hints(
    core: &crate::mcp::Core,
    message: &str,
    listed: &crate::model::toolset::Selection,
    stateless: bool,
) -> String {
    let mut notes: Vec<String> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let words = message.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    for w in words.filter(|w| w.starts_with("android_") || w.starts_with("spock_")) {
        if seen.contains(&w) {
            continue;
        }
        seen.push(w);
        let Some(tool) = core.tool(w) else { continue };
        if listed.contains(tool.toolset) {
            continue;
        }
        let set = tool.toolset.key();
        notes.push(if stateless {
            format!("{w} is in the `{set}` toolset: connect with /mcp?toolsets={set}")
        } else {
            format!(
                "{w} is in the `{set}` toolset: spock_enable_toolset {{\"toolset\":\"{set}\"}} \
                 lists it"
            )
        });
    }
    if notes.is_empty() {
        message.to_string()
    } else {
        format!("{message} ({})", notes.join("; "))
    }
}

/// Why a client may not call a tool it is not listed, and how it gets it listed.
fn not_listed(tool: &ToolDef, stateless: bool) -> String {
    let set = tool.toolset.key();
    if stateless {
        format!(
            "{} is in the toolset `{set}`, which this endpoint does not list: connect with \
             /mcp?toolsets={set} (or all), or ask the person to add it (`--toolsets {set}`)",
            tool.name
        )
    } else {
        format!(
            "{} is in the toolset `{set}`, which is not listed to this client: call \
             spock_enable_toolset {{\"toolset\":\"{set}\"}} first",
            tool.name
        )
    }
}

pub const INSTRUCTIONS: &str = "spock-tui gives safe, audited access to Android devices. Device tools \
take an optional `serial`: without it they use the selected device (android_select_device) or \
the only one attached. Prefer element tools (android_tap_element, \
android_input_text_into_element) over coordinates. Only the core toolset is listed at first: \
spock_list_toolsets shows the others (ui, gestures, apps, debug, files, shell, batch, appfunctions, \
host) and spock_enable_toolset lists one (debug has android_get_debug_context for triage). \
Element tools take `element` (a testTag, content description or text, tried in that order: exact, \
then case-insensitive, then substring) or `selector` (any of nodeId+revision, testTag, text, \
textContains, contentDescription, viewId, className, role, packageName, index, state, ancestor, \
descendant). returnScreen sends the settled screen as lines (id role 'label' #tag flags), later ones \
as the changes since the last sent. Destructive tools wait for a person to approve each call.";

impl ServerHandler for McpServer {
    #[allow(deprecated)] // logging: deprecated by 2026-07-28, still in it
    fn get_info(&self) -> InitializeResult {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_logging()
            .enable_completions()
            .build();
        let mut server = Implementation::new("spock-tui", env!("CARGO_PKG_VERSION"));
        server.title = Some("spock-tui".into());
        InitializeResult::new(caps)
            .with_server_info(server)
            .with_instructions(INSTRUCTIONS)
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        let result = self.negotiate_initialize(&request)?;
        self.tools_watch
            .start(&self.core, context.peer.clone(), self.gone.clone());
        if let Some(client) = named(request.client_info.clone()) {
            self.core.client_seen(
                self.transport,
                &client,
                &result.protocol_version.to_string(),
            );
            // What this client enabled before a restart, listed again for its new session
            // (its relay reconnects and replays this initialize; the client lists nothing anew).
            if let Ok(session) = self.session_of(&Some(client.clone()), &context)
                && let Some(who) = crate::mcp::toolsets::Toolsets::identity(&session, Some(&client))
            {
                let back = self.core.toolsets.restore(session.key(), &who);
                if !back.is_empty() {
                    tracing::info!(client = %who, sets = ?back.iter().map(|t| t.key()).collect::<Vec<_>>(), "toolsets enabled before the restart listed again");
                }
            }
        }
        Ok(result)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let client = self.client_of(&context);
        let session = self.session_of(&client, &context)?;
        let sel = self.advertised(&client, &session);
        Ok(ListToolsResult::with_all_items(
            self.core
                .all_tools()
                .iter()
                .filter(|t| sel.contains(t.toolset))
                .filter(|t| !self.core.access.denied_on_every_device(t))
                .map(ToolDef::to_mcp)
                .collect(),
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(
            crate::mcp::resources::list(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let origin = self.origin_of(&context)?;
        if let Ok(r) = crate::mcp::resources::read(&self.core, &origin, &request.uri).await {
            return Ok(r.into());
        }
        let cancel = context.ct.child_token();
        let read = crate::mcp::templates::read(&self.core, origin, &request.uri, cancel);
        let client = crate::mcp::elicit::of_request(&context, None);
        crate::mcp::templates::answer(&request.uri, self.with_extras(&context, client, read).await)
            .map(Into::into)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            crate::mcp::templates::list(),
        ))
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subs
            .subscribe(&self.core, context.peer, &request.uri)
            .map_err(|e| McpError::invalid_params(e, None))
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.subs.unsubscribe(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(crate::mcp::subscribe::accepted(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        crate::mcp::subscribe::listen(&self.core, context).await;
        Ok(())
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log.set(&self.core, context.peer, request.level);
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let origin = self.origin_of(&context)?;
        Ok(crate::mcp::completion::complete(&self.core, origin, &request).await)
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(
            crate::mcp::resources::prompts(),
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        crate::mcp::resources::prompt(&request.name, &args)
            .map(Into::into)
            .map_err(|e| McpError::invalid_params(e, None))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.core.tool(name).as_ref().map(ToolDef::to_mcp)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let client = self.client_of(&context);
        if let (Some(c), Some(v)) = (&client, context.protocol_version()) {
            // 2026-07-28 has no initialize: the client names itself on each request.
            self.core.client_seen(self.transport, c, &v.to_string());
        }
        let session = self.session_of(&client, &context)?;
        // A tool this client is not listed cannot be called by it: the error names its set.
        if let Some(tool) = self.core.tool(&request.name) {
            let sel = self.advertised(&client, &session);
            if !sel.contains(tool.toolset) {
                return Err(McpError::invalid_params(
                    not_listed(&tool, session.is_stateless()),
                    Some(serde_json::json!({ "toolset": tool.toolset.key() })),
                ));
            }
        }
        let session = Some(session);
        let origin = Origin {
            transport: self.transport,
            client,
            session,
        };
        let _answering = self.core.sessions.answering();
        let args = request.arguments.map(Value::Object).unwrap_or(Value::Null);
        let name = request.name.to_string();
        // A retry of a call that waits for its client's approval (2026-07-28 input_required):
        // the call it names answers it, or the retry is refused as a call of its own.
        let mut refusal = None;
        if let Some(state) = request.request_state.as_deref() {
            let normal = match &args {
                Value::Null => Value::Object(Map::new()),
                a => a.clone(),
            };
            let asked = crate::mcp::elicit::Asked::of(
                &name,
                &normal,
                origin.client.as_ref(),
                self.transport,
            );
            let response = request
                .input_responses
                .as_ref()
                .and_then(|r| r.get(crate::mcp::elicit::KEY))
                .cloned();
            match self
                .core
                .kept::<crate::mcp::elicit::Rounds>()
                .take(state, &asked, response)
            {
                crate::mcp::elicit::Taken::Matched(retry) => {
                    let done = self.retried(retry, &context).await?;
                    return self.answer(done, &name, &context).await;
                }
                other => {
                    tracing::warn!(tool = %name, "a retry's requestState was refused");
                    refusal = crate::mcp::elicit::Refusal::of(&other);
                }
            }
        }
        // A 2026-07-28 call whose approval may be asked through its client outlives this
        // request: it runs in its own task and waits for the retry (mcp::elicit::rounds).
        let modern = context
            .protocol_version()
            .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28);
        let rounds = modern && refusal.is_none() && self.core.config().confirm.via_client;
        // Cancelled by the client (notifications/cancelled, an HTTP request dropped) or by its
        // connection going away; a call waiting for its retry is no longer this request's.
        let cancel = if rounds {
            CancellationToken::new()
        } else {
            context.ct.child_token()
        };
        // Ended with its session (an HTTP DELETE) as with its connection.
        let _in_flight = origin
            .session
            .as_ref()
            .map(|s| self.core.sessions.in_flight(s.key(), cancel.clone()));
        let watch = {
            let (gone, cancel) = (self.gone.clone(), cancel.clone());
            tokio::spawn(async move {
                gone.cancelled().await;
                cancel.cancel();
            })
        };
        let done = if rounds {
            match self
                .run_in_rounds(origin, &name, args, &cancel, &context, &watch)
                .await?
            {
                Ok(done) => done,
                Err(waits) => return Ok(waits),
            }
        } else {
            match self
                .run_here(origin, &name, args, cancel, refusal, &context)
                .await
            {
                Some(done) => done,
                None => {
                    watch.abort();
                    tracing::error!(tool = %name, "a call panicked inside the server");
                    return Err(McpError::internal_error(
                        "the call failed inside the server",
                        None,
                    ));
                }
            }
        };
        watch.abort();
        self.answer(done, &name, &context).await
    }
}

impl McpServer {
    /// A 2026-07-28 call whose approval may be asked through its client: run in its own task,
    /// which outlives this request when the call waits for its client's answer (then the
    /// answer is `input_required`, `Err` here, and the retry finds the call in
    /// `Core::rounds`); otherwise its outcome.
    async fn run_in_rounds(
        &self,
        origin: Origin,
        name: &str,
        args: Value,
        cancel: &CancellationToken,
        context: &RequestContext<RoleServer>,
        watch: &tokio::task::JoinHandle<()>,
    ) -> Result<Result<Option<CallOutcome>, CallToolResponse>, McpError> {
        let (asker, suspended) = crate::mcp::elicit::Asker::new(cancel.clone());
        let client = crate::mcp::elicit::of_request(context, Some(asker));
        let (me, ctx, core) = (self.clone(), context.clone(), self.core.clone());
        let (n, c) = (name.to_string(), cancel.clone());
        let mut join = tokio::spawn(async move {
            // Counted until it ends: a shutdown denies a waiting call and lets it record so.
            let _answering = core.sessions.answering();
            me.with_extras(
                &ctx,
                client,
                CallRequest::new(origin, &n, args).cancel(c).run(&core),
            )
            .await
        });
        // This request dropped before the call waits: the call is cancelled.
        let guard = cancel.clone().drop_guard();
        let done = tokio::select! {
            r = &mut join => r,
            s = suspended => match s {
                Ok(s) => {
                    guard.disarm();
                    watch.abort();
                    self.core.kept::<crate::mcp::elicit::Rounds>().attach(&s.handle, join);
                    return Ok(Err(CallToolResponse::InputRequired(s.result)));
                }
                // It finished without asking.
                Err(_) => join.await,
            },
            _ = context.ct.cancelled() => {
                cancel.cancel();
                join.await
            }
        };
        drop(guard);
        done.map(Ok).map_err(|e| {
            tracing::error!(error = %e, "a call's task failed");
            McpError::internal_error("the call failed inside the server", None)
        })
    }

    /// Any other call, run within this request; `None` when it panicked: a panic inside a
    /// tool answers the client with an error instead of leaving its request unanswered
    /// (rmcp's task would end without a reply).
    async fn run_here(
        &self,
        origin: Origin,
        name: &str,
        args: Value,
        cancel: CancellationToken,
        refusal: Option<crate::mcp::elicit::Refusal>,
        context: &RequestContext<RoleServer>,
    ) -> Option<Option<CallOutcome>> {
        use futures::FutureExt as _;
        let run = self.with_extras(
            context,
            crate::mcp::elicit::of_request(context, None),
            crate::mcp::elicit::refusing(
                refusal,
                CallRequest::new(origin, name, args)
                    .cancel(cancel)
                    .run(&self.core),
            ),
        );
        std::panic::AssertUnwindSafe(run).catch_unwind().await.ok()
    }

    /// Waits for the call a matching retry answered; the retry's cancellation is the call's now.
    async fn retried(
        &self,
        retry: crate::mcp::elicit::rounds::Retry,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<CallOutcome>, McpError> {
        let Some(mut join) = retry.join else {
            return Err(McpError::internal_error(
                "the approved call is not reachable",
                None,
            ));
        };
        let guard = retry.cancel.clone().drop_guard();
        let done = tokio::select! {
            r = &mut join => r,
            _ = context.ct.cancelled() => {
                retry.cancel.cancel();
                join.await
            }
        };
        guard.disarm();
        done.map_err(|e| {
            tracing::error!(error = %e, "a call's task failed");
            McpError::internal_error("the call failed inside the server", None)
        })
    }

    /// A finished call as its client gets it.
    async fn answer(
        &self,
        done: Option<CallOutcome>,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(done) = done else {
            return Err(McpError::invalid_params(
                format!("unknown tool `{name}`: call tools/list for the catalogue"),
                None,
            ));
        };
        // A set enabled for this session: the client re-reads its list.
        if name == "spock_enable_toolset"
            && let Ok(out) = &done.result
            && out.json.get("listChanged") == Some(&Value::Bool(true))
        {
            let _ = context.peer.notify_tool_list_changed().await;
        }
        // The agent's view: every rule applies, and password fields are hidden.
        let result = match done.result {
            Ok(mut out) => {
                done.for_agent.json(&mut out.json);
                self.core
                    .redactor
                    .redact_json(&mut out.json, Audience::Agent);
                redact_password_nodes(&mut out.json, Audience::Agent);
                out.into_call_result()
            }
            Err(mut e) => {
                done.for_agent.error(&mut e);
                // A tool the message points at that this client is not listed: say how to get it.
                let client = self.client_of(context);
                if let Ok(session) = self.session_of(&client, context) {
                    let listed = self.core.toolsets.for_session(Some(&session));
                    e.message =
                        unlisted_hints(&self.core, &e.message, &listed, session.is_stateless());
                }
                e.message = self
                    .core
                    .redactor
                    .redact_str(&e.message, Audience::Agent)
                    .into_owned();
                if let Some(d) = &mut e.details {
                    self.core.redactor.redact_json(d, Audience::Agent);
                    redact_password_nodes(d, Audience::Agent);
                }
                e.into_call_result()
            }
        };
        Ok(result.into())
    }
}
