//! Ready-to-paste client configuration for the running instance, in each client's own format,
//! and where each client keeps it. The stdio form names the relay and the endpoint descriptor,
//! never the token; Codex's HTTP form reads the token from the environment.
use std::path::Path;

use serde_json::json;

use crate::mcp::toolsets::Selection;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    Generic,
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    Vscode,
    Codex,
    Gemini,
}

impl Client {
    pub const ALL: [Client; 7] = [
        Client::Generic,
        Client::ClaudeCode,
        Client::ClaudeDesktop,
        Client::Cursor,
        Client::Vscode,
        Client::Codex,
        Client::Gemini,
    ];
    pub fn label(self) -> &'static str {
        match self {
            Client::Generic => "generic (mcpServers JSON)",
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Codex => "Codex",
            Client::Gemini => "Gemini CLI",
        }
    }
}

const NAME: &str = "spock-tui";

/// The variable Codex's HTTP configuration reads the token from (`bearer_token_env_var`).
pub const TOKEN_ENV: &str = "SPOCK_TUI_TOKEN";

/// Why `client` cannot take the HTTP configuration at all, when it cannot.
pub fn http_refusal(client: Client) -> Option<&'static str> {
    match client {
        Client::ClaudeDesktop => Some(
            "Claude Desktop's claude_desktop_config.json only launches stdio servers (a command \
             and its arguments) and rejects a URL; use `spock-tui config --stdio --client \
             claude-desktop`",
        ),
        _ => None,
    }
}

/// Where `client`'s configuration goes on `os` (`std::env::consts::OS`), as an instruction.
pub fn destination(client: Client, os: &str) -> String {
    match client {
        Client::Generic => {
            "merge this into the \"mcpServers\" object of your client's MCP configuration file"
                .into()
        }
        Client::ClaudeCode => "run this in a shell: Claude Code keeps it in ~/.claude.json \
             (add --scope project to share it in the project's .mcp.json instead)"
            .into(),
        Client::ClaudeDesktop => format!(
            "merge this into {} and restart Claude Desktop",
            match os {
                "macos" => "~/Library/Application Support/Claude/claude_desktop_config.json",
                "windows" => "%APPDATA%\\Claude\\claude_desktop_config.json",
                _ => "~/.config/Claude/claude_desktop_config.json",
            }
        ),
        Client::Cursor => "merge this into ~/.cursor/mcp.json (every project) or .cursor/mcp.json \
             (this project)"
            .into(),
        Client::Vscode => "merge this into .vscode/mcp.json in the workspace (or the profile's \
             mcp.json: \"MCP: Open User Configuration\")"
            .into(),
        Client::Codex => "add this to ~/.codex/config.toml".into(),
        Client::Gemini => "merge this into ~/.gemini/settings.json (or .gemini/settings.json in \
             the project)"
            .into(),
    }
}

fn pretty(v: serde_json::Value) -> String {
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The relay's words: `relay DESCRIPTOR [--toolsets a,b]`.
fn relay_args(descriptor: &Path, toolsets: Option<&Selection>) -> Vec<String> {
    let mut args = vec!["relay".to_string(), descriptor.display().to_string()];
    if let Some(t) = toolsets {
        args.extend(["--toolsets".to_string(), t.label()]);
    }
    args
}

/// The HTTP endpoint asking for `toolsets` (`…/mcp?toolsets=core,apps`).
pub fn with_toolsets(url: &str, toolsets: Option<&Selection>) -> String {
    match toolsets {
        Some(t) => format!("{url}?toolsets={}", t.label()),
        None => url.to_string(),
    }
}

/// The stdio configuration: `exe relay DESCRIPTOR [--toolsets a,b]`. Contains no credential.
pub fn stdio(
    client: Client,
    exe: &Path,
    descriptor: &Path,
    toolsets: Option<&Selection>,
) -> String {
    let exe = exe.display().to_string();
    stdio_command(client, exe, relay_args(descriptor, toolsets))
}

/// The stdio configuration for a client on another machine: `ssh -T HOST exe relay DESCRIPTOR`.
/// `-T`: no pty (a pty corrupts the stream; `relay` refuses one). `BatchMode=yes`: a missing
/// key fails at once instead of waiting at a password prompt nobody sees.
pub fn stdio_over_ssh(
    client: Client,
    host: &str,
    exe: &Path,
    descriptor: &Path,
    toolsets: Option<&Selection>,
) -> Result<String, String> {
    if host.is_empty()
        || host.starts_with('-')
        || host.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(format!(
            "{host:?} is not an SSH host: give a name or user@name (as in ~/.ssh/config), not an option"
        ));
    }
    // ssh joins its remote words with spaces for the remote shell: quote them once, here.
    let remote = shell_words::join(
        std::iter::once(exe.display().to_string()).chain(relay_args(descriptor, toolsets)),
    );
    let args = ["-T", "-o", "BatchMode=yes", host, remote.as_str()]
        .map(String::from)
        .to_vec();
    Ok(stdio_command(client, "ssh".to_string(), args))
}

fn stdio_command(client: Client, exe: String, args: Vec<String>) -> String {
    match client {
        Client::ClaudeCode => format!(
            "claude mcp add --transport stdio {NAME} -- {} {}",
            shell_words::quote(&exe),
            args.iter()
                .map(|a| shell_words::quote(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Client::Vscode => pretty(
            json!({ "servers": { NAME: { "type": "stdio", "command": exe, "args": args } } }),
        ),
        Client::Codex => format!(
            "[mcp_servers.{NAME}]\ncommand = {}\nargs = [{}]\n",
            toml_str(&exe),
            args.iter()
                .map(|a| toml_str(a))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Client::Generic | Client::ClaudeDesktop | Client::Cursor | Client::Gemini => {
            pretty(json!({ "mcpServers": { NAME: { "command": exe, "args": args } } }))
        }
    }
}

/// The HTTP configuration. It carries the token (say so where it is shown), except Codex's,
/// which names [`TOKEN_ENV`] instead. Claude Desktop cannot take one: see [`http_refusal`].
pub fn http(client: Client, url: &str, token: &str) -> String {
    let auth = format!("Bearer {token}");
    match client {
        Client::ClaudeCode => format!(
            "claude mcp add --transport http {NAME} {url} --header {}",
            shell_words::quote(&format!("Authorization: {auth}"))
        ),
        Client::Vscode => pretty(
            json!({ "servers": { NAME: { "type": "http", "url": url, "headers": { "Authorization": auth } } } }),
        ),
        Client::Codex => format!(
            "[mcp_servers.{NAME}]\nurl = {}\nbearer_token_env_var = {}\n",
            toml_str(url),
            toml_str(TOKEN_ENV)
        ),
        Client::Gemini => pretty(
            json!({ "mcpServers": { NAME: { "httpUrl": url, "headers": { "Authorization": auth } } } }),
        ),
        Client::Generic | Client::ClaudeDesktop | Client::Cursor => pretty(
            json!({ "mcpServers": { NAME: { "type": "http", "url": url, "headers": { "Authorization": auth } } } }),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_over_ssh_runs_relay_remotely_without_a_pty() {
        let s = stdio_over_ssh(
            Client::Generic,
            "me@lab",
            Path::new("/opt/my tools/spock-tui"),
            Path::new("/run/user/1000/spock-tui/endpoint.json"),
            None,
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        let server = &v["mcpServers"][NAME];
        assert_eq!(server["command"], "ssh");
        let args: Vec<&str> = server["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert_eq!(&args[..4], ["-T", "-o", "BatchMode=yes", "me@lab"]);
        // The remote shell splits the last word back into exactly the three words.
        assert_eq!(
            shell_words::split(args[4]).unwrap(),
            [
                "/opt/my tools/spock-tui",
                "relay",
                "/run/user/1000/spock-tui/endpoint.json"
            ]
        );
        let cc = stdio_over_ssh(
            Client::ClaudeCode,
            "lab",
            Path::new("/s"),
            Path::new("/e"),
            None,
        )
        .unwrap();
        let words = shell_words::split(&cc).unwrap();
        let cmd = words.iter().position(|w| w == "--").unwrap() + 1;
        assert_eq!(
            words[cmd..],
            ["ssh", "-T", "-o", "BatchMode=yes", "lab", "/s relay /e"],
            "{cc}"
        );
        for bad in ["-oProxyCommand=touch /tmp/x", "", "a b", "lab\n"] {
            assert!(
                stdio_over_ssh(Client::Generic, bad, Path::new("/s"), Path::new("/e"), None)
                    .is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn stdio_has_no_token_and_http_has_it() {
        for c in Client::ALL {
            let s = stdio(
                c,
                Path::new("/usr/bin/spock-tui"),
                Path::new("/run/x/endpoint.json"),
                None,
            );
            assert!(
                s.contains("relay") && s.contains("/run/x/endpoint.json"),
                "{s}"
            );
            let h = http(c, "http://127.0.0.1:9/mcp", "sekret");
            assert!(h.contains("http://127.0.0.1:9/mcp"), "{h}");
            assert_eq!(h.contains("Bearer sekret"), c != Client::Codex, "{h}");
        }
        let codex = http(Client::Codex, "http://127.0.0.1:9/mcp", "t");
        let table = codex.parse::<toml::Table>().expect(&codex);
        assert_eq!(
            table["mcp_servers"]["spock-tui"]["bearer_token_env_var"].as_str(),
            Some(TOKEN_ENV)
        );
        let codex = stdio(
            Client::Codex,
            Path::new("/a b/spock"),
            Path::new("/e.json"),
            None,
        );
        assert!(codex.parse::<toml::Table>().is_ok(), "{codex}");
    }

    #[test]
    fn a_client_can_be_given_its_toolsets() {
        let sel = Selection::parse("apps,files").unwrap();
        let s = stdio(
            Client::Generic,
            Path::new("/s"),
            Path::new("/e"),
            Some(&sel),
        );
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        assert_eq!(
            v["mcpServers"][NAME]["args"],
            json!(["relay", "/e", "--toolsets", "core,apps,files"])
        );
        let ssh = stdio_over_ssh(
            Client::Generic,
            "lab",
            Path::new("/s"),
            Path::new("/e"),
            Some(&Selection::all()),
        )
        .unwrap();
        assert!(ssh.contains("/s relay /e --toolsets all"), "{ssh}");
        assert_eq!(
            with_toolsets("http://127.0.0.1:9/mcp", Some(&sel)),
            "http://127.0.0.1:9/mcp?toolsets=core,apps,files"
        );
        assert_eq!(with_toolsets("http://h/mcp", None), "http://h/mcp");
    }

    #[test]
    fn every_client_is_told_where_its_configuration_goes() {
        for c in Client::ALL {
            assert!(!destination(c, "linux").is_empty());
        }
        let desktop = |os| destination(Client::ClaudeDesktop, os);
        assert!(desktop("macos").contains("Library/Application Support/Claude/"));
        assert!(desktop("windows").contains("%APPDATA%"));
        assert!(desktop("linux").contains("~/.config/Claude/claude_desktop_config.json"));
        assert!(http_refusal(Client::ClaudeDesktop).is_some_and(|r| r.contains("--stdio")));
        assert!(http_refusal(Client::Cursor).is_none());
    }
}
