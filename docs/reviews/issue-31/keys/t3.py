import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            for i in range(3):
                await call(c, "android_get_battery_info")
            await call(c, "android_press_key", {"key":"HOME"})
            t.keys("4"); await asyncio.sleep(1.0); print(t.screen()[:2500])
            t.keys("Down"); await asyncio.sleep(0.3); print(t.screen()[:1500])
            # agent calls arrive
            await call(c, "android_input_text", {"text":"hello"})
            await call(c, "android_get_battery_info")
            await asyncio.sleep(0.5); print(t.screen()[:1500])
            t.keys("Space"); await asyncio.sleep(0.3); print(t.screen()[:1500])
    finally:
        t.kill()
asyncio.run(main())
