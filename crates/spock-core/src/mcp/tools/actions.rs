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
use serde::Deserialize;

use super::gestures::{GestureKind, input_held, swipe_cmd};
use super::ui::{ElementRef, dump_for_action};
use crate::device::Device;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;
use crate::uitree::{Candidate, NodeId, Selector, UiTree};

mod edit;
mod scroll;

pub use super::acted::{
    ActionOut, ReturnScreen, Settled, acted_on_out, element_out, finish, screen_lines, settle,
    tap_point, visible_rect,
};
pub use super::shown::{ShownScreens, shown_key};
pub use scroll::{ScrollDir, scroll_swipe, scrollable_for};

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
    // The node touched decides which app is acted on (split screen: its own package).
    ctx.may_act_on_app(dev, tree.node(target).map(|n| n.package.as_str()))?;
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
        .acts_on_node()
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
        .def(|ctx: Ctx, a: ElementArgs| press(ctx, a, true))
        .acts_on_node(),
        Meta {
            name: "android_scroll_to_element",
            title: "Scroll to element",
            level: Level::SafeAction,
            toolset: Toolset::Ui,
            description: "Scroll the nearest (or main) scrollable container until the element is on screen; \
                          gives up after maxScrolls or when the screen stops changing.",
        }
        .def(scroll::scroll_to)
        .acts_on_node(),
        Meta {
            name: "android_input_text_into_element",
            title: "Type into element",
            level: Level::SafeAction,
            toolset: Toolset::Core,
            description: "Focus a text field (testTag → description → text, or selector), optionally clear it, \
                          type text exactly, verify the field holds it, optionally submit (Enter).",
        }
        .def(edit::type_into)
        .acts_on_node()
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
        .def(perform)
        .acts_on_node(),
        Meta {
            name: "android_scroll",
            title: "Scroll container",
            level: Level::SafeAction,
            toolset: Toolset::Ui,
            description: "Scroll a scrollable container (element/selector, default the screen's main one) forward or backward once; says whether the screen changed.",
        }
        .def(scroll::scroll)
        .acts_on_node(),
    ]
}

#[cfg(test)]
mod tests;
