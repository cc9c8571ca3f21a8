"""Oracles an agent could use to read what redaction hides from it (an adversarial review of
issue 16's work), each through the Python SDK over the relay, the real server and Debian's adb
with the virtual device:

- `android_pull_file` sent the size and SHA-256 of the raw file beside its redacted text: the
  rest of the text known, each guess for the hidden part could be checked offline;
- the UI tree's `revision` was a hash of the raw dump: rebuilding the dump with a guess in place
  of the marker tested it offline, and typing a guess into a field and comparing revisions
  tested it online;
- a text field holding a hidden value was hidden only while the whole value matched its rule:
  one character typed after it (or one deleted) showed the rest."""
import hashlib
import json
import re

import pytest
from conftest import RealAdb, have_adb, start_instance
from leak_attacks import RULES, scenario
from mcp import Client

pytestmark = pytest.mark.anyio

AWS = "AKIAIOSFODNN7EXAMPLE"
FIELD_KEY = "sk4b1d9e0c7a"


def editable_scenario(tmp_path):
    """The leak scenario with two rows of the settings screen turned into text fields holding an
    AWS key (a built-in rule) and an API key (the configured `apikey` rule)."""
    toml = scenario(tmp_path)
    p = tmp_path / "scen" / "screens" / "settings.xml"
    x = p.read_text()
    for old, rid, val in [('text="English" resource-id="android:id/summary" class="android.widget.TextView"', "aws_key", AWS),
                          ('text="2 saved" resource-id="android:id/summary" class="android.widget.TextView"', "api_key", FIELD_KEY)]:
        assert old in x
        i = x.index(old)
        j = x.index("/>", i)
        node = x[i:j].replace(old, f'text="{val}" resource-id="com.example.shop:id/{rid}" class="android.widget.EditText"')
        node = node.replace('clickable="false"', 'clickable="true"', 1).replace('focusable="false"', 'focusable="true"', 1)
        x = x[:i] + node + x[j:]
    p.write_text(x)
    return toml


async def call(c, tool, args=None):
    r = await c.call_tool(tool, args or {})
    seen = json.dumps(r.structured_content or {}, ensure_ascii=False) + "".join(
        x.text for x in r.content if x.type == "text")
    return bool(r.is_error), r.structured_content or {}, seen


async def to_settings(c):
    for step in [("android_launch_app", {"packageName": "com.example.shop"}),
                 # The demo account: the shop refuses Sign in without it.
                 ("android_input_text_into_element", {"element": "login_email", "text": "me@example.com",
                                                      "fields": [{"element": "login_password", "text": "hunter2"}]}),
                 ("android_tap_element", {"selector": {"viewId": "sign_in"}}),
                 ("android_tap_element", {"element": "Settings"})]:
        err, _, seen = await call(c, *step)
        assert not err, (step, seen)


@pytest.fixture
def lab(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=[editable_scenario(tmp_path)])
    inst = start_instance(tmp_path, "--adb", adb.endpoint(), config=RULES)
    yield adb, inst
    inst.stop()
    adb.close()


async def test_a_pulled_file_whose_text_is_redacted_has_no_size_or_digest(lab, tmp_path):
    adb, inst = lab
    f = tmp_path / "wallet.txt"
    f.write_text("Saved card: Visa •••• 4242\n")
    adb.adb("-s", adb.serials[0], "push", str(f), "/sdcard/Download/wallet.txt")
    plain = tmp_path / "plain.txt"
    plain.write_text("nothing hidden here\n")
    adb.adb("-s", adb.serials[0], "push", str(plain), "/sdcard/Download/plain.txt")
    async with Client(inst.relay_params(), mode="legacy") as c:
        err, out, seen = await call(c, "android_pull_file", {"devicePath": "/sdcard/Download/wallet.txt"})
        assert not err, seen
        assert "4242" not in seen and "«redacted:card»" in out["text"], seen
        assert "sha256" not in out and "bytes" not in out, out
        # No guess can be checked against anything the agent holds.
        assert not any(hashlib.sha256(out["text"].replace("«redacted:card»", f"{i:04d}").encode()).hexdigest() in seen
                       for i in range(10000))
        # A file with nothing hidden keeps both.
        err, out, seen = await call(c, "android_pull_file", {"devicePath": "/sdcard/Download/plain.txt"})
        assert not err and out["sha256"] == hashlib.sha256(b"nothing hidden here\n").hexdigest(), out
        assert out["bytes"] == 20, out


async def test_a_field_holding_a_hidden_value_stays_hidden_when_edited(lab):
    _, inst = lab
    async with Client(inst.relay_params(), mode="legacy") as c:
        await to_settings(c)
        err, out, seen = await call(c, "android_find_ui_element", {"selector": {"role": "input"}})
        assert AWS not in seen and FIELD_KEY not in seen, seen
        # Typing after the hidden value is refused; nothing was typed.
        err, out, seen = await call(c, "android_input_text_into_element",
                                    {"selector": {"viewId": "aws_key"}, "text": "Z", "returnScreen": "tree"})
        assert err and "hidden" in seen and AWS[:8] not in seen, seen
        # One character deleted with a key (as a soft keyboard's delete would): the field stays
        # hidden, so the remaining characters are not shown.
        err, _, seen = await call(c, "android_tap_element", {"selector": {"viewId": "api_key"}})
        assert not err, seen
        err, out, seen = await call(c, "android_get_ui_tree", {})
        before = out["revision"]
        err, out, seen = await call(c, "android_press_key", {"key": "DEL", "returnScreen": "tree"})
        assert not err, seen
        line = next(l for l in out["screen"].splitlines() if "#api_key" in l)
        assert FIELD_KEY[:6] not in line and "«redacted:apikey»" in line, line
        # The last character guessed back: every guess shows the same tree, and so the same
        # revision, whether or not it restored the value.
        revs = set()
        for ch in "0123456789abcdef":
            err, out, seen = await call(c, "android_input_text", {"text": ch, "returnScreen": "tree"})
            assert not err, seen
            revs.add(re.match(r"rev ([0-9a-f]+)", out["screen"]).group(1))
            assert FIELD_KEY[:6] not in seen, seen
            await call(c, "android_press_key", {"key": "DEL"})
        # One of the guesses restored the value the device held at first, the others did not.
        assert len(revs) == 1, revs
        assert before, before


async def test_a_pull_tells_no_size_the_result_withholds(lab, tmp_path):
    """Issue 32 item 4. Progress said "34 of 34 bytes" for a pull whose result withheld the
    size; a pull over 64 KiB (no text inline) came back with its size and SHA-256 even when the
    file held a hidden value, and the digest of a secret-bearing text checks a guessed secret.
    Now no update and no field tells what the result withholds: pulls count progress in whole
    MiB, and any pulled file holding a hidden value (inline or not, text or not) comes without
    size and digest. A file with nothing hidden keeps both."""
    adb, inst = lab
    line = "Saved card: Visa •••• 4242\n"
    files = {
        "wallet.txt": line.encode(),
        # Over 64 KiB: no text inline, and the card line deep inside.
        "big-wallet.txt": ("x" * 79 + "\n").encode() * 1200 + line.encode(),
        # Not UTF-8 (a database, say), the card line inside it.
        "wallet.db": b"\xff\xfe\x00SQLite" * 9000 + line.encode() + b"\x00\xff" * 100,
        "plain-big.txt": ("y" * 79 + "\n").encode() * 1200,
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        adb.adb("-s", adb.serials[0], "push", str(tmp_path / name), f"/sdcard/Download/{name}")
    async with Client(inst.relay_params(), mode="legacy") as c:
        for name, data in files.items():
            updates = []

            async def on_progress(progress, total, message):
                updates.append((progress, total, message))

            r = await c.call_tool("android_pull_file", {"devicePath": f"/sdcard/Download/{name}"},
                                  progress_callback=on_progress)
            assert not r.is_error, r.content
            out = r.structured_content
            seen = json.dumps(out, ensure_ascii=False)
            assert "4242" not in seen, (name, seen)
            # Whatever the result shows, no update told the size (nor a count that reaches it).
            said = {n for _, _, m in updates for n in re.findall(r"\d+", m or "")}
            said |= {int(v) for p, t, _ in updates for v in (p, t) if v is not None}
            said = {int(n) for n in said}
            assert len(data) not in said, (name, len(data), updates)
            assert all(n < 1024 for n in said), (name, updates)
            if name.startswith("plain"):
                assert out["bytes"] == len(data) and out["sha256"] == hashlib.sha256(data).hexdigest(), out
            else:
                assert "bytes" not in out and "sha256" not in out, (name, out)
                assert hashlib.sha256(data).hexdigest() not in seen, name
