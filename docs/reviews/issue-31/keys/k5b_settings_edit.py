"""K5b: a Settings number being edited (History size / Confirmation timeout) and an agent navigates."""
import asyncio, sys
from lib import *
async def main():
    t = Tui("--demo", "--toolsets", "all")
    try:
        await t.wait_for("running", timeout=20)
        async with client(t) as c:
            t.keys("5"); await t.wait_for("Enable all"); await asyncio.sleep(0.3)
            for i in range(12):
                t.keys("Down"); await asyncio.sleep(0.1)
                s = t.tmux("capture-pane", "-p", "-e", "-t", "tui").stdout
                sel = [l for l in s.splitlines() if "\x1b[7m" in l]
                if sel and "Confirmation timeout" in sel[0]:
                    break
            print("selected:", sel[0][:90] if sel else None)
            t.keys("Enter"); await asyncio.sleep(0.3)
            t.keys("BSpace"); t.keys("BSpace"); t.type("5"); await asyncio.sleep(0.3)
            s = t.screen(); print([l for l in s.splitlines() if "Confirmation" in l], "FOOTER:", s.splitlines()[-1])
            await asyncio.sleep(3.3)
            e, r = await call(c, "spock_navigate", {"destination": "batch"})
            print("navigate:", r)
            await asyncio.sleep(1.0)
            t.type("0"); t.keys("Enter"); await asyncio.sleep(0.8)
            s = t.screen(); print(s.splitlines()[0]); print("FOOTER:", s.splitlines()[-1])
            e, st = await call(c, "spock_get_status"); print("settings:", st["settings"], "screen", st["screen"])
    finally:
        t.kill()
asyncio.run(main())
