"""HTTP throughput: `tools/call` of a cheap read-only tool as a 2026-07-28 stateless POST
(the body and headers the Python MCP SDK sends in mode="auto", bearer token included), driven by
`wrk` (Debian: `apt-get install -y wrk`) at 1, 16 and 64 connections; requests per second and
p99. Then device scaling: the same load spread over 8 virtual devices behind one adb server
versus all of it on one, with and without a per-reply device delay (the sim's `delay` fault,
which stands in for a real phone's latency and is what a global lock would serialise).

    python3 benches/throughput.py --seconds 10

Every wrk run is bounded by --seconds; traffic goes only to 127.0.0.1.
"""
import argparse
import json
import pathlib
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

from common import DEMO, RealAdb, start_instance, stateless_call, write_json

LUA = r"""
local bodies = { %(bodies)s }
local names = { %(names)s }
local reqs = {}
local n = 0
local bad = 0
function init(args)
  for i, b in ipairs(bodies) do
    reqs[i] = wrk.format("POST", "/mcp", {
      ["Authorization"] = "Bearer %(token)s",
      ["Accept"] = "application/json, text/event-stream",
      ["Content-Type"] = "application/json",
      ["MCP-Protocol-Version"] = "2026-07-28",
      ["Mcp-Method"] = "tools/call",
      ["Mcp-Name"] = names[i],
    }, b)
  end
end
function request()
  n = n + 1
  return reqs[(n %% #reqs) + 1]
end
function response(status, headers, body)
  if status ~= 200 or string.find(body, '"isError":true', 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("JSON {\"p50_us\":%%d,\"p99_us\":%%d,\"errors_status\":%%d}\n",
    latency:percentile(50), latency:percentile(99), summary.errors.status))
end
"""


def lua_script(path, token, calls):
    bodies = ", ".join("[==[" + stateless_call(t, a).decode() + "]==]" for t, a in calls)
    names = ", ".join(f'"{t}"' for t, _ in calls)
    path.write_text(LUA % {"bodies": bodies, "names": names, "token": token})


def wrk(url, script, conns, seconds):
    threads = 1 if conns == 1 else 2
    r = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{conns}", f"-d{seconds}s", "--timeout", "10s", "-s", str(script), url],
        capture_output=True, text=True, timeout=seconds + 60,
    )
    out = r.stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    extra = json.loads(re.search(r"^JSON (.*)$", out, re.M).group(1))
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    sock = re.search(r"Socket errors: (.*)", out)
    return {
        "connections": conns, "threads": threads, "seconds": seconds, "requests": total, "rps": rps,
        "p50_ms": extra["p50_us"] / 1000, "p99_ms": extra["p99_us"] / 1000,
        "non_2xx": int(non2xx.group(1)) if non2xx else 0, "socket_errors": sock.group(1) if sock else "",
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--delay-ms", type=int, default=10, help="per-reply device delay for the scaling run")
    a = ap.parse_args()
    secs = max(1, min(a.seconds, 60))
    if not shutil.which("wrk"):
        raise SystemExit("wrk missing: apt-get install -y wrk")
    out = {"levels": {}, "scaling": {}}
    with tempfile.TemporaryDirectory() as td:
        tmp = pathlib.Path(td)
        adb = RealAdb(tmp, [DEMO] * 8)
        inst = start_instance(tmp, "--adb", adb.endpoint(), config="[device]\ncommand_timeout_ms = 10000\n")
        try:
            s0 = adb.serials[0]
            for label, calls in [
                ("spock_get_status", [("spock_get_status", {})]),
                ("android_get_battery_info (1 device)", [("android_get_battery_info", {"serial": s0})]),
            ]:
                script = tmp / "one.lua"
                lua_script(script, inst.token, calls)
                out["levels"][label] = []
                for c in (1, 16, 64):
                    res = wrk(inst.url, script, c, secs)
                    out["levels"][label].append(res)
                    print(f"{label:38} c={c:3} {res['rps']:9.0f} rps  p50 {res['p50_ms']:7.2f} ms  p99 {res['p99_ms']:7.2f} ms  non2xx {res['non_2xx']}", flush=True)
            for delay in (0, a.delay_ms):
                for s in adb.sim_serials():
                    adb.fault(s, fault="delay", ms=delay) if delay else adb.fault(s, fault="clear")
                scripts = []
                for i, s in enumerate(adb.serials):
                    scripts.append(tmp / f"dev{i}.lua")
                    lua_script(scripts[-1], inst.token, [("android_get_battery_info", {"serial": s})])
                r1 = wrk(inst.url, scripts[0], 1, secs)
                # Eight wrk processes at once, one connection each, one device each.
                with ThreadPoolExecutor(8) as ex:
                    r8 = list(ex.map(lambda sc: wrk(inst.url, sc, 1, secs), scripts))
                total = sum(r["rps"] for r in r8)
                out["scaling"][f"delay_{delay}ms"] = {
                    "one_device_one_client": r1, "eight_devices_one_client_each": r8,
                    "eight_total_rps": total, "ratio": total / r1["rps"],
                    "eight_p99_ms_max": max(r["p99_ms"] for r in r8),
                }
                print(f"device delay {delay:2} ms: one device {r1['rps']:7.0f} rps (p99 {r1['p99_ms']:.2f} ms), "
                      f"eight devices {total:7.0f} rps (worst p99 {max(r['p99_ms'] for r in r8):.2f} ms): ×{total / r1['rps']:.2f}", flush=True)
            for s in adb.sim_serials():
                adb.fault(s, fault="clear")
        finally:
            inst.stop()
            adb.close()
    print("wrote", write_json("throughput", out))


if __name__ == "__main__":
    main()
