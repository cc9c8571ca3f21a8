def lzw_Z(data: bytes) -> bytes:
    # literal-only .Z stream (block mode, maxbits 16); valid while fewer than 256 codes (all 9-bit)
    assert len(data) < 250
    out = bytearray(b"\x1f\x9d\x90")
    acc = 0; nb = 0
    for c in data:
        acc |= c << nb; nb += 9
        while nb >= 8:
            out.append(acc & 0xff); acc >>= 8; nb -= 8
    if nb: out.append(acc & 0xff)
    return bytes(out)
def octal(b: bytes) -> str:
    return "".join("\\%03o" % x for x in b)
