"""Call-time guard vs. a catastrophic command it cannot see: computed at run time (printf/echo
piped to sh with double quotes, sed/tr rewriting) or staged in a file by one call and run by the
next (`sh FILE`, `. FILE`), through `sh -c {x}` and a here-doc template declared read-only."""
import asyncio, json, sys
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

def T(n, c):
    return f"[[tool]]\nname = \"atk_{n}\"\ndescription = \"t\"\nlevel = \"read-only\"\ncommand = '''{c}'''\n[tool.params.x]\ntype = \"string\"\ndescription = \"x\"\n"
TPL = {"sh_c": "sh -c {x}", "heredoc": "cat <<EOF\n{x}\nEOF"}
SCRIPTS = [
 'printf "rm -rf /sdcard" | sh', 'echo "rm -rf /sdcard" | sh', 'printf "\\162\\155 -rf /sdcard" | sh',
 'echo "zz -rf /sdcard" | sed s/zz/rm/ | sh', 'echo "RM -RF /SDCARD" | tr A-Z a-z | sh', 'echo "rm -rf /sdcard" > /data/local/tmp/x.sh',
 'echo "cm0gLXJmIC9zZGNhcmQ=" > /data/local/tmp/b', 'sh /data/local/tmp/x.sh', '. /data/local/tmp/x.sh', 'base64 -d /data/local/tmp/b | sh',
 'echo "am broadcast -a android.intent.action.FACTORY_RESET -p android" > /data/local/tmp/f.sh', 'sh /data/local/tmp/f.sh',
 'settings put global s "rm -rf /sdcard"', 'sh -c "$(settings get global s)"', 'eval $(settings get global s)',
 'getprop x | sh', 'cat /data/local/tmp/x.sh | sh', 'sh < /data/local/tmp/x.sh', 'exec sh /data/local/tmp/x.sh', 'toybox sh /data/local/tmp/x.sh',
]
def wrap(tpl, s): return s if tpl == "sh_c" else f"$({s})"

async def main(sp):
    async with sp.session(Elicit(True)) as s:
        for tpl in TPL:
            for scr in SCRIPTS:
                r = await call(s, f"atk_{tpl}", {"x": wrap(tpl, scr)})
                t = show(r)
                verdict = "refused" if "the guard refuses" in t else "PASSED the guard (sent to device)"
                why = t.split("the guard refuses")[1].split(":", 1)[1][:110] if "the guard refuses" in t else t[:110]
                print(f"[{tpl}] {scr!r:75s} -> {verdict}: {why}")

with Spock(tools={f"{n}.toml": T(n, c) for n, c in TPL.items()}) as sp:
    asyncio.run(main(sp))
print("\nmksh check of the staged pair (rm stub logs):")
import subprocess, tempfile, os
d = tempfile.mkdtemp(); open(f"{d}/rm", "w").write("#!/bin/sh\necho RM-CALLED \"$@\"\n"); os.chmod(f"{d}/rm", 0o755)
print(subprocess.run(["mksh", "-c", f"sh -c 'echo \"rm -rf /sdcard\" > {d}/x.sh'; sh -c 'sh {d}/x.sh'"], capture_output=True, text=True, env={"PATH": f"{d}:/usr/bin:/bin"}).stdout)
