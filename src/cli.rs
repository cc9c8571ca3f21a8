//! The command line: parses arguments and dispatches. Wiring lives in `app`.
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, CommandFactory, Parser, Subcommand};

use crate::app::{self, Server};
use crate::clientconfig::{self, Client};
use crate::config::Paths;
use crate::config::token;
use crate::transport::socket::Descriptor;

#[derive(Parser, Debug)]
#[command(
    name = "spock-tui",
    version,
    about = "Safe, structured, auditable access to Android devices for AI agents over MCP, approved from the terminal",
    after_help = "Without a subcommand, starts the control centre (terminal UI) and serves MCP."
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
    #[arg(long, global = true)]
    pub demo: bool,
    /// An adb server to use, HOST:PORT (repeatable; default ANDROID_ADB_SERVER_PORT or 127.0.0.1:5037).
    #[arg(long = "adb", value_name = "HOST:PORT", global = true)]
    pub adb: Vec<String>,
    /// An Android (Gradle) project directory (repeatable; default: found from the working directory).
    #[arg(long = "project", value_name = "DIR", global = true)]
    pub project: Vec<PathBuf>,
    /// HTTP port (0 picks a free one); overrides server.port.
    #[arg(long, global = true)]
    pub port: Option<u16>,
    /// Address to bind HTTP on. Anything but loopback exposes the endpoint beyond this machine.
    #[arg(long, global = true)]
    pub bind: Option<String>,
    /// Lift every tool-access switch for this process only (nothing is written; confirmations stay).
    #[arg(long, global = true)]
    pub allow_all: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve MCP on both transports without the terminal UI (logs to stderr).
    Serve,
    /// Byte relay between an MCP client's stdio and the running instance (for stdio clients).
    Relay {
        /// The endpoint descriptor (default: the running instance's).
        descriptor: Option<PathBuf>,
    },
    /// Print ready-to-paste client configuration for the running instance.
    Config(ConfigArgs),
    /// Manage the session token.
    Token {
        #[command(subcommand)]
        action: TokenAction,
    },
    /// Check adb, the adb servers, each device, the running instance and file permissions.
    Doctor,
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
        None => crate::tui::run(cli.run),
        Some(Command::Serve) => run_server(cli.run),
        Some(Command::Relay { .. }) => Ok(()),
        Some(Command::Config(args)) => print_config(args),
        Some(Command::Token { action }) => token_cmd(action),
        Some(Command::Doctor) => doctor(cli.run),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "spock-tui",
                &mut std::io::stdout(),
            );
            Ok(())
        }
        Some(Command::Sim(args)) => crate::sim::cli::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spock-tui: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn relay_main() -> ExitCode {
    let out = match crate::transport::relay::claim_stdout() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("spock-tui relay: cannot claim stdout: {e}");
            return ExitCode::from(2);
        }
    };
    let descriptor = match std::env::args_os().nth(2) {
        Some(p) => PathBuf::from(p),
        None => match Paths::discover() {
            Ok(p) => p.endpoint_file(),
            Err(e) => {
                eprintln!("spock-tui relay: {e}");
                return ExitCode::from(2);
            }
        },
    };
    ExitCode::from(crate::transport::relay::run(&descriptor, out) as u8)
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
        let (core, demo) = app::assemble(paths, config, logs, &args).await?;
        let server = Server::start(core.clone(), tokens, &listen).await?;
        // Headless: nobody can approve, so destructive calls are denied (no responder).
        println!("{}", server.endpoints_text().trim_end());
        if args.demo {
            println!("demo  virtual device on the built-in adb server");
        }
        wait_for_signal().await;
        server.stop().await;
        if let Err(e) = core.audit.flush().await {
            eprintln!("spock-tui: the audit trail could not be flushed: {e}");
        }
        if let Some(d) = demo {
            d.stop().await;
        }
        Ok(())
    })
}

async fn wait_for_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
    }
}

fn read_descriptor(paths: &Paths) -> anyhow::Result<Descriptor> {
    let path = paths.endpoint_file();
    let text = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "no running instance ({} missing): start `spock-tui` or `spock-tui serve` first",
            path.display()
        )
    })?;
    Ok(serde_json::from_str(&text)?)
}

fn print_config(args: ConfigArgs) -> anyhow::Result<()> {
    let paths = Paths::discover()?;
    let d = read_descriptor(&paths)?;
    if args.http {
        let url = d
            .http
            .context("the running instance has no HTTP endpoint")?;
        eprintln!("# This configuration contains the token: treat it like a password.");
        println!("{}", clientconfig::http(args.client, &url, &d.token));
    } else {
        let exe = std::env::current_exe().context("locating this executable")?;
        println!(
            "{}",
            clientconfig::stdio(args.client, &exe, &paths.endpoint_file())
        );
    }
    Ok(())
}

fn doctor(args: RunArgs) -> anyhow::Result<()> {
    let paths = Paths::discover()?;
    let config = app::load_config(&paths)?;
    let servers = app::adb_endpoints(&args.adb, &config)?;
    let report = app::runtime()?.block_on(crate::doctor::run(&paths, servers));
    print!("{}", report.text);
    if report.problems > 0 {
        anyhow::bail!("{} problem(s) found", report.problems);
    }
    Ok(())
}

fn token_cmd(action: TokenAction) -> anyhow::Result<()> {
    let paths = Paths::discover()?;
    match action {
        TokenAction::Path => println!("{}", paths.token_file().display()),
        TokenAction::Rotate => {
            token::rotate(&paths.token_file())?;
            println!(
                "rotated: {} (a running instance refuses the old token within a second)",
                paths.token_file().display()
            );
        }
    }
    Ok(())
}
