"""Secrets stay hidden from the agent on every side path (issue 16): an agent's argument is
only ever matched against what the agent is shown, never against the hidden text."""
import json
import re
import shutil

import pytest
from conftest import ROOT, RealAdb, call, have_adb, start_instance
from leak_attacks import png_pixels
from mcp import Client

pytestmark = pytest.mark.anyio

# The demo's settings screen shows "Visa •••• 4242"; this rule hides the last four digits.
CARD_RULE = '[[redaction.rules]]\nname = "card"\npattern = "•+ (?P<secret>[0-9]{4})"\n'


# What the server makes up itself, whose digits are the clock's or a port's, never the screen's:
# timestamps, ids stamped with the time (`run_20261130T154242_…` held "4242" at 15:42:42),
# and host:port.
MADE_UP = re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z?|\b[a-z]+_\d{8}T\d{6}_[0-9a-f]+\b|\d+\.\d+\.\d+\.\d+:\d+")


def shown(v):
    """Every string the agent was shown, minus the serial and what the server made up itself."""
    if isinstance(v, dict):
        return " ".join(shown(x) for k, x in v.items() if k not in ("serial", "revision"))
    if isinstance(v, list):
        return " ".join(shown(x) for x in v)
    return MADE_UP.sub(" ", str(v))


async def to_settings(c):
    for step in [
        # The demo account: the shop refuses Sign in without it.
        ("android_input_text_into_element", {"element": "login_email", "text": "me@example.com",
                                             "fields": [{"element": "login_password", "text": "hunter2"}]}),
        ("android_tap_element", {"selector": {"viewId": "sign_in"}}),
        ("android_tap_element", {"element": "Settings"}),
    ]:
        err, r = await call(c, *step)
        assert not err, r


async def test_selectors_match_the_tree_the_agent_sees(tmp_path):
    inst = start_instance(tmp_path, "--demo", config=CARD_RULE)
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            await to_settings(c)
            err, tree = await call(c, "android_get_ui_tree", {})
            assert not err and "4242" not in shown(tree) and "«redacted:card»" in shown(tree), tree
            # Probing the hidden digits one guess at a time finds nothing...
            for probe in [{"textContains": "4242"}, {"textContains": "42"}, {"text": "Visa •••• 4242"}]:
                err, r = await call(c, "android_find_ui_element", {"selector": probe})
                assert err or not r.get("matches"), (probe, r)
                err, r = await call(c, "android_assert_visible", {"selector": probe})
                assert err or not r.get("passed"), (probe, r)
            err, r = await call(c, "android_find_ui_element", {"element": "4242"})
            assert err or not r.get("matches"), r
            err, r = await call(c, "android_wait_for_element", {"selector": {"textContains": "4242"}, "timeoutMs": 300})
            assert err or not r.get("met"), r
            # ...while what the agent can see still matches.
            err, r = await call(c, "android_find_ui_element", {"selector": {"textContains": "Visa"}})
            assert not err and r["matches"], r
            assert "4242" not in shown(r)
    finally:
        inst.stop()


async def test_logcat_contains_matches_redacted_text(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    scen = tmp_path / "scen"
    shutil.copytree(ROOT / "assets" / "demo", scen)
    toml = (scen / "demo.toml").read_text()
    toml += '\n[[logcat]]\nlevel = "W"\ntag = "Auth"\nmessage = "retrying login?user=bob&password=hunter2xyz"\n'
    (scen / "demo.toml").write_text(toml)
    adb = RealAdb(tmp_path, scenarios=[scen / "demo.toml"])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            # The oracle: a substring of the hidden password must match nothing.
            for probe in ["password=h", "hunter2", "hunter2xyz"]:
                err, r = await call(c, "android_get_logcat", {"contains": probe})
                assert not err, r
                assert r["lines"] == [], (probe, r)
            # What the agent sees still matches.
            err, r = await call(c, "android_get_logcat", {"contains": "password=«redacted"})
            assert not err and len(r["lines"]) == 1, r
    finally:
        inst.stop()
        adb.close()


async def test_batch_export_is_redacted_like_every_other_answer(tmp_path):
    import base64
    import io
    import time
    import zipfile

    import anyio

    inst = start_instance(tmp_path, "--demo", config=CARD_RULE)
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            await to_settings(c)
            err, started = await call(c, "android_batch_run_inline", {"name": "read settings", "steps": [
                {"tool": "android_get_ui_tree", "arguments": {}},
                {"tool": "android_get_logcat", "arguments": {"lines": 5, "contains": "password=hunter2xyz"}},
            ]})
            assert not err, started
            run_id = started["runId"]
            deadline = time.monotonic() + 30
            while True:
                err, rec = await call(c, "android_batch_history_get", {"runId": run_id})
                assert not err, rec
                if rec["state"] != "processing":
                    break
                assert time.monotonic() < deadline, rec
                await anyio.sleep(0.1)
            assert "«redacted:card»" in shown(rec) and "4242" not in shown(rec)
            assert "hunter2xyz" not in shown(rec)
            err, exp = await call(c, "android_batch_history_export", {"runId": run_id})
            assert not err, exp
            z = zipfile.ZipFile(io.BytesIO(base64.b64decode(exp["zipBase64"])))
            inner = z.read("run.json").decode()
            assert "4242" not in shown(json.loads(inner)), inner[:2000]
            assert "hunter2xyz" not in inner, inner[:2000]
            assert "«redacted:card»" in inner and "password=«redacted:password»" in inner
    finally:
        inst.stop()
    # The person's copy on disk keeps the whole record.
    runs = list((inst.home / "data").rglob("run.json"))
    assert runs and "hunter2xyz" in runs[0].read_text()


async def test_text_typed_into_a_password_field_is_recorded_as_password(tmp_path):
    import time

    import anyio

    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            err, r = await call(c, "android_input_text_into_element",
                                {"selector": {"viewId": "login_password"}, "text": "hunter2xyz"})
            assert not err, r
            assert "hunter2xyz" not in json.dumps(r)
            # A batch step typing into the same field: its run record says «password» too.
            err, started = await call(c, "android_batch_run_inline", {"name": "login", "steps": [
                {"tool": "android_input_text_into_element",
                 "arguments": {"selector": {"viewId": "login_password"}, "text": "s3cretpw", "clear": True}},
            ]})
            assert not err, started
            deadline = time.monotonic() + 30
            while True:
                err, rec = await call(c, "android_batch_history_get", {"runId": started["runId"]})
                if rec["state"] != "processing":
                    break
                assert time.monotonic() < deadline, rec
                await anyio.sleep(0.1)
            assert rec["state"] == "succeeded", rec
            assert rec["steps"][0]["arguments"]["text"] == "«password»", rec
            err, exp = await call(c, "android_batch_history_export", {"runId": started["runId"]})
            assert "s3cretpw" not in json.dumps(exp)
    finally:
        inst.stop()
    audit = (inst.home / "data" / "audit" / "audit.jsonl").read_text()
    assert "hunter2xyz" not in audit, audit[-3000:]
    # Not even the inline run's own arguments: a task's typing steps are recorded without
    # their texts (each step's own record says what it typed, «password» here).
    holders = {json.loads(l)["tool"] for l in audit.splitlines() if "s3cretpw" in l}
    assert holders == set(), holders
    inline = next(json.loads(l) for l in audit.splitlines() if json.loads(l)["tool"] == "android_batch_run_inline")
    assert inline["arguments"]["steps"][0]["arguments"]["text"] == "«password»", inline
    typed = [r for r in map(json.loads, audit.splitlines()) if r["tool"] == "android_input_text_into_element"]
    assert len(typed) == 2 and all(t["arguments"]["text"] == "«password»" for t in typed), typed
    runs = list((inst.home / "data").rglob("run.json"))
    assert runs and "s3cretpw" not in runs[0].read_text()


async def test_screenshot_blacks_out_what_the_tree_hides(tmp_path):
    import base64

    inst = start_instance(tmp_path, "--demo", config=CARD_RULE)
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            await to_settings(c)
            # maxSize 0: the device's PNG (`screencap -p`); 2400: a raw frame converted here.
            for max_size in (0, 2400):
                res = await c.call_tool("android_take_screenshot", {"format": "png", "maxSize": max_size})
                assert not res.is_error
                img = next(x for x in res.content if x.type == "image")
                w, h, rows, bpp = png_pixels(base64.b64decode(img.data))
                assert (w, h) == (1080, 2400)
                px = lambda x, y: tuple(rows[y][x * bpp:x * bpp + 3])
                # The card's summary line ([63,780][1017,840]) is solid black for the agent...
                card = {px(x, y) for x in range(63, 1017, 7) for y in range(780, 840, 3)}
                assert card == {(0, 0, 0)}, (max_size, card)
                assert res.structured_content["hiddenRegions"] == 1
                # ...and only it: the title above it is still drawn.
                title = {px(x, y) for x in range(63, 1017, 7) for y in range(720, 780, 3)}
                assert len(title) > 1, max_size
    finally:
        inst.stop()


async def test_typing_into_the_focused_password_field_is_recorded_as_password(tmp_path):
    """android_input_text has no selector: the focused field decides. The text is typed first
    and withheld until a read of the screen shows the field: the call's own settle dump when it
    asks for one (then its record shows a plain field's text), else a later read (the record,
    written when the call ended, keeps «password»)."""
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            for field, text, screen in [("login_password", "hunter2xyz", {"returnScreen": "tree"}),
                                        ("login_email", "bob_example", {"returnScreen": "tree"}),
                                        ("login_email", "_more", {})]:
                err, r = await call(c, "android_tap_element", {"selector": {"viewId": field}})
                assert not err, r
                err, r = await call(c, "android_input_text", {"text": text, **screen})
                assert not err, r
                assert "hunter2xyz" not in json.dumps(r)
            err, r = await call(c, "android_find_ui_element", {"selector": {"viewId": "login_email"}})
            assert r["matches"][0]["text"] == "bob_example_more", r
    finally:
        inst.stop()
    audit = (inst.home / "data" / "audit" / "audit.jsonl").read_text()
    assert "hunter2xyz" not in audit, audit[-3000:]
    typed = [r["arguments"]["text"] for r in map(json.loads, audit.splitlines()) if r["tool"] == "android_input_text"]
    # The password field's text is «password»; the e-mail field's is shown as typed when the
    # call's settle dump showed the field, and withheld when no read had yet.
    assert typed == ["«password»", "bob_example", "«password»"], typed


async def test_typed_text_stays_hidden_in_errors_and_replays(tmp_path):
    """Issue 32 item 3: a timed-out `input text` put the typed password in the audit's `error`
    and in the caller's answer while `arguments` said «password». Whatever hides an argument
    hides it in every message that quotes it: the caller's answer, the audit record, the
    device listing's "not answering" reason, the log an agent reads, and a batch replay's
    step error (history, export, run.json). The device layer's `input` hangs (the sim's fault
    switch), so each typing call times out with the command in its message."""
    import time

    import anyio

    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path)
    inst = start_instance(tmp_path, "--adb", adb.endpoint(), config="[device]\ncommand_timeout_ms = 2500\n")
    sim = adb.sim_serials()[0]
    # A space and a quote: `input text` writes them as %s and '\'' on the command line.
    secrets = {"direct": "hunter2 it's", "element": "s3cret pw'x", "replay": "b4tchpw q'z"}
    pieces = ["hunter2", "it's", "it'\\''s", "s3cret", "pw'x", "b4tchpw", "q'z", "%s"]

    def clean(what, text):
        for p in pieces:
            assert p not in text, (what, p, text[-2000:])

    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, r = await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            assert not err, r
            err, r = await call(c, "android_tap_element", {"selector": {"viewId": "login_password"}})
            assert not err, r
            err, saved = await call(c, "android_batch_save", {"id": "login", "name": "login", "steps": [
                {"tool": "android_input_text", "arguments": {"text": secrets["replay"]}}]})
            assert not err, saved
            adb.fault(sim, fault="hang", command="input")
            try:
                for tool, args in [
                    ("android_input_text", {"text": secrets["direct"]}),
                    ("android_input_text_into_element",
                     {"selector": {"viewId": "login_password"}, "text": secrets["element"]}),
                ]:
                    res = await c.call_tool(tool, args)
                    answer = json.dumps(res.structured_content) + "".join(x.text for x in res.content if x.type == "text")
                    assert res.is_error and "timed out" in answer, answer
                    if tool == "android_input_text":
                        # The element tool times out at its tap, before it types.
                        assert "«password»" in answer, answer
                    clean(tool, answer)
                err, started = await call(c, "android_batch_run", {"id": "login"})
                assert not err, started
                deadline = time.monotonic() + 60
                while True:
                    err, rec = await call(c, "android_batch_history_get", {"runId": started["runId"]})
                    if rec["state"] != "processing":
                        break
                    assert time.monotonic() < deadline, rec
                    await anyio.sleep(0.2)
                assert rec["state"] == "failed" and "timed out" in rec["steps"][0]["error"], rec
                assert "«password»" in rec["steps"][0]["error"], rec
                clean("history", json.dumps(rec))
                err, exp = await call(c, "android_batch_history_export", {"runId": started["runId"]})
                import base64
                import io
                import zipfile
                z = zipfile.ZipFile(io.BytesIO(base64.b64decode(exp["zipBase64"])))
                clean("export", z.read("run.json").decode())
                for tool in ("android_list_devices", "spock_get_logs"):
                    err, r = await call(c, tool, {})
                    clean(tool, json.dumps(r))
            finally:
                adb.fault(sim, fault="clear")
    finally:
        inst.stop()
        adb.close()
    audit = (inst.home / "data" / "audit" / "audit.jsonl").read_text()
    records = [json.loads(l) for l in audit.splitlines()]
    typed = [r for r in records if r["tool"].startswith("android_input_text")]
    assert len(typed) == 3 and all(r["arguments"]["text"] == "«password»" for r in typed), typed
    assert all("«password»" in r["error"] for r in typed if r["tool"] == "android_input_text"), typed
    # Not even the save's own arguments hold the replayed text: a task's typing steps are
    # recorded without their texts.
    for r in records:
        clean(r["tool"], json.dumps(r))
    for run in (inst.home / "data").rglob("run.json"):
        clean("run.json", run.read_text())
