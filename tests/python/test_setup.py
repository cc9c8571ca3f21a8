"""The README's test command checks its prerequisites before any build: without adb and tmux,
and not root, it names the exact install line and stops within seconds (as root it installs
them itself, which is what CI exercises on a fresh machine)."""
import os
import shutil
import subprocess
import tempfile
import time

import pytest

from conftest import ROOT


def path_without(dirs, hidden, into):
    """A PATH directory holding every program of `dirs` except `hidden`."""
    os.makedirs(into, exist_ok=True)
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            target = os.path.join(into, name)
            if name in hidden or os.path.lexists(target):
                continue
            os.symlink(os.path.join(d, name), target)
    return into


@pytest.mark.skipif(os.geteuid() == 0 and shutil.which("setpriv") is None, reason="needs setpriv to drop root")
def test_missing_prerequisites_are_named_before_any_build():
    # Outside pytest's private tmp (0700 under root) so an unprivileged user can run it.
    work = tempfile.mkdtemp(prefix="spock-setup-")
    try:
        os.chmod(work, 0o755)
        shutil.copytree(ROOT / ".ci", os.path.join(work, ".ci"), ignore=shutil.ignore_patterns("node", "debs"))
        dirs = os.environ.get("PATH", "").split(os.pathsep)
        fake = path_without(dirs, {"adb", "tmux"}, os.path.join(work, "bin"))
        for root, ds, fs in os.walk(work):
            for n in ds + fs:
                p = os.path.join(root, n)
                if not os.path.islink(p):
                    os.chmod(p, 0o755)
        cmd = ["bash", os.path.join(work, ".ci", "test")]
        if os.geteuid() == 0:
            cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
        start = time.monotonic()
        r = subprocess.run(cmd, env={"PATH": fake, "HOME": work}, capture_output=True, text=True, timeout=60)
        took = time.monotonic() - start
        assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
        assert "missing adb tmux" in r.stderr, r.stderr
        assert "apt-get install adb tmux" in r.stderr, r.stderr
        # Nothing was built or installed: the check ran first.
        assert "Compiling" not in r.stdout + r.stderr
        assert not os.path.exists(os.path.join(work, ".venv"))
        assert took < 30, took
    finally:
        shutil.rmtree(work, ignore_errors=True)
