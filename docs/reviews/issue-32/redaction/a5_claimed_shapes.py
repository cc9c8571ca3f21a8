"""Attack 5: the CLAIMED shapes (password=…, DB_PASSWORD="…", --password …, token=…, JSON keys)
with values holding spaces, quotes, escapes; in logcat, on screen (TextView text and
content-desc) - what the agent reads."""
import anyio, json, re, sys
from lab import Lab, call, logcat
from mcp import Client

SHAPES = [
 'DB_PASSWORD="QA01 partB01"',
 "DB_PASSWORD='QA02 partB02'",
 'password="QA03 partB03"',
 "--password 'QA04 partB04'",
 '--password "QA05 partB05"',
 'export API_KEY="QA06 partB06"',
 '{"password":"QA07\\" partB07"}',
 '{"password": "QA08\\u0020partB08"}',
 'token="QA09 partB09 x"',
 'client_secret="QA10 partB10"',
 '"db_password" : "QA11 partB11"',
 'password=QA12\\ partB12',
 '{"userPassword":"QA13partB13"}',
 '{"password":\n"QA14partB14"}',
 'PASSWORD = "QA15 partB15"',
 'x-api-key:QA16partB16',
 'secret: >-\n  QA17partB17',
 'password: |\n  QA18partB18',
]
TOKS = lambda s: re.findall(r"QA\d\d[A-Za-z0-9]*|partB\d\d", s)

SUMMARIES = ["Signed in", "Order updates, offers", "2 saved", "English", "Permissions, data", "Version 1.4.2"]
SCREEN = ['password="QS1 tailS1"', "DB_PASSWORD='QS2 tailS2'", 'password = QS3tailS3',
          '{\\"password\\":\\"QS4tailS4\\"}', 'Cookie: session=QS5tailS5', 'AWS_SECRET_ACCESS_KEY=QS6tailS6']

def xml_attr(s):
    return s.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace("'", "&apos;")

async def main():
    toml = "".join(logcat("I", "Claimed", m) for m in SHAPES)
    edits = {"settings.xml": None}
    lab_edits = {}
    # put screen shapes into the settings summaries (several replacements on one file)
    import shutil, pathlib
    lab = Lab(toml)
    try:
        p = lab.scen.parent / "screens" / "settings.xml"; x = p.read_text()
        for old, new in zip(SUMMARIES, SCREEN):
            x = x.replace(f'text="{old}"', f'text="{xml_attr(new)}"', 1)
        x = x.replace('content-desc="Navigate up"', f'content-desc="{xml_attr(chr(112)+"assword=QS7 tailS7")}"', 1)
        p.write_text(x)  # the sim reads screens lazily? (checked below)
        async with Client(lab.relay_params(), mode="legacy") as c:
            e, o, s, _ = await call(c, "android_get_logcat", {"tag": "Claimed", "lines": 200})
            msgs = [l["message"] for l in o.get("lines", [])]
            print(f"logcat lines: {len(msgs)}")
            for m in msgs:
                t = TOKS(m)
                print(("LEAK " if t else "ok   ") + repr(m))
            await call(c, "android_launch_app", {"packageName": "com.example.shop"})
            await call(c, "android_tap_element", {"selector": {"viewId": "sign_in"}})
            await call(c, "android_tap_element", {"element": "Settings"})
            e, o, s, _ = await call(c, "android_get_ui_tree", {"compact": True})
            txt = s.split("\n")[-1] if "\n" in s else s
            for t in re.findall(r'"(?:text|label|description|contentDescription)": ?"((?:[^"\\]|\\.)*)"', s):
                if "QS" in t or "redacted" in t or "tail" in t:
                    print(("LEAK " if TOKS(t) or re.search(r"QS\d|tailS\d", t) else "ok   ") + "screen: " + t)
            raw = lab.shell("uiautomator dump /dev/tty")
            print("device really shows QS1:", "QS1" in raw)
    finally:
        lab.close()
anyio.run(main)
