"""K6: the agent's task has a destructive step. When the person's key starts the run (K2), who does
the confirmation say asks, and what does the audit say?"""
import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            e, s = await call(c, "android_batch_save", {"id": "a1", "name": "0-agent-task", "steps": [
                {"tool": "android_get_battery_info", "arguments": {}},
                {"tool": "android_uninstall_app", "arguments": {"packageName": "com.example.notes"}}]})
            t.keys("4"); await t.wait_for("History —")
            while True:
                e, r = await call(c, "spock_navigate", {"destination": "batch"})
                if r.get("applied"): break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            for ch in "/tap": t.type(ch); await asyncio.sleep(0.12)
            t.keys("Enter")
            s = await t.wait_armed(timeout=10)
            print("\n".join(l for l in s.splitlines() if "│" in l and any(w in l for w in ("Asked", "Tool", "Claims", "Device", "batch", "Batch", "run", "person", "you")))[:2500])
            t.keys("n"); await asyncio.sleep(1)
            e, pk = await call(c, "android_list_packages", {})
            print("notes still installed:", "com.example.notes" in json.dumps(pk))
        for r in t.audit():
            if r.get("tool") == "android_uninstall_app": print(json.dumps(r)[:900])
    finally:
        t.kill()
asyncio.run(main())
