"""Issue 44, item 7: a control centre whose terminal vanishes ends, whatever it was doing. The
trial killed the tmux server under `spock-tui` started on a home with a long history, and once
in three runs the process stayed, at 100 % CPU, holding the audit trail, so a `serve` started
in that home never became ready. Here the terminal is killed during start, while the history
loads, as soon as it accepts connections (the trial's moment), and when idle; each time the process ends within a few seconds and a new `serve` in the
same home comes up."""
import http.client
import json
import os
import shutil
import time

import pytest
from conftest import start_instance
from tmux_harness import Tui

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)")

CALLS = int(os.environ.get("SPOCK_TEST_HISTORY", "3000"))


def stateless_status(rid: int) -> bytes:
    return json.dumps({
        "jsonrpc": "2.0", "id": rid, "method": "tools/call",
        "params": {"name": "spock_get_status", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "filler", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}},
    }).encode()


@pytest.fixture(scope="module")
def long_history(tmp_path_factory):
    """A home whose audit trail holds a few thousand records (copied for each case)."""
    base = tmp_path_factory.mktemp("history")
    inst = start_instance(base)
    try:
        host, port = inst.url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        for i in range(CALLS):
            conn.request("POST", "/mcp", body=stateless_status(i), headers={
                "Authorization": f"Bearer {inst.token}", "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "tools/call", "Mcp-Name": "spock_get_status"})
            r = conn.getresponse()
            r.read()
            assert r.status == 200, r.status
        conn.close()
    finally:
        inst.stop()
    return base / "home"


def spock_pid(pane_pid: int) -> int | None:
    """The spock-tui process in the pane: the pane's process or one of its descendants."""
    todo, seen = [pane_pid], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            if os.readlink(f"/proc/{pid}/exe").endswith("spock-tui"):
                return pid
            children = open(f"/proc/{pid}/task/{pid}/children").read().split()
        except OSError:
            continue
        todo.extend(int(c) for c in children)
    return None


def alive(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def accepting(home) -> bool:
    """The HTTP endpoint the descriptor names accepts a connection (the server is up)."""
    import socket

    try:
        d = json.loads((home / "run" / "endpoint.json").read_text())
        host, port = d["http"].split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=1):
            return True
    except (OSError, ValueError, KeyError):
        return False


@pytest.mark.parametrize("moment", ["start", "loading", "accepting", "idle"])
def test_the_control_centre_ends_when_its_terminal_is_killed(tmp_path, long_history, moment):
    home = tmp_path / "home"
    shutil.copytree(long_history, home)
    (home / "run" / "endpoint.json").unlink(missing_ok=True)
    t = Tui(home, "--demo")
    deadline = time.monotonic() + 10
    pid = None
    while pid is None and time.monotonic() < deadline:
        r = t.tmux("display-message", "-p", "-t", t.session, "#{pane_pid}", check=False)
        if r.stdout.strip().isdigit():
            pid = spock_pid(int(r.stdout.strip()))
        time.sleep(0.01)
    assert pid, "spock-tui did not start"
    if moment == "loading":
        time.sleep(0.3)
    elif moment == "accepting":
        deadline = time.monotonic() + 30
        while not accepting(home) and time.monotonic() < deadline:
            time.sleep(0.002)
    elif moment == "idle":
        deadline = time.monotonic() + 30
        while "[running]" not in t.screen() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "[running]" in t.screen(), t.screen()
        time.sleep(1.0)
    t.kill()
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if alive(pid):
        os.kill(pid, 9)
        pytest.fail(f"spock-tui (pid {pid}) kept running 10 s after its terminal was killed ({moment})")
    # Nothing is left holding the home: a headless server starts in it.
    inst = start_instance(tmp_path, home=home)
    inst.stop()
