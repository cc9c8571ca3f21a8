"""K5: every place a person types or reads something modal: open it, stay still > 3 s, and have an
agent navigate. The claim: it never switches."""
import asyncio, sys
from lib import *
CASES = [
    ("help ?", ["1"], ["?"]),
    ("message log l", ["1"], ["l"]),
    ("activity details Enter", ["3"], ["Enter"]),
    ("history details Enter", ["4"], ["Enter"]),
    ("history filter picker f", ["4"], ["f"]),
    ("history search /", ["4"], ["/"]),
    ("tools search /", ["2"], ["/"]),
    ("settings number edit", ["5"], ["Down"]*7 + ["Enter"]),
    ("batch editor e", ["6"], ["e"]),
    ("batch new n", ["6"], ["n"]),
    ("batch record name m", ["6"], ["m"]),
    ("batch delete d", ["6"], ["d"]),
    ("settings enable-all a", ["5"], ["a"]),
    ("status break lease x", ["1"], ["x"]),
    ("quit q", ["1"], ["q"]),
]
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            await call(c, "android_batch_save", {"id": "t1", "name": "t1", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            await call(c, "android_lease_device", {"durationSeconds": 600})
            for name, pre, keys in CASES:
                for k in pre: t.keys(k)
                await asyncio.sleep(0.7)
                for k in keys: t.keys(k); await asyncio.sleep(0.15)
                await asyncio.sleep(0.5)
                before = t.screen()
                await asyncio.sleep(3.3)
                dest = "tools" if pre != ["2"] else "history"
                e, r = await call(c, "spock_navigate", {"destination": dest})
                await asyncio.sleep(0.3)
                after = t.screen()
                e2, st = await call(c, "spock_get_status")
                print(f"{name:28s} applied={r.get('applied')} screen={st['screen']} reason={r.get('reason')}")
                if r.get("applied"):
                    print("   BEFORE footer:", before.splitlines()[-1]); print("   AFTER footer:", after.splitlines()[-1])
                # close whatever is open
                for k in ["Escape", "Escape", "n", "Escape"]:
                    t.keys(k); await asyncio.sleep(0.2)
                await asyncio.sleep(0.8)
    finally:
        t.kill()
asyncio.run(main())
