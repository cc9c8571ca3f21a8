//! Typing into a text field found by semantics: focus it with a tap, clear it when asked, type
//! through `input text` (escaped by `guard`, so quotes, `$` and `;` arrive as typed), read the
//! field back to verify, then submit with Enter when asked.
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{ActionOut, ReturnScreen, element_out, finish, press_node, visible_rect};
use crate::device::Device;
use crate::mcp::registry::WithImages;
use crate::mcp::result::ToolError;
use crate::mcp::server::Ctx;
use crate::mcp::tools::gestures::{GestureKind, check_text};
use crate::mcp::tools::ui::{ElementRef, dump_for_action_raw, dump_raw, dump_settled, node_out};
use crate::uitree::{NodeId, UiTree};

/// `KEYCODE_MOVE_END` and `KEYCODE_DEL` by number: every `input` build knows numbers.
const MOVE_END: u32 = 123;
const DEL: u32 = 67;
const ENTER: u32 = 66;
/// More deletions than this in one call means the field is not what the agent thinks it is.
const MAX_CLEAR: usize = 2000;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TypeArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub target: ElementRef,
    /// Typed exactly (ASCII; spaces, quotes and shell characters are safe).
    pub text: String,
    /// Delete what the field holds first (default false).
    #[serde(default)]
    pub clear: bool,
    /// Press Enter after typing (default false).
    #[serde(default)]
    pub submit: bool,
    pub return_screen: Option<ReturnScreen>,
}

/// The text field an element names: itself, its interactive ancestor, or the first text field
/// inside it (a Compose TextField's label is often a sibling-level child).
pub fn text_field(tree: &UiTree, id: NodeId) -> Result<NodeId, ToolError> {
    let editable = |i: NodeId| tree.node(i).is_some_and(|n| n.is_editable());
    if editable(id) {
        return Ok(id);
    }
    let up = tree.interactive_ancestor(id);
    if editable(up) {
        return Ok(up);
    }
    if let Some(n) = tree
        .descendants(id)
        .find(|n| n.is_editable() && n.is_visible())
    {
        return Ok(n.id);
    }
    let shown = node_out(tree, id)
        .map(|n| format!("{} {} {:?}", n.node_id, n.role, n.text))
        .unwrap_or_else(|| id.to_string());
    Err(ToolError::invalid_args(format!(
        "{shown} is not a text field and holds none; name the field itself (its testTag, hint or a selector with role \"input\")"
    )))
}

/// Delete the field's current content: cursor to the end, then one DEL per character.
pub async fn clear(ctx: &Ctx, dev: &Device, tree: &UiTree, field: NodeId) -> Result<(), ToolError> {
    let n = tree.node(field).map_or(0, |n| n.text.chars().count());
    if n == 0 {
        return Ok(());
    }
    let mut cmd = format!("input keyevent {MOVE_END}");
    for _ in 0..n.min(MAX_CLEAR) {
        cmd.push_str(&format!(" {DEL}"));
    }
    ctx.sh_ok(dev, &cmd).await.map(drop)
}

/// The same field in a later dump: same bounds and still editable (its text, and so the
/// revision, changed, so node ids do not carry over).
fn same_field(before: &UiTree, field: NodeId, after: &UiTree) -> Option<NodeId> {
    let old = before.node(field)?;
    let by_bounds = after
        .nodes()
        .iter()
        .find(|n| n.is_editable() && n.bounds == old.bounds);
    let by_id = || {
        after.nodes().iter().find(|n| {
            n.is_editable() && !old.resource_id.is_empty() && n.resource_id == old.resource_id
        })
    };
    by_bounds.or_else(by_id).map(|n| n.id)
}

/// How long typing into "whatever is focused" looks for that field first. A dump slower than
/// this (a busy real phone) decides nothing: the text stays withheld as a password's would.
const FOCUS_LOOKUP: Duration = Duration::from_secs(5);

/// Whether the focused text field is a password field, read from a UI dump taken now:
/// `None` when that cannot be told in time (no dump, or no focused field in it), and then the
/// caller keeps the text hidden.
pub async fn focused_is_password(ctx: &Ctx, dev: &Device) -> Option<bool> {
    let budget = FOCUS_LOOKUP.min(ctx.timeout());
    let tree = tokio::time::timeout(budget, dump_raw(ctx, dev))
        .await
        .ok()?
        .ok()?;
    focused_field_is_password(&tree)
}

fn focused_field_is_password(tree: &UiTree) -> Option<bool> {
    let focused: Vec<_> = tree.nodes().iter().filter(|n| n.focused).collect();
    if focused.iter().any(|n| n.password) {
        return Some(true);
    }
    focused.iter().any(|n| n.is_editable()).then_some(false)
}

pub async fn type_into(ctx: Ctx, a: TypeArgs) -> Result<WithImages<ActionOut>, ToolError> {
    // Refused before the device is touched.
    let escaped = check_text(&a.text)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    // The field is found on the tree as the caller sees it; the typed text is checked on the
    // raw one (a password field's length, text a rule would hide).
    let tree = dump_for_action_raw(&ctx, &dev).await?;
    let mut view = tree.clone();
    ctx.core.redactor.redact_tree(&mut view, ctx.audience());
    let id = a.target.resolve(&view)?;
    let field = text_field(&tree, id)?;
    if visible_rect(&tree, field).is_none() {
        return Err(ToolError::not_found(format!(
            "the field {field} is off screen; bring it into view with android_scroll_to_element"
        )));
    }
    // What the text goes into is known now, before anything is typed: a password field's
    // text stays «password» everywhere, any other field's is shown from here on.
    let password = tree.node(field).is_some_and(|n| n.password);
    ctx.typing_into(Some(password))?;
    let mut out = ActionOut::new(dev.serial(), "", "");
    press_node(&ctx, &dev, &tree, field, GestureKind::Tap, &mut out).await?;
    // The tap matched the field itself; report the match the agent named, as the agent is
    // shown the screen (redacted; same node ids as the raw dump).
    out.element = element_out(&view, id);
    out.acted_on = (field != id).then(|| element_out(&view, field)).flatten();
    // No sleep before typing: `input tap` returns once the app has handled the touch (AOSP
    // InputShellCommand injects with INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH), so the field
    // has taken focus, and `input text` delivers its keys to the focused view the same way.
    let before = tree.node(field).map(|n| n.text.clone()).unwrap_or_default();
    if a.clear {
        clear(&ctx, &dev, &tree, field).await?;
    }
    ctx.sh_ok(&dev, &escaped).await?;
    // The verification dump waits for idle itself, and is this action's settle dump: the
    // screen sent back (returnScreen) and the next read, while nothing else is sent.
    let after = dump_settled(&ctx, &dev).await?;
    match same_field(&tree, field, &after).and_then(|f| after.node(f)) {
        Some(n) if password => {
            let want = if a.clear { 0 } else { before.chars().count() } + a.text.chars().count();
            let ok = n.text.chars().count() == want;
            out.verified = Some(ok);
            // What it holds is said only when it is not what was typed.
            out.field_text = (!ok).then(|| "•".repeat(n.text.chars().count()));
        }
        Some(n) => {
            let want = if a.clear {
                a.text.clone()
            } else {
                format!("{before}{}", a.text)
            };
            // An empty field may have shown its hint as text before typing.
            let ok = n.text == want || n.text.ends_with(&a.text);
            out.verified = Some(ok);
            if !ok {
                out.warning = Some(format!(
                    "the field holds {:?}, not {want:?}: an input filter, autocorrect or a length limit may have changed it",
                    n.text
                ));
            }
            out.field_text = (n.text != a.text).then(|| n.text.clone());
        }
        None => {
            out.warning =
                Some("the field could not be found again after typing; the screen changed".into());
        }
    }
    if a.submit {
        ctx.sh_ok(&dev, &format!("input keyevent {ENTER}")).await?;
    }
    finish(&ctx, &dev, out, a.return_screen).await
}
