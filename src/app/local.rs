//! `spock-tui` without a subcommand: the server and this terminal's control centre in one
//! process. The control centre is the attached one (`tui::attach`'s loop) over an in-process
//! duplex to a session of the attach channel: one code path for the screen, the consent rules
//! and every command. This file wires the server (its controller, the attach channel, the
//! demo device) around it; `tui` gets only what its loop needs, never the run flags.
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::app as wiring;
use crate::cli::RunArgs;
use crate::protocol::ServerCtl;
use crate::transport::control;
use crate::tui::Event;
use crate::tui::attach::{self, Mode, Target, TokenShown};

/// `spock-tui` without a subcommand: the control centre, serving both transports.
pub fn run(args: RunArgs) -> anyhow::Result<()> {
    // Flags and files are checked before the terminal is taken over, so errors print plainly;
    // the terminal owns stdout, so logs go to the file and the in-memory buffer only.
    let wiring::Prepared {
        lock: _lock,
        paths,
        config,
        logs,
        listen,
        tokens,
        guard: _guard,
    } = wiring::prepare(&args, false)?;
    let rt = crate::process::runtime()?;
    rt.block_on(async move {
        let (core, demo) = wiring::assemble(paths.clone(), config, logs, &args).await?;
        // Registered before the server starts: a signal can never meet the default action.
        let (tx, rx) = mpsc::unbounded_channel::<Event>();
        attach::spawn_signals(tx.clone());
        // The same controller `serve` has, and the attach channel beside it: other terminals
        // attach to this one, and it stays up while the transports restart.
        let (ctl, controller) = wiring::spawn_controller(
            core.clone(),
            tokens.clone(),
            listen,
            args.port.is_some(),
            None,
        );
        let channel = wiring::ControlChannel::start(&core, tokens.clone(), ctl.clone())?;
        // This terminal's control centre: a session of the attach channel, in process,
        // attached before the server starts, so no call finds nobody to ask.
        let (duplex, credential) = channel.in_process();
        let (r, w) = tokio::io::split(duplex);
        let connected = attach::connect_io(Box::new(r), Box::new(w), credential).await;
        ctl.send(ServerCtl::Start);
        let result = match connected {
            Ok(connected) => {
                let target = Target {
                    socket: None,
                    credential_file: control::credential_file(&paths),
                    reconnect_for: Duration::ZERO,
                    token: TokenShown::Live(tokens.clone()),
                    connected_now: Some({
                        let core = core.clone();
                        Arc::new(move || core.sessions.connected())
                    }),
                };
                let ended: attach::Ended = Arc::default();
                attach::run_loop(connected, ended, target, paths, (tx, rx), Mode::InProcess).await
            }
            Err(e) => Err(anyhow::Error::new(e).context("the control centre could not attach")),
        };
        // Goodbye to attached terminals; what waited on them is denied (nobody is left).
        channel.stop().await;
        ctl.quit();
        let _ = tokio::time::timeout(Duration::from_secs(6), controller).await;
        if let Err(e) = core.audit.close().await {
            tracing::error!(error = %e, "the audit trail could not be flushed");
        }
        if let Some(d) = demo {
            d.stop().await;
        }
        result
    })
}
