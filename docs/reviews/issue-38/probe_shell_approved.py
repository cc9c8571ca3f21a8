"""Inspect OFF on A, Interact on: android_run_adb_command is not refused by the tree; it goes
to the person's confirmation. If approved, the shell reads A's packages/UI/logcat. What does
the person see? Self-contained (the person is played by a scripted attach client)."""
import asyncio
from freshlab import *
from test_attach import attached
from test_approval_binding import approve
async def main():
    lab = Lab()
    try:
        A = lab.A
        term, welcome = await attached(lab.inst)
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            idA, idB = await identities(c, lab.A, lab.B)
            lab.write_tree({idA: {"inspect": False}, idB: {"apps": [SHOP]}})
            await until_refused(c, "android_take_screenshot", {"serial": A})
            for serial, cmd in [(A, "pm list packages; uiautomator dump /dev/tty | head -c 300"), (lab.B, "pm list packages")]:
                task = asyncio.create_task(c.call_tool("android_run_adb_command", {"serial": serial, "command": cmd, "reason": "checking the device state"}))
                try:
                    asked = (await term.until("confirm_asked", timeout=5))["ask"]
                    print("PERSON IS ASKED:", short(asked, 900))
                    await approve(term, asked["call_id"])
                except Exception as e:
                    print("no confirmation asked:", repr(e)[:100])
                r = await task
                print(f"run_adb_command on {serial}: is_error={r.is_error} {short(r.structured_content, 500)}\n")
        term.close()
    finally:
        lab.close()
asyncio.run(main())
