#!/usr/bin/env python3
"""Writes catastrophic-round2.jsonl (and unprovable.jsonl, catastrophic-round2-added.jsonl) from the
table below.
Written black-box: without reading the guard's code, techniques chosen to be absent from
tests/guard and, mostly, from issue 34's list."""
import json, pathlib
HERE = pathlib.Path(__file__).resolve().parent
T = "\t"
MK = ["mksh"]
R = []
def add(family, cmd, note, shells=None, why=None):
    r = {"family": family, "cmd": cmd, "note": note}
    if shells:
        r["shells"] = shells; r["shells_why"] = why
    R.append(r)

# --- syntax: grammar the guard may not model (mksh/ksh and POSIX corners) ---
add("syntax", "! rm -rf /system", "pipeline negation `!` in front of the command")
add("syntax", "if ! rm -rf /data/data; then :; fi", "the delete is the (negated) condition of an if")
add("syntax", "until rm -rf /vendor; do :; done", "the delete is an until-loop condition; it succeeds and the loop ends")
add("syntax", "function ls { rm -rf /system; }; ls /sdcard", "ksh `function NAME {` definition shadows ls (not the `f()` form)")
add("syntax", "set -A a rm -rf /system; \"${a[@]}\"", "mksh array assigned with set -A, then run as a command", MK, "arrays and set -A are mksh-only; busybox sh has neither")
add("syntax", "typeset -L7 X=/systemXXXX; rm -rf $X", "typeset -L7 left-justifies and truncates the value to /system", MK, "typeset -L is mksh-only")
add("syntax", "typeset -n r=T; T=/vendor; rm -rf $r", "nameref: $r reads T", MK, "namerefs are mksh-only")
add("syntax", "rm -rf /@(system|vendor)", "ksh extended glob @(...)", MK, "extended globs are mksh-only")
add("syntax", "rm -rf /data/!(local)", "ksh extended glob !(...) : everything in /data but local", MK, "extended globs are mksh-only")
add("syntax", "X=//system; rm -rf ${X:1}", "substring expansion with a literal offset")
add("syntax", "X=/sqyqsqtqeqm; rm -rf ${X//q/}", "global pattern removal ${X//q/}")
add("syntax", "getopts d: o -d /system; rm -rf \"$OPTARG\"", "getopts sets OPTARG from its own argument list")
add("syntax", "echo \"$(rm -rf /data/data)\"", "the delete runs inside a substitution in echo's argument")
add("syntax", "X=$(rm -rf /system)", "assignment-only command whose value is a substitution that deletes")
add("syntax", "echo x > \"$(rm -rf /vendor; echo /dev/null)\"", "substitution inside a redirection target")
add("syntax", "for i in $(rm -rf /data/data); do :; done", "substitution in a for-loop word list")
add("syntax", "case $(rm -rf /system) in *) ;; esac", "substitution in the case subject word")
add("syntax", "[ -e \"$(rm -rf /data/media/0)\" ]", "substitution inside a test operand")
add("syntax", "test -n \"`rm -rf /vendor`\"", "backquoted substitution inside test's operand")
add("syntax", "rm -rf /storage/emulated/$((7*0))", "the user number is a literal arithmetic expansion")
add("syntax", "alias s='command ' r='rm -rf /system'\ns r", "alias ending in a blank makes the next word an alias too")
add("syntax", "true&&rm -rf /vendor", "no blanks around the && operator")
add("syntax", "ls /sdcard|rm -rf /data/data", "the delete is the second member of a pipeline, no blanks")
add("syntax", "echo /system > /data/local/tmp/t; rm -rf $(</data/local/tmp/t)", "`$(<file)`: a file's content without cat", MK, "busybox sh has no $(<file) form (it yields nothing)")
add("syntax", "exec 3<<'EOF'\nrm -rf /vendor\nEOF\nsh <&3", "a quoted here-document opened on fd 3 by exec, fed to sh by a dup")

# --- lexing: what a reader may split or hide differently from the shell ---
add("lexing", "echo x#; rm -rf /system", "`#` inside a word is not a comment")
add("lexing", "echo \\'; rm -rf /data/data; echo \\'", "escaped single quotes look like a quoted string")
add("lexing", "echo \\\"; rm -rf /vendor; echo \\\"", "escaped double quotes look like a quoted string")
add("lexing", "# tidy up \\\nrm -rf /system", "a backslash at the end of a comment does not continue it")
add("lexing", "cat <<-EOF\nnotes\n" + T + "EOF\nrm -rf /system", "<<- strips the tab before the terminator; the delete is after the here-document")
add("lexing", "cat <<\"E\"OF\nx\nEOF\nrm -rf /data/data", "partly quoted delimiter \"E\"OF ends at the plain line EOF")
add("lexing", "cat <<\\EOF\nx\nEOF\nrm -rf /vendor", "backslash-quoted delimiter \\EOF ends at EOF")
add("lexing", "cat <<EOF; rm -rf /system\nbody\nEOF", "the delete follows the here-document operator on the same line")
add("lexing", "cat <<A <<B\nx\nA\ny\nB\nrm -rf /data/data", "two here-documents on one line; the delete comes after both bodies")
add("lexing", "echo 'a\\'; rm -rf /system; echo '\\'", "backslash does not escape inside single quotes")
add("lexing", "echo ${X:-'}'}; rm -rf /vendor", "a quoted } inside a ${...:-...} default")
add("lexing", "echo \"$(echo \")\")\"; rm -rf /data/data", "quotes nested in a substitution inside quotes")

# --- runner: programs that run their arguments, not yet listed ---
add("runner", "chrt -o 0 rm -rf /system", "toybox chrt runs a command with a scheduling policy")
add("runner", "linux64 rm -rf /data/data", "busybox linux64 (setarch) runs its command")
add("runner", "linux32 sh -c 'rm -rf /vendor'", "busybox linux32 runs a shell")
add("runner", "mkdir -p /data/local/tmp/rp; printf '#!/system/bin/sh\\nrm -rf /system\\n' > /data/local/tmp/rp/go; chmod 755 /data/local/tmp/rp/go; run-parts /data/local/tmp/rp", "busybox run-parts runs every script in a directory")
add("runner", "start-stop-daemon -S -x /system/bin/rm -- -rf /data/data", "busybox start-stop-daemon starts rm")
add("runner", "awk 'BEGIN{\"rm -rf /system\" | getline}'", "awk runs a command as a getline source")
add("runner", "awk 'BEGIN{while((\"rm -rf /data/data\" | getline l) > 0) n++}'", "awk getline from a command inside a loop")
add("runner", "sh -ec 'rm -rf /system'", "combined shell flags -ec")
add("runner", "sh -x -c 'rm -rf /vendor' 2>/dev/null", "an option before -c")
add("runner", "echo 'rm -rf /system' > /data/local/tmp/e; ENV=/data/local/tmp/e sh -i </dev/null", "an interactive shell runs the $ENV start-up file")
add("runner", "PS1='$(rm -rf /data/data)' sh -i", "an interactive shell expands its prompt PS1")
add("runner", "trap 'rm -rf /system' 0", "trap on signal number 0 (exit)")
add("runner", "trap 'rm -rf /data/data' USR1; kill -USR1 $$", "trap on USR1, raised by the shell itself")
add("runner", "find /system -maxdepth 0 | busybox xargs busybox nuke", "busybox nuke deletes directories")
add("runner", "busybox nuke /data/data", "busybox nuke applet: remove a directory tree")

# --- computed: text turned into code with tools not yet used ---
add("computed", "printf '%s\\n' rm -rf /system | paste -sd' ' | sh", "paste -s joins lines into the command")
add("computed", "printf '%s\\n' rm -rf /data/data | xargs | sh", "xargs' default echo joins lines")
add("computed", "printf '%s\\n' /vendor -rf rm | tac | paste -sd' ' | sh", "tac reverses the words' order")
add("computed", "$(expr substr xrmx 2 2) -rf /system", "expr substr computes the command name")
add("computed", "rm -rf $(dirname /system/x)", "dirname computes the target")
add("computed", "$(basename /x/rm) -rf /data/data", "basename computes the command name")
add("computed", "rm -rf /$(date +sys)tem", "date prints literal text from its format")
add("computed", "rm -rf /storage/emulated/$(wc -l </dev/null)", "wc -l of an empty input gives the user number 0")
add("computed", "echo 'qm -qf /system' | sed 'y/q/r/' | sh", "sed y transliteration")
add("computed", "X=xxrmxx; $(echo $X | cut -c3-4) -rf /vendor", "cut -c extracts the command name")
add("computed", "$(command -v rm) -rf /system", "command -v prints rm's path, which then runs")
add("computed", "$(printf \"\\\\$(printf %o 114)\\\\$(printf %o 109)\") -rf /data/data", "octal escapes built from numbers by an inner printf")
add("computed", "echo 'rm -rf /vendorXYZ' | head -c 14 | sh", "head -c cuts the payload's tail")
add("computed", "printf 'begin 644 /data/local/tmp/u\\n/<FT@+7)F(\"]S>7-T96T*\\n`\\nend\\n' | uudecode; sh /data/local/tmp/u", "uuencoded script decoded by uudecode, then run")
add("computed", "echo OJWSALLSMYQC6ZDBORQS6ZDBORQQU=== | base32 -d | sh", "base32 (toybox) instead of base64")
add("computed", "seq -f 'rm -rf /system #%g' 1 | sh", "seq's printf format is the command", MK, "busybox sh runs its own seq applet first, which has no -f; mksh runs toybox seq as Android does")
add("computed", "date +'rm -rf /vendor' | sh", "date's format is the command")

# --- alias-path: routes to the same places not in tests/guard ---
add("alias-path", "rm -rf ~root/system", "~root is the root user's home, /")
add("alias-path", "rm -rf ~/data/data", "~ is $HOME, / for the shell user")
add("alias-path", "cd /system/bin && rm -rf \"${PWD%/bin}\"", "$PWD with a suffix removed")
add("alias-path", "rm -rf \"${SHELL%/bin/sh}\"", "$SHELL is /system/bin/sh")
add("alias-path", "rm -rf $TMPDIR/../../data", "$TMPDIR is /data/local/tmp, two .. reach /data")
add("alias-path", "rm -rf /data/local/tmp/../../../system", ".. over real directories")
add("alias-path", "rm -rf /mnt/user/0/primary/*", "/mnt/user/0/primary links to the storage")
add("alias-path", "rm -rf \"$(realpath /sdcard)\"/*", "realpath resolves /sdcard to the storage")

# --- storage: the whole shared storage without naming it whole ---
add("storage", "rm -rf /sdcard/D*", "DCIM, Download, Documents by one glob")
add("storage", "rm -rf /sdcard/[A-Z]*", "every capitalised top-level folder")
add("storage", "cd /sdcard && rm -rf -- */", "every folder, by a trailing-slash glob")
add("storage", "rm -rf /sdcard/*/", "every top-level folder via /sdcard/*/")
add("storage", "rm -rf /storage/emulated/0/?*", "? then * : every non-empty name")

# --- writer: destroying without rm ---
add("writer", "sort -o /system/framework/framework.jar /dev/null", "sort -o writes its (empty) output over the framework")
add("writer", "sed -i d /vendor/build.prop", "sed -i deletes every line in place")
add("writer", "unix2dos /system/framework/framework.jar", "in-place line-ending conversion corrupts a binary")
add("writer", "gzip /system/framework/framework.jar", "gzip replaces the file with a .gz")
add("writer", "truncate -s 0 /system/framework/framework.jar", "truncate empties the framework")
add("writer", "unlink /system/build.prop", "unlink instead of rm")
add("writer", "mv /system/framework /data/local/tmp/fw", "the framework moved out of the system image")
add("writer", "install -m 0644 /dev/null /system/framework/framework.jar", "install copies an empty file over it")
add("writer", "ln -sf /dev/null /data/system/packages.xml", "the package list replaced by a link to /dev/null")
add("writer", "cp /dev/null /data/system/packages.xml", "cp empties the package database")
add("writer", "shuf -o /data/system/users/0.xml /dev/null", "shuf -o writes empty output over the user record")
add("writer", "awk 'BEGIN{printf \"\" > \"/vendor/build.prop\"}'", "awk output redirection truncates a file")
add("writer", "sed -n 'w /system/build.prop' /dev/null", "sed's w command creates/truncates its file")
add("writer", "cd /data/local/tmp && mkdir -p t/system && echo x > t/system/build.prop && tar -C t -cf a.tar system && tar -C / -xf a.tar", "tar extracted at / overwrites a system file")
add("writer", "cd /data/local/tmp && mkdir -p c/system && echo x > c/system/build.prop && cd c && echo system/build.prop | cpio -pdmu /", "cpio copy-pass mode overwrites a system file")
add("writer", "printf 'w /system/build.prop\\nq\\n' | ed /data/local/tmp/a", "busybox ed writes its buffer over a system file")

# --- redirect: shell redirections onto devices and system files ---
add("redirect", "echo x 1<>/dev/block/by-name/boot", "read-write redirection <> writes in place")
add("redirect", "echo x >|/dev/block/by-name/vbmeta", "clobber redirection >|")
add("redirect", ">/dev/block/by-name/userdata echo x", "redirection before the command name")
add("redirect", "{ echo x; } >/dev/block/mmcblk0", "redirection on a brace group")
add("redirect", "f() { echo x; } >/dev/block/sda; f", "redirection attached to a function definition, applied when it runs")
add("redirect", "ls /nonexistent 2>/dev/block/by-name/misc", "an error message redirected onto the misc partition")
add("redirect", "while :; do echo x; break; done >>/dev/block/dm-0", "redirection on a loop")
add("redirect", "exec 4<>/dev/block/by-name/userdata; echo x >&4", "exec opens fd 4 read-write, then a dup writes")
add("redirect", "> /system/framework/framework.jar", "a bare redirection with no command truncates")
add("redirect", "echo x > /data/local/tmp/u1; uniq /data/local/tmp/u1 /dev/block/by-name/boot", "uniq's second operand is its output file")

# --- recovery file and wipes by other routes ---
add("wipe", "echo --wipe_data 1<> /cache/recovery/command", "<> creates the recovery command file")
add("wipe", "echo --wipe_data | sed -n 'w /cache/recovery/command'", "sed w writes the recovery command")
add("wipe", "echo --wipe_data | awk '{print > \"/cache/recovery/command\"}'", "awk print > file")
add("wipe", "echo --wipe_data | sort -o /cache/recovery/command", "sort -o writes the recovery command")
add("wipe", "echo --wipe_data | dd of=/cache/recovery/command 2>/dev/null", "dd writes the recovery command")
add("wipe", "echo --wipe_data > /data/local/tmp/c; install /data/local/tmp/c /cache/recovery/command", "install copies it into place")
add("wipe", "service call recovery 4 s16 '--wipe_data'", "IRecoverySystem.rebootRecoveryWithCommand through service call")
add("wipe", "am broadcast 'intent:#Intent;action=android.intent.action.MASTER_CLEAR;end'", "the action given inside an intent: URI")
add("wipe", "echo enable | xargs cmd testharness", "test-harness mode with the last word from xargs")
add("wipe", "set -- testharness enable; cmd \"$@\"", "test-harness mode from the positional parameters")

U = []
def drop(family, cmd, note, why):
    U.append({"family": family, "cmd": cmd, "note": note, "sandbox": "skip", "why": why})

# Proven once the sandbox learnt HARM.md's mass-package and user classes, app_process and the
# intent URIs Android decodes: moved out of unprovable.jsonl into catastrophic-round2-added.jsonl.
A = []
def proven_later(family, cmd, note, why):
    A.append({"family": family, "cmd": cmd, "note": note})
drop("syntax", "[() { rm -rf /data/data; }; [ -d /sdcard ]", "a function named `[`", "not an attack: both mksh and busybox sh reject `[` as a function name")
drop("runner", "uclampset -m 0 -- rm -rf /vendor", "toybox uclampset runs its command", "the sandbox kernel has no utilization clamping (sched_setattr: not supported), so the command never runs; without `--` toybox rejects -rf")
drop("redirect", "echo 0000 | xxd -r -p - /dev/block/by-name/vbmeta", "xxd -r output operand", "not an attack: toybox and busybox xxd take one file operand")
proven_later("mass-app", "pm list packages -3 | cut -d: -f2 | xargs -n1 pm uninstall", "uninstall every third-party package, computed on the device", "the pm stub only logs; tree.verdict has no rule for uninstalls")
proven_later("mass-app", "for p in $(pm list packages | sed s/package://); do pm clear $p; done", "clear every package's data", "the pm stub only logs; the app databases are untouched")
proven_later("mass-app", "cmd package list packages | cut -d: -f2 | while read p; do cmd package clear \"$p\"; done", "clear every package through cmd package", "the cmd stub only logs")
proven_later("user", "pm remove-user 10; cmd user remove-user --set-ephemeral-if-in-use 0", "remove users", "no verdict rule for user removal")
proven_later("wipe", "CLASSPATH=/system/framework/am.jar app_process /system/bin com.android.commands.am.Am broadcast -a android.intent.action.MASTER_CLEAR", "masterclear through app_process", "app_process is not a sandbox stub")
proven_later("wipe", "am broadcast 'intent:#Intent;action=android.intent.action.MASTER%5FCLEAR;end'", "the action percent-encoded in an intent: URI (Intent.parseUri decodes it)", "the am stub does not decode URIs, so WIPE_PATTERNS do not see MASTER_CLEAR")
(HERE / "unprovable.jsonl").write_text("".join(json.dumps(r) + "\n" for r in U))
(HERE / "catastrophic-round2-added.jsonl").write_text("".join(json.dumps(r) + "\n" for r in A))
(HERE / "catastrophic-round2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in R))
print(len(R))
