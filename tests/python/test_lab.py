"""A lab of several hosts, loopback only: two real Debian adb servers (each its own process and
HOME, `adb connect`-ed to virtual devices' adbd) and a virtual device's own adb-server front door,
combined in one `spock-tui serve --adb A --adb B --adb F`, driven through the real Python MCP SDK.

One host's trouble stays on that host (a frozen, a killed, a never-started server), and every
device has a name that holds (`serial@host:port`). Bounds are generous seconds, never ratios."""
import asyncio
import json
import os
import pathlib
import signal
import socket
import subprocess
import time

import pytest
from conftest import EXE, ROOT, call, free_port, have_adb, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

DEMO = ROOT / "assets" / "demo" / "demo.toml"
# spock-tui's own bounds are 10 s (adb host requests) and 10 s (device commands, the default):
# anything that waited on a frozen server would take at least that long.
BOUND_S = 5.0


class AdbServer:
    """`adb -P PORT server nodaemon` with its own HOME: a process whose pid we hold."""

    def __init__(self, tmp: pathlib.Path, name: str, port: int | None = None):
        self.port = port or free_port()
        self.home = tmp / f"adb-home-{name}"
        self.home.mkdir(exist_ok=True)
        self.env = {**os.environ, "ADB_EMU": "0", "HOME": str(self.home)}
        self.log = tmp / f"adb-{name}.log"
        self.proc = None
        self.frozen = False
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            ["adb", "-P", str(self.port), "server", "nodaemon"],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(self.log, "a"),
        )
        # Ready once it listens; any adb client command before that would fork a second,
        # daemonised server on the port (one this harness holds no pid of).
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"adb server on {self.port} did not start: {self.log.read_text()}")

    def adb(self, *args, timeout=30, check=True):
        r = subprocess.run(["adb", "-P", str(self.port), *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"adb -P {self.port} {' '.join(args)}: {r.stdout}{r.stderr}")
        return r

    def connect(self, addr: str):
        out = self.adb("connect", addr).stdout
        assert "connected to" in out, out
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if f"{addr}\tdevice" in self.adb("devices").stdout:
                return
            time.sleep(0.1)
        raise RuntimeError(f"{addr} did not come online on {self.port}")

    def freeze(self):
        os.kill(self.proc.pid, signal.SIGSTOP)
        self.frozen = True

    def thaw(self):
        if self.frozen and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
        self.frozen = False

    def stop(self):
        self.thaw()
        if self.proc.poll() is None:
            self.adb("kill-server", check=False, timeout=10)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        stop_any_adb_on(self.port)

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.port}"


def listens(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def stop_any_adb_on(port: int):
    """A server someone else started on the port (a build that starts adb servers implicitly
    does): stop it too, so no test leaves one behind. `kill-server` never starts one."""
    for _ in range(5):
        if not listens(port):
            return
        subprocess.run(["adb", "-P", str(port), "kill-server"], capture_output=True, timeout=10,
                       env={**os.environ, "ADB_EMU": "0"})
        time.sleep(0.2)


class Sim:
    """`spock-tui sim` with the given extra arguments; its JSON line says what it bound."""

    def __init__(self, tmp: pathlib.Path, name: str, *args: str):
        self.proc = subprocess.Popen([EXE, "sim", *args], stdout=subprocess.PIPE, stderr=open(tmp / f"sim-{name}.err", "w"), text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"sim {name} printed nothing: {(tmp / f'sim-{name}.err').read_text()}")
        self.info = json.loads(line)

    def fault(self, serial: str, **cmd):
        host, port = self.info["control"].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall((json.dumps({"serial": serial, **cmd}) + "\n").encode())
            return s.makefile().readline()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Lab:
    """A: d1 (`127.0.0.1:X`); B: d2 and d4; F (front door): a different phone whose serial is
    also `127.0.0.1:X`, the same serial as A's d1."""

    def __init__(self, tmp: pathlib.Path):
        self.parts = []
        try:
            self._start(tmp)
        except BaseException:
            self.close()
            raise

    def _start(self, tmp: pathlib.Path):
        self.sim = Sim(tmp, "adbd", *[a for _ in range(3) for a in ("--adbd", "127.0.0.1:0")],
                       "--device", str(DEMO), "--device", str(DEMO), "--device", str(DEMO))
        self.parts.append(self.sim)
        d1, d2, d4 = self.sim.info["adbd"]
        self.d1, self.d2, self.d4 = d1["addr"], d2["addr"], d4["addr"]
        self.sim_serial = {d["addr"]: d["serial"] for d in self.sim.info["adbd"]}
        collider = tmp / "collider.toml"
        (tmp / "screens").symlink_to(DEMO.parent / "screens")
        text = DEMO.read_text().replace("[device]\n", f'[device]\nserial = "{self.d1}"\n', 1)
        collider.write_text(text.replace('model = "Pixel 7"', 'model = "Lab Collider"', 1))
        self.front = Sim(tmp, "front", "--adb-server", "127.0.0.1:0", "--device", str(collider))
        self.parts.append(self.front)
        self.a = AdbServer(tmp, "a")
        self.parts.append(self.a)
        self.b = AdbServer(tmp, "b")
        self.parts.append(self.b)
        self.a.connect(self.d1)
        self.b.connect(self.d2)
        self.b.connect(self.d4)
        self.f = self.front.info["adb_server"]

    def id(self, serial: str, server: str) -> str:
        return f"{serial}@{server}"

    def close(self):
        for p in reversed(self.parts):
            p.stop()


@pytest.fixture
def lab(tmp_path):
    if not have_adb():
        if os.environ.get("CI"):
            pytest.fail("adb is required in CI")
        pytest.skip("no adb binary")
    lab = Lab(tmp_path)
    inst = None
    try:
        inst = start_instance(tmp_path, "--adb", lab.a.endpoint, "--adb", lab.b.endpoint, "--adb", lab.f)
        yield inst, lab
    finally:
        if inst:
            inst.stop()
        lab.close()


async def timed(c, name, args=None):
    t0 = time.monotonic()
    err, r = await call(c, name, args)
    return err, r, time.monotonic() - t0


async def listing(c) -> dict:
    err, r = await call(c, "android_list_devices")
    assert not err, r
    # Keyed by full name (`id`; spelled out from serial and server for builds without one).
    return {d.get("id") or (d["serial"] if "@" in d["serial"] else f"{d['serial']}@{d['server']}"): d for d in r["devices"]}


async def until_listed(c, want, what, deadline_s=20.0):
    deadline = time.monotonic() + deadline_s
    while True:
        devs = await listing(c)
        if want(devs):
            return devs
        assert time.monotonic() < deadline, f"{what}: {json.dumps(devs, indent=1)}"
        await asyncio.sleep(0.2)


async def test_a_frozen_server_never_slows_the_others(lab):
    inst, lab = lab
    a1 = lab.id(lab.d1, lab.a.endpoint)
    b2 = lab.id(lab.d2, lab.b.endpoint)
    async with Client(inst.relay_params(), mode="legacy") as c:
        await until_listed(c, lambda d: len(d) == 4 and all(x["state"] == "device" for x in d.values()), "the lab up")
        lab.a.freeze()
        try:
            for _ in range(3):
                # A call to a device on a healthy server never waits on the frozen one…
                err, r, took = await timed(c, "android_get_current_activity", {"serial": lab.d2})
                assert not err and took < BOUND_S, (r, took)
                # …nor does a listing, which marks the frozen server's device unreachable.
                t0 = time.monotonic()
                devs = await listing(c)
                assert time.monotonic() - t0 < BOUND_S
                assert devs[b2]["state"] == "device"
            devs = await until_listed(c, lambda d: d[a1]["state"] == "unreachable", "A's device unreachable")
            assert devs[a1]["answering"] is False and str(lab.a.port) in devs[a1]["serverError"], devs[a1]
            err, r, took = await timed(c, "android_get_current_activity", {"serial": b2})
            assert not err and took < BOUND_S, (r, took)
            front = lab.id(lab.d1, lab.f)
            err, r, took = await timed(c, "android_get_device_info", {"serial": front})
            assert not err and took < BOUND_S and r["model"] == "Lab Collider", (r, took)
            # The frozen server's own device fails at once, naming the device and its server.
            err, r, took = await timed(c, "android_get_current_activity", {"serial": a1})
            assert err and took < BOUND_S, (r, took)
            assert a1 in r["error"] and "unreachable" in r["error"], r
        finally:
            lab.a.thaw()
        await until_listed(c, lambda d: d[a1]["state"] == "device", "A's device back after SIGCONT")
        err, r = await call(c, "android_get_current_activity", {"serial": a1})
        assert not err, r


async def test_a_colliding_serial_is_refused_without_its_server(lab):
    inst, lab = lab
    on_a, on_f = lab.id(lab.d1, lab.a.endpoint), lab.id(lab.d1, lab.f)
    async with Client(inst.relay_params(), mode="legacy") as c:
        devs = await until_listed(c, lambda d: len(d) == 4, "the lab up")
        # The listing names each by the shortest name unique now; the unique ones by serial.
        assert devs[on_a]["serial"] == on_a and devs[on_f]["serial"] == on_f
        assert devs[lab.id(lab.d2, lab.b.endpoint)]["serial"] == lab.d2
        err, r = await call(c, "android_get_device_info", {"serial": lab.d1})
        assert err and on_a in r["error"] and on_f in r["error"], r
        assert set(r["candidates"]) == {on_a, on_f}
        # Refused before anything runs: a destructive call is not even put to a person.
        err, r = await call(c, "android_run_adb_command", {"serial": lab.d1, "command": "id", "reason": "lab test of naming"})
        assert err and "several adb servers" in r["error"] and on_f in r["error"], r
        err, r = await call(c, "android_get_device_info", {"serial": on_a})
        assert not err and r["model"] == "Pixel 7" and r["serial"] == on_a, r
        err, r = await call(c, "android_get_device_info", {"serial": on_f})
        assert not err and r["model"] == "Lab Collider" and r["serial"] == on_f, r
        # The full name is accepted for a device nobody else shares too, and results carry it.
        b4 = lab.id(lab.d4, lab.b.endpoint)
        err, r = await call(c, "android_get_device_info", {"serial": b4})
        assert not err and r["serial"] == b4, r
        err, r = await call(c, "android_get_device_info", {"serial": lab.d4})
        assert not err and r["serial"] == b4, r


async def test_names_hold_while_another_host_goes_down_and_comes_back(lab):
    inst, lab = lab
    on_a, on_f = lab.id(lab.d1, lab.a.endpoint), lab.id(lab.d1, lab.f)
    b2 = lab.id(lab.d2, lab.b.endpoint)
    async with Client(inst.relay_params(), mode="legacy") as c:
        before = await until_listed(c, lambda d: len(d) == 4, "the lab up")
        names = {k: v["serial"] for k, v in before.items()}
        lab.a.stop()
        during = await until_listed(c, lambda d: d.get(on_a, {}).get("state") != "device", "A's device not usable")
        assert {k: v["serial"] for k, v in during.items()} == names, "the same devices under the same names"
        assert during[on_a]["state"] == "unreachable", during[on_a]
        for name in (names[on_f], on_f, lab.d2, b2):
            err, r, took = await timed(c, "android_get_current_activity", {"serial": name})
            assert not err and took < BOUND_S, (name, r, took)
        err, r = await call(c, "android_get_device_info", {"serial": names[on_f]})
        assert not err and r["model"] == "Lab Collider", r
        # The bare serial still means two devices: refused, not sent to the one left.
        err, r = await call(c, "android_get_current_activity", {"serial": lab.d1})
        assert err and on_a in r["error"] and on_f in r["error"], r
        lab.a.start()
        lab.a.connect(lab.d1)
        after = await until_listed(c, lambda d: d.get(on_a, {}).get("state") == "device", "A's device back")
        assert {k: v["serial"] for k, v in after.items()} == names
        err, r = await call(c, "android_get_device_info", {"serial": on_a})
        assert not err and r["model"] == "Pixel 7", r


async def test_the_selection_is_pinned_and_named_when_its_device_is_gone(lab):
    inst, lab = lab
    b2 = lab.id(lab.d2, lab.b.endpoint)
    async with Client(inst.relay_params(), mode="legacy") as c:
        await until_listed(c, lambda d: len(d) == 4, "the lab up")
        err, r = await call(c, "android_select_device", {"serial": lab.d2})
        assert not err and r["selected"] == b2, r
        err, r = await call(c, "android_get_current_activity", {})
        assert not err, r
        lab.b.stop()
        await until_listed(c, lambda d: d[b2]["state"] == "unreachable", "B's devices unreachable")
        err, r, took = await timed(c, "android_get_current_activity", {})
        assert err and took < BOUND_S, (r, took)
        assert f"the selected device {b2} is not attached" in r["error"], r
        assert lab.b.endpoint in r["error"] and "none is selected" not in r["error"], r
        err, r = await call(c, "spock_get_status")
        assert not err and r["selectedDevice"] == b2, r
        # The device itself disconnecting (its server alive) is named the same way.
        lab.b.start()
        lab.b.connect(lab.d4)
        await until_listed(c, lambda d: b2 not in d, "d2 gone from a B that answers")
        err, r = await call(c, "android_get_current_activity", {})
        assert err and f"the selected device {b2} is not attached (it disconnected" in r["error"], r
        lab.b.connect(lab.d2)
        await until_listed(c, lambda d: d.get(b2, {}).get("state") == "device", "d2 back")
        err, r = await call(c, "android_get_current_activity", {})
        assert not err, r


async def test_listing_never_waits_on_a_hung_phone(lab):
    inst, lab = lab
    b4 = lab.id(lab.d4, lab.b.endpoint)
    async with Client(inst.relay_params(), mode="legacy") as c:
        await until_listed(c, lambda d: len(d) == 4 and all(x["sdk"] == 34 for x in d.values()), "properties read")
        for command in ("dumpsys", "getprop"):
            lab.sim.fault(lab.sim_serial[lab.d4], fault="hang", command=command)
        err, r, took = await timed(c, "android_get_battery_info", {"serial": lab.d4})
        assert err and r["kind"] == "timeout", r
        t0 = time.monotonic()
        for _ in range(10):
            devs = await listing(c)
        assert time.monotonic() - t0 < BOUND_S, time.monotonic() - t0
        assert devs[b4]["answering"] is False, devs[b4]
        assert devs[b4]["sdk"] == 34, "kept from when it arrived"
        assert all(d["answering"] for k, d in devs.items() if k != b4), devs
        lab.sim.fault(lab.sim_serial[lab.d4], fault="clear")
        err, r = await call(c, "android_get_battery_info", {"serial": b4})
        assert not err, r
        devs = await listing(c)
        assert devs[b4]["answering"] is True, devs[b4]


async def test_no_adb_server_is_started_for_an_explicit_endpoint(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    port = free_port()
    inst = start_instance(tmp_path, "--adb", f"127.0.0.1:{port}")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            for name in ("android_list_devices", "android_get_device_info", "android_get_current_activity"):
                err, r = await call(c, name, {})
                assert err and f"127.0.0.1:{port}" in r["error"], (name, r)
            err, r = await call(c, "spock_get_status")
            assert not err and not r.get("adbNotes"), r
        await asyncio.sleep(1.0)
        assert not listens(port), f"something listens on {port}"
        ps = subprocess.run(["pgrep", "-af", f"tcp:{port}"], capture_output=True, text=True).stdout
        assert "adb" not in ps, ps
    finally:
        inst.stop()
        stop_any_adb_on(port)  # only if the assertion above failed is there anything to stop
