//! Input guards: what may reach a device shell or the local filesystem, checked before it does.
//!
//! Everything here is a pure function the tool implementations call before they build a device
//! command line or open a local file:
//!
//! - [`catastrophic`] refuses the short list of commands that must never reach a confirmation
//!   dialog (`rm -rf /` and its disguises, factory reset, `mkfs`, raw `dd` to a block device,
//!   `fastboot erase`). **It is a guard rail, not a sandbox.** It reads the command the way a
//!   POSIX shell would (quotes, `$IFS`, variables, `sh -c`, `su -c`, `eval`, `$(…)`, base64
//!   piped to `sh`) and errs towards refusing what it cannot resolve, but a determined author
//!   can always hide a command from a static reader (a script pushed to the device and run
//!   later, a binary of their own). What stops those is the person approving every
//!   `android_run_adb_command` call, not this module.
//! - [`device_path`] and [`local_source`] keep file transfers inside their allowed roots.
//! - The validators ([`package_name`], [`component`], [`uri`], …) and [`shell_quote`] are the
//!   only way an argument should reach a device command line; [`input_text_escape`] is the one
//!   way text reaches `input text`.
use std::fmt;

mod builtins;
mod command;
mod escape;
mod eval;
mod expand;
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
mod validate;
mod wipes;

pub use command::catastrophic;
pub use paths::{DEVICE_ROOTS, PathRefusal, device_path, local_source};
pub use quote::{input_text_escape, shell_join, shell_quote};
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
