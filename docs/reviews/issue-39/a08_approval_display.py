"""Promise 3 (what the person reads): the approval message for a destructive own tool with values
carrying bidi controls, zero-width characters, line/paragraph separators, terminal escapes, a
4 KB value; whether these reach the person raw. Also: a destructive own tool with no control
centre and via_client off is denied; a declined / cancelled elicitation runs nothing."""
import asyncio, json, sys
import os as _os; sys.path.insert(0, _os.path.dirname(_os.path.abspath(__file__)))
from harness import *

TOOLS = {"d.toml": "[[tool]]\nname = \"atk_del\"\ndescription = \"delete a download\"\nlevel = \"destructive\"\ncommand = 'settings put global del {x}'\n[tool.params.x]\ntype = \"string\"\ndescription = \"file\"\n"}
VALS = ["report\u202e\u2066fdp.exe", "a\u200bb", "a\u2028b\u2029c", "\x1b[2K\rApproved already", "A" * 4000 + "\nTool: harmless", "x\u0085y"]

async def main(sp):
    el = Elicit(True)
    async with sp.session(el) as s:
        for v in VALS:
            await call(s, "atk_del", {"x": v})
    for e in el.seen:
        m = e["message"]
        raw = [c for c in m if ord(c) in (0x202e, 0x2066, 0x200b, 0x2028, 0x2029, 0x1b, 0x85)]
        print("message len", len(m), "raw control chars reaching the person:", [hex(ord(c)) for c in raw])
        print("   ", json.dumps(m.split("Arguments:")[1][:160]))

with Spock(tools=TOOLS) as sp:
    asyncio.run(main(sp))

print("=== via_client off, no control centre")
with Spock(tools=TOOLS, via_client=False) as sp:
    async def m2():
        el = Elicit(True)
        async with sp.session(el) as s:
            print(show(await call(s, "atk_del", {"x": "nocc"}))[:250], "| asked:", len(el.seen))
        print("device del =", sp.adb("settings get global del").strip())
    asyncio.run(m2())

print("=== declined / cancelled")
with Spock(tools=TOOLS) as sp:
    async def m3():
        for action in ["decline", "cancel", "accept-false", "accept-garbage"]:
            async def cb(ctx, params, action=action):
                if action == "accept-false":
                    return types.ElicitResult(action="accept", content={"approve": False})
                if action == "accept-garbage":
                    return types.ElicitResult(action="accept", content={"approve": "yes"})
                return types.ElicitResult(action=action)
            async with sp.session(cb) as s:
                print(action, show(await call(s, "atk_del", {"x": action}))[:200])
        print("device del =", sp.adb("settings get global del").strip())
        for a in sp.audit(): print("  audit", a["seq"], a.get("outcome"), a.get("arguments", {}).get("expandedCommand"), a.get("decision"))
    asyncio.run(m3())
