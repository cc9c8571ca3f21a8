"""Runs corpus commands in the sandbox (`jail.py`) with both shells and judges each run.

`Sandbox.start(n)` builds the template once in a fresh world-readable directory under the system
temp dir (the namespace uids own nothing else and must be able to read it), starts `n` jails,
and checks with a probe that they really run commands; `Sandbox.run(items)` spreads the items
over the jails; `close()` stops them and removes the directory.
"""
from __future__ import annotations

import json
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile
import threading

from . import debs, tree

HERE = pathlib.Path(__file__).resolve().parent
SHELLS = ("mksh", "busybox")


class Unavailable(Exception):
    """The sandbox cannot run here; the message says why. Nothing ran unsandboxed."""


class Jail:
    def __init__(self, base: pathlib.Path, template: pathlib.Path, i: int):
        work = base / f"work{i}"
        for d in (work, work / "root", work / "scratch"):
            d.mkdir()
            os.chmod(d, 0o755)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(base / "jail.py"), str(template), str(work)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        first = self.proc.stdout.readline()
        try:
            hello = json.loads(first) if first else {}
        except json.JSONDecodeError:
            hello = {}
        if not hello.get("ready"):
            err = hello.get("fatal") or (first + self.proc.stderr.read())[-600:]
            self.proc.kill()
            raise Unavailable(f"the sandbox did not start: {err.strip() or 'no output'}")

    def run(self, req: dict) -> dict:
        """One request; the jail is killed if it does not answer well after the command's own
        time limit (the jail enforces that limit inside; this one guards the jail itself)."""
        watchdog = threading.Timer(float(req.get("limit", 5)) + 30, self.proc.kill)
        watchdog.start()
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        finally:
            watchdog.cancel()
        if not line:
            raise RuntimeError(f"the sandbox died or hung: {self.proc.stderr.read()[-600:]}")
        return json.loads(line)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


class Sandbox:
    def __init__(self) -> None:
        self.base: pathlib.Path | None = None
        self.jails: list[Jail] = []
        self.markers = tree.marker_paths()
        self.versions: dict = {}
        self.read_only: list[tuple[str, str]] = []

    @classmethod
    def start(cls, workers: int = 2) -> "Sandbox":
        if os.geteuid() != 0:
            raise Unavailable(
                "the sandbox needs root outside (CI runs as root) to map an unprivileged uid "
                "inside a new user namespace; run as root to prove the corpora"
            )
        try:
            shells = debs.shells()
        except debs.Unavailable as e:
            raise Unavailable(f"Debian's shells are not available: {e}") from e
        sb = cls()
        sb.versions = shells["versions"]
        sb.base = pathlib.Path(tempfile.mkdtemp(prefix="spock-guard-sandbox-"))
        try:
            os.chmod(sb.base, 0o755)
            shutil.copy2(HERE / "jail.py", sb.base / "jail.py")
            os.chmod(sb.base / "jail.py", 0o644)
            sb.read_only = tree.build_template(sb.base / "template", shells)
            for i in range(workers):
                sb.jails.append(Jail(sb.base, sb.base / "template", i))
            probe = sb.jails[0].run(sb.request("id -u; echo probe-ok", "mksh"))
            if "error" in probe or "probe-ok" not in probe.get("output", ""):
                raise Unavailable(f"the sandbox probe failed: {probe}")
            if probe["output"].split()[0] != "2000":
                raise Unavailable(f"the sandbox probe ran as uid {probe['output'].split()[0]}, not 2000")
        except BaseException:
            sb.close()
            raise
        return sb

    def request(self, cmd: str, shell: str, limit: float = 5.0) -> dict:
        return {"cmd": cmd, "shell": shell, "limit": limit, "markers": self.markers, "ro": self.read_only}

    def run(self, reqs: list[dict]) -> list[dict]:
        """Runs every request on some jail; results in the same order."""
        todo: queue.Queue = queue.Queue()
        for i, r in enumerate(reqs):
            todo.put((i, r))
        results: list[dict | None] = [None] * len(reqs)
        errors: list[BaseException] = []

        def work(j: Jail) -> None:
            while True:
                try:
                    i, r = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    results[i] = j.run({**r, "id": i})
                except BaseException as e:  # surfaced after the join
                    errors.append(e)
                    return

        threads = [threading.Thread(target=work, args=(j,)) for j in self.jails]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        return results  # type: ignore[return-value]

    def close(self) -> None:
        for j in self.jails:
            j.close()
        self.jails = []
        if self.base and self.base.exists():
            shutil.rmtree(self.base, ignore_errors=True)
