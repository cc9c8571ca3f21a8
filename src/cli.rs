//! The command line: what `spock-tui` parses (clap), and nothing else. `app` dispatches each
//! subcommand and wires what it needs; this module imports neither `app` nor `tui`
//! (`tests/house/layers.rs` checks it).
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::clientconfig::Client;
use crate::mcp::toolsets::Selection;

#[derive(Parser, Debug)]
#[command(
    name = "spock-tui",
    version,
    about = "Safe, structured, auditable access to Android devices for AI agents over MCP, approved from the terminal",
    after_help = "Without a subcommand, starts the control centre (terminal UI) and serves MCP.",
    // The run flags belong to the control centre (and `serve`), not to every subcommand.
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(flatten)]
    pub run: RunArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct RunArgs {
    /// Run against the built-in virtual device (no phone or adb needed).
    #[arg(long)]
    pub demo: bool,
    /// With --demo: the virtual device's per-command latency, `instant` (default), `phone`
    /// (costs from published phone measurements, optionally `phone:SEED`) or `phone-median`
    /// (each command at its median).
    #[arg(long, value_name = "PROFILE", requires = "demo")]
    pub latency: Option<String>,
    /// An adb server to use, HOST:PORT (repeatable; default ANDROID_ADB_SERVER_PORT or 127.0.0.1:5037).
    #[arg(long = "adb", value_name = "HOST:PORT")]
    pub adb: Vec<String>,
    /// An Android (Gradle) project directory (repeatable; default: found from the working directory).
    #[arg(long = "project", value_name = "DIR")]
    pub project: Vec<PathBuf>,
    /// HTTP port (0 picks a free one); overrides server.port.
    #[arg(long)]
    pub port: Option<u16>,
    /// Address to bind HTTP on. Anything but loopback exposes the endpoint beyond this machine.
    #[arg(long)]
    pub bind: Option<String>,
    /// Lift every tool-access switch for this process only (nothing is written; confirmations stay).
    #[arg(long)]
    pub allow_all: bool,
    /// Toolsets every client is listed besides `core`: a,b or all (overrides server.toolsets).
    #[arg(long, value_name = "a,b|all", value_parser = parse_toolsets)]
    pub toolsets: Option<Selection>,
}

/// `--toolsets`: the names checked here, so a typo stops the command with the list of sets.
fn parse_toolsets(text: &str) -> Result<Selection, String> {
    Selection::parse(text)
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve MCP on both transports without the terminal UI (logs to stderr).
    Serve(RunArgs),
    /// Attach a control centre to the running server (`serve`) from this terminal: follow its
    /// calls and answer its confirmations. `q` detaches; the server keeps serving.
    Attach,
    /// Byte relay between an MCP client's stdio and the running instance (for stdio clients).
    Relay {
        /// The endpoint descriptor (default: the running instance's).
        descriptor: Option<PathBuf>,
        /// Toolsets this client is listed besides `core` and the server's choice: a,b or all.
        #[arg(long, value_name = "a,b|all", value_parser = parse_toolsets)]
        toolsets: Option<Selection>,
    },
    /// Print ready-to-paste client configuration for the running instance.
    Config(ConfigArgs),
    /// Manage the session token.
    Token {
        #[command(subcommand)]
        action: TokenAction,
    },
    /// Check adb, the adb servers, each device, the running instance and file permissions.
    Doctor(DoctorArgs),
    /// Own tools: typed tools declared in TOML (config.toml's `[[tool]]`, `tools.d/*.toml`).
    Tools {
        #[command(subcommand)]
        action: ToolsAction,
    },
    /// The audit trail.
    Audit {
        #[command(subcommand)]
        action: AuditAction,
    },
    /// Run an agent of your own user under bubblewrap, reaching spock-tui only through the
    /// agent's door: spock-tui's files, the adb keys and the adb server's socket hidden, the
    /// rest read-only but the working directory and --rw paths (SECURITY.md).
    Sandbox(SandboxArgs),
    /// Print a shell completion script.
    Completions { shell: clap_complete::Shell },
    /// Start virtual Android devices (adb server and/or adbd over TCP).
    Sim(crate::sim::cli::SimArgs),
}

#[derive(Args, Debug)]
pub struct ConfigArgs {
    /// The stdio configuration (no credential in it).
    #[arg(long, conflicts_with = "http")]
    pub stdio: bool,
    /// The HTTP configuration (contains the token).
    #[arg(long)]
    pub http: bool,
    /// The client to format it for.
    #[arg(long, value_enum, default_value = "generic")]
    pub client: Client,
    /// For a client on another machine: run the relay there over `ssh -T HOST` (stdio only).
    #[arg(long, value_name = "HOST", conflicts_with = "http")]
    pub ssh: Option<String>,
    /// Toolsets this client is listed besides `core`: a,b or all (stdio: a relay argument;
    /// HTTP: `?toolsets=` on the URL).
    #[arg(long, value_name = "a,b|all", value_parser = parse_toolsets)]
    pub toolsets: Option<Selection>,
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// An adb server to check, HOST:PORT (repeatable; default: the running instance's, else
    /// the configured ones, ANDROID_ADB_SERVER_PORT or 127.0.0.1:5037).
    #[arg(long = "adb", value_name = "HOST:PORT")]
    pub adb: Vec<String>,
    /// Capture the connected phone's answers to the commands spock-tui relies on, read-only
    /// and scrubbed of what identifies you or it, into the new directory DIR (for a bug
    /// report; `spock-tui sim --replay DIR` serves it back).
    #[arg(long, value_name = "DIR")]
    pub capture: Option<PathBuf>,
    /// The device to capture, when several are connected.
    #[arg(long, value_name = "SERIAL", requires = "capture")]
    pub serial: Option<String>,
}

#[derive(Args, Debug)]
pub struct SandboxArgs {
    /// Also writable inside (the working directory always is), e.g. the agent's own state:
    /// `--rw ~/.claude --rw ~/.claude.json` (repeatable).
    #[arg(long, value_name = "PATH")]
    pub rw: Vec<PathBuf>,
    /// No network inside (needed while an adb server is on TCP; most agents need their API).
    #[arg(long)]
    pub no_network: bool,
    /// Print the bubblewrap line instead of running it.
    #[arg(long)]
    pub print: bool,
    /// An adb server to keep out of reach, as `--adb` elsewhere (default: the configured ones,
    /// ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT or 127.0.0.1:5037).
    #[arg(long = "adb", value_name = "HOST:PORT|localfilesystem:/PATH")]
    pub adb: Vec<String>,
    /// The agent and its arguments, after `--`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Subcommand, Debug)]
pub enum AuditAction {
    /// Check the hash chain of every audit file; report the first break (file, line, seq).
    /// Exit code 1 on a break, or when the anchors say the trail was tampered with; 2 when the
    /// check could not run (a file unreadable, the anchor log missing).
    Verify {
        /// A syslog file holding the trail's anchors (`audit.anchor` in config.toml): records
        /// deleted from the end, rewritten with the chain recomputed, or the whole file emptied
        /// are caught only against them. `-` reads them from standard input
        /// (`journalctl -t spock-tui -o cat | spock-tui audit verify --anchors -`).
        #[arg(long, value_name = "FILE")]
        anchors: Option<std::path::PathBuf>,
        /// The audit directory to check (root checking another user's trail); default: this
        /// home's (`SPOCK_TUI_HOME` or the XDG data directory).
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum ToolsAction {
    /// Check a file of own tools and print the schema an agent would see for each (exit 1,
    /// with the line and the reason, when the file would load nothing).
    Check { file: std::path::PathBuf },
    /// Ask the running instance to read its own tools again, and say what loaded.
    Reload,
    /// The own tools the files declare now, and each file that would not load.
    List,
}

#[derive(Subcommand, Debug)]
pub enum TokenAction {
    /// Replace the token; both transports refuse the old one at once.
    Rotate {
        /// Rotate the control credential (what `attach` presents) instead of the MCP token:
        /// a running server refuses the old one at the next hello, and terminals attached
        /// with it are detached within 5 s.
        #[arg(long)]
        control: bool,
    },
    /// Print where the token file is.
    Path,
}
