"""One scroll, timed, with the device commands it took: `android_scroll` right after an
`android_get_ui_tree` of the demo shop's home list, with and without `returnScreen: tree`, on
the latency profile in $SPOCK_SIM_LATENCY (default `phone-median`: every command at its median,
so two builds compare without the draw), behind the real Debian `adb` server.

    python3 benches/scroll.py --rounds 3

Per call: wall time at the MCP client, `uiautomator dump` commands and the device time charged
(`{"stats":true}` on the sim's control port, reset after the read).
"""
import os

os.environ.setdefault("SPOCK_SIM_LATENCY", "phone-median")  # read by `spock-tui sim` (RealAdb)

from common import demo_bench, time_call  # noqa: E402
from mcp import Client  # noqa: E402

CALLS = {
    "scroll, returnScreen tree": {"direction": "forward", "returnScreen": "tree"},
    "scroll": {"direction": "forward"},
}


async def read(c):
    await c.call_tool("android_get_ui_tree", {"compact": True})


async def run(args, adb, inst):
    out = {}
    async with Client(inst.relay_params(), mode="legacy") as c:
        await c.call_tool("android_launch_app", {"packageName": "com.example.shop"})
        # The demo account: the shop refuses Sign in without it.
        await c.call_tool("android_input_text_into_element", {
            "element": "login_email", "text": "me@example.com",
            "fields": [{"element": "login_password", "text": "hunter2"}]})
        await c.call_tool("android_tap_element", {"element": "sign_in"})
        for label, a in CALLS.items():
            out[label] = r = await time_call(c, adb, "android_scroll", a, args.rounds, before=read)
            dumps = r["commands"].get("uiautomator dump", {}).get("count", 0)
            print(f"{label}: wall {r['wall_ms_median']:.0f} ms, device {r['device_ms_median']:.0f} ms, "
                  f"{dumps} UI dumps", flush=True)
    return out


if __name__ == "__main__":
    demo_bench("scroll", run, 3)
