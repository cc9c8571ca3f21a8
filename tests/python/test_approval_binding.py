"""Issue 31: what the person approves is exactly what runs, on the device they were shown, and
nobody else's selection or lease aliases change that. Each test replays an attack an agent
side made against the release binary: real Debian `adb` in front of the virtual device, the
Python MCP SDK as the agents, and a hand-driven attach client as the person's terminal.

- install swap: the APK is rewritten while the modal is up; the install still sends the bytes
  the person was shown (package, version, size, SHA-256), and their private copy is removed;
- push bytes: the same for an approved overwrite;
- lease after ask: another client leases the device while a call waits for approval; the
  request is withdrawn (the terminal is told why), approving it runs nothing;
- lease aliases: a lease holds the phone under every name that reaches it (`127.0.0.1:P` and
  `localhost:P`, or a second adb server);
- selection per client: one client's `android_select_device` does not redirect another's calls;
  a stateless request keeps no selection."""
import asyncio
import hashlib
import io
import json
import struct
import subprocess
import time
import zipfile

import pytest
from conftest import EXE, ROOT, RealAdb, call, free_port, have_adb, start_instance
from mcp import Client
from mcp.types import Implementation
from protocol_common import stateless_post
from test_attach import Raw, attached

pytestmark = pytest.mark.anyio

DEMO_SCENARIO = ROOT / "assets" / "demo" / "demo.toml"
ARMING = 0.8  # a little over the control centre's arming time


def manifest_xml(package: str, code: int, name: str) -> bytes:
    """Android binary XML of `<manifest android:versionCode android:versionName package/>`, laid
    out as aapt2 writes it: the android namespace and a resource map giving versionCode and
    versionName their resource ids, which is how a phone (and the virtual device) finds them."""
    none = 0xFFFFFFFF
    android_ns = "http://schemas.android.com/apk/res/android"
    strings = ["versionCode", "versionName", "android", android_ns, "package", "manifest", package, name]
    VERSION_CODE, VERSION_NAME, PREFIX, URI, PACKAGE, MANIFEST, PACKAGE_VALUE, NAME_VALUE = range(8)
    data, offsets = b"", []
    for s in strings:
        offsets.append(len(data))
        units = s.encode("utf-16-le")
        data += struct.pack("<H", len(units) // 2) + units + b"\0\0"
    data += b"\0" * (-len(data) % 4)

    def chunk(kind, header, body):
        return struct.pack("<HHI", kind, header, 8 + len(body)) + body

    pool = struct.pack("<IIIII", len(strings), 0, 0, 28 + 4 * len(strings), 0)
    pool += b"".join(struct.pack("<I", o) for o in offsets) + data
    resource_map = struct.pack("<II", 0x0101021B, 0x0101021C)

    def node(kind, ext):
        return chunk(kind, 16, struct.pack("<II", 1, none) + ext)

    def attr(ns, n, raw, ty, value):
        return struct.pack("<IIIHBBI", ns, n, raw, 8, 0, ty, value)

    attrs = (attr(URI, VERSION_CODE, none, 0x10, code) + attr(URI, VERSION_NAME, NAME_VALUE, 0x03, NAME_VALUE)
             + attr(none, PACKAGE, PACKAGE_VALUE, 0x03, PACKAGE_VALUE))
    element = struct.pack("<II", none, MANIFEST) + struct.pack("<HHHHHH", 20, 20, 3, 0, 0, 0) + attrs
    namespace = struct.pack("<II", PREFIX, URI)
    body = (chunk(0x0001, 28, pool) + chunk(0x0180, 8, resource_map) + node(0x0100, namespace)
            + node(0x0102, element) + node(0x0103, struct.pack("<II", none, MANIFEST)) + node(0x0101, namespace))
    return chunk(0x0003, 8, body)


def apk(package: str, code: int, name: str, filler: bytes = b"") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", manifest_xml(package, code, name))
        z.writestr("classes.dex", b"dex\n035\0" + filler)
    return buf.getvalue()


def audit_records(inst):
    path = inst.home / "data" / "audit" / "audit.jsonl"
    return [json.loads(l) for l in path.read_text().splitlines() if l.strip()] if path.exists() else []


def pulls(inst):
    d = inst.home / "data" / "pulls"
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    return d


def installed_version(adb: RealAdb, serial: str, package: str):
    out = adb.adb("-s", serial, "shell", f"pm list packages --show-versioncode {package}").stdout
    for line in out.splitlines():
        name, _, code = line.strip().removeprefix("package:").partition(" versionCode:")
        if name == package:
            return int(code)
    return None


def agent(inst, name):
    return Client(inst.relay_params(), mode="legacy", client_info=Implementation(name=name, version="1.0"))


async def approve(term: Raw, cid: int):
    await term.send(type="displayed", call_id=cid)
    await asyncio.sleep(ARMING)
    await term.send(type="decide", call_id=cid, approve=True)


@pytest.fixture
def lab(tmp_path):
    """One virtual phone behind a private real adb server, spock-tui serving it headless."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path)
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    inst.adb = adb
    yield inst
    inst.stop()
    adb.close()


async def test_the_install_sends_the_apk_the_person_was_shown(lab):
    serial = lab.adb.serials[0]
    launcher = "com.google.android.apps.nexuslauncher"
    launcher_before = installed_version(lab.adb, serial, launcher)
    assert installed_version(lab.adb, serial, "com.example.shop") == 142
    shown = apk("com.example.shop", 143, "1.4.3")
    path = pulls(lab) / "app-debug.apk"
    path.write_bytes(shown)
    digest = hashlib.sha256(shown).hexdigest()
    term, _ = await attached(lab)
    async with agent(lab, "installer") as c:
        call_task = asyncio.create_task(call(c, "android_install_app", {"apkPath": str(path)}))
        asked = (await term.until("confirm_asked"))["ask"]
        reason = asked["reason"]
        for part in ("com.example.shop", "142", "143", digest, f"{len(shown)} bytes"):
            assert part in reason, (part, reason)
        # The build is rewritten while the modal is up: another package, another version.
        path.write_bytes(apk(launcher, 999_999_999, "evil", filler=b"x" * 4096))
        await approve(term, asked["call_id"])
        err, out = await asyncio.wait_for(call_task, 60)
    assert not err, out
    assert out["package"] == "com.example.shop" and out["versionCode"] == 143, out
    assert out["sha256"] == digest and out["bytes"] == len(shown), out
    assert installed_version(lab.adb, serial, "com.example.shop") == 143
    assert installed_version(lab.adb, serial, launcher) == launcher_before, "the swapped APK was installed"
    rec = [r for r in audit_records(lab) if r["tool"] == "android_install_app"][-1]
    assert digest in rec["escalated"] and rec["result"]["package"] == "com.example.shop", rec
    # The private copy the approval was bound to is gone with the call.
    staging = lab.home / "data" / "staging"
    assert not staging.exists() or list(staging.iterdir()) == []
    term.close()


async def test_an_approved_overwrite_pushes_the_bytes_the_person_was_shown(lab):
    serial = lab.adb.serials[0]
    target = "/sdcard/Download/notes.txt"
    lab.adb.adb("-s", serial, "shell", f"echo old > {target}")
    src = pulls(lab) / "notes.txt"
    shown = b"the approved text\n"
    src.write_bytes(shown)
    term, _ = await attached(lab)
    async with agent(lab, "pusher") as c:
        args = {"localPath": str(src), "devicePath": target, "overwrite": True}
        call_task = asyncio.create_task(call(c, "android_push_file", args))
        asked = (await term.until("confirm_asked"))["ask"]
        assert hashlib.sha256(shown).hexdigest() in asked["reason"], asked
        src.write_bytes(b"rm -rf / # what the agent put there after the modal went up\n")
        await approve(term, asked["call_id"])
        err, out = await asyncio.wait_for(call_task, 60)
    assert not err, out
    assert out["sha256"] == hashlib.sha256(shown).hexdigest(), out
    got = subprocess.run(
        ["adb", "-P", str(lab.adb.port), "-s", serial, "exec-out", "cat", target],
        env=lab.adb.env, capture_output=True, timeout=30,
    ).stdout
    assert got == shown
    term.close()


async def test_a_lease_taken_while_a_call_waits_withdraws_it(lab):
    term, _ = await attached(lab)
    async with agent(lab, "agent-a") as a, agent(lab, "agent-b") as b:
        waiting = asyncio.create_task(call(b, "android_clear_app_data", {"packageName": "com.example.notes"}))
        asked = (await term.until("confirm_asked"))["ask"]
        cid = asked["call_id"]
        await term.send(type="displayed", call_id=cid)
        err, got = await call(a, "android_lease_device", {"durationSeconds": 600})
        assert not err, got
        gone = await term.until("withdrawn", call_id=cid)
        assert "leased by agent-a/1.0" in (gone.get("why") or ""), gone
        await asyncio.sleep(ARMING)
        await term.send(type="decide", call_id=cid, approve=True)
        m = await term.until("error")
        assert m["code"] == "not_pending", m
        err, out = await asyncio.wait_for(waiting, 30)
        assert err and out["kind"] == "refused" and "agent-a/1.0" in out["error"], out
    rec = [r for r in audit_records(lab) if r["tool"] == "android_clear_app_data"][-1]
    assert rec["outcome"] == "refused" and rec.get("decision") is None, rec
    term.close()


async def full_names(c):
    err, sc = await call(c, "android_list_devices")
    assert not err, sc
    return {d["id"]: d for d in sc["devices"]}


async def until_listed(c, want, timeout=20.0):
    deadline = time.monotonic() + timeout
    while True:
        ids = await full_names(c)
        if all(any(i.startswith(w) for i in ids) for w in want):
            return ids
        assert time.monotonic() < deadline, ids
        await asyncio.sleep(0.3)


async def test_a_lease_holds_the_phone_under_every_name_that_reaches_it(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path)
    addr = adb.info["adbd"][0]["addr"]
    port = addr.rsplit(":", 1)[1]
    alias = f"localhost:{port}"
    adb.adb("connect", alias)
    # A second adb server (a second lab host) reaching the same phone.
    second = free_port()
    run2 = lambda *a: subprocess.run(["adb", "-P", str(second), *a], env=adb.env, capture_output=True, text=True, timeout=30)
    run2("start-server")
    run2("connect", addr)
    inst = start_instance(tmp_path, "--adb", adb.endpoint(), "--adb", f"127.0.0.1:{second}")
    try:
        async with agent(inst, "agent-a") as a, agent(inst, "agent-b") as b:
            ids = await until_listed(b, [f"{addr}@127.0.0.1:{adb.port}", f"{alias}@", f"{addr}@127.0.0.1:{second}"])
            leased = f"{addr}@127.0.0.1:{adb.port}"
            err, got = await call(a, "android_lease_device", {"serial": leased, "durationSeconds": 600})
            assert not err, got
            others = [i for i in ids if i != leased]
            assert len(others) == 2, ids
            for name in others:
                for tool, args in (
                    ("android_tap", {"x": 100, "y": 100}),
                    ("android_press_key", {"key": "HOME"}),
                    ("android_launch_app", {"packageName": "com.example.shop"}),
                ):
                    err, sc = await call(b, tool, {**args, "serial": name})
                    assert err and sc["kind"] == "refused" and "agent-a/1.0" in sc["error"], (name, tool, sc)
                err, sc = await call(b, "android_lease_device", {"serial": name})
                assert err and "agent-a/1.0" in sc["error"], (name, sc)
                # Reads stay allowed under every name.
                err, sc = await call(b, "android_get_battery_info", {"serial": name})
                assert not err, sc
            # The holder acts under any of the names.
            err, sc = await call(a, "android_tap", {"x": 100, "y": 100, "serial": others[0]})
            assert not err, sc
    finally:
        inst.stop()
        run2("kill-server")
        adb.close()


async def test_one_clients_selection_never_redirects_anothers_call(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path, scenarios=(DEMO_SCENARIO, DEMO_SCENARIO))
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        first, second = adb.serials
        async with agent(inst, "agent-a") as a, agent(inst, "agent-b") as b:
            err, sc = await call(a, "android_select_device", {"serial": first})
            assert not err, sc
            # B selected nothing: with two attached, it must name one.
            err, sc = await call(b, "android_press_key", {"key": "HOME"})
            assert err and "none is selected" in sc["error"], sc
            err, sc = await call(b, "android_select_device", {"serial": second})
            assert not err and sc.get("previous") is None, sc
            # A's call still goes to A's device, not B's.
            err, sc = await call(a, "android_press_key", {"key": "HOME"})
            assert not err, sc
            rec = [r for r in audit_records(inst) if r["tool"] == "android_press_key" and r["outcome"] == "ok"][-1]
            assert rec["device"].startswith(first), rec
            err, st = await call(a, "spock_get_status")
            assert st["selectedDevice"].startswith(first), st
            err, st = await call(b, "spock_get_status")
            assert st["selectedDevice"].startswith(second), st
        # A stateless (2026-07-28) request has no selection: it must name the device.
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "stateless", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}}
        for name, args, says in (
            ("android_select_device", {"serial": first}, "keeps no selection"),
            ("android_press_key", {"key": "HOME"}, "none is selected"),
        ):
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": name, "arguments": args, "_meta": meta}}
            reply = stateless_post(inst, body, name)
            sc = reply["result"]["structuredContent"]
            assert reply["result"]["isError"] and says in sc["error"], reply
    finally:
        inst.stop()
        adb.close()


async def test_a_phone_that_takes_the_address_while_the_call_waits_is_not_the_one_approved(tmp_path):
    """Review finding: phone X goes away while an uninstall on it waits, phone Y comes up on the
    same address within a second, adb keeps its transport, the person approves what the modal
    showed (X). The call is asked again who the phone is after the yes: nothing runs on Y."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path)
    addr = adb.info["adbd"][0]["addr"]
    scen = tmp_path / "y"
    scen.mkdir()
    (scen / "screens").symlink_to(DEMO_SCENARIO.parent / "screens")
    y_toml = (DEMO_SCENARIO.read_text().replace("[device]\n", '[device]\nserial = "PHONE-Y"\n', 1)
              .replace('model = "Pixel 7"', 'model = "Swapped Y"', 1))
    assert 'serial = "PHONE-Y"' in y_toml and "Swapped Y" in y_toml
    (scen / "y.toml").write_text(y_toml)
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    y = None
    try:
        term, _ = await attached(inst)
        async with agent(inst, "agent-b") as b:
            waiting = asyncio.create_task(call(b, "android_uninstall_app", {"packageName": "com.example.notes", "serial": addr}))
            asked = (await term.until("confirm_asked"))["ask"]
            adb.sim.kill()
            adb.sim.wait()
            time.sleep(1.0)
            y = subprocess.Popen([EXE, "sim", "--adbd", addr, "--device", str(scen / "y.toml")],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            assert y.stdout.readline(), "the second phone did not start"
            adb.adb("connect", addr, check=False)
            adb.wait_online()
            await approve(term, asked["call_id"])
            err, out = await asyncio.wait_for(waiting, 60)
            assert err and out["kind"] == "refused" and "not the phone the person approved" in out["error"], out
            # The next request names the phone that is there now, not the one that was.
            again = asyncio.create_task(call(b, "android_uninstall_app", {"packageName": "com.example.notes", "serial": addr}))
            asked = (await term.until("confirm_asked"))["ask"]
            assert asked["device_model"] == "Swapped Y", asked
            await term.send(type="decide", call_id=asked["call_id"], approve=False)
            await asyncio.wait_for(again, 30)
        assert "com.example.notes" in adb.adb("-s", addr, "shell", "pm list packages").stdout
        rec = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app"][0]
        assert rec["outcome"] == "refused" and rec["decision"]["approved"] is True, rec
        term.close()
    finally:
        inst.stop()
        if y is not None:
            y.kill()
            y.wait()
        adb.close()


async def test_a_name_whose_phone_has_not_said_who_it_is_is_held_while_a_lease_exists(tmp_path):
    """Review finding: with `getprop` hanging, a second name of the leased phone connected, and
    another agent's taps through it ran while its identity could not be read."""
    if not have_adb():
        pytest.skip("no adb binary")
    adb = RealAdb(tmp_path)
    addr = adb.info["adbd"][0]["addr"]
    alias = "localhost:" + addr.rsplit(":", 1)[1]
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    try:
        async with agent(inst, "agent-a") as a, agent(inst, "agent-b") as b:
            err, got = await call(a, "android_lease_device", {"serial": addr})
            assert not err, got
            adb.fault(adb.sim_serials()[0], fault="hang", command="getprop")
            adb.adb("connect", alias)
            await until_listed(b, [f"{alias}@"])
            err, sc = await call(b, "android_tap", {"x": 10, "y": 10, "serial": alias})
            assert err and sc["kind"] == "refused" and "agent-a/1.0" in sc["error"], sc
            adb.fault(adb.sim_serials()[0], fault="clear")
        assert not [r for r in audit_records(inst) if r["tool"] == "android_tap" and r["outcome"] == "ok"]
    finally:
        inst.stop()
        adb.close()


async def test_a_2026_request_carrying_another_sessions_id_is_not_that_session(lab):
    """Review finding: a stateless 2026-07-28 request with agent A's `Mcp-Session-Id` acted as
    A's session: it tapped A's leased phone and released A's lease."""
    import httpx2

    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
         "Authorization": f"Bearer {lab.token}"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "agent-a", "version": "1.0"}}}
    r = httpx2.post(lab.url, headers={**h, "MCP-Protocol-Version": "2025-06-18"}, content=json.dumps(init), timeout=30)
    sid = r.headers["mcp-session-id"]
    legacy = {**h, "MCP-Protocol-Version": "2025-06-18", "Mcp-Session-Id": sid}
    httpx2.post(lab.url, headers=legacy, content=json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), timeout=30)
    lease = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "android_lease_device", "arguments": {}}}
    r = httpx2.post(lab.url, headers=legacy, content=json.dumps(lease), timeout=30)
    assert "taken" in r.text, r.text
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "agent-z", "version": "9"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    for name, args in (("android_tap", {"x": 5, "y": 5}), ("android_lease_device", {"release": True})):
        body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": name, "arguments": args, "_meta": meta}}
        hh = {**h, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name, "Mcp-Session-Id": sid}
        text = httpx2.post(lab.url, headers=hh, content=json.dumps(body), timeout=30).text
        assert "agent-a/1.0" in text and '"isError":true' in text.replace(" ", ""), (name, text)
