"""Every leak path an agent has, tried against the real server on the virtual device over real
adb with agent-only redaction rules (issue 16): zero leaks. The same attack as
`benches/leak_paths.py`, which reports the figures in RELIABILITY.md."""
import json

import pytest
from conftest import have_adb
from leak_attacks import Lab, run_all
from mcp import Client

pytestmark = pytest.mark.anyio


async def test_no_leak_path_reveals_a_secret(tmp_path):
    if not have_adb():
        pytest.skip("no adb binary")
    lab = Lab(tmp_path)
    try:
        async with Client(lab.inst.relay_params(), mode="legacy") as c:
            a = await run_all(c)
    finally:
        lab.close()
    assert len(a.paths) >= 25 and a.probes >= 200, (len(a.paths), a.probes)
    assert a.leaks == [], "\n".join(a.leaks)
    # The person's own records keep what was typed out too.
    audit = [json.loads(l) for l in (lab.inst.home / "data" / "audit" / "audit.jsonl").read_text().splitlines()]
    typed = [r for r in audit if r["tool"] in ("android_input_text", "android_input_text_into_element")]
    # Each password typed is «password»; a form's e-mail field, a plain one, is shown as typed.
    texts = [(r["arguments"]["text"], [f["text"] for f in r["arguments"].get("fields", [])]) for r in typed]
    assert sorted(texts) == sorted([("«password»", [])] * 3 + [("bob@example.com", ["«password»"])] * 2), texts
