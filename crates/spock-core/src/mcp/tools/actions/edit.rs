//! Typing into a text field found by semantics: focus it with a tap, clear it when asked, type
//! through `input text` (escaped by `guard`, so quotes, `$` and `;` arrive as typed), read the
//! field back to verify, then submit with Enter when asked.
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{ActionOut, ReturnScreen, element_out, finish, press_node, visible_rect};
use crate::device::Device;
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::WithImages;
use crate::mcp::result::ToolError;
use crate::mcp::tools::gestures::{GestureKind, check_text};
use crate::mcp::tools::ui::{
    ElementRef, as_shown, dump_for_action_raw, dump_fresh, dump_settled, node_out,
};
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
    /// More fields of this form, [{element, text, clear?}], typed in this call (passwords
    /// first); one read-back checks them all.
    #[serde(default)]
    pub fields: Vec<MoreField>,
    pub return_screen: Option<ReturnScreen>,
}

/// A further field of the same form.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoreField {
    pub element: String,
    pub text: String,
    #[serde(default)]
    pub clear: bool,
}

/// The most fields one call fills.
const MAX_FIELDS: usize = 10;

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

/// One field of a call: what names it, what goes in, and where it was found.
struct Entry {
    /// Its typed-text slot: 0 the call's `text`, then one per `fields` entry.
    slot: usize,
    target: ElementRef,
    text: String,
    escaped: String,
    clear: bool,
    password: bool,
}

/// Where an entry was found on a screen: the element named, the text field it types into.
struct Found {
    id: NodeId,
    field: NodeId,
}

/// Finds `target`'s text field on `tree` (raw) as the caller sees it (`view`), on screen.
fn find_field(
    tree: &UiTree,
    view: &UiTree,
    target: &ElementRef,
    target_clears: bool,
) -> Result<Found, ToolError> {
    let id = target.resolve(view)?;
    let field = text_field(tree, id)?;
    if visible_rect(tree, field).is_none() {
        return Err(ToolError::not_found(format!(
            "the field {field} is off screen; bring it into view with android_scroll_to_element"
        )));
    }
    // Typed after a value hidden from the caller, the field could stop matching the rule
    // that hides it and show the rest of it; replacing it whole (`clear`) shows nothing. (A
    // password field shows nothing of what it holds however it changes.)
    if view
        .node(field)
        .is_some_and(|n| !n.password && crate::redact::holds_hidden(&n.text))
        && !target_clears
    {
        return Err(ToolError::refused(format!(
            "the field {field} holds a value hidden from you; typing after it would show part of \
             it. Replace it whole with clear: true, or leave it"
        )));
    }
    // A tap on a disabled field leaves the focus where it was, and the text would go into
    // whatever field holds it.
    if tree.node(field).is_some_and(|n| !n.enabled) {
        return Err(ToolError::refused(format!(
            "the field {field} is disabled: a tap does not focus it, and the text would go into \
             whatever field has the focus; nothing was typed"
        )));
    }
    Ok(Found { id, field })
}

/// A field after typing: whether it holds what was typed, and what to tell the caller.
struct Check {
    ok: Option<bool>,
    warning: Option<String>,
    field_text: Option<String>,
}

/// `before`/`after` are the field as the device reports it (what the check compares);
/// `shown` is the field after typing as the caller is shown it (all that is said back).
fn check_field(
    e: &Entry,
    before: &str,
    after: Option<&crate::uitree::Node>,
    shown: Option<&crate::uitree::Node>,
) -> Check {
    let shown_text = shown.map(|n| n.text.clone()).unwrap_or_default();
    match after {
        Some(n) if e.password => {
            let want = if e.clear { 0 } else { before.chars().count() } + e.text.chars().count();
            let got = n.text.chars().count();
            let ok = got == want;
            Check {
                ok: Some(ok),
                warning: (!ok).then(|| format!("it holds {got} characters, not {want}")),
                // What it holds is said only when it is not what was typed.
                field_text: (!ok).then(|| "•".repeat(got)),
            }
        }
        Some(n) => {
            let want = if e.clear {
                e.text.clone()
            } else {
                format!("{before}{}", e.text)
            };
            // An empty field may have shown its hint as text before typing.
            let ok = n.text == want || n.text.ends_with(&e.text);
            Check {
                ok: Some(ok),
                warning: (!ok).then(|| format!(
                    "the field holds {shown_text:?}, not what was typed ({:?}) after what it held: an input filter, autocorrect or a length limit may have changed it",
                    e.text
                )),
                field_text: (n.text != e.text).then_some(shown_text),
            }
        }
        None => Check {
            ok: None,
            warning: Some(
                "the field could not be found again after typing; the screen changed".into(),
            ),
            field_text: None,
        },
    }
}

/// The call's fields as entries (the named one first), refused before the device is touched
/// when there are too many, when `submit` is asked with several, or when a text cannot be
/// typed.
fn entries_of(a: &TypeArgs) -> Result<Vec<Entry>, ToolError> {
    if a.fields.len() >= MAX_FIELDS {
        return Err(ToolError::invalid_args(format!(
            "at most {MAX_FIELDS} fields in one call ({} given)",
            a.fields.len() + 1
        )));
    }
    if a.submit && !a.fields.is_empty() {
        return Err(ToolError::invalid_args(
            "submit applies to one field; with `fields`, tap the form's button after (android_tap_element)",
        ));
    }
    let mut entries = vec![Entry {
        slot: 0,
        escaped: check_text(&a.text)?,
        target: a.target.clone(),
        text: a.text.clone(),
        clear: a.clear,
        password: false,
    }];
    for (i, f) in a.fields.iter().enumerate() {
        entries.push(Entry {
            slot: i + 1,
            escaped: check_text(&f.text)?,
            target: ElementRef {
                element: Some(f.element.clone()),
                selector: None,
            },
            text: f.text.clone(),
            clear: f.clear,
            password: false,
        });
    }
    Ok(entries)
}

pub async fn type_into(ctx: Ctx, a: TypeArgs) -> Result<WithImages<ActionOut>, ToolError> {
    let mut entries = entries_of(&a)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    // Every field is found on the tree as the caller sees it; the typed text is checked on the
    // raw one (a password field's length, text a rule would hide).
    // Shared: each typed field remembers the screen it was found on, for the read-back.
    let mut tree = Arc::new(dump_for_action_raw(&ctx, &dev).await?);
    let mut view = as_shown(&ctx, UiTree::clone(&tree));
    let mut found = Vec::with_capacity(entries.len());
    for e in &mut entries {
        let f = find_field(&tree, &view, &e.target, e.clear)?;
        if let Some(j) = found.iter().position(|g: &Found| g.field == f.field) {
            return Err(ToolError::invalid_args(format!(
                "{} and {} name the same field {}",
                entries_name(j),
                entries_name(e.slot),
                f.field
            )));
        }
        e.password = tree.node(f.field).is_some_and(|n| n.password);
        found.push(f);
    }
    // What each text goes into is known now, before anything is typed: a password field's
    // text stays «password» everywhere, any other field's is shown from here on.
    for e in &entries {
        ctx.typing_into_field(e.slot, Some(e.password))?;
    }
    let mut out = ActionOut::new(dev.serial(), "", "");
    // The match the agent named first, as the agent is shown the screen (redacted; same node
    // ids as the raw dump).
    out.element = element_out(&view, found[0].id);
    out.acted_on = (found[0].field != found[0].id)
        .then(|| element_out(&view, found[0].field))
        .flatten();
    // Passwords first: a password goes only into a field found on a screen read after the
    // last thing typed, so a form that moved cannot have it typed into a field shown in the
    // clear. The other fields follow, on the screen last read; the read-back checks them all.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&k| !entries[k].password);
    let mut typed = Vec::with_capacity(entries.len());
    let mut warnings = Vec::new();
    // How many screens were read after the first (the fields were found on the first).
    let mut reads = 0;
    for (n, &k) in order.iter().enumerate() {
        let e = &entries[k];
        if n > 0 && e.password {
            tree = Arc::new(dump_for_action_raw(&ctx, &dev).await?);
            view = as_shown(&ctx, UiTree::clone(&tree));
            reads += 1;
        }
        let field = if reads > 0 {
            // Found again on the newer screen; it must still be what its text was judged by.
            let f = find_field(&tree, &view, &e.target, e.clear)?;
            if tree.node(f.field).is_some_and(|n| n.password) != e.password {
                return Err(ToolError::refused(format!(
                    "{} names a {} field now: the form changed while typing; nothing more was typed",
                    entries_name(e.slot),
                    if e.password { "plain" } else { "password" }
                )));
            }
            f.field
        } else {
            found[k].field
        };
        let mut scratch = ActionOut::new(dev.serial(), "", "");
        // No sleep before typing: `input tap` returns once the app has handled the touch
        // (AOSP InputShellCommand injects with INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH), so
        // the field has taken focus, and `input text` delivers its keys to the focused view
        // the same way.
        press_node(&ctx, &dev, &tree, field, GestureKind::Tap, &mut scratch).await?;
        if let Some(w) = scratch.warning {
            warnings.push(w);
        }
        if k == 0 {
            out.point = scratch.point;
        }
        let before = tree.node(field).map(|n| n.text.clone()).unwrap_or_default();
        // A kept password (a task replaying what a person typed) goes in only once the screen
        // shows the password field focused: were the tap to miss (an overlay, a form that
        // moved), the text would go into whatever field has the focus, where the agent running
        // the task could read it (and a clear would empty that field).
        if ctx.typed.is_kept(e.slot) {
            let now = dump_fresh(&ctx, &dev).await?;
            if now.focused_field_is_password() != Some(true) {
                return Err(ToolError::refused(format!(
                    "{}: a kept password, and the focused field is no password field after the tap; nothing more was typed",
                    entries_name(e.slot)
                )));
            }
        }
        if e.clear {
            clear(&ctx, &dev, &tree, field).await?;
        }
        ctx.sh_ok(&dev, &e.escaped).await?;
        typed.push((k, Arc::clone(&tree), field, before));
    }
    // The read-back waits for idle itself, and is this action's settle dump: the screen sent
    // back (returnScreen) and the next read, while nothing else is sent.
    let after = dump_settled(&ctx, &dev).await?;
    let after_shown = as_shown(&ctx, UiTree::clone(&after));
    let single = entries.len() == 1;
    let mut all_ok = Some(true);
    typed.sort_by_key(|t| t.0);
    for (k, on, field, before) in &typed {
        let e = &entries[*k];
        let found = same_field(on, *field, &after);
        let now = found.and_then(|f| after.node(f));
        let shown = found.and_then(|f| after_shown.node(f));
        let c = check_field(e, before, now, shown);
        all_ok = match (all_ok, c.ok) {
            (Some(a), Some(b)) => Some(a && b),
            _ => None,
        };
        if single {
            out.field_text = c.field_text;
            warnings.extend(c.warning);
        } else if let Some(w) = c.warning {
            warnings.push(format!("{}: {w}", entries_name(e.slot)));
        }
    }
    out.verified = all_ok;
    if !warnings.is_empty() {
        out.warning = Some(warnings.join("; "));
    }
    if a.submit {
        ctx.sh_ok(&dev, &format!("input keyevent {ENTER}")).await?;
    }
    finish(&ctx, &dev, out, a.return_screen).await
}

/// How a field is named in errors and warnings: by its place in the call.
fn entries_name(slot: usize) -> String {
    match slot {
        0 => "the first field".into(),
        i => format!("fields[{}]", i - 1),
    }
}
