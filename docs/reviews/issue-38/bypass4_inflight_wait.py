"""BYPASS 4 (revocation not immediate for calls in flight): android_wait_for_element started
while Inspect was on keeps polling A's UI after Inspect is turned off (and after the server
already refuses new reads), then returns a node that only appeared on screen AFTER the revoke
(text, bounds, flags). timeoutMs may be up to 60 s, so one call started before a revoke reads
the screen for up to a minute after it. Self-contained."""
from freshlab import *
async def main():
    lab = Lab()
    try:
        A = lab.A
        async with Client(lab.inst.relay_params(), mode="legacy") as c, Client(lab.inst.relay_params(), mode="legacy") as c2:
            idA, idB = await identities(c, lab.A, lab.B)
            lab.write_tree({})
            await c.call_tool("android_launch_app", {"serial": A, "packageName": NOTES})
            async def waiter():
                t = time.monotonic()
                r = await c.call_tool("android_wait_for_element", {"serial": A, "element": "Espresso Machine", "timeoutMs": 60000})
                print(f"[{time.strftime('%X')}] in-flight wait_for_element returned after {time.monotonic()-t:.1f}s: is_error={r.is_error} {short(r.structured_content, 400)}")
            async def person_and_agent():
                await anyio.sleep(1)
                print(f"[{time.strftime('%X')}] person turns Inspect off for A")
                lab.write_tree({idA: {"inspect": False}})
                r = await until_refused(c2, "android_get_ui_tree", {"serial": A})
                print(f"[{time.strftime('%X')}] revoke applied: new get_ui_tree refused ({r['branch']} off)")
                await anyio.sleep(2)
                r = await c2.call_tool("android_open_deep_link", {"serial": A, "uri": "shop://product/42"})  # Interact still on
                print(f"[{time.strftime('%X')}] screen changes after the revoke (deep link): {short(r.structured_content, 120)}")
            async with anyio.create_task_group() as tg:
                tg.start_soon(waiter); tg.start_soon(person_and_agent)
    finally:
        lab.close()
anyio.run(main)
