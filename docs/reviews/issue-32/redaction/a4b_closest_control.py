"""Attack 4 control: the same guesses against two different hidden values (and an empty
field). If the `closest` order for a guess depends on the hidden value, it is an oracle."""
import anyio, json, sys
from lab import Lab, call
from mcp import Client

GUESSES = ["hunter2xyzQ", "hunter2xyzR", "hunter2", "zzzzzzzzzzz", "password=hunter2xyzQ", "password=hunter2xyzR", "kite9pole"]

async def run(secret):
    lab = Lab(); res = {}
    try:
        async with Client(lab.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            await call(c, "android_tap_element", {"selector": {"viewId": "login_email"}})
            if secret:
                lab.shell(f"input text 'password={secret}'")
            e, o, s, _ = await call(c, "android_get_ui_tree", {})
            shown = "«redacted:password»" in s
            for g in GUESSES:
                for key in ("text", "textContains"):
                    e, o, s, _ = await call(c, "android_find_ui_element", {"selector": {key: g}})
                    res[(g, key)] = [x.get("nodeId") for x in o.get("closest", [])]
    finally:
        lab.close()
    return shown, res

async def main():
    runs = {}
    for secret in ["hunter2xyzQ", "hunter2xyzR", "kite9pole", None]:
        runs[secret] = await run(secret)
        print("hidden", secret, "marker shown:", runs[secret][0])
    keys = list(runs["hunter2xyzQ"][1])
    for k in keys:
        row = {s: runs[s][1][k] for s in runs}
        diff = len({tuple(v) for v in row.values()}) > 1
        print(("DEPENDS " if diff else "same    ") + f"{k}: " + " | ".join(f"{s}:{','.join(v)}" for s, v in row.items()))
anyio.run(main)
