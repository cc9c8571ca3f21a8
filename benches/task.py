"""One whole task on phone-like latency: spock-tui with its best tools against mobile-mcp 1.0.4
in legacy mode (MOBILEMCP_LEGACY_ROBOT=1) with its best tools, on the same virtual device with
the `phone` latency profile (per-command costs from published measurements, BENCHMARKS.md),
behind the same real Debian `adb` server, over stdio through the same Python MCP SDK client.

    npm install --prefix /tmp/peer @mobilenext/mobile-mcp@1.0.4
    python3 benches/task.py --peer /tmp/peer --rounds 3
    python3 benches/task.py --peer /tmp/peer --rounds 1 --latency phone-median

The task, as an agent would do it: open the shop app, sign in with email and password, open the
Espresso Machine, add it to the cart, check the cart total ($249.00: the cart starts empty, so it
holds the one machine added), take a screenshot. Each side calls the tools an agent that reads every answer would call: spock-tui's
element tools with `returnScreen` (settle-and-observe), mobile-mcp's element listing and
coordinates (legacy mode has no refs). The harness reads coordinates and names out of the
answers the way the agent would, so a side that returned too little would fail the task.

Figures per side: wall time of the tool calls, tool calls, device commands (counted at the
virtual device, `{"stats":true}` on its control endpoint) with the device time charged (and the
same commands at the profile's medians, which does not move with the random spread), and
characters of text the agent reads (images are counted apart, by pixels and base64 size). The
loop time adds one model turn per tool call at `--turn-ms` (default 800 ms: the upper end of the
300–800 ms a tool-choosing LLM call takes in tianpan.co, "End-to-End Latency Is Not P99 of Your
LLM Call", 2026-05-05). The last line is the summary the issue asks for.
"""
import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import time

os.environ.setdefault("SPOCK_SIM_LATENCY", "phone")  # read by `spock-tui sim` (RealAdb)

from common import sim_stats as stats, write_json  # noqa: E402
from mcp import Client  # noqa: E402
from peer import peer_lab, peer_params  # noqa: E402

SHOP = "com.example.shop"
REREAD = "mobile-mcp legacy, re-reading before Sign in"
EMAIL, PASSWORD = "me@example.com", "hunter2"


class Side:
    """One server's run of the task: every call timed and measured."""

    def __init__(self, client, show=False):
        self.client = client
        self.show = show
        self.calls = []  # (tool, seconds, text chars, image b64 chars)
        self.texts = []

    async def call(self, tool, args):
        t = time.perf_counter()
        res = await self.client.call_tool(tool, args)
        dt = time.perf_counter() - t
        text = "".join(c.text for c in res.content if getattr(c, "text", None) is not None)
        images = [c for c in res.content if getattr(c, "type", "") == "image"]
        b64 = sum(len(getattr(c, "data", "") or "") for c in images)
        self.calls.append((tool, dt, len(text), b64))
        if self.show:
            print(f"--- {tool} {json.dumps(args)}: {dt * 1000:.0f} ms, {len(text)} chars\n{text}", flush=True)
        if res.is_error:
            raise RuntimeError(f"{tool} failed: {text[:400]}")
        return text, images


def structured(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return {}


def shows(text, needle):
    return needle in text


async def spock_task(side: Side):
    """Launch with the settled screen sent back; fill both fields by name in one call (read
    back and verified once); tap by name with the settled screen sent back; the last tap also
    returns the screenshot."""
    t, _ = await side.call("android_launch_app", {"packageName": SHOP, "returnScreen": "tree"})
    assert shows(t, "login_email") and shows(t, "login_password"), t[:500]
    t, _ = await side.call("android_input_text_into_element", {
        "element": "login_email", "text": EMAIL,
        "fields": [{"element": "login_password", "text": PASSWORD}]})
    assert structured(t).get("verified") is True, t
    t, _ = await side.call("android_tap_element", {"element": "Sign in", "returnScreen": "tree"})
    assert shows(t, "Espresso Machine"), t[:500]
    t, _ = await side.call("android_tap_element", {"element": "Espresso Machine", "returnScreen": "tree"})
    assert shows(t, "Add to cart"), t[:500]
    t, _ = await side.call("android_tap_element", {"element": "Add to cart", "returnScreen": "tree"})
    assert shows(t, "View cart"), t[:500]
    t, imgs = await side.call("android_tap_element", {"element": "View cart", "returnScreen": "both"})
    assert shows(t, "Total: $249.00") and imgs, t[:500]


ELEMENT = re.compile(r"^(?P<head>.*?) at=(?P<x>\d+),(?P<y>\d+) size=(?P<w>\d+)x(?P<h>\d+)")


def center(listing, needle):
    """The centre of the first listed element whose line holds `needle` (as an agent reads it)."""
    for line in listing.splitlines():
        m = ELEMENT.match(line)
        if m and needle in m["head"]:
            return int(m["x"]) + int(m["w"]) // 2, int(m["y"]) + int(m["h"]) // 2
    raise AssertionError(f"{needle} not listed:\n{listing[:800]}")


async def mobile_task(side: Side, serial, reread=False):
    """mobile-mcp's best: list, then tap at the listed centres. With `reread`, the agent lists
    the login screen again after typing before it taps Sign in, which is what spock-tui's rule
    (never act on a screen read before something was sent) costs it; `--peer-rereads`."""
    d = {"device": serial}
    t, _ = await side.call("mobile_list_available_devices", {})
    assert serial in t, t
    await side.call("mobile_launch_app", {**d, "packageName": SHOP})
    login, _ = await side.call("mobile_list_elements_on_screen", d)
    for field, value in (("login_email", EMAIL), ("login_password", PASSWORD)):
        x, y = center(login, field)
        await side.call("mobile_click_on_screen_at_coordinates", {**d, "x": x, "y": y})
        await side.call("mobile_type_keys", {**d, "text": value, "submit": False})
    if reread:
        login, _ = await side.call("mobile_list_elements_on_screen", d)
    x, y = center(login, '"Sign in"')
    await side.call("mobile_click_on_screen_at_coordinates", {**d, "x": x, "y": y})
    for tap, expect in (("Espresso Machine", "Add to cart"), ("Add to cart", "View cart"), ("View cart", "Total: $249.00")):
        listing, _ = await side.call("mobile_list_elements_on_screen", d)
        x, y = center(listing, f'"{tap}"')
        await side.call("mobile_click_on_screen_at_coordinates", {**d, "x": x, "y": y})
    listing, _ = await side.call("mobile_list_elements_on_screen", d)
    assert "Total: $249.00" in listing, listing[:800]
    _, imgs = await side.call("mobile_take_screenshot", d)
    assert imgs


def reset_device(adb, serial):
    """Back to a signed-out shop behind the launcher, then zero the device's meter."""
    adb.adb("-s", serial, "shell", f"pm clear {SHOP}", check=False)
    adb.adb("-s", serial, "shell", "input keyevent KEYCODE_HOME", check=False)


async def run(args, adb, inst, home):
    serial = adb.serials[0]
    sides = [("spock-tui", "spock"), ("mobile-mcp legacy", "mobile")]
    if args.peer_rereads:
        sides.append((REREAD, "mobile"))
    rounds = {name: [] for name, _ in sides}
    async with Client(inst.relay_params(), mode="legacy") as spock, \
            Client(peer_params(args.peer, adb.port, home, legacy=True), mode="legacy") as mobile:
        for r in range(args.rounds):
            for name, which in sides:
                client = spock if which == "spock" else mobile
                reset_device(adb, serial)
                stats(adb, reset=True)
                side = Side(client, args.show)
                t0 = time.perf_counter()
                if name == "spock-tui":
                    await spock_task(side)
                else:
                    await mobile_task(side, serial, reread=name == REREAD)
                wall = time.perf_counter() - t0
                dev = stats(adb)
                rounds[name].append({
                    "wall_ms": wall * 1000,
                    "calls": len(side.calls),
                    "text_chars": sum(c[2] for c in side.calls),
                    "image_b64_chars": sum(c[3] for c in side.calls),
                    "device_commands": dev["total_commands"],
                    "device_ms": dev["total_device_ms"],
                    "device_median_ms": dev["total_median_ms"],
                    "by_command": dev["commands"],
                    "per_call": [{"tool": c[0], "ms": round(c[1] * 1000, 1), "text_chars": c[2]} for c in side.calls],
                })
                print(f"round {r + 1} {name}: {wall * 1000:.0f} ms, {len(side.calls)} calls, "
                      f"{dev['total_commands']} device commands ({dev['total_device_ms']} ms device time), "
                      f"{rounds[name][-1]['text_chars']} text chars", flush=True)
    return rounds


def med(rows, key):
    return statistics.median(r[key] for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", default="/tmp/peer", help="npm --prefix directory holding mobile-mcp")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--turn-ms", type=float, default=800.0,
                    help="model latency per tool call for the loop time (default 800, see the module doc)")
    ap.add_argument("--show", action="store_true", help="print every answer the agent reads")
    ap.add_argument("--latency", default=os.environ["SPOCK_SIM_LATENCY"],
                    help="the virtual device's profile: phone (default; costs drawn in median ± spread) "
                         "or phone-median (every command at its median, so runs compare without the draw)")
    ap.add_argument("--peer-rereads", action="store_true",
                    help="also run mobile-mcp with its agent listing the login screen again after typing, "
                         "before it taps Sign in (spock-tui's never-stale rule), reported apart from the last line")
    args = ap.parse_args()
    os.environ["SPOCK_SIM_LATENCY"] = args.latency
    args.rounds = max(1, min(args.rounds, 20))
    with peer_lab() as (adb, inst, home):
        rounds = asyncio.run(run(args, adb, inst, home))
    s, m = rounds["spock-tui"], rounds["mobile-mcp legacy"]
    summary = {}
    for name, rows in rounds.items():
        calls = med(rows, "calls")
        summary[name] = {
            "wall_ms": med(rows, "wall_ms"),
            "calls": calls,
            "text_chars": med(rows, "text_chars"),
            "image_b64_chars": med(rows, "image_b64_chars"),
            "device_commands": med(rows, "device_commands"),
            "device_ms": med(rows, "device_ms"),
            "device_median_ms": med(rows, "device_median_ms"),
            "loop_ms": med(rows, "wall_ms") + calls * args.turn_ms,
        }
        print(f"{name}: device commands {summary[name]['device_commands']:.0f} "
              f"({summary[name]['device_ms']:.0f} ms device time), loop at {args.turn_ms:.0f} ms/turn "
              f"{summary[name]['loop_ms']:.0f} ms; by command {rows[-1]['by_command']}")
    p = write_json("task", {"rounds": rounds, "summary": summary, "turn_ms": args.turn_ms})
    print("wrote", p)
    a, b = summary["spock-tui"], summary["mobile-mcp legacy"]
    print(f"device time: spock-tui {a['device_ms']:.0f} ms vs mobile-mcp {b['device_ms']:.0f} ms as charged "
          f"(×{b['device_ms'] / a['device_ms']:.2f}); at the profile's medians {a['device_median_ms']:.0f} "
          f"vs {b['device_median_ms']:.0f} ms (×{b['device_median_ms'] / a['device_median_ms']:.2f})")
    if REREAD in summary:
        c = summary[REREAD]
        print(f"{REREAD}: {c['wall_ms']:.0f} ms wall (spock-tui ×{c['wall_ms'] / a['wall_ms']:.2f}), "
              f"{c['calls']:.0f} calls, device time {c['device_ms']:.0f} ms, at the medians {c['device_median_ms']:.0f} ms "
              f"(spock-tui ×{c['device_median_ms'] / a['device_median_ms']:.2f})")
    print(f"profile: {args.latency}")
    print(f"task: spock-tui {a['wall_ms']:.0f} ms vs mobile-mcp {b['wall_ms']:.0f} ms "
          f"(×{b['wall_ms'] / a['wall_ms']:.2f} wall), {a['calls']:.0f} vs {b['calls']:.0f} calls "
          f"(×{b['calls'] / a['calls']:.2f}), {a['text_chars']:.0f} vs {b['text_chars']:.0f} response chars "
          f"(×{b['text_chars'] / a['text_chars']:.2f})")


if __name__ == "__main__":
    sys.exit(main())
