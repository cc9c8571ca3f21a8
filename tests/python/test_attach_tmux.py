"""Issue 18 in real terminals: `serve --demo` headless, two `spock-tui attach` control
centres in two tmux sessions, an MCP client through `relay`. Both show the approval; `y` in
one approves; the other's modal closes naming the decider; `q` in both detaches and the server
goes on serving; a further call works. A server that restarts: the attached screen says it
is reconnecting, comes back, and approves a new call; one that does not come back within the
bound: it detaches saying why."""
import asyncio
import shlex
import shutil
import uuid

import pytest
from conftest import EXE, start_instance
from tmux_harness import Tui, text_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]

MODAL = "Approve a destructive call"


class Attached(Tui):
    """`spock-tui attach` in a tmux session of its own."""

    def __init__(self, home, width=120, height=40, reconnect_secs=None):
        self.home = home
        self.sock = f"spock-test-{uuid.uuid4().hex[:8]}"
        self.session = "tui"
        extra = "" if reconnect_secs is None else f" SPOCK_TUI_ATTACH_RECONNECT_SECS={int(reconnect_secs)}"
        cmd = f"env SPOCK_TUI_HOME={shlex.quote(str(home))} TERM=xterm-256color{extra} {shlex.quote(EXE)} attach; sleep 30"
        self.tmux("new-session", "-d", "-s", self.session, "-x", str(width), "-y", str(height), cmd)
        self.tmux("set-option", "-t", self.session, "remain-on-exit", "on")


async def test_two_attached_control_centres_first_y_wins_and_q_leaves_the_server_serving(tmp_path):
    from mcp import Client

    inst = start_instance(tmp_path, "--demo")
    one = two = None
    try:
        one, two = Attached(inst.home), Attached(inst.home)
        # Each opens on Status, as the control centre itself does.
        await one.wait_for("attached to spock-tui", "Accepting")
        await two.wait_for("attached to spock-tui", "Accepting")
        async with Client(inst.relay_params(), mode="legacy") as c:
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            await one.wait_for(MODAL, "android_uninstall_app", "com.example.notes")
            await two.wait_for(MODAL, "android_uninstall_app", "com.example.notes")
            await one.approve()
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is not True, text_of(r)
            # The other terminal's modal says who decided, then goes.
            screen = await two.wait_for("Decided in another terminal", "approved by attach pid")
            assert "android_uninstall_app" in screen, screen
            await two.wait_gone("Decided in another terminal")
            assert MODAL not in two.screen()
            # Activity shows the call.
            one.keys("3")
            await one.wait_for("android_uninstall_app")
            one.keys("q")
            two.keys("q")
            await one.wait_gone("attached to spock-tui")
            await two.wait_gone("attached to spock-tui")
            assert inst.proc.poll() is None, "detaching stopped the server"
            r = await asyncio.wait_for(c.call_tool("android_list_devices", {}), 15)
            assert r.is_error is not True, text_of(r)
    finally:
        for t in (one, two):
            if t is not None:
                t.kill()
        inst.stop()


async def test_attach_says_so_when_there_is_no_server_and_when_it_goes_away(tmp_path):
    from mcp import Client  # noqa: F401  (the same environment as the other tests)

    home = tmp_path / "home"
    t = Attached(home)
    try:
        await t.wait_for("no spock-tui server to attach to")
    finally:
        t.kill()
    inst = start_instance(tmp_path, "--demo")
    t = Attached(inst.home, reconnect_secs=2)
    try:
        await t.wait_for("attached to spock-tui")
        inst.stop()
        await t.wait_for("server gone: reconnecting")
        await t.wait_for("the server went away", "within 2 s")
    finally:
        t.kill()
        inst.stop()


async def test_an_attached_control_centre_reconnects_after_a_server_restart(tmp_path):
    from mcp import Client

    inst = start_instance(tmp_path, "--demo")
    t = Attached(inst.home, reconnect_secs=60)
    inst2 = None
    try:
        await t.wait_for("attached to spock-tui")
        # A request waiting when the server goes away is withdrawn, never approvable.
        async with Client(inst.relay_params(), mode="legacy") as c:
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            await t.wait_for(MODAL, "com.example.notes")
            inst.stop()
            await t.wait_for("server gone: reconnecting")
            await t.wait_gone(MODAL)
            try:
                await asyncio.wait_for(call, 10)
            except Exception:
                pass
        inst2 = start_instance(tmp_path, "--demo", home=inst.home)
        await t.wait_for("reconnected to spock-tui")
        await t.wait_for("[running]")
        # The History preload again after the reconnect: the withdrawn call shows once,
        # decided (the reload adds only records newer than the ones it holds).
        for _ in range(20):
            t.keys("4")
            await asyncio.sleep(0.25)
            if "History —" in t.screen():
                break
        screen = await t.wait_for("History —", "android_uninstall_app", "denied")
        assert screen.count("android_uninstall_app") == 1, screen
        async with Client(inst2.relay_params(), mode="legacy") as c:
            call = asyncio.create_task(c.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            await t.wait_for(MODAL, "com.example.notes")
            await t.approve()
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is not True, text_of(r)
        t.keys("q")
        await t.wait_gone("attached to spock-tui")
        assert inst2.proc.poll() is None
    finally:
        t.kill()
        inst.stop()
        if inst2 is not None:
            inst2.stop()


async def test_the_combined_mode_serves_attach_too_and_its_own_modal_names_the_decider(tmp_path):
    """`spock-tui --demo` (control centre and server in one process) with a raw attached
    client: the approval made over the attach channel closes the in-process modal, naming it."""
    from mcp import Client
    from tmux_harness import relay, start_tui
    from test_attach import Raw

    tui = start_tui(tmp_path, "--demo")
    try:
        await tui.wait_for("[running]", "demo")

        class Home:
            home = tui.home

        c = await Raw.open(Home)
        welcome = await c.hello(Home)
        assert welcome["type"] == "welcome", welcome
        async with Client(relay(tui), mode="legacy") as mcp:
            call = asyncio.create_task(mcp.call_tool("android_uninstall_app", {"packageName": "com.example.notes"}))
            await tui.wait_for(MODAL, "com.example.notes")
            cid = (await c.until("confirm_asked"))["ask"]["call_id"]
            await c.send(type="displayed", call_id=cid)
            await asyncio.sleep(0.8)
            await c.send(type="decide", call_id=cid, approve=False)
            # The decider's whole label (pid, uid, executable, terminal) may wrap in the modal.
            await tui.wait_for("Decided in another terminal", "denied by " + welcome["you"].split(" uid ")[0])
            r = await asyncio.wait_for(call, 15)
            assert r.is_error is True and "denied" in text_of(r), text_of(r)
            # An agent's navigation goes to this terminal's own control centre, not to the
            # newest attached one (the raw client here, which would never answer). It waits
            # until the notice about the decision has left the screen: an agent's navigation
            # never switches under an open modal.
            await tui.wait_gone("Decided in another terminal")
            r = await asyncio.wait_for(mcp.call_tool("spock_navigate", {"destination": "tools"}), 15)
            assert r.structured_content["applied"] is True, r
            st = await mcp.call_tool("spock_get_status", {})
            assert st.structured_content["screen"] == "tools", st.structured_content
        c.close()
    finally:
        tui.kill()


async def test_an_attached_control_centre_has_history_tools_settings_and_batch(tmp_path):
    """The whole control centre from another terminal: History from before attaching, a tool
    switched off in Tools (the server then refuses it to an agent), a setting saved, a task run
    from Batch and audited as this terminal's."""
    import json
    import re
    from mcp import Client
    from conftest import call

    inst = start_instance(tmp_path, "--demo", config='[access]\nallowed_groups = ["settings"]\n')
    t = None
    try:
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, _ = await call(c, "android_get_battery_info")
            assert not err
            err, saved = await call(c, "android_batch_save", {
                "id": "battery", "name": "battery", "steps": [{"tool": "android_get_battery_info", "arguments": {}}]})
            assert not err, saved
        t = Attached(inst.home)
        await t.wait_for("attached to spock-tui")
        t.keys("4")
        await t.wait_for("History —", "android_get_battery_info", "audit trail")
        # Tools: the last tool off; saved by the server, in force for agents at once.
        t.keys("5")
        await t.wait_for("Tool access", "Enable all")
        t.keys("G")
        t.keys("Space")
        screen = await t.wait_for("saved ", " off to ")
        tool = re.search(r"saved (\w+) off to", screen).group(1)
        assert tool in (inst.home / "config" / "config.toml").read_text()
        async with Client(inst.relay_params(), mode="legacy") as c:
            err, r = await call(c, tool)
            assert err and r["kind"] == "disabled", r
        # Settings: a number, saved by the server.
        t.keys("g")  # Enable all; then Read-only only, the five host groups, History size
        for _ in range(7):
            t.keys("Down")
        await t.wait_for("History size")
        t.keys("Enter")
        t.keys("C-u")
        t.type("500")
        t.keys("Enter")
        await t.wait_for("saved History size (calls kept) = 500")
        assert "size = 500" in (inst.home / "config" / "config.toml").read_text()
        # Batch: the task runs on the server, started from here.
        t.keys("6")
        await t.wait_for("Tasks (1)", "battery")
        t.keys("r")
        await t.wait_for("succeeded", timeout=30)
        t.keys("q")
        await t.wait_gone("attached to spock-tui")
    finally:
        if t is not None:
            t.kill()
        inst.stop()
    audit = [json.loads(l) for l in (inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines() if l.strip()]
    steps = [a for a in audit if a["tool"] == "android_get_battery_info" and a.get("batchRun")]
    assert steps and "attach pid" in steps[-1]["client"], steps
