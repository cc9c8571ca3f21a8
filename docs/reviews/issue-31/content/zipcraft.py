"""Hand-built zips (stored entries) to make readers disagree."""
import struct, zlib

def lh(name, data, method=0, comp=None):
    comp = data if comp is None else comp
    n = name.encode()
    return struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, method, 0, 0, zlib.crc32(data), len(comp), len(data), len(n), 0) + n + comp

def cd(name, data, off, method=0, comp=None):
    comp = data if comp is None else comp
    n = name.encode()
    return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, method, 0, 0, zlib.crc32(data), len(comp), len(data), len(n), 0, 0, 0, 0, 0, off) + n

def eocd(count, cdsize, cdoff, comment=b""):
    return struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, count, count, cdsize, cdoff, len(comment)) + comment

def build(local_entries, central_entries=None, prefix=b"", comment=b""):
    """local_entries: list of (name, data); central_entries: list of (name, index into locals) or None = all."""
    out = bytearray(prefix)
    offs = []
    for name, data in local_entries:
        offs.append(len(out))
        out += lh(name, data)
    if central_entries is None:
        central_entries = [(n, i) for i, (n, _) in enumerate(local_entries)]
    cdoff = len(out)
    c = b""
    for name, i in central_entries:
        c += cd(name, local_entries[i][1], offs[i])
    out += c
    out += eocd(len(central_entries), len(c), cdoff, comment)
    return bytes(out)
