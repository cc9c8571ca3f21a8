"""Attack 2: the person types a secret out of band (adb shell input text) into an ordinary
text field; the agent never reads it whole, edits it blind with keys (no returnScreen), then
reads the field through the tree / find / wait tools."""
import anyio, json, sys
from lab import Lab, call
from mcp import Client

VARIANT = sys.argv[1] if len(sys.argv) > 1 else "strip-prefix"
SECRET = "hunter2xyzQ"

async def field_text(c, tag):
    err, out, seen, _ = await call(c, "android_get_ui_tree", {"compact": False})
    line = [l for l in seen.splitlines() if "login_email" in l]
    return line[:2] or seen[:600]

async def main():
    lab = Lab()
    try:
        async with Client(lab.relay_params(), mode="legacy") as c:
            print(await call(c, "android_launch_app", {"packageName": "com.example.shop"}) and "launched")
            e, o, s, _ = await call(c, "android_tap_element", {"selector": {"viewId": "login_email"}})
            print("tap:", e, s[:200])
            typed = {"strip-prefix": f"password={SECRET}", "spaces": f"password = {SECRET}",
                     "token": f"token={SECRET}", "bearer": f"Authorization: Bearer {SECRET}"}[VARIANT if VARIANT in
                     ("spaces", "token", "bearer") else "strip-prefix"]
            # The person, out of band:
            lab.shell(f"input text '{typed.replace(' ', '%s')}'")
            print("device field (person's view):", [l for l in lab.shell("uiautomator dump /dev/tty").split("<node") if "login_email" in l][:1])
            n = len(typed) - len(SECRET)
            await call(c, "android_press_key", {"key": "MOVE_HOME"})
            for _ in range(n):
                await call(c, "android_press_key", {"key": "FORWARD_DEL"})
            e, o, s, _ = await call(c, "android_get_ui_tree", {})
            print("AGENT tree:", [l for l in s.splitlines() if "login_email" in l or "input" in l])
            e, o, s, _ = await call(c, "android_find_ui_element", {"selector": {"viewId": "login_email"}})
            print("AGENT find:", s[:400])
            e, o, s, _ = await call(c, "android_wait_for_element", {"selector": {"text": SECRET}, "timeoutMs": 300})
            print("AGENT wait text==secret:", s[:300])
            print("LEAK" if SECRET in s else "")
    finally:
        lab.close()
anyio.run(main)
