"""Progress (issue 20): a call carrying a progressToken gets notifications/progress with a
message while a long tool runs (here android_wait_for_element, each poll), in both HTTP eras
and over stdio; never more than ~4 a second; none without a token."""
import time

import pytest
from conftest import start_instance
from protocol_common import ERAS, connected

pytestmark = pytest.mark.anyio


@pytest.fixture
def demo(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    yield inst
    inst.stop()


@pytest.mark.parametrize("transport,mode", ERAS)
async def test_a_long_wait_reports_each_poll(demo, transport, mode):
    updates = []

    async def on_progress(progress, total, message):
        updates.append((time.monotonic(), progress, total, message))

    async with connected(demo, transport, mode) as c:
        started = time.monotonic()
        res = await c.call_tool("android_wait_for_element", {"element": "never-there-xyz", "timeoutMs": 2500},
                                progress_callback=on_progress)
        took = time.monotonic() - started
    assert res.is_error and res.structured_content["kind"] == "timeout", res.structured_content
    assert len(updates) >= 2, updates
    assert all("poll" in m and "never-there-xyz" in m for _, _, _, m in updates), updates
    progress = [p for _, p, _, _ in updates]
    assert progress == sorted(progress) and len(set(progress)) == len(progress), progress
    # At most ~4 a second (a generous bound: one more than the call's length allows).
    assert len(updates) <= 4 * took + 1, (len(updates), took)
