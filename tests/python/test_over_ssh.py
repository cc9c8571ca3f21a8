"""Issue 18, "a service survives the lab machine's session rules", tried over a real SSH server
(Debian's sshd on a loopback port, a key of the test's own) and a real terminal (tmux):

- `spock-tui config --stdio --ssh HOST` prints a configuration a stdio client on another machine
  uses as is: the Python SDK drives the demo device through `ssh -T HOST spock-tui relay`, and
  the person's approval modal says the client came over SSH and from where;
- a forced pty (`ssh -tt`) is refused by `relay` with an explanation, not a mangled stream;
- `serve` stops on SIGHUP as cleanly as on SIGTERM (descriptor and socket removed);
- the control centre run over `ssh -tt` stops cleanly when the link is dropped (the ssh client
  killed): no stale descriptor, socket or lock, and a new start works;
- mouse reporting is buttons and drags only (no all-motion mode to type junk after a drop)."""
import asyncio
import json
import os
import shutil
import signal
import subprocess
import time

import pytest
from conftest import EXE, free_port, start_instance
from tmux_harness import Tui, start_tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

SSHD = "/usr/sbin/sshd"
MODAL = "Approve a destructive call"


class Sshd:
    """A private sshd on 127.0.0.1 that lets in this test's key only; `cfg` is an ssh client
    configuration naming it `lab`."""

    def __init__(self, tmp):
        self.dir = tmp / "ssh"
        self.dir.mkdir()
        d = self.dir
        for name in ("host", "client"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)], check=True)
        (d / "authorized_keys").write_text((d / "client.pub").read_text())
        self.port = free_port()
        user = os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        (d / "sshd_config").write_text(
            f"""Port {self.port}
ListenAddress 127.0.0.1
HostKey {d / 'host'}
PidFile {d / 'sshd.pid'}
AuthorizedKeysFile {d / 'authorized_keys'}
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
LogLevel ERROR
"""
        )
        self.cfg = d / "config"
        self.cfg.write_text(
            f"""Host lab
  HostName 127.0.0.1
  Port {self.port}
  User {user}
  IdentityFile {d / 'client'}
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
"""
        )
        os.makedirs("/run/sshd", exist_ok=True)
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(d / "sshd_config")],
            stdout=subprocess.DEVNULL,
            stderr=open(d / "sshd.err", "w"),
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            r = subprocess.run(["ssh", "-F", str(self.cfg), "-T", "lab", "true"], capture_output=True, timeout=15)
            if r.returncode == 0:
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"sshd did not let the test in: {(d / 'sshd.err').read_text()}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture
def sshd(tmp_path):
    if not os.path.exists(SSHD):
        pytest.skip("Debian's openssh-server is not installed (CI installs it)")
    if os.geteuid() != 0:
        pytest.skip("a private sshd needs root here (CI runs as root)")
    s = Sshd(tmp_path)
    yield s
    s.stop()


def ssh_config(home, client="generic"):
    out = subprocess.run(
        [EXE, "config", "--stdio", "--ssh", "lab", "--client", client],
        env={**os.environ, "SPOCK_TUI_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["mcpServers"]["spock-tui"]


async def test_a_client_on_another_machine_comes_in_over_ssh_and_the_person_sees_from_where(tmp_path, sshd):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    tui = start_tui(tmp_path, "--demo")
    try:
        await tui.wait_for("[running]", "demo")
        server = ssh_config(tui.home)
        assert server["command"] == "ssh"
        assert server["args"][:4] == ["-T", "-o", "BatchMode=yes", "lab"], server
        # The printed configuration, used as is; only the test's own ssh client file is added.
        params = StdioServerParameters(command="ssh", args=["-F", str(sshd.cfg), *server["args"]])
        async with Client(params, mode="legacy") as c:
            tools = await c.list_tools()
            assert any(t.name == "android_uninstall_app" for t in tools.tools)
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            screen = await tui.wait_for(MODAL, "ssh from 127.0.0.1:")
            # The origin is the relay's claim (from SSH_CONNECTION); the relay's process is
            # what the server verified.
            flat = " ".join(screen.replace("│", " ").split())
            assert "claims ssh from 127.0.0.1:" in flat and "(not verified)" in flat, screen
            assert "an MCP client over stdio" in flat and "relay pid" in flat, screen
            await tui.wait_armed()
            tui.keys("n")
            r = await asyncio.wait_for(call, 20)
            assert r.is_error and "denied" in text_of(r), text_of(r)
    finally:
        tui.kill()


def test_a_forced_pty_is_refused_with_an_explanation(tmp_path, sshd):
    inst = start_instance(tmp_path, "--demo")
    try:
        r = subprocess.run(
            ["ssh", "-F", str(sshd.cfg), "-tt", "lab", EXE, "relay", str(inst.descriptor_path)],
            stdin=subprocess.PIPE,
            capture_output=True,
            timeout=30,
        )
        said = (r.stdout + r.stderr).decode(errors="replace")
        assert r.returncode == 2, (r.returncode, said)
        assert "ssh -T" in said and "pty" in said, said
        assert "jsonrpc" not in said
    finally:
        inst.stop()


def test_serve_stops_on_sighup_as_cleanly_as_on_sigterm(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    sock = inst.descriptor.get("unix")
    inst.proc.send_signal(signal.SIGHUP)
    assert inst.proc.wait(timeout=20) == 0, inst.stderr()
    assert not inst.descriptor_path.exists(), "descriptor left behind"
    if sock:
        assert not os.path.exists(sock), "socket left behind"
    # The lock went with it: the same home starts again.
    again = start_instance(tmp_path, "--demo")
    again.stop()


def spock_pids(home) -> list[int]:
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            env = open(f"/proc/{pid}/environ", "rb").read()
            cmd = open(f"/proc/{pid}/cmdline", "rb").read()
        except OSError:
            continue
        if f"SPOCK_TUI_HOME={home}".encode() in env and cmd.startswith(EXE.encode()):
            pids.append(int(pid))
    return pids


async def test_the_control_centre_over_ssh_stops_cleanly_when_the_link_drops(tmp_path, sshd):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    desc = home / "run" / "endpoint.json"
    marker = f"spock-drop-{os.getpid()}"
    # The person's terminal: tmux running `ssh -tt lab spock-tui --demo`.
    remote = f"env SPOCK_TUI_HOME={home} TERM=xterm-256color {EXE} --demo --port 0"
    t = Tui.__new__(Tui)
    t.home = home
    t.sock = marker
    t.session = "tui"
    t.tmux("new-session", "-d", "-s", "tui", "-x", "120", "-y", "40",
           f"ssh -F {sshd.cfg} -tt -o SetEnv=MARK={marker} lab {remote}")
    try:
        await t.wait_for("[running]", timeout=30)
        assert desc.exists()
        sock = json.loads(desc.read_text()).get("unix")
        assert spock_pids(home), "the control centre runs on the far side"
        # The link drops: the person's ssh client dies without a goodbye.
        ssh = subprocess.run(["pgrep", "-f", f"SetEnv=MARK={marker}"], capture_output=True, text=True).stdout.split()
        assert ssh, "the ssh client is running"
        for pid in ssh:
            os.kill(int(pid), signal.SIGKILL)
        deadline = time.monotonic() + 30
        while (spock_pids(home) or desc.exists()) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert not spock_pids(home), "the control centre outlived its terminal"
        assert not desc.exists(), "stale descriptor"
        if sock:
            assert not os.path.exists(sock), "stale socket"
    finally:
        t.kill()
    # Nothing stale: the same home starts again at once.
    again = start_instance(tmp_path, "--demo", home=home)
    again.stop()


async def test_mouse_reporting_is_buttons_and_drags_only(tmp_path):
    tui = start_tui(tmp_path, "--demo")
    try:
        await tui.wait_for("[running]")
        flags = tui.tmux(
            "display-message", "-p", "-t", tui.session,
            "#{mouse_all_flag} #{mouse_button_flag} #{mouse_sgr_flag}",
        ).stdout.split()
        assert flags == ["0", "1", "1"], f"all-motion (1003), button-motion (1002), SGR (1006): {flags}"
    finally:
        tui.kill()
