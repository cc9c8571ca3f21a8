"""Call-time guard vs. catastrophic commands delivered as a value into templates that make the value
code (`sh -c {x}`, an unquoted here-doc body, `"$(echo "{x}")"`), all declared read-only (nobody is
asked). For each variant: did the guard refuse it? If not, what does a real mksh run for the
expanded command (stub commands that only log argv)?"""
import asyncio, json, sys
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

def T(n, c):
    return f"[[tool]]\nname = \"atk_{n}\"\ndescription = \"t\"\nlevel = \"read-only\"\ncommand = '''{c}'''\n[tool.params.x]\ntype = \"string\"\ndescription = \"x\"\n"
TPL = {"sh_c": "sh -c {x}", "heredoc": "cat <<EOF\n{x}\nEOF", "nested_dq": "settings get global \"$(echo \"{x}\")\""}

SCRIPTS = [
 'rm -rf /sdcard', 'rm -rf "/sdcard"', 'rm -rf /sd"c"ard', 'rm -rf /sd\\card', '\\rm -rf /sdcard', 'r\\m -rf /sdcard',
 'rm -r -f /storage/emulated/0/', 'cd /sdcard && rm -rf *', 'cd /sdcard; rm -rf ./*', 'rm -rf $EXTERNAL_STORAGE',
 'rm -rf ${EXTERNAL_STORAGE}', 'find /sdcard -delete', 'find /sdcard -mindepth 1 -delete', 'rm -rf /data/media/0', 'X=/sdcard; rm -rf $X',
 'rm -rf /sdcar?', 'rm -rf /sdcard*', 'rm -rf /s*d', 'set -- -rf /sdcard; rm "$@"', 'echo rm -rf /sdcard | sh',
 "printf 'rm -rf /sdcard' | sh", 'a=r; b=m; $a$b -rf /sdcard', 'rm -rf /mnt/sdcard', 'rm -rf /storage/self/primary',
 'rm -rf /mnt/user/0/emulated/0', 'toybox rm -rf /sdcard', '/system/bin/rm -rf /sdcard', 'rm -rf $(echo /sdcard)',
 'for d in /sdcard; do rm -rf $d; done', 'eval "rm -rf /sdcard"', 'IFS=,; c=rm,-rf,/sdcard; $c', 'rm -R /sdcard', 'rm --recursive --force /sdcard',
 'rm -rf /sdcard/../sdcard', 'rm -rf //sdcard', 'rm -rf /sdcard/', 'ln -s /sdcard /data/local/tmp/l; rm -rf /data/local/tmp/l/',
 'rm -rf /storage/emulated', 'rm -rf /data', 'rm -rf /data/data', 'rm -rf /data/user/0',
 'pm uninstall com.example.shop', 'cmd package uninstall com.example.shop', 'pm uninstall --user 0 com.google.android.apps.nexuslauncher',
 'pm clear com.example.shop', 'for p in $(pm list packages -3 | cut -d: -f2); do pm uninstall $p; done',
 'am broadcast -a android.intent.action.MASTER_CLEAR', 'am broadcast -a android.intent.action.FACTORY_RESET', 'cmd activity broadcast -a android.intent.action.FACTORY_RESET -p android',
 'recovery --wipe_data', "echo --wipe_data > /cache/recovery/command; reboot recovery", 'setprop sys.powerctl reboot,recovery',
 'reboot', 'svc power reboot', 'dd if=/dev/zero of=/dev/block/by-name/userdata', 'settings put global adb_enabled 0',
 'x=$(printf "\\162\\155"); $x -rf /sdcard', 'rm -rf /sdca""rd', 'rm -rf /sdcard/* /sdcard/.*',
]

def wrap(tpl, s):
    return s if tpl == "sh_c" else f"$({s})"

async def main(sp):
    passed = []
    async with sp.session(Elicit(True)) as s:
        for tpl in TPL:
            for scr in SCRIPTS:
                v = wrap(tpl, scr)
                r = await call(s, f"atk_{tpl}", {"x": v})
                t = show(r)
                if '"kind": "refused"' in t or '"kind":"refused"' in t:
                    continue
                passed.append((tpl, scr, t))
    ecs = {}
    for a in sp.audit():
        if a.get("outcome") != "refused" and a.get("arguments", {}).get("expandedCommand"):
            ecs[(a["tool"][4:], a["arguments"]["x"])] = a["arguments"]["expandedCommand"]
    print(f"{len(TPL)*len(SCRIPTS)} calls; NOT refused by the guard: {len(passed)}")
    for tpl, scr, t in passed:
        ec = ecs.get((tpl, wrap(tpl, scr)))
        runs = mksh_eval(ec)[0].replace("\n", " ; ") if ec else ""
        print(f"  [{tpl}] {scr!r}\n      server: {t[:130]}\n      mksh runs: {runs[:200]}")

with Spock(tools={f"{n}.toml": T(n, c) for n, c in TPL.items()}) as sp:
    asyncio.run(main(sp))
