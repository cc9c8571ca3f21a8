"""One screenshot call, timed, with the device time the virtual device charged for it: the
≤1024 px JPEG and the full-size PNG, `--rounds` times each, on the latency profile in
$SPOCK_SIM_LATENCY (default `phone`; `instant` for none), behind the real Debian `adb` server.

    python3 benches/shot.py --rounds 5

Per call: wall time at the MCP client, the device commands by kind and their device time
(`{"stats":true}` on the sim's control port, reset before each call).
"""
import argparse
import asyncio
import json
import os
import pathlib
import statistics
import tempfile
import time

os.environ.setdefault("SPOCK_SIM_LATENCY", "phone")  # read by `spock-tui sim` (RealAdb)

from common import DEMO, RealAdb, start_instance, write_json  # noqa: E402
from mcp import Client  # noqa: E402

CALLS = {
    "≤1024 px JPEG": {"maxSize": 1024, "format": "jpeg"},
    "full-size PNG": {"maxSize": 0, "format": "png"},
}


def stats(adb, reset=False):
    sim = adb.sim_serials()[0]
    return json.loads(adb.fault(sim, stats=True, reset=reset))["stats"][sim]


async def run(args, adb, inst):
    out = {}
    async with Client(inst.relay_params(), mode="legacy") as c:
        await c.call_tool("android_launch_app", {"packageName": "com.example.shop"})
        for label, a in CALLS.items():
            await c.call_tool("android_take_screenshot", a)  # warm-up
            rows = []
            for _ in range(args.rounds):
                stats(adb, reset=True)
                t = time.perf_counter()
                res = await c.call_tool("android_take_screenshot", a)
                wall = (time.perf_counter() - t) * 1000
                assert not res.is_error, res
                dev = stats(adb)
                rows.append({"wall_ms": wall, "device_ms": dev["total_device_ms"], "by_command": dev["commands"]})
            out[label] = {
                "wall_ms_median": statistics.median(r["wall_ms"] for r in rows),
                "device_ms_median": statistics.median(r["device_ms"] for r in rows),
                "commands": rows[-1]["by_command"],
                "rounds": rows,
            }
            print(f"{label}: wall {out[label]['wall_ms_median']:.0f} ms, device "
                  f"{out[label]['device_ms_median']:.0f} ms, {sorted(out[label]['commands'])}", flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    args.rounds = max(1, min(args.rounds, 50))
    with tempfile.TemporaryDirectory() as td:
        tmp = pathlib.Path(td)
        adb = RealAdb(tmp, [DEMO])
        inst = start_instance(tmp, "--adb", adb.endpoint())
        try:
            out = asyncio.run(run(args, adb, inst))
        finally:
            inst.stop()
            adb.close()
    p = write_json("shot", {"profile": os.environ["SPOCK_SIM_LATENCY"], "rounds": args.rounds, "calls": out})
    print("wrote", p)


if __name__ == "__main__":
    main()
