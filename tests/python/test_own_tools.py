"""Own tools (issue 39) through the Python MCP client, the real adb server and the virtual
device: the repository's example file loads, its tools are listed with their typed schemas
and run; hostile parameter values stay one word on the device; a destructive own tool asks
with the expanded command; a template the guard refuses and a broken file are named with
their line while the others load; a reload adds a tool and the session is told its list
changed; `tools check` shows the schema; `doctor` says when another user could write the
files that define tools."""
import json
import os
import pathlib
import shutil
import subprocess
import time

import anyio
import mcp.types as types
import pytest
from conftest import EXE, call, have_adb, start_instance
from mcp import Client
from test_lab import DEMO, AdbServer, Sim
from test_toolsets import ListChanged

pytestmark = pytest.mark.anyio

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tools.d" / "team.toml"
SHOP = "com.example.shop"
VIA_CLIENT = "[confirm]\nvia_client = true\n"

ECHO = """
[[tool]]
name = "lab_echo"
description = "Prints its word back."
level = "read-only"
command = "echo {word}"
output = "lines"

[tool.params.word]
type = "string"
"""


@pytest.fixture
def lab(tmp_path):
    if not have_adb():
        pytest.fail("adb is required") if os.environ.get("CI") else pytest.skip("no adb binary")
    parts = []
    try:
        sim = Sim(tmp_path, "own", "--adbd", "127.0.0.1:0", "--device", str(DEMO))
        parts.append(sim)
        adb = AdbServer(tmp_path, "own")
        parts.append(adb)
        addr = sim.info["adbd"][0]["addr"]
        adb.connect(addr)
        yield adb, addr
    finally:
        for p in reversed(parts):
            p.stop()


def tools_dir(home: pathlib.Path) -> pathlib.Path:
    d = home / "config" / "tools.d"
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    return d


class Asked:
    """The MCP client's person (elicitation): keeps what it was shown, says `answer`."""

    def __init__(self, answer: bool):
        self.answer = answer
        self.messages = []

    async def __call__(self, ctx, params):
        self.messages.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": self.answer})


async def until_listed(c, name, present=True, seconds=10):
    deadline = time.monotonic() + seconds
    while True:
        names = {t.name for t in (await c.list_tools(cache_mode="refresh")).tools}
        if (name in names) == present:
            return names
        assert time.monotonic() < deadline, (name, sorted(names))
        await anyio.sleep(0.2)


async def test_own_tools_load_list_run_and_ask(tmp_path, lab):
    adb, serial = lab
    home = tmp_path / "home"
    shutil.copy(EXAMPLE, tools_dir(home) / "team.toml")
    (tools_dir(home) / "echo.toml").write_text(ECHO)
    # A broken file is named with its line; a template the guard refuses too. The others load.
    (tools_dir(home) / "broken.toml").write_text(ECHO.replace("lab_echo", "lab_broken").replace('level = "read-only"', 'level = "sometimes"'))
    (tools_dir(home) / "wipe.toml").write_text(ECHO.replace("lab_echo", "lab_wipe").replace("echo {word}", "rm -rf /sdcard {word}"))
    asked = Asked(True)
    changed = ListChanged()
    inst = start_instance(tmp_path, "--adb", adb.endpoint, config=VIA_CLIENT, home=home)
    try:
        err = inst.stderr()
        assert "broken.toml:5:" in err and "level `sometimes`" in err, err
        assert "wipe.toml:6:" in err and "the guard refuses" in err, err
        async with Client(inst.relay_params(), mode="legacy", message_handler=changed,
                          elicitation_callback=asked) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            for name in ("team_frame_stats", "team_reset_frame_stats", "team_dark_mode", "team_trim_caches", "lab_echo"):
                assert name in tools, sorted(tools)
            assert "lab_broken" not in tools and "lab_wipe" not in tools
            dark = tools["team_dark_mode"]
            assert dark.input_schema["properties"]["mode"]["enum"] == ["yes", "no", "auto"], dark.input_schema
            assert dark.annotations.read_only_hint is False and dark.annotations.destructive_hint is False
            assert tools["team_trim_caches"].annotations.destructive_hint is True
            assert tools["team_frame_stats"].output_schema["properties"]["totalFramesRendered"]["type"] == "integer"

            # Runs, typed: dark mode on, and the settings provider agrees.
            e, r = await call(c, "team_dark_mode", {"mode": "yes"})
            assert not e and r == {"nightMode": "yes"}, r
            e, r = await call(c, "team_dark_mode", {"mode": "no; reboot"})
            assert e and "not one of" in r["error"], r
            # Frame stats of the shop after a few taps in front.
            e, r = await call(c, "android_launch_app", {"packageName": SHOP})
            assert not e, r
            e, r = await call(c, "team_reset_frame_stats", {"package": SHOP})
            assert not e, r
            for _ in range(3):
                e, r = await call(c, "android_tap", {"x": 540, "y": 1200})
                assert not e, r
            e, r = await call(c, "team_frame_stats", {"package": SHOP})
            assert not e and r["totalFramesRendered"] > 0, r
            e, r = await call(c, "team_frame_stats", {"package": "com.example.shop$(reboot)"})
            assert e and "pattern" in r["error"], r

            # Hostile values stay one word: echo prints each back whole, and nothing else ran.
            for hostile in ["; pm uninstall com.example.notes", "$(pm uninstall com.example.notes)",
                            "`pm uninstall com.example.notes`", "x\npm uninstall com.example.notes", "it's ' \"q\""]:
                e, r = await call(c, "lab_echo", {"word": hostile})
                assert not e, r
                assert r["lines"] == [line for line in hostile.split("\n") if line], (hostile, r)
            e, r = await call(c, "android_list_packages", {"filter": "notes"})
            assert not e and any("com.example.notes" in json.dumps(p) for p in r.get("packages", [])), r

            # A destructive own tool asks, showing the expanded command.
            e, r = await call(c, "team_trim_caches", {"free_gigabytes": 64})
            assert not e, r
            assert asked.messages and "pm trim-caches 64G" in asked.messages[-1], asked.messages
            asked.answer = False
            e, r = await call(c, "team_trim_caches", {})
            assert e and r["kind"] in ("denied", "refused"), r
            assert "pm trim-caches 999G" in asked.messages[-1], asked.messages[-1]

            # A reload adds a tool, and the session is told.
            before = changed.count
            (tools_dir(home) / "more.toml").write_text(ECHO.replace("lab_echo", "lab_more"))
            r = subprocess.run([EXE, "tools", "reload"], env={**os.environ, "SPOCK_TUI_HOME": str(home)},
                               capture_output=True, text=True, timeout=60)
            assert "lab_more" in r.stdout + r.stderr or "own tools" in r.stdout + r.stderr, (r.stdout, r.stderr)
            with anyio.fail_after(10):
                while changed.count == before:
                    await anyio.sleep(0.1)
            await until_listed(c, "lab_more")
            e, r = await call(c, "lab_more", {"word": "hello"})
            assert not e and r == {"lines": ["hello"]}, r
            # Removing the file unlists it (the watcher, without a command).
            before = changed.count
            (tools_dir(home) / "more.toml").unlink()
            with anyio.fail_after(10):
                while changed.count == before:
                    await anyio.sleep(0.1)
            await until_listed(c, "lab_more", present=False)
    finally:
        inst.stop()
    # Every call is on record, the destructive one with the command it ran.
    audit = (home / "data" / "audit" / "audit.jsonl").read_text()
    trims = [json.loads(line) for line in audit.splitlines() if '"team_trim_caches"' in line]
    assert any("pm trim-caches 64G" in json.dumps(r) for r in trims), trims


def test_tools_check_shows_the_schema_and_names_a_broken_line(tmp_path):
    env = {**os.environ, "SPOCK_TUI_HOME": str(tmp_path / "home")}
    r = subprocess.run([EXE, "tools", "check", str(EXAMPLE)], env=env, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "4 tools load" in r.stdout and '"name": "team_trim_caches"' in r.stdout, r.stdout
    assert "runs: pm trim-caches {free_gigabytes}G" in r.stdout, r.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(ECHO.replace("echo {word}", 'echo "{word}"'.replace('"', '\\"')))
    r = subprocess.run([EXE, "tools", "check", str(bad)], env=env, capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "bad.toml:6:" in r.stderr and "inside quotes" in r.stderr, r.stderr


def test_doctor_says_when_others_can_write_the_tool_files(tmp_path):
    home = tmp_path / "home"
    d = tools_dir(home)
    (d / "echo.toml").write_text(ECHO)
    env = {**os.environ, "SPOCK_TUI_HOME": str(home), "ANDROID_ADB_SERVER_PORT": "1"}
    os.chmod(d / "echo.toml", 0o600)
    r = subprocess.run([EXE, "doctor"], env=env, capture_output=True, text=True, timeout=60)
    assert "tool definitions:" in r.stdout and "writable by you only" in r.stdout, r.stdout
    assert "own tools: 1 (lab_echo)" in r.stdout, r.stdout
    os.chmod(d / "echo.toml", 0o666)
    r = subprocess.run([EXE, "doctor"], env=env, capture_output=True, text=True, timeout=60)
    assert "echo.toml is 666 (others can write it)" in r.stdout, r.stdout
    assert r.returncode != 0
