import asyncio
from lib import *
async def main():
    t = Tui()
    try:
        await t.wait_for("[running]", timeout=40)
        async with client(t) as c:
            r = await c.list_tools()
            for x in r.tools: print(x.name, "|", (x.description or "")[:60])
    finally: t.kill()
asyncio.run(main())
