//! The command line: parses arguments and dispatches. Wiring lives in `app`.
use std::os::fd::AsRawFd as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::app;
use crate::clientconfig::{self, Client};
use crate::config::Paths;
use crate::config::token;
use crate::mcp::toolsets::Selection;
use crate::transport::socket::Descriptor;

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
    /// With --demo: the virtual device's per-command latency, `instant` (default) or `phone`
    /// (costs from published phone measurements), optionally `phone:SEED`.
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
    /// The audit trail.
    Audit {
        #[command(subcommand)]
        action: AuditAction,
    },
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
}

#[derive(Subcommand, Debug)]
pub enum AuditAction {
    /// Check the hash chain of every audit file; report the first break (file, line, seq).
    /// Exit code 1 on a break.
    Verify,
}

#[derive(Subcommand, Debug)]
pub enum TokenAction {
    /// Replace the token; both transports refuse the old one at once.
    Rotate,
    /// Print where the token file is.
    Path,
}

pub fn main() -> ExitCode {
    // The relay claims stdout before anything else runs (000_… "How stdio reaches a plugin").
    if std::env::args_os().nth(1).is_some_and(|a| a == "relay") {
        return relay_main();
    }
    let cli = Cli::parse();
    let result = match cli.command {
        None => crate::tui::run(cli.run).map(|()| ExitCode::SUCCESS),
        Some(Command::Serve(args)) => run_server(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Relay { .. }) => Ok(ExitCode::SUCCESS),
        Some(Command::Attach) => crate::tui::attach::run().map(|()| ExitCode::SUCCESS),
        Some(Command::Config(args)) => print_config(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Token { action }) => token_cmd(action).map(|()| ExitCode::SUCCESS),
        Some(Command::Doctor(args)) => doctor(args),
        Some(Command::Audit {
            action: AuditAction::Verify,
        }) => audit_verify(),
        Some(Command::Completions { shell }) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "spock-tui", &mut script);
            print_out(&String::from_utf8_lossy(&script)).map(|()| ExitCode::SUCCESS)
        }
        Some(Command::Sim(args)) => crate::sim::cli::run(args).map(|()| ExitCode::SUCCESS),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("spock-tui: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `spock-tui audit verify`: "intact: N records in M files", or the first break (exit 1).
fn audit_verify() -> anyhow::Result<ExitCode> {
    let paths = Paths::discover()?;
    let dir = paths.audit_dir();
    let v = crate::audit::verify(&dir)?;
    match &v.broken {
        None => {
            let mut text = format!(
                "intact: {} records in {} files ({})\n",
                v.records,
                v.files,
                dir.display()
            );
            if v.unchained > 0 {
                text.push_str(&format!(
                    "note: the first {} records predate the hash chain (no prev)\n",
                    v.unchained
                ));
            }
            print_out(&text)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(b) => {
            eprintln!(
                "spock-tui: audit trail broken after {} intact records: {b}",
                v.records
            );
            Ok(ExitCode::from(1))
        }
    }
}

/// Write `text` to stdout. A reader that went away (`spock-tui completions bash | head -1`)
/// ends the output quietly: `println!` would panic on the closed pipe.
fn print_out(text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r.context("writing to stdout")?),
    }
}

const RELAY_ON_A_TTY: &str = "spock-tui relay: stdin or stdout is a terminal, so no MCP client \
is on the other side. relay carries an MCP client's stdio to the running instance: put it in the \
client's configuration (`spock-tui config --stdio`). From another machine use `ssh -T HOST \
spock-tui relay` (`spock-tui config --stdio --ssh HOST` prints it): a pty (`ssh -t`/`-tt`) echoes \
input and rewrites line endings, which corrupts the protocol.";

fn relay_main() -> ExitCode {
    let out = match crate::transport::relay::claim_stdout() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("spock-tui relay: cannot claim stdout: {e}");
            return ExitCode::from(2);
        }
    };
    // Parsed only now, so even clap's help cannot reach the protocol's stdout.
    let parsed = Cli::try_parse();
    // A terminal on either side is not an MCP client: a pty (`ssh -t`, `ssh -tt`) echoes what
    // it reads and turns "\n" into "\r\n", which corrupts JSON-RPC in both directions.
    // SAFETY: isatty on the process's own descriptors (0, and the claimed stdout).
    let tty = unsafe { libc::isatty(0) == 1 || libc::isatty(out.as_raw_fd()) == 1 };
    if tty && parsed.is_ok() {
        eprintln!("{RELAY_ON_A_TTY}");
        return ExitCode::from(2);
    }
    let (descriptor, toolsets) = match parsed {
        Ok(Cli {
            command:
                Some(Command::Relay {
                    descriptor,
                    toolsets,
                }),
            ..
        }) => (descriptor, toolsets),
        Ok(_) => (None, None),
        Err(e) => e.exit(),
    };
    let descriptor = match descriptor {
        Some(p) => p,
        None => match Paths::discover() {
            Ok(p) => p.endpoint_file(),
            Err(e) => {
                eprintln!("spock-tui relay: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let toolsets = toolsets.map(|t| t.label());
    ExitCode::from(crate::transport::relay::run(&descriptor, toolsets.as_deref(), out) as u8)
}

fn run_server(args: RunArgs) -> anyhow::Result<()> {
    let app::Prepared {
        lock: _lock,
        paths,
        config,
        logs,
        listen,
        tokens,
        guard: _guard,
    } = app::prepare(&args, true)?;
    app::runtime()?.block_on(async move {
        // SIGINT, SIGTERM or SIGHUP (an SSH session ending) all stop it cleanly.
        let stop = stop_signals();
        let (core, demo) = app::assemble(paths, config, logs, &args).await?;
        // One controller owns the transports: attached control centres can stop and restart
        // them through it. The attach channel is up before the server writes its descriptor
        // (whoever sees the server running can attach) and stays up until this process stops.
        let (ctl, controller) = app::spawn_controller(
            core.clone(),
            tokens.clone(),
            listen,
            args.port.is_some(),
            None,
        );
        let channel = app::ControlChannel::start(&core, tokens, ctl.clone())
            .inspect_err(|e| tracing::error!(error = %format!("{e:#}"), "no attach channel: `spock-tui attach` cannot connect"))
            .ok();
        let mut status = ctl.status();
        ctl.send(app::ServerCtl::Start);
        let started = status
            .wait_for(|s| matches!(s, app::ServerStatus::Running | app::ServerStatus::Failed(_)))
            .await
            .map(|s| s.clone());
        match started {
            Ok(app::ServerStatus::Running) => {}
            Ok(app::ServerStatus::Failed(e)) => anyhow::bail!("{e}"),
            _ => anyhow::bail!("the server controller ended before the server started"),
        }
        // Headless: nobody can approve unless a control centre attaches (no responder).
        let mut text = app::endpoints_text(&core);
        if args.demo {
            let adb: Vec<String> = core
                .devices
                .servers()
                .iter()
                .map(|s| s.to_string())
                .collect();
            text.push_str(&format!(
                "demo  virtual device on the built-in adb server {}\n",
                adb.join(", ")
            ));
        }
        // Nobody reading stdout is no reason to stop serving.
        let _ = print_out(&text);
        stop.await;
        if let Some(c) = channel {
            c.stop().await;
        }
        ctl.quit();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(10), controller).await;
        if let Err(e) = core.audit.flush().await {
            eprintln!("spock-tui: the audit trail could not be flushed: {e}");
        }
        if let Some(d) = demo {
            d.stop().await;
        }
        Ok(())
    })
}

/// SIGINT, SIGTERM or SIGHUP: a `serve` whose SSH session ends gets SIGHUP and must stop as
/// cleanly as on SIGTERM (audit flushed, socket and descriptor removed).
/// The signals that stop `serve`, registered at once: a SIGHUP arriving between the endpoint
/// descriptor's appearance and the first await must not kill the process uncleanly.
fn stop_signals() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (term, hup) = (
        signal(SignalKind::terminate()).ok(),
        signal(SignalKind::hangup()).ok(),
    );
    let int = signal(SignalKind::interrupt()).ok();
    async fn on(s: Option<tokio::signal::unix::Signal>) {
        match s {
            Some(mut s) => {
                s.recv().await;
            }
            None => std::future::pending().await,
        }
    }
    async move {
        tokio::select! {
            _ = on(int) => {}
            _ = on(term) => {}
            _ = on(hup) => {}
        }
    }
}

fn read_descriptor(paths: &Paths) -> anyhow::Result<Descriptor> {
    let path = paths.endpoint_file();
    let text = crate::config::private::read_to_string(&path).with_context(|| {
        format!(
            "no running instance ({} missing): start `spock-tui` or `spock-tui serve` first",
            path.display()
        )
    })?;
    Ok(serde_json::from_str(&text)?)
}

fn print_config(args: ConfigArgs) -> anyhow::Result<()> {
    let client = args.client;
    if args.http
        && let Some(why) = clientconfig::http_refusal(client)
    {
        anyhow::bail!("{why}");
    }
    let paths = Paths::discover()?;
    let d = read_descriptor(&paths)?;
    // A descriptor left by an instance that died would print a configuration that cannot work.
    if !d.is_live() {
        anyhow::bail!(
            "no running instance: {} was written by pid {}, which is not running or not answering at {}. \
             Start `spock-tui` or `spock-tui serve` first (`spock-tui doctor` shows more)",
            paths.endpoint_file().display(),
            d.pid,
            d.endpoint_label()
        );
    }
    // Notes go to stderr: stdout stays exactly what is pasted (or redirected) into the file.
    if args.http {
        let url = d.http.as_deref().with_context(|| {
            format!(
                "the running instance has no HTTP endpoint ({}); use --stdio",
                d.http_note.as_deref().unwrap_or("it is not listening")
            )
        })?;
        eprintln!(
            "# For {}: {}.",
            client.label(),
            clientconfig::destination(client, std::env::consts::OS)
        );
        if client == Client::Codex {
            eprintln!(
                "# Codex reads the token from {env}; where Codex starts: export {env}=\"$(cat {})\"",
                shell_words::quote(&paths.token_file().display().to_string()),
                env = clientconfig::TOKEN_ENV,
            );
        } else {
            eprintln!("# This configuration contains the token: treat it like a password.");
        }
        if let Some(note) = &d.http_note {
            eprintln!(
                "# Note: {note}. This configuration names the port of this run: pin one before saving it."
            );
        }
        let url = clientconfig::with_toolsets(url, args.toolsets.as_ref());
        print_out(&format!(
            "{}\n",
            clientconfig::http(client, &url, &d.token).trim_end()
        ))
    } else {
        eprintln!(
            "# For {}: {}.",
            client.label(),
            clientconfig::destination(client, std::env::consts::OS)
        );
        let exe = std::env::current_exe().context("locating this executable")?;
        let text = match &args.ssh {
            Some(host) => {
                eprintln!(
                    "# The client runs `ssh -T {host} …`: its machine needs a key for {host} (no password prompt can be answered) and {host} must be this machine."
                );
                clientconfig::stdio_over_ssh(
                    client,
                    host,
                    &exe,
                    &paths.endpoint_file(),
                    args.toolsets.as_ref(),
                )
                .map_err(anyhow::Error::msg)?
            }
            None => {
                clientconfig::stdio(client, &exe, &paths.endpoint_file(), args.toolsets.as_ref())
            }
        };
        print_out(&format!("{}\n", text.trim_end()))
    }
}

fn doctor(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let paths = Paths::discover()?;
    let config = app::load_config(&paths)?;
    let servers = if args.adb.is_empty() {
        crate::doctor::Servers::Default(app::adb_endpoints(&[], &config)?)
    } else {
        crate::doctor::Servers::Given(app::adb_endpoints(&args.adb, &config)?)
    };
    let report = app::runtime()?.block_on(crate::doctor::run(&paths, servers));
    // The report ends with its own summary; the exit status carries the rest.
    print_out(&report.text)?;
    Ok(if report.problems > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn token_cmd(action: TokenAction) -> anyhow::Result<()> {
    let paths = Paths::discover()?;
    match action {
        TokenAction::Path => print_out(&format!("{}\n", paths.token_file().display())),
        TokenAction::Rotate => {
            token::rotate(&paths.token_file())?;
            print_out(&format!(
                "rotated: {} (a running instance refuses the old token within a second)\n",
                paths.token_file().display()
            ))
        }
    }
}
