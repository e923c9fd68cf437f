#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Write SYNTHETIC perf.data files of the shapes met "in the wild", and a
JSON sidecar of what they hold, so that tests compare readers (profileme's
and perf's) against the generator's inputs.

  gen_wild.py KIND OUT [--expected OUT.json] [options]

Kinds:
  tp          tracepoint samples of a system that does not exist on any
              machine (probe_wild:main id 61001, probe_wild:exit id 61002),
              with the TRACING_DATA their formats describe.  --no-event-desc,
              --no-tracing, --pipe (TRACING_DATA as record 66, names by
              EVENT_UPDATE unless --no-event-desc), --trace-version 0.5|0.6,
              --big-endian, --pad16 (record 66 with a 16-byte header, as
              later perf writes it).
  names       one attr per --attr TYPE:CONFIG[:FLAGS[:PRECISE[:CONFIG1[:CONFIG2]]]]
              (flags: a string of u k h H G = exclude_user/kernel/hv/host/
              guest; --attr-file: one spec a line), no EVENT_DESC, one sample
              each (for the attr -> perf name test); --pmu-map TYPE:NAME
              writes PMU_MAPPINGS.
  perffile    a PERFFILE (version 1) file: 72-byte header (--v1-header 104
              for the later one with the feature bitmap), attr_size 80..120,
              a task-clock attr and samples.
  attr136     a file with 136-byte attrs (PERF_ATTR_SIZE_VER8: config3).
  simpleperf  a simpleperf-shaped file: features 128+ (META_INFO with
              simpleperf_version), no EVENT_DESC, records of type >= 32768.
  pipecut     a pipe stream of --samples samples whose last record is cut
              (--cut N bytes off its end) or followed by --junk N bytes
              (--junk-byte B: all of value B), or whose record --zero-at K
              has size 0 (damage in the middle); --extra-types 84,85,..: records
              of those types first; --compress2: the samples in one COMPRESSED2
              record (zstd CLI).

Formats per tools/perf/Documentation/perf.data-file-format.txt and perf's
trace-event-read.c layout (see docs/file.md).  Uses struct only.
"""
import argparse
import json
import struct
import sys

MAGIC2 = 0x32454C4946524550
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ID, SAMPLE_CPU, SAMPLE_PERIOD = 1, 2, 4, 64, 128, 256
SAMPLE_RAW, SAMPLE_IDENTIFIER = 1 << 10, 1 << 16
F_DISABLED, F_EXCLUDE_USER, F_EXCLUDE_KERNEL, F_EXCLUDE_HV = 0, 4, 5, 6
F_COMM, F_SAMPLE_ID_ALL, F_EXCLUDE_HOST, F_EXCLUDE_GUEST = 9, 18, 19, 20
PRECISE_SHIFT = 15
REC_COMM, REC_SAMPLE, REC_FINISHED_ROUND = 3, 9, 68
REC_HEADER_ATTR, REC_TRACING_DATA, REC_EVENT_UPDATE = 64, 66, 78
FEAT_TRACING_DATA, FEAT_HOSTNAME, FEAT_EVENT_DESC, FEAT_PMU_MAPPINGS = 1, 3, 12, 16
PID = 31337
COMM = "wildapp"


class W:
    def __init__(self, be=False):
        self.be = be
        self.b = bytearray()

    def put(self, fmt, *v):
        self.b += struct.pack((">" if self.be else "<") + fmt, *v)

    def raw(self, data):
        self.b += data

    def pad8(self):
        self.b += b"\0" * (-len(self.b) % 8)


def attr_bytes(be, a, size=128):
    """perf_event_attr of `size` bytes (64..136)."""
    w = W(be)
    flags = a.get("flags", 0)
    if be:  # bitfields are allocated from the most significant bit on BE
        flags = int("{:064b}".format(flags)[::-1], 2)
    w.put("IIQQQQQ", a["type"], size, a["config"], a.get("sample_period", 1),
          a["sample_type"], 0, flags)
    w.put("II", 0, 0)
    w.put("QQQ", a.get("config1", 0), a.get("config2", 0), 0)
    w.put("QIiQ", 0, 0, 0, 0)
    w.put("IHHII", 0, 0, 0, 0, 0)
    w.put("Q", 0)
    w.put("Q", a.get("config3", 0))
    return bytes(w.b[:size])


def perf_string(w, s):
    data = s.encode() + b"\0"
    n = (len(data) + 63) // 64 * 64
    w.put("I", n)
    w.raw(data + b"\0" * (n - len(data)))


def record(be, rtype, misc, body, pad=True):
    w = W(be)
    if pad:
        body = body + b"\0" * (-len(body) % 8)
    w.put("IHH", rtype, misc, 8 + len(body))
    w.raw(body)
    return bytes(w.b)


def comm_record(be, time, sid_all, with_id):
    w = W(be)
    w.put("II", PID, PID)
    name = COMM.encode() + b"\0"
    w.raw(name + b"\0" * (-len(name) % 8))
    if sid_all:
        w.put("IIQII", PID, PID, time, 0, 0)
        if with_id:
            w.put("Q", with_id)  # IDENTIFIER ends the trailer
    return record(be, REC_COMM, 0, bytes(w.b))


def sample(be, st, sid, ip, time, cpu, period, raw=None):
    w = W(be)
    if st & SAMPLE_IDENTIFIER:
        w.put("Q", sid)
    if st & SAMPLE_IP:
        w.put("Q", ip)
    if st & SAMPLE_TID:
        w.put("II", PID, PID)
    if st & SAMPLE_TIME:
        w.put("Q", time)
    if st & SAMPLE_ID:
        w.put("Q", sid)
    if st & SAMPLE_CPU:
        w.put("II", cpu, 0)
    if st & SAMPLE_PERIOD:
        w.put("Q", period)
    if st & SAMPLE_RAW:
        n = len(raw) + (-(len(raw) + 4) % 8)
        w.put("I", n)
        w.raw(raw + b"\0" * (n - len(raw)))
    return record(be, REC_SAMPLE, 2, bytes(w.b), pad=False)


def file_mode(be, attrs, data, feats, attr_size=128, magic=None, hdr_size=104):
    """attrs: list of (attr dict, [ids]); feats: {bit: bytes}."""
    ids_blob = W(be)
    ids_off = []
    base = hdr_size
    for _a, ids in attrs:
        ids_off.append(base + len(ids_blob.b))
        for i in ids:
            ids_blob.put("Q", i)
    attrs_off = base + len(ids_blob.b)
    entry = attr_size
    attrs_blob = W(be)
    for (a, ids), off in zip(attrs, ids_off):
        attrs_blob.raw(attr_bytes(be, a, entry - 16))
        attrs_blob.put("QQ", off, 8 * len(ids))
    data_off = attrs_off + len(attrs_blob.b)
    data_off += -data_off % 8
    fids = sorted(feats)
    feat_off = data_off + len(data)
    table = W(be)
    payload = feat_off + 16 * len(fids)
    blobs = b""
    for fid in fids:
        table.put("QQ", payload + len(blobs), len(feats[fid]))
        blobs += feats[fid]
    h = W(be)
    h.raw(magic if magic is not None else struct.pack(">Q" if be else "<Q", MAGIC2))
    h.put("QQ", hdr_size, entry)
    h.put("QQQQQQ", attrs_off, len(attrs_blob.b), data_off, len(data), 0, 0)
    if hdr_size == 104:
        bitmap = 0
        for fid in fids:
            bitmap |= 1 << fid
        for k in range(4):
            h.put("Q", (bitmap >> (64 * k)) & (2**64 - 1))
    out = bytearray(h.b) + ids_blob.b + attrs_blob.b
    out += b"\0" * (data_off - len(out))
    out += data + (bytes(table.b) + blobs if fids else b"")
    return bytes(out)


def event_desc(be, attrs, names, attr_size=128):
    w = W(be)
    w.put("II", len(attrs), attr_size)
    for (a, ids), n in zip(attrs, names):
        w.raw(attr_bytes(be, a, attr_size))
        w.put("I", len(ids))
        perf_string(w, n)
        for i in ids:
            w.put("Q", i)
    return bytes(w.b)


# ------------------------------------------------------------------ tp

COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
TP_MAIN = ("name: main\nID: 61001\nformat:\n" + COMMON +
           "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
           "\tfield:int argc;\toffset:16;\tsize:4;\tsigned:1;\n"
           "\tfield:short delta;\toffset:20;\tsize:2;\tsigned:1;\n"
           "\tfield:char tag[8];\toffset:22;\tsize:8;\tsigned:0;\n"
           "\tfield:__data_loc char[] path;\toffset:32;\tsize:4;\tsigned:0;\n"
           "\tfield:unsigned int vals[3];\toffset:36;\tsize:12;\tsigned:0;\n\n"
           "print fmt: \"(%lx) argc=%d delta=%d tag=%s path=%s\", REC->__probe_ip, REC->argc, "
           "REC->delta, REC->tag, __get_str(path)\n")
TP_EXIT = ("name: exit\nID: 61002\nformat:\n" + COMMON +
           "\tfield:long code;\toffset:8;\tsize:8;\tsigned:1;\n"
           "\tfield:unsigned char flag;\toffset:16;\tsize:1;\tsigned:0;\n\n"
           "print fmt: \"code=%ld flag=%u\", REC->code, REC->flag\n")
TP_IDS = {"main": 61001, "exit": 61002}


def tracing_data(be, version="0.6"):
    w = W(be)
    w.raw(bytes([23, 8, 68]) + b"tracing")
    w.raw(version.encode() + b"\0")
    w.raw(bytes([1 if be else 0, 8]))
    w.put("I", 4096)
    hp = (b"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
          b"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
          b"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
          b"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n")
    w.raw(b"header_page\0")
    w.put("Q", len(hp))
    w.raw(hp)
    he = b"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
    w.raw(b"header_event\0")
    w.put("Q", len(he))
    w.raw(he)
    w.put("I", 0)                        # ftrace formats
    w.put("I", 1)                        # systems
    w.raw(b"probe_wild\0")
    w.put("I", 2)
    for t in (TP_MAIN, TP_EXIT):
        w.put("Q", len(t))
        w.raw(t.encode())
    ks = b"ffffffff81000000 T _stext\n"  # old perf wrote /proc/kallsyms here
    w.put("I", len(ks))
    w.raw(ks)
    pk = b"0xffffffff82000000 : \"wild %d\\n\"\n"
    w.put("I", len(pk))
    w.raw(pk)
    if float(version) >= 0.6:
        sc = b"31337 wildapp\n"
        w.put("Q", len(sc))
        w.raw(sc)
    return bytes(w.b)


def tp_payload(be, kind, i):
    e = ">" if be else "<"
    common = struct.pack(e + "HBBi", TP_IDS[kind], 0, 1, PID)
    if kind == "main":
        path = ("/opt/wild/%d" % i).encode() + b"\0"
        tag = ("t%d" % i).encode()[:7]
        vals = [i, 2**32 - 1 - i, 7]
        body = struct.pack(e + "Qih", 0x401000 + i, 1 + i, -100 + 37 * i)
        body += tag + b"\0" * (8 - len(tag)) + b"\0\0"
        body += struct.pack(e + "I", len(path) << 16 | 48)
        body += struct.pack(e + "III", *vals)
        raw = common + body + path
        exp = {"__probe_ip": 0x401000 + i, "argc": 1 + i, "delta": -100 + 37 * i,
               "tag": tag.decode(), "path": path[:-1].decode(), "vals": vals}
    else:
        code = -i - 1
        raw = common + struct.pack(e + "qB", code, i & 0xff)
        exp = {"code": code, "flag": i & 0xff}
    return raw, exp


def gen_tp(args):
    be = args.big_endian
    st = SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU | \
        SAMPLE_PERIOD | SAMPLE_RAW
    flags = 1 << F_DISABLED | 1 << F_COMM | 1 << F_SAMPLE_ID_ALL | 1 << F_EXCLUDE_GUEST
    attrs = [(dict(type=2, config=TP_IDS["main"], sample_type=st, flags=flags), [101, 102]),
             (dict(type=2, config=TP_IDS["exit"], sample_type=st, flags=flags & ~(1 << F_COMM)),
              [201])]
    names = ["probe_wild:main", "probe_wild:exit"]
    t0 = 5000000000
    data = comm_record(be, t0, True, 101)
    exp = []
    for i in range(args.samples):
        kind = "main" if i % 3 else "exit"
        raw, fields = tp_payload(be, kind, i)
        sid = (101 + i % 2) if kind == "main" else 201
        t = t0 + 1000 * (i + 1)
        data += sample(be, st, sid, 0xffffffff81100000 + i, t, i % 2, 1, raw)
        exp.append({"event": "probe_wild:" + kind, "time": t, "cpu": i % 2, "tp": fields})
    td = tracing_data(be, args.trace_version)
    if args.pipe:
        out = bytearray(struct.pack(">QQ" if be else "<QQ", MAGIC2, 16))
        for a, ids in attrs:
            w = W(be)
            w.raw(attr_bytes(be, a))
            for i in ids:
                w.put("Q", i)
            out += record(be, REC_HEADER_ATTR, 0, bytes(w.b))
        if not args.no_tracing:
            hs = 16 if args.pad16 else 12
            n = len(td) + (-len(td) % 8)
            w = W(be)
            w.put("IHHI", REC_TRACING_DATA, 0, hs, n)
            w.raw(b"\0" * (hs - 12))
            out += w.b + td + b"\0" * (n - len(td))
        if not args.no_event_desc:
            for (a, ids), nm in zip(attrs, names):
                w = W(be)
                w.put("QQ", 2, ids[0])     # PERF_EVENT_UPDATE__NAME
                w.raw(nm.encode() + b"\0")
                out += record(be, REC_EVENT_UPDATE, 0, bytes(w.b))
        out += data + record(be, REC_FINISHED_ROUND, 0, b"")
        out = bytes(out)
    else:
        feats = {}
        if not args.no_tracing:
            feats[FEAT_TRACING_DATA] = td
        if not args.no_event_desc:
            feats[FEAT_EVENT_DESC] = event_desc(be, attrs, names)
        w = W(be)
        perf_string(w, "wild-synthetic")
        feats[FEAT_HOSTNAME] = bytes(w.b)
        out = file_mode(be, attrs, data, feats)
    named = not args.no_tracing or not args.no_event_desc
    for e in exp:
        if not named:
            e["event"] = "tracepoint:%d" % TP_IDS[e["event"].split(":")[1]]
        if args.no_tracing:
            del e["tp"]
    return out, {"synthetic": True, "samples": exp}


# ---------------------------------------------------------------- names

def parse_attr_spec(spec):
    parts = spec.split(":")
    a = dict(type=int(parts[0], 0), config=int(parts[1], 0),
             sample_type=SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_PERIOD | SAMPLE_ID,
             sample_period=4000, flags=1 << F_DISABLED | 1 << F_SAMPLE_ID_ALL)
    for ch in parts[2] if len(parts) > 2 else "":
        a["flags"] |= 1 << {"u": F_EXCLUDE_USER, "k": F_EXCLUDE_KERNEL, "h": F_EXCLUDE_HV,
                            "H": F_EXCLUDE_HOST, "G": F_EXCLUDE_GUEST}[ch]
    if len(parts) > 3:
        a["flags"] |= int(parts[3]) << PRECISE_SHIFT
    for k, v in zip(("config1", "config2"), parts[4:]):
        a[k] = int(v, 0)
    return a


def gen_names(args):
    attrs = []
    data = b""
    for k, spec in enumerate(args.attr):
        a = parse_attr_spec(spec)
        attrs.append((a, [1000 + k]))
        data += sample(False, a["sample_type"], 1000 + k, 0x401000, 1000000 + k, 0, 4000)
    w = W(False)
    perf_string(w, "wild-synthetic")
    feats = {FEAT_HOSTNAME: bytes(w.b)}
    if args.pmu_map:
        w = W(False)
        w.put("I", len(args.pmu_map))
        for m in args.pmu_map:
            t, n = m.split(":", 1)
            w.put("I", int(t))
            perf_string(w, n)
        feats[FEAT_PMU_MAPPINGS] = bytes(w.b)
    out = file_mode(False, attrs, data, feats)
    return out, {"synthetic": True, "attrs": args.attr}


# ------------------------------------------------------- old and new formats

def task_clock_samples(be, st, n, sid=7):
    return b"".join(sample(be, st, sid, 0x401000 + 16 * i, 1000000 + 1000 * i, 0, 250000)
                    for i in range(n))


def gen_perffile(args):
    be = args.big_endian
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_PERIOD
    asz = args.attr_size  # an attr of VER0..VER4 size; the entry adds 16
    a = dict(type=1, config=1, sample_type=st, sample_period=250000, flags=1 << F_DISABLED)
    data = task_clock_samples(be, st, args.samples)
    feats = {}
    if args.v1_header == 104:
        w = W(be)
        perf_string(w, "wild-v1")
        feats[FEAT_HOSTNAME] = bytes(w.b)
        # BUILD_ID entries in the oldest layout (no pid): header, build_id[24], name
        w = W(be)
        for k, name in enumerate(("[kernel.kallsyms]", "/usr/bin/wildapp")):
            body = bytes(range(k * 20, k * 20 + 20)) + b"\0" * 4
            nm = name.encode() + b"\0"
            nm += b"\0" * (-len(nm) % 8)
            w.put("IHH", 0, 1 if k == 0 else 2, 8 + len(body) + len(nm))
            w.raw(body + nm)
        feats[2] = bytes(w.b)
    out = file_mode(be, [(a, [7])], data, feats, attr_size=asz + 16, magic=b"PERFFILE",
                    hdr_size=args.v1_header)
    exp = [{"ip": 0x401000 + 16 * i, "time": 1000000 + 1000 * i} for i in range(args.samples)]
    return out, {"synthetic": True, "samples": exp}


def gen_attr136(args):
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_PERIOD
    a = dict(type=1, config=1, sample_type=st, sample_period=250000, flags=1 << F_DISABLED,
             config3=0)
    data = task_clock_samples(False, st, args.samples)
    out = file_mode(False, [(a, [7])], data, {}, attr_size=136 + 16)
    exp = [{"ip": 0x401000 + 16 * i, "time": 1000000 + 1000 * i} for i in range(args.samples)]
    return out, {"synthetic": True, "samples": exp}


def gen_simpleperf(args):
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_PERIOD
    a = dict(type=1, config=1, sample_type=st, sample_period=250000, flags=1 << F_DISABLED)
    data = task_clock_samples(False, st, args.samples)
    # a simpleperf DEBUG record (32778): {u32 type; u16 size1; u16 size0}
    body = struct.pack("<Q", 1) + b"hello\0\0\0"
    data += struct.pack("<IHH", 32778, 0, 8 + len(body)) + body
    meta = b"simpleperf_version\0" + b"1.build.7\0" + b"event_type_info\0task-clock,1,1\n\0"
    w = W(False)
    w.put("I", 3)
    for s in ("/system/bin/simpleperf", "record", "-e"):
        perf_string(w, s)
    feats = {11: bytes(w.b), 129: meta}
    out = file_mode(False, [(a, [7])], data, feats)
    return out, {"synthetic": True}


def gen_pipecut(args):
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_PERIOD
    a = dict(type=1, config=1, sample_type=st, sample_period=250000, flags=1 << F_DISABLED)
    out = bytearray((b"PERFFILE" if args.v1_magic else struct.pack("<Q", MAGIC2)) +
                    struct.pack("<Q", 16))
    w = W(False)
    w.raw(attr_bytes(False, a))
    w.put("Q", 7)
    out += record(False, REC_HEADER_ATTR, 0, bytes(w.b))
    recs = [sample(False, st, 7, 0x401000 + 16 * i, 1000000 + 1000 * i, 0, 250000)
            for i in range(args.samples)]
    for t in args.extra_types:
        # records perf 6.16 may write (BPF_METADATA 84, SCHEDSTAT_CPU 85,
        # SCHEDSTAT_DOMAIN 86, ...): bodies a reader must skip by size
        out += record(False, t, 0, struct.pack("<QQ", t, 0x5157))
    if args.compress2:
        # COMPRESSED2 (83): u64 data size, a zstd frame of the records, padded
        import subprocess
        z = subprocess.run(["zstd", "-q", "-c", "-"], input=b"".join(recs), check=True,
                           stdout=subprocess.PIPE).stdout
        w = W(False)
        w.put("Q", len(z))
        w.raw(z)
        out += record(False, 83, 0, bytes(w.b))
        recs = []
    good = args.samples
    starts = []
    for r in recs:
        starts.append(len(out))
        out += r
    if args.zero_at is not None:
        # a record in the middle with size 0: damage, not an end
        struct.pack_into("<H", out, starts[args.zero_at] + 6, 0)
    bad_at = len(out)
    if args.cut:
        bad_at = len(out) - len(recs[-1])
        del out[len(out) - args.cut:]
        good -= 1
    if args.junk:
        out += bytes(args.junk_byte if args.junk_byte is not None else (0xA5 + 3 * i) & 0xff
                     for i in range(args.junk))
    if args.zero_at is not None:
        good, bad_at = args.zero_at, starts[args.zero_at]
    elif args.junk and not args.cut:
        bad_at = len(out) - args.junk
    exp = [{"ip": 0x401000 + 16 * i, "time": 1000000 + 1000 * i} for i in range(good)]
    return bytes(out), {"synthetic": True, "samples": exp, "damage_offset": bad_at}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=["tp", "names", "perffile", "attr136", "simpleperf",
                                     "pipecut"])
    ap.add_argument("out")
    ap.add_argument("--expected")
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--big-endian", action="store_true")
    ap.add_argument("--pipe", action="store_true")
    ap.add_argument("--pad16", action="store_true")
    ap.add_argument("--no-event-desc", action="store_true")
    ap.add_argument("--no-tracing", action="store_true")
    ap.add_argument("--trace-version", default="0.6")
    ap.add_argument("--attr", action="append", default=[])
    ap.add_argument("--attr-file", help="more --attr specs, one per line")
    ap.add_argument("--pmu-map", action="append", default=[], help="TYPE:NAME for PMU_MAPPINGS")
    ap.add_argument("--attr-size", type=int, default=104)
    ap.add_argument("--v1-header", type=int, default=72, choices=[72, 104])
    ap.add_argument("--cut", type=int, default=0)
    ap.add_argument("--junk", type=int, default=0)
    ap.add_argument("--junk-byte", type=int)
    ap.add_argument("--zero-at", type=int)
    ap.add_argument("--extra-types", type=lambda v: [int(x) for x in v.split(",")], default=[])
    ap.add_argument("--compress2", action="store_true")
    ap.add_argument("--v1-magic", action="store_true", help="pipecut: a PERFFILE pipe header")
    args = ap.parse_args(argv)
    if args.attr_file:
        args.attr += [x.strip() for x in open(args.attr_file) if x.strip()]
    out, exp = globals()["gen_" + args.kind](args)
    with open(args.out, "wb") as f:
        f.write(out)
    if args.expected:
        with open(args.expected, "w") as f:
            json.dump(exp, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
