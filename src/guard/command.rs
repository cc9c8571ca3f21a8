//! The entry point of the catastrophic-command guard: [`catastrophic`] reads a command line
//! with the abstract shell ([`super::parse`], [`super::eval`]) from the state `adb shell`
//! starts in, and returns the first refusal.
//!
//! What the guard refuses, in one place: recursive deletes that reach a protected place
//! ([`super::places`]), writes to block devices and the recovery command file, moves of
//! protected places ([`super::rules`]), Android's own wipes and formatters
//! ([`super::wipes`]), a reboot to recovery or the bootloader in a command that also asks for
//! a wipe, and — the rule that makes disguise pointless — any of those verbs whose target,
//! or any command whose name, the guard cannot determine ("cannot tell what `$X` holds after
//! `read`; write it as plain commands").
use super::Refusal;
use super::eval::Eval;
use super::state::Env;

const MAX_LEN: usize = 256 * 1024;

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
    match ev.script(command, &mut env, None) {
        Err(r) => Some(r),
        Ok(_) if ev.reboots_to_recovery && ev.mentions_wipe => Some(Refusal::new(
            "reboot-wipe",
            "the command reboots to recovery or the bootloader and asks for a wipe: that is a factory reset",
        )),
        Ok(_) => None,
    }
}
