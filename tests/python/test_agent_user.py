"""The set-up where the agent cannot approve (SECURITY.md, issue 40), with two real Unix users:
the person (the user running the tests: root in CI) serves with an agent's door
(`[server] agent_dir`, `agent_group`), and the agent runs as another user the test creates.
The agent's user lists and calls tools through the door's socket (from its own network
namespace) and over HTTP with the token; it cannot read or write the person's credential,
config, tools.d or audit, cannot reach the attach socket (so the review's self-approval
sequence fails), and from its own network namespace cannot open the adb server's port. A
decision by the person is recorded with what the server verified about each side."""
import asyncio
import json
import os
import pwd
import shutil
import stat
import subprocess
import tempfile

import pytest
from conftest import EXE, call, start_instance
from mcp import Client, StdioServerParameters
from test_attach import approve_next, attached, audit_records

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("runuser") or not shutil.which("useradd"),
                       reason="needs root (CI runs as root) to create the agent's user"),
]

AGENT, GROUP = "spockagent", "spockagents"

# The agent's HTTP client, run as the agent's user with the system Python: a 2025-06-18
# session (initialize, initialized), then tools/list and one call, printed.
HTTP_PROBE = r"""
import json, sys, urllib.request as u
url, token = sys.argv[1], sys.argv[2]
head = {"Authorization": "Bearer " + token, "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream"}
def post(body, session=None):
    h = dict(head)
    if session:
        h["Mcp-Session-Id"] = session
        h["MCP-Protocol-Version"] = "2025-06-18"
    r = u.urlopen(u.Request(url, data=json.dumps(body).encode(), headers=h))
    return r.headers.get("Mcp-Session-Id"), r.read().decode()
sid, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "agent", "version": "1"}}})
post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
print(post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sid)[1][:100000])
print(post({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
    "name": "android_get_current_activity", "arguments": {}}}, sid)[1])
"""


@pytest.fixture(scope="module")
def agent_user():
    """The agent's user and group, made once (left for later runs: the same names each time)."""
    subprocess.run(["groupadd", "-f", GROUP], check=True)
    try:
        pwd.getpwnam(AGENT)
    except KeyError:
        subprocess.run(["useradd", "-M", "-N", "-g", GROUP, "-s", "/usr/sbin/nologin", AGENT], check=True)
    return pwd.getpwnam(AGENT)


@pytest.fixture
def shared_dir():
    """A directory others can traverse (pytest's own is 0700): the binary and the door."""
    d = tempfile.mkdtemp(prefix="spock-agent-", dir="/tmp")
    os.chmod(d, 0o755)
    shutil.copy(EXE, os.path.join(d, "spock-tui"))
    os.chmod(os.path.join(d, "spock-tui"), 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def as_agent(*cmd, netns=False, **kw):
    wrap = ["unshare", "--net"] if netns else []
    return subprocess.run([*wrap, "runuser", "-u", AGENT, "--", *cmd], capture_output=True, text=True, timeout=30, **kw)


def agent_params(shared, door, netns):
    wrap = ["--net", "runuser"] if netns else []
    cmd = "unshare" if netns else "runuser"
    return StdioServerParameters(
        command=cmd,
        args=[*wrap, "-u", AGENT, "--", os.path.join(shared, "spock-tui"), "relay", os.path.join(door, "endpoint.json")],
        env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "SPOCK_TUI_HOME": "/nonexistent"},
    )


async def test_the_agent_as_another_user_uses_mcp_and_reaches_nothing_else(tmp_path, agent_user, shared_dir):
    door = os.path.join(shared_dir, "agent")
    inst = start_instance(tmp_path, "--demo", config=f'[server]\nagent_dir = "{door}"\nagent_group = "{GROUP}"\n'
                          '[safety]\nwait_for_attach = true\n')
    try:
        # The door: the group's, nobody else's; the descriptor holds the socket and the token.
        st = os.stat(door)
        assert stat.S_IMODE(st.st_mode) == 0o750 and st.st_gid == agent_user.pw_gid, oct(st.st_mode)
        desc = json.loads(open(os.path.join(door, "endpoint.json")).read())
        assert stat.S_IMODE(os.stat(os.path.join(door, "endpoint.json")).st_mode) == 0o640
        assert desc["unix"] == os.path.join(door, "mcp.sock"), desc
        r = subprocess.run([EXE, "doctor"], env={**os.environ, "SPOCK_TUI_HOME": str(inst.home)},
                           capture_output=True, text=True, timeout=60)
        assert f"agent's door {door}: 750" in r.stdout and "reaches the MCP socket and nothing else" in r.stdout, r.stdout

        # The agent, in its own network namespace, over the door's socket: lists and calls.
        async with Client(agent_params(shared_dir, door, netns=True), mode="legacy") as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert "android_get_current_activity" in names, sorted(names)
            err, r = await call(c, "android_get_current_activity")
            assert not err and r.get("activity"), r
            # A destructive call waits for the person, who attaches as the person's user.
            task = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            person, welcome = await attached(inst)
            ask = await approve_next(person)
            assert ask["verified"]["peer"]["uid"] == agent_user.pw_uid, ask["verified"]
            assert not (await asyncio.wait_for(task, 15)).is_error
            person.close()
        rec = [r for r in audit_records(inst) if r["tool"] == "android_uninstall_app" and r["outcome"] == "ok"][-1]
        assert rec["decider"] == welcome["you"] and rec["decider"].startswith(f"attach pid ") and " uid 0 " in rec["decider"], rec
        assert rec["verified"]["peer"]["uid"] == agent_user.pw_uid, rec

        # Over HTTP with the token (no namespace: loopback is the host's).
        url, token = inst.descriptor["http"], desc["token"]
        probe = os.path.join(shared_dir, "http_probe.py")
        with open(probe, "w") as f:
            f.write(HTTP_PROBE)
        os.chmod(probe, 0o644)
        r = as_agent("/usr/bin/python3", probe, url, token)
        assert r.returncode == 0 and "android_get_current_activity" in r.stdout, (r.stdout, r.stderr)
        assert "\"activity\"" in r.stdout, r.stdout

        # Nothing of the person's is the agent's: not readable, not writable.
        home = str(inst.home)
        for f in ["config/control-credential", "config/config.toml", "config/token", "data/audit/audit.jsonl", "run/endpoint.json"]:
            path = os.path.join(home, f)
            assert os.path.exists(path), path
            assert as_agent("/bin/cat", path).returncode != 0, f"the agent read {f}"
            assert as_agent("/usr/bin/touch", path).returncode != 0, f"the agent wrote {f}"
        tools_d = os.path.join(home, "config", "tools.d")
        os.makedirs(tools_d, exist_ok=True)
        assert as_agent("/usr/bin/touch", os.path.join(tools_d, "mine.toml")).returncode != 0
        adbkey = os.path.expanduser("~/.android/adbkey")
        if os.path.exists(adbkey):
            assert as_agent("/bin/cat", adbkey).returncode != 0, "the agent read the adb key"

        # The review's self-approval sequence: no credential, and no way to the attach socket.
        sock = os.path.join(home, "run", "control.sock")
        connect = "import socket,sys;s=socket.socket(socket.AF_UNIX);s.connect(sys.argv[1]);print('connected')"
        r = as_agent("/usr/bin/python3", "-c", connect, sock)
        assert r.returncode != 0 and "connected" not in r.stdout and "Permission" in r.stderr, (r.stdout, r.stderr)
        r = as_agent(os.path.join(shared_dir, "spock-tui"), "attach", env={**os.environ, "SPOCK_TUI_HOME": home})
        assert r.returncode != 0, r.stdout

        # The adb server: any local user reaches it from the host's network, not from its own.
        adb = inst.descriptor["adb"][0]
        host, port = adb.rsplit(":", 1)
        dial = f"exec 3<>/dev/tcp/{host}/{port} && echo open"
        assert "open" in as_agent("/bin/bash", "-c", dial).stdout, "the probe cannot tell"
        r = as_agent("/bin/bash", "-c", dial, netns=True)
        assert r.returncode != 0 and "open" not in r.stdout, (r.stdout, r.stderr)
    finally:
        inst.stop()
    assert not os.path.exists(os.path.join(door, "mcp.sock")), "the door is closed when the server stops"
