//! The screen each client was last sent, per device, so the next one can be sent as what
//! changed (`returnScreen`). A screen is lines (`rev …`, then one node per line); the next
//! one goes out as its changes (lines new or different, ids gone; every other line as it was)
//! when that is at least a quarter shorter:
//!
//! ```text
//! rev 3bc935e6290d, changes since bbfed42f1954:
//! n11 button 'Add another'
//! n15 button 'View cart' #view_cart
//! gone: n12
//! ```
//!
//! A line "as it was" is byte for byte a line of the named earlier screen, id included, so the
//! agent's picture is exact, never inferred. Only a client with its own connection (stdio, a
//! 2025-era HTTP session) gets changes: a stateless 2026-07-28 request cannot be told from
//! another client's, so it always gets the whole screen, as does the control centre.
use std::collections::HashMap;
use std::sync::Mutex;

/// Most (client, device) pairs remembered; past it the oldest half is forgotten (those
/// clients get one whole screen next).
const MAX_ENTRIES: usize = 512;

#[derive(Debug, Default)]
pub struct ShownScreens {
    map: Mutex<HashMap<(String, String), Shown>>,
    tick: std::sync::atomic::AtomicU64,
}

#[derive(Debug)]
struct Shown {
    rev: String,
    lines: Vec<String>,
    at: u64,
}

impl ShownScreens {
    /// What to send `client` (None: always the whole screen) for `device`'s screen `full`
    /// ([`crate::uitree::UiTree::to_lines`]), remembering it as what that client now has.
    pub fn render(&self, client: Option<&str>, device: &str, full: String) -> String {
        let Some(client) = client else {
            return full;
        };
        let mut it = full.lines();
        let head = it.next().unwrap_or_default().to_string();
        let lines: Vec<String> = it.map(str::to_string).collect();
        let Some(rev) = head.strip_prefix("rev ").map(str::to_string) else {
            return full;
        };
        let at = self.tick.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let key = (client.to_string(), device.to_string());
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let prev = map.remove(&key);
        let cut = rev.contains(' ');
        let out = match prev {
            Some(p) if !cut && !p.rev.contains(' ') => changes(&p, &rev, &lines, &full),
            _ => full,
        };
        if map.len() >= MAX_ENTRIES {
            let mut ages: Vec<u64> = map.values().map(|s| s.at).collect();
            ages.sort_unstable();
            let median = ages[ages.len() / 2];
            map.retain(|_, s| s.at > median);
        }
        map.insert(key, Shown { rev, lines, at });
        out
    }

    /// `client` was shown `device`'s screen another way (`android_get_ui_tree`): the next
    /// screen goes out whole.
    pub fn forget(&self, client: Option<&str>, device: &str) {
        if let Some(client) = client {
            let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
            map.remove(&(client.to_string(), device.to_string()));
        }
    }
}

fn id_of(line: &str) -> &str {
    line.split(' ').next().unwrap_or_default()
}

/// The changes from `prev` to the screen `rev`/`lines`, or `full` when they are not at least a
/// quarter shorter.
fn changes(prev: &Shown, rev: &str, lines: &[String], full: &str) -> String {
    if prev.lines == lines {
        return format!("rev {rev}, as {}: no change", prev.rev);
    }
    let had: std::collections::HashSet<&str> = prev.lines.iter().map(String::as_str).collect();
    let ids: std::collections::HashSet<&str> = lines.iter().map(|l| id_of(l)).collect();
    let mut s = format!("rev {rev}, changes since {}:", prev.rev);
    for l in lines.iter().filter(|l| !had.contains(l.as_str())) {
        s.push('\n');
        s.push_str(l);
    }
    let gone: Vec<&str> = prev
        .lines
        .iter()
        .map(|l| id_of(l))
        .filter(|id| !ids.contains(id))
        .collect();
    if !gone.is_empty() {
        s.push_str("\ngone: ");
        s.push_str(&gone.join(" "));
    }
    if s.len() * 4 <= full.len() * 3 {
        s
    } else {
        full.to_string()
    }
}

/// Who a screen is sent to, for sending the next one as changes: a client with its own
/// connection; `None` (always whole screens) for stateless requests and the control centre.
pub fn shown_key(ctx: &crate::mcp::ctx::Ctx) -> Option<&str> {
    ctx.origin
        .session
        .as_ref()
        .filter(|s| !s.is_stateless())
        .map(|s| s.key())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DETAIL: &str = "rev aaa\nn6 button 'Back'\nn7 button 'Product photo' long-click\nn8 'Espresso Machine'\nn9 '$249.00'\nn10 'Product #42'\nn11 button 'Add to cart'\nn12 'Free delivery'";
    const ADDED: &str = "rev bbb\nn6 button 'Back'\nn7 button 'Product photo' long-click\nn8 'Espresso Machine'\nn9 '$249.00'\nn10 'Product #42'\nn11 button 'Add another'\nn14 'Added to cart'\nn15 button 'View cart' #view_cart";

    /// Rebuild the screen an agent holds from the earlier screen and the changes.
    fn apply(prev: &str, sent: &str) -> Vec<String> {
        if sent.ends_with(": no change") {
            return prev.lines().skip(1).map(str::to_string).collect();
        }
        if !sent.contains(", changes since ") {
            return sent.lines().skip(1).map(str::to_string).collect();
        }
        let mut body: Vec<&str> = sent.lines().skip(1).collect();
        let gone: Vec<String> = match body.last() {
            Some(l) if l.starts_with("gone: ") => {
                let g = l["gone: ".len()..].split(' ').map(str::to_string).collect();
                body.pop();
                g
            }
            _ => Vec::new(),
        };
        let changed: HashMap<&str, &str> = body.iter().map(|l| (id_of(l), *l)).collect();
        let mut out: Vec<String> = Vec::new();
        for l in prev.lines().skip(1) {
            let id = id_of(l);
            if gone.iter().any(|g| g == id) {
                continue;
            }
            out.push(changed.get(id).map_or(l, |c| *c).to_string());
        }
        for l in &body {
            if !prev.lines().any(|p| id_of(p) == id_of(l)) {
                out.push(l.to_string());
            }
        }
        out.sort();
        out
    }

    #[test]
    fn a_client_gets_the_changes_and_can_rebuild_the_screen_exactly() {
        let s = ShownScreens::default();
        assert_eq!(
            s.render(Some("stdio#1"), "d", DETAIL.into()),
            DETAIL,
            "first: whole"
        );
        let sent = s.render(Some("stdio#1"), "d", ADDED.into());
        assert!(sent.starts_with("rev bbb, changes since aaa:"), "{sent}");
        assert!(sent.len() * 4 <= ADDED.len() * 3, "{sent}");
        assert!(
            !sent.contains("'Back'"),
            "unchanged lines are left out: {sent}"
        );
        assert!(sent.ends_with("gone: n12"), "{sent}");
        let mut want: Vec<String> = ADDED.lines().skip(1).map(str::to_string).collect();
        want.sort();
        assert_eq!(apply(DETAIL, &sent), want);
        // Nothing changed: one line.
        let again = s.render(Some("stdio#1"), "d", ADDED.into());
        assert_eq!(again, "rev bbb, as bbb: no change");
    }

    #[test]
    fn whole_screens_where_changes_would_mislead_or_save_nothing() {
        let s = ShownScreens::default();
        // No connection of its own (stateless, the control centre): always whole.
        assert_eq!(s.render(None, "d", DETAIL.into()), DETAIL);
        assert_eq!(s.render(None, "d", ADDED.into()), ADDED);
        // Another client, another device: each has its own picture.
        s.render(Some("a"), "d", DETAIL.into());
        assert_eq!(s.render(Some("b"), "d", ADDED.into()), ADDED);
        assert_eq!(s.render(Some("a"), "e", ADDED.into()), ADDED);
        // A screen that changed wholly goes out whole.
        let other = "rev ccc\nn4 'Your cart'\nn7 button 'Espresso Machine | 2 × $249.00'\nn13 'Total: $517.00'";
        assert_eq!(s.render(Some("a"), "d", other.into()), other);
        // A cut screen is never a base nor sent as changes.
        let cut = "rev ddd (cut)\nn4 'Your cart'\nn7 button 'Espresso Machine | 2 × $249.00'";
        assert_eq!(s.render(Some("a"), "d", cut.into()), cut);
        assert_eq!(s.render(Some("a"), "d", other.into()), other);
        // After a read shown another way, whole again.
        s.forget(Some("a"), "d");
        assert_eq!(s.render(Some("a"), "d", other.into()), other);
    }

    #[test]
    fn a_node_whose_id_now_names_something_else_is_listed() {
        let s = ShownScreens::default();
        let before = "rev aaa\nn1 'A'\nn2 'B'\nn3 'C'\nn4 'D'\nn5 'E'\nn6 'F'\nn7 'G'\nn8 'H'";
        let after = "rev bbb\nn1 'A'\nn2 'C'\nn3 'C'\nn4 'D'\nn5 'E'\nn6 'F'\nn7 'G'\nn8 'H'";
        s.render(Some("a"), "d", before.into());
        let sent = s.render(Some("a"), "d", after.into());
        assert!(sent.contains("\nn2 'C'"), "{sent}");
        let mut want: Vec<String> = after.lines().skip(1).map(str::to_string).collect();
        want.sort();
        assert_eq!(apply(before, &sent), want);
    }

    #[test]
    fn memory_is_bounded() {
        let s = ShownScreens::default();
        for i in 0..(MAX_ENTRIES * 3) {
            s.render(Some(&format!("c{i}")), "d", DETAIL.into());
        }
        assert!(s.map.lock().unwrap().len() <= MAX_ENTRIES);
    }
}
