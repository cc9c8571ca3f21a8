"""Every leak path an agent has, tried against the real server on the virtual device over real
adb with agent-only redaction rules (issue 16): zero leaks. The same attack as
`benches/leak_paths.py`, which reports the figures in RELIABILITY.md."""
import base64
import json

import anyio
import pytest
from conftest import RealAdb, have_adb, start_instance
from leak_attacks import RULES, SCREEN_KEY, Lab, run_all, scenario
from mcp import Client

pytestmark = pytest.mark.anyio


async def test_no_leak_path_reveals_a_secret(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    lab = Lab(tmp_path)
    try:
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            a = await run_all(c)
    finally:
        lab.close()
    assert len(a.paths) >= 25 and a.probes >= 200, (len(a.paths), a.probes)
    assert a.leaks == [], "\n".join(a.leaks)
    # The person's own records keep what was typed out too.
    audit = [json.loads(l) for l in (lab.inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines()]
    typed = [r for r in audit if r["tool"] in ("android_input_text", "android_input_text_into_element")]
    # Each password typed is «password»; a form's e-mail field, a plain one, is shown as typed
    # (the last form is the demo account, typed to sign in).
    texts = [(r["arguments"]["text"], [f["text"] for f in r["arguments"].get("fields", [])]) for r in typed]
    assert sorted(texts) == sorted([("«password»", [])] * 3 + [("bob@example.com", ["«password»"])] * 2
                                   + [("me@example.com", ["«password»"])]), texts


async def test_a_screenshot_taken_as_the_screen_changes_is_of_the_settled_screen(tmp_path):
    """On a phone a change of screen animates: `uiautomator dump` waits for it to end,
    `screencap` takes the frame on the glass. Leaving the settings screen (its API key hidden
    from agents) and asking for a screenshot at once, by `returnScreen: both` or by a screenshot
    right after the key press, must give the settled screen, never the frame of the screen
    left with the blackout placed from the new one. Real adb, the Python SDK over the relay."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=[scenario(tmp_path, transition_ms=1200)])
    inst = start_instance(tmp_path, "--adb", adb.endpoint(), config=RULES)

    async def image(c, tool, args):
        res = await c.call_tool(tool, args)
        assert not res.is_error, res.content
        seen = json.dumps(res.structured_content or {})
        assert SCREEN_KEY not in seen, seen
        imgs = [base64.b64decode(x.data) for x in res.content if x.type == "image"]
        assert len(imgs) == 1, seen
        return imgs[0]

    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            await c.call_tool("android_launch_app", {"packageName": "com.example.shop"})
            # The demo account: the shop refuses Sign in without it.
            await c.call_tool("android_input_text_into_element", {
                "element": "login_email", "text": "me@example.com",
                "fields": [{"element": "login_password", "text": "hunter2"}]})
            await c.call_tool("android_tap_element", {"element": "sign_in", "returnScreen": "tree"})
            for way in ("returnScreen both", "a screenshot right after"):
                r = await c.call_tool("android_tap_element", {"element": "Settings", "returnScreen": "tree"})
                assert "settings" in json.dumps(r.structured_content).lower(), r.structured_content
                if way == "returnScreen both":
                    shot = await image(c, "android_press_key", {"key": "BACK", "returnScreen": "both"})
                else:
                    r = await c.call_tool("android_press_key", {"key": "BACK"})
                    assert not r.is_error, r.content
                    shot = await image(c, "android_take_screenshot", {})
                await anyio.sleep(1.5)
                settled = await image(c, "android_take_screenshot", {})
                assert shot == settled, f"{way}: not the settled screen (the settings frame, key unhidden?)"
    finally:
        inst.stop()
        adb.close()
