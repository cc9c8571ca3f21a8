"""A service on a lab machine outlives the SSH session that started it:

- `nohup spock-tui serve &` keeps SIGHUP ignored (a dropped link does not stop it), and whatever
  signal stops a server is named on stderr and in the log; a plain `serve` still stops on SIGHUP;
  the control centre started with SIGHUP ignored keeps it ignored too;
- the runtime directory removed at logout (what logind does): the server puts its sockets and
  descriptor back, so `relay` and `attach` find it again; a second server on the same home is
  refused, naming the first (the lock is beside the audit trail, not in the runtime directory),
  and the trail still verifies; when the directory cannot come back, the log says how to
  recover and `doctor` names the server that holds the trail;
- `doctor` verifies the trail and names whoever holds it, instead of "all good"."""
import fcntl
import json
import os
import shutil
import signal
import subprocess
import time

import pytest
from conftest import EXE, start_instance
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from test_attach import attached

pytestmark = pytest.mark.anyio

HUP = 1 << (signal.SIGHUP - 1)


def signal_mask(pid: int, field: str) -> int:
    """`SigIgn` (ignored) or `SigCgt` (caught) from /proc/PID/status."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1], 16)
    raise AssertionError(f"no {field} for pid {pid}")


def running(pid: int) -> bool:
    """Alive and not a zombie (tmux reaps its pane's process when it gets round to it)."""
    try:
        return "\tZ" not in next(l for l in open(f"/proc/{pid}/status") if l.startswith("State:"))
    except OSError:
        return False


def log_text(home) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted((home / "state").glob("spock-tui*.log")))


def wait_until(what, check, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what} not within {timeout}s")


def descriptor_pid(home):
    try:
        return json.loads((home / "run" / "endpoint.json").read_text()).get("pid")
    except (OSError, json.JSONDecodeError):
        return None


async def status_over_http(inst, descriptor=None):
    d = descriptor or inst.descriptor
    http = inst.http_client(d["token"])
    async with Client(streamable_http_client(d["http"], http_client=http), mode="legacy") as c:
        res = await c.call_tool("spock_get_status", {})
        assert res.is_error is False


async def status_over_relay(inst):
    async with Client(inst.relay_params(), mode="legacy") as c:
        res = await c.call_tool("spock_get_status", {})
        assert res.is_error is False


async def test_nohup_serve_survives_sighup_and_names_the_signal_that_stops_it(tmp_path):
    inst = start_instance(tmp_path, "--demo", wrap=("nohup",))
    try:
        pid = inst.proc.pid  # nohup execs spock-tui: the same process
        assert inst.descriptor["pid"] == pid
        assert signal_mask(pid, "SigIgn") & HUP, "SIGHUP is no longer ignored"
        assert not signal_mask(pid, "SigCgt") & HUP, "a SIGHUP handler replaced nohup's ignore"
        inst.proc.send_signal(signal.SIGHUP)  # the SSH link drops
        await status_over_http(inst)
        await status_over_relay(inst)
        assert inst.proc.poll() is None, inst.stderr()
        inst.proc.send_signal(signal.SIGTERM)
        assert inst.proc.wait(timeout=20) == 0, inst.stderr()
    finally:
        inst.stop()
    assert "stopped by SIGTERM" in inst.stderr()
    assert "stopped by SIGTERM" in log_text(inst.home)


def test_a_plain_serve_stops_on_sighup_and_says_so(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        assert signal_mask(inst.proc.pid, "SigCgt") & HUP
        inst.proc.send_signal(signal.SIGHUP)
        assert inst.proc.wait(timeout=20) == 0, inst.stderr()
    finally:
        inst.stop()
    assert "stopped by SIGHUP" in inst.stderr()
    assert "stopped by SIGHUP" in log_text(inst.home)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")
def test_the_control_centre_keeps_an_ignored_sighup_ignored(tmp_path):
    from tmux_harness import start_tui

    t = start_tui(tmp_path, "--demo", prefix="trap '' HUP; exec ")
    pid = descriptor_pid(t.home)
    try:
        assert signal_mask(pid, "SigIgn") & HUP, "SIGHUP is no longer ignored"
        assert not signal_mask(pid, "SigCgt") & HUP
        os.kill(pid, signal.SIGTERM)
        wait_until("the control centre stopping", lambda: not running(pid))
        assert "stopped by SIGTERM" in log_text(t.home)
    finally:
        t.kill()


async def test_a_removed_runtime_directory_comes_back_and_a_second_server_is_refused(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    pid = inst.proc.pid
    try:
        await status_over_relay(inst)  # a record in the trail
        shutil.rmtree(inst.home / "run")  # logout
        # The instance lock lived in the removed directory: a second server must still be refused.
        second = subprocess.run(
            [EXE, "serve", "--demo", "--port", "0"], env=inst.env(), capture_output=True, text=True, timeout=30
        )
        assert second.returncode != 0, second.stdout
        assert f"another spock-tui (pid {pid})" in second.stderr, second.stderr
        assert "spock-tui attach" in second.stderr, second.stderr
        # The first puts its sockets and descriptor back: relay and attach find it again.
        wait_until("the descriptor back", lambda: descriptor_pid(inst.home) == pid)
        await status_over_relay(inst)
        c, welcome = await attached(inst)
        assert welcome["server_pid"] == pid, welcome
        c.close()
        wait_until("the log saying why", lambda: "runtime directory removed" in log_text(inst.home))
        verify = inst.run("audit", "verify")
        assert verify.returncode == 0 and "intact" in verify.stdout, verify.stdout + verify.stderr
        doctor = inst.run("doctor")
        assert f"audit trail written by the running instance (pid {pid})" in doctor.stdout, doctor.stdout
        assert "✓ audit trail intact" in doctor.stdout, doctor.stdout
    finally:
        inst.stop()
    verify = inst.run("audit", "verify")
    assert verify.returncode == 0 and "intact" in verify.stdout, verify.stdout + verify.stderr


async def test_when_the_runtime_directory_cannot_come_back_the_person_is_told_how_to_recover(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    pid = inst.proc.pid
    run = inst.home / "run"
    descriptor = inst.descriptor
    try:
        shutil.rmtree(run)
        run.write_text("")  # a file where the directory was: nothing can be created under it
        wait_until("the recovery advice", lambda: f"kill {pid}" in log_text(inst.home))
        assert f"kill {pid}" in inst.stderr()
        doctor = inst.run("doctor")
        assert doctor.returncode != 0, doctor.stdout
        assert f"pid {pid} holds the audit trail but no endpoint answers" in doctor.stdout, doctor.stdout
        assert "all good" not in doctor.stdout
        await status_over_http(inst, descriptor)  # HTTP never needed the directory
        run.unlink()  # the directory can be made again (a new login)
        wait_until("the descriptor back", lambda: descriptor_pid(inst.home) == pid)
        await status_over_relay(inst)
    finally:
        inst.stop()


async def test_doctor_verifies_the_trail_and_names_whoever_holds_it(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    await status_over_relay(inst)
    await status_over_relay(inst)
    inst.stop()
    audit = inst.home / "data" / "audit"
    # Another process holds the trail (as a server whose endpoint is gone would).
    fd = os.open(audit / "audit.lock", os.O_RDWR | os.O_CREAT, 0o600)
    with os.fdopen(fd, "r+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.truncate()
        lock.write(f"{os.getpid()}\n")
        lock.flush()
        doctor = inst.run("doctor")
        assert f"pid {os.getpid()} holds the audit trail" in doctor.stdout, doctor.stdout
        assert "all good" not in doctor.stdout
        refused = inst.run("serve", "--demo", "--port", "0")
        assert refused.returncode != 0 and f"another spock-tui (pid {os.getpid()})" in refused.stderr, refused.stderr
    # A record altered after the fact (or two servers appending to one trail) breaks the chain.
    lines = (audit / "audit.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["tool"] = "forged"
    lines[0] = json.dumps(first)
    (audit / "audit.jsonl").write_text("\n".join(lines) + "\n")
    doctor = inst.run("doctor")
    assert "✗ audit trail broken" in doctor.stdout, doctor.stdout
    assert "all good" not in doctor.stdout
