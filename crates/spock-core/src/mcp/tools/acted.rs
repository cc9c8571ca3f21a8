//! What an action sends back: its output ([`ActionOut`]), the screen once it has settled
//! ([`settle`], [`finish`]: the tree, a screenshot, or both, as `returnScreen` asks, sent as
//! changes to a client that saw the last one), and whether the focused field is a password
//! field. Shared by every tool that acts on the screen (taps, gestures, typing, intents), so
//! none of them imports another for it.
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::screen::{self, Format};
use super::shown::{ShownScreens, shown_key};
use super::ui::{as_shown, dump_raw, dump_settled};
use crate::device::Device;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::WithImages;
use crate::mcp::result::{ErrorKind, ToolError};
use crate::uitree::{NodeId, Rect, TreeOptions, UiTree};

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
            out.screen = Some(
                ctx.core
                    .kept::<ShownScreens>()
                    .render(client, dev.serial(), lines),
            );
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
    tree.focused_field_is_password()
}
