"""Attack 8: the person types a password (no shape) into the PASSWORD field out of band; the
agent reads tree/find, and asks right-vs-wrong guesses through wait/assert/find."""
import anyio, json, re
from lab import Lab, call
from mcp import Client
SECRET = "kite9poleZ"
async def main():
    lab = Lab()
    try:
        async with Client(lab.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            await call(c, "android_tap_element", {"selector": {"viewId": "login_password"}})
            lab.shell(f"input text {SECRET}")
            print("device dump has it:", SECRET in lab.shell("uiautomator dump /dev/tty"))
            e, o, s, _ = await call(c, "android_find_ui_element", {"selector": {"viewId": "login_password"}})
            print(("LEAK " if SECRET in s else "ok   ") + "find:", [(m.get("text")) for m in o.get("matches", [])])
            res = {}
            for g in [SECRET, "kite9poleY"]:
                r = []
                for tool, args in [("android_find_ui_element", {"selector": {"text": g}}),
                                   ("android_wait_for_element", {"selector": {"viewId": "login_password"}, "condition": "text", "expectedText": g, "timeoutMs": 200}),
                                   ("android_assert_text", {"selector": {"viewId": "login_password"}, "expectedText": g})]:
                    e, o, s, _ = await call(c, tool, args)
                    r.append((tool, e, o.get("count"), o.get("met"), o.get("passed"), re.sub(r'"(elapsedMs|revision)": ?("[^"]*"|\d+)', '', s.split("\n")[0]).replace(g, "G")[:200]))
                res[g] = r
            for a, b in zip(res[SECRET], res["kite9poleY"]):
                print(("ORACLE " if a[1:] != b[1:] else "same   ") + a[0], a[1:5], "|", b[1:5])
                if a[1:] != b[1:]: print("   right:", a[5]); print("   wrong:", b[5])
    finally:
        lab.close()
anyio.run(main)
