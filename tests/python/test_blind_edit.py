"""Blind edits (issue 32, item 1): a key the person typed into a field out of band (`adb shell
input text`) that the server never read whole, then edited by an agent without reading it first.
Before, the memory of fields holding a hidden value filled only when an agent read the intact
value, and was lost at restart: one DEL showed 11 of the key's 12 characters.

The virtual device behind Debian's adb, the real server, the Python SDK over the relay."""
import json
import re
import stat

import pytest
from conftest import RealAdb, have_adb, start_instance
from leak_attacks import scenario
from mcp import Client

pytestmark = pytest.mark.anyio

KEY = "fn-0123456789ab"
RULE = '[[redaction.rules]]\nname = "fnkey"\npattern = "fn-[0-9a-f]{12}"\nscope = "agent_only"\n'
MARKER = "«redacted:fnkey»"
# The settings screen's "Addresses" row, turned into an empty text field.
FIELD = (63, 980, 1017, 1040)


def field_scenario(tmp_path):
    toml = scenario(tmp_path)
    p = tmp_path / "scen" / "screens" / "settings.xml"
    x = p.read_text()
    old = 'text="2 saved" resource-id="android:id/summary" class="android.widget.TextView"'
    assert old in x
    i = x.index(old)
    j = x.index("/>", i)
    node = x[i:j].replace(old, 'text="" resource-id="com.example.shop:id/api_key" class="android.widget.EditText"')
    node = node.replace('clickable="false"', 'clickable="true"', 1).replace('focusable="false"', 'focusable="true"', 1)
    p.write_text(x[:i] + node + x[j:])
    return toml


class Lab:
    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.adb = RealAdb(tmp_path, scenarios=[field_scenario(tmp_path)])
        self.serial = self.adb.serials[0]
        self.inst = self.start()

    def start(self, home=None):
        return start_instance(self.tmp, "--adb", self.adb.endpoint(), config=RULE, home=home)

    def restart(self):
        self.inst.stop()
        self.inst = self.start(home=self.inst.home)

    def person(self, *cmd):
        """What the person does at the device, out of band: the server sees none of it."""
        self.adb.adb("-s", self.serial, "shell", *cmd)

    def person_types_the_key(self):
        x, y = (FIELD[0] + FIELD[2]) // 2, (FIELD[1] + FIELD[3]) // 2
        self.person("input", "tap", str(x), str(y))
        self.person("input", "text", KEY)

    def device_text(self):
        """The field's text on the device, read out of band."""
        out = self.adb.adb("-s", self.serial, "shell", "uiautomator", "dump", "/dev/tty").stdout
        m = re.search(r'text="([^"]*)" resource-id="com.example.shop:id/api_key"', out)
        assert m, out
        return m.group(1)

    def close(self):
        self.inst.stop()
        self.adb.close()


@pytest.fixture
def lab(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    lab = Lab(tmp_path)
    yield lab
    lab.close()


async def call(c, tool, args=None):
    r = await c.call_tool(tool, args or {})
    seen = json.dumps(r.structured_content or {}, ensure_ascii=False) + "".join(
        x.text for x in r.content if x.type == "text")
    assert not r.is_error, (tool, args, seen)
    return r.structured_content or {}, seen


async def to_settings(c):
    await call(c, "android_launch_app", {"packageName": "com.example.shop"})
    # The demo account: the shop refuses Sign in without it.
    await call(c, "android_input_text_into_element", {
        "element": "login_email", "text": "me@example.com",
        "fields": [{"element": "login_password", "text": "hunter2"}]})
    await call(c, "android_tap_element", {"selector": {"viewId": "sign_in"}})
    await call(c, "android_tap_element", {"element": "Settings"})


def no_fragment(seen, shown):
    """No run of four or more of the key's hex digits, nor its head, in what the agent got."""
    digits = KEY[3:]
    runs = [digits[i:i + 4] for i in range(len(digits) - 3)]
    assert not any(r in seen for r in runs) and "fn-0" not in seen, seen
    assert MARKER in shown, shown


def field_line(out):
    return next(l for l in out["screen"].splitlines() if "#api_key" in l)


async def field_text(c):
    out, seen = await call(c, "android_find_ui_element", {"selector": {"viewId": "api_key"}})
    return out["matches"][0].get("text", ""), seen


async def test_a_key_typed_out_of_band_then_deleted_blind_stays_hidden(lab):
    async with Client(lab.inst.relay_params(), mode="legacy") as c:
        await to_settings(c)
        lab.person_types_the_key()
        # The agent presses DEL without reading first: the server never saw the key whole.
        out, seen = await call(c, "android_press_key", {"key": "DEL", "returnScreen": "tree"})
        assert lab.device_text() == KEY[:-1]
        no_fragment(seen, field_line(out))
        text, seen = await field_text(c)
        no_fragment(seen, text)
        out, seen = await call(c, "android_get_ui_tree", {})
        no_fragment(seen, seen)


async def test_the_cursor_form_move_home_then_forward_del_stays_hidden(lab):
    async with Client(lab.inst.relay_params(), mode="legacy") as c:
        await to_settings(c)
        lab.person_types_the_key()
        await call(c, "android_press_key", {"key": "MOVE_HOME"})
        out, seen = await call(c, "android_press_key", {"key": "FORWARD_DEL", "returnScreen": "tree"})
        # A real EditText deletes the character after the cursor: the first one.
        assert lab.device_text() == KEY[1:]
        no_fragment(seen, field_line(out))
        text, seen = await field_text(c)
        no_fragment(seen, text)


async def test_a_field_read_whole_stays_hidden_across_a_restart(lab):
    async with Client(lab.inst.relay_params(), mode="legacy") as c:
        await to_settings(c)
        lab.person_types_the_key()
        text, seen = await field_text(c)
        assert text == MARKER and KEY not in seen, seen
    lab.restart()
    # The memory is a private file that names neither the key nor the field in clear.
    held = [p for p in (lab.inst.home / "data").rglob("*") if p.is_file() and "held" in p.name]
    assert len(held) == 1, held
    assert stat.S_IMODE(held[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(held[0].parent.stat().st_mode) == 0o700
    raw = held[0].read_text()
    assert KEY[3:9] not in raw and "api_key" not in raw and "com.example.shop" not in raw, raw
    # Meanwhile the person shortens it to "fn-0123" at the device: too short for its shape to
    # say it is part of a key, and the new server has read nothing of it yet.
    for _ in range(8):
        lab.person("input", "keyevent", "DEL")
    assert lab.device_text() == KEY[:-8]
    async with Client(lab.inst.relay_params(), mode="legacy") as c:
        out, seen = await call(c, "android_press_key", {"key": "DEL", "returnScreen": "tree"})
        assert lab.device_text() == KEY[:-9]
        assert "fn-0" not in seen and MARKER in field_line(out), seen
        text, seen = await field_text(c)
        assert text == MARKER and "fn-0" not in seen, seen
