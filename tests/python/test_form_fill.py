"""A form filled in one call (`android_input_text_into_element` with `fields`), through the real
Python MCP SDK and a real `adb` server in front of the virtual device: how many times the screen
is read, and what the person's records keep of each text."""
import json
import re
import shutil

import pytest
from conftest import ROOT, RealAdb, call, have_adb, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

FIRST, SECOND = "Tr0ub4dor3x", "c0rrect-h0rse"


def two_password_scenario(tmp_path):
    """The demo, with the login screen's e-mail field made a password field too (as a form
    with a password and its confirmation)."""
    scen = tmp_path / "scen"
    shutil.copytree(ROOT / "assets" / "demo", scen)
    login = scen / "screens" / "login.xml"
    xml = login.read_text()
    plain = 'resource-id="login_email" class="android.widget.EditText"'
    start = xml.index(plain)
    end = xml.index("/>", start)
    node = xml[start:end]
    assert 'password="false"' in node
    login.write_text(xml[:start] + node.replace('password="false"', 'password="true"') + xml[end:])
    return scen / "demo.toml"


def dumps(adb):
    sim = adb.sim_serials()[0]
    stats = json.loads(adb.fault(sim, stats=True))["stats"][sim]
    return stats["commands"].get("uiautomator dump", {}).get("count", 0)


async def test_each_password_of_a_form_is_typed_on_a_screen_read_after_the_last_typing(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=[two_password_scenario(tmp_path)])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, r = await call(c, "android_launch_app", {"packageName": "com.example.shop", "returnScreen": "tree"})
            assert not err, r
            before = dumps(adb)
            err, r = await call(c, "android_input_text_into_element", {
                "element": "login_email", "text": FIRST,
                "fields": [{"element": "login_password", "text": SECOND}]})
            assert not err and r["verified"] is True, r
            seen = json.dumps(r)
            assert FIRST not in seen and SECOND not in seen, r
            # The first password on the launch's screen; the second on a screen read after the
            # first was typed; then the read-back.
            assert dumps(adb) - before == 2
        # What each field holds, read off the device itself (bullets, one per character).
        xml = adb.adb("-s", adb.serials[0], "exec-out", "uiautomator", "dump", "/dev/tty").stdout
        lens = {f: len(re.search(f'text="([^"]*)" resource-id="{f}"', xml)[1]) for f in ("login_email", "login_password")}
        assert lens == {"login_email": len(FIRST), "login_password": len(SECOND)}, lens
    finally:
        inst.stop()
        adb.close()
    audit = [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines()]
    rec = [r for r in audit if r["tool"] == "android_input_text_into_element"][-1]
    assert rec["arguments"]["text"] == "«password»"
    assert rec["arguments"]["fields"][0]["text"] == "«password»"
    # Nothing the person's data holds has either, but the typed-password store kept for History.
    for path in (inst.home / "data").rglob("*"):
        if path.is_file() and "history-private" not in path.parts:
            body = path.read_bytes()
            assert FIRST.encode() not in body and SECOND.encode() not in body, path
