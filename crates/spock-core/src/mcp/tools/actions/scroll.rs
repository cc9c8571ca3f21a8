//! Scrolling by meaning: which container scrolls (the element's nearest scrollable ancestor,
//! else the screen's largest scrollable), which way a "forward" swipe goes in it, and the
//! bounded scroll-until-visible loop that stops when the tree stops changing.
use schemars::JsonSchema;
use serde::Deserialize;

use super::{ActionOut, ReturnScreen, closest_to, finish, visible_rect};
use crate::device::Device;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::WithImages;
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::tools::gestures::swipe_cmd;
use crate::mcp::tools::ui::{ElementRef, as_shown, dump_for_action, dump_settled};
use crate::uitree::{NodeId, UiTree};

const DEFAULT_SCROLLS: u32 = 10;
const MAX_SCROLLS: u32 = 50;
const SWIPE_MS: u64 = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ScrollDir {
    /// Towards later content (a list's end): the finger moves up (or left).
    #[default]
    Forward,
    Backward,
}

/// The container to scroll: `from` itself when scrollable, else its nearest scrollable
/// ancestor; with no `from` (or none found above it), the largest visible scrollable node.
pub fn scrollable_for(tree: &UiTree, from: Option<NodeId>) -> Option<NodeId> {
    if let Some(id) = from {
        if tree.node(id).is_some_and(|n| n.scrollable) {
            return Some(id);
        }
        if let Some(a) = tree.ancestors(id).find(|a| a.scrollable) {
            return Some(a.id);
        }
        return None;
    }
    tree.nodes()
        .iter()
        .filter(|n| n.scrollable && n.is_visible())
        .filter_map(|n| visible_rect(tree, n.id).map(|r| (n.id, r)))
        .max_by_key(|(_, r)| i64::from(r.width()) * i64::from(r.height()))
        .map(|(id, _)| id)
}

/// Start and end of one scroll swipe inside `container`: along its longer axis (horizontal
/// pagers and carousels are wider than tall), from 80 % to 20 % of its visible extent so the
/// swipe starts inside it and clear of system gesture edges.
pub fn scroll_swipe(
    tree: &UiTree,
    container: NodeId,
    dir: ScrollDir,
) -> Option<((i32, i32), (i32, i32))> {
    let r = visible_rect(tree, container)?;
    let node = tree.node(container)?;
    let horizontal = node.class.contains("Horizontal")
        || node.class.contains("ViewPager")
        || r.width() > r.height() * 2;
    let (cx, cy) = r.center();
    let at = |lo: i32, len: i32, frac: i32| lo + len * frac / 100;
    let (a, b) = if horizontal {
        (
            (at(r.left, r.width(), 80), cy),
            (at(r.left, r.width(), 20), cy),
        )
    } else {
        (
            (cx, at(r.top, r.height(), 80)),
            (cx, at(r.top, r.height(), 20)),
        )
    };
    Some(match dir {
        ScrollDir::Forward => (a, b),
        ScrollDir::Backward => (b, a),
    })
}

pub async fn scroll_once(
    ctx: &Ctx,
    dev: &Device,
    tree: &UiTree,
    container: NodeId,
    dir: ScrollDir,
    out: &mut ActionOut,
) -> Result<(), ToolError> {
    ctx.may_act_on_app(dev, tree.node(container).map(|n| n.package.as_str()))?;
    let (from, to) = scroll_swipe(tree, container, dir).ok_or_else(|| {
        ToolError::not_found(format!("the scrollable {container} has no visible area"))
    })?;
    ctx.sh_ok(dev, &swipe_cmd(from, to, SWIPE_MS)).await?;
    out.point = Some([from.0, from.1]);
    if out.acted_on.is_none() {
        out.acted_on = super::acted_on_out(tree, container);
    }
    Ok(())
}

fn no_scrollable(tree: &UiTree) -> ToolError {
    ToolError::not_found(format!(
        "nothing on this screen is scrollable ({} nodes, none with scrollable=true)",
        tree.len()
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScrollToArgs {
    pub serial: Option<String>,
    #[serde(flatten)]
    pub target: ElementRef,
    /// forward (default) or backward.
    pub direction: Option<ScrollDir>,
    /// Most swipes before giving up (default 10, max 50).
    pub max_scrolls: Option<u32>,
    pub return_screen: Option<ReturnScreen>,
}

/// Is the target on screen with its centre inside the container's visible part?
fn in_view(tree: &UiTree, target: &ElementRef) -> Result<Option<NodeId>, ToolError> {
    let ids = target.find_all(tree)?;
    Ok(ids.into_iter().find(|&id| {
        let Some(r) = visible_rect(tree, id) else {
            return false;
        };
        let (x, y) = r.center();
        match scrollable_for(tree, Some(id)).and_then(|c| visible_rect(tree, c)) {
            Some(c) => x >= c.left && x < c.right && y >= c.top && y < c.bottom,
            None => true,
        }
    }))
}

/// The screen once a swipe has settled, as the caller sees it (redacted). No fixed sleep first:
/// `uiautomator dump` waits for the app to go idle, a fling included. The dump is kept, so a
/// `returnScreen` asked for next sends it back instead of dumping again while nothing else
/// was sent.
async fn settled_view(ctx: &Ctx, dev: &Device) -> Result<UiTree, ToolError> {
    Ok(as_shown(ctx, dump_settled(ctx, dev).await?))
}

pub async fn scroll_to(ctx: Ctx, a: ScrollToArgs) -> Result<WithImages<ActionOut>, ToolError> {
    let limit = a.max_scrolls.unwrap_or(DEFAULT_SCROLLS).min(MAX_SCROLLS);
    let dir = a.direction.unwrap_or_default();
    let dev = ctx.device(a.serial.as_deref()).await?;
    let mut tree = dump_for_action(&ctx, &dev).await?;
    let mut out = ActionOut::new(dev.serial(), "", "");
    let mut scrolls = 0;
    loop {
        if let Some(id) = in_view(&tree, &a.target)? {
            out.element = super::element_out(&tree, id);
            out.scrolls = Some(scrolls);
            return finish(&ctx, &dev, out, a.return_screen).await;
        }
        let stop = |why: String, tree: &UiTree, scrolls: u32| {
            ToolError::new(
                ErrorKind::NotFound,
                format!(
                    "{} is not on screen after {scrolls} scrolls: {why}",
                    a.target.describe()
                ),
            )
            .with_details(
                serde_json::json!({ "scrolls": scrolls, "closest": closest_to(tree, &a.target) }),
            )
        };
        if scrolls >= limit {
            return Err(stop(
                format!("gave up at maxScrolls={limit}"),
                &tree,
                scrolls,
            ));
        }
        // Partly visible: scroll its own container; otherwise the screen's main one.
        let partial = a
            .target
            .find_all(&tree)
            .ok()
            .and_then(|ids| ids.first().copied());
        let container = partial
            .and_then(|id| scrollable_for(&tree, Some(id)))
            .or_else(|| scrollable_for(&tree, None))
            .ok_or_else(|| no_scrollable(&tree))?;
        scroll_once(&ctx, &dev, &tree, container, dir, &mut out).await?;
        scrolls += 1;
        let next = settled_view(&ctx, &dev).await?;
        if next.revision() == tree.revision() {
            return Err(stop(
                "the screen stopped changing (the end of the list, or the container does not scroll this way)".into(),
                &next,
                scrolls,
            ));
        }
        tree = next;
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScrollArgs {
    pub serial: Option<String>,
    /// The container (or anything inside it); default: the screen's main scrollable.
    #[serde(flatten)]
    pub target: ElementRef,
    /// forward (default) or backward.
    pub direction: Option<ScrollDir>,
    pub return_screen: Option<ReturnScreen>,
}

pub async fn scroll(ctx: Ctx, a: ScrollArgs) -> Result<WithImages<ActionOut>, ToolError> {
    let dev = ctx.device(a.serial.as_deref()).await?;
    let tree = dump_for_action(&ctx, &dev).await?;
    let named = a.target.element.is_some() || a.target.selector.is_some();
    let container = if named {
        let id = a.target.resolve(&tree)?;
        scrollable_for(&tree, Some(id)).ok_or_else(|| {
            ToolError::invalid_args(format!(
                "{id} is not scrollable and has no scrollable ancestor"
            ))
        })?
    } else {
        scrollable_for(&tree, None).ok_or_else(|| no_scrollable(&tree))?
    };
    let mut out = ActionOut::new(dev.serial(), "", "");
    scroll_once(
        &ctx,
        &dev,
        &tree,
        container,
        a.direction.unwrap_or_default(),
        &mut out,
    )
    .await?;
    let after = settled_view(&ctx, &dev).await?;
    out.changed = Some(after.revision() != tree.revision());
    out.scrolls = Some(1);
    finish(&ctx, &dev, out, a.return_screen).await
}
