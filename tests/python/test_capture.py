"""A phone's own capture, replayable (issue 43): `spock-tui doctor --capture DIR` on a device
behind a real `adb` server writes a scrubbed bundle; `spock-tui sim --replay DIR` serves it as a
device behind a real `adb` server again, and the read tools called with the arguments the
capture recorded give the answers it recorded (timestamps and durations aside)."""
import json
import os
import re
import subprocess

import pytest
from conftest import EXE, ROOT, RealAdb, have_adb, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

# What may differ between the phone and its replay: when, and how long.
VOLATILE = re.compile(r"(?i)(time|duration|elapsed|uptime|^at$|since|age)")


def normalized(v, names, server):
    """`v` with the device's own names (each in `names`) as DEVICE, the adb server it was
    reached through (`server`, HOST:PORT) as ADB, and volatile keys out."""
    if isinstance(v, dict):
        return {k: normalized(x, names, server) for k, x in v.items() if not VOLATILE.search(k)}
    if isinstance(v, list):
        return [normalized(x, names, server) for x in v]
    if isinstance(v, str):
        for n in names:
            v = re.sub(re.escape(n) + "(@" + re.escape(server) + ")?", "DEVICE", v)
        return v.replace(server, "ADB")
    return v


def capture(tmp_path, adb, out):
    home = tmp_path / "capture-home"
    r = subprocess.run([EXE, "doctor", "--capture", str(out), "--adb", adb.endpoint()],
                       env={**os.environ, "SPOCK_TUI_HOME": str(home)},
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


async def test_a_capture_of_the_virtual_device_replays_with_the_same_answers(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    (tmp_path / "o").mkdir()
    original = RealAdb(tmp_path / "o")
    bundle_dir = tmp_path / "bundle"
    try:
        said = capture(tmp_path, original, bundle_dir)
        serial = original.serials[0]
        captured_through = original.endpoint()
    finally:
        original.close()
    # It says what it replaced and what it kept, and where the bundle is.
    assert "Replaced" in said and "Kept as captured" in said and str(bundle_dir) in said, said
    text = (bundle_dir / "bundle.json").read_text()
    bundle = json.loads(text)
    # The device's serial (an address and port here) is gone from every part of the bundle.
    assert serial not in text, serial
    assert "serial" in {r["kind"] for r in bundle["scrubbed"]}, bundle["scrubbed"]
    tools = [c["tool"] for c in bundle["calls"]]
    for t in ("android_get_ui_tree", "android_get_device_info", "android_get_current_activity",
              "android_get_logcat", "android_list_packages", "android_get_screen_info"):
        assert t in tools, tools
    assert all(c.get("error") is None for c in bundle["calls"]), [c for c in bundle["calls"] if c.get("error")]
    assert len(bundle["commands"]) >= len(tools)
    # Of the frame, only screencap's header is kept: 1080 x 2400, RGBA_8888.
    import base64
    import struct
    shot = next(c for c in bundle["commands"] if c["command"] == "screencap" and c["exec"])
    header = base64.b64decode(shot["stdoutBase64"]) if shot.get("stdoutBase64") else shot["stdout"].encode("latin-1")
    assert len(header) == 16 and struct.unpack("<4I", header)[:3] == (1080, 2400, 1), header

    await replays_alike(tmp_path, bundle_dir, captured_through)


def recorded_server(bundle):
    """The adb server the capture reached the device through, as its device listing said."""
    listing = next(c for c in bundle["calls"] if c["tool"] == "android_list_devices")
    return listing["answer"]["devices"][0]["server"]


async def replays_alike(tmp_path, bundle_dir, captured_through):
    """`sim --replay` of `bundle_dir` behind a real adb server: every recorded read, called
    with its recorded arguments, answers what the bundle recorded."""
    bundle = json.loads((bundle_dir / "bundle.json").read_text())
    (tmp_path / "r").mkdir()
    replay = RealAdb(tmp_path / "r", sim_args=("--replay", bundle_dir, "--latency", "instant"))
    inst = start_instance(tmp_path / "r", "--adb", replay.endpoint())
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            replayed = replay.serials[0]
            compared = 0
            for call in bundle["calls"]:
                res = await c.call_tool(call["tool"], call["arguments"])
                assert not res.is_error, (call["tool"], res.content)
                want = normalized(call["answer"], [bundle["device"]["serial"]], captured_through)
                got = normalized(res.structured_content, [replayed], replay.endpoint())
                assert got == want, (call["tool"], json.dumps(got)[:3000], json.dumps(want)[:3000])
                compared += 1
            assert compared == len(bundle["calls"]) >= 10
            # A command the capture does not hold is said to be missing, never made up.
            res = await c.call_tool("android_tap", {"x": 10, "y": 10})
            assert res.is_error and "not in this capture" in json.dumps(res.structured_content), res.content
    finally:
        inst.stop()
        replay.close()


BUNDLES = ROOT / "tests" / "fixtures" / "bundles"


@pytest.mark.parametrize("name", sorted(p.name for p in BUNDLES.iterdir()))
async def test_every_bundle_in_the_fixtures_replays_with_its_answers(tmp_path, name):
    """A bug report's bundle dropped into tests/fixtures/bundles/ is a test as it is."""
    if not have_adb():
        pytest.skip("no adb binary")
    bundle = json.loads((BUNDLES / name / "bundle.json").read_text())
    await replays_alike(tmp_path, BUNDLES / name, recorded_server(bundle))

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"

PLANTED = {
    "serial": "R58M12ABCDE",
    "imei": "490154203237518",
    "email": "ann.lee@gmail.com",
    "phone": "+44 20 7946 0958",
    "wifi": "Lee Family 5G",
    "name": "Ann's Pixel",
}


async def test_the_scrub_leaves_no_planted_identifier_in_the_bundle(tmp_path):
    """A virtual device with identifiers where a phone keeps them: its serial, getprop (a real
    Pixel 8 Pro capture with an IMEI, the device name and the Wi-Fi network added), the log (an
    account, a call, the network again). The bundle holds none of them, in any part, and says
    what each became."""
    import shutil

    if not have_adb():
        pytest.skip("no adb binary")
    scen = tmp_path / "scenario"
    shutil.copytree(ROOT / "assets" / "demo", scen)
    props = (ROOT / "tests" / "fixtures" / "getprop" / "pixel8pro-husky.txt").read_text()
    props += (f"[persist.radio.imei]: [{PLANTED['imei']}]\n[persist.sys.device_name]: [{PLANTED['name']}]\n"
              f"[wifi.active.ssid]: [{PLANTED['wifi']}]\n")
    (scen / "planted.getprop").write_text(props)
    toml = (scen / "demo.toml").read_text().replace(
        "[device]\n", f'[device]\nserial = "{PLANTED["serial"]}"\ngetprop = "planted.getprop"\n', 1)
    for level, tag, msg in [("I", "Sync", f"syncing {PLANTED['email']} over {PLANTED['wifi']}"),
                            ("I", "Dialer", f"calling {PLANTED['phone']} for {PLANTED['name']}"),
                            ("W", "Radio", f"imei {PLANTED['imei']} serial {PLANTED['serial']}"),
                            # A secret the default redaction rules hide from agents.
                            ("D", "Upload", f"using key {AWS_KEY}")]:
        toml += f'\n[[logcat]]\nlevel = "{level}"\ntag = "{tag}"\nmessage = "{msg}"\n'
    (scen / "planted.toml").write_text(toml)
    adb = RealAdb(tmp_path, scenarios=[scen / "planted.toml"])
    bundle_dir = tmp_path / "bundle"
    try:
        said = capture(tmp_path, adb, bundle_dir)
    finally:
        adb.close()
    everything = said + "".join(p.read_text() for p in bundle_dir.iterdir())
    bundle = json.loads((bundle_dir / "bundle.json").read_text())
    logcat = next(c for c in bundle["calls"] if c["tool"] == "android_get_logcat")
    assert any("syncing person-1@example.invalid" in l["message"] for l in logcat["answer"]["lines"]), logcat
    for kind, value in PLANTED.items():
        assert value not in everything, (kind, value)
    # What redaction hides from agents is hidden in the raw outputs as in the answers.
    assert AWS_KEY not in everything
    assert any("using key" in c["stdout"] for c in bundle["commands"] if c["command"].startswith("logcat"))
    assert {"serial", "imei", "email", "phone", "wifi", "name"} <= {r["kind"] for r in bundle["scrubbed"]}, bundle["scrubbed"]
    # What identifies nobody is kept: the model and the build.
    info = next(c for c in bundle["calls"] if c["tool"] == "android_get_device_info")["answer"]
    assert info["model"] == "Pixel 7" and info["sdk"] == 34, info
