"""Attack 3: a field the server read whole (agent saw the marker) - yes/no oracles that
compare a RIGHT guess with a WRONG guess of the hidden value through every matching tool,
then blind edits, a field without a resource-id, and a server restart."""
import anyio, json, sys, re
from lab import Lab, call
from mcp import Client

SECRET = "hunter2xyzQ"
TYPED = f"password={SECRET}"
NOTE = ('<node index="6" text="" resource-id="" class="android.widget.EditText" package="com.example.shop" '
        'content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" '
        'focused="false" scrollable="false" long-clickable="true" password="false" selected="false" '
        'bounds="[80,1300][1000,1450]" />')
EDITS = {"login.xml": ('bounds="[80,1200][1000,1260]" />', 'bounds="[80,1200][1000,1260]" />' + NOTE)}

def strip(s):
    return re.sub(r'"(elapsedMs|durationMs|revision|serial|ms|tookMs|at|time)": ?("[^"]*"|\d+)', '', s)

async def oracles(c, ident, right, wrong):
    diffs = []
    probes = [
        ("android_find_ui_element", lambda g: {"selector": {"text": g}}),
        ("android_find_ui_element", lambda g: {"selector": {"textContains": g[:6]}}),
        ("android_find_ui_element", lambda g: {"selector": {"textMatches": "^" + g[:4] + ".*"}}),
        ("android_find_ui_element", lambda g: {"element": g}),
        ("android_wait_for_element", lambda g: {"selector": {"textContains": g[:5]}, "timeoutMs": 200}),
        ("android_wait_for_element", lambda g: {**ident, "condition": "text", "expectedText": g, "timeoutMs": 200}),
        ("android_wait_for_element", lambda g: {**ident, "expectedText": g, "timeoutMs": 200}),
        ("android_assert_text", lambda g: {**ident, "expectedText": g}),
        ("android_assert_visible", lambda g: {"selector": {"text": g}}),
        ("android_assert_enabled", lambda g: {**ident, "expectedText": g}),
        ("android_assert_visible", lambda g: {**ident, "expectedText": g}),
    ]
    for tool, mk in probes:
        ra = await call(c, tool, mk(right)); wa = await call(c, tool, mk(wrong))
        a, b = strip(ra[2]).replace(right, "G").replace(right[:6], "G").replace(right[:5], "G").replace(right[:4], "G"), \
               strip(wa[2]).replace(wrong, "G").replace(wrong[:6], "G").replace(wrong[:5], "G").replace(wrong[:4], "G")
        same = (ra[0] == wa[0]) and a == b
        leak = SECRET in ra[2] or SECRET in wa[2]
        print(f"{'ORACLE' if not same else 'same  '} {'LEAK' if leak else ''} {tool} {json.dumps(mk(right))[:90]}")
        if not same:
            print("   right:", ra[0], ra[2][:300]); print("   wrong:", wa[0], wa[2][:300])
            diffs.append(tool)
    return diffs

async def tree_lines(c):
    e, o, s, _ = await call(c, "android_get_ui_tree", {})
    return [l for l in s.splitlines() if "input" in l]

async def main():
    lab = Lab(screen_edits=EDITS)
    try:
        async with Client(lab.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            print("tree before:", await tree_lines(c))
            for ident in ({"selector": {"viewId": "login_email"}}, {"element": "n13"}):
                pass
            # the email field: the person types, the server reads whole
            await call(c, "android_tap_element", {"selector": {"viewId": "login_email"}})
            lab.shell(f"input text '{TYPED}'")
            print("held read:", await tree_lines(c))
            d = await oracles(c, {"selector": {"viewId": "login_email"}}, SECRET, "hunter2xyzR")
            d2 = await oracles(c, {"selector": {"viewId": "login_email"}}, TYPED, "password=hunter2xyzR")
            e, o, s, _ = await call(c, "android_accessibility_audit", {})
            print("a11y audit:", "LEAK" if SECRET in s else "", s[:300])
            e, o, s, _ = await call(c, "spock_get_logs", {"level": "TRACE", "limit": 1000})
            print("spock_get_logs:", "LEAK" if SECRET in s else "ok", len(s))
            e, o, s, _ = await call(c, "android_get_debug_context", {})
            print("debug_context:", "LEAK" if SECRET in s else "ok")
            # blind edits after the held read
            await call(c, "android_press_key", {"key": "MOVE_HOME"})
            for _ in range(9):
                await call(c, "android_press_key", {"key": "FORWARD_DEL"})
            print("after strip prefix:", await tree_lines(c), "| device:", re.findall(r'text="([^"]*)" resource-id="login_email"', lab.shell("uiautomator dump /dev/tty")))
            d3 = await oracles(c, {"selector": {"viewId": "login_email"}}, SECRET, "hunter2xyzR")
            # restart the server: the memory must hold
            lab.stop_serve(); lab.start_serve()
        async with Client(lab.relay_params(), mode="legacy") as c:
            print("after restart:", await tree_lines(c))
            e, o, s, _ = await call(c, "android_find_ui_element", {"selector": {"viewId": "login_email"}})
            print("find after restart:", "LEAK" if SECRET in s else "ok", s[:250])
            print("ORACLES:", d, d2, d3)
    finally:
        lab.close()
anyio.run(main)
