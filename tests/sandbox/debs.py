"""Debian's mksh, busybox-static and toybox, downloaded once into `.ci/debs/` (ignored by git).

`.ci/test` fetches them before the tests; a run outside it fetches them here the first time.
`apt-get download` needs no root; `apt-get update` (only tried as root, only when the download
fails) refreshes empty package lists on a fresh machine. Nothing here installs anything.
"""
from __future__ import annotations

import glob
import os
import pathlib
import subprocess

PACKAGES = ("mksh", "busybox-static", "toybox")
ROOT = pathlib.Path(__file__).resolve().parents[2]
DEBS = ROOT / ".ci" / "debs"


class Unavailable(Exception):
    """The shells could not be had; the message says why and what to run."""


def _have() -> dict[str, str]:
    found = {}
    for p in PACKAGES:
        hits = sorted(glob.glob(str(DEBS / f"{p}_*.deb")))
        if hits:
            found[p] = hits[-1]
    return found


def _download() -> None:
    DEBS.mkdir(parents=True, exist_ok=True)
    missing = [p for p in PACKAGES if p not in _have()]
    cmd = ["apt-get", "download", *missing]
    try:
        r = subprocess.run(cmd, cwd=DEBS, capture_output=True, text=True, timeout=300)
        if r.returncode != 0 and os.geteuid() == 0:
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True, timeout=300)
            r = subprocess.run(cmd, cwd=DEBS, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise Unavailable(f"`{' '.join(cmd)}` could not run: {e}") from e
    if r.returncode != 0:
        raise Unavailable(
            f"`{' '.join(cmd)}` failed (no network or no Debian package lists?): {r.stderr.strip()[-400:]}"
        )


def shells() -> dict:
    """Paths of the extracted binaries, their applet lists and the libraries they need."""
    if len(_have()) < len(PACKAGES):
        _download()
    debs = _have()
    if len(debs) < len(PACKAGES):
        raise Unavailable(f"missing {sorted(set(PACKAGES) - set(debs))} in {DEBS}")
    out = DEBS / "root"
    stamp = DEBS / "root.stamp"
    want = "\n".join(sorted(os.path.basename(d) for d in debs.values()))
    if not stamp.exists() or stamp.read_text() != want:
        subprocess.run(["rm", "-rf", str(out)], check=True)
        for d in debs.values():
            r = subprocess.run(["dpkg", "-x", d, str(out)], capture_output=True, text=True)
            if r.returncode != 0:
                raise Unavailable(f"dpkg -x {d} failed: {r.stderr.strip()}")
        stamp.write_text(want)
    mksh, busybox, toybox = out / "bin/mksh", out / "bin/busybox", out / "bin/toybox"
    for b in (mksh, busybox, toybox):
        if not b.is_file():
            raise Unavailable(f"{b} is not in the extracted packages")
    libs: set[str] = set()
    for b in (mksh, toybox):
        r = subprocess.run(["ldd", str(b)], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            parts = line.split()
            for p in parts:
                if p.startswith("/"):
                    libs.add(p)
    toy = subprocess.run([str(toybox)], capture_output=True, text=True).stdout.split()
    busy = subprocess.run([str(busybox), "--list"], capture_output=True, text=True).stdout.split()
    return {
        "mksh": mksh,
        "busybox": busybox,
        "toybox": toybox,
        "toybox_applets": toy,
        "busybox_applets": busy,
        "libs": sorted(libs),
        "versions": {p: os.path.basename(d) for p, d in debs.items()},
    }
