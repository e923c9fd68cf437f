#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""One leg of tests/bench/bench_python.sh: get every sample's time, tid and ip
of a perf.data file into numpy, and print "leg seconds samples peak_bytes
array_bytes".

  bench_python.py profileme FILE   profileme.open(FILE).samples(fields=[time, tid, ip])
  bench_python.py struct FILE      a hand-written struct loop (file mode only)
  bench_python.py samples FILE     profileme.open(FILE).samples(), every column
  bench_python.py symbols FILE     profileme.open(FILE).to_pandas(symbols=True)
                                   (comm, dso, sym, symoff; no peak memory: 0;
                                   kallsyms=$PM_BENCH_KALLSYMS when set)
The samples and symbols legs also print the process's CPU time (all
threads) last.
"""
import os
import struct
import sys
import time
import tracemalloc

import numpy as np

# sample_type bits
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = (
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
IDENTIFIER = 1 << 16
REC_SAMPLE = 9


def struct_loop(path):
    """perf.data by hand: header, attrs, then every record of the data
    section; SAMPLE fields in the kernel's order up to TIME."""
    with open(path, "rb") as f:
        buf = f.read()
    magic = buf[:8]
    if magic == b"PERFILE2":
        e = "<"
    elif magic == b"2ELIFREP":
        e = ">"
    else:
        raise SystemExit("not a perf.data file (pipe mode is not handled by this loop)")
    hdr = struct.unpack_from(e + "QQQ QQ QQ QQ".replace(" ", ""), buf, 0)
    _, _, attr_size, attrs_off, attrs_sz, data_off, data_sz, _, _ = hdr
    sample_types = set()
    for off in range(attrs_off, attrs_off + attrs_sz, attr_size):
        # perf_event_attr: u32 type, u32 size, u64 config, u64 period, u64 sample_type
        sample_types.add(struct.unpack_from(e + "Q", buf, off + 24)[0])
    if len(sample_types) != 1:
        raise SystemExit("this loop handles one sample_type")
    st = sample_types.pop()
    times, tids, ips = [], [], []
    unpack_hdr = struct.Struct(e + "IHH").unpack_from
    u64 = struct.Struct(e + "Q").unpack_from
    u32x2 = struct.Struct(e + "II").unpack_from
    pos, end = data_off, data_off + data_sz
    while pos + 8 <= end:
        typ, misc, size = unpack_hdr(buf, pos)
        if size < 8:
            raise SystemExit("bad record size at %d" % pos)
        if typ == REC_SAMPLE:
            p = pos + 8
            if st & IDENTIFIER:
                p += 8
            ip = tid = t = 0
            if st & IP:
                ip = u64(buf, p)[0]
                p += 8
            if st & TID:
                tid = u32x2(buf, p)[1]
                p += 8
            if st & TIME:
                t = u64(buf, p)[0]
                p += 8
            times.append(t)
            tids.append(tid)
            ips.append(ip)
        pos += size
    return (np.array(times, dtype=np.uint64), np.array(tids, dtype=np.uint32),
            np.array(ips, dtype=np.uint64))


def profileme_leg(path):
    import profileme
    with profileme.open(path) as r:
        return r.samples(fields=["time", "tid", "ip"])


def frame_leg(leg, path):
    import pandas  # noqa: F401  (imports are not timed)
    import profileme
    t0, c0 = time.perf_counter(), time.process_time()
    with profileme.open(path) as r:
        if leg == "samples":
            res = r.samples()
            check = (int(res["time"].sum()), int(res["tid"].sum()), int(res["ip"].sum()))
        else:
            # PM_BENCH_KALLSYMS: a kallsyms file instead of /proc/kallsyms
            res = r.to_pandas(symbols=True, kallsyms=os.environ.get("PM_BENCH_KALLSYMS") or None)
            check = (int(res["time"].sum()), int(res["sym"].cat.codes.sum()),
                     int(res["symoff"].sum()))
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    # the CPU time of every thread (kallsyms is read on one of its own) after the checksum
    print(leg, "%.4f" % dt, len(res), 0, 0, "%x:%x:%x" % tuple(c & (2**64 - 1) for c in check),
          "%.4f" % cpu)


def main():
    leg, path = sys.argv[1], sys.argv[2]
    if leg in ("samples", "symbols"):
        return frame_leg(leg, path)
    if leg == "profileme":
        import profileme  # noqa: F401  (imports are not timed in either leg)
    # timing run, then a separate run under tracemalloc for the peak memory
    # (tracemalloc slows down Python allocations, so it does not time)
    if os.environ.get("PM_BENCH_TRACE") == "1":
        tracemalloc.start()
    t0 = time.perf_counter()
    if leg == "profileme":
        res = profileme_leg(path)
        n, nbytes = len(res), res.nbytes
        check = (int(res["time"].sum()), int(res["tid"].sum()), int(res["ip"].sum()))
    else:
        res = struct_loop(path)
        n, nbytes = len(res[0]), sum(a.nbytes for a in res)
        check = tuple(int(a.sum()) for a in res)
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] if tracemalloc.is_tracing() else 0
    if peak == 0 and os.environ.get("PM_BENCH_TRACE") != "1":
        import subprocess
        out = subprocess.run([sys.executable, __file__, leg, path], env=dict(os.environ, PM_BENCH_TRACE="1"),
                             stdout=subprocess.PIPE, check=True).stdout.split()
        peak = int(out[3])
    print(leg, "%.4f" % dt, n, peak, nbytes, "%x:%x:%x" % tuple(c & (2**64 - 1) for c in check))


if __name__ == "__main__":
    main()
