//! spock-core: the MCP core of spock-tui, with no terminal and no HTTP server in it.
//!
//! Every tool call goes through one pipeline here (the module map below); the `spock-tui`
//! package around it adds the transports that bring bytes in (`transport`), the control
//! centre that answers confirmations (`tui`) and the CLI that wires them. This crate's manifest
//! has neither ratatui, crossterm, axum, hyper nor tower, so the compiler keeps it that way.
//! See `ARCHITECTURE.md` at the repository root.
//!
//! # Where a `tools/call` goes, in order
//!
//! 1. **Bytes in** (in the `spock-tui` package). `transport::http` (`/mcp`, legacy `/sse` +
//!    `/message`: Host, Origin and bearer token checked in `transport::auth`, every write
//!    bounded by `transport::write_timeout`) or `transport::socket` (the Unix socket
//!    `spock-tui relay` reaches; token line, pool slot).
//! 2. **One handler.** `mcp::server::McpServer` (rmcp's `ServerHandler`, one value per
//!    connection whatever the transport) makes a `mcp::server::CallRequest` of the call and
//!    runs it. The control centre's own actions (`CallRequest::person`) and batch steps
//!    (`in_run`) are requests of the same kind: there is no side door. The pipeline's stages
//!    (`mcp::server`'s `Call`: admit, check, consent, record started, execute, finish) are
//!    the steps below.
//! 3. **Declaration.** `Core::tool` finds the tool's one declaration: a built-in's in
//!    `mcp::registry` (`mcp::tools::*`: name, level, schema, handler), else an own tool loaded
//!    from TOML (`own`, `mcp::own`); the call keeps that declaration to its end.
//! 4. **Started.** `ServerEvent::CallStarted` at once, with arguments redacted for the person
//!    (`redact`) and typed passwords withheld (`mcp::typed_text`): the control centre lists every
//!    call as it arrives, also one the steps below refuse (its `CallFinished` says why).
//! 5. **Access and arguments.** `mcp::access` (the person's switches), then the arguments are
//!    parsed once into the handler's type and checked by the declaration
//!    (`mcp::registry::Parsed`: the escalation and the handler read that one value), then `mcp::lease` (who holds the device, under every
//!    name that reaches it: `device::identity`). A call naming no device uses its own
//!    session's selection (`mcp::selection`).
//! 6. **Device and consent.** The device is resolved and pinned (`device::Devices`); a
//!    destructive call (or a safe one escalated by what it would destroy) is refused if the
//!    person could not see it whole, then asks `mcp::confirm::Confirmer`, which every control
//!    centre answers (in the `spock-tui` package): the in-process one (`tui`) and those
//!    attached over `transport::control` (`spock-tui attach`, consent rules checked there);
//!    the first answer wins. What is approved is what runs: a local file the call sends is
//!    read once, before asking (`mcp::staged`); the lease is watched while the call waits and
//!    checked after the yes, and the pinned phone is asked who it is before and after
//!    (`mcp::server::device_checks`); a new file or package is created one call at a time
//!    (`mcp::claims`). With nobody attached it is denied (or waits:
//!    `safety.wait_for_attach`).
//! 7. **The tool.** A destructive call about to run first gets its `started` audit record
//!    (`Outcome::Started`), synced and anchored before the tool does anything, so a crash
//!    mid-call leaves it on record; its ending (step 8) names it (`AuditRecord::started`) and
//!    History reads the pair as one call. Its handler: `guard` checks every string that reaches a device shell or a
//!    local file; `device` speaks adb (every call with a timeout); `uitree` parses dumps.
//! 8. **Answered and recorded.** The result is redacted for the agent, the record goes to
//!    `audit` (hash-chained; on disk before the answer for destructive, denied and refused
//!    calls), `ServerEvent::CallFinished` goes to the control centre (the result redacted for
//!    the person, its images as a typed field), and every
//!    `mcp::observe::CallObserver` is told (the batch recorder keeps the step: the pipeline
//!    never names `batch`).
//!
//! The plain types all of these share (`Transport`, `Outcome`, `Decision`, `Level`,
//! `AccessSettings`, `ClientId`) live in `model`, below the rest: `audit` and `config` import
//! nothing from `mcp`.
pub mod audit;
pub mod batch;
pub mod config;
pub mod device;
pub mod guard;
pub mod mcp;
pub mod model;
pub mod own;
pub mod progress;
pub mod project;
#[cfg(test)]
mod public_captures;
pub mod redact;
#[doc(hidden)]
pub mod testdata;
pub mod uitree;
