#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Regenerate the seed corpora of tests/fuzz/corpus/<harness>/.

    /usr/bin/python3 tests/fuzz/make_corpus.py [--only GENERATOR] [PERF_DATA...]

Seeds come from the test fixtures (sysfs format/event files, event strings
of the unit and perf-oracle tests), from the perf.data files given (real
`perf record` outputs; file mode records become record seeds, every file a
file seed) plus examples/data/profileme-synthetic.data, and from the raw
payloads of its samples.  Each seed starts with the harness's selector/flag
byte (see the comment at the top of each fuzz_<name>.c).  --only runs one
generator (fixtures, event, record, ibs, file, dwarf_line, drain, sym, live).  Deterministic;
existing seeds are kept (names are content hashes).
"""
import hashlib
import os
import random
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus")
SYSFS = os.path.join(ROOT, "tests", "fixtures", "sysfs")
count = {}


def seed(harness, data):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
    count[harness] = count.get(harness, 0) + 1


def sysfs_files():
    for dirpath, _, files in os.walk(SYSFS):
        for fn in files:
            p = os.path.join(dirpath, fn)
            if not os.path.isfile(p):
                continue  # dangling links of the bad-files tree
            with open(p, "rb") as f:
                yield os.path.relpath(p, SYSFS), f.read()


def fixture_seeds():
    for rel, data in sysfs_files():
        parts = rel.split(os.sep)
        if "format" in parts[:-1]:
            seed("format", data)
        elif "events" in parts[:-1]:
            if rel.endswith(".scale"):
                seed("alias", b"\x01" + data)
            elif not rel.endswith((".unit", ".per-pkg", ".snapshot")):
                seed("alias", b"\x00" + data)
        elif parts[-1] in ("cpumask", "cpus"):
            seed("alias", b"\x02" + data)
    for extra in (b"0-3,8,10-11\n", b"0\n", b""):
        seed("alias", b"\x02" + extra)
    # One whole PMU for the sysfs harness (parts separated by NUL).
    parts = [b"4\n", b"0-3\n", b"config:0-7\n", b"config:8-15\n", b"config:18\n",
             b"event=0xd0,umask=0x81,ldlat=3\n", b"6.103515625e-5\n", b"MiB\n", b"3\n",
             b"4\n", b"fz/ev/pp"]
    seed("sysfs", b"\x00".join(parts))
    seed("sysfs", b"\x00".join(parts[:6]))
    seed("sysfs", b"\x00".join([b"8\n", b"", b"config:0-63\n", b"config1:0-31,40-47\n",
                                b"config2:3\n", b"umask=?\n", b"1\n", b"\n", b"0\n",
                                b"-1\n", b"fz/ev,umask=3,period=1000/u"]))


def event_seeds():
    strings = set()
    for rel in ("tests/unit/check_event.c", "tests/perf/test_encode_vs_perf.py",
                "tests/unit/check_writer.c", "tests/unit/check_ring.c"):
        p = os.path.join(ROOT, rel)
        if not os.path.exists(p):
            continue
        with open(p, encoding="utf-8", errors="replace") as f:
            for s in re.findall(r'"((?:[^"\\\n]|\\.){1,120})"', f.read()):
                if "/tmp/" in s or "%" in s or " " in s or s.startswith("bus/"):
                    continue
                if re.search(r"/(format|events|caps|type)\b", s):
                    continue
                strings.add(s.encode())
    trees = {"cpu": 0, "alpha": 1, "amd": 2, "ibs": 2, "uncore": 3}
    for s in sorted(strings):
        sel = 5  # no PMUs
        for k, v in trees.items():
            if s.startswith(k.encode()):
                sel = v
        seed("event", bytes([sel]) + s)
        if sel != 0:
            seed("event", b"\x00" + s)


def perf_data_records(path):
    """(big_endian, attr_size, [attr bytes], [record bytes]) of a file-mode perf.data."""
    with open(path, "rb") as f:
        d = f.read()
    if d[:8] == b"PERFILE2":
        be = False
    elif d[:8] == b"2ELIFREP":
        be = True
    else:
        return None
    e = ">" if be else "<"
    hsize, = struct.unpack_from(e + "Q", d, 8)
    if hsize == 16:
        return None  # pipe mode
    attr_size, a_off, a_size, d_off, d_size = struct.unpack_from(e + "5Q", d, 16)
    attrs = [d[a_off + i:a_off + i + attr_size - 16] for i in range(0, a_size, attr_size)]
    recs = []
    off = d_off
    while off + 8 <= d_off + d_size:
        typ, misc, size = struct.unpack_from(e + "IHH", d, off)
        if size < 8:
            break
        recs.append(d[off:off + size])
        off += size
    return be, attrs, recs


def sample_raw(attr, rec, be):
    """PERF_SAMPLE_RAW payload of a sample (only for layouts without READ/CALLCHAIN)."""
    e = ">" if be else "<"
    st, = struct.unpack_from(e + "Q", attr, 24)
    if not st & (1 << 10) or st & ((1 << 4) | (1 << 5)):
        return None
    off = 8
    for bit in (16, 0, 1, 2, 3, 6, 9, 7, 8):  # IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD
        if st & (1 << bit):
            off += 8
    size, = struct.unpack_from(e + "I", rec, off)
    return rec[off + 4:off + 4 + size]


def record_seeds(paths):
    for p in paths:
        r = perf_data_records(p)
        if not r:
            continue
        be, attrs, recs = r
        flags = 1 if be else 0
        by_type = {}
        for rec in recs:
            typ = struct.unpack_from(">I" if be else "<I", rec, 0)[0]
            by_type.setdefault(typ, []).append(rec)
        for typ, lst in sorted(by_type.items()):
            for attr in attrs[:2]:
                seed("record", bytes([flags]) + struct.pack("<H", len(attr)) + attr
                     + b"".join(lst[:3]))
        for rec in by_type.get(9, []):
            raw = sample_raw(attrs[0], rec, be)
            if raw and len(raw) >= 8:
                seed("raw_alpha_profileme", b"\x10" + raw)


def ibs_seeds():
    rnd = random.Random(8)
    for i in range(24):
        caps = struct.pack("<I", rnd.choice([0x1ff, 0x3ff, 0x7ff, 0xfff]))
        fetch = [rnd.getrandbits(64) | (3 << 48) for _ in range(3)]
        if i % 2:
            fetch.append(rnd.getrandbits(64))
        seed("raw_ibs_fetch", bytes([i % 16]) + caps + b"".join(struct.pack("<Q", v) for v in fetch))
        op = [rnd.getrandbits(64) | (3 << 17)] + [rnd.getrandbits(64) for _ in range(6)]
        if i % 2:
            op.append(rnd.getrandbits(64))
        seed("raw_ibs_op", bytes([i % 16]) + caps + b"".join(struct.pack("<Q", v) for v in op))


def file_seeds(paths):
    for p in paths:
        with open(p, "rb") as f:
            d = f.read()
        pipe = d[8:16] == struct.pack("<Q", 16) or d[8:16] == struct.pack(">Q", 16)
        seed("file", bytes([1 if pipe else 0]) + d)
        seed("file", bytes([(1 if pipe else 0) | 2 | 8 | 16]) + d)
        # pm_columns: every column (decoded raw fields), and base columns only
        seed("file", bytes([(1 if pipe else 0) | 32]) + d)
        seed("file", bytes([(1 if pipe else 0) | 32 | 64]) + d)
        # the exporters: pm_export_stacks(), pm_export_pprof()
        seed("file", bytes([(1 if pipe else 0) | 16 | 64]) + d)
        seed("file", bytes([(1 if pipe else 0) | 16 | 64 | 128]) + d)


def dwarf_line_seeds():
    """fuzz_dwarf_line: the debug sections of tests/unit/symbol/workload.c
    compiled here with gcc at each DWARF version (skipped without gcc)."""
    import shutil
    import subprocess
    import tempfile
    if not shutil.which("gcc") or not shutil.which("objcopy"):
        print("dwarf_line: no gcc/objcopy, no seeds")
        return
    src = os.path.join(ROOT, "tests", "unit", "symbol", "workload.c")
    with tempfile.TemporaryDirectory() as tmp:
        for ver in (2, 3, 4, 5):
            for opt in ("-O0", "-O2"):
                exe = os.path.join(tmp, "w")
                subprocess.run(["gcc", "-g", "-gdwarf-%d" % ver, opt, src, "-o", exe], check=True)
                secs = []
                for name in (".debug_line_str", ".debug_str", ".debug_info", ".debug_abbrev",
                             ".debug_line"):
                    out = os.path.join(tmp, "s")
                    if os.path.exists(out):
                        os.unlink(out)
                    # a section the file lacks: objcopy fails, the seed has it empty
                    subprocess.run(["objcopy", "--dump-section", name + "=" + out, exe,
                                    os.path.join(tmp, "junk")], capture_output=True)
                    secs.append(open(out, "rb").read() if os.path.exists(out) else b"")
                # the fuzz input takes at most 65535 bytes of each of the first four
                secs[:4] = [x[:65535] for x in secs[:4]]
                seed("dwarf_line", bytes([0]) + struct.pack("<4H", *(len(x) for x in secs[:4])) +
                     b"".join(secs))


def _drain_head(cfg, pick, raw_type=0, raw_flags=0, tails=()):
    """fuzz_drain: config byte, attr pick, raw sample_type, raw flags, tails."""
    nr = 1 + (cfg & 3)
    t = list(tails) + [0] * (nr - len(tails))
    return bytes([cfg, pick]) + struct.pack("<QB", raw_type, raw_flags) + \
        b"".join(struct.pack("<Q", v & (2 ** 64 - 1)) for v in t[:nr])


def _drain_ops(*ops):
    return b"".join(ops)


def D_SAMPLE(ring, delta):
    return bytes([0 | ring << 3]) + struct.pack("<h", delta)


def D_OTHER(ring, delta, x=3):
    return bytes([1 | ring << 3 | x << 5]) + struct.pack("<h", delta)


def D_TIMELESS(ring, x=4):
    return bytes([2 | ring << 3 | x << 5])


def D_RAW(ring, rec):
    return bytes([3 | ring << 3]) + struct.pack("<H", len(rec)) + rec


def D_PUBLISH(ring=0, x=1):
    return bytes([4 | ring << 3 | x << 5])


def D_DRAIN(flush=0, stop=0, mx=0, k=1, inject=None):
    """inject: a ring the producer writes into during the drain"""
    op = 5 if inject is None else 5 | inject << 3 | 1 << 5
    return bytes([op, flush | stop << 1 | mx << 4, k])


def D_BIG(ring, size):
    return bytes([6 | ring << 3]) + struct.pack("<H", size)


def D_ABSTIME(ring, t):
    return bytes([7 | ring << 3]) + struct.pack("<Q", t)


def _sample_cpu(st, id_all, rec, e):
    """The CPU of a record (PERF_SAMPLE_CPU of a sample, or of its
    sample_id trailer), None when it has none."""
    if not st & (1 << 7):
        return None
    typ, = struct.unpack_from(e + "I", rec, 0)
    if typ == 9:
        off = 8
        for bit in (16, 0, 1, 2, 3, 6, 9):
            if st & (1 << bit):
                off += 8
        return struct.unpack_from(e + "I", rec, off)[0]
    if not id_all or typ >= 64:
        return None
    n = sum(1 for bit in (7, 16) if st & (1 << bit))  # CPU, then IDENTIFIER
    return struct.unpack_from(e + "I", rec, len(rec) - 8 * n)[0]


def _rec_time(st, id_all, rec, e):
    """PERF_SAMPLE_TIME of a sample or of a sample_id trailer, else None."""
    if not st & (1 << 2):
        return None
    typ, = struct.unpack_from(e + "I", rec, 0)
    if typ == 9:
        off = 8 + 8 * sum(1 for bit in (16, 0, 1) if st & (1 << bit))
        return struct.unpack_from(e + "Q", rec, off)[0]
    if not id_all or typ >= 64:
        return None
    n = 1 + sum(1 for bit in (6, 9, 7, 16) if st & (1 << bit))  # TIME ID STREAM_ID CPU IDENTIFIER
    return struct.unpack_from(e + "Q", rec, len(rec) - 8 * n)[0]


def drain_seeds(paths):
    """fuzz_drain: ring images rebuilt from real recordings (each record
    back into the ring of its CPU, as the kernel wrote it, drained as the
    recorder drains), and hand-made cases (fuzz_drain.c says the layout)."""
    for p in paths:
        r = perf_data_records(p)
        if not r:
            continue
        be, attrs, recs = r
        if be:
            continue  # the rings are in host byte order
        attr = attrs[0]
        st, = struct.unpack_from("<Q", attr, 24)
        flags, = struct.unpack_from("<Q", attr, 40)
        id_all = bool(flags & (1 << 18))
        for nr in (2, 4):
            # each record back into the ring of its CPU, in the kernel's
            # order; the rings filled as time goes by (30 records of the
            # recording at a time), published and drained as a recorder
            # polls them
            timed = []
            for rec in recs:
                typ, = struct.unpack_from("<I", rec, 0)
                if typ >= 64:
                    continue  # perf-tool records: not in a kernel ring
                cpu = _sample_cpu(st, id_all, rec, "<")
                t = _rec_time(st, id_all, rec, "<")
                timed.append((t if t is not None else 0, len(timed), (cpu or 0) % nr, rec))
            if not timed:
                continue
            timed.sort()
            ops = []
            for k in range(0, len(timed), 30):
                if len(b"".join(ops)) > 16000:
                    break
                ops += [D_RAW(ring, rec) for _, _, ring, rec in timed[k:k + 30]]
                ops.append(D_PUBLISH(0, 1))
                ops.append(D_DRAIN())
            head = _drain_head((nr - 1) | 4, 5, st, 1 if id_all else 0,
                               [2 ** 64 - 4096 * (i + 1) + 8 * i for i in range(nr)])
            seed("drain", head + b"".join(ops))
    # Hand-made: interleaved times on three rings over rounds, held records,
    # records wrapping the end and positions wrapping 2^64, misordered times,
    # every stop value, limits, timeless and FINISHED_ROUND-type records.
    rnd = random.Random(15)
    for pick in range(6):
        ops = []
        for rnd_ in range(12):
            for _ in range(10):
                ring = rnd.randrange(3)
                kind = rnd.randrange(10)
                if kind < 6:
                    ops.append(D_SAMPLE(ring, rnd.randrange(1, 40)))
                elif kind < 8:
                    ops.append(D_OTHER(ring, rnd.randrange(0, 20), rnd.randrange(8)))
                elif kind < 9:
                    ops.append(D_TIMELESS(ring, rnd.choice([4, 0, 7])))
                else:
                    ops.append(D_BIG(ring, rnd.choice([64, 512, 1000, 2040])))
            ops.append(D_PUBLISH(0, 1))
            ops.append(D_DRAIN(0, rnd_ % 8, rnd.choice([0, 0, 3]), rnd.randrange(1, 8),
                               rnd.choice([None, None, rnd.randrange(3)])))
        seed("drain", _drain_head(2, pick, PM_ST_DEFAULT, 1, [2 ** 64 - 1024, 4000, 0]) +
             b"".join(ops))
    # misordered: a ring going back in time
    seed("drain", _drain_head(1, 0) + _drain_ops(
        D_SAMPLE(0, 10), D_SAMPLE(0, 20), D_SAMPLE(0, -15), D_SAMPLE(1, 5), D_SAMPLE(1, 30),
        D_PUBLISH(), D_DRAIN(), D_SAMPLE(0, 100), D_SAMPLE(1, -100), D_PUBLISH(), D_DRAIN(),
        D_ABSTIME(0, 2 ** 64 - 1), D_ABSTIME(1, 0), D_PUBLISH(), D_DRAIN(1)))
    # impossible records: size 0, odd, larger than the ring, cut by data_head
    bad = [struct.pack("<IHH", 9, 0, 0), struct.pack("<IHH", 9, 0, 13) + b"\0" * 5,
           struct.pack("<IHH", 9, 0, 65528), struct.pack("<IHH", 9, 0, 4104)]
    for b in bad:
        seed("drain", _drain_head(1, 0, tails=[4096 - 8, 0]) + _drain_ops(
            D_SAMPLE(1, 5), D_RAW(0, b), D_PUBLISH(), D_DRAIN(1), D_DRAIN(1)))
    seed("drain", _drain_head(1, 2) + _drain_ops(
        D_SAMPLE(0, 5), D_SAMPLE(0, 6), D_PUBLISH(0, 2), D_DRAIN(1)))
    seed("drain", _drain_head(0, 1) + _drain_ops(D_SAMPLE(0, 5), D_PUBLISH(0, 3), D_DRAIN(1)))
    # a record straddling the end, positions wrapping 2^64, unaligned start
    seed("drain", _drain_head(1 | 32, 0, tails=[2 ** 64 - 20, 4092]) + _drain_ops(
        D_SAMPLE(0, 1), D_SAMPLE(1, 1), D_PUBLISH(), D_DRAIN(1)))
    seed("drain", _drain_head(3 | 16 | 8, 3, tails=[4096 - 24] * 4) + _drain_ops(
        *[D_BIG(i % 4, 48) for i in range(16)], D_PUBLISH(), D_DRAIN(), D_DRAIN(1, 1, 0, 3),
        D_DRAIN(1, 4, 0, 2), D_DRAIN(1, 6, 0, 1), D_DRAIN(1)))


PM_ST_DEFAULT = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 7)  # IP TID TIME CPU


def _live_head(cfg, raw_type=0, flags9=0):
    """fuzz_live: config byte, sample_type (NO_DEFAULTS), byte 9 flags."""
    return bytes([cfg]) + struct.pack("<Q", raw_type) + bytes([flags9])


def L_SAMPLE(ring, ev, delta=100, pad=0):
    return bytes([0 | ring << 3 | pad << 5, ev]) + struct.pack("<h", delta)


def L_OTHER(ring, delta=10, x=3):
    return bytes([1 | ring << 3 | x << 5]) + struct.pack("<h", delta)


def L_RAW(ring, rec):
    return bytes([2 | ring << 3]) + struct.pack("<H", len(rec)) + rec


def L_PUBLISH(ring=0, x=1):
    return bytes([3 | ring << 3 | x << 5])


def L_READ(cap=511):
    """columns: cap rows (1..512); ordered drain: the low byte is the flags"""
    return bytes([4]) + struct.pack("<H", cap)


def L_DRAIN(flush=1, bad=0, stop=0, mx=0):
    return bytes([4, flush | bad << 1 | stop << 2 | mx << 5])


def L_TIME(t):
    return bytes([5]) + struct.pack("<Q", t)


def live_seeds():
    """fuzz_live: the live sample source (columns) and the public ordered
    drain over memory rings (fuzz_live.c says the layout)."""
    ident = (1 << 16) | PM_ST_DEFAULT | (1 << 8)
    for cols in (0, 0x40):
        for nr in range(4):
            for nev in range(4):
                ops = []
                for k in range(40):
                    ops.append(L_SAMPLE((k * 3) % (nr + 1), k % (nev + 1), 50 + k))
                    if k % 7 == 0:
                        ops.append(L_OTHER(k % (nr + 1), 5, 1 + k % 6))
                    if k % 9 == 4:
                        ops.append(L_PUBLISH(0, 1))
                        ops.append(L_READ(3 + k) if not cols else L_DRAIN(k % 2))
                ops += [L_PUBLISH(0, 1), L_READ() if not cols else L_DRAIN(1)]
                seed("live", _live_head(cols | nr | nev << 3) + b"".join(ops))
        # NO_DEFAULTS: sample types with and without an id, a field this
        # generator does not write (CALLCHAIN: every sample short), frequency
        for st in (PM_ST_DEFAULT, ident, (1 << 0) | (1 << 2), (1 << 6) | PM_ST_DEFAULT,
                   PM_ST_DEFAULT | (1 << 5), 0):
            for f9 in (0, 1, 3, 5):
                ops = [L_SAMPLE(i % 2, i % 2, 20) for i in range(24)]
                seed("live", _live_head(cols | 0x20 | 1 | 1 << 3, st, f9) + b"".join(ops) +
                     L_PUBLISH(0, 1) + (L_READ(5) + L_READ() if not cols else L_DRAIN(0) + L_DRAIN(1)))
        # damage: an unknown id, padded (longer than the layout), bad sizes,
        # a record cut by data_head, misordered times
        ops = [L_SAMPLE(0, 0), L_SAMPLE(0, 0xff), L_SAMPLE(0, 1), L_SAMPLE(1, 0, 10, 3),
               L_SAMPLE(1, 1), L_PUBLISH(0, 1), L_READ(2) if not cols else L_DRAIN(1),
               L_SAMPLE(0, 0, -500), L_SAMPLE(1, 1, -3), L_PUBLISH(0, 1),
               L_READ() if not cols else L_DRAIN(1, 0, 2, 0)]
        seed("live", _live_head(cols | 1 | 1 << 3) + b"".join(ops))
        for bad in (struct.pack("<IHH", 9, 0, 0), struct.pack("<IHH", 9, 0, 12) + bytes(8),
                    struct.pack("<IHH", 3, 0, 65528), struct.pack("<IHH", 9, 1, 16) + bytes(8)):
            ops = [L_SAMPLE(0, 0), L_SAMPLE(1, 0), L_RAW(1, bad), L_SAMPLE(1, 0), L_SAMPLE(0, 0),
                   L_PUBLISH(0, 1), L_READ(1) if not cols else L_DRAIN(1), L_READ() if not cols else L_DRAIN(1)]
            seed("live", _live_head(cols | 1) + b"".join(ops))
        ops = [L_SAMPLE(0, 0), L_SAMPLE(0, 0), L_PUBLISH(0, 2), L_READ() if not cols else L_DRAIN(1),
               L_PUBLISH(0, 0), L_READ() if not cols else L_DRAIN(1)]
        seed("live", _live_head(cols) + b"".join(ops))
        # positions that start below 2^64 and wrap, records across the ring end
        ops = []
        for k in range(300):
            ops.append(L_SAMPLE(k % 2, k % 2, 7, k % 5))
            if k % 20 == 19:
                ops += [L_PUBLISH(0, 1), L_READ(17) if not cols else L_DRAIN(k % 2, 0, 0, 5)]
        seed("live", _live_head(cols | 0x80 | 1 | 1 << 3) + b"".join(ops) + L_PUBLISH(0, 1) +
             (L_READ() if not cols else L_DRAIN(1)))
        # stop, max and an unknown flag (drain); the event filter (columns)
        ops = [L_TIME(2 ** 40)] + [L_SAMPLE(i % 3, i % 3, 1) for i in range(30)] + [L_PUBLISH(0, 1)]
        if cols:
            ops += [L_DRAIN(1, 1), L_DRAIN(1, 0, 3), L_DRAIN(1, 0, 0, 4), L_DRAIN(0, 0, 7, 2), L_DRAIN(1)]
        else:
            ops += [L_READ(4), L_READ(1), L_READ()]
        seed("live", _live_head(cols | 2 | 2 << 3, 0, 2) + b"".join(ops))


def sym_seeds():
    """fuzz_sym: ELF files built here from tests/unit/symbol/workload.c
    (PIE and not, a shared object with PLT relocations, stripped to
    .dynsym, DWARF with compressed sections, a .gnu_debuglink), this
    process's vDSO image, and lines of this machine's /proc/kallsyms (core
    kernel and modules).  Skipped parts: no gcc, no readable kallsyms."""
    import shutil
    import subprocess
    import tempfile
    src = os.path.join(ROOT, "tests", "unit", "symbol", "workload.c")
    if shutil.which("gcc"):
        builds = [(0, ["-O0", "-g"]), (0, ["-O2", "-no-pie", "-fno-pie"]), (0, ["-O2", "-s"]),
                  (2, ["-O2", "-g", "-shared", "-fPIC"]), (0, ["-O1", "-g", "-gz=zlib"]),
                  (4, ["-O2", "-g1"])]
        with tempfile.TemporaryDirectory() as tmp:
            for i, (flags, opts) in enumerate(builds):
                exe = os.path.join(tmp, "w%d" % i)
                r = subprocess.run(["gcc"] + opts + [src, "-o", exe], capture_output=True)
                if r.returncode != 0:
                    print("sym: gcc %s failed, no seed" % " ".join(opts))
                    continue
                if i == 2 and shutil.which("objcopy"):
                    subprocess.run(["objcopy", "--add-gnu-debuglink=" + exe, exe,
                                    exe + ".dl"], capture_output=True)
                    if os.path.exists(exe + ".dl"):
                        exe = exe + ".dl"
                with open(exe, "rb") as f:
                    seed("sym", bytes([flags]) + f.read())
    # the vDSO of this process (an ELF image the kernel provides)
    try:
        with open("/proc/self/maps") as f:
            vdso = [ln.split()[0] for ln in f if ln.rstrip().endswith("[vdso]")]
        if vdso:
            lo, hi = (int(x, 16) for x in vdso[0].split("-"))
            with open("/proc/self/mem", "rb") as m:
                m.seek(lo)
                seed("sym", bytes([2]) + m.read(hi - lo))
    except OSError as e:
        print("sym: no vDSO image (%s)" % e)
    try:
        with open("/proc/kallsyms") as f:
            lines = f.readlines()
    except OSError:
        lines = []
    if lines and not lines[0].startswith("0000000000000000"):
        core = [ln for ln in lines if "[" not in ln]
        mods = [ln for ln in lines if "[" in ln]
        seed("sym", b"\x01" + "".join(core[:300]).encode())
        seed("sym", b"\x01" + "".join(mods[:200] + core[-50:]).encode())
    else:
        print("sym: kallsyms hidden (kptr_restrict), no kallsyms seed")
    seed("sym", b"\x01ffffffff81000000 T _stext\nffffffff81000010 t a\tb\n"
         b"ffffffff81000010 W alias\nffffffffc0000000 t mod_fn\t[ext4]\n"
         b"zzzz T bad\nffffffffc0000100 T mod_end [ext4]\n")


def main():
    args = sys.argv[1:]
    only = None
    if args[:1] == ["--only"] and len(args) >= 2:
        only, args = args[1], args[2:]
    paths = args + [os.path.join(ROOT, "examples", "data", "profileme-synthetic.data")]
    gens = [("fixtures", fixture_seeds, ()), ("event", event_seeds, ()),
            ("record", record_seeds, (paths,)), ("ibs", ibs_seeds, ()),
            ("file", file_seeds, (paths,)), ("dwarf_line", dwarf_line_seeds, ()),
            ("drain", drain_seeds, (paths,)), ("sym", sym_seeds, ()), ("live", live_seeds, ())]
    for name, fn, a in gens:
        if only is None or only == name:
            fn(*a)
    for h, n in sorted(count.items()):
        print(f"{h}: {n} seeds written")


if __name__ == "__main__":
    main()
