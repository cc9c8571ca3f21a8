"""Every way an agent has to read a secret it must not see (issue 16), as one reusable attack:
used by `test_leak_paths.py` (in CI) and `benches/leak_paths.py` (the RELIABILITY.md figures).

The setup: the demo device behind a real `adb` server, with agent-only redaction rules; a
secret on screen (an API key beside the card number on the shop's settings screen), two in
logcat (`password=…`, `Bearer …`), and a password the agent types into the login screen's
password field. Then every path: logcat and log `contains` filters (with a character-by-
character oracle), selectors, find, waits and asserts on the hidden text, screenshots (the
hidden node's pixels must be black), batch runs, their history and export ZIP, tasks, status,
resources, and every read-only tool called with no arguments. A leak is any secret appearing
in anything the agent gets back, or any probe whose answer depends on the hidden text.
"""
import base64
import io
import json
import shutil
import struct
import time
import zipfile
import zlib

import anyio

from conftest import ROOT, RealAdb, start_instance

SCREEN_KEY = "sk9f8e7d6c5b"
LOG_PASSWORD = "hunter2xyz"
LOG_TOKEN = "zq8TOKENsecret77"
TYPED = "Tr0ub4dor3x"
SECRETS = [SCREEN_KEY, LOG_PASSWORD, LOG_TOKEN, TYPED]
# The settings screen's summary line, which holds the card number and the key.
SUMMARY = (63, 780, 1017, 840)
RULES = (
    '[[redaction.rules]]\nname = "card"\npattern = "•+ (?P<secret>[0-9]{4})"\nscope = "agent_only"\n'
    '[[redaction.rules]]\nname = "apikey"\npattern = "sk[0-9a-f]{10}"\nscope = "agent_only"\n'
)


def scenario(tmp_path, transition_ms=0):
    """The demo scenario with the screen and logcat secrets added; `transition_ms` animates each
    change of screen (the old frame stays on the glass, `uiautomator dump` waits it out)."""
    scen = tmp_path / "scen"
    shutil.copytree(ROOT / "assets" / "demo", scen)
    if transition_ms:
        toml = (scen / "demo.toml").read_text()
        assert "[device]\n" in toml
        (scen / "demo.toml").write_text(toml.replace("[device]\n", f"[device]\ntransition_ms = {transition_ms}\n", 1))
    settings = scen / "screens" / "settings.xml"
    xml = settings.read_text()
    assert 'text="Visa •••• 4242"' in xml
    settings.write_text(xml.replace('text="Visa •••• 4242"', f'text="Visa •••• 4242 · key {SCREEN_KEY}"'))
    toml = (scen / "demo.toml").read_text()
    toml += f'\n[[logcat]]\nlevel = "W"\ntag = "Auth"\nmessage = "retrying login?user=bob&password={LOG_PASSWORD}"\n'
    toml += f'\n[[logcat]]\nlevel = "W"\ntag = "Http"\nmessage = "GET /v1/me Authorization: Bearer {LOG_TOKEN}"\n'
    (scen / "demo.toml").write_text(toml)
    return scen / "demo.toml"


class Lab:
    """The real server (`serve --adb`) on the virtual device over a real adb server."""

    def __init__(self, tmp_path):
        self.adb = RealAdb(tmp_path, scenarios=[scenario(tmp_path)])
        self.inst = start_instance(tmp_path, "--adb", self.adb.endpoint(), config=RULES)

    def close(self):
        self.inst.stop()
        self.adb.close()


def png_pixels(data):
    """A minimal PNG decoder (8-bit RGB/RGBA, non-interlaced): (width, height, rows, bytes per pixel)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w, h, bpp = 8, b"", 0, 0, 3
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), (depth, color)
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows, bpp


class Attack:
    """Counts paths and probes, and collects leaks."""

    def __init__(self, client):
        self.c = client
        self.paths = []
        self.probes = 0
        self.leaks = []

    def path(self, name):
        self.paths.append(name)

    def leak(self, what):
        self.leaks.append(f"{self.paths[-1] if self.paths else '?'}: {what}")

    async def call(self, tool, args=None):
        """One probe: (is_error, structured content, everything the agent got as one string)."""
        self.probes += 1
        res = await self.c.call_tool(tool, args or {})
        parts = [json.dumps(res.structured_content or {}, ensure_ascii=False)]
        for item in res.content:
            if item.type == "text":
                parts.append(item.text)
        seen = "\n".join(parts)
        for s in SECRETS:
            if s in seen:
                self.leak(f"{tool} {json.dumps(args)[:120]} returned {s!r}")
        return bool(res.is_error), res.structured_content or {}, seen, res

    async def matches_nothing(self, tool, args, field):
        """A probe on hidden text: its answer must not depend on it."""
        err, out, _, _ = await self.call(tool, args)
        hit = out.get(field)
        if not err and hit:
            self.leak(f"{tool} {json.dumps(args)} matched hidden text ({field}={str(hit)[:80]})")


def prefixes(known, secret):
    """The character-by-character oracle's probes after a known prefix: every first character
    an attacker would try, then each longer prefix of the secret (a guess that matched would
    be the next step). Without a known prefix, single characters match ordinary text, so the
    walk starts at three characters of the secret."""
    if not known:
        return [secret[:i] for i in range(3, len(secret) + 1)]
    first = [known + ch for ch in "abcdefghijklmnopqrstuvwxyz0123456789"]
    return first + [known + secret[:i] for i in range(2, len(secret) + 1)]


async def screen_png_black(a, args, scale):
    err, out, _, res = await a.call("android_take_screenshot", args)
    if err:
        a.leak(f"no screenshot: {out}")
        return
    img = next(x for x in res.content if x.type == "image")
    w, h, rows, bpp = png_pixels(base64.b64decode(img.data))
    x0, y0, x1, y1 = (int(v / scale) for v in SUMMARY)
    px = {tuple(rows[y][x * bpp:x * bpp + 3]) for x in range(x0 + 1, x1 - 1, 3) for y in range(y0 + 1, y1 - 1, 2)}
    if px != {(0, 0, 0)}:
        a.leak(f"the hidden line is not black in a {w}x{h} screenshot: {sorted(px)[:4]}")
    if out.get("hiddenRegions", 0) < 1:
        a.leak(f"hiddenRegions {out.get('hiddenRegions')}")


async def wait_run(a, run_id):
    deadline = time.monotonic() + 30
    while True:
        err, rec, _, _ = await a.call("android_batch_history_get", {"runId": run_id})
        if err or rec.get("state") != "processing":
            return rec
        if time.monotonic() > deadline:
            a.leak(f"run {run_id} never finished")
            return rec
        await anyio.sleep(0.1)


async def run_all(client, tools=None):
    """Every leak path against one connected client. Returns the Attack (paths, probes, leaks)."""
    a = Attack(client)
    ok = lambda r: not r[0]  # noqa: E731

    # The typed password: into the focused password field, and by the element tool.
    a.path("typing a password")
    assert ok(await a.call("android_launch_app", {"packageName": "com.example.shop"}))
    assert ok(await a.call("android_tap_element", {"selector": {"viewId": "login_password"}}))
    assert ok(await a.call("android_input_text", {"text": TYPED}))
    assert ok(await a.call("android_input_text_into_element",
                           {"selector": {"viewId": "login_password"}, "text": TYPED, "clear": True,
                            "returnScreen": "tree"}))
    a.path("filling a form whose second field is a password")
    assert ok(await a.call("android_input_text_into_element",
                           {"element": "login_email", "text": "bob@example.com", "clear": True,
                            "fields": [{"element": "login_password", "text": TYPED, "clear": True}],
                            "returnScreen": "both"}))
    a.path("a batch run typing a password")
    err, started, _, _ = await a.call("android_batch_run_inline", {"name": "login", "steps": [
        {"tool": "android_input_text_into_element",
         "arguments": {"selector": {"viewId": "login_password"}, "text": TYPED, "clear": True}},
        {"tool": "android_input_text_into_element",
         "arguments": {"element": "login_email", "text": "bob@example.com", "clear": True,
                       "fields": [{"element": "login_password", "text": TYPED, "clear": True}]}},
        # The agent's own argument is shown back to it only as far as a rule leaves it.
        {"tool": "android_get_logcat", "arguments": {"lines": 50, "contains": f"password={LOG_PASSWORD}"}},
        {"tool": "android_get_ui_tree", "arguments": {}},
    ]})
    run_id = started.get("runId")
    a.path("batch run history (android_batch_history_get)")
    rec = await wait_run(a, run_id)
    if rec.get("state") != "succeeded":
        a.leak(f"the inline run did not succeed: {json.dumps(rec)[:400]}")
    a.path("batch export ZIP (run.json)")
    err, exp, _, _ = await a.call("android_batch_history_export", {"runId": run_id})
    if not err:
        z = zipfile.ZipFile(io.BytesIO(base64.b64decode(exp["zipBase64"])))
        for name in z.namelist():
            body = z.read(name).decode("latin-1")
            for s in SECRETS:
                if s in body:
                    a.leak(f"{name} in the export holds {s!r}")
    for tool in ["android_batch_history_list", "android_batch_list", "android_batch_status"]:
        a.path(tool)
        await a.call(tool, {})

    # Logcat and this program's log: the filter, an oracle, and the raw listing.
    extra = {"spock_get_logs": {"level": "TRACE"}, "android_get_logcat": {"lines": 500}}
    field = {"spock_get_logs": "entries", "android_get_logcat": "lines"}
    err, out, _, _ = await a.call("android_get_logcat", {"contains": "password=«redacted", "lines": 500})
    if err or len(out.get("lines", [])) != 1:
        a.leak(f"the logcat secret is not on the device: {json.dumps(out)[:300]}")
    for tool in extra:
        a.path(f"{tool} contains (whole secrets)")
        for s in SECRETS:
            await a.matches_nothing(tool, {"contains": s, **extra[tool]}, field[tool])
    for tool, known, secret in [("android_get_logcat", "password=", LOG_PASSWORD),
                                ("android_get_logcat", "Bearer ", LOG_TOKEN),
                                ("spock_get_logs", "password=", LOG_PASSWORD),
                                ("spock_get_logs", "", TYPED)]:
        a.path(f"{tool} contains (character-by-character oracle on {known or 'the typed text'})")
        for probe in prefixes(known, secret):
            await a.matches_nothing(tool, {"contains": probe, **extra[tool]}, field[tool])
    a.path("android_get_logcat unfiltered")
    await a.call("android_get_logcat", {"lines": 500})
    a.path("spock_get_logs unfiltered")
    await a.call("spock_get_logs", {"level": "TRACE", "limit": 1000})

    # The screen: the tree, and every way of matching an argument against it.
    # The form holds what the attacks typed: the demo account first, or Sign in is refused.
    for step in [("android_input_text_into_element",
                  {"element": "login_email", "text": "me@example.com", "clear": True,
                   "fields": [{"element": "login_password", "text": "hunter2", "clear": True}]}),
                 ("android_tap_element", {"selector": {"viewId": "sign_in"}}),
                 ("android_tap_element", {"element": "Settings"})]:
        assert ok(await a.call(*step)), step
    a.path("android_get_ui_tree")
    err, tree, seen, _ = await a.call("android_get_ui_tree", {})
    if "«redacted:apikey»" not in seen:
        a.leak("the settings screen is not the one under attack")
    a.path("android_get_debug_context (activity, ui, logcat)")
    await a.call("android_get_debug_context", {"lines": 500})
    a.path("android_accessibility_audit")
    await a.call("android_accessibility_audit", {})
    a.path("android_find_ui_element (selector oracle)")
    for probe in prefixes("key ", SCREEN_KEY) + ["4242", "•••• 4"]:
        await a.matches_nothing("android_find_ui_element", {"selector": {"textContains": probe}}, "matches")
    await a.matches_nothing("android_find_ui_element",
                            {"selector": {"text": f"Visa •••• 4242 · key {SCREEN_KEY}"}}, "matches")
    a.path("android_find_ui_element (element string)")
    for probe in [SCREEN_KEY, "4242", f"key {SCREEN_KEY}"]:
        await a.matches_nothing("android_find_ui_element", {"element": probe}, "matches")
    a.path("android_wait_for_element")
    await a.matches_nothing("android_wait_for_element",
                            {"selector": {"textContains": SCREEN_KEY}, "timeoutMs": 300}, "met")
    a.path("android_assert_visible")
    await a.matches_nothing("android_assert_visible", {"selector": {"textContains": SCREEN_KEY[:4]}}, "passed")
    a.path("android_assert_text (the real text as expected)")
    await a.matches_nothing("android_assert_text",
                            {"selector": {"viewId": "summary"}, "expectedText": f"Visa •••• 4242 · key {SCREEN_KEY}"},
                            "passed")
    a.path("an element line and the screen sent back (returnScreen lines) holding hidden text")
    await a.call("android_tap_element", {"selector": {"viewId": "summary"}, "returnScreen": "tree"})
    await a.call("android_press_key", {"key": "UNKNOWN", "returnScreen": "tree"})
    a.path("android_tap_element / android_scroll_to_element on hidden text")
    for tool, args in [("android_tap_element", {"element": SCREEN_KEY}),
                       ("android_scroll_to_element", {"selector": {"textContains": SCREEN_KEY}, "maxScrolls": 1})]:
        err, out, _, _ = await a.call(tool, args)
        if not err:
            a.leak(f"{tool} found hidden text: {json.dumps(out)[:200]}")

    # Screenshots: the hidden line's pixels.
    a.path("android_take_screenshot png, full size")
    await screen_png_black(a, {"format": "png", "maxSize": 0}, 1.0)
    a.path("android_take_screenshot png, scaled")
    await screen_png_black(a, {"format": "png", "maxSize": 1200}, 2400 / 1200)
    a.path("android_take_screenshot jpeg and android_get_debug_context screenshot (hiddenRegions)")
    for tool, args, key in [("android_take_screenshot", {}, None),
                            ("android_get_debug_context", {"include": ["screenshot"]}, "screenshot")]:
        err, out, _, _ = await a.call(tool, args)
        info = (out.get(key) or {}).get("value", {}) if key else out
        if err or info.get("hiddenRegions", 0) < 1:
            a.leak(f"{tool}: the hidden line was not blacked out ({json.dumps(out)[:200]})")

    # Resources, and every read-only tool with no arguments.
    a.path("resources")
    for r in (await client.list_resources()).resources:
        a.probes += 1
        body = json.dumps([c.model_dump() for c in (await client.read_resource(r.uri)).contents])
        for s in SECRETS:
            if s in body:
                a.leak(f"resource {r.uri} holds {s!r}")
    a.path("every read-only tool, no arguments")
    for t in tools or (await client.list_tools()).tools:
        if t.annotations and t.annotations.read_only_hint:
            await a.call(t.name, {})
    return a
