//! Dispatch: `spock-tui`'s entry point turns what `cli` parsed into a run of the subcommand,
//! and carries out the small ones here (`relay`, `config`, `token`, `doctor`, `audit verify`,
//! `completions`). `serve` is wired in `serve`, the control centre with no subcommand in
//! `local`; `attach` and `sim` are their own modules' (`tui::attach`, the sim crate).
use std::os::fd::AsRawFd as _;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{CommandFactory, Parser};

use crate::cli::{AuditAction, Cli, Command, ConfigArgs, DoctorArgs, TokenAction, ToolsAction};
use crate::clientconfig::{self, Client};
use crate::config::Paths;
use crate::config::token;
use crate::transport::socket::Descriptor;

pub fn main() -> ExitCode {
    // The relay claims stdout before anything else runs (000_… "How stdio reaches a plugin").
    if std::env::args_os().nth(1).is_some_and(|a| a == "relay") {
        return relay_main();
    }
    // Before anything registers a handler: a SIGHUP ignored at start (`nohup`) stays ignored.
    crate::process::signals::hangup_ignored();
    let cli = Cli::parse();
    let result = match cli.command {
        None => super::local::run(cli.run).map(|()| ExitCode::SUCCESS),
        Some(Command::Serve(args)) => super::serve::run(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Relay { .. }) => Ok(ExitCode::SUCCESS),
        Some(Command::Attach) => crate::tui::attach::run().map(|()| ExitCode::SUCCESS),
        Some(Command::Config(args)) => print_config(args).map(|()| ExitCode::SUCCESS),
        Some(Command::Token { action }) => token_cmd(action).map(|()| ExitCode::SUCCESS),
        Some(Command::Doctor(args)) => doctor(args),
        Some(Command::Tools { action }) => tools_cmd(action),
        Some(Command::Sandbox(args)) => sandbox(args),
        Some(Command::Audit {
            action: AuditAction::Verify { anchors, dir },
        }) => Ok(audit_verify(anchors.as_deref(), dir).unwrap_or_else(|e| {
            // 1 means "tampered": a check that could not run says so with another code.
            eprintln!("spock-tui: audit verify could not run: {e:#}");
            ExitCode::from(2)
        })),
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

/// `spock-tui audit verify [--anchors FILE]`: "intact: N records in M files", or the first
/// break, or what the anchors found (exit 1 for either).
fn audit_verify(
    anchors: Option<&std::path::Path>,
    dir: Option<std::path::PathBuf>,
) -> anyhow::Result<ExitCode> {
    let dir = match dir {
        // Named by hand: a typo must not read as an intact, empty trail.
        Some(d) if !d.is_dir() => anyhow::bail!("{} is not an audit directory", d.display()),
        Some(d) => d,
        None => Paths::discover()?.audit_dir(),
    };
    let v = match anchors {
        Some(log) => {
            let read = if log == std::path::Path::new("-") {
                crate::audit::anchor::read_from(std::io::stdin().lock())
                    .context("reading anchors from standard input")?
            } else {
                crate::audit::anchor::read_file(log)
                    .with_context(|| format!("reading anchors from {}", log.display()))?
            };
            crate::audit::verify_anchored(&dir, &read)?
        }
        None => crate::audit::verify(&dir)?,
    };
    if let Some(b) = &v.broken {
        eprintln!(
            "spock-tui: audit trail broken after {} intact records: {b}",
            v.records
        );
        return Ok(ExitCode::from(1));
    }
    if let Some(r) = v.anchors.as_ref().filter(|r| !r.tampered.is_empty()) {
        let mut text = format!(
            "spock-tui: audit trail tampered with: {} records in {} files ({}) disagree with {} anchors of {} server runs:\n",
            v.records,
            v.files,
            dir.display(),
            r.anchors,
            r.runs
        );
        for t in &r.tampered {
            text.push_str(&format!("  {t}\n"));
        }
        eprint!("{text}");
        return Ok(ExitCode::from(1));
    }
    let mut text = format!(
        "intact: {} records in {} files ({})\n",
        v.records,
        v.files,
        dir.display()
    );
    if !v.interrupted.is_empty() {
        let list: Vec<String> = v.interrupted.iter().map(u64::to_string).collect();
        text.push_str(&format!(
            "note: destructive call(s) seq {} started and have no ending: the server stopped while they ran (or they are running now); whether they took effect is not known\n",
            list.join(", ")
        ));
    }
    if v.unchained > 0 {
        text.push_str(&format!(
            "note: the first {} records predate the hash chain (no prev)\n",
            v.unchained
        ));
    }
    if let Some(first) = v
        .starts_after_deleted
        .filter(|_| v.anchors.as_ref().is_none_or(|r| r.deleted_below.is_none()))
    {
        text.push_str(&format!(
            "note: the trail starts at record {first}: the {} before it were deleted, at \
             the size cap (audit.max_total_mb) or otherwise; a cap deletion keeps their \
             destructive, denied and refused records in {}\n",
            first.saturating_sub(1),
            crate::audit::KEPT_FILE
        ));
    }
    match &v.anchors {
        Some(r) => {
            text.push_str(&format!(
                "anchors: the trail agrees with {} anchors of {} server runs (up to seq {})",
                r.anchors,
                r.runs,
                r.highest.map_or("-".into(), |h| h.to_string())
            ));
            if r.foreign > 0 {
                text.push_str(&format!(
                    "; {} anchors of other trails passed over",
                    r.foreign
                ));
            }
            text.push('\n');
            for n in &r.notes {
                text.push_str(&format!("note: {n}\n"));
            }
            if r.anchors == 0 {
                if r.foreign > 0 {
                    text.push_str(&format!(
                        "warning: the log holds anchors of other trails and none of this one (trail {} at {}): if this trail was anchored there, the directory was moved or replaced\n",
                        crate::audit::anchor::trail_id(&dir),
                        dir.display()
                    ));
                }
                text.push_str(NO_ANCHOR_CAVEAT);
            }
        }
        None => text.push_str(NO_ANCHOR_CAVEAT),
    }
    print_out(&text)?;
    Ok(ExitCode::SUCCESS)
}

const NO_ANCHOR_CAVEAT: &str = "without anchors this checks only that the records chain: it \
cannot detect records deleted from the end, the file emptied or deleted, or records rewritten \
with the chain recomputed (run `audit verify --anchors LOG` with the syslog file the anchors \
go to, audit.anchor in config.toml)\n";

/// Write `text` to stdout. A reader that went away (`spock-tui completions bash | head -1`)
/// ends the output quietly: `println!` would panic on the closed pipe.
pub(super) fn print_out(text: &str) -> anyhow::Result<()> {
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
    let config = super::load_config(&paths)?;
    if let Some(dir) = &args.capture {
        let adb = super::adb_endpoints(&args.adb, &config)?;
        let done = crate::process::runtime()?.block_on(crate::capture::capture(
            crate::capture::Request {
                dir,
                adb,
                serial: args.serial.clone(),
                config,
            },
        ))?;
        print_out(&done.text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let servers = if args.adb.is_empty() {
        crate::doctor::Servers::Default(super::adb_endpoints(&[], &config)?)
    } else {
        crate::doctor::Servers::Given(super::adb_endpoints(&args.adb, &config)?)
    };
    let report = crate::process::runtime()?.block_on(crate::doctor::run(&paths, servers));
    // The report ends with its own summary; the exit status carries the rest.
    print_out(&report.text)?;
    Ok(if report.problems > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `spock-tui sandbox [--print] -- COMMAND…`: the bubblewrap line from this installation's
/// paths, printed or run in place of this process.
fn sandbox(args: crate::cli::SandboxArgs) -> anyhow::Result<ExitCode> {
    let paths = Paths::discover()?;
    let config = super::load_config(&paths)?;
    let servers = super::adb_endpoints(&args.adb, &config)?;
    let cwd = std::env::current_dir().context("the working directory")?;
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let rw: Vec<std::path::PathBuf> = args
        .rw
        .iter()
        .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone()))
        .collect();
    let plan = crate::sandbox::plan(&crate::sandbox::Inputs {
        paths: &paths,
        agent_dir: &config.server.agent_dir,
        servers: &servers,
        home: home.as_deref(),
        cwd: &cwd,
        rw: &rw,
        no_network: args.no_network,
        command: &args.command,
    })?;
    let bwrap = crate::device::find_program("bwrap");
    if args.print {
        let name = bwrap
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "bwrap".into());
        print_out(&format!("{}\n", crate::sandbox::shell_line(&name, &plan)))?;
        return Ok(ExitCode::SUCCESS);
    }
    let Some(bwrap) = bwrap else {
        anyhow::bail!(
            "bubblewrap (`bwrap`) is not on PATH: install it (Debian: apt install bubblewrap), or \
             print the line with --print"
        );
    };
    eprintln!(
        "spock-tui sandbox: hidden {}; MCP through `spock-tui relay {}` (also in \
         $SPOCK_TUI_AGENT_DESCRIPTOR)",
        plan.hidden
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        plan.descriptor.display()
    );
    use std::os::unix::process::CommandExt as _;
    let e = std::process::Command::new(&bwrap).args(&plan.args).exec();
    Err(anyhow::Error::new(e).context(format!("running {}", bwrap.display())))
}

/// `spock-tui tools check FILE | reload | list`.
fn tools_cmd(action: ToolsAction) -> anyhow::Result<ExitCode> {
    let builtin = {
        let catalogue = crate::mcp::tools::catalogue();
        move |n: &str| catalogue.get(n).is_some()
    };
    match action {
        ToolsAction::Check { file } => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", file.display()))?;
            // config.toml holds settings besides `[[tool]]`: read it as the instance does.
            let in_config = file.file_name().is_some_and(|n| n == "config.toml");
            match crate::own::parse_file(&text, &file, in_config, &builtin) {
                Ok(tools) => {
                    let mut out = format!(
                        "{}: {} tool{} load\n",
                        file.display(),
                        tools.len(),
                        if tools.len() == 1 { "" } else { "s" }
                    );
                    for t in &tools {
                        let def = crate::mcp::tools::own::tool_of(t);
                        let shown = serde_json::to_string_pretty(&def.to_mcp())?;
                        out.push_str(&format!(
                            "\n{} ({}, {} level, toolset {}) runs: {}\n{shown}\n",
                            t.name,
                            t.title,
                            t.level.label(),
                            t.toolset.key(),
                            t.template.text()
                        ));
                    }
                    print_out(&out)?;
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("spock-tui: {e} (nothing from this file loads)");
                    Ok(ExitCode::FAILURE)
                }
            }
        }
        ToolsAction::List => {
            let paths = Paths::discover()?;
            let loaded = crate::own::load(&crate::config::config_file(&paths), &builtin);
            let mut out = String::new();
            for t in &loaded.tools {
                out.push_str(&format!(
                    "{}  {}  {}:{}  runs: {}\n",
                    t.name,
                    t.level.label(),
                    t.file.display(),
                    t.line,
                    t.template.text()
                ));
            }
            if loaded.tools.is_empty() {
                out.push_str(&format!(
                    "no own tools (declare them in {} or {})\n",
                    crate::config::config_file(&paths).display(),
                    crate::own::tools_dir(&paths.config).display()
                ));
            }
            print_out(&out)?;
            for e in &loaded.errors {
                eprintln!("spock-tui: {e} (nothing from this file loads)");
            }
            Ok(if loaded.errors.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        ToolsAction::Reload => {
            let paths = Paths::discover()?;
            let rt = crate::process::runtime()?;
            let socket = crate::transport::control::socket_path(&paths);
            let credential = crate::transport::control::credential_file(&paths);
            let answer = rt.block_on(async {
                let c = crate::tui::attach::connect(&socket, &credential).await?;
                c.request(
                    &crate::protocol::ClientMsg::ReloadTools,
                    std::time::Duration::from_secs(20),
                )
                .await
            });
            match answer {
                Ok(Ok(message)) => {
                    print_out(&format!("{message}\n"))?;
                    Ok(ExitCode::SUCCESS)
                }
                Ok(Err(message)) => {
                    eprintln!("spock-tui: {message}");
                    Ok(ExitCode::FAILURE)
                }
                Err(e) => Err(anyhow::anyhow!(
                    "{e} (is an instance running? it also reloads by itself when a file changes)"
                )),
            }
        }
    }
}

fn token_cmd(action: TokenAction) -> anyhow::Result<()> {
    let paths = Paths::discover()?;
    match action {
        TokenAction::Path => print_out(&format!("{}\n", paths.token_file().display())),
        TokenAction::Rotate { control: true } => {
            let file = crate::transport::control::credential_file(&paths);
            token::rotate(&file)?;
            print_out(&format!(
                "rotated: {} (a running server refuses the old control credential at once and \
                 detaches terminals attached with it within 5 s)\n",
                file.display()
            ))
        }
        TokenAction::Rotate { control: false } => {
            token::rotate(&paths.token_file())?;
            print_out(&format!(
                "rotated: {} (a running instance refuses the old token within a second)\n",
                paths.token_file().display()
            ))
        }
    }
}
