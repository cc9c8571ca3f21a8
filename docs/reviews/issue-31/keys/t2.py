import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            e, s = await call(c, "android_batch_save", {"id":"agents","name":"cle\x1b[31mRED\x1b[0m\u202eeman\u200b","steps":[{"tool":"android_get_battery_info","arguments":{}}]}); print(e, s)
            e, s = await call(c, "android_batch_save", {"id":"smoke2","name":"smoke","steps":[{"tool":"android_get_battery_info","arguments":{}}]}); print(e, s)
            e, s = await call(c, "android_batch_save", {"id":"smoke","name":"smoke","steps":[{"tool":"android_get_battery_info","arguments":{}}]}); print(e, s)
            e, s = await call(c, "android_batch_save", {"id":"x3","name":"line1\nline2\rline3\tTAB","steps":[{"tool":"android_get_battery_info","arguments":{}}]}); print(e, s)
            t.keys("6"); await asyncio.sleep(1); print(t.screen()); print(t.tmux("capture-pane","-p","-e","-t","tui").stdout[:3000])
            # Tab + Enter on a long modal
            t.keys("1"); await asyncio.sleep(0.5)
            long_cmd = "; ".join(f"echo line{i}" for i in range(200)) + "; pm uninstall com.example.notes"
            task = asyncio.create_task(call(c, "android_run_adb_command", {"command": "shell " + "\n".join(f"echo {i}" for i in range(80)) + "\npm uninstall com.example.notes", "reason":"check"}))
            await t.wait_for("Approve a destructive call")
            t0=time.monotonic()
            await asyncio.sleep(0.75)
            print(t.screen())
            t.keys("Tab"); await asyncio.sleep(0.1); t.keys("Enter")
            await asyncio.sleep(0.5)
            print(t.screen())
            try:
                print(await asyncio.wait_for(task, 5))
            except asyncio.TimeoutError:
                print("still waiting"); t.keys("n"); print(await task)
    finally:
        t.kill()
asyncio.run(main())
