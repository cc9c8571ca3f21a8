//! Reading the screen's semantics: the UI tree, finding elements, waiting for them, asserting
//! on them, and the accessibility audit. Elements resolve by testTag → content description →
//! text (a plain `element` string) or by longarm's selector fields (`selector`).
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::device::Device;
use crate::device::parse::wm;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::toolsets::Toolset;
use crate::mcp::typed_text::after_read::AwaitingRead;
use crate::uitree::{self, Candidate, NodeId, SelectError, Selector, TreeOptions, UiTree};

/// Dump and parse the current screen as the caller is shown it: for an agent, every string
/// is redacted first, so a selector (`textContains: "4"`), a find, a wait or an assert
/// matches only what the agent can see and cannot probe hidden text one guess at a time.
/// Node ids, bounds and the revision are those of the raw dump.
pub async fn dump(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    Ok(as_shown(ctx, dump_raw(ctx, dev).await?))
}

/// `tree` as the caller is shown it: redacted for its audience (same node ids as the raw dump).
pub fn as_shown(ctx: &Ctx, mut tree: UiTree) -> UiTree {
    ctx.core.redactor.redact_tree(&mut tree, ctx.audience());
    tree
}

/// The screen as the device reports it, unredacted: for checks that never answer an agent's
/// question about text (verifying typed text by length) and for the person's views. When the
/// last action's settle dump still answers for the screen (nothing sent to the device since,
/// see [`crate::device::screens`]) this read takes it instead of dumping again.
pub async fn dump_raw(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    match dev.take_settled() {
        Some(text) => parse_dump(ctx, dev, &text, dev.screen_generation()).await,
        None => dump_fresh(ctx, dev).await,
    }
}

/// The screen an element action resolves its element on: the kept settle dump, or the dump the
/// agent was just shown by `android_get_ui_tree` (it names the element from that tree), while
/// nothing was sent to the device since; else a dump now. Unredacted, as [`dump_raw`].
pub async fn dump_for_action_raw(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    match dev.take_for_action() {
        Some(text) => parse_dump(ctx, dev, &text, dev.screen_generation()).await,
        None => dump_fresh(ctx, dev).await,
    }
}

/// [`dump_for_action_raw`] as the caller is shown it (redacted, as [`dump`]).
pub async fn dump_for_action(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    Ok(as_shown(ctx, dump_for_action_raw(ctx, dev).await?))
}

/// A read the agent is shown (`android_get_ui_tree`): as [`dump`]. The dump it shows, whether
/// taken now or the kept settle dump it answered from, is then kept for the next element
/// action's resolution only (never for another read).
async fn dump_shown(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    let tree = match dev.take_settled_shown() {
        Some(text) => parse_dump(ctx, dev, &text, dev.screen_generation()).await?,
        None => {
            let generation = dev.screen_generation();
            let text = run_dump(ctx, dev).await?;
            let tree = parse_dump(ctx, dev, &text, generation).await?;
            dev.keep_read(generation, text);
            tree
        }
    };
    Ok(as_shown(ctx, tree))
}

/// A dump taken now, whatever is kept: for polls that wait for the screen to change by itself.
pub async fn dump_fresh(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    let generation = dev.screen_generation();
    parse_dump(ctx, dev, &run_dump(ctx, dev).await?, generation).await
}

/// The screen once an action has settled, kept for the next read. `uiautomator dump` waits
/// for the app to go idle before it walks the tree (AOSP `DumpCommand`: `waitForIdle`), so no
/// fixed sleep comes first. When the same action already took one since its last command (a
/// typed field verified), that one is sent back.
pub async fn dump_settled(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    if let Some(text) = dev.peek_settled() {
        return parse_dump(ctx, dev, &text, dev.screen_generation()).await;
    }
    let generation = dev.screen_generation();
    let text = run_dump(ctx, dev).await?;
    dev.keep_settled(generation, text.clone());
    parse_dump(ctx, dev, &text, generation).await
}

async fn run_dump(ctx: &Ctx, dev: &Device) -> Result<String, ToolError> {
    match dump_once(ctx, dev).await? {
        // No window to read: right after a change of screen this passes (the accessibility
        // bridge had lost the window being replaced). The bridge taken: often the last
        // client still letting go. Either way it is asked once more. (A cancelled call ends
        // here too: the call pipeline drops the tool's future.)
        Err(NoDump::NullRoot | NoDump::Taken) => {
            tokio::time::sleep(ASK_AGAIN_AFTER).await;
            dump_once(ctx, dev).await?.map_err(|e| e.error(dev))
        }
        done => done.map_err(|e| e.error(dev)),
    }
}

/// How long to wait before asking again after "null root node" or "already registered".
const ASK_AGAIN_AFTER: Duration = Duration::from_millis(500);

/// Why `uiautomator dump` printed no hierarchy. AOSP `DumpCommand` reports its two failures on
/// stderr and exits 0, so the text decides, not the exit code.
enum NoDump {
    /// `ERROR: could not get idle state.`: `waitForIdle(1000, 10000)` never saw a second
    /// without a change (a video, a looping animation, a spinner).
    NotIdle,
    /// `ERROR: null root node returned by UiTestAutomationBridge.`: no active window to read
    /// (the screen off or locked, or between two windows).
    NullRoot,
    /// `java.lang.IllegalStateException: UiAutomationService … already registered!`: another
    /// UiAutomation client holds the bridge (Appium's server, an instrumented test, another
    /// tool's dump), or the last one has not let go yet.
    Taken,
    /// Anything else, with its first line and the exit code.
    Other(String, i32),
}

/// `details.reason` of the error a screen that never went idle gives ([`NoDump::NotIdle`]).
const NOT_IDLE: &str = "not_idle";

/// Whether `e` says the screen never stayed still long enough to be read.
fn never_idle(e: &ToolError) -> bool {
    e.details
        .as_ref()
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str)
        == Some(NOT_IDLE)
}

impl NoDump {
    fn error(self, dev: &Device) -> ToolError {
        let serial = dev.serial();
        let reason = match &self {
            NoDump::NotIdle => NOT_IDLE,
            NoDump::NullRoot => "no_window",
            NoDump::Taken => "automation_busy",
            NoDump::Other(..) => "failed",
        };
        let e = ToolError::device(match self {
            NoDump::NotIdle => format!(
                "uiautomator could not read the screen on {serial}: it never stayed still for a \
                 second within 10 s (a video, an animation or a progress indicator keeps changing \
                 it). Read it again once that stops (pause the video), or look with \
                 android_take_screenshot (which needs this tree too while redaction rules hide \
                 anything from agents)"
            ),
            NoDump::NullRoot => format!(
                "uiautomator found no window to read on {serial} (asked twice): the screen is \
                 off or locked, or was changing. Wake it (android_press_key WAKEUP), unlock it, \
                 or read it again"
            ),
            NoDump::Taken => format!(
                "uiautomator could not connect on {serial} (asked twice): another UI automation \
                 holds the device's accessibility bridge (Appium's UiAutomator2 server, an \
                 instrumented test, another tool's dump), and Android lets one at a time. Stop \
                 it, or read again once it is done"
            ),
            NoDump::Other(line, code) => {
                format!("uiautomator dump failed on {serial} (exit {code}): {line}")
            }
        });
        e.with_details(serde_json::json!({ "reason": reason }))
    }
}

/// One `uiautomator dump` (in this device's turn): the XML, or why there is none. Waiting for
/// the turn counts against the command's timeout, so calls queued behind a hung dump end
/// when it does instead of one timeout after another.
async fn dump_once(ctx: &Ctx, dev: &Device) -> Result<Result<String, NoDump>, ToolError> {
    let timeout = ctx.timeout();
    let deadline = tokio::time::Instant::now() + timeout;
    let dumping = async {
        let _turn = tokio::time::timeout_at(deadline, dev.ui_dump_turn())
            .await
            .map_err(|_| {
                ToolError::new(
                    ErrorKind::Timeout,
                    format!(
                        "the UI dump on {} waited {} ms for another UI dump of that device to \
                         end (Android lets one run at a time), and timed out",
                        dev.serial(),
                        timeout.as_millis()
                    ),
                )
            })?;
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        ctx.sh_timeout(
            dev,
            "uiautomator dump /dev/tty",
            left.max(Duration::from_millis(1)),
        )
        .await
    };
    let out = crate::progress::ticking("UI dump", Duration::from_secs(1), dumping).await?;
    let text = out.stdout_text();
    if text.contains("<hierarchy") {
        return Ok(Ok(text));
    }
    let err = out.stderr_text();
    let said = format!("{err}\n{text}");
    Ok(Err(if said.contains("could not get idle state") {
        NoDump::NotIdle
    } else if said.contains("null root node") {
        NoDump::NullRoot
    } else if said.contains("already registered") {
        NoDump::Taken
    } else {
        let line = said
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("no output")
            .to_string();
        NoDump::Other(line, out.exit_code)
    }))
}

/// Every tree the server reads passes here, whoever it is for and whatever it is for (a
/// settle dump, a lookup, a wait's poll, the dump before a screenshot): the held-field memory
/// learns from it before anything of it reaches an agent, and is written (off the runtime)
/// when it changed, so a field that held a hidden value stays hidden after a restart.
/// `started`: the device's screen generation when the dump began (a kept dump is kept only
/// while the generation it began at holds, so for one of those it is the generation now).
async fn parse_dump(
    ctx: &Ctx,
    dev: &Device,
    text: &str,
    started: u64,
) -> Result<UiTree, ToolError> {
    let tree = uitree::parse(text)
        .map_err(|e| ToolError::device(format!("the UI dump could not be read: {e}")))?;
    // The apps on it, for the person's device tree (Settings offers them for an apps list).
    ctx.core.devices.saw_apps(
        dev.serial(),
        tree.nodes().iter().map(|n| n.package.as_str()),
    );
    // Text typed into whatever had the focus, decided by what this read shows.
    for (call_id, arguments) in
        ctx.core
            .kept::<AwaitingRead>()
            .read(dev.serial(), started, dev.screen_generation(), &tree)
    {
        ctx.core
            .emit(crate::mcp::ServerEvent::CallArguments { call_id, arguments });
    }
    if ctx.core.redactor.observe(&tree) {
        let core = ctx.core.clone();
        match tokio::task::spawn_blocking(move || core.redactor.save_held()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!("writing the held-field memory: {e}"),
            Err(e) => tracing::warn!("writing the held-field memory: {e}"),
        }
    }
    Ok(tree)
}

/// How a tool names the element it works on: a plain string or a selector.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElementRef {
    /// testTag, content description or text.
    pub element: Option<String>,
    /// Structured selector (fields: see instructions).
    pub selector: Option<Selector>,
}

fn select_error(e: SelectError) -> ToolError {
    let details = match &e {
        SelectError::NotFound { closest } => serde_json::json!({ "closest": closest }),
        SelectError::Ambiguous {
            candidates,
            narrow_by,
            count,
        } => {
            serde_json::json!({ "count": count, "candidates": candidates, "narrowBy": narrow_by })
        }
        _ => Value::Null,
    };
    let kind = if matches!(e, SelectError::NotFound { .. }) {
        ErrorKind::NotFound
    } else {
        ErrorKind::InvalidArguments
    };
    // The candidates go out once, in the details; the message points at them.
    let message = match &e {
        SelectError::NotFound { closest } if closest.is_empty() => {
            "no element matches, and nothing on screen comes close".to_string()
        }
        SelectError::NotFound { closest } => format!(
            "no element matches; the {} closest on screen are in `closest`",
            closest.len()
        ),
        SelectError::Ambiguous {
            count, narrow_by, ..
        } => format!(
            "{count} elements match; narrow it with {} (the matches are in `candidates`)",
            narrow_by.join(", ")
        ),
        other => other.to_string(),
    };
    let err = ToolError::new(kind, message);
    if details.is_null() {
        err
    } else {
        err.with_details(details)
    }
}

impl ElementRef {
    pub fn describe(&self) -> String {
        match (&self.element, &self.selector) {
            (Some(e), _) => format!("{e:?}"),
            (None, Some(s)) => serde_json::to_string(&SelectorShow(s)).unwrap_or_default(),
            _ => "(nothing)".into(),
        }
    }

    /// Every match (for find / wait / asserts).
    pub fn find_all(&self, tree: &UiTree) -> Result<Vec<NodeId>, ToolError> {
        match (&self.element, &self.selector) {
            (Some(q), None) => Ok(tree.resolve_query(q)),
            (None, Some(sel)) => tree.find(sel).map_err(select_error),
            (Some(_), Some(_)) => Err(ToolError::invalid_args(
                "give either element or selector, not both",
            )),
            (None, None) => Err(ToolError::invalid_args(
                "name the element: element (text, description or testTag) or selector",
            )),
        }
    }

    /// Exactly one match, or an error saying what comes closest / how to narrow it.
    pub fn resolve(&self, tree: &UiTree) -> Result<NodeId, ToolError> {
        match (&self.element, &self.selector) {
            (None, Some(sel)) => tree.resolve(sel).map_err(select_error),
            (Some(q), None) => {
                let ids = tree.resolve_query(q);
                match ids.as_slice() {
                    [one] => Ok(*one),
                    [] => Err(select_error(SelectError::NotFound {
                        closest: tree
                            .closest(&Selector::query(q), 5)
                            .into_iter()
                            .map(|id| Candidate::of(tree, id))
                            .collect(),
                    })),
                    many => Err(select_error(SelectError::Ambiguous {
                        count: many.len(),
                        candidates: many
                            .iter()
                            .take(8)
                            .map(|&id| Candidate::of(tree, id))
                            .collect(),
                        narrow_by: vec![
                            "selector.index".into(),
                            "selector.role".into(),
                            "selector.ancestor".into(),
                            "a nodeId from android_find_ui_element".into(),
                        ],
                    })),
                }
            }
            _ => self.find_all(tree).map(|_| NodeId(0)),
        }
    }
}

struct SelectorShow<'a>(&'a Selector);
impl Serialize for SelectorShow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:?}", self.0))
    }
}

/// A node as tools report it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeOut {
    pub node_id: String,
    pub role: String,
    pub class: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub content_description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test_tag: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub resource_id: String,
    /// [left, top, right, bottom] in screen pixels.
    pub bounds: Option<[i32; 4]>,
    pub center: Option<[i32; 2]>,
    pub clickable: bool,
    pub enabled: bool,
    pub focused: bool,
    pub checked: bool,
    pub selected: bool,
    pub scrollable: bool,
    pub editable: bool,
}

pub fn node_out(tree: &UiTree, id: NodeId) -> Option<NodeOut> {
    let n = tree.node(id)?;
    Some(NodeOut {
        node_id: id.to_string(),
        role: n.role().as_str().to_string(),
        class: n.class.clone(),
        text: if n.password {
            "«password»".into()
        } else {
            n.text.clone()
        },
        content_description: n.content_desc.clone(),
        test_tag: n.test_tag().map(str::to_string),
        resource_id: n.resource_id.clone(),
        bounds: n.bounds.map(|b| [b.left, b.top, b.right, b.bottom]),
        center: n.bounds.map(|b| {
            let (x, y) = b.center();
            [x, y]
        }),
        clickable: n.clickable,
        enabled: n.enabled,
        focused: n.focused,
        checked: n.checked,
        selected: n.selected,
        scrollable: n.scrollable,
        editable: n.is_editable(),
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TreeArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub options: TreeOptions,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TreeOut {
    pub serial: String,
    /// Traditional Android Views, Jetpack Compose, or Mixed Views and Jetpack Compose.
    pub framework: String,
    /// Node ids are valid for this revision only.
    pub revision: String,
    pub test_tags_exposed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
    #[schemars(with = "serde_json::Map<String, Value>")]
    pub tree: Value,
}

/// The tree as `android_get_ui_tree` answers it. The compact form's own copies of the
/// revision, framework and advice are dropped: they are said once, beside it.
pub fn tree_out(serial: &str, tree: &UiTree, options: TreeOptions) -> TreeOut {
    let mut shown = tree.to_json(options);
    if options.compact
        && let Some(m) = shown.as_object_mut()
    {
        for k in ["rev", "fw", "tags"] {
            m.remove(k);
        }
    }
    TreeOut {
        serial: serial.to_string(),
        framework: tree.framework().to_string(),
        revision: tree.revision().to_string(),
        test_tags_exposed: tree.test_tags_exposed(),
        advice: tree.test_tag_advice(),
        tree: shown,
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub target: ElementRef,
    /// Most matches returned (default 20).
    pub limit: Option<usize>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    pub count: usize,
    pub revision: String,
    pub matches: Vec<NodeOut>,
    /// When nothing matched: what on screen comes closest.
    pub closest: Vec<Candidate>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Condition {
    #[default]
    Exists,
    Gone,
    Enabled,
    Text,
}

impl Condition {
    /// What was waited for, as a sentence reads it: "{target} did not {…}".
    fn waited_for(self, expected: Option<&str>) -> String {
        match self {
            Condition::Exists => "appear".into(),
            Condition::Gone => "go away".into(),
            Condition::Enabled => "become enabled".into(),
            Condition::Text => match expected {
                Some(t) => format!("show the text {t:?}"),
                None => "show the expected text".into(),
            },
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WaitArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub target: ElementRef,
    /// exists (default), gone, enabled, or text (needs expectedText).
    pub condition: Option<Condition>,
    pub expected_text: Option<String>,
    /// Give up after this long (default 5000, max 60000).
    pub timeout_ms: Option<u64>,
    /// The condition must hold this long without interruption (default 0).
    pub stable_for_ms: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Waited {
    pub met: bool,
    pub condition: String,
    pub elapsed_ms: u64,
    pub polls: u32,
    pub element: Option<NodeOut>,
}

fn holds(
    tree: &UiTree,
    target: &ElementRef,
    cond: Condition,
    expected: Option<&str>,
) -> Result<(bool, Option<NodeOut>), ToolError> {
    let ids = target.find_all(tree)?;
    let first = ids.first().and_then(|&id| node_out(tree, id));
    let ok = match cond {
        Condition::Exists => !ids.is_empty(),
        Condition::Gone => ids.is_empty(),
        Condition::Enabled => first.as_ref().is_some_and(|n| n.enabled),
        Condition::Text => {
            let want = expected.unwrap_or("");
            ids.iter()
                .filter_map(|&id| tree.node(id))
                .any(|n| n.text.trim() == want.trim())
        }
    };
    Ok((ok, first))
}

async fn wait(ctx: Ctx, a: WaitArgs) -> Result<Waited, ToolError> {
    let cond = a.condition.unwrap_or_default();
    if cond == Condition::Text && a.expected_text.is_none() {
        return Err(ToolError::invalid_args("condition text needs expectedText"));
    }
    let timeout = Duration::from_millis(a.timeout_ms.unwrap_or(5000).min(60_000));
    let stable = Duration::from_millis(a.stable_for_ms.unwrap_or(0));
    let dev = ctx.device(a.serial.as_deref()).await?;
    let start = Instant::now();
    let mut since: Option<Instant> = None;
    let mut polls = 0;
    let mut unread = 0;
    loop {
        // Every poll asks the device: the point is to see the screen change by itself. A
        // screen still moving (a spinner: often what the wait is for) cannot be read, which
        // is a poll where the condition does not hold yet.
        let (ok, element) = match dump_fresh(&ctx, &dev).await {
            Ok(tree) => holds(
                &as_shown(&ctx, tree),
                &a.target,
                cond,
                a.expected_text.as_deref(),
            )?,
            Err(e) if never_idle(&e) => {
                unread += 1;
                (false, None)
            }
            Err(e) => return Err(e),
        };
        polls += 1;
        let now = Instant::now();
        crate::progress::report(polls as f64, None, || {
            format!(
                "poll {polls}: {} {} {:?} after {:.1} s (timeout {} ms)",
                a.target.describe(),
                if ok { "is" } else { "is not yet" },
                cond,
                now.duration_since(start).as_secs_f64(),
                timeout.as_millis()
            )
        });
        if ok {
            let t0 = *since.get_or_insert(now);
            if now.duration_since(t0) >= stable {
                return Ok(Waited {
                    met: true,
                    condition: format!("{cond:?}").to_lowercase(),
                    elapsed_ms: start.elapsed().as_millis() as u64,
                    polls,
                    element,
                });
            }
        } else {
            since = None;
        }
        if now.duration_since(start) >= timeout {
            return Err(ToolError::new(
                ErrorKind::Timeout,
                format!(
                    "{} did not {} within {} ms ({polls} polls{})",
                    a.target.describe(),
                    cond.waited_for(a.expected_text.as_deref()),
                    timeout.as_millis(),
                    if unread > 0 {
                        format!(
                            "; on {unread} of them the screen never stayed still long enough \
                             for uiautomator to read it"
                        )
                    } else {
                        String::new()
                    }
                ),
            )
            .with_details(serde_json::json!({
                "met": false, "polls": polls, "unread": unread, "element": element
            })));
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            _ = ctx.cancel.cancelled() => return Err(ToolError::new(ErrorKind::Cancelled, "cancelled by the client")),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AssertArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub target: ElementRef,
    /// For android_assert_text: the text expected (exact, after trimming).
    pub expected_text: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssertOut {
    pub passed: bool,
    pub assertion: String,
    /// What was found instead when it failed (or the element when it passed).
    pub found: Value,
}

#[derive(Clone, Copy)]
enum AssertKind {
    Visible,
    Enabled,
    Text,
}

async fn assert(ctx: Ctx, a: AssertArgs, kind: AssertKind) -> Result<AssertOut, ToolError> {
    if matches!(kind, AssertKind::Text) && a.expected_text.is_none() {
        return Err(ToolError::invalid_args(
            "android_assert_text needs expectedText",
        ));
    }
    let dev = ctx.device(a.serial.as_deref()).await?;
    let tree = dump(&ctx, &dev).await?;
    let ids = a.target.find_all(&tree)?;
    let nodes: Vec<NodeOut> = ids.iter().filter_map(|&id| node_out(&tree, id)).collect();
    let what = a.target.describe();
    let closest = || {
        let sel = a
            .target
            .selector
            .clone()
            .unwrap_or_else(|| Selector::query(a.target.element.as_deref().unwrap_or("")));
        serde_json::json!({ "closest": tree.closest(&sel, 5).into_iter().map(|id| Candidate::of(&tree, id)).collect::<Vec<_>>() })
    };
    let (passed, assertion, found) = match kind {
        AssertKind::Visible => (
            !nodes.is_empty(),
            format!("{what} is visible"),
            if nodes.is_empty() {
                closest()
            } else {
                serde_json::json!(nodes)
            },
        ),
        AssertKind::Enabled => {
            let ok = nodes.first().is_some_and(|n| n.enabled);
            (
                ok,
                format!("{what} is enabled"),
                if nodes.is_empty() {
                    closest()
                } else {
                    serde_json::json!(nodes)
                },
            )
        }
        AssertKind::Text => {
            let want = a.expected_text.clone().unwrap_or_default();
            let ok = nodes.iter().any(|n| n.text.trim() == want.trim());
            let texts: Vec<&str> = nodes.iter().map(|n| n.text.as_str()).collect();
            (
                ok,
                format!("{what} has text {want:?}"),
                if nodes.is_empty() {
                    closest()
                } else {
                    serde_json::json!({ "texts": texts })
                },
            )
        }
    };
    Ok(AssertOut {
        passed,
        assertion,
        found,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditOut {
    pub serial: String,
    pub framework: String,
    pub density: u32,
    #[schemars(with = "Vec<serde_json::Map<String, Value>>")]
    pub findings: Value,
    pub count: usize,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_get_ui_tree",
            title: "UI tree",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "The screen's semantics tree (framework detected): class, testTag, text, description, bounds, \
                          flags.",
        }
        .def(|ctx: Ctx, a: TreeArgs| async move {
            let dev = ctx.device(a.serial.as_deref()).await?;
            let tree = dump_shown(&ctx, &dev).await?;
            // The agent's freshest picture is this tree: the next action's screen goes whole.
            let client = super::shown::shown_key(&ctx);
            ctx.core.kept::<super::shown::ShownScreens>().forget(client, dev.serial());
            Ok(tree_out(dev.serial(), &tree, a.options))
        }),
        Meta {
            name: "android_find_ui_element",
            title: "Find UI element",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "Find elements by element (testTag → description → text) or selector; matches with bounds and node ids.",
        }
        .def(|ctx: Ctx, a: FindArgs| async move {
            let dev = ctx.device(a.serial.as_deref()).await?;
            let tree = dump(&ctx, &dev).await?;
            let ids = a.target.find_all(&tree)?;
            let closest = if ids.is_empty() {
                let sel = a.target.selector.clone().unwrap_or_else(|| Selector::query(a.target.element.as_deref().unwrap_or("")));
                tree.closest(&sel, 5).into_iter().map(|id| Candidate::of(&tree, id)).collect()
            } else {
                Vec::new()
            };
            let limit = a.limit.unwrap_or(20).clamp(1, 500);
            Ok(Found {
                count: ids.len(),
                revision: tree.revision().to_string(),
                matches: ids.iter().take(limit).filter_map(|&id| node_out(&tree, id)).collect(),
                closest,
            })
        }),
        Meta {
            name: "android_wait_for_element",
            title: "Wait for element",
            level: Level::ReadOnly,
            toolset: Toolset::Core,
            description: "Wait until an element exists, is gone, is enabled or has a text.",
        }
        .def(wait),
        Meta {
            name: "android_accessibility_audit",
            title: "Accessibility audit",
            level: Level::ReadOnly,
            toolset: Toolset::Ui,
            description: "Unlabelled interactive elements, touch targets under 48dp, duplicate labels, unlabelled images; \
                          each with a code fix for its framework (Compose or Views).",
        }
        .def(|ctx: Ctx, a: super::common::SerialOnly| async move {
            let dev = ctx.device(a.serial.as_deref()).await?;
            let (tree, density) = tokio::join!(dump(&ctx, &dev), ctx.sh_ok(&dev, "wm density"));
            let tree = tree?;
            let density = density.ok().and_then(|t| wm::parse_density(&t).effective).unwrap_or(160);
            let findings = uitree::audit(&tree, density);
            Ok(AuditOut {
                serial: dev.serial().to_string(),
                framework: tree.framework().to_string(),
                density,
                count: findings.len(),
                findings: serde_json::to_value(&findings).unwrap_or(Value::Null),
            })
        }),
        Meta {
            name: "android_assert_visible",
            title: "Assert visible",
            level: Level::ReadOnly,
            toolset: Toolset::Ui,
            description: "Pass/fail: the element is on screen; on failure, what comes closest.",
        }
        .def(|ctx: Ctx, a: AssertArgs| assert(ctx, a, AssertKind::Visible)),
        Meta {
            name: "android_assert_enabled",
            title: "Assert enabled",
            level: Level::ReadOnly,
            toolset: Toolset::Ui,
            description: "Pass/fail: the element is on screen and enabled; what was found instead.",
        }
        .def(|ctx: Ctx, a: AssertArgs| assert(ctx, a, AssertKind::Enabled)),
        Meta {
            name: "android_assert_text",
            title: "Assert text",
            level: Level::ReadOnly,
            toolset: Toolset::Ui,
            description: "Pass/fail: the element shows expectedText; the texts found instead.",
        }
        .def(|ctx: Ctx, a: AssertArgs| assert(ctx, a, AssertKind::Text)),
    ]
}
