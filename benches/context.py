"""Context cost: how many characters of `tools/list` an agent's context pays for, in total and
per tool, for spock-tui and for @mobilenext/mobile-mcp 1.0.4, both read raw off stdio (the
JSON-RPC line exactly as each server wrote it; no SDK re-serialisation).

spock-tui is measured as a client meets it by default (the `core` toolset), with each other
toolset added (`--toolsets X`: what enabling X adds), and with every set (`--toolsets all`).
The sizes do not depend on the build profile (SPOCK_TUI_BIN may name a debug build).

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


SETS = ["ui", "gestures", "apps", "debug", "files", "shell", "batch", "appfunctions", "host"]


def spock(td, toolsets):
    """spock-tui's tools/list with `--toolsets` (None: the default, core only)."""
    d = pathlib.Path(td) / (toolsets or "default")
    d.mkdir()
    inst = start_instance(d, toolsets=toolsets)
    try:
        return tools_list_line([EXE, "relay", str(inst.descriptor_path)], inst.env())
    finally:
        inst.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", default="/tmp/peer")
    a = ap.parse_args()
    out = {"sets": {}}
    with tempfile.TemporaryDirectory() as td:
        default_line, default_msg = spock(td, None)
        out["spock-tui default (core)"] = measure(default_line, default_msg)
        core = {t["name"] for t in default_msg["result"]["tools"]}
        for name in SETS:
            _, msg = spock(td, name)
            added = [t for t in msg["result"]["tools"] if t["name"] not in core]
            chars = len(json.dumps(added, ensure_ascii=False, separators=(",", ":")))
            out["sets"][name] = {"tools": len(added), "tools_array_chars": chars}
        out["spock-tui all"] = measure(*spock(td, "all"))
        entry = pathlib.Path(a.peer) / "node_modules/@mobilenext/mobile-mcp/lib/index.js"
        env = {**os.environ, "MOBILEMCP_DISABLE_TELEMETRY": "1", "HOME": td}
        out["mobile-mcp 1.0.4"] = measure(*tools_list_line(["node", str(entry)], env))
    d, m = out["spock-tui default (core)"], out["mobile-mcp 1.0.4"]
    out["ratio_default_line"] = d["response_line_chars"] / m["response_line_chars"]
    for k in ("spock-tui default (core)", "spock-tui all", "mobile-mcp 1.0.4"):
        v = out[k]
        print(f"{k:25} {v['tools']:3} tools  {v['tools_array_chars']:7} chars  {v['chars_per_tool']:5.0f}/tool  (line {v['response_line_chars']})")
    for name, v in out["sets"].items():
        print(f"  + {name:21} {v['tools']:3} tools  {v['tools_array_chars']:7} chars")
    print(f"default line vs mobile-mcp's whole line: {out['ratio_default_line']:.2f}")
    print("wrote", write_json("context", out))


if __name__ == "__main__":
    main()
