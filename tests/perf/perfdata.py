# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""A few byte-level facts of file-mode perf.data files (little endian), for
the damage tests: where the data section and its records lie, and how to
change them without breaking the rest of the file.  Independent of the
library under test: the layout is perf's (tools/perf/util/header.h)."""
import struct


def header(b):
    magic, hsz, asz = struct.unpack_from("<8sQQ", b, 0)
    if magic != b"PERFILE2" or hsz != 104:
        raise ValueError("not a little-endian file-mode perf.data")
    ao, an, do, dn = struct.unpack_from("<QQQQ", b, 24)
    return {"attr_size": asz, "attrs": (ao, an), "data": (do, dn)}


def records(b):
    """(offset, type, size) of every record of the data section."""
    do, dn = header(b)["data"]
    p, out = do, []
    while p + 8 <= do + dn:
        t, _misc, sz = struct.unpack_from("<IHH", b, p)
        if sz < 8:
            raise ValueError("record of size %d at %d" % (sz, p))
        out.append((p, t, sz))
        p += sz
    return out


def feat_count(b):
    return sum(bin(x).count("1") for x in struct.unpack_from("<4Q", b, 72))


def splice(b, off, old_len, new):
    """b with b[off:off+old_len] (inside the data section) replaced by new;
    the data size and the feature table's offsets follow."""
    do, dn = header(b)["data"]
    d = len(new) - old_len
    nb = bytearray(b[:off] + new + b[off + old_len:])
    struct.pack_into("<Q", nb, 48, dn + d)
    t = do + dn + d
    for k in range(feat_count(b)):
        o, _s = struct.unpack_from("<QQ", nb, t + 16 * k)
        struct.pack_into("<Q", nb, t + 16 * k, o + d)
    return bytes(nb)


def attr_at(b, i):
    """(offset, bytes) of attr i in the attr section."""
    h = header(b)
    ao, _an = h["attrs"]
    asz = h["attr_size"]
    off = ao + i * asz
    return off, b[off:off + asz - 16]
