"""The CI-sized soak: benches/soak.py for 30 s with 16 clients over every transport (the full
run is 10 minutes with 64: RELIABILITY.md). Zero protocol errors, zero unexpected tool errors,
RSS flat once the (here small) call history is full."""
import pathlib
import sys

import pytest
from conftest import EXE

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benches"))
from soak import soak  # noqa: E402

pytestmark = pytest.mark.anyio


async def test_thirty_second_soak():
    s = await soak(EXE, 30, 16, history=200)
    assert s["protocol_errors"] == 0, s["first_errors"]
    assert s["unexpected_tool_errors"] == 0, s["first_errors"]
    assert s["server_alive_at_end"]
    assert all(n > 0 for n in s["by_transport"].values()), s["by_transport"]
    assert s["rss_flat"], s
    assert s["ok"], s
