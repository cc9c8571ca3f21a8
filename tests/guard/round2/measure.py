#!/usr/bin/env python3
"""Sends every line of catastrophic-round2.jsonl to `android_run_adb_command` on the release
binary under test (`serve --demo --port 0 --toolsets all`, headless) through the Python MCP SDK
and records whether it was refused before anyone was asked.

"refused before asking": the tool answers with an error whose kind is `refused` and whose text
is the guard's (`refused (RULE): ... This command is never run, whatever is approved; it was not
shown for confirmation.`, or names the guard / "cannot read"). Headless serve denies anything that needs a person (kind `denied`, nobody
approved): that line reached the approval step, i.e. it was NOT refused before asking.

usage: .venv/bin/python tests/guard/round2/measure.py [corpus.jsonl] [--bin PATH]
writes measure.tsv (line, family, outcome, kind, error text) and prints the rate.
"""
import asyncio
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = pathlib.Path(__file__).resolve().parent
import os as _os, pathlib as _pl
BIN = _os.environ.get("SPOCK_TUI_BIN", str(_pl.Path(__file__).resolve().parents[3] / "target" / "release" / "spock-tui"))


def start(home: pathlib.Path, exe: str):
    err = open(home.parent / "serve.err", "w")
    proc = subprocess.Popen(
        [exe, "serve", "--port", "0", "--toolsets", "all", "--demo"],
        env={**os.environ, "SPOCK_TUI_HOME": str(home)},
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
    )
    desc = home / "run" / "endpoint.json"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"serve exited {proc.returncode}: {(home.parent / 'serve.err').read_text()}")
        try:
            d = json.loads(desc.read_text())
            if d.get("http") and (d.get("unix") or d.get("tcp")):
                return proc, desc
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("serve did not come up")


def classify(is_error: bool, sc: dict, text: str) -> str:
    if not is_error:
        return "ran"
    kind = (sc or {}).get("kind", "")
    msg = ((sc or {}).get("error", "") + " " + text).lower()
    guard_words = ("guard", "catastroph", "cannot read", "never run, whatever is approved", "not shown for confirmation")
    if kind == "refused" and any(w in msg for w in guard_words):
        return "refused"
    if kind == "refused":
        return "refused-other"
    if kind == "denied":
        return "asked"
    return f"error:{kind}"


async def measure(rows, exe: str):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="guard-round2-"))
    home = tmp / "home"
    proc, desc = start(home, exe)
    out = []
    try:
        params = StdioServerParameters(command=exe, args=["relay", str(desc)],
                                       env={**os.environ, "SPOCK_TUI_HOME": str(home)})
        async with stdio_client(params) as (r, w):
            async with ClientSession(r, w) as c:
                await c.initialize()
                for row in rows:
                    res = await asyncio.wait_for(c.call_tool("android_run_adb_command", {"command": row["cmd"], "reason": "maintenance on the test device"}), 60)
                    text = " ".join(i.text for i in res.content if i.type == "text")
                    sc = res.structured_content or {}
                    out.append((classify(bool(res.is_error), sc, text), sc.get("kind", ""), (sc.get("error") or text)))
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return out


def main():
    argv = sys.argv[1:]
    exe = BIN
    if "--bin" in argv:
        k = argv.index("--bin")
        exe = argv[k + 1]
        del argv[k:k + 2]
    corpus = pathlib.Path(argv[0]) if argv else HERE / "catastrophic-round2.jsonl"
    rows = [json.loads(l) for l in corpus.read_text().splitlines() if l.strip()]
    res = asyncio.run(measure(rows, exe))
    fam = defaultdict(Counter)
    lines = ["line\tfamily\toutcome\tkind\terror"]
    for i, (row, (outcome, kind, err)) in enumerate(zip(rows, res), 1):
        fam[row["family"]][outcome] += 1
        fam[row["family"]]["n"] += 1
        e = " ".join(err.split())[:200]
        lines.append(f"{i}\t{row['family']}\t{outcome}\t{kind}\t{e}")
    n = len(rows)
    refused = sum(o == "refused" for o, _, _ in res)
    lines.append("")
    lines.append("family\tlines\trefused_before_asking\tasked\tother")
    for f, c in sorted(fam.items()):
        lines.append(f"{f}\t{c['n']}\t{c['refused']}\t{c['asked']}\t{c['n'] - c['refused'] - c['asked']}")
    summary = f"{refused} of {n} refused before asking ({100 * refused / n:.1f} %) by {exe}"
    lines.append("")
    lines.append(summary)
    dest = HERE / ("measure.tsv" if corpus.name == "catastrophic-round2.jsonl" else corpus.stem + ".measure.tsv")
    dest.write_text("\n".join(lines) + "\n")
    print(summary)
    print("\n".join(lines[-(len(fam) + 3):-2]))


if __name__ == "__main__":
    main()
