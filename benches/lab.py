"""A lab of three hosts (two real Debian adb servers and a virtual device's adb-server front
door, four devices, loopback only; the harness of tests/python/test_lab.py): how long a call to
a device on a healthy server and a listing take while another server is frozen (SIGSTOP), and
how long a listing takes while one phone hangs.

    python3 benches/lab.py [--calls 20] [--phase-limit 60]   (SPOCK_TUI_BIN picks the binary)

Every phase is bounded in calls and in seconds; the JSON result goes to stdout.
"""
import argparse
import asyncio
import json
import sys
import tempfile
import time
import pathlib

from common import summary_ms, start_instance  # noqa: F401  (sets up the fixtures' EXE)
import test_lab  # tests/python, on the path through common
from conftest import call
from mcp import Client


async def timed_calls(c, name, args, n, limit_s):
    took = []
    errors = 0
    t_end = time.monotonic() + limit_s
    for _ in range(n):
        if time.monotonic() > t_end:
            break
        t0 = time.monotonic()
        err, _ = await call(c, name, args)
        took.append(time.monotonic() - t0)
        errors += bool(err)
    return {**summary_ms(took), "errors": errors}


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--phase-limit", type=float, default=60.0)
    a = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="spock-lab-"))
    lab = test_lab.Lab(tmp)
    inst = None
    out = {}
    try:
        inst = start_instance(tmp, "--adb", lab.a.endpoint, "--adb", lab.b.endpoint, "--adb", lab.f)
        async with Client(inst.relay_params(), mode="legacy") as c:
            deadline = time.monotonic() + 30
            while True:
                err, r = await call(c, "android_list_devices")
                if not err and len(r["devices"]) == 4:
                    break
                assert time.monotonic() < deadline, r
                await asyncio.sleep(0.2)
            healthy = {"serial": lab.d2}
            n, lim = a.calls, a.phase_limit
            out["all_up"] = {
                "call_on_B": await timed_calls(c, "android_get_current_activity", healthy, n, lim),
                "listing": await timed_calls(c, "android_list_devices", {}, n, lim),
            }
            lab.a.freeze()
            try:
                out["A_frozen"] = {
                    "call_on_B": await timed_calls(c, "android_get_current_activity", healthy, n, lim),
                    "listing": await timed_calls(c, "android_list_devices", {}, n, lim),
                    "call_on_B_after_listing": await timed_calls(c, "android_get_current_activity", healthy, n, lim),
                }
            finally:
                lab.a.thaw()
            await asyncio.sleep(3)
            for command in ("dumpsys", "getprop"):
                lab.sim.fault(lab.sim_serial[lab.d4], fault="hang", command=command)
            out["one_phone_hung"] = {"listing": await timed_calls(c, "android_list_devices", {}, n, lim)}
            lab.sim.fault(lab.sim_serial[lab.d4], fault="clear")
    finally:
        if inst:
            inst.stop()
        lab.close()
    json.dump({"binary": test_lab.EXE, "results": out}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    asyncio.run(main())
