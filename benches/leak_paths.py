"""Leak paths (issue 16): the real server (`serve --adb`) on the virtual device over a real adb
server, with agent-only redaction rules; a secret on screen, two in logcat and a typed password;
then every path an agent has to read them (tests/python/leak_attacks.py: logcat and log
`contains` filters with a character-by-character oracle, selectors, find, waits and asserts on
hidden text, screenshot pixels, batch runs, their history and export ZIP, tasks, status,
resources, every read-only tool). Reports paths tried, probes (tool calls) and leaks found.

    python benches/leak_paths.py            # SPOCK_TUI_BIN or the release build
"""
import asyncio
import pathlib
import sys
import tempfile
import time

from common import write_json  # noqa: F401  (sets up conftest, EXE and the release binary)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "python"))
from leak_attacks import Lab, run_all  # noqa: E402
from mcp import Client  # noqa: E402


async def main():
    tmp = pathlib.Path(tempfile.mkdtemp())
    lab = Lab(tmp)
    t = time.monotonic()
    try:
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            a = await run_all(c)
    finally:
        lab.close()
    dt = time.monotonic() - t
    for p in a.paths:
        print(f"  path: {p}")
    for leak in a.leaks:
        print(f"  LEAK: {leak}")
    print(f"{len(a.paths)} leak paths tried with {a.probes} probes in {dt:.1f} s: {len(a.leaks)} leaks")
    out = write_json("leak_paths", {"paths": a.paths, "probes": a.probes, "leaks": a.leaks, "seconds": dt})
    print(f"written {out}")
    sys.exit(1 if a.leaks else 0)


asyncio.run(main())
