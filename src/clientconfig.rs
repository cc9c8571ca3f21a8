//! Ready-to-paste client configuration for the running instance, in each client's own format.
//! The stdio form names the relay and the endpoint descriptor, never the token.
use std::path::Path;

use serde_json::json;

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

fn pretty(v: serde_json::Value) -> String {
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The stdio configuration: `exe relay DESCRIPTOR`. Contains no credential.
pub fn stdio(client: Client, exe: &Path, descriptor: &Path) -> String {
    let exe = exe.display().to_string();
    let args = vec!["relay".to_string(), descriptor.display().to_string()];
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

/// The HTTP configuration. This one carries the token: say so where it is shown.
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
            "[mcp_servers.{NAME}]\nurl = {}\nhttp_headers = {{ Authorization = {} }}\n",
            toml_str(url),
            toml_str(&auth)
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
    fn stdio_has_no_token_and_http_has_it() {
        for c in Client::ALL {
            let s = stdio(
                c,
                Path::new("/usr/bin/spock-tui"),
                Path::new("/run/x/endpoint.json"),
            );
            assert!(
                s.contains("relay") && s.contains("/run/x/endpoint.json"),
                "{s}"
            );
            let h = http(c, "http://127.0.0.1:9/mcp", "sekret");
            assert!(
                h.contains("Bearer sekret") && h.contains("http://127.0.0.1:9/mcp"),
                "{h}"
            );
        }
        let codex = http(Client::Codex, "http://127.0.0.1:9/mcp", "t");
        assert!(codex.parse::<toml::Table>().is_ok(), "{codex}");
        let codex = stdio(Client::Codex, Path::new("/a b/spock"), Path::new("/e.json"));
        assert!(codex.parse::<toml::Table>().is_ok(), "{codex}");
    }
}
