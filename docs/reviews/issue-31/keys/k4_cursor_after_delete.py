"""K4: the person's Batch cursor is on task `mine`. An agent deletes `mine` (the person approves
the deletion it was shown). What does the person's next Enter run?"""
import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            await call(c, "android_batch_save", {"id": "mine", "name": "mine", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            await call(c, "android_batch_save", {"id": "agent", "name": "mine-2", "steps": [
                {"tool": "android_input_text", "arguments": {"text": "AGENT"}}]})
            t.keys("6"); await t.wait_for("Tasks (2)")
            s = t.tmux("capture-pane", "-p", "-e", "-t", "tui").stdout
            print("selected row:", [l for l in s.splitlines() if "\x1b[7m" in l and "manual" in l])
            await asyncio.sleep(0.5)
            task = asyncio.create_task(call(c, "android_batch_delete", {"id": "mine"}))
            s = await t.wait_armed(); print("\n".join(l for l in s.splitlines() if "│" in l and ("Tool" in l or "id" in l))[:800])
            t.keys("y")
            print("delete:", await result_of(task, 5))
            await t.wait_for("Tasks (1)")
            await asyncio.sleep(1.0)
            print(t.screen()[:1200])
            t.keys("Enter"); await asyncio.sleep(1.5)
            print("FOOTER:", t.screen().splitlines()[-1])
            e, h = await call(c, "android_batch_history_list")
            print("batch runs:", [(r["taskId"], r["state"]) for r in h.get("runs", [])])
    finally:
        t.kill()
asyncio.run(main())
