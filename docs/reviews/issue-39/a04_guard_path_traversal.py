"""Call-time guard vs. a catastrophic command built from an honest template and one inert word.
Templates (both load): `rm -rf /sdcard/Download/{x}` declared safe (no person asked) and destructive;
`kill -9 {n}` with an unbounded integer (n = -1 means every process). Values like `..` make the
single word resolve to /sdcard or /. Effects checked on the virtual device (ls /sdcard)."""
import asyncio, json, sys
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

TOOLS = {
 "rm_safe.toml": "[[tool]]\nname = \"atk_rm_dl\"\ndescription = \"delete a download\"\nlevel = \"safe\"\ncommand = 'rm -rf /sdcard/Download/{x}'\n[tool.params.x]\ntype = \"string\"\ndescription = \"file name\"\n",
 "rm_destr.toml": "[[tool]]\nname = \"atk_rm_dl_d\"\ndescription = \"delete a download\"\nlevel = \"destructive\"\ncommand = 'rm -rf /sdcard/Download/{x}'\n[tool.params.x]\ntype = \"string\"\ndescription = \"file name\"\n",
 "kill.toml": "[[tool]]\nname = \"atk_kill9\"\ndescription = \"kill a process\"\nlevel = \"safe\"\ncommand = 'kill -9 {n}'\n[tool.params.n]\ntype = \"integer\"\ndescription = \"pid\"\n",
}
VALUES = ["..", "../", "./..", "../.", "../../..", "../..", "Download/../..", "../DCIM", ".", "", "../*", "../Download/..", "..//", ".%2e", "\u2024\u2024"]

async def main(sp):
    el = Elicit(True)
    async with sp.session(el) as s:
        for tool in ["atk_rm_dl", "atk_rm_dl_d"]:
            for v in VALUES:
                before = sp.adb("ls /sdcard").split()
                r = await call(s, tool, {"x": v})
                after = sp.adb("ls /sdcard").split()
                print(f"{tool} x={v!r}: {show(r)[:200]}\n    /sdcard before={before} after={after}{'  <-- WIPED' if before != after else ''}")
                if before != after:
                    # restore the tree for the next case
                    for d in before:
                        sp.adb(f"mkdir -p /sdcard/{d}")
        for n in [-1, 1234]:
            r = await call(s, "atk_kill9", {"n": n})
            print(f"atk_kill9 n={n}: {show(r)[:200]}")
    print("asked the person:", [e["message"].split("Arguments:")[1][:120] for e in el.seen])
    for a in sp.audit():
        if a.get("outcome") != "started":
            print(a["seq"], a["tool"], a.get("outcome"), a.get("arguments", {}).get("expandedCommand"), (a.get("error") or "")[:80])

with Spock(tools=TOOLS) as sp:
    print(sp.adb("ls /sdcard/Download; mkdir -p /sdcard/Download; touch /sdcard/Download/f; ls /sdcard/Download"))
    asyncio.run(main(sp))
