"""The official MCP Inspector CLI as a second real client, on all three transports."""
import json
import os
import shutil
import subprocess

import pytest
from conftest import EXE, ROOT, start_instance

INSPECTOR = os.environ.get("MCP_INSPECTOR", str(ROOT / ".ci" / "node" / "node_modules" / ".bin" / "mcp-inspector"))


@pytest.fixture(scope="module")
def inspector():
    if not (os.path.exists(INSPECTOR) or shutil.which(INSPECTOR)):
        if os.environ.get("CI"):
            pytest.fail(f"MCP Inspector CLI missing at {INSPECTOR} (.ci/run installs it)")
        pytest.skip("MCP Inspector CLI not installed (npm install --prefix .ci/node @modelcontextprotocol/inspector)")
    return INSPECTOR


def run(inspector, *args, code=0):
    r = subprocess.run([inspector, "--cli", *args], capture_output=True, text=True, timeout=90)
    assert r.returncode == code, r.stdout + r.stderr  # the CLI exits 5 for a tool-level error
    assert "unknown format" not in r.stderr, r.stderr  # our schemas are plain JSON Schema
    return json.loads(r.stdout)


def test_inspector_cli_on_http_sse_and_stdio(tmp_path, inspector):
    inst = start_instance(tmp_path, "--demo")
    try:
        auth = f"Authorization: Bearer {inst.token}"
        tools = run(inspector, inst.url, "--header", auth, "--method", "tools/list")["tools"]
        names = {t["name"] for t in tools}
        assert {"android_get_battery_info", "android_uninstall_app", "spock_get_status"} <= names
        res = run(inspector, inst.url, "--header", auth, "--method", "tools/call", "--tool-name", "android_get_battery_info")
        assert res["structuredContent"]["level"] >= 0 and not res.get("isError")
        res = run(inspector, inst.base + "/sse", "--header", auth, "--method", "resources/list")
        assert {r["uri"] for r in res["resources"]} >= {"android://devices"}
        res = run(inspector, EXE, "relay", str(inst.descriptor_path), "--method", "tools/call",
                  "--tool-name", "android_uninstall_app", "--tool-arg", "packageName=com.example.notes", code=5)
        assert res.get("isError") is True and res["structuredContent"]["kind"] == "denied"
    finally:
        inst.stop()


@pytest.mark.parametrize("toolsets", [None, "all"])
def test_inspector_schema_check_finds_nothing(tmp_path, inspector, toolsets):
    """The Inspector's tool-schema portability check (`tools/list --strict`: every finding in
    full on stderr) has nothing to say about the default list (core) or about every set: no
    untyped `{}` property, no `type` array. The build before issue 19 had 436 warnings."""
    inst = start_instance(tmp_path, toolsets=toolsets)
    try:
        for extra in ([], ["--strict"]):
            r = subprocess.run([inspector, "--cli", EXE, "relay", str(inst.descriptor_path), "--method", "tools/list", *extra],
                               capture_output=True, text=True, timeout=90)
            assert r.returncode == 0, r.stdout + r.stderr
            assert "warning" not in r.stderr and "error" not in r.stderr, r.stderr
            assert json.loads(r.stdout)["tools"]
    finally:
        inst.stop()
