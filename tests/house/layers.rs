//! The layers of the workspace (ARCHITECTURE.md) are kept by the manifests: a crate cannot use
//! what its `[dependencies]` do not name. These checks fail when someone names it: a terminal or
//! HTTP server crate in `spock-core`, rmcp's transports in the core, or anything of ours in
//! `spock-sim`.
use toml::Table;

fn manifest(rel: &str) -> Table {
    let path = spock_tui::testdata::repo_root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.parse()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn deps<'a>(m: &'a Table, section: &str) -> Vec<&'a str> {
    m.get(section)
        .and_then(|d| d.as_table())
        .map(|t| t.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// `rmcp`'s features as the workspace declares them plus what a member adds.
fn rmcp_features(root: &Table, member: &Table) -> Vec<String> {
    let list = |v: Option<&toml::Value>| -> Vec<String> {
        v.and_then(|v| v.get("features"))
            .and_then(|f| f.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let ws = root
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.get("rmcp"));
    let own = member.get("dependencies").and_then(|d| d.get("rmcp"));
    let mut all = list(ws);
    all.extend(list(own));
    all
}

#[test]
fn the_core_names_no_terminal_and_no_http_server() {
    let core = manifest("crates/spock-core/Cargo.toml");
    let names = deps(&core, "dependencies");
    assert!(names.contains(&"rmcp"), "{names:?}");
    for banned in [
        "ratatui",
        "ratatui-textarea",
        "crossterm",
        "axum",
        "hyper",
        "hyper-util",
        "tower",
        "spock-tui",
    ] {
        assert!(
            !names.contains(&banned),
            "spock-core depends on {banned}: that belongs to the spock-tui package"
        );
    }
    let features = rmcp_features(&manifest("Cargo.toml"), &core);
    assert!(features.iter().any(|f| f == "server"), "{features:?}");
    for f in &features {
        assert!(
            !f.starts_with("transport-"),
            "spock-core takes rmcp's {f}: the transports are the spock-tui package's"
        );
    }
}

#[test]
fn the_sim_imports_nothing_of_ours() {
    let sim = manifest("crates/spock-sim/Cargo.toml");
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        for name in deps(&sim, section) {
            assert!(
                !name.starts_with("spock-"),
                "spock-sim's {section} name {name}: the virtual device stands alone"
            );
        }
    }
}

#[test]
fn every_package_is_a_workspace_member() {
    let root = manifest("Cargo.toml");
    let members: Vec<&str> = root["workspace"]["members"]
        .as_array()
        .expect("workspace.members")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    let dir = spock_tui::testdata::repo_root().join("crates");
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        if entry.path().join("Cargo.toml").is_file() {
            let name = format!("crates/{}", entry.file_name().to_string_lossy());
            assert!(
                members.contains(&name.as_str()),
                "{name} is not in {members:?}"
            );
        }
    }
    // `cargo test` at the root runs them all: the default members are every member.
    let defaults: Vec<&str> = root["workspace"]["default-members"]
        .as_array()
        .expect("workspace.default-members")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(defaults, members);
}

/// The audit trail and the configuration sit below the MCP core: what they share with it
/// (`Level`, `Transport`, `Outcome`, `Decision`, `AccessSettings`) is in `spock_core::model`,
/// so neither imports `mcp` (the cycles `audit → mcp` and `config → mcp` stay gone). Their
/// test modules may.
#[test]
fn audit_and_config_do_not_import_the_mcp_core() {
    let src = spock_tui::testdata::repo_root().join("crates/spock-core/src");
    let mut files = vec![src.join("audit.rs"), src.join("config.rs")];
    for dir in ["audit", "config"] {
        for e in std::fs::read_dir(src.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tests.rs") {
                files.push(p);
            }
        }
    }
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        // Up to a file's own test module.
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("crate::mcp") {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// Every `.rs` file at `rel` (a file) or under it (a directory, recursively).
fn rust_files(rel: &str) -> Vec<std::path::PathBuf> {
    let root = spock_tui::testdata::repo_root().join(rel);
    if root.is_file() {
        return vec![root];
    }
    let mut out = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out
}

/// Lines of code (comments cut) in `files` that name any of `banned`.
fn naming(files: &[std::path::PathBuf], banned: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // A whole path segment: `crate::cli` is not `crate::clientconfig`.
            let names = |b: &str| {
                code.match_indices(b).any(|(at, _)| {
                    !code[at + b.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            };
            if banned.iter().any(|b| names(b)) {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

/// `cli` parses, `app` wires, `tui` runs: the command line imports neither the wiring nor the
/// control centre (no cycle `cli ↔ app/tui`), and the control centre never sees the command
/// line, so the run flags (`RunArgs`) stop at the wiring.
#[test]
fn cli_parses_app_wires_tui_runs() {
    let cli = naming(
        &rust_files("src/cli.rs"),
        &[
            "crate::app",
            "crate::tui",
            "super::app",
            "super::tui",
            "spock_tui::",
        ],
    );
    assert!(cli.is_empty(), "src/cli.rs reaches past parsing: {cli:#?}");
    let mut tui = rust_files("src/tui.rs");
    tui.extend(rust_files("src/tui"));
    assert!(tui.len() > 10, "{tui:?}");
    let tui = naming(&tui, &["crate::cli", "RunArgs"]);
    assert!(
        tui.is_empty(),
        "the control centre sees the command line: {tui:#?}"
    );
    // The entry point is the wiring's: `main.rs` calls `app`, not `cli`.
    let main = naming(&rust_files("src/main.rs"), &["cli::"]);
    assert!(main.is_empty(), "{main:#?}");
}

/// The attach protocol owns its types (issue 35): `protocol` imports nothing of the control
/// centre, the transports or the wiring; the transports (the control server included) import
/// nothing of the control centre or the wiring; and the control centre reaches the server only
/// through the protocol and the socket's location, never the server's internals (its sessions,
/// its Batch performer, its command handlers, the controller's handle) nor the wiring.
#[test]
fn the_protocol_sits_below_the_control_centre_and_the_server() {
    let files = |rels: &[&str]| -> Vec<std::path::PathBuf> {
        rels.iter().flat_map(|r| rust_files(r)).collect()
    };
    let protocol = files(&["src/protocol.rs", "src/protocol"]);
    assert!(protocol.len() >= 3, "{protocol:?}");
    let found = naming(
        &protocol,
        &["crate::tui", "crate::transport", "crate::app", "crate::cli"],
    );
    assert!(found.is_empty(), "the protocol reaches up: {found:#?}");

    let transport = files(&["src/transport.rs", "src/transport"]);
    let found = naming(&transport, &["crate::tui", "crate::app", "crate::cli"]);
    assert!(
        found.is_empty(),
        "the transports reach the control centre or the wiring: {found:#?}"
    );

    let tui = files(&["src/tui.rs", "src/tui"]);
    let found = naming(
        &tui,
        &[
            "crate::app",
            "control::session",
            "control::batch_io",
            "control::commands",
            "transport::switch",
        ],
    );
    assert!(
        found.is_empty(),
        "the control centre reaches the server's internals or the wiring: {found:#?}"
    );
}

/// The binary's import graph, file by file: `src/a/b.rs` is module `a::b` (`src/a.rs` is `a`);
/// an arrow runs from a file to every module file its code names through `crate::`, `super::`
/// or `self::` (in `use` trees and in paths written inline), to the longest prefix that is a
/// file. `mod` lines, comments and test modules (from `#[cfg(test)]` on) draw nothing.
fn import_graph(root: &str) -> std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>> {
    let base = spock_tui::testdata::repo_root().join(root);
    let mut modules = std::collections::BTreeMap::new();
    for f in rust_files(root) {
        let rel = f.strip_prefix(&base).unwrap().with_extension("");
        let path: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into()).collect();
        if path == ["main"] {
            continue; // its own crate
        }
        let path = if path == ["lib"] { vec![] } else { path };
        // A module's test module (`x/tests.rs`) is no part of the layering.
        if path.last().is_some_and(|l| l == "tests") {
            continue;
        }
        modules.insert(path, f);
    }
    let mut graph = std::collections::BTreeMap::new();
    for (me, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let mut paths = Vec::new();
        let mut rest = code.as_str();
        let mut inline = String::new();
        // `use` trees, expanded; the rest of the text is searched for inline paths.
        while let Some(at) = find_use(rest) {
            inline.push_str(&rest[..at]);
            let end = rest[at..].find(';').map_or(rest.len(), |e| at + e);
            paths.extend(expand_use(rest[at + 4..end].trim()));
            rest = &rest[(end + 1).min(rest.len())..];
        }
        inline.push_str(rest);
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        // A child module is named by its own name too (`batch::Batch` in `screen.rs`).
        let children: Vec<String> = code
            .lines()
            .filter_map(|l| {
                let l = l
                    .trim()
                    .trim_start_matches("pub ")
                    .trim_start_matches("mod ");
                let name = l.strip_suffix(';')?;
                let child: Vec<String> = me.iter().cloned().chain([name.to_string()]).collect();
                modules.contains_key(&child).then(|| name.to_string())
            })
            .collect();
        let heads: Vec<String> = ["crate::", "super::", "self::"]
            .iter()
            .map(|h| h.to_string())
            .chain(children.iter().map(|c| format!("{c}::")))
            .collect();
        for head in &heads {
            let start = head.as_str();
            for (at, _) in inline.match_indices(start) {
                if at > 0 && (inline[..at].ends_with(ident) || inline[..at].ends_with("::")) {
                    continue;
                }
                let tail: String = inline[at..]
                    .chars()
                    .take_while(|c| ident(*c) || *c == ':')
                    .collect();
                let child = !["crate::", "super::", "self::"].contains(&start);
                paths.push(if child { format!("self::{tail}") } else { tail });
            }
        }
        let mut to = std::collections::BTreeSet::new();
        for p in paths {
            let segs: Vec<&str> = p.split("::").filter(|s| !s.is_empty()).collect();
            let mut at: Vec<String> = me.clone();
            let mut segs = segs.as_slice();
            match segs.first() {
                Some(&"crate") => {
                    at.clear();
                    segs = &segs[1..];
                }
                Some(&"self") => segs = &segs[1..],
                Some(&"super") => {
                    while segs.first() == Some(&"super") {
                        at.pop();
                        segs = &segs[1..];
                    }
                }
                _ => continue, // another crate's path
            }
            at.extend(segs.iter().map(|s| s.to_string()));
            while !at.is_empty() && !modules.contains_key(&at) {
                at.pop();
            }
            if !at.is_empty() && at != *me {
                to.insert(at);
            }
        }
        graph.insert(me.clone(), to.into_iter().collect());
    }
    graph
}

/// The next `use` item's start (after `use ` or `pub use `, `pub(crate) use `…) in `code`.
fn find_use(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let at = from + at;
        let before = code[..at].trim_end_matches([' ', '\t']);
        let line_start = before.is_empty()
            || before.ends_with('\n')
            || before.ends_with(';')
            || before.ends_with('{')
            || before.ends_with('}')
            || before.ends_with("pub")
            || before.ends_with(')');
        if line_start
            && (at == 0 || !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// `a::{b, c::{d, self}}` as `a::b`, `a::c::d`, `a::c`.
fn expand_use(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(open) = tree.find('{') else {
        let one = tree.split(" as ").next().unwrap_or("").trim();
        return vec![one.trim_end_matches("::self").to_string()];
    };
    let prefix = &tree[..open];
    let mut depth = 0;
    let mut items = Vec::new();
    let mut cur = String::new();
    for c in tree[open + 1..].chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    items.push(cur);
    items
        .iter()
        .map(|i| i.trim())
        .filter(|i| !i.is_empty())
        .flat_map(|i| {
            if i == "self" {
                vec![prefix.trim_end_matches("::").to_string()]
            } else {
                expand_use(&format!("{prefix}{i}"))
            }
        })
        .collect()
}

/// The import circles of `graph` (strongly connected components of more than one file).
fn circles(
    graph: &std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>>,
) -> Vec<Vec<Vec<String>>> {
    // Kosaraju: finish order on the graph, then components on the reversed graph.
    let nodes: Vec<&Vec<String>> = graph.keys().collect();
    let index = |m: &Vec<String>| nodes.iter().position(|n| *n == m);
    let mut order = Vec::new();
    let mut seen = vec![false; nodes.len()];
    for start in 0..nodes.len() {
        if seen[start] {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        seen[start] = true;
        while let Some((n, i)) = stack.pop() {
            let out = &graph[nodes[n]];
            if i < out.len() {
                stack.push((n, i + 1));
                if let Some(m) = index(&out[i])
                    && !seen[m]
                {
                    seen[m] = true;
                    stack.push((m, 0));
                }
            } else {
                order.push(n);
            }
        }
    }
    let mut back = vec![Vec::new(); nodes.len()];
    for (from, tos) in graph {
        for to in tos {
            if let (Some(f), Some(t)) = (index(from), index(to)) {
                back[t].push(f);
            }
        }
    }
    let mut comp = vec![usize::MAX; nodes.len()];
    let mut out = Vec::new();
    for &n in order.iter().rev() {
        if comp[n] != usize::MAX {
            continue;
        }
        let id = out.len();
        let mut members = Vec::new();
        let mut stack = vec![n];
        comp[n] = id;
        while let Some(x) = stack.pop() {
            members.push(nodes[x].clone());
            for &y in &back[x] {
                if comp[y] == usize::MAX {
                    comp[y] = id;
                    stack.push(y);
                }
            }
        }
        out.push(members);
    }
    out.into_iter().filter(|c| c.len() > 1).collect()
}

/// The folder a module file stands in: `tui/ui/modal` and `tui/ui` (the folder's own file,
/// `tui/ui.rs`) are both in `tui/ui`; `tui/state` is in `tui`.
fn folder(
    m: &[String],
    graph: &std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>>,
) -> Vec<String> {
    let has_children = graph
        .keys()
        .any(|k| k.len() == m.len() + 1 && k.starts_with(m));
    if has_children {
        m.to_vec()
    } else {
        m[..m.len().saturating_sub(1)].to_vec()
    }
}

/// Issue 35: no import circle in the binary's code crosses folders (the control centre's
/// screens, its drawing and its state each stand on their own floor), and the graph this
/// reads is the real one (it finds the arrows every file is known to have).
#[test]
fn no_import_circle_crosses_folders() {
    let graph = import_graph("src");
    let m = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    // The reader sees what is there: a `use` tree, an inline path, a `super::super`.
    for (from, to) in [
        ("tui/update", "tui/state"),
        ("tui/ui/modal", "tui/state"),
        ("app/local", "tui"),
        ("tui/attach/link", "protocol"),
    ] {
        assert!(
            graph[&m(from)].contains(&m(to)),
            "{from} -> {to} not read: {:?}",
            graph[&m(from)]
        );
    }
    check_no_circle_across_folders(&graph);
}

/// Issue 36: the same in the core, where the 34-file circle through `batch`, `mcp` and
/// `mcp/tools` was. Two circles inside one top-level module are left, and only these: the
/// guard's evaluator (`guard`, `guard/eval` and the command rules call one another, as a shell
/// interpreter's parts do) and the audit trail's verification (`audit/chain` asks
/// `audit/anchor/check`, which reads the chain's constants). Any other circle across folders,
/// or one of these reaching past its module, fails.
#[test]
fn no_import_circle_crosses_folders_in_the_core() {
    let graph = import_graph("crates/spock-core/src");
    let m = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    // The reader sees the core's arrows (a `use` tree, `super::super`, a child module).
    for (from, to) in [
        ("mcp/server", "mcp/ctx"),
        ("mcp/elicit/rounds", "mcp/ctx"),
        ("batch/runner", "batch/stay_on"),
        ("mcp/tools/actions", "mcp/tools/acted"),
    ] {
        assert!(
            graph[&m(from)].contains(&m(to)),
            "{from} -> {to} not read: {:?}",
            graph[&m(from)]
        );
    }
    let inside = |c: &Vec<Vec<String>>, top: &str| c.iter().all(|x| x[0] == top);
    let left: Vec<_> = circles(&graph)
        .into_iter()
        .filter(|c| !inside(c, "guard") && !inside(c, "audit"))
        .collect();
    // The graph of the other circles' members alone, checked as the binary's is.
    let members: std::collections::BTreeSet<&Vec<String>> = left.iter().flatten().collect();
    let sub: std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>> = graph
        .iter()
        .filter(|(k, _)| members.contains(k))
        .map(|(k, v)| {
            let v = v.iter().filter(|t| members.contains(t)).cloned().collect();
            (k.clone(), v)
        })
        .collect();
    check_no_circle_across_folders(&sub);
}

fn check_no_circle_across_folders(
    graph: &std::collections::BTreeMap<Vec<String>, Vec<Vec<String>>>,
) {
    let crossing: Vec<String> = circles(graph)
        .into_iter()
        .filter(|c| {
            let f = folder(&c[0], graph);
            c.iter().any(|x| folder(x, graph) != f)
        })
        .map(|c| {
            // The circle's arrows, so the failure says what to cut.
            let mut arrows = Vec::new();
            for from in &c {
                for to in &graph[from] {
                    if c.contains(to) {
                        arrows.push(format!("{} -> {}", from.join("/"), to.join("/")));
                    }
                }
            }
            arrows.join("; ")
        })
        .collect();
    assert!(
        crossing.is_empty(),
        "import circles across folders: {crossing:#?}"
    );
}
