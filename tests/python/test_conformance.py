"""The official MCP conformance suite (@modelcontextprotocol/conformance, every server scenario)
against `serve --demo`, through a loopback proxy that adds the bearer token (the suite has no
option for a header). The expected-failures file lists only scenarios that call the suite's own
reference fixtures or a capability spock-tui does not declare; the suite fails the run on any
other failure and on an expected failure that starts passing.

The test command (`bash .ci/test`) installs the suite and the Node 22 it needs into .ci/node."""
import os
import pathlib
import subprocess
import sys

from conftest import ROOT, start_instance

NODE_DIR = ROOT / ".ci" / "node" / "node_modules"
SUITE = NODE_DIR / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
EXPECTED = ROOT / "tests" / "conformance" / "expected-failures.yml"
PROXY = pathlib.Path(__file__).with_name("auth_proxy.py")


def node22() -> pathlib.Path:
    env = os.environ.get("SPOCK_NODE22_BIN")
    dirs = [pathlib.Path(env)] if env else sorted(NODE_DIR.glob("node-linux-*/bin"))
    for d in dirs:
        if (d / "node").is_file():
            return d
    raise AssertionError("Node 22 is not installed in .ci/node: run `bash .ci/test`, which installs it")


def test_conformance_suite_all_server_scenarios(tmp_path):
    assert SUITE.is_file(), f"{SUITE} missing: run `bash .ci/test`, which installs the suite"
    bin_dir = node22()
    inst = start_instance(tmp_path, "--demo")
    proxy = None
    try:
        token_file = tmp_path / "token"
        token_file.write_text(inst.token)
        token_file.chmod(0o600)
        proxy = subprocess.Popen([sys.executable, str(PROXY), inst.base, str(token_file)],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = proxy.stdout.readline().split()
        assert first[:1] == ["listening"], f"proxy did not start: {first} {proxy.stdout.read()}"
        url = f"http://127.0.0.1:{first[1]}/mcp"
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
        r = subprocess.run(
            [str(bin_dir / "node"), str(SUITE), "server", "--url", url, "--suite", "all",
             "--expected-failures", str(EXPECTED), "-o", str(tmp_path / "results")],
            env=env, capture_output=True, text=True, timeout=900,
        )
        out = r.stdout + r.stderr
        (tmp_path / "conformance.log").write_text(out)
        assert r.returncode == 0, f"conformance suite failed ({r.returncode}):\n{out[-6000:]}"
        # The run really ran scenarios (not an empty selection that passes vacuously).
        assert "passed" in out.lower(), out[-3000:]
    finally:
        if proxy is not None:
            proxy.terminate()
            proxy.wait(timeout=10)
        inst.stop()
