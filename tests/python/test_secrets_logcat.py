"""A private key an app logs reaches logcat one entry per line (issue 32 item 2): read through
the Python MCP SDK, against the virtual device behind real adb, no filter of
android_get_logcat returns a line of it; and each shape a password, token or API key is
written in (item 6) shows the marker."""
import json
import re
import shutil

import pytest
from conftest import ROOT, RealAdb, call, have_adb, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

# A throwaway RSA key made for this test (`openssl genpkey -algorithm RSA`), never used.
KEY = """-----BEGIN PRIVATE KEY-----
MIICeQIBADANBgkqhkiG9w0BAQEFAASCAmMwggJfAgEAAoGBAJT4GSbaBBQNkWcp
PREFvLNk4qy95DKNVzKCljdEV4vATIzqgoHpK8B9tr/PWKEjT+4IscjugeaN6nZd
OBU6eMjhYmUSqoBIdiNpnlDOucK0Y9qQoC4ThHrD+m/v/j1SmArH1fWr0KZ0amw3
RWFe/bngeZBBCz1wO6Gq2MD3RQhZAgMBAAECgYEAlC4tpq3avK+6YOluaw5P5AqI
R9gjs/1QLVgkYBlFFChWfR2Qb/UmpjTmoel4eeEMUvSnE/3bjSDBhre3X7ZoCbVQ
lf1U32UUnS1XLnwfU6H1RSs+cnfSGn+wZIO1oPV6+VEROUvjBL5ky0WYfSu1Ai9V
rlk8grk0GQMcwVlNxAECQQDFXtJNpa3g6zAvuD6EOL7QOs4gj7AVnU5ZncptEIvQ
6kbySU0aebiUw1LFVsiMeiA4BOPPljO8uAWjdfZTqrQZAkEAwTiRFtSIaZWzf9A0
6f7EGKcXqropmZMAVPzd2vqOOOFw4WQfatyb63mKM/ENX9hwbmRUq+kut9SfTptI
h7F+QQJBAJbwD/aPmKzkT6J+zViCqPJHtnFSUYAGH/AK6s6Dk9k+AOmzQwLXSWCD
C16dIpvDnbYZjzqmjIRrWuyJ/so3RqkCQQCPB5GXZdJo3lEWfwh8YoPEgAQr9EyR
C1lGkDymOa0H/BH0NopvL0kYIUslsf2lgnGPtiNbcmyL1g/rP1WMZN5BAkEAg0Vt
lLdj08ur44OLxM2Xry+m79Q8f5QHtHpwM1LJgSGuVb5eD3bo6L4Wv1Echf83wmME
9iORGbd4pVEum4dcXg==
-----END PRIVATE KEY-----"""
BODY = [l for l in KEY.splitlines() if not l.startswith("-----")]
KEY_LINES = KEY.splitlines()

# (what an app logs, what the agent must be shown of it)
SHAPES = [
    ('{"username":"bob","password":"Tr0ub4dor&3"}', '"password":"«redacted:password»"'),
    ("db_password: s3cr3t-Pa55", "db_password: «redacted:password»"),
    ("exec mysql --password hunter2xyz shop", "--password «redacted:password»"),
    ("MYSQL_ROOT_PASSWORD=Sup3rS3cret", "MYSQL_ROOT_PASSWORD=«redacted:password»"),
    ('{"access_token":"ya29.a0AfH6SMBx3Zq"}', '"access_token":"«redacted:token»"'),
    ("refresh ok token=8f14e45fceea167a5a36dedd4bea2543", "token=«redacted:token»"),
    ("gh auth login --token 0a1b2c3d4e5f6a7b8c9d", "--token «redacted:token»"),
    ("GITHUB_TOKEN=xoxb-1234abcd", "GITHUB_TOKEN=«redacted:token»"),
    ('{"apiKey": "sk_live_51H8xYzAbCdEf"}', '"apiKey": "«redacted:api-key»"'),
    ("x-api-key: 9f86d081884c7d659a2feaa0", "x-api-key: «redacted:api-key»"),
    ("OPENWEATHER_API_KEY=9f86d081884c7d65", "OPENWEATHER_API_KEY=«redacted:api-key»"),
    ("Authorization: Basic Ym9iOmh1bnRlcjI=", "Basic «redacted:authorization»"),
]
SECRETS = ["Tr0ub4dor", "s3cr3t-Pa55", "hunter2xyz", "Sup3rS3cret", "ya29.a0AfH6", "8f14e45fceea",
           "0a1b2c3d4e5f", "xoxb-1234", "sk_live_51H8", "9f86d081884c", "Ym9iOmh1bnRlcjI"]


def toml_entry(level, tag, message):
    return f'\n[[logcat]]\nlevel = "{level}"\ntag = "{tag}"\nmessage = {json.dumps(message)}\n'


def leaks(answer) -> list[str]:
    text = json.dumps(answer, ensure_ascii=False)
    found = [b for b in BODY if b[:16] in text or b[-16:] in text]
    found += [l for l in KEY_LINES[:1] + KEY_LINES[-1:] if l in text]
    return found


@pytest.fixture
def device(tmp_path):
    if not have_adb():
        if __import__("os").environ.get("CI"):
            pytest.fail("adb is required in CI")
        pytest.skip("no adb binary")
    scen = tmp_path / "scen"
    shutil.copytree(ROOT / "assets" / "demo", scen)
    toml = (scen / "demo.toml").read_text()
    for shape, _ in SHAPES:
        toml += toml_entry("I", "Shapes", shape)
    # One Log.d of the key: logcat prints it one line per entry, each with the same header.
    toml += toml_entry("D", "KeyStore", KEY)
    # The same key logged in two calls (their times may differ by a millisecond or not).
    lines = KEY.splitlines()
    toml += toml_entry("W", "KeySplit", "\n".join(lines[:6]))
    toml += toml_entry("W", "KeySplit", "\n".join(lines[6:]))
    toml += toml_entry("I", "Auth", "signed in")
    (scen / "demo.toml").write_text(toml)
    adb = RealAdb(tmp_path, scenarios=[scen / "demo.toml"])
    inst = start_instance(tmp_path, "--adb", adb.endpoint())
    yield adb, inst
    inst.stop()
    adb.close()


async def test_no_logcat_filter_returns_a_line_of_a_private_key(device):
    adb, inst = device
    # The device really logs the key one line per entry (as Android prints a Log.d of it).
    raw = adb.adb("-s", adb.serials[0], "shell", "logcat", "-d", "-v", "threadtime", "KeyStore:V", "*:S").stdout
    assert sum(1 for l in raw.splitlines() if "KeyStore" in l) == len(KEY_LINES), raw
    async with Client(inst.relay_params(), mode="legacy") as c:
        err, whole = await call(c, "android_get_logcat", {"lines": 500})
        assert not err, whole
        assert not leaks(whole), leaks(whole)
        key_lines = [l for l in whole["lines"] if l["tag"] in ("KeyStore", "KeySplit")]
        assert len(key_lines) == 2 * len(KEY_LINES), whole
        assert all(l["message"] == "«redacted:private-key»" for l in key_lines), key_lines
        since = next(l for l in whole["lines"] if l["tag"] == "KeyStore")
        last_key = [l for l in whole["lines"] if l["tag"] == "KeySplit"][-1]
        asks = [{"lines": n} for n in (1, 2, 3, 5, 8, 13, 20)]
        asks += [{"contains": b[10:30]} for b in BODY[::4]]
        asks += [{"contains": "BEGIN PRIVATE"}, {"contains": "END PRIVATE"}, {"contains": BODY[-1]}]
        asks += [{"tag": "KeyStore"}, {"tag": "KeySplit"}, {"tag": "KeyStore", "lines": 2}]
        asks += [{"since": f"{since['date']} {since['time']}"}, {"since": f"{last_key['date']} {last_key['time']}"}]
        asks += [{"since": f"{since['date']} {since['time']}", "lines": 4}, {"minLevel": "W", "lines": 3}]
        for args in asks:
            err, r = await call(c, "android_get_logcat", args)
            assert not err, (args, r)
            assert not leaks(r), (args, leaks(r))
            if "contains" in args:
                assert r["lines"] == [], (args, r)


async def test_each_credential_shape_in_logcat_shows_the_marker(device):
    _, inst = device
    async with Client(inst.relay_params(), mode="legacy") as c:
        err, r = await call(c, "android_get_logcat", {"tag": "Shapes", "lines": 100})
        assert not err, r
        messages = [l["message"] for l in r["lines"]]
        assert len(messages) == len(SHAPES), messages
        for (_, want), got in zip(SHAPES, messages):
            assert want in got, (want, got)
        text = json.dumps(r, ensure_ascii=False)
        for s in SECRETS:
            assert s not in text, s
        # `contains` matches only what the agent sees.
        for s in SECRETS:
            err, r = await call(c, "android_get_logcat", {"contains": s})
            assert not err and r["lines"] == [], (s, r)
