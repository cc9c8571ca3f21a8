"""Attack 6: the shapes that leaked in logcat, as on-screen text (TextView text, content-desc)
and typed by the person into an editable field; what the agent reads in the tree, and
whether a find/wait on the value matches (oracle)."""
import anyio, json, re, sys
from lab import Lab, call
from mcp import Client

SUMMARIES = ["Signed in", "Order updates, offers", "2 saved", "English", "Permissions, data", "Version 1.4.2"]
SCREEN = ['password="QS1 tailS1"', "token=\"QS2 tailS2\"", 'password = QS3tailS3',
          '{\\"password\\":\\"QS4tailS4\\"}', 'Cookie: session=QS5tailS5', 'AWS_SECRET_ACCESS_KEY=QS6tailS6']
def xml_attr(s):
    return s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("'", "&apos;")
EDITS = {"settings.xml": [(f'text="{o}"', f'text="{xml_attr(n)}"') for o, n in zip(SUMMARIES, SCREEN)]
         + [('content-desc="Navigate up"', f'content-desc="{xml_attr("password = QS7tailS7")}"')]}

async def main():
    lab = Lab(screen_edits=EDITS)
    try:
        async with Client(lab.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            # the person types a leaked shape into the e-mail field
            await call(c, "android_tap_element", {"selector": {"viewId": "login_email"}})
            lab.shell("input text 'password%s=%sQF8tailF8'")
            e, o, s, _ = await call(c, "android_find_ui_element", {"selector": {"viewId": "login_email"}})
            print(("LEAK " if "QF8" in s else "ok   ") + "typed field: " + str([m.get("text") for m in o.get("matches", [])]))
            await call(c, "android_tap_element", {"selector": {"viewId": "sign_in"}})
            await call(c, "android_tap_element", {"element": "Settings"})
            e, o, s, _ = await call(c, "android_get_ui_tree", {})
            seen = set()
            for t in re.findall(r'"(?:text|label|description|contentDescription|contentDesc)": ?"((?:[^"\\]|\\.)*)"', s):
                if (re.search(r"QS\d|tailS|redacted", t)) and t not in seen:
                    seen.add(t); print(("LEAK " if re.search(r"QS\d|tailS", t) else "ok   ") + "screen: " + t)
            for g in ["QS3tailS3", "QS6tailS6", "QS7tailS7"]:
                e, o, s, _ = await call(c, "android_wait_for_element", {"selector": {"textContains": g}, "timeoutMs": 300})
                e2, o2, s2, _ = await call(c, "android_find_ui_element", {"selector": {"textContains": g}})
                print(f"oracle {g}: wait met={o.get('met')} err={e}  find count={o2.get('count')}")
            e, o, s, _ = await call(c, "android_take_screenshot", {})
            print("screenshot hiddenRegions:", o.get("hiddenRegions"))
    finally:
        lab.close()
anyio.run(main)
