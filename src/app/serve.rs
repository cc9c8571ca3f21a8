//! `spock-tui serve`: the server without a terminal, the service that control centres attach
//! to. Its controller owns the MCP transports, the attach channel runs beside it, and SIGINT,
//! SIGTERM or SIGHUP stop it cleanly (SIGHUP only when it was not ignored at start: `nohup`).
use crate::cli::RunArgs;

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let super::Prepared {
        lock: _lock,
        paths,
        config,
        logs,
        listen,
        tokens,
        guard: _guard,
    } = super::prepare(&args, true)?;
    crate::process::runtime()?.block_on(async move {
        // SIGINT, SIGTERM or SIGHUP (an SSH session ending) all stop it cleanly, and a SIGHUP
        // arriving before the first await must not kill the process uncleanly.
        let stop = crate::process::signals::stop();
        let (core, demo) = super::assemble(paths, config, logs, &args).await?;
        // One controller owns the transports: attached control centres can stop and restart
        // them through it. The attach channel is up before the server writes its descriptor
        // (whoever sees the server running can attach) and stays up until this process stops.
        let (ctl, controller) = super::spawn_controller(
            core.clone(),
            tokens.clone(),
            listen,
            args.port.is_some(),
            None,
        );
        let channel = super::ControlChannel::start(&core, tokens, ctl.clone())
            .inspect_err(|e| tracing::error!(error = %format!("{e:#}"), "no attach channel: `spock-tui attach` cannot connect"))
            .ok();
        let mut status = ctl.status();
        ctl.send(crate::protocol::ServerCtl::Start);
        let started = status
            .wait_for(|s| matches!(s, crate::protocol::ServerStatus::Running | crate::protocol::ServerStatus::Failed(_)))
            .await
            .map(|s| s.clone());
        match started {
            Ok(crate::protocol::ServerStatus::Running) => {}
            Ok(crate::protocol::ServerStatus::Failed(e)) => anyhow::bail!("{e}"),
            _ => anyhow::bail!("the server controller ended before the server started"),
        }
        // Headless: nobody can approve unless a control centre attaches (no responder).
        let mut text = super::endpoints_text(&core);
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
        let _ = super::commands::print_out(&text);
        let by = stop.await;
        // On stderr too (serve logs there): "server stopped" alone left a person guessing.
        tracing::info!("stopped by {by}");
        if let Some(c) = channel {
            c.stop().await;
        }
        ctl.quit();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(10), controller).await;
        if let Err(e) = core.audit.close().await {
            eprintln!("spock-tui: the audit trail could not be flushed: {e}");
        }
        if let Some(d) = demo {
            d.stop().await;
        }
        Ok(())
    })
}
