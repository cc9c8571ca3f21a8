"""The README's quick start, walked through as a new user follows it (issue 41): in a fresh home
with nothing set but HOME and PATH, the commands run as written, in order: the control centre on
the virtual device in a real terminal (tmux), the client configuration, the Python snippet as
printed (the official SDK over stdio, with the SDK's own trimmed environment), and the MCP
Inspector CLI command over HTTP. Every shell command in the README, docs/ and SECURITY.md is
either run here or listed in EXCEPTIONS with the reason it cannot run in CI (a phone, a client's
own CLI, root on someone's machine); a new command that is neither fails the check."""
import json
import os
import pathlib
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import uuid

import pytest
from conftest import EXE, ROOT

# Commands that do not run in CI, and why.
EXCEPTIONS = {
    "cargo run --release -- --demo":
        "a release build takes minutes; the walk-through runs the binary the tests built (`spock-tui --demo`)",
    "bash .ci/test": "the command that runs this test",
    "cargo install --path . --locked":
        "a release build into ~/.cargo/bin; the walk-through puts the binary the tests built on PATH as `spock-tui`",
    "cargo install --path .": "as above (docs/connecting.md)",
    "systemctl --user daemon-reload && systemctl --user enable --now spock-tui":
        "needs a systemd user session (CI has none)",
    'loginctl enable-linger "$USER"': "needs logind (CI has none)",
    "sudo spock-tui audit verify --anchors /var/log/auth.log":
        "reads the machine's syslog; test_audit_anchors.py runs `audit verify --anchors` on a private rsyslogd's file",
    "sudo groupadd spockagents && sudo useradd --create-home -g spockagents agent":
        "creates users on the machine; test_agent_user.py does the same with its own names",
    'sudo usermod -aG spockagents "$USER"': "as above",
    'sudo install -d -o "$USER" -m 0750 /srv/spock-tui-agent': "writes under /srv; test_agent_user.py makes its own door",
    "spock-tui serve": "the agent-user recipe's server: test_agent_user.py starts one with the same door",
    "sudo unshare --net runuser -u agent -- claude": "needs Claude Code; test_agent_user.py runs a Python agent so",
    "export ADB_SERVER_SOCKET=localfilesystem:$XDG_RUNTIME_DIR/adb/adb.sock":
        "changes the person's profile; test_sandbox_agent.py runs an adb server on a filesystem socket",
    'adb kill-server; mkdir -m 700 -p "$XDG_RUNTIME_DIR/adb"; adb start-server': "as above",
    "spock-tui serve &": "the sandbox recipe's server: test_sandbox_agent.py starts one with the same door",
    "cd ~/project && spock-tui sandbox --rw ~/.claude --rw ~/.claude.json -- claude":
        "needs Claude Code; test_sandbox_agent.py runs `spock-tui sandbox` with a Python agent and an MCP client",
    "spock-tui doctor --capture ./spock-capture":
        "needs the reader's phone; test_capture.py captures the virtual device behind a real adb server so",
    "spock-tui sim --replay DIR --adbd 127.0.0.1:0":
        "DIR is the reader's bundle; test_capture.py replays bundles so, behind a real adb server",
}

# Run by the walk-through below, as written.
RUN = {
    "spock-tui --demo",
    "spock-tui config --stdio --client claude-code",
    "spock-tui config --http  --client cursor",
    "spock-tui config --http  --client codex",
    "spock-tui config --stdio --ssh lab --client cursor",
    "spock-tui tools check examples/tools.d/team.toml",
    "mkdir -p ~/.config/spock-tui/tools.d && cp examples/tools.d/team.toml ~/.config/spock-tui/tools.d/",
}

INSPECTOR_NPX = "npx -y @modelcontextprotocol/inspector@2.12.0"
DOCUMENTS = ["README.md", "SECURITY.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]


def commands(doc: str) -> list[str]:
    """Every command line of the document's shell blocks, without trailing comments."""
    out = []
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", (ROOT / doc).read_text(), re.S):
        if lang not in ("sh", "bash", "shell"):
            continue
        for line in body.splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).rstrip()
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(line)
    return out


def test_every_documented_command_is_run_or_excepted():
    unclassified = []
    for doc in DOCUMENTS:
        for c in commands(doc):
            if c in RUN or c in EXCEPTIONS or c.startswith(INSPECTOR_NPX):
                continue
            unclassified.append(f"{doc}: {c}")
    assert not unclassified, "run these in test_readme.py or list them in EXCEPTIONS with why:\n" + "\n".join(unclassified)
    # And nothing listed is stale.
    everywhere = {c for doc in DOCUMENTS for c in commands(doc)}
    assert not (set(EXCEPTIONS) | RUN) - everywhere, (set(EXCEPTIONS) | RUN) - everywhere


def readme_python() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) == 1, "the README has one Python snippet"
    return blocks[0]


def port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


@pytest.fixture
def fresh(tmp_path):
    """A new user's shell: a fresh HOME, `spock-tui` on PATH, nothing of spock-tui's set."""
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(EXE, bin_dir / "spock-tui")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SPOCK_TUI", "XDG_", "ANDROID_ADB", "ADB_SERVER"))}
    env.update(HOME=str(home), PATH=f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}", TERM="xterm-256color")
    node = os.environ.get("SPOCK_NODE22_BIN")
    if node:
        env["PATH"] = f"{node}:{env['PATH']}"
    return env


def sh(env, line, cwd=ROOT, timeout=60):
    return subprocess.run(["bash", "-c", line], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_the_quick_start_as_written(tmp_path, fresh):
    if shutil.which("tmux") is None:
        pytest.skip("no tmux")
    if not port_free(8765):
        if os.environ.get("CI"):
            pytest.fail("port 8765 is taken: the quick start's HTTP address cannot be checked as written")
        pytest.skip("port 8765 is taken here")
    readme = (ROOT / "README.md").read_text()
    for line in ["cargo install --path . --locked", "spock-tui --demo", "spock-tui config --stdio --client claude-code"]:
        assert line in commands("README.md"), line
    # 2. `spock-tui --demo` in a terminal of its own.
    sock = f"spock-readme-{uuid.uuid4().hex[:8]}"
    env_line = " ".join(f"{k}={shlex.quote(v)}" for k, v in fresh.items() if k in ("HOME", "PATH", "TERM"))
    subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-s", "qs", "-x", "100", "-y", "30",
                    f"env -i {env_line} spock-tui --demo"], check=True, timeout=10)
    try:
        deadline = time.monotonic() + 30
        screen = ""
        while time.monotonic() < deadline:
            screen = subprocess.run(["tmux", "-L", sock, "capture-pane", "-p", "-t", "qs"], capture_output=True,
                                    text=True, timeout=10).stdout
            if "Status" in screen and "127.0.0.1:8765" in screen:
                break
            time.sleep(0.2)
        assert "127.0.0.1:8765" in screen, screen

        # 3. The client configuration: a `claude mcp add …` to run.
        r = sh(fresh, "spock-tui config --stdio --client claude-code")
        assert r.returncode == 0 and r.stdout.startswith("claude mcp add"), (r.stdout, r.stderr)
        assert "relay" in r.stdout
        for line in ["spock-tui config --http  --client cursor", "spock-tui config --http  --client codex",
                     "spock-tui config --stdio --ssh lab --client cursor"]:
            r = sh(fresh, line)
            assert r.returncode == 0 and r.stdout.strip(), (line, r.stdout, r.stderr)
        assert "SPOCK_TUI_TOKEN" in sh(fresh, "spock-tui config --http  --client codex").stdout

        # The Python snippet, as printed, with the SDK's own environment for the relay.
        snippet = tmp_path / "snippet.py"
        snippet.write_text(readme_python())
        r = subprocess.run([sys.executable, str(snippet)], env=fresh, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr[-3000:]
        assert "tools, e.g." in r.stdout and "'state': 'device'" in r.stdout, r.stdout

        # The Inspector CLI line, as written; `npx -y …@2.12.0` is the copy CI installed of that
        # same pinned version (.ci/node), so the test does not fetch it again.
        (line,) = [c for c in commands("README.md") if c.startswith(INSPECTOR_NPX)]
        inspector = ROOT / ".ci" / "node" / "node_modules" / ".bin" / "mcp-inspector"
        if not inspector.exists():
            if os.environ.get("CI"):
                pytest.fail("the MCP Inspector CLI is not in .ci/node")
            pytest.skip("no MCP Inspector CLI in .ci/node")
        installed = json.loads((ROOT / ".ci/node/node_modules/@modelcontextprotocol/inspector/package.json").read_text())
        assert installed["version"] == "2.12.0", installed["version"]
        r = sh(fresh, line.replace(INSPECTOR_NPX, shlex.quote(str(inspector))), timeout=120)
        assert r.returncode == 0, (r.stdout, r.stderr)
        names = {t["name"] for t in json.loads(r.stdout)["tools"]}
        assert "android_list_devices" in names and "spock_enable_toolset" in names, sorted(names)

        # Own tools: check the example, then install it as docs/own-tools.md says.
        r = sh(fresh, "spock-tui tools check examples/tools.d/team.toml")
        assert r.returncode == 0, (r.stdout, r.stderr)
        r = sh(fresh, "mkdir -p ~/.config/spock-tui/tools.d && cp examples/tools.d/team.toml ~/.config/spock-tui/tools.d/")
        assert r.returncode == 0 and (pathlib.Path(fresh["HOME"]) / ".config/spock-tui/tools.d/team.toml").exists()
    finally:
        subprocess.run(["tmux", "-L", sock, "kill-server"], capture_output=True, timeout=10)


# Parses the arguments as the script would, then stops before it measures anything.
PARSE_ONLY = r"""
import argparse, runpy, sys
script, args = sys.argv[1], sys.argv[2:]
real = argparse.ArgumentParser.parse_args
def parse_only(self, *a, **k):
    real(self, *a, **k)
    print("parsed")
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = parse_only
sys.path.insert(0, str(__import__("pathlib").Path(script).parent))
sys.argv = [script, *args]
runpy.run_path(script, run_name="__main__")
raise SystemExit("the script never parsed its arguments")
"""


def measurement_commands() -> list[str]:
    """Every `python3 benches/….py …` and `cargo bench --bench …` the measurement documents give,
    in code blocks or inline."""
    found = []
    for doc in ["BENCHMARKS.md", "RELIABILITY.md", *DOCUMENTS]:
        text = (ROOT / doc).read_text()
        for m in re.finditer(r"(python3 benches/[\w.]+\.py[^`\n#]*|cargo bench --bench \w+)", text):
            found.append(re.sub(r"\s+", " ", m.group(1)).strip())
    return sorted(set(found))


def test_measurement_commands_parse():
    cmds = measurement_commands()
    assert len(cmds) > 10, cmds
    benches = set(re.findall(r'\[\[bench\]\]\s*name\s*=\s*"(\w+)"', (ROOT / "Cargo.toml").read_text()))
    bad = []
    for c in cmds:
        if c.startswith("cargo bench"):
            name = c.split()[-1]
            if name not in benches:
                bad.append(f"{c}: no such bench in Cargo.toml")
            continue
        words = shlex.split(c)
        script, args = words[1], words[2:]
        # The binary under test, for the scripts that look for one before parsing (they take a
        # release build unless SPOCK_TUI_BIN names one).
        r = subprocess.run([sys.executable, "-c", PARSE_ONLY, str(ROOT / script), *args], cwd=ROOT,
                           env={**os.environ, "SPOCK_TUI_BIN": EXE},
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0 or "parsed" not in r.stdout:
            bad.append(f"{c}: {r.stderr.strip()[-400:]}")
    assert not bad, "\n".join(bad)
