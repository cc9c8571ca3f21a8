"""Safe actions against the built-in virtual device (`--demo`), through the real Python MCP SDK
over the stdio relay. Each test checks the action's effect in the device's state afterwards,
read back through other tools, not the action's own report."""
import json
import pathlib

import pytest
from conftest import start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

HOSTILE_TEXT = 'it\'s "a" $HOME; ls'
ACCOUNT = ("me@example.com", "hunter2")


def make_project(root: pathlib.Path) -> pathlib.Path:
    proj = root / "shop"
    (proj / "app").mkdir(parents=True)
    (proj / "settings.gradle.kts").write_text('include(":app")\n')
    (proj / "app" / "build.gradle.kts").write_text(
        'plugins { id("com.android.application") }\n'
        "android {\n  defaultConfig {\n    applicationId = \"com.example.shop\"\n  }\n}\n"
    )
    return proj


@pytest.fixture
def demo(tmp_path):
    proj = make_project(tmp_path)
    inst = start_instance(tmp_path, "--demo", "--project", str(proj))
    inst.project = proj
    yield inst
    inst.stop()


class Session:
    def __init__(self, client):
        self.c = client

    async def call(self, name, args=None):
        r = await self.c.call_tool(name, args or {})
        sc = r.structured_content
        assert json.loads(r.content[0].text) == sc
        return r, sc

    async def ok(self, name, args=None):
        r, sc = await self.call(name, args)
        assert r.is_error is False, (name, sc)
        return sc

    async def err(self, name, args=None):
        r, sc = await self.call(name, args)
        assert r.is_error is True, (name, sc)
        return sc

    async def visible(self, element):
        return (await self.ok("android_assert_visible", {"element": element}))["passed"]

    async def login_screen(self):
        await self.ok("android_launch_app", {"packageName": "com.example.shop"})
        assert await self.visible("Welcome back")

    async def type_account(self, **extra):
        """The demo account into the login form (the shop refuses Sign in without it)."""
        return await self.ok("android_input_text_into_element", {
            "element": "login_email", "text": ACCOUNT[0], "clear": True,
            "fields": [{"element": "login_password", "text": ACCOUNT[1], "clear": True}], **extra})


def session(inst):
    return Client(inst.relay_params(), mode="legacy")


async def test_tap_element_signs_in_by_tapping_the_clickable_parent(demo):
    async with session(demo) as c:
        s = Session(c)
        await s.login_screen()
        await s.type_account()
        tree = await s.ok("android_get_ui_tree", {"compact": True})
        l, t, r, b = next(n["b"] for n in tree["tree"]["n"] if n.get("g") == "sign_in")
        sc = await s.ok("android_tap_element", {"element": "Sign in", "returnScreen": "tree"})
        # The text node matched; its clickable Compose parent (testTag sign_in) was tapped.
        assert sc["element"].split(" ")[1:] == ["'Sign", "in'"], sc["element"]
        assert sc["actedOn"].split(" ")[1:] == ["button", "#sign_in"], sc["actedOn"]
        # The point tapped lies in the clickable parent's bounds as the tree gave them.
        x, y = sc["point"]
        assert l <= x < r and t <= y < b
        # The screen after it settled came back in the same call as lines, and it is the home
        # screen (whole: this client was never sent the home screen).
        lines = sc["screen"].split("\n")
        assert lines[0].startswith("rev ") and ", changes since " not in lines[0], lines
        assert any(l.endswith("button 'Cart'") for l in lines), lines
        assert not await s.visible("Welcome back")
        assert await s.visible("Espresso Machine")
        act = await s.ok("android_get_current_activity")
        assert act["activity"] == "com.example.shop/.MainActivity"
        logs = await s.ok("android_get_logcat", {"contains": "login ok"})
        assert len(logs["lines"]) == 1


async def test_missing_and_ambiguous_elements_explain_themselves(demo):
    async with session(demo) as c:
        s = Session(c)
        await s.login_screen()
        miss = await s.err("android_tap_element", {"element": "Sign on"})
        assert miss["kind"] == "not_found"
        assert any(cand.get("text") == "Sign in" for cand in miss["closest"])
        # Said once: the candidates are in `closest`, the message points there (issue 42).
        assert "Sign in" not in miss["error"] and "closest" in miss["error"], miss["error"]
        await s.type_account()
        await s.ok("android_tap_element", {"element": "Sign in"})
        many = await s.err("android_tap_element", {"selector": {"role": "button", "state": {"clickable": True}}})
        assert many["count"] > 1 and many["narrowBy"]
        assert "candidates" in many["error"] and "[" not in many["error"], many["error"]
        assert await s.visible("Espresso Machine"), "an ambiguous selector must not tap anything"


async def test_typing_hostile_text_leaves_exactly_that_text(demo):
    async with session(demo) as c:
        s = Session(c)
        await s.login_screen()
        sc = await s.ok("android_input_text_into_element", {"element": "login_email", "text": HOSTILE_TEXT})
        # Verified, and no fieldText: the field holds exactly the text typed.
        assert sc["verified"] is True and "fieldText" not in sc, sc
        check = await s.ok("android_assert_text", {"element": "login_email", "expectedText": HOSTILE_TEXT})
        assert check["passed"], check
        # clear replaces; the device shell never ran `ls` or expanded $HOME
        sc = await s.ok("android_input_text_into_element", {"element": "login_email", "text": "a b", "clear": True})
        assert sc["verified"] is True and "fieldText" not in sc, sc
        check = await s.ok("android_assert_text", {"element": "login_email", "expectedText": "a b"})
        assert check["passed"], check
        # Typed after what the field held: the answer says what it holds now.
        sc = await s.ok("android_input_text_into_element", {"element": "login_email", "text": " c"})
        assert sc["verified"] is True and sc["fieldText"] == "a b c", sc
        await s.ok("android_input_text_into_element", {"element": "login_email", "text": "a b", "clear": True})
        # The coordinate fallback types into the focused field just as exactly.
        await s.ok("android_input_text", {"text": " $(id) `x` & |"})
        check = await s.ok("android_assert_text", {"element": "login_email", "expectedText": "a b $(id) `x` & |"})
        assert check["passed"], check


async def test_a_form_is_filled_in_one_call_read_back_once_and_recorded_field_by_field(demo):
    secret = "hunter2xyz"
    async with session(demo) as c:
        s = Session(c)
        await s.login_screen()
        # A field that is no text field refuses the whole form: nothing is typed.
        bad = await s.err("android_input_text_into_element", {
            "element": "login_email", "text": "x", "fields": [{"element": "Welcome back", "text": "y"}]})
        assert "not a text field" in bad["error"], bad
        check = await s.ok("android_assert_text", {"element": "login_email", "expectedText": ""})
        assert check["passed"], check
        sc = await s.ok("android_input_text_into_element", {
            "element": "login_email", "text": HOSTILE_TEXT,
            "fields": [{"element": "login_password", "text": secret}], "returnScreen": "tree"})
        assert sc["verified"] is True and secret not in json.dumps(sc), sc
        # The read-back is the screen sent back: the e-mail as typed, the password never.
        email_line = next(l for l in sc["screen"].split("\n") if "#login_email" in l)
        assert "$HOME; ls" in email_line, sc["screen"]
        check = await s.ok("android_assert_text", {"element": "login_email", "expectedText": HOSTILE_TEXT})
        assert check["passed"], check
        # The app read what the form holds: not the demo account, so it refuses.
        await s.ok("android_tap_element", {"element": "Sign in"})
        assert await s.visible("Wrong email or password")
        assert not await s.visible("Espresso Machine")
    audit = (demo.home / "data" / "audit" / "audit.jsonl").read_text()
    assert secret not in audit
    rec = [json.loads(l) for l in audit.splitlines() if '"android_input_text_into_element"' in l][-1]
    assert rec["arguments"]["text"] == HOSTILE_TEXT, rec
    assert rec["arguments"]["fields"] == [{"element": "login_password", "text": "«password»"}], rec


async def test_refusals_come_with_reasons(demo):
    async with session(demo) as c:
        s = Session(c)
        await s.login_screen()
        e = await s.err("android_input_text", {"text": "håll"})
        assert e["kind"] == "refused" and "ASCII" in e["error"]
        e = await s.err("android_tap", {"x": 2000, "y": 2000})  # on no screen, upright or turned
        assert e["kind"] == "refused" and "1080x2400" in e["error"]
        # A landscape app's point on the same phone is real: it goes on to `input tap`.
        turned = await c.call_tool("android_tap", {"x": 2000, "y": 500})
        assert not turned.is_error, turned.content
        e = await s.err("android_swipe", {"startX": 10, "startY": 10, "endX": 10, "endY": -1})
        assert e["kind"] == "refused"
        e = await s.err("android_press_key", {"key": "HOME; reboot"})
        assert e["kind"] == "refused"
        e = await s.err("android_perform_action", {"element": "Sign in", "action": "click", "fallback": "none"})
        assert e["kind"] == "refused"
        assert await s.visible("Welcome back"), "nothing refused may have tapped"


async def test_stop_app_and_grant_permission_change_device_state(demo):
    async with session(demo) as c:
        s = Session(c)
        await s.login_screen()
        procs = await s.ok("android_get_processes", {"filter": "com.example.shop"})
        assert procs["count"] == 1
        await s.ok("android_stop_app", {"packageName": "com.example.shop"})
        procs = await s.ok("android_get_processes", {"filter": "com.example.shop"})
        assert procs["count"] == 0
        info = await s.ok("android_get_package_info", {"packageName": "com.example.shop"})
        assert "android.permission.CAMERA" in info["notGranted"]
        await s.ok("android_grant_permission", {"packageName": "com.example.shop", "permission": "android.permission.CAMERA"})
        info = await s.ok("android_get_package_info", {"packageName": "com.example.shop"})
        camera = [p for p in info["runtimePermissions"] if p["name"] == "android.permission.CAMERA"]
        assert camera and camera[0]["granted"] is True


async def test_long_press_perform_action_and_scroll(demo):
    async with session(demo) as c:
        s = Session(c)
        await s.login_screen()
        sc = await s.ok("android_perform_action", {"element": "login_email", "action": "focus"})
        assert sc["performedAs"] == "tap+keys"
        tree = await s.ok("android_find_ui_element", {"element": "login_email"})
        assert tree["matches"][0]["focused"] is True
        await s.ok("android_input_text", {"text": "abc"})
        await s.ok("android_perform_action", {"element": "login_email", "action": "clear"})
        check = await s.ok("android_assert_text", {"element": "login_email", "expectedText": ""})
        assert check["passed"], check
        await s.type_account()
        await s.ok("android_perform_action", {"element": "Sign in", "action": "click"})
        assert await s.visible("Cart")
        sc = await s.ok("android_scroll", {"direction": "forward"})
        assert sc["actedOn"].split(" ")[1] == "list", sc
        logs = await s.ok("android_get_logcat", {"contains": "home scrolled"})
        assert len(logs["lines"]) == 1, "the device saw an upward swipe in the list"
        e = await s.err("android_scroll_to_element", {"element": "Gift card", "maxScrolls": 3})
        assert e["kind"] == "not_found" and "stopped changing" in e["error"]
        sc = await s.ok("android_scroll_to_element", {"element": "Travel Mug"})
        assert sc["scrolls"] == 0
        sc = await s.ok("android_long_press_element", {"element": "Travel Mug", "durationMs": 800})
        assert sc["element"].endswith("'Travel Mug'"), sc
        logs = await s.ok("android_get_logcat", {"tag": "SimInput"})
        assert logs["lines"] == [] or all("tap" not in l["message"] for l in logs["lines"])


async def test_push_then_pull_is_byte_exact(demo):
    payload = bytes(range(256)) * 300 + b"\x00end"
    (demo.project / "fixture.bin").write_bytes(payload)
    (demo.project / "notes.txt").write_text("hello\nworld\n")
    async with session(demo) as c:
        s = Session(c)
        pushed = await s.ok("android_push_file", {"localPath": "fixture.bin", "devicePath": "/sdcard/Download/"})
        # /sdcard is a link; the device resolves it
        assert pushed["devicePath"] in ("/sdcard/Download/fixture.bin", "/storage/emulated/0/Download/fixture.bin")
        assert pushed["bytes"] == len(payload)
        pulled = await s.ok("android_pull_file", {"devicePath": "/sdcard/Download/fixture.bin"})
        local = pathlib.Path(pulled["localPath"])
        assert local.read_bytes() == payload
        assert local.parent == demo.home / "data" / "pulls"
        assert oct(local.parent.stat().st_mode & 0o777) == "0o700"
        assert "text" not in pulled, "binary content is never inlined"
        assert not [p for p in local.parent.iterdir() if p.name.startswith(".")], "no staging file left"
        await s.ok("android_push_file", {"localPath": str(demo.project / "notes.txt"), "devicePath": "/data/local/tmp/n.txt"})
        pulled = await s.ok("android_pull_file", {"devicePath": "/data/local/tmp/n.txt"})
        assert pulled["text"] == "hello\nworld\n"
        # A pulled file may be pushed again (the pull directory is an allowed source).
        await s.ok("android_push_file", {"localPath": pulled["localPath"], "devicePath": "/sdcard/n2.txt"})


async def test_file_refusals_never_reach_the_device(demo, tmp_path):
    outside = tmp_path / "secret.txt"
    outside.write_text("not yours")
    (demo.project / "ok.txt").write_text("ok")
    (demo.project / "link.txt").symlink_to(outside)
    async with session(demo) as c:
        s = Session(c)
        for dp in ["/sdcard/../data/data/com.example.shop/x", "/storage/emulated/0/../../data/x",
                   "/data/data/com.example.shop/databases/x.db", "/sdcard/%2e%2e/data/x", "//data//local/../../etc/x"]:
            e = await s.err("android_push_file", {"localPath": "ok.txt", "devicePath": dp})
            assert e["kind"] == "refused", (dp, e)
            e = await s.err("android_pull_file", {"devicePath": dp})
            assert e["kind"] == "refused", (dp, e)
        for lp in [str(outside), "link.txt", "../secret.txt", "/etc/hostname"]:
            e = await s.err("android_push_file", {"localPath": lp, "devicePath": "/sdcard/x"})
            assert e["kind"] == "refused", (lp, e)
        e = await s.err("android_pull_file", {"devicePath": "/sdcard/never-there.txt"})
        assert e["kind"] == "not_found"


async def test_screen_recording_is_a_valid_mp4_and_the_remote_copy_is_removed(demo):
    async with session(demo) as c:
        s = Session(c)
        started = await s.ok("android_start_screen_recording")
        again = await s.err("android_start_screen_recording")
        assert again["kind"] == "refused", "one session per device"
        stopped = await s.ok("android_stop_screen_recording")
        data = pathlib.Path(stopped["localPath"]).read_bytes()
        assert data[4:8] == b"ftyp" and stopped["validMp4"]
        assert stopped["remoteDeleted"] is True
        gone = await s.err("android_pull_file", {"devicePath": started["devicePath"]})
        assert gone["kind"] == "not_found"
        e = await s.err("android_stop_screen_recording")
        assert e["kind"] == "not_found"


async def test_multi_touch_is_recognised_by_the_device(demo):
    async with session(demo) as c:
        s = Session(c)
        await s.ok("android_open_deep_link", {"uri": "shop://product/42"})
        sc = await s.ok("android_pinch", {"x": 540, "y": 800, "startSpread": 200, "endSpread": 600, "angle": 0, "duration": 300})
        assert sc["deviceNode"].startswith("/dev/input/event")
        await s.ok("android_pinch", {"x": 540, "y": 1200, "startSpread": 400, "endSpread": 100, "angle": 45, "duration": 200})
        await s.ok("android_two_finger_swipe", {"startX": 540, "startY": 1800, "endX": 540, "endY": 600, "spread": 200, "duration": 300})
        await s.ok("android_rotate_gesture", {"x": 540, "y": 1200, "radius": 200, "startAngle": 0, "endAngle": 90, "duration": 300})
        logs = await s.ok("android_get_logcat", {"tag": "SimInput"})
        msgs = [l["message"] for l in logs["lines"]]
        assert "gesture pinch spread 200->600" in msgs
        # At 45 degrees each finger lands on whole pixels, so the spread may be a pixel short.
        pinches = [tuple(map(int, m.split()[-1].split("->"))) for m in msgs if m.startswith("gesture pinch")]
        assert any(abs(a - 400) <= 2 and abs(b - 100) <= 2 for a, b in pinches), pinches
        assert any(m.startswith("gesture two_finger_swipe up") for m in msgs)
        assert "gesture rotation 90" in msgs
        zoomed = await s.ok("android_get_logcat", {"contains": "product photo zoomed in"})
        assert len(zoomed["lines"]) == 1, "only the pinch out zooms"
        e = await s.err("android_pinch", {"x": 540, "y": 100, "startSpread": 100, "endSpread": 400, "angle": 90})
        assert e["kind"] == "refused", "a finger would leave the screen"


async def test_app_functions_are_validated_then_executed(demo):
    async with session(demo) as c:
        s = Session(c)
        listed = await s.ok("android_list_app_functions", {"packageNames": ["com.example.notes"], "maxResults": 1})
        assert listed["count"] == 1 and listed["truncated"] is True
        listed = await s.ok("android_list_app_functions", {})
        create = [f for f in listed["functions"] if f["functionId"] == "createNote"][0]
        assert {p["name"] for p in create["parameters"]} == {"title", "body"}
        r = await s.ok("android_call_app_function", {"packageName": "com.example.notes", "functionId": "createNote",
                                                     "arguments": {"title": "Milk; rm -rf /", "body": "2L"}})
        assert r["result"] == 'Created note "Milk; rm -rf /"'
        e = await s.err("android_call_app_function", {"packageName": "com.example.notes", "functionId": "createNote",
                                                      "arguments": {"title": "x"}})
        assert e["kind"] == "invalid_arguments" and "body" in e["error"]
        e = await s.err("android_call_app_function", {"packageName": "com.example.notes", "functionId": "createNote",
                                                      "arguments": {"title": 1, "body": "x"}})
        assert e["kind"] == "invalid_arguments"
        e = await s.err("android_call_app_function", {"packageName": "com.example.notes", "functionId": "deleteAll"})
        assert e["kind"] == "not_found" and "createNote" in e["error"]
        e = await s.err("android_call_app_function", {"packageName": "com.example.notes;reboot", "functionId": "x"})
        assert e["kind"] == "refused"


async def test_select_project(demo):
    async with session(demo) as c:
        s = Session(c)
        sc = await s.ok("android_select_project", {"project": "shop"})
        assert sc["selected"]["applicationId"] == "com.example.shop"
        sc = await s.ok("android_select_project", {"project": str(demo.project.resolve())})
        assert sc["selected"]["name"] == "shop"
        e = await s.err("android_select_project", {"project": "nope"})
        assert "shop" in e["error"]


def rebuild(prev_lines, sent):
    """The screen an agent holds after `sent`, from the lines it held before."""
    head, *body = sent.split("\n")
    if head.endswith(": no change"):
        return prev_lines
    if ", changes since " not in head:
        return body
    gone = set()
    if body and body[-1].startswith("gone: "):
        gone = set(body.pop()[len("gone: "):].split(" "))
    changed = {l.split(" ")[0]: l for l in body}
    out = [changed.get(l.split(" ")[0], l) for l in prev_lines if l.split(" ")[0] not in gone]
    held = {l.split(" ")[0] for l in prev_lines}
    return out + [l for l in body if l.split(" ")[0] not in held]


async def test_the_next_screen_comes_back_as_its_changes_and_rebuilds_exactly(demo):
    async with session(demo) as c:
        s = Session(c)
        first = await s.ok("android_launch_app", {"packageName": "com.example.shop", "returnScreen": "tree"})
        held = first["screen"].split("\n")[1:]
        assert any("#login_password" in l and l.endswith("password") for l in held), held
        typed = await s.type_account(returnScreen="tree")
        held = rebuild(held, typed["screen"])
        for tap in ("Sign in", "Espresso Machine", "Add to cart"):
            sc = await s.ok("android_tap_element", {"element": tap, "returnScreen": "tree"})
            sent = sc["screen"]
            held = rebuild(held, sent)
        # Adding to the cart changed a few lines of the product page: only those came back.
        assert ", changes since " in sent.split("\n")[0], sent
        assert "'Product #42'" not in sent and "View cart" in sent, sent
        # What the agent rebuilt is the screen as it is: every node of a fresh read, by id and label.
        tree = await s.ok("android_get_ui_tree", {"compact": True})
        nodes = tree["tree"]["n"]
        assert sorted(l.split(" ")[0] for l in held) == sorted(n["id"] for n in nodes), (held, nodes)
        by_id = {l.split(" ")[0]: l for l in held}
        for n in nodes:
            label = n.get("t") or n.get("d") or n.get("in")
            if label:
                assert f"'{label}'" in by_id[n["id"]], (n, by_id[n["id"]])
        # After that read, the next screen goes out whole again.
        sc = await s.ok("android_tap_element", {"element": "View cart", "returnScreen": "tree"})
        assert ", changes since " not in sc["screen"].split("\n")[0]
        # The cart holds what was added: one Espresso Machine.
        assert "Total: $249.00" in sc["screen"] and "1 × $249.00" in sc["screen"], sc["screen"]
