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
