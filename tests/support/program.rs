//! The spock-tui binary this build made, run as a test runs it: its own `SPOCK_TUI_HOME`, and
//! nothing from the test's environment that would point it at another adb server or log file.
#![allow(dead_code)]
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;

pub const EXE: &str = env!("CARGO_BIN_EXE_spock-tui");

/// `spock-tui <args>` with `home` as its home.
pub fn spock(home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(EXE);
    c.args(args)
        .env("SPOCK_TUI_HOME", home)
        .env_remove("ANDROID_ADB_SERVER_PORT")
        .env_remove("SPOCK_TUI_LOG");
    c
}

/// The lines `out` prints, read on a thread of their own, as they come.
pub fn lines_of(out: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
