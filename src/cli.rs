//! The command line: parses arguments and wires the parts together. Nothing else lives here.
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "spock-tui",
    version,
    about = "Safe, auditable Android access for AI agents over MCP, approved from the terminal"
)]
pub struct Cli {
    /// Run against the built-in virtual device (no phone or adb needed).
    #[arg(long, global = true)]
    pub demo: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Start virtual Android devices (adb server and/or adbd over TCP).
    Sim(crate::sim::cli::SimArgs),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Sim(args)) => crate::sim::cli::run(args),
        None => Ok(()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spock-tui: {e:#}");
            ExitCode::FAILURE
        }
    }
}
