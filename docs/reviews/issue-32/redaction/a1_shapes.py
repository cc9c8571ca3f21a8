"""Attack 1: secrets in shapes the built-in rules may not know, in logcat and on screen.
For each shape: what the agent got (android_get_logcat, android_get_ui_tree, find oracle)."""
import anyio, json, sys
from lab import Lab, call, logcat
from mcp import Client

SHAPES = [
 ("urlenc-eq", "login?user=bob&password%3DPW01secretA"),
 ("pwd", "pwd=PW02secretB"),
 ("passwd", "passwd=PW03secretC"),
 ("pass", "pass=PW04secretD"),
 ("ruby", 'password => "PW05secretE"'),
 ("xml", "<password>PW06secretF</password>"),
 ("zwsp-key", "pass\u200bword=PW07secretG"),
 ("fullwidth-key", "ｐａｓｓｗｏｒｄ=PW08secretH"),
 ("escaped-json", '{\\"password\\":\\"PW09secretI\\"}'),
 ("py-dict", "{'password': 'PW10secretJ'}"),
 ("spaces-eq", "password = PW11secretK"),
 ("auth-token", "Authorization: Token PW12secretL"),
 ("cookie", "Cookie: session=PW13secretM"),
 ("url-userinfo", "GET https://bob:PW14secretN@api.example.com/v1"),
 ("urlenc-json", "body=%7B%22access_token%22%3A%22PW15secretO%22%7D"),
 ("lower-bearer", "authorization: bearer PW19secretS"),
 ("json-space-val", '{"password": "PW20 secretT tail20"}'),
 ("quoted-space", 'password="PW21 secretU tail21"'),
 ("yaml-quoted", '  password: "PW30 secretV tail30"'),
 ("mysql-p", "mysql -u root -pPW31secretW"),
 ("dashdash-eq", "--password=PW32secretX"),
 ("german", "Passwort=PW34secretY"),
 ("secretKey-json", '{"secretKey":"PW38secretZ"}'),
 ("cyrillic-a", "p\u0430ssword=PW39secretAA"),
 ("marker-inject", "password=«redacted:password» PW41secretAB"),
 ("aws", "AWS_SECRET_ACCESS_KEY=PW26secretAC"),
 ("passphrase", '{"passphrase":"PW24secretAD"}'),
 ("private_key", "private_key=PW25secretAE"),
 ("nl-value", "password=\nPW27secretAF"),
 ("tab-eq", "password\t=\tPW17secretAG"),
 ("semicolon", "password=PW42;secretAH"),
 ("amp-val", "password=PW43&secretAI"),
 ("hash-val", "password=PW44#secretAJ"),
 ("pct-val", "password=PW45%20secretAK"),
 ("short", "password=PW46s"),
 ("nbsp", "password:\u00a0PW47secretAL"),
 ("colon-nospace-bearer", "Authorization:BearerPW48secretAM"),
 ("apikey-query", "GET /q?api_key=PW49secretAN&x=1"),
 ("key-query", "GET /maps?key=PW50secretAO"),
 ("sig", "X-Amz-Signature=PW51secretAP"),
]
SPLIT = [("I", "SplitA", "password="), ("I", "SplitA", "PW18secretR")]

def main_toml():
    t = "".join(logcat("I", "Shapes", m) for _, m in SHAPES)
    t += "".join(logcat(*x) for x in SPLIT)
    return t

def secret_tokens(msg):
    import re
    return re.findall(r"PW\d\d[^\s\"'<&;#%]*|secret[A-Z]+|tail\d\d", msg)

async def main():
    lab = Lab(main_toml())
    try:
        raw = lab.shell("logcat -d -v threadtime Shapes:V SplitA:V '*:S'")
        assert "PW01" in raw, raw[:500]
        async with Client(lab.relay_params(), mode="legacy") as c:
            err, out, seen, _ = await call(c, "android_get_logcat", {"lines": 500, "tag": "Shapes"})
            msgs = [l["message"] for l in out.get("lines", [])]
            print(f"got {len(msgs)} Shapes lines (sent {len(SHAPES)})")
            leaked = []
            for (name, sent) in SHAPES:
                got = [m for m in msgs if any(t in m for t in secret_tokens(sent)[:1])]
                # find line by name order instead
            for (name, sent), got in zip(SHAPES, msgs):
                toks = [t for t in secret_tokens(sent) if t in got]
                flag = "LEAK" if toks else "ok  "
                if toks: leaked.append(name)
                print(f"{flag} {name:22} sent={sent!r:48} got={got!r}")
            err, out, seen, _ = await call(c, "android_get_logcat", {"lines": 500, "tag": "SplitA"})
            print("split:", [l["message"] for l in out.get("lines", [])])
            print("LEAKED:", leaked)
    finally:
        lab.close()
anyio.run(main)
