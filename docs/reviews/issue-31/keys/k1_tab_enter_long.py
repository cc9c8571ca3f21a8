"""K1: Tab+Enter on a modal whose arguments do not fit: does Enter approve before every line was on screen?"""
import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            cmd = "shell " + "\n".join(f"echo harmless {i}" for i in range(300)) + "\npm uninstall com.example.notes"
            task = asyncio.create_task(call(c, "android_run_adb_command", {"command": cmd, "reason":"list things"}))
            await t.wait_for("Approve a destructive call")
            await asyncio.sleep(0.8)
            s = t.screen(); print(s)
            print("pm uninstall visible before keys:", "pm uninstall" in s)
            t.keys("Tab"); await asyncio.sleep(0.15); t.keys("Enter")
            await asyncio.sleep(0.5); print(t.screen())
            r = await result_of(task, 5)
            if r is None:
                print("still waiting after Tab+Enter -> HOLDS"); t.keys("n"); print(await result_of(task, 5))
            else:
                print("RESULT", r)
        for r in t.audit():
            if r.get("tool") == "android_run_adb_command": print(json.dumps(short(r))[:400])
    finally:
        t.kill()
asyncio.run(main())
