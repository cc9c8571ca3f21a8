"""An agent of the person's own user, run under `spock-tui sandbox` (bubblewrap; SECURITY.md,
issue 40), with the phones behind a real adb server on a filesystem socket (no TCP port): through
the agent's door it lists and calls tools, and a destructive call still waits for the person.
It cannot read spock-tui's config, control credential, token, tools.d, audit or adb keys, cannot
change them (what it writes lands in an empty tmpfs), cannot reach the control socket (the
review's self-approval sequence fails at its first step) nor the adb server's socket, cannot
rewrite the door's descriptor, and sees none of the person's processes. Run where bubblewrap
is installed (CI installs it as root)."""
import asyncio
import grp
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
from conftest import EXE, RealAdb, call, have_adb, start_instance
from mcp import Client, StdioServerParameters
from test_attach import approve_next, attached, audit_records

pytestmark = pytest.mark.anyio

NOTES = {"packageName": "com.example.notes"}

# Run inside the sandbox with the system Python: what the agent can reach, as JSON.
PROBE = r"""
import json, os, socket, sys
home, door, adb_sock, serve_pid = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
out = {}
def read(name, path):
    try:
        with open(path, "rb") as f:
            out[name] = "read:" + str(len(f.read()))
    except OSError as e:
        out[name] = type(e).__name__
for name, rel in [("credential", "config/control-credential"), ("config", "config/config.toml"),
                  ("token", "config/token"), ("audit", "data/audit/audit.jsonl"),
                  ("descriptor", "run/endpoint.json")]:
    read(name, os.path.join(home, rel))
read("adbkey", os.path.expanduser("~/.android/adbkey"))
read("door", os.path.join(door, "endpoint.json"))
def write(name, path, text):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        out[name] = "wrote"
    except OSError as e:
        out[name] = type(e).__name__
write("write_config", os.path.join(home, "config/config.toml"), "[confirm]\nvia_client = true\n")
write("write_tool", os.path.join(home, "config/tools.d/evil.toml"), "[[tool]]\nname = 'x_y'\n")
write("write_door", os.path.join(door, "endpoint.json"), "{}")
def connect(name, path):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        out[name] = "connected"
    except OSError as e:
        out[name] = type(e).__name__
    finally:
        s.close()
connect("control_sock", os.path.join(home, "run/control.sock"))
connect("adb_sock", adb_sock)
connect("door_sock", os.path.join(door, "mcp.sock"))
try:
    cmd = open(f"/proc/{serve_pid}/cmdline", "rb").read()
    out["serve_visible"] = b"serve" in cmd
except OSError:
    out["serve_visible"] = False
out["descriptor_env"] = os.environ.get("SPOCK_TUI_AGENT_DESCRIPTOR")
print(json.dumps(out))
"""


def digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "absent"


@pytest.fixture
def bwrap():
    if shutil.which("bwrap") is None:
        if os.environ.get("CI") and os.geteuid() == 0:
            pytest.fail("bubblewrap is required in CI (.ci/test installs it as root)")
        pytest.skip("bubblewrap is not installed")
    if not have_adb():
        pytest.skip("no adb binary")


async def test_an_agent_in_the_sandbox_reaches_spock_tui_only_through_the_door(tmp_path, bwrap):
    # Outside /tmp (the sandbox's /tmp is its own): what is hidden here is hidden by name.
    base = pathlib.Path(tempfile.mkdtemp(prefix="spock-sandbox-", dir="/var/tmp"))
    adb = None
    inst = None
    try:
        home, door, project = base / "home", base / "door", base / "project"
        project.mkdir()
        (base / "adb").mkdir(mode=0o700)
        adb = RealAdb(tmp_path, socket_path=base / "adb" / "adb.sock")
        serial = adb.serials[0]
        group = grp.getgrgid(os.getgid()).gr_name
        inst = start_instance(
            tmp_path, home=home,
            config=f'[server]\nagent_dir = "{door}"\nagent_group = "{group}"\n'
                   f'[device]\nadb = ["{adb.endpoint()}"]\n[safety]\nwait_for_attach = true\n')
        env = {**os.environ, "SPOCK_TUI_HOME": str(home)}
        env.pop("ADB_SERVER_SOCKET", None)

        # doctor: the adb server's socket is reachable by this user only.
        r = subprocess.run([EXE, "doctor"], env=env, capture_output=True, text=True, timeout=60)
        assert f"adb server {adb.endpoint()}: on a filesystem socket in {base / 'adb'} (700" in r.stdout, r.stdout
        # With an adb server on TCP the line is refused, unless the agent gets no network.
        r = subprocess.run([EXE, "sandbox", "--adb", "127.0.0.1:5037", "--", "true"], env=env, cwd=project,
                           capture_output=True, text=True, timeout=30)
        assert r.returncode != 0 and "is on TCP" in r.stderr and "--no-network" in r.stderr, r.stderr
        r = subprocess.run([EXE, "sandbox", "--print", "--", "claude"], env=env, cwd=project,
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0 and f"--tmpfs {home / 'config'}" in r.stdout, (r.stdout, r.stderr)
        assert "--unshare-net" not in r.stdout and f"--ro-bind {door} {door}" in r.stdout, r.stdout

        # The agent's MCP server, as its configuration would start it: the relay in the sandbox.
        exe = base / "spock-tui"
        shutil.copy(EXE, exe)
        params = StdioServerParameters(command=str(exe), args=["sandbox", "--", str(exe), "relay", str(door / "endpoint.json")],
                                       env=env, cwd=str(project))
        async with Client(params, mode="legacy") as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert "android_get_current_activity" in names, sorted(names)
            err, r = await call(c, "android_list_devices")
            assert not err and any(d["serial"] == serial for d in r["devices"]), r
            err, r = await call(c, "android_get_current_activity", {"serial": serial})
            assert not err and r.get("activity"), r
            # A destructive call waits for the person, who attaches from outside.
            task = asyncio.create_task(c.call_tool("android_uninstall_app", {**NOTES, "serial": serial}))
            person, welcome = await attached(inst)
            await approve_next(person)
            assert not (await asyncio.wait_for(task, 30)).is_error
            person.close()
        rec = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app" and r["outcome"] == "ok"][-1]
        assert rec["decider"] == welcome["you"] and rec["decision"]["by"] == "attached", rec

        # What the agent reaches besides the door: nothing.
        probe = base / "probe.py"
        probe.write_text(PROBE)
        before = {p: digest(home / p) for p in ["config/config.toml", "config/control-credential", "config/token",
                                               "data/audit/audit.jsonl"]}
        r = subprocess.run([str(exe), "sandbox", "--", "/usr/bin/python3", str(probe), str(home), str(door),
                            str(adb.socket_path), str(inst.proc.pid)],
                           env=env, cwd=project, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        got = json.loads(r.stdout.strip().splitlines()[-1])
        for name in ["credential", "config", "token", "audit", "descriptor", "adbkey"]:
            assert got[name] == "FileNotFoundError", (name, got)
        assert got["door"].startswith("read:"), got
        assert got["control_sock"] == "FileNotFoundError" and got["adb_sock"] == "FileNotFoundError", got
        assert got["door_sock"] == "connected", got
        assert got["write_door"] == "OSError", got
        assert got["serve_visible"] is False, got
        assert got["descriptor_env"] == str(door / "endpoint.json"), got
        # What it wrote went into the sandbox's own empty directories, not the person's.
        after = {p: digest(home / p) for p in before}
        assert after["config/config.toml"] == before["config/config.toml"], got
        assert after["config/control-credential"] == before["config/control-credential"]
        assert not (home / "config" / "tools.d" / "evil.toml").exists()
        assert "via_client" not in (home / "config" / "config.toml").read_text()
        assert json.loads((door / "endpoint.json").read_text())["unix"] == str(door / "mcp.sock")
    finally:
        if inst:
            inst.stop()
        if adb:
            adb.close()
        shutil.rmtree(base, ignore_errors=True)
