#!/usr/bin/env python3
"""Round 12, r12a: the shell-language corpus as Python data; writes corpus.jsonl."""
import json, pathlib
M = ["mksh"]; B = ["busybox"]
L = []
def add(fam, cmd, note, shells=None, why=None):
    d = {"family": fam, "cmd": cmd, "note": note}
    if shells:
        d["shells"] = shells; d["shells_why"] = why
    L.append(d)

NOBB = "busybox rejects a reserved word as a function name (syntax error: bad function name), so nothing runs there"
# 1 kwfunc-posix (mksh)
add("kwfunc-posix", '\\done() { rm -rf /vendor; }; "done"',
    "mksh accepts a reserved word as a POSIX function name when it is quoted (\\done); \"done\" quoted is a command word, not the keyword, so it calls the function: rm -rf /vendor", M, NOBB)
add("kwfunc-posix", "'then'() { am broadcast -a android.intent.action.MASTER_CLEAR; }; \"then\"",
    "function named 'then' (quoted reserved word); the quoted \"then\" is a command, not the keyword: MASTER_CLEAR broadcast", M, NOBB)
add("kwfunc-posix", "'!'() { cmd testharness enable; }; '!' dry-run",
    "function named '!'; the quoted '!' is a command, not pipeline negation: cmd testharness enable", M, NOBB)
add("kwfunc-posix", "'in'() { rm -rf /system_ext; }; for i in 1; do \\in; done",
    "function named 'in'; \\in inside the loop body is a command call: rm -rf /system_ext", M, NOBB)
# 2 kwfunc-ksh (both)
add("kwfunc-ksh", "function esac { pm remove-user 10; }; case x in x) \\esac;; esac",
    "ksh-style `function esac { }` defines a function named after a reserved word (both shells); \\esac in the case branch is a call, not the end of the case: pm remove-user 10")
add("kwfunc-ksh", "function do { rm -rf /odm; }; for i in 1; do \\do; done",
    "`function do` defines a function; \\do in the loop body calls it: rm -rf /odm")
add("kwfunc-ksh", "function fi { pm remove-user 10; }; if true; then \\fi; fi",
    "`function fi`; \\fi looks like the end of the if but is a call: pm remove-user 10")
add("kwfunc-ksh", "function then { dd if=/dev/zero of=/dev/block/by-name/userdata count=1; }; if :; then \\then; fi",
    "`function then`; \\then inside the branch is a call: dd onto by-name/userdata")
# 3 typeset-format (mksh)
add("typeset-format", "typeset -R7 T=/tmp/safe/vendor; rm -rf $T",
    "mksh typeset -R7 right-justifies to 7 columns and cuts the left: T is /vendor, not /tmp/safe/vendor", M,
    "busybox has no typeset; T stays unset and rm gets no operand")
add("typeset-format", "typeset -Z2 p=113; dd if=/dev/zero of=/dev/block/mmcblk0p$p count=1",
    "mksh typeset -Z2 zero-fills to 2 columns and keeps the right end: p is 13 (userdata), not 113", M,
    "busybox has no typeset; p is unset and of= names a missing device")
add("typeset-format", "typeset -R1 n=10; rm -rf /data/user_de/$n",
    "mksh typeset -R1 keeps one column: n is 0, so every app's device-encrypted data of user 0 goes, not user 10's (in busybox typeset is missing, n is empty and the whole /data/user_de goes)")
add("typeset-format", "typeset -i8 n=11; dd if=/dev/zero of=/dev/block/mmcblk0p${n#8#} count=1",
    "mksh typeset -i8 stores an integer displayed in base 8: $n is 8#13, and ${n#8#} is 13 (userdata), not 11", M,
    "busybox has no typeset; n is unset")
# 4 read-continuation
add("read-continuation", "read T <<'E'\n/ven\\\ndor\nE\nrm -rf \"$T\"",
    "read without -r joins a line ending in backslash with the next one, even from a quoted here-document: T is /vendor, not '/ven\\'")
add("read-continuation", "read P <<'E'\n/dev/block/by-n\\\name/misc\nE\necho boot-recovery | dd of=$P 2>/dev/null",
    "read joins the backslash-newline: P is /dev/block/by-name/misc; dd writes the misc (bootloader message) partition")
add("read-continuation", "read L <<'E'\ncom.whatsapp \\\ncom.spotify.music \\\ncom.android.chrome \\\ncom.google.android.youtube\nE\nfor p in $L; do pm uninstall $p; done",
    "one read takes four lines joined by backslash-newline: four packages uninstalled, though the read looks like it takes one line")
# 5 read-backslash
add("read-backslash", "read T <<'E'\n\\/\\o\\d\\m\nE\nrm -rf $T",
    "read without -r removes each backslash escape: T is /odm, not the literal \\/\\o\\d\\m")
add("read-backslash", "read a b <<'E'\n/tmp/x\\ /system_ext\nE\nrm -rf $a",
    "read: an escaped space is not a field separator, so a gets '/tmp/x /system_ext' (b empty); unquoted $a splits into /tmp/x and /system_ext")
add("read-backslash", "read u <<'E'\n\\1\\0\nE\npm remove-user $u",
    "read without -r strips the escapes: u is 10, not the literal \\1\\0: pm remove-user 10")
# 6 echo-escape
add("echo-escape", "am broadcast -a \"$(echo 'android.intent.action.MASTER\\0137CLEAR')\"",
    "mksh's echo interprets backslash escapes without -e: \\0137 is '_', giving MASTER_CLEAR", M,
    "busybox echo prints the backslash literally without -e")
add("echo-escape", "cmd $(echo -e 'test\\x68arness') enable",
    "echo -e decodes \\x68 (h): cmd testharness enable")
add("echo-escape", "rm -rf $(echo -e '/\\0160roduct')",
    "echo -e decodes the octal \\0160 (p): rm -rf /product")
add("echo-escape", "rm -rf \"$(echo -e '/odm\\c/safe')\"",
    "busybox echo -e stops all output at \\c: the operand is /odm, not /odm/safe", B,
    "mksh's echo -e does not cut at \\c in this form (proof.tsv)")
# 7 print-escape (mksh)
add("print-escape", "rm -rf \"$(print -n '\\x2fodm')\"",
    "mksh's print builtin decodes \\x2f (/) in its operand: /odm", M, "busybox has no print builtin")
add("print-escape", "pm $(print 'remove\\055user') 10",
    "mksh print decodes octal \\055 (-): pm remove-user 10", M, "busybox has no print builtin")
# 8 line-cont-op
add("line-cont-op", "cat <\\\n<'E' | sh\nrm -rf /odm\nE",
    "backslash-newline between the two '<' is removed before tokenising: '<<' is a here-document operator whose body goes to sh")
add("line-cont-op", "test -e /nonexistent |\\\n| rm -rf /odm",
    "'|\\<newline>|' is the operator '||', not two pipes: rm runs because the test failed")
add("line-cont-op", "T=\"/ven\\\ndor\"; rm -rf $T",
    "inside double quotes backslash-newline is removed (unlike single quotes): T is /vendor")
add("line-cont-op", "cat <<\\\nE | sh\nrm -rf /product\nE",
    "the delimiter word comes after a backslash-newline: '<<E', a here-document whose body goes to sh")
# 9 arith-octal (busybox)
add("arith-octal", "rm -rf /data/user_de/$((010-8))",
    "busybox reads 010 in arithmetic as octal (8): the path is /data/user_de/0, not /data/user_de/2", B,
    "mksh (not in posix mode) reads 010 as decimal 10, giving user 2 (absent)")
# 10 redir-subst
add("redir-subst", "nosuchtool >$(rm -rf /odm)",
    "a redirection target is expanded before the command is looked up: the command substitution runs although the command does not exist")
add("redir-subst", ": 2>\"$(pm remove-user 10)\"",
    "the no-op ':' has a redirection whose target is a command substitution; it runs: pm remove-user 10")
add("redir-subst", ": >/dev/null$(rm -rf /product)",
    "the substitution glued to /dev/null outputs nothing, so the target stays /dev/null; the rm inside runs")
add("redir-subst", "[ -e x ] 2>/dev/null$(am broadcast -a android.intent.action.MASTER_CLEAR)",
    "stderr redirect target hides a command substitution: MASTER_CLEAR broadcast (am prints to stdout, not into the target)")
# 11 cond-def
add("cond-def", "setup() { rm() { echo would remove \"$@\"; }; }; rm -rf /odm",
    "the dry-run rm() is defined only when setup runs, and setup is never called: the real rm removes /odm")
add("cond-def", "[ -n \"$DRYRUN\" ] && pm() { echo pm \"$@\"; }; pm remove-user 10",
    "the pm wrapper is defined only if DRYRUN is set (it is not): real pm remove-user 10")
add("cond-def", "case $DRY in 1) cmd() { echo cmd \"$@\"; };; esac; cmd testharness enable",
    "the cmd wrapper lives in a case branch that is not taken: real cmd testharness enable")
add("cond-def", "[ -n \"$DRYRUN\" ] && alias rm='echo rm'\nrm -rf /system_ext",
    "the dry-run alias is defined only if DRYRUN is set (it is not): real rm -rf /system_ext")
# 12 def-subshell
add("def-subshell", "rm() { echo dry-run rm \"$@\"; } | :; rm -rf /vendor",
    "a function definition that is a pipeline element is made in that element's subshell: the parent's rm is the real one")
add("def-subshell", "set -f | :; rm -rf /data/data/*",
    "set -f as a pipeline element changes only the subshell: the glob still expands, every app's data goes")
add("def-subshell", "alias am='echo am' &\nam broadcast -a android.intent.action.MASTER_CLEAR",
    "the alias is defined in a background subshell ('&'), so the next line's am is the real one: MASTER_CLEAR")
# 13 loopvar-persist
add("loopvar-persist", "for T in /data/local/tmp/a /odm; do [ -e \"$T\" ] || continue; done; rm -rf $T",
    "a for variable keeps its last value after the loop: T is /odm, the last word, not something scoped to the loop")
add("loopvar-persist", "for p in 11 12 13; do :; done; dd if=/dev/zero of=/dev/block/mmcblk0p$p count=1",
    "p keeps the last item 13 after the loop: dd onto userdata")
add("loopvar-persist", "for u in 12 11 10; do [ $u -gt 10 ] && echo skip $u; done; pm remove-user $u",
    "u keeps 10 after the loop: pm remove-user 10")
add("loopvar-persist", "for a in BATTERY_LOW MASTER_CLEAR; do echo checking $a; done; am broadcast -a android.intent.action.$a",
    "a keeps its last item MASTER_CLEAR after the loop: a factory-reset broadcast")
# 14 read-partial
add("read-partial", "printf /vendor | { read T || rm -rf \"$T\"; }",
    "read of a last line without newline returns failure but still sets T: the || branch runs with T=/vendor")
add("read-partial", "printf 'android.intent.action.MASTER_CLEAR' | { if read A; then :; else am broadcast -a \"$A\"; fi; }",
    "read fails at EOF without newline yet fills A: the else branch broadcasts MASTER_CLEAR")
add("read-partial", "printf '/data/local/tmp/x\\n/product' | { while read T; do rm -f \"$T\"; done; rm -rf \"$T\"; }",
    "the last unterminated line ends the loop (read fails) but stays in T: rm -rf /product after the loop")
# 15 eager-expand
add("eager-expand", "[ -e /nonexistent -a -n \"$(rm -rf /odm)\" ]",
    "all operands of [ are expanded before test evaluates -a: the substitution runs although the first test is false")
add("eager-expand", "echo $((0 && $(pm remove-user 10)0))",
    "command substitutions inside $(( )) run before the arithmetic is evaluated, so && does not short-circuit them")
add("eager-expand", "test 1 = 2 -o \"$(cmd testharness enable)\" = x",
    "test's -o operands are expanded first: cmd testharness enable runs")
add("eager-expand", "echo $((1 ? 0 : $(rm -rf /vendor)0))",
    "the command substitution in the untaken ?: branch runs first, while the arithmetic is still text")
# 16 eof-backslash (mksh)
add("eof-backslash", "rm -rf /vendor\\",
    "mksh drops a backslash at the very end of the -c string: the operand is /vendor, not '/vendor\\'", M,
    "busybox keeps the trailing backslash literally ('/vendor\\', absent)")
add("eof-backslash", "echo --wipe_data >/cache/recovery/command\\",
    "mksh drops the final backslash: the recovery command file itself is written", M,
    "busybox writes to 'command\\' instead")
add("eof-backslash", "cmd testharness enable\\",
    "mksh drops the final backslash: cmd testharness enable", M,
    "busybox passes 'enable\\'; the sandbox's stub pattern still flags it there, but a real cmd would reject it, so only mksh is claimed")

pathlib.Path(__file__).with_name("corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in L))
print(len(L), "lines")
