#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""IN OUT: OUT is the real recording IN with one sample added just before the
MMAP2 record of the program "workload": a copy of the first later sample of
that process whose ip lies in the new map, its time one ns before the map's.
That address then resolves twice in one run: [unknown] before the map,
the symbol after it, so a lookup remembered across the map would show
(tests/cli/test_fastpaths.sh).  Exit 77 when IN has no such map or sample."""
import struct
import sys

sys.path.insert(0, __file__.rsplit("/", 3)[0] + "/tests/perf")
import perfdata  # noqa: E402

b = open(sys.argv[1], "rb").read()
attr_off = perfdata.header(b)["attrs"][0]
st, = struct.unpack_from("<Q", b, attr_off + 24)
flags, = struct.unpack_from("<Q", b, attr_off + 40)
IDENT, IP, TID, TIME, ID, STREAM, CPU = 1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 6, 1 << 9, 1 << 7
if not (st & IP and st & TID and st & TIME) or not flags & (1 << 18):  # sample_id_all
    print("recording without ip/tid/time or sample_id_all")
    sys.exit(77)
t_in_sample = 8 + 8 * bool(st & IDENT) + 8 + 8
after_time = sum(bool(st & x) for x in (ID, STREAM, CPU, IDENT))
recs = perfdata.records(b)
for i, (off, t, sz) in enumerate(recs):
    if t != 10:  # MMAP2
        continue
    pid, = struct.unpack_from("<I", b, off + 8)
    start, length = struct.unpack_from("<QQ", b, off + 16)
    name = b[off + 72:off + sz].split(b"\0")[0]
    if not name.endswith(b"/workload"):
        continue
    mtime, = struct.unpack_from("<Q", b, off + sz - 8 * (1 + after_time))
    for off2, t2, sz2 in recs[i + 1:]:
        if t2 != 9:
            continue
        ip, = struct.unpack_from("<Q", b, off2 + 8 + 8 * bool(st & IDENT))
        spid, = struct.unpack_from("<I", b, off2 + t_in_sample - 8)
        if spid == pid and start <= ip < start + length:
            s = bytearray(b[off2:off2 + sz2])
            struct.pack_into("<Q", s, t_in_sample, mtime - 1)
            open(sys.argv[2], "wb").write(perfdata.splice(b, off, 0, bytes(s)))
            sys.exit(0)
print("no workload map with a sample in it")
sys.exit(77)
