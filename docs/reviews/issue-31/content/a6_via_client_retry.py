"""A6: MCP 2026-07-28 approval through the client ([confirm] via_client = true, nobody attached).
Round 1: tools/call android_push_file overwrite -> input_required; the form (shown to the client's
person) carries size+SHA-256 of the file. Between the person's yes and the client's retry the
agent rewrites the file; the retry is the same tool, same arguments, same client, with the state.
Which bytes reach the device? Same for android_install_app (replace com.example.shop)."""
import asyncio, httpx2
from lab import *

KEY = "spock_approval"
YES = {KEY: {"action": "accept", "content": {"approve": True}}}

def rpc(lab, name, args, state=None, responses=None, client=("honest-client", "1")):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": client[0], "version": client[1]},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}
    params = {"name": name, "arguments": args, "_meta": meta}
    if state is not None: params["requestState"] = state
    if responses is not None: params["inputResponses"] = responses
    d = lab.desc
    h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
         "Authorization": f"Bearer {d['token']}", "Mcp-Protocol-Version": "2026-07-28",
         "Mcp-Method": "tools/call", "Mcp-Name": name, "Connection": "close"}
    r = httpx2.post(d["http"], headers=h, content=json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}), timeout=60)
    t = r.text
    if t.lstrip().startswith("{"): return json.loads(t)
    data = [l[5:].strip() for l in t.splitlines() if l.startswith("data:") and l[5:].strip()]
    return json.loads(data[-1])

def main():
    lab = Lab(config="[confirm]\nvia_client = true\n[safety]\nconfirm_timeout_secs = 60\n")
    try:
        target = "/sdcard/Download/notes.txt"
        lab.dev_sh(f"echo old > {target}")
        src = lab.pulls() / "notes.txt"
        shown = b"the approved text\n"; src.write_bytes(shown)
        args = {"localPath": str(src), "devicePath": target, "overwrite": True}
        r1 = rpc(lab, "android_push_file", args)["result"]
        form = json.dumps(r1.get("inputRequests", {}))
        print("round1:", r1.get("resultType"), "form shows approved sha:", sha(shown) in form)
        src.write_bytes(b"rm -rf / # swapped between yes and retry\n")
        r2 = rpc(lab, "android_push_file", args, state=r1["requestState"], responses=YES)["result"]
        print("retry:", json.dumps(r2)[:300])
        got = lab.dev_cat(target)
        print(f"--- push via client retry: device={got!r} ->", "holds" if got in (shown, b"old\n") else "BROKEN")
        # install
        v143 = apk("com.example.shop", 143, "1.4.3")
        p = lab.pulls() / "shop.apk"; p.write_bytes(v143)
        a = {"apkPath": str(p)}
        r1 = rpc(lab, "android_install_app", a)["result"]
        form = json.dumps(r1.get("inputRequests", {}))
        print("round1:", r1.get("resultType"), "form shows approved sha:", sha(v143) in form, "v143 in form:", "143" in form)
        p.write_bytes(apk("com.example.shop", 999, "9.9.9-evil", b"E" * 2048))
        r2 = rpc(lab, "android_install_app", a, state=r1["requestState"], responses=YES)["result"]
        print("retry:", json.dumps(r2)[:300])
        v = lab.installed("com.example.shop")
        print(f"--- install via client retry: installed versionCode={v} ->", "holds" if v in (142, 143) else "BROKEN")
        for r in lab.audit():
            if r.get("tool") in ("android_install_app", "android_push_file"):
                print("   audit", r["seq"], r["tool"], r.get("outcome"), r.get("decidedBy") or r.get("decider"), (r.get("result") or {}).get("sha256", "")[:12], (r.get("escalated") or "")[:80])
    finally:
        lab.close()
main()
