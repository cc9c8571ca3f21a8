"""Context cost: how many characters of `tools/list` an agent's context pays for, in total and
per tool, for spock-tui and for @mobilenext/mobile-mcp 1.0.4, both read raw off stdio (the
JSON-RPC line exactly as each server wrote it; no SDK re-serialisation).

    python3 benches/context.py --peer /tmp/peer
"""
import argparse
import json
import os
import pathlib
import subprocess
import tempfile

from common import EXE, start_instance, write_json

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "spock-bench", "version": "0.1.0"}},
}


def tools_list_line(cmd, env, timeout=60):
    msgs = [INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}]
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    try:
        p.stdin.write("".join(json.dumps(m) + "\n" for m in msgs))
        p.stdin.flush()
        for _ in range(100):  # bounded: a handful of lines come before the answer
            line = p.stdout.readline()
            if not line:
                break
            try:
                m = json.loads(line)
            except json.JSONDecodeError:
                continue
            if m.get("id") == 2:
                return line.rstrip("\n"), m
        raise RuntimeError("no tools/list answer")
    finally:
        p.kill()
        p.wait(timeout=timeout)


def measure(line, msg):
    tools = msg["result"]["tools"]
    per = {t["name"]: len(json.dumps(t, ensure_ascii=False, separators=(",", ":"))) for t in tools}
    total = len(json.dumps(tools, ensure_ascii=False, separators=(",", ":")))
    return {
        "tools": len(tools),
        "response_line_chars": len(line),
        "tools_array_chars": total,
        "chars_per_tool": total / len(tools),
        "largest": sorted(per.items(), key=lambda kv: -kv[1])[:5],
        "smallest": sorted(per.items(), key=lambda kv: kv[1])[:3],
        "per_tool": per,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", default="/tmp/peer")
    a = ap.parse_args()
    out = {}
    with tempfile.TemporaryDirectory() as td:
        inst = start_instance(pathlib.Path(td))
        try:
            out["spock-tui"] = measure(*tools_list_line([EXE, "relay", str(inst.descriptor_path)], inst.env()))
        finally:
            inst.stop()
        entry = pathlib.Path(a.peer) / "node_modules/@mobilenext/mobile-mcp/lib/index.js"
        env = {**os.environ, "MOBILEMCP_DISABLE_TELEMETRY": "1", "HOME": td}
        out["mobile-mcp 1.0.4"] = measure(*tools_list_line(["node", str(entry)], env))
    s, m = out["spock-tui"], out["mobile-mcp 1.0.4"]
    out["ratio_per_tool"] = s["chars_per_tool"] / m["chars_per_tool"]
    for k in ("spock-tui", "mobile-mcp 1.0.4"):
        v = out[k]
        print(f"{k:18} {v['tools']:3} tools  {v['tools_array_chars']:7} chars  {v['chars_per_tool']:7.0f}/tool  (line {v['response_line_chars']})")
    print(f"per-tool ratio spock/mobile-mcp: {out['ratio_per_tool']:.2f}")
    print("wrote", write_json("context", out))


if __name__ == "__main__":
    main()
