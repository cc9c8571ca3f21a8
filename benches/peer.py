"""Side by side against @mobilenext/mobile-mcp 1.0.4 (default mobilecli mode and
MOBILEMCP_LEGACY_ROBOT=1): the same operations, the same virtual device, the same real Debian
`adb` server, all over stdio through the same Python MCP SDK client.

    npm install --prefix /tmp/peer @mobilenext/mobile-mcp@1.0.4
    python3 benches/peer.py --peer /tmp/peer --rounds 30

Warm latency: each server spawned once, one warm-up call per operation, then `--rounds`
interleaved rounds (spock, default, legacy, spock, …) so drift hits all three alike.
Two floors are timed in the same rounds: a do-nothing stdio server (benches/null_server.py: the
client, the pipes and the process wake-ups every server pays) and spock-tui's `spock_get_status`
(the same plus the relay and the call pipeline, no device).
Cold latency: `--cold` fresh spawns per server, the first `list devices` + `foreground` each,
with mobile-mcp's leftover daemon (`$HOME/.mobilecli/daemon.pid`) killed and its on-device
files removed between runs. mobile-mcp reports failures as text with isError false, so a
result is judged by its text as well.
"""
import argparse
import asyncio
import contextlib
import json
import os
import pathlib
import signal
import sys
import tempfile
import time

from common import DEMO, Deadline, RealAdb, start_instance, summary_ms, write_json
from mcp import Client
from mcp.client.stdio import StdioServerParameters

LAUNCHER = "com.google.android.apps.nexuslauncher"
FAIL_WORDS = ("not supported", "Error", "error:", "failed", "Failed", "Please fix")


def ops(serial):
    """(label, spock call, mobile-mcp call). The launcher stays in front throughout: every tap
    lands on a spot or icon with no scripted transition, and 'launch' re-launches the launcher."""
    d = {"device": serial}
    return [
        ("list devices", ("android_list_devices", {}), ("mobile_list_available_devices", {})),
        ("foreground app", ("android_get_current_activity", {}), ("mobile_get_foreground_app", d)),
        ("UI elements / tree", ("android_get_ui_tree", {}), ("mobile_list_elements_on_screen", d)),
        ("tap at a point", ("android_tap", {"x": 540, "y": 1000}),
         ("mobile_click_on_screen_at_coordinates", {**d, "x": 540, "y": 1000})),
        # mobile-mcp taps an element by the ref its latest listing gave it (@e8 = "Phone").
        ("tap an element", ("android_tap_element", {"element": "Phone"}),
         ("mobile_click_on_screen_at_coordinates", {**d, "ref": "@e8"})),
        ("type text", ("android_input_text", {"text": "hello"}),
         ("mobile_type_keys", {**d, "text": "hello", "submit": False})),
        ("screenshot ≤1024 px JPEG", ("android_take_screenshot", {"maxSize": 1024, "format": "jpeg"}),
         ("mobile_take_screenshot", {**d, "maxSize": 1024})),
        ("screenshot full size", ("android_take_screenshot", {"maxSize": 0, "format": "png"}),
         ("mobile_take_screenshot", {**d, "maxSize": 2400})),
        ("launch app", ("android_launch_app", {"packageName": LAUNCHER}),
         ("mobile_launch_app", {**d, "packageName": LAUNCHER})),
    ]


def describe(res):
    parts = []
    for c in res.content:
        if getattr(c, "text", None) is not None:
            parts.append(c.text[:160].replace("\n", " "))
        else:
            parts.append(f"<{c.type} {getattr(c, 'mime_type', '')} {len(getattr(c, 'data', '') or '')} b64 chars>")
    return " | ".join(parts)


def failed(res, server):
    if res.is_error:
        return True
    if server.startswith("spock-tui") or server == "null server":  # isError on every failure
        return False
    texts = [c.text for c in res.content if getattr(c, "text", None)]
    images = [c for c in res.content if getattr(c, "type", "") == "image"]
    return not images and any(w in t for t in texts for w in FAIL_WORDS)


def peer_params(peer_dir, adb_port, home, legacy):
    env = {
        **os.environ,
        "HOME": str(home),
        "ANDROID_ADB_SERVER_PORT": str(adb_port),
        "MOBILEMCP_DISABLE_TELEMETRY": "1",
    }
    env.pop("ANDROID_HOME", None)  # adb from PATH (Debian's /usr/bin/adb), as mobile-mcp falls back to
    if legacy:
        env["MOBILEMCP_LEGACY_ROBOT"] = "1"
    entry = pathlib.Path(peer_dir) / "node_modules/@mobilenext/mobile-mcp/lib/index.js"
    return StdioServerParameters(command="node", args=[str(entry)], env=env)


def clear_peer_leftovers(home, adb):
    """Kill the mobilecli daemon this benchmark's runs left (by its recorded pid) and remove its
    on-device files, so the next run is cold."""
    pidf = pathlib.Path(home) / ".mobilecli" / "daemon.pid"
    if pidf.exists():
        try:
            pid = int(json.loads(pidf.read_text())["pid"])
            os.kill(pid, signal.SIGTERM)
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.05)
        except (ProcessLookupError, ValueError, KeyError, json.JSONDecodeError):
            pass
        pidf.unlink(missing_ok=True)
    for s in adb.serials:
        adb.adb("-s", s, "shell", "rm -rf /data/local/tmp/mobilecli*", check=False)


async def timed(client, name, args):
    t = time.perf_counter()
    res = await client.call_tool(name, args)
    return time.perf_counter() - t, res


async def warm(args, adb, inst, home):
    serial = adb.serials[0]
    servers = {
        "spock-tui": inst.relay_params(),
        "mobile-mcp default": peer_params(args.peer, adb.port, home, legacy=False),
        "mobile-mcp legacy": peer_params(args.peer, adb.port, home, legacy=True),
        # The floors, timed in the same rounds: a server that does nothing (client + pipes +
        # wake-ups), and spock-tui's cheapest tool (the same plus relay and call pipeline).
        "null server": StdioServerParameters(command=sys.executable,
                                             args=[str(pathlib.Path(__file__).with_name("null_server.py"))]),
        "spock-tui no-op": inst.relay_params(),
    }
    deadline = Deadline(args.max_seconds)
    results = {}
    clients = {}
    async with contextlib.AsyncExitStack() as stack:
        for k, p in servers.items():
            clients[k] = await stack.enter_async_context(Client(p, mode="legacy"))
        for label, sp, mm in ops(serial):
            calls = {"spock-tui": sp, "mobile-mcp default": mm, "mobile-mcp legacy": mm,
                     "null server": ("noop", {}), "spock-tui no-op": ("spock_get_status", {})}
            row = {k: {"times": [], "errors": 0, "sample": None} for k in calls}
            for k, (name, a) in calls.items():  # warm-up (and the listing mobile-mcp refs need)
                if "ref" in a:
                    await clients[k].call_tool("mobile_list_elements_on_screen", {"device": serial})
                _, res = await timed(clients[k], name, a)
                row[k]["sample"] = describe(res)
                row[k]["failed"] = failed(res, k)
            for _ in range(args.rounds):
                if not deadline.left():
                    break
                for k, (name, a) in calls.items():
                    if row[k]["failed"]:
                        continue
                    dt, res = await timed(clients[k], name, a)
                    if failed(res, k):
                        row[k]["errors"] += 1
                    row[k]["times"].append(dt)
            results[label] = {
                k: {
                    "call": calls[k][0],
                    "args": calls[k][1],
                    "sample": v["sample"],
                    "failed": v["failed"],
                    "errors": v["errors"],
                    **(summary_ms(v["times"]) if v["times"] else {}),
                }
                for k, v in row.items()
            }
            print(label, {k: (round(v.get("median", -1), 2), v["failed"]) for k, v in results[label].items()}, flush=True)
    return results


async def cold(args, adb, inst, home):
    """Spawn → first list devices → first foreground app, `--cold` times per server."""
    serial = adb.serials[0]
    out = {}
    for k, mk in {
        "spock-tui": lambda: inst.relay_params(),
        "mobile-mcp default": lambda: peer_params(args.peer, adb.port, home, legacy=False),
        "mobile-mcp legacy": lambda: peer_params(args.peer, adb.port, home, legacy=True),
    }.items():
        firsts, fg = [], []
        for _ in range(args.cold):
            clear_peer_leftovers(home, adb)
            t0 = time.perf_counter()
            async with Client(mk(), mode="legacy") as c:
                name = "android_list_devices" if k == "spock-tui" else "mobile_list_available_devices"
                await c.call_tool(name, {})
                firsts.append(time.perf_counter() - t0)
                if k == "spock-tui":
                    dt, _ = await timed(c, "android_get_current_activity", {})
                else:
                    dt, _ = await timed(c, "mobile_get_foreground_app", {"device": serial})
                fg.append(dt)
        out[k] = {"spawn_to_first_list": summary_ms(firsts), "first_foreground": summary_ms(fg)}
        print("cold", k, out[k]["spawn_to_first_list"]["median"], flush=True)
    clear_peer_leftovers(home, adb)
    return out


@contextlib.contextmanager
def peer_lab():
    """The demo virtual device behind a real adb server, a spock-tui instance on it, and a home
    for mobile-mcp; all cleared afterwards. Yields (adb, instance, peer home)."""
    with tempfile.TemporaryDirectory() as td:
        tmp = pathlib.Path(td)
        home = tmp / "peer-home"
        home.mkdir()
        adb = RealAdb(tmp, [DEMO])
        inst = start_instance(tmp, "--adb", adb.endpoint())
        try:
            yield adb, inst, home
        finally:
            clear_peer_leftovers(home, adb)
            inst.stop()
            adb.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", default="/tmp/peer", help="npm --prefix directory holding mobile-mcp")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--cold", type=int, default=5)
    ap.add_argument("--max-seconds", type=float, default=600)
    args = ap.parse_args()
    args.rounds = max(1, min(args.rounds, 500))
    args.cold = max(1, min(args.cold, 20))
    with peer_lab() as (adb, inst, home):
        w = asyncio.run(warm(args, adb, inst, home))
        c = asyncio.run(cold(args, adb, inst, home))
    p = write_json("peer", {"rounds": args.rounds, "warm": w, "cold": c})
    print("wrote", p)


if __name__ == "__main__":
    main()
