"""One screenshot call, timed, with the device time the virtual device charged for it: the
≤1024 px JPEG and the full-size PNG, `--rounds` times each, on the latency profile in
$SPOCK_SIM_LATENCY (default `phone`; `instant` for none), behind the real Debian `adb` server.

    python3 benches/shot.py --rounds 5

Per call: wall time at the MCP client, the device commands by kind and their device time
(`{"stats":true}` on the sim's control port, reset before each call).
"""
import os

os.environ.setdefault("SPOCK_SIM_LATENCY", "phone")  # read by `spock-tui sim` (RealAdb)

from common import demo_bench, time_call  # noqa: E402
from mcp import Client  # noqa: E402

CALLS = {
    "≤1024 px JPEG": {"maxSize": 1024, "format": "jpeg"},
    "full-size PNG": {"maxSize": 0, "format": "png"},
}


async def run(args, adb, inst):
    out = {}
    async with Client(inst.relay_params(), mode="legacy") as c:
        await c.call_tool("android_launch_app", {"packageName": "com.example.shop"})
        for label, a in CALLS.items():
            await c.call_tool("android_take_screenshot", a)  # warm-up
            out[label] = r = await time_call(c, adb, "android_take_screenshot", a, args.rounds)
            print(f"{label}: wall {r['wall_ms_median']:.0f} ms, device {r['device_ms_median']:.0f} ms, "
                  f"{sorted(r['commands'])}", flush=True)
    return out


if __name__ == "__main__":
    demo_bench("shot", run, 5)
