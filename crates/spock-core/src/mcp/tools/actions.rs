//! Element-addressed actions: tap, long press, scroll to, type into, perform an action on, and
//! scroll a container. Each resolves its element from the screen's semantics (testTag →
//! content description → text, or a selector), walks up to the nearest interactive ancestor,
//! and derives the point from the node's own visible bounds, so the call keeps working on
//! another screen size, density or font scale. Coordinates are the fallback (`gestures`).
//!
//! Over adb there is no accessibility-action channel (that needs an on-device service), so
//! every action here is delivered as the equivalent touch or key input (android_perform_action
//! says so in its result: `fallback`, `note`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::gestures::{GestureKind, input_held, swipe_cmd};
use super::screen::{self, Format};
use super::ui::{ElementRef, as_shown, dump_for_action, dump_settled};
use crate::device::Device;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::toolsets::Toolset;
use crate::uitree::{Candidate, NodeId, Rect, Selector, TreeOptions, UiTree};

mod edit;
mod scroll;
mod shown;

pub use edit::focused_is_password;
pub use scroll::{ScrollDir, scroll_swipe, scrollable_for};
pub use shown::ShownScreens;

/// What to send back once the screen has settled after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReturnScreen {
    /// The compact UI tree (cheapest).
    Tree,
    Screenshot,
    Both,
}

/// What every action reports. Fields an action does not use are left out.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionOut {
    pub serial: String,
    /// What was done, where the tool's name does not already say it (`press_key KEYCODE_DEL`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub action: String,
    /// How it reached the device (`tap`, `long_press`, `swipe`, `keys`, `text`), where the tool
    /// has more than one way (the element tools: always as touch and key input).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub performed_as: String,
    /// The node the selector matched, as a line of the screen form (`n11 'Sign in'`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub element: Option<String>,
    /// The interactive node acted on, when it is not the match (a Compose label's clickable
    /// parent, a field inside a named container, the container scrolled), as a line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acted_on: Option<String>,
    /// Screen point used, [x, y].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub point: Option<[i32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrolls: Option<u32>,
    /// Did the UI tree change (scrolls)?
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<bool>,
    /// The field's text after typing, when it is not exactly the text typed (password fields
    /// show bullets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_text: Option<String>,
    /// The field holds what was typed (None when it cannot be read back).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The screen after the action settled (with returnScreen), one node per line:
    /// `rev <revision>`, then `<id> [role] ['label'] [desc='…'] [in='…'] [hint='…'] [#tag]
    /// [flags]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screen_error: Option<String>,
    /// android_perform_action: `gesture` when the action was delivered as touch/key input in
    /// place of the accessibility action (adb has no channel for those), with `note` saying so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Node `id` as an action reports it: its line of the screen form ([`UiTree::node_line`]; a
/// password field's text is never shown).
pub fn element_out(tree: &UiTree, id: NodeId) -> Option<String> {
    tree.node(id).map(|n| tree.node_line(n))
}

/// The node acted on for the one matched (its clickable parent): its line without the labels a
/// tap on it stands for, which the match already names.
pub fn acted_on_out(tree: &UiTree, id: NodeId) -> Option<String> {
    tree.node(id).map(|n| tree.node_line_short(n))
}

/// The settled screen as an action sends it back: the compact selection as lines.
pub fn screen_lines(tree: &UiTree) -> String {
    tree.to_lines(TreeOptions {
        compact: true,
        ..TreeOptions::default()
    })
}

impl ActionOut {
    pub fn new(serial: &str, action: &str, performed_as: &str) -> Self {
        ActionOut {
            serial: serial.to_string(),
            action: action.to_string(),
            performed_as: performed_as.to_string(),
            ..ActionOut::default()
        }
    }
}

/// `a ∩ b`, or `None` when they do not overlap.
fn intersect(a: Rect, b: Rect) -> Option<Rect> {
    let r = Rect {
        left: a.left.max(b.left),
        top: a.top.max(b.top),
        right: a.right.min(b.right),
        bottom: a.bottom.min(b.bottom),
    };
    (!r.is_empty()).then_some(r)
}

/// The part of a node that is on screen: its bounds clipped by every ancestor's (a list clips
/// its rows), `None` when nothing of it shows.
pub fn visible_rect(tree: &UiTree, id: NodeId) -> Option<Rect> {
    let mut r = tree.node(id)?.bounds?;
    for a in tree.ancestors(id) {
        if let Some(b) = a.bounds {
            r = intersect(r, b)?;
        }
    }
    (!r.is_empty()).then_some(r)
}

/// Where a tap on `id` goes: the node acted on (the nearest interactive ancestor, Compose puts
/// the click handler on the parent of the text) and the point, the centre of the matched
/// node's visible part, which lies inside that ancestor.
pub fn tap_point(tree: &UiTree, id: NodeId) -> Result<(NodeId, (i32, i32)), ToolError> {
    let target = tree.interactive_ancestor(id);
    let rect = visible_rect(tree, id)
        .and_then(|r| match visible_rect(tree, target) {
            Some(t) if target != id => intersect(r, t),
            _ => Some(r),
        })
        .or_else(|| visible_rect(tree, target));
    match rect {
        Some(r) => Ok((target, r.center())),
        None => Err(ToolError::new(
            ErrorKind::NotFound,
            format!(
                "{id} has no visible area on screen; bring it into view with android_scroll_to_element"
            ),
        )),
    }
}

/// What an action sends back once the screen has settled (`returnScreen`).
#[derive(Default)]
pub struct Settled {
    /// The screen as lines ([`screen_lines`]).
    pub screen: Option<String>,
    pub images: Vec<crate::mcp::result::Image>,
    /// What could not be read, in place: the action itself already happened.
    pub error: Option<String>,
}

/// Once the screen has settled after an action, read what was asked for. The settle dump
/// (which itself waits for the app to go idle, and is kept as the next read's answer while
/// nothing else is sent) comes first; a screenshot is taken once it has answered, so the
/// image is the settled screen, and the same dump locates what the image must hide
/// ([`screen::capture_after`]: `screencap` does not wait for anything).
pub async fn settle(
    ctx: &Ctx,
    dev: &Device,
    want: Option<ReturnScreen>,
) -> Result<Settled, ToolError> {
    let Some(want) = want else {
        return Ok(Settled::default());
    };
    let settled_shot = || {
        screen::capture_after(
            ctx,
            dev,
            screen::DEFAULT_MAX,
            Format::Jpeg,
            dump_settled(ctx, dev),
        )
    };
    let (tree, shot) = match want {
        ReturnScreen::Tree => (Some(dump_settled(ctx, dev).await), None),
        // The settle dump is the wait for idle (no fixed sleep) and the tree the screenshot's
        // redaction reads; it stays kept as the next read's answer.
        ReturnScreen::Screenshot => (None, Some(settled_shot().await.0)),
        ReturnScreen::Both => {
            let (shot, tree) = settled_shot().await;
            (Some(tree), Some(shot))
        }
    };
    let tree = tree.map(|t| t.map(|tree| screen_lines(&as_shown(ctx, tree))));
    let mut out = Settled::default();
    let mut errors = Vec::new();
    match tree {
        Some(Ok(lines)) => {
            let client = shown_key(ctx);
            out.screen = Some(ctx.core.kept::<shown::ShownScreens>().render(
                client,
                dev.serial(),
                lines,
            ));
        }
        Some(Err(e)) => errors.push(format!("ui tree: {}", e.message)),
        None => {}
    }
    match shot {
        Some(Ok((img, info))) => {
            // Not an error, but an image that shows nothing needs saying where it is sent.
            if let Some(w) = info.warning {
                errors.push(format!("screenshot: {w}"));
            }
            out.images.push(img);
        }
        Some(Err(e)) => errors.push(format!("screenshot: {}", e.message)),
        None => {}
    }
    if !errors.is_empty() {
        out.error = Some(errors.join("; "));
    }
    Ok(out)
}

/// Who a screen is sent to, for sending the next one as changes: a client with its own
/// connection; `None` (always whole screens) for stateless requests and the control centre.
pub fn shown_key(ctx: &Ctx) -> Option<&str> {
    ctx.origin
        .session
        .as_ref()
        .filter(|s| !s.is_stateless())
        .map(|s| s.key())
}

/// After an action: attach what `returnScreen` asked for ([`settle`]).
pub async fn finish(
    ctx: &Ctx,
    dev: &Device,
    mut out: ActionOut,
    want: Option<ReturnScreen>,
) -> Result<WithImages<ActionOut>, ToolError> {
    let settled = settle(ctx, dev, want).await?;
    out.screen = settled.screen;
    out.screen_error = settled.error;
    Ok(WithImages {
        value: out,
        images: settled.images,
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ElementArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub target: ElementRef,
    /// Hold time for long presses in ms (default 1000).
    pub duration_ms: Option<u64>,
    /// Send back the screen after it settles: tree, screenshot or both.
    pub return_screen: Option<ReturnScreen>,
}

/// Resolve, then tap or long-press the element.
async fn press(ctx: Ctx, a: ElementArgs, long: bool) -> Result<WithImages<ActionOut>, ToolError> {
    let hold = a.duration_ms.unwrap_or(1000).clamp(500, 10_000);
    let dev = ctx.device(a.serial.as_deref()).await?;
    let tree = dump_for_action(&ctx, &dev).await?;
    let id = a.target.resolve(&tree)?;
    let kind = if long {
        GestureKind::LongPress(hold)
    } else {
        GestureKind::Tap
    };
    let mut out = ActionOut::new(dev.serial(), "", "");
    press_node(&ctx, &dev, &tree, id, kind, &mut out).await?;
    finish(&ctx, &dev, out, a.return_screen).await
}

/// Tap or long-press a resolved node and record what was done in `out`.
pub async fn press_node(
    ctx: &Ctx,
    dev: &Device,
    tree: &UiTree,
    id: NodeId,
    kind: GestureKind,
    out: &mut ActionOut,
) -> Result<(), ToolError> {
    let (target, (x, y)) = tap_point(tree, id)?;
    if let Some(n) = tree.node(target)
        && !n.enabled
    {
        out.warning = Some(format!("{target} is disabled; the tap may do nothing"));
    }
    let (cmd, hold) = match kind {
        GestureKind::Tap => (format!("input tap {x} {y}"), 0),
        GestureKind::LongPress(ms) => (swipe_cmd((x, y), (x, y), ms), ms),
    };
    input_held(ctx, dev, &cmd, hold).await?;
    out.element = element_out(tree, id);
    if target != id {
        out.acted_on = acted_on_out(tree, target);
    }
    out.point = Some([x, y]);
    Ok(())
}

/// What a selector that matched nothing is closest to, for error details.
pub fn closest_to(tree: &UiTree, target: &ElementRef) -> Vec<Candidate> {
    let sel = target
        .selector
        .clone()
        .unwrap_or_else(|| Selector::query(target.element.as_deref().unwrap_or("")));
    tree.closest(&sel, 5)
        .into_iter()
        .map(|id| Candidate::of(tree, id))
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum UiAction {
    Click,
    LongClick,
    Focus,
    Clear,
    ScrollForward,
    ScrollBackward,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    /// Deliver the action as touch/key input (the only channel adb offers).
    #[default]
    Gesture,
    /// Refuse rather than use input events.
    None,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PerformArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub target: ElementRef,
    pub action: UiAction,
    /// gesture (default): perform it as touch/key input. none: refuse instead.
    pub fallback: Option<Fallback>,
    pub return_screen: Option<ReturnScreen>,
}

async fn perform(ctx: Ctx, a: PerformArgs) -> Result<WithImages<ActionOut>, ToolError> {
    if a.fallback.unwrap_or_default() == Fallback::None {
        return Err(ToolError::refused(
            "accessibility actions cannot be sent over adb without an on-device service; \
             only the gesture form exists here: call again with fallback \"gesture\" (the default)",
        ));
    }
    let dev = ctx.device(a.serial.as_deref()).await?;
    let tree = dump_for_action(&ctx, &dev).await?;
    let id = a.target.resolve(&tree)?;
    let name = format!("{:?}", a.action);
    let out = match a.action {
        UiAction::Click | UiAction::LongClick => {
            let kind = if a.action == UiAction::Click {
                GestureKind::Tap
            } else {
                GestureKind::LongPress(1000)
            };
            let mut out = ActionOut::new(dev.serial(), &name, kind.label());
            press_node(&ctx, &dev, &tree, id, kind, &mut out).await?;
            out
        }
        UiAction::Focus | UiAction::Clear => {
            let field = edit::text_field(&tree, id)?;
            let mut out = ActionOut::new(dev.serial(), &name, "tap+keys");
            press_node(&ctx, &dev, &tree, field, GestureKind::Tap, &mut out).await?;
            if a.action == UiAction::Clear {
                edit::clear(&ctx, &dev, &tree, field).await?;
            }
            out
        }
        UiAction::ScrollForward | UiAction::ScrollBackward => {
            let dir = if a.action == UiAction::ScrollForward {
                ScrollDir::Forward
            } else {
                ScrollDir::Backward
            };
            let container = scrollable_for(&tree, Some(id)).ok_or_else(|| {
                ToolError::invalid_args(format!(
                    "{id} is not scrollable and has no scrollable ancestor"
                ))
            })?;
            let mut out = ActionOut::new(dev.serial(), &name, "swipe");
            scroll::scroll_once(&ctx, &dev, &tree, container, dir, &mut out).await?;
            out
        }
    };
    let mut out = out;
    out.fallback = Some("gesture".into());
    out.note = Some(format!(
        "performed by gesture ({}), not as an accessibility action: adb offers no channel for \
         those without an on-device service",
        out.performed_as
    ));
    finish(&ctx, &dev, out, a.return_screen).await
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        Meta {
            name: "android_tap_element",
            title: "Tap element",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Tap an element found by testTag → description → text (or selector); taps its nearest \
                          clickable ancestor. Prefer this to android_tap.",
        }
        .def(|ctx: Ctx, a: ElementArgs| press(ctx, a, false))
        .output_without(&[
            "action", "performedAs", "scrolls", "changed", "fallback", "note", "fieldText", "verified",
        ]),
        Meta {
            name: "android_long_press_element",
            title: "Long-press element",
            level: Level::SafeAction,
            toolset: Toolset::Ui,
            description: "Long-press an element found by testTag → description → text (or selector).",
        }
        .def(|ctx: Ctx, a: ElementArgs| press(ctx, a, true)),
        Meta {
            name: "android_scroll_to_element",
            title: "Scroll to element",
            level: Level::SafeAction,
            toolset: Toolset::Ui,
            description: "Scroll the nearest (or main) scrollable container until the element is on screen; \
                          gives up after maxScrolls or when the screen stops changing.",
        }
        .def(scroll::scroll_to),
        Meta {
            name: "android_input_text_into_element",
            title: "Type into element",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Focus a text field (testTag → description → text, or selector), optionally clear it, \
                          type text exactly, verify the field holds it, optionally submit (Enter).",
        }
        .def(edit::type_into)
        .output_without(&["action", "performedAs", "scrolls", "changed", "fallback", "note"])
        .typing_text(),
        Meta {
            name: "android_perform_action",
            title: "Perform UI action",
            level: Level::SafeAction,
            toolset: Toolset::Ui,
            description: "click, long_click, focus, clear, scroll_forward or scroll_backward on an element; \
                          delivered as touch/key input (fallback: gesture).",
        }
        .def(perform),
        Meta {
            name: "android_scroll",
            title: "Scroll container",
            level: Level::SafeAction,
            toolset: Toolset::Ui,
            description: "Scroll a scrollable container (element/selector, default the screen's main one) forward or backward once; says whether the screen changed.",
        }
        .def(scroll::scroll),
    ]
}

#[cfg(test)]
mod tests;
