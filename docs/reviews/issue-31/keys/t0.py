import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        print(t.screen())
        async with client(t) as c:
            e, s = await call(c, "spock_get_status"); print(e, json.dumps(s)[:1500])
            tools = await c.list_tools(); print([x.name for x in tools.tools])
        for k in "23456":
            t.keys(k); await asyncio.sleep(1.0); print(t.screen())
        t.keys("?"); await asyncio.sleep(0.5); print(t.screen())
    finally:
        t.kill()
asyncio.run(main())
