import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            tools = await c.list_tools()
            for x in tools.tools:
                if x.name in ("spock_navigate","android_batch_save"): print(x.name, json.dumps(x.input_schema)[:1500], x.description[:800])
            e, s = await call(c, "android_batch_save", {"id":"agents","name":"cle\x1b[31mRED\x1b[0m\u202eeman","steps":[{"tool":"android_get_battery_info","arguments":{}}]}); print(e, s)
            e, s = await call(c, "android_batch_save", {"id":"smoke2","name":"smoke","steps":[{"tool":"android_get_battery_info","arguments":{}}]}); print(e, s)
            e, s = await call(c, "spock_navigate", {"destination":"batch","select":"agents"}); print(e, s)
            await asyncio.sleep(1); print(t.screen())
            task = asyncio.create_task(call(c, "android_uninstall_app", {"packageName":"com.example.notes"}))
            await asyncio.sleep(1.5); print(t.screen())
            t.keys("n"); print(await task)
    finally:
        t.kill()
asyncio.run(main())
