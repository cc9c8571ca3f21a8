"""Fail closed (issue 33 review, a9): when the audit trail cannot be written (its disk full), an
approved destructive call is refused before it runs, instead of running with no record; once
the disk has room again, the next one runs and is on record. The trail lives on a 4 MiB tmpfs
(mounted here: root only; skipped otherwise), filled by a junk file as an agent could."""
import os
import subprocess

import mcp_types as types
import pytest
from conftest import call, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

NOTES = {"packageName": "com.example.notes"}


async def approve(ctx, params):
    return types.ElicitResult(action="accept", content={"approve": True})


@pytest.fixture
def small_disk(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    d = tmp_path / "small"
    d.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", str(d)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    yield d
    subprocess.run(["umount", "-l", str(d)], capture_output=True)


def fill(path):
    with open(path, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
                os.fsync(f.fileno())
        except OSError:
            pass


async def packages(c):
    err, r = await call(c, "android_list_packages", {"thirdPartyOnly": True})
    assert not err, r
    return str(r)


async def test_a_destructive_call_whose_record_cannot_be_written_does_not_run(tmp_path, small_disk):
    home = small_disk / "home"
    inst = start_instance(tmp_path, "--demo", home=home, config="[confirm]\nvia_client = true\n")
    try:
        async with Client(inst.relay_params(), mode="legacy", elicitation_callback=approve) as c:
            assert "com.example.notes" in await packages(c)
            junk = small_disk / "junk"
            fill(junk)
            # Records still fit in the page the file already has; a few more calls fill it.
            for _ in range(30):
                err, r = await call(c, "android_get_battery_info")
                assert not err, r
            err, r = await call(c, "android_uninstall_app", NOTES)
            assert err and "audit trail cannot be written" in str(r), r
            # It did not run: the app is still there.
            assert "com.example.notes" in await packages(c)
            junk.unlink()
            # The first call after the disk has room may be refused once more: the writer
            # reports the records it lost meanwhile to the next sync that is waited on.
            for _ in range(2):
                err, r = await call(c, "android_uninstall_app", NOTES)
                if not err:
                    break
                assert "audit trail cannot be written" in str(r), r
            assert not err, r
            assert "com.example.notes" not in await packages(c)
    finally:
        inst.stop()
    lines = (home / "data" / "audit" / "audit.jsonl").read_text().splitlines()
    assert any('"outcome":"ok"' in l and "android_uninstall_app" in l for l in lines), lines[-3:]
