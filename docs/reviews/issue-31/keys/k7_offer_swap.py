"""K7: the footer offers the screen the agent asked for; `o` follows it. The agent replaces the
offer just before the person presses `o` (having read the first one)."""
import asyncio, sys
from lib import *
SWAP = float(sys.argv[1]) if len(sys.argv) > 1 else 0.10
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            await call(c, "android_batch_save", {"id": "a1", "name": "0-agent-task", "steps": [
                {"tool": "android_input_text", "arguments": {"text": "AGENT"}}]})
            t.keys("4"); await t.wait_for("History —"); await asyncio.sleep(0.3)
            t.keys("/"); await asyncio.sleep(0.2)
            e, r = await call(c, "spock_navigate", {"destination": "tools", "select": "android_get_battery_info"})
            print("first offer:", r)
            t.keys("Escape"); await asyncio.sleep(1.2)
            print("FOOTER person reads:", t.screen().splitlines()[-1])
            e, r = await call(c, "spock_navigate", {"destination": "batch"})
            print("second:", r)
            await asyncio.sleep(SWAP)
            print("FOOTER at o:", t.screen().splitlines()[-1])
            t.keys("o"); await asyncio.sleep(0.9)
            s = t.screen(); print(s.splitlines()[0]); print("FOOTER after o:", s.splitlines()[-1])
            e, st = await call(c, "spock_get_status"); print("screen now:", st["screen"])
            t.keys("Enter"); await asyncio.sleep(1.0)
            e, h = await call(c, "android_batch_history_list")
            print("batch runs:", [(r["taskId"], r["state"]) for r in h.get("runs", [])])
    finally:
        t.kill()
asyncio.run(main())
