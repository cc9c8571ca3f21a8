"""The rough edges of a first session (issue 42), each through a real client: what the agent
reads (spock_get_status says where HTTP serves now, not only the configured port) and what the
person sees (Settings' port row says the same; `attach` opens on Status)."""
import json
import re

import pytest
from conftest import call, start_instance
from mcp import Client
from tmux_harness import start_tui

pytestmark = pytest.mark.anyio


async def test_status_and_settings_say_where_http_serves_now(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        serving = int(re.search(r":(\d+)/mcp$", inst.url).group(1))
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, st = await call(c, "spock_get_status")
            assert not err, st
            assert st["settings"]["port"] == 8765, st["settings"]
            assert st["settings"]["servingPort"] == serving, st["settings"]
    finally:
        inst.stop()


async def test_settings_port_row_names_the_port_in_use_at_80x24(tmp_path):
    t = start_tui(tmp_path, "--demo", width=80, height=24)
    try:
        serving = int(re.search(r":(\d+)/mcp", (t.home / "run" / "endpoint.json").read_text()).group(1))
        t.keys("5")
        await t.wait_for("8765", f"(serving on {serving} now)")
    finally:
        t.kill()


async def test_status_says_why_no_device_is_listed(tmp_path):
    # An adb server that is not there (given explicitly, so nothing is started on it).
    t = start_tui(tmp_path, "--adb", "127.0.0.1:1", width=100, height=30)
    try:
        await t.wait_for("no device: adb server at 127.0.0.1:1 is unreachable", timeout=20)
    finally:
        t.kill()


def test_serve_logs_lines_a_person_reads_and_no_false_alarm_at_ctrl_c(tmp_path, real_adb):
    import signal
    import subprocess
    import time

    from conftest import EXE

    home = tmp_path / "home"
    err = tmp_path / "serve.err"
    proc = subprocess.Popen([EXE, "serve", "--port", "0", "--adb", real_adb.endpoint()],
                            env={**__import__("os").environ, "SPOCK_TUI_HOME": str(home)},
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(err, "w"))
    try:
        deadline = time.monotonic() + 30
        while "attached" not in err.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        # Ctrl-C in a terminal reaches the whole process group: the server and an adb server
        # started from that terminal stop together.
        proc.send_signal(signal.SIGINT)
        real_adb.adb("kill-server", check=False)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    log = err.read_text()
    serial = real_adb.serials[0]
    assert f"device {serial}" in log and "attached" in log, log
    assert "DeviceEntry {" not in log and "AdbEndpoint {" not in log, log
    assert "is not answering" not in log and "is down" not in log, log
    assert "stopped by SIGINT" in log, log


async def test_q_with_a_client_connected_asks_first(tmp_path):
    from tmux_harness import relay

    t = start_tui(tmp_path, "--demo", width=100, height=30)
    try:
        async with Client(relay(t), mode="legacy") as c:
            err, _ = await call(c, "android_list_devices")
            assert not err
            # Once the control centre's view has the client (Status names it), `q` asks.
            await t.wait_for("via stdio")
            t.keys("q")
            await t.wait_for("quit? It stops the server: 1 connected", "stdio)")
            t.keys("n")
            await t.wait_for("still serving")
            err, _ = await call(c, "android_list_devices")
            assert not err, "answering no stopped the server"
            t.keys("q")
            await t.wait_for("quit? It stops the server")
            t.keys("y")
            deadline = __import__("time").monotonic() + 15
            while not t.pane_dead() and __import__("time").monotonic() < deadline:
                await __import__("anyio").sleep(0.1)
            assert t.pane_dead(), t.screen()
    finally:
        t.kill()


async def test_q_right_after_a_clients_first_call_asks_too(tmp_path):
    """The view follows the server by a short settle; a `q` pressed at once after the client's
    first answer, before Status could show it, still asks."""
    from tmux_harness import relay

    t = start_tui(tmp_path, "--demo", width=100, height=30)
    try:
        async with Client(relay(t), mode="legacy") as c:
            err, _ = await call(c, "android_list_devices")
            assert not err
            t.keys("q")
            await t.wait_for("quit? It stops the server")
            t.keys("n")
            err, _ = await call(c, "android_list_devices")
            assert not err, "answering no stopped the server"
    finally:
        t.kill()


async def test_an_agent_on_core_alone_finds_the_package_and_is_told_how_to_reach_named_tools(tmp_path):
    inst = start_instance(tmp_path, "--demo", toolsets=None)
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            listed = {t.name for t in (await c.list_tools()).tools}
            assert "android_list_packages" not in listed and "android_launch_app" in listed
            # By the label its icon shows on the home screen: launched, and told the package.
            err, ok = await call(c, "android_launch_app", {"packageName": "shop"})
            assert not err and ok["package"] == "com.example.shop", ok
            assert "labelled" in ok["warning"] and "com.example.shop" in ok["warning"], ok
            # A word that is no label: the error names the packages it is part of.
            r = await c.call_tool("android_launch_app", {"packageName": "Sho"})
            assert r.is_error
            said = r.structured_content["error"]
            assert "com.example.shop" in said and 'labelled "Sho"' in said, said
            assert r.structured_content["matches"] == ["com.example.shop"], r.structured_content
            err, ok = await call(c, "android_launch_app", {"packageName": r.structured_content["matches"][0]})
            assert not err and ok["package"] == "com.example.shop", ok
            # A tool the answer points at that this client is not listed: how to get it listed.
            r = await c.call_tool("android_launch_app", {"packageName": "com.example.nothing"})
            assert r.is_error
            said = r.structured_content["error"]
            assert "android_list_packages is in the `apps` toolset: spock_enable_toolset" in said, said
            # A hostile name is refused as it is, with no device asked.
            r = await c.call_tool("android_launch_app", {"packageName": "shop;reboot"})
            assert r.is_error and "matches" not in r.structured_content, r.structured_content
    finally:
        inst.stop()


async def test_the_debug_contexts_logcat_says_which_filter_it_used(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, ctx = await call(c, "android_get_debug_context")
            assert not err, ctx
            log = ctx["logcat"]["value"]
            assert "level W and above, the last 100 lines" in log["filter"], log
            # The same log at every level has lines: the filter is why the context may show none.
            err, every = await call(c, "android_get_logcat", {"lines": 100})
            assert not err and every["lines"] and "filter" not in every, every
    finally:
        inst.stop()


async def test_toolsets_and_the_demo_devices_name_survive_a_restart(tmp_path):
    inst = start_instance(tmp_path, "--demo", toolsets=None)
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, before = await call(c, "android_list_devices")
            assert not err, before
            try:
                r = await c.call_tool("android_list_packages", {})
                assert r.is_error, "not listed yet"
            except Exception as e:  # a JSON-RPC error naming the set
                assert "spock_enable_toolset" in str(e), e
            err, en = await call(c, "spock_enable_toolset", {"toolset": "apps"})
            assert not err and en["listChanged"], en
            err, pk = await call(c, "android_list_packages", {})
            assert not err and pk["count"] > 0, pk
            # The server restarts under the relay, which reconnects and replays its initialize.
            inst.stop()
            inst = start_instance(tmp_path, "--demo", toolsets=None, home=inst.home)
            deadline = __import__("time").monotonic() + 30
            while True:
                r = await c.call_tool("android_list_devices", {})
                if not r.is_error or __import__("time").monotonic() > deadline:
                    break
                await __import__("anyio").sleep(0.3)
            assert not r.is_error, r.structured_content
            assert r.structured_content == before, (r.structured_content, before)
            err, pk = await call(c, "android_list_packages", {})
            assert not err and pk["count"] > 0, pk
    finally:
        inst.stop()


async def test_the_test_tag_advice_fits_the_screen(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, _ = await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            assert not err
            # The login exposes its Compose test tags: no advice.
            err, tree = await call(c, "android_get_ui_tree")
            assert not err and not tree.get("advice"), tree.get("advice")
            err, _ = await call(c, "android_input_text_into_element", {
                "element": "login_email", "text": "me@example.com",
                "fields": [{"element": "login_password", "text": "hunter2"}]})
            assert not err
            err, _ = await call(c, "android_tap_element", {"element": "sign_in"})
            assert not err
            # Home is Compose without tags: the advice, as it was.
            err, tree = await call(c, "android_get_ui_tree")
            assert "Compose test tags are not exposed" in tree["advice"], tree.get("advice")
            # The cart's Compose list carries the app's own ids, which work: no advice.
            err, _ = await call(c, "android_tap_element", {"element": "Cart"})
            assert not err
            err, tree = await call(c, "android_get_ui_tree")
            assert not err and "Total" in json.dumps(tree), tree
            assert not tree.get("advice"), tree.get("advice")
    finally:
        inst.stop()
