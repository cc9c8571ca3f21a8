//! Input guards: what may reach a device shell or the local filesystem, checked before it does.
//!
//! Everything here is a pure function the tool implementations call before they build a device
//! command line or open a local file:
//!
//! - [`catastrophic`] refuses the commands that must never reach a confirmation dialog:
//!   recursive deletes that reach a protected place, writes to block devices or the recovery
//!   command file, formatting, Android's own wipes, and any of those whose target or command
//!   it cannot determine ("cannot tell what `$X` holds after `read`; write it as plain
//!   commands"). It reads the command as mksh would, with an abstract shell: a grammar
//!   (`parse`), values as candidate sets across control flow (`state`, `eval`,
//!   `expand`), everything that runs other commands (`runners`, `builtins`,
//!   `programs`), the places and wipes it protects (`places`, `rules`, `wipes`).
//!   **It is a guard rail, not a sandbox**: a script that was on the device before the
//!   command ran, or a binary of the author's own, is not read. What stops those is the
//!   person approving every `android_run_adb_command` call, not this module.
//! - [`device_path`] and [`local_source`] keep file transfers inside their allowed roots.
//! - The validators ([`package_name`], [`component`], [`uri`], …) and [`shell_quote`] are the
//!   only way an argument should reach a device command line; [`input_text_escape`] is the one
//!   way text reaches `input text`.
use std::fmt;

use eval::Eval;
use state::Env;

mod arith;
mod builtins;
mod escape;
mod eval;
mod expand;
pub mod keycodes;
mod known;
mod lex;
mod output;
mod parse;
mod paths;
mod places;
mod programs;
mod quote;
mod rules;
mod runners;
mod state;
mod typing;
mod validate;
mod wipes;

pub use paths::{DEVICE_ROOTS, PathRefusal, device_path, local_source, open_local_source};
pub use quote::{input_text_escape, shell_join, shell_quote};
pub use typing::{TYPABLE, typing_commands};
pub use validate::{
    ExtraValue, component, intent_action, intent_category, intent_extra_args, intent_extra_key,
    keycode, package_name, permission_name, uri,
};

/// Why an input was refused. `rule` is a stable short name (for the audit trail and tests);
/// `why` is a sentence an agent or a person can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub rule: &'static str,
    pub why: String,
}

impl Refusal {
    pub(crate) fn new(rule: &'static str, why: impl Into<String>) -> Self {
        Self {
            rule,
            why: why.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "refused ({}): {}", self.rule, self.why)
    }
}

impl std::error::Error for Refusal {}

const MAX_LEN: usize = 256 * 1024;

/// Whether `template`, with `probe` standing for a value (written in by the caller, quoted as
/// it will be), runs that value as shell code: the guard reads the command and reports
/// whether any program it runs is named `program`, the word the probe values are built to
/// run (`sh -c {x}`, `eval {x}`, `{x}` as a program, a here-document or a `$(…)` that reads
/// the value again, a script file the value names). `files` are files the probe may name,
/// with the script each holds. A command the guard cannot read whole counts as running it.
pub fn runs_as_code(command: &str, program: &str, files: &[(&str, &str)]) -> bool {
    let mut ev = Eval::new();
    let mut env = Env::android();
    for (path, body) in files {
        env.fs_mut()
            .files
            .insert((*path).to_string(), state::Val::known(*body));
    }
    let read = ev
        .script(command, &mut env, None)
        .and_then(|_| ev.files_left(&env));
    let named = |p: &str| p == program || p.rsplit('/').next() == Some(program);
    ev.ran.iter().any(|p| named(p)) || (read.is_err() && command.contains(program))
}

/// Refuses a command for `android_run_adb_command` if it is on the catastrophic list
/// (recursive delete of `/`, a system or storage root or the user's folders, factory reset,
/// formatting, raw writes to block devices, `fastboot erase`/`format`), however it is
/// disguised, or if it could be and the guard cannot tell.
/// `None` means "not on the list", not "safe": the call still needs the person's approval.
pub fn catastrophic(command: &str) -> Option<Refusal> {
    if command.len() > MAX_LEN {
        return Some(Refusal::new(
            "too-long",
            format!(
                "the command is over {} KiB, too long to check",
                MAX_LEN / 1024
            ),
        ));
    }
    let mut ev = Eval::new();
    let mut env = Env::android();
    match ev
        .script(command, &mut env, None)
        .and_then(|_| ev.files_left(&env))
    {
        Err(r) => Some(r),
        Ok(_) if ev.malformed.is_some() => Some(eval::cannot_read(
            ev.malformed.as_deref().unwrap_or_default(),
        )),
        Ok(_) if ev.reboots_to_recovery && ev.mentions_wipe => Some(Refusal::new(
            "reboot-wipe",
            "the command reboots to recovery or the bootloader and asks for a wipe: that is a factory reset",
        )),
        Ok(_) => None,
    }
}
