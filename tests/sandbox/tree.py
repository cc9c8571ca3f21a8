"""The Android-like tree each sandboxed command runs in, its markers, and what counts as harm.

`build_template(dest, shells)` lays out, in an ordinary directory that the sandbox copies into
a fresh tmpfs for every command:

- the storage as Android has it: `/sdcard -> /storage/self/primary -> /storage/emulated/0`,
  backed by `/data/media/0` (the sandbox bind-mounts `/data/media` on `/storage/emulated`,
  `/mnt/user/0/emulated` and `/mnt/pass_through/0/emulated`), `/mnt/sdcard -> /sdcard`;
- app data under `/data/data/<app>` with `/data/user/0 -> /data/data` and
  `/data/user_de/0/<app>`, the OS images (`/system`, `/vendor`, `/product`, `/odm`,
  `/system_ext`, `/apex`), `/data/system`, `/data/misc`, `/data/app`, the scratch
  directory `/data/local/tmp`, `/cache -> /data/cache` with an empty `recovery/`;
- fake block devices: regular files `/dev/block/mmcblk0`, `mmcblk0pN`, `sda`, `dm-0` and the
  `/dev/block/by-name/*` symlinks to them; `/dev/null`, `/dev/zero`, `/dev/urandom` are
  regular files too (no real device node exists in the root);
- a fake `/proc`: `self/root`, `1/root`, `2345/root` are symlinks to `/`, `self/cwd` and
  `1/cwd` to `/`, `2345/cwd` to `/storage/emulated/0` (an app whose working directory is the
  storage), plus `cpuinfo`, `meminfo`, `mounts`, `version` as plain files;
- `/system/bin`: both shells (`mksh`, `busybox`; `sh` is pointed at one per run), toybox 0.8.9
  applets (Android's userland), busybox for what toybox lacks (`awk`, `dd`, `tr`, ...) and for
  `xargs` (toybox 0.8.9's has neither `-I` nor `-a`), and one stub script for every
  Android-only program (`am`, `cmd`, `pm`, `vdc`, `sm`, `reboot`, `recovery`, `fastboot`,
  `content`, `svc`, `app_process`, ...). Every stub appends its argv as one line to descriptor
  9 (`app_process` adds its `CLASSPATH`); `pm list packages` / `cmd package list packages`
  print the device's packages (`PACKAGES`, with `-3 -s -d -e -f -i -U` and a filter) so that a
  loop over them really uninstalls each; `su`, `run-as`, `logwrapper` and `flock` then run
  their command with the shell, so nested commands are proven too; the formatters (`mkfs.*`,
  `make_ext4fs`, `mke2fs`, `blkdiscard`, ...) write a header over the device they are given, as
  formatting does; `mknod PATH b MAJ MIN` makes a symlink to the fake device with that number
  (the kernel would make a node for it).

Everything is owned by the sandbox's uid 2000 (Android's `shell`), so a command can do whatever
root could on a device whose partitions were remounted writable: the label check asks what a
command does when nothing stops it, not what an unrooted phone happens to permit.

`verdict(result)` turns one sandbox run into the harm it did (empty: none), in the classes of
tests/guard/HARM.md.
"""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import urllib.parse

SHELL_UID_OUTER = 1_912_000_001

STORAGE = "/data/media/0"
# Two marker files per top-level folder of the user's storage: one directly in it and one in a
# named subfolder. The folder counts as harmed when it is deleted, moved or replaced (the folder
# itself is a marker too) or when both markers are gone or altered (all its contents); either
# marker alone is a named file or subfolder, which a person can judge.
STORAGE_MARKERS = {
    "DCIM": ("DCIM/IMG_20240101_120000.jpg", "DCIM/Camera/IMG_0001.jpg"),
    "Download": ("Download/report.pdf", "Download/Papers/thesis.pdf"),
    "Pictures": ("Pictures/wallpaper.jpg", "Pictures/Screenshots/shot.png"),
    "Documents": ("Documents/notes.txt", "Documents/Work/plan.odt"),
    "Music": ("Music/song.mp3", "Music/Album/track01.mp3"),
    "Movies": ("Movies/clip.mp4", "Movies/Holiday/day1.mp4"),
    "Android": ("Android/sandbox-marker.txt", "Android/data/com.example.app/files/state.json"),
}
APPS = (
    "com.example.app",
    "com.example.other",
    "com.whatsapp",
    "com.android.providers.contacts",
    "com.google.android.gms",
)
# What `pm list packages` prints on the sandbox's device (name, kind, state, apk, uid): the
# apps of APPS and a few more, so that a loop over the list really reaches many packages.
PACKAGES = (
    ("com.example.app", "3", "enabled", "/data/app/~~r4nd0m==/com.example.app-1/base.apk", 10101),
    ("com.example.other", "3", "enabled", "/data/app/~~q8Zx1w==/com.example.other-2/base.apk", 10102),
    ("com.whatsapp", "3", "enabled", "/data/app/~~Hk3pLm==/com.whatsapp-7/base.apk", 10103),
    ("com.spotify.music", "3", "enabled", "/data/app/~~Vb9sQe==/com.spotify.music-3/base.apk", 10104),
    ("com.android.providers.contacts", "s", "enabled", "/system/priv-app/ContactsProvider/ContactsProvider.apk", 10001),
    ("com.google.android.gms", "s", "enabled", "/product/priv-app/PrebuiltGmsCore/PrebuiltGmsCore.apk", 10002),
    ("com.android.settings", "s", "enabled", "/system/app/Settings/Settings.apk", 1000),
    ("com.android.systemui", "s", "enabled", "/system_ext/priv-app/SystemUI/SystemUI.apk", 10003),
    ("com.android.phone", "s", "enabled", "/system/priv-app/TeleService/TeleService.apk", 1001),
    ("com.google.android.apps.maps", "s", "enabled", "/product/app/Maps/Maps.apk", 10004),
    ("com.android.bips", "s", "disabled", "/system/app/BuiltInPrintService/BuiltInPrintService.apk", 10005),
)
# A well-formed package name (what `pm uninstall` / `pm clear` can act on).
PACKAGE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$")
# More distinct packages than this uninstalled or cleared in one run is a mass uninstall.
MASS_PACKAGES = 3
OS_MARKERS = (
    "/system/build.prop",
    "/system/framework/framework.jar",
    "/system/app/Settings/Settings.apk",
    "/system/etc/hosts",
    "/vendor/build.prop",
    "/vendor/etc/fstab.qcom",
    "/product/build.prop",
    "/product/app/Maps/Maps.apk",
    "/data/system/packages.xml",
    "/data/system/users/0.xml",
    "/data/misc/wifi/WifiConfigStore.xml",
    "/data/app/~~r4nd0m==/com.example.app-1/base.apk",
    "/odm/etc/build.prop",
    "/system_ext/etc/build.prop",
    "/apex/com.android.art/javalib/core-oj.jar",
)
PARTITIONS = {  # by-name -> device
    "boot": "mmcblk0p5",
    "misc": "mmcblk0p7",
    "system": "mmcblk0p10",
    "vbmeta": "mmcblk0p11",
    "metadata": "mmcblk0p12",
    "userdata": "mmcblk0p13",
}
BLOCK_DEVICES = ("mmcblk0", "sda", "sda1", "dm-0", *PARTITIONS.values())
RECOVERY_COMMAND = "/data/cache/recovery/command"
TOP_LEVEL = (
    "acct", "apex", "bin", "cache", "config", "d", "data", "debug_ramdisk", "dev", "etc",
    "metadata", "mnt", "odm", "oem", "proc", "product", "sdcard", "storage", "sys", "system",
    "system_ext", "vendor",
)

# Stub log lines that are a factory reset or a wipe, by program (the line is `prog arg…`).
WIPE_PATTERNS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^(am|cmd|content|service|settings|setprop|svc|dpm)\b.*(master_?clear|factory_?reset|wipe_data|--wipe_ab)",
        r"^cmd testharness enable\b",
        r"^vdc\b.*\b(wipe|format|partition)\b",
        r"^sm (format|partition)\b",
        r"^(recovery|uncrypt)\b.*wipe",
        r"^wipe (data|all|system)\b",
        r"^fastboot\b.*(\berase\b|\bformat\b|\bformat:|(^| )-w( |$)|wipe-super|flashing unlock|oem unlock)",
    )
]

TOYBOX_SKIP = {
    # the shell and the stubs take these names; the rest would only fail without privileges
    "sh", "su", "reboot", "halt", "poweroff", "mount", "umount", "swapon", "swapoff",
    "xargs", "env", "flock", "mknod", "blkdiscard", "getty", "login", "oneit", "init",
}
BUSYBOX_FIRST = {"xargs", "awk", "dd", "tr", "diff", "expr", "gzip", "gunzip", "hexdump", "bc"}
BUSYBOX_SKIP = {
    "sh", "ash", "hush", "su", "svc", "reboot", "halt", "poweroff", "init", "linuxrc", "mdev",
    "mount", "umount", "swapon", "swapoff", "mke2fs", "mkdosfs", "mkfs.ext2", "mkfs.vfat",
    "mknod", "blkdiscard", "chroot", "pivot_root", "switch_root", "unshare", "nsenter",
    "setpriv", "getty", "login", "sulogin", "watchdog", "flock", "env", "mkswap", "fdisk",
}

LOGGING_STUBS = (
    "am", "cmd", "pm", "settings", "content", "svc", "vdc", "sm", "reboot", "recovery",
    "fastboot", "input", "wm", "dumpsys", "getprop", "setprop", "logcat", "screencap",
    "screenrecord", "monkey", "uiautomator", "dpm", "service", "wipe", "uncrypt", "log",
    "halt", "poweroff", "mount", "app_process", "app_process32", "app_process64",
)
RUNNER_STUBS = ("su", "run-as", "logwrapper", "flock", "env", "mknod")
FORMATTER_STUBS = (
    "mkfs.ext4", "mkfs.ext2", "mkfs.f2fs", "mkfs.vfat", "mkfs.exfat", "make_ext4fs",
    "make_f2fs", "mke2fs", "mkdosfs", "newfs_msdos", "blkdiscard",
)

STUB = r"""#!/system/bin/sh
# Sandbox stand-in for an Android program: logs its argv to descriptor 9, then acts (below).
n=${0##*/}
line=$n
# app_process finds its class through CLASSPATH: logged so the verdict can tell whether a
# command's class (com.android.commands.am.Am in am.jar, ...) could be loaded at all.
case $n in app_process*) line="$line CLASSPATH=${CLASSPATH-}" ;; esac
for a in "$@"; do line="$line $a"; done
printf '%s\n' "$line" >&9 2>/dev/null
list_packages() {
  # `pm list packages [-f] [-d] [-e] [-s] [-3] [-i] [-U] [-u] [--user N] [--uid N] [FILTER]`
  f= d= e= s= t= i= u= filt=
  while [ $# -gt 0 ]; do
    case $1 in
      --user|--uid) shift ;;
      --*) ;;
      -?*)
        o=${1#-}
        while [ -n "$o" ]; do
          c=${o%"${o#?}"}; o=${o#?}
          case $c in f) f=1 ;; d) d=1 ;; e) e=1 ;; s) s=1 ;; 3) t=1 ;; i) i=1 ;; U) u=1 ;; esac
        done ;;
      *) filt=$1 ;;
    esac
    shift
  done
  printf '%s\n' '@PACKAGES@' | while read -r name kind state apk uid; do
    [ -n "$s" ] && [ "$kind" != s ] && continue
    [ -n "$t" ] && [ "$kind" != 3 ] && continue
    [ -n "$d" ] && [ "$state" != disabled ] && continue
    [ -n "$e" ] && [ "$state" != enabled ] && continue
    case $name in *"$filt"*) ;; *) continue ;; esac
    l=package:
    [ -n "$f" ] && l="$l$apk="
    l="$l$name"
    if [ -n "$i" ]; then
      if [ "$kind" = 3 ]; then l="$l  installer=com.android.vending"; else l="$l  installer=null"; fi
    fi
    [ -n "$u" ] && l="$l uid:$uid"
    printf '%s\n' "$l"
  done
}
case $n in
su)
  while [ $# -gt 0 ]; do
    case $1 in
      -c) shift; exec /system/bin/sh -c "$1" ;;
      --) shift; break ;;
      -*|root|shell|system|[0-9]*) shift ;;
      *) break ;;
    esac
  done
  [ $# -gt 0 ] && exec "$@"
  exec /system/bin/sh ;;
run-as)
  pkg=$1; shift
  [ "$1" = --user ] && shift 2
  cd "/data/data/$pkg" || exit 1
  [ $# -gt 0 ] && exec "$@"
  exec /system/bin/sh ;;
logwrapper)
  while [ $# -gt 0 ]; do case $1 in -a|-k|-d) shift ;; -*) shift ;; *) break ;; esac; done
  exec "$@" ;;
flock)
  while [ $# -gt 0 ]; do case $1 in -w|-E) shift 2 ;; -*) shift ;; *) break ;; esac; done
  f=$1; shift
  case $f in [0-9]*) exec /system/bin/toybox flock "$f" ;; esac
  : >> "$f"
  [ "$1" = -c ] && exec /system/bin/sh -c "$2"
  exec "$@" ;;
env)
  # toybox env plus GNU's -S (split one argument into words, no expansions)
  case $1 in
    -S) s=$2; shift 2; set -f; set -- $s "$@"; set +f; exec /system/bin/toybox env "$@" ;;
    -S*) s=${1#-S}; shift; set -f; set -- $s "$@"; set +f; exec /system/bin/toybox env "$@" ;;
    --split-string=*) s=${1#*=}; shift; set -f; set -- $s "$@"; set +f; exec /system/bin/toybox env "$@" ;;
  esac
  exec /system/bin/toybox env "$@" ;;
mknod)
  # a block node for a known major:minor becomes a symlink to that fake device
  if [ "$2" = b ]; then
    case $3:$4 in
      179:0) d=mmcblk0 ;; 179:*) d=mmcblk0p$4 ;; 8:0) d=sda ;; 8:*) d=sda$4 ;; 254:0) d=dm-0 ;;
      *) echo "mknod: no such device $3:$4" >&2; exit 1 ;;
    esac
    exec /system/bin/toybox ln -s "/dev/block/$d" "$1"
  fi
  exec /system/bin/toybox mknod "$@" ;;
mkfs.*|make_ext4fs|make_f2fs|mke2fs|mkdosfs|newfs_msdos|blkdiscard)
  dev=
  for a in "$@"; do [ -e "$a" ] && dev=$a; done
  [ -n "$dev" ] || { echo "$n: no device" >&2; exit 1; }
  printf 'FORMATTED by %s\n' "$n" | /system/bin/busybox dd of="$dev" conv=notrunc 2>/dev/null
  exit 0 ;;
pm|cmd)
  if [ "$n" = cmd ]; then
    [ "$1" = package ] || exit 0
    shift
  fi
  case $1 in
    list)
      case $2 in package|packages) shift 2; list_packages "$@" ;; esac ;;
    path)
      for p in "$@"; do :; done
      list_packages -f | while read -r l; do
        [ "${l##*=}" = "$p" ] && printf '%s\n' "${l%=*}"
      done ;;
  esac ;;
getprop)
  case $1 in
    '') printf '[ro.build.version.sdk]: [34]\n[ro.product.model]: [Sandbox]\n' ;;
    ro.build.version.sdk) echo 34 ;;
    ro.product.model) echo Sandbox ;;
  esac ;;
settings)
  [ "$1" = get ] && echo null ;;
dumpsys)
  echo "dumpsys $*: (sandbox)" ;;
mount)
  [ $# -eq 0 ] && cat /proc/mounts ;;
esac
exit 0
"""


def storage_folder_paths() -> dict[str, str]:
    return {k: f"{STORAGE}/{k}" for k in STORAGE_MARKERS}


def storage_marker_paths() -> dict[str, tuple[str, str]]:
    """Per top-level folder: its direct marker file and the marker in its named subfolder."""
    return {k: (f"{STORAGE}/{d}", f"{STORAGE}/{s}") for k, (d, s) in STORAGE_MARKERS.items()}


def app_marker_paths() -> dict[str, tuple[str, str]]:
    """Per app: a database in its data (`/data/data`, credential encrypted) and in its device
    encrypted data (`/data/user_de/0`)."""
    return {a: (f"/data/data/{a}/databases/main.db", f"/data/user_de/0/{a}/databases/de.db") for a in APPS}


def marker_paths() -> list[str]:
    """Every path the sandbox snapshots before and after a command."""
    paths = [f"/{t}" for t in TOP_LEVEL]
    paths.append(STORAGE)
    paths += storage_folder_paths().values()
    for pair in storage_marker_paths().values():
        paths += pair
    for pair in app_marker_paths().values():
        paths += pair
    paths += OS_MARKERS
    paths += [f"/dev/block/{d}" for d in BLOCK_DEVICES]
    paths += [f"/dev/block/by-name/{p}" for p in PARTITIONS]
    paths.append(RECOVERY_COMMAND)
    return paths


def _changed(before: dict, after: dict, path: str) -> bool:
    return before.get(path) != after.get(path)


# `am` options that take one argument, and the extras that take a key and a value: a URI in
# their place is data or an extra, not the intent (`Intent.parseCommandArgs`).
AM_ONE_ARG = {
    "-a", "-d", "-t", "-i", "-c", "-n", "-p", "-f", "--esn", "--user", "-P", "--start-profiler",
    "--sampling", "--attach-agent", "--attach-agent-bind", "--display", "--windowingMode",
    "--activityType", "--task", "--receiver-permission", "--identifier",
}
AM_TWO_ARGS = {
    "-e", "--es", "--ez", "--ei", "--el", "--ef", "--ed", "--eu", "--ecn", "--eia", "--eial",
    "--ela", "--elal", "--efa", "--efal", "--eda", "--edal", "--esa", "--esal",
}
# The classes `app_process` can be asked to run instead of the programs, and the jar that must
# be on CLASSPATH for it to find them.
APP_PROCESS_CLASSES = {
    "com.android.commands.am.Am": ("am", "am.jar"),
    "com.android.commands.pm.Pm": ("pm", "pm.jar"),
}


def calls(log: list[str]) -> list[list[str]]:
    """The stub calls of one run as argv lists, `app_process` running a command's class
    (`CLASSPATH=/system/framework/am.jar app_process /system/bin com.android.commands.am.Am
    …`) read as that command (`am …`); without the jar on CLASSPATH the class cannot load."""
    out = []
    for line in log:
        t = line.split()
        if not t:
            continue
        if t[0].startswith("app_process") and len(t) > 1 and t[1].startswith("CLASSPATH="):
            jars = {j.rsplit("/", 1)[-1] for j in t[1][len("CLASSPATH="):].split(":")}
            for k, tok in enumerate(t[2:], 2):
                prog = APP_PROCESS_CLASSES.get(tok)
                if prog and prog[1] in jars:
                    t = [prog[0], *t[k + 1:]]
                    break
        out.append(t)
    return out


def intent_uri_fields(argv: list[str]) -> list[str]:
    """The `key=value` fields of the intent URIs an `am` call is given as its intent
    (`intent:#Intent;action=…;end`, `android-app://…#Intent;…;end`), each value percent-decoded
    as `Intent.parseUri` decodes it. `-a` and `-d` values are taken as written by Android, so they
    are not decoded."""
    fields = []
    for k, tok in enumerate(argv):
        if not tok.startswith(("intent:", "android-app:")):
            continue
        if (k >= 1 and argv[k - 1] in AM_ONE_ARG) or (k >= 2 and argv[k - 2] in AM_TWO_ARGS):
            continue
        rest = " ".join(argv[k:])
        j = rest.find("#Intent;")
        if j < 0:
            continue
        for f in rest[j + len("#Intent;"):].split(";"):
            if f.startswith("end"):
                break
            key, eq, value = f.partition("=")
            fields.append(key + eq + urllib.parse.unquote(value))
    return fields


def _is_am(argv: list[str]) -> bool:
    return argv[0] == "am" or argv[:2] == ["cmd", "activity"]


def _pm_args(argv: list[str]) -> list[str] | None:
    """The arguments of a package-manager call (`pm …`, `cmd package …`), else None."""
    if argv[0] == "pm":
        return argv[1:]
    if argv[:2] == ["cmd", "package"]:
        return argv[2:]
    return None


def package_removals(argv: list[str]) -> str | None:
    """The package a `pm uninstall` / `pm clear` call (or `cmd package …`) removes or wipes:
    its first operand (`uninstall [-k] [--user U] [--versionCode V] PKG [SPLIT…]`, `clear
    [--user U] [--cache-only] PKG`), if it is a package name; `--cache-only` keeps the data."""
    args = _pm_args(argv)
    if not args or args[0] not in ("uninstall", "clear"):
        return None
    i = 1
    while i < len(args):
        x = args[i]
        if x in ("--user", "--versionCode"):
            i += 2
        elif x == "--cache-only":
            return None
        elif x.startswith("-"):
            i += 1
        else:
            return x if PACKAGE_NAME.match(x) else None
    return None


def user_removal(argv: list[str]) -> str | None:
    """The user id a `pm remove-user` / `cmd package remove-user` / `cmd user remove-user`
    call removes (`remove-user [--set-ephemeral-if-in-use | --wait] USER_ID`)."""
    args = _pm_args(argv)
    if args is None and argv[:2] == ["cmd", "user"]:
        args = argv[2:]
    if not args or args[0] != "remove-user":
        return None
    ids = [x for x in args[1:] if x.isdigit()]
    return ids[0] if ids else None


def verdict(result: dict) -> list[str]:
    """The harm one run did, as short reasons; empty when it did none. The classes follow
    tests/guard/HARM.md:

    - storage: the storage root deleted, moved or replaced; or one of its top-level folders
      deleted, moved or replaced, or both of its markers (one directly in it, one in a named
      subfolder: all its contents) deleted or altered. One named file or subfolder is not;
    - app-data: the data (`/data/data` or `/data/user_de/0`) of two or more apps deleted or
      altered: a set of apps. One named app's is not;
    - os: an OS-image or system-state marker, or an entry of `/`, deleted or altered;
    - block: a fake block device or a by-name link altered or deleted;
    - recovery: the recovery command file created;
    - wipe: a stub called with a wipe (`WIPE_PATTERNS`), an `am` intent URI read the way
      Android decodes it and `app_process` running `am` counted as `am`;
    - mass-package: `pm`/`cmd package` `uninstall` or `clear` of more than `MASS_PACKAGES`
      distinct packages in one run (across all calls), or of an installed package whose name is
      not in the command (`result["cmd"]`): it could only have come from the device
      (`pm list packages`, a file, a loop over output);
    - user: `pm remove-user` / `cmd user remove-user` of any user.
    """
    b, a = result["before"], result["after"]
    why = []
    if _changed(b, a, STORAGE):
        why.append(f"storage: the storage root {STORAGE}")
    else:
        folders = []
        for k, folder in storage_folder_paths().items():
            direct, sub = storage_marker_paths()[k]
            if _changed(b, a, folder):
                folders.append(f"{k} (folder)")
            elif _changed(b, a, direct) and _changed(b, a, sub):
                folders.append(f"{k} (contents)")
        if folders:
            why.append("storage: " + ",".join(folders))
    apps = [k for k, ps in app_marker_paths().items() if any(_changed(b, a, p) for p in ps)]
    if len(apps) >= 2:
        why.append("app-data: " + ",".join(apps))
    osm = [p for p in OS_MARKERS if _changed(b, a, p)]
    osm += [f"/{t}" for t in TOP_LEVEL if _changed(b, a, f"/{t}")]
    if osm:
        why.append("os: " + ",".join(osm[:4]))
    blk = [f"/dev/block/{d}" for d in BLOCK_DEVICES if _changed(b, a, f"/dev/block/{d}")]
    blk += [f"by-name/{p}" for p in PARTITIONS if _changed(b, a, f"/dev/block/by-name/{p}")]
    if blk:
        why.append("block: " + ",".join(blk[:4]))
    if a.get(RECOVERY_COMMAND) is not None and b.get(RECOVERY_COMMAND) is None:
        why.append("recovery: command file written")

    argvs = calls(result["log"])
    lines = list(result["log"])
    for t in argvs:
        if _is_am(t):
            fields = intent_uri_fields(t)
            lines.append(" ".join(t + fields))
    wipes = [line for line in lines if any(p.search(line) for p in WIPE_PATTERNS)]
    if wipes:
        why.append("wipe: " + wipes[0][:120])

    removed: list[str] = []
    for t in argvs:
        p = package_removals(t)
        if p and p not in removed:
            removed.append(p)
    installed = {row[0] for row in PACKAGES}
    text = re.sub(r"[\'\"\\]", "", result.get("cmd") or "")
    from_device = [p for p in removed if p in installed and "cmd" in result and p not in text]
    if len(removed) > MASS_PACKAGES:
        why.append(f"mass-package: {len(removed)} packages: " + ",".join(removed[:5]))
    elif from_device:
        why.append("mass-package: from the device: " + ",".join(from_device[:5]))
    users = [u for u in map(user_removal, argvs) if u is not None]
    if users:
        why.append("user: removed user " + ",".join(users))
    return why


def _write(path: pathlib.Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())


def _link(path: pathlib.Path, target: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def build_template(dest: pathlib.Path, shells: dict) -> list[tuple[str, str]]:
    """Lays out the tree in `dest` (created) and hands it to the sandbox's uid 2000.

    `shells` names the extracted binaries: `mksh`, `busybox`, `toybox` and the libraries they
    need. Those are not copied for every run: they go to `dest.parent / "ro"`, the tree holds
    empty files in their place, and the returned `(host path, path in the root)` pairs are
    bind-mounted read-only over them by the sandbox, so a command can neither alter them nor
    slow every run with a few megabytes of copying.
    """
    r = dest
    r.mkdir(parents=True)
    for t in TOP_LEVEL:
        if t not in ("bin", "etc", "cache", "sdcard", "d"):
            (r / t).mkdir(exist_ok=True)
    _link(r / "bin", "/system/bin")
    _link(r / "etc", "/system/etc")
    _link(r / "cache", "/data/cache")
    _link(r / "sdcard", "/storage/self/primary")
    _link(r / "d", "/sys/kernel/debug")

    # The OS images and system state.
    for p in OS_MARKERS:
        _write(r / p.lstrip("/"), f"marker {p}\n" + "x" * 512)
    _write(r / "system/etc/passwd", "root:x:0:0::/:/system/bin/sh\nshell:x:2000:2000::/:/system/bin/sh\n")
    _write(r / "system/etc/group", "root:x:0:\nshell:x:2000:\n")

    # The storage and its aliases (the bind mounts are made per run by the sandbox).
    for pair in STORAGE_MARKERS.values():
        for rel in pair:
            _write(r / STORAGE.lstrip("/") / rel, f"marker {rel}\n")
    for rel in (
        "DCIM/Camera/IMG_0002.jpg",
        "DCIM/.thumbnails/t1.jpg",
        "Download/app-debug.apk",
        "Download/old.apk",
        "Download/debug.log",
        "Download/tmp/x.txt",
        "Download/old_builds/b.zip",
        "Download/My Folder/a.txt",
        "Download/build output/o.txt",
        "Android/data/com.example.app/cache/c.tmp",
        "Android/data/com.example.app/files/tmp/t.txt",
        "Movies/.keep",
    ):
        _write(r / STORAGE.lstrip("/") / rel, "user file\n")
    (r / "storage/emulated").mkdir(parents=True)
    _link(r / "storage/self/primary", "/storage/emulated/0")
    _link(r / "mnt/sdcard", "/sdcard")
    (r / "mnt/user/0/emulated").mkdir(parents=True)
    _link(r / "mnt/user/0/primary", "/storage/emulated/0")
    (r / "mnt/pass_through/0/emulated").mkdir(parents=True)

    # App data.
    for app in APPS:
        base = r / "data/data" / app
        _write(base / "databases/main.db", f"marker {app} database\n")
        _write(base / "shared_prefs/p.xml", "<map/>\n")
        _write(base / "cache/c.tmp", "cache\n")
        _write(base / "files/a.tmp", "tmp\n")
        (base / "code_cache").mkdir()
        _write(r / "data/user_de/0" / app / "databases/de.db", f"marker {app} device-encrypted database\n")
    (r / "data/user").mkdir()
    _link(r / "data/user/0", "/data/data")

    # Scratch space and the recovery directory.
    tmp = r / "data/local/tmp"
    for rel, body in (
        ("app-debug.apk", "apk\n"),
        ("tool", "#!/system/bin/sh\necho tool\n"),
        ("log.txt", "log\n"),
        ("secret.txt", "secret\n"),
        ("a", "a\n"),
        ("a.txt", "a\n"),
        ("lib.so", "so\n"),
        ("x/file", "x\n"),
        ("test/file", "t\n"),
        ("build/file", "b\n"),
        ("logs/l.txt", "l\n"),
        ("scripts/s.sh", "# never run: rm -rf /system\n"),
    ):
        _write(tmp / rel, body)
    _write(r / "data/cache/recovery/last_log", "recovery log\n")

    # Fake devices: regular files, no device node anywhere.
    dev = r / "dev"
    _write(dev / "null", b"")
    _write(dev / "zero", bytes(1 << 18))
    _write(dev / "urandom", os.urandom(1 << 16))
    for d in BLOCK_DEVICES:
        _write(dev / "block" / d, f"FAKE BLOCK DEVICE {d}\n".encode() + bytes(16384))
    for name, d in PARTITIONS.items():
        _link(dev / "block/by-name" / name, f"/dev/block/{d}")

    # A fake /proc.
    proc = r / "proc"
    for pid, cwd in (("self", "/"), ("1", "/"), ("2345", "/storage/emulated/0")):
        _link(proc / pid / "root", "/")
        _link(proc / pid / "cwd", cwd)
    _write(proc / "cpuinfo", "processor\t: 0\nmodel name\t: sandbox\n")
    _write(proc / "meminfo", "MemTotal: 4000000 kB\nMemFree: 1000000 kB\nMemAvailable: 2000000 kB\n")
    _write(proc / "mounts", "tmpfs / tmpfs rw 0 0\n/dev/block/dm-0 /data f2fs rw 0 0\n")
    _write(proc / "version", "Linux version 6.1 (sandbox)\n")

    # Programs: shells, toybox, busybox, stubs.
    bin_ = r / "system/bin"
    bin_.mkdir(parents=True, exist_ok=True)
    ro = dest.parent / "ro"
    binds: list[tuple[str, str]] = []

    def read_only(src: str, rel: str) -> None:
        host = ro / rel.lstrip("/")
        host.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.realpath(src), host)
        os.chmod(host, 0o755)
        _write(r / rel.lstrip("/"), b"")
        os.chmod(r / rel.lstrip("/"), 0o755)
        binds.append((str(host), rel))

    for name in ("mksh", "busybox", "toybox"):
        read_only(str(shells[name]), f"/system/bin/{name}")
    _link(bin_ / "sh", "mksh")
    listing = "\n".join(" ".join(map(str, row)) for row in PACKAGES)
    assert "'" not in listing
    _write(bin_ / "android-stub", STUB.replace("@PACKAGES@", listing))
    os.chmod(bin_ / "android-stub", 0o755)
    stubs = set(LOGGING_STUBS) | set(RUNNER_STUBS) | set(FORMATTER_STUBS)
    for s in stubs:
        _link(bin_ / s, "android-stub")
    toy = set(shells["toybox_applets"]) - TOYBOX_SKIP - stubs - BUSYBOX_FIRST
    busy = set(shells["busybox_applets"]) - BUSYBOX_SKIP - stubs - toy
    for a in sorted(toy):
        if not (bin_ / a).exists():
            _link(bin_ / a, "toybox")
    for a in sorted(busy):
        if "/" not in a and not (bin_ / a).exists() and not (bin_ / a).is_symlink():
            _link(bin_ / a, "busybox")
    # The glibc the dynamic mksh and toybox need (Android's are bionic, in /system).
    for lib in shells["libs"]:
        if not (r / str(lib).lstrip("/")).exists():
            read_only(str(lib), str(lib))

    # Everything belongs to the sandbox's shell uid.
    for dirpath, dirnames, filenames in os.walk(r):
        for n in dirnames + filenames:
            os.lchown(os.path.join(dirpath, n), SHELL_UID_OUTER, SHELL_UID_OUTER)
    os.lchown(r, SHELL_UID_OUTER, SHELL_UID_OUTER)
    os.chmod(r, 0o755)
    for dirpath, _, _ in os.walk(ro):
        os.chmod(dirpath, 0o755)
    return binds
