"""The floor of the side-by-side benchmark: an MCP stdio server that does nothing. It answers
`initialize`, `tools/list` (one tool, `noop`) and every `tools/call` at once with a fixed
result, written as raw JSON lines with no SDK, so timing a call to it measures only the Python
client, the pipes and the process wake-ups every stdio server pays for.

    python3 benches/null_server.py   (spawned by peer.py)
"""
import json
import sys

TOOL = {"name": "noop", "inputSchema": {"type": "object"}}


def main():
    for line in sys.stdin:
        try:
            m = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "id" not in m:
            continue
        method = m.get("method")
        if method == "initialize":
            version = m.get("params", {}).get("protocolVersion", "2025-11-25")
            r = {"protocolVersion": version, "capabilities": {"tools": {}},
                 "serverInfo": {"name": "null", "version": "1"}}
        elif method == "tools/list":
            r = {"tools": [TOOL]}
        elif method == "tools/call":
            r = {"content": [{"type": "text", "text": "{}"}]}
        else:
            r = {}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
