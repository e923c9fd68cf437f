#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Write a SYNTHETIC AMD IBS perf.data file (ibs_op and ibs_fetch samples of a
Zen 4), and a JSON sidecar of every value it chose, so that tests compare the
decoders and `profileme report` against these inputs.

  gen_ibs.py OUT.data [--expected OUT.json] [--samples N] [--seed S] [--symfs DIR]

The recording looks like `perf record -e ibs_op/cnt_ctl=1/ -e ibs_fetch// -c
100000 ./ibsdemo` on an AMD family 19h model 11h (Zen 4): ARCH "x86_64",
CPUID "AuthenticAMD,25,17,1", PMU_MAPPINGS with `ibs_fetch` (type 10) and
`ibs_op` (type 11), PMU_CAPS `zen4_ibs_extensions=1` for both; two attrs,
sample_type IDENTIFIER|IP|TID|TIME|CPU|PERIOD|RAW, sample_id_all; a COMM
and an MMAP2 of /usr/bin/ibsdemo (a real tiny x86-64 ELF, DIR/usr/bin/ibsdemo,
default examples/data/symfs).  Every sample lies on an instruction of one of
its functions (objdump -d gives the instruction addresses and the kind of
each: load, store, branch, other), with IBS register values chosen for that
kind and function.

The payloads are what the upstream driver writes: u32 caps, then the MSRs
(op: IBS_OP_CTL, IBS_OP_RIP, IBS_OP_DATA, IBS_OP_DATA2, IBS_OP_DATA3,
IBS_DC_LINADDR, IBS_DC_PHYSADDR, BP_IBSTGT_RIP; fetch: IBS_FETCH_CTL,
IBS_FETCH_LINADDR, IBS_FETCH_PHYSADDR, IC_IBS_EXTD_CTL), little endian.  As the
driver does, an op sample's ip is IbsOpRip and its misc has EXACT_IP, except
when RipInvalid (IBS_OP_DATA[38]) is set: then the ip is the interrupted one
(another instruction) and there is no EXACT_IP.  A few exact samples carry
an ip that differs from IbsOpRip (`ip_differs`), which a reader must count
and overrule.  A fetch sample's ip is IbsFetchLinAd.  A few payloads do not
decode (caps only: no control register), for `raw_error`.  Samples are user
mode only (no kernel symbols are bundled for x86-64).
"""
import argparse
import json
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_profileme as gp  # noqa: E402  (byte writer, records, ELF reader)

ATTR_SIZE = 128
TYPE_FETCH, TYPE_OP = 10, 11
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_CPU, SAMPLE_PERIOD, SAMPLE_RAW, SAMPLE_IDENTIFIER = (
    1 << 0, 1 << 1, 1 << 2, 1 << 7, 1 << 8, 1 << 10, 1 << 16)
F_DISABLED, F_MMAP, F_COMM, F_SAMPLE_ID_ALL, F_MMAP2, F_COMM_EXEC = 0, 8, 9, 18, 23, 24
REC_MMAP2, REC_COMM, REC_SAMPLE = 10, 3, 9
MISC_USER, MISC_EXACT_IP, MISC_COMM_EXEC = 2, 1 << 14, 1 << 13
FEAT = dict(HOSTNAME=3, OSRELEASE=4, VERSION=5, ARCH=6, NRCPUS=7, CPUDESC=8, CPUID=9,
            CMDLINE=11, EVENT_DESC=12, PMU_MAPPINGS=16, PMU_CAPS=31)
# IBS caps (arch/x86/include/asm/perf_event.h IBS_CAPS_*): AVAIL, FETCHSAM, OPSAM,
# RDWROPCNT, OPCNT, BRNTRGT, OPCNTEXT, RIPINVALIDCHK, OPBRNFUSE, FETCHCTLEXTD, ZEN4
CAPS = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x200 | 0x800
PERIOD = 100000
PID = 5151
COMM = "ibsdemo"
EXE = "/usr/bin/ibsdemo"
PAGE = 4096
PICK = ["main", "stream_sum", "pointer_chase", "branchy", "store_fill"]
CPUID = "AuthenticAMD,25,17,1"
EVENTS = ["ibs_op/cnt_ctl=1/", "ibs_fetch//"]
# Zen 4 DataSrc codes (IBS_OP_DATA2[7:6,2:0]) and the decoder's names for them.
DATA_SRC_NAMES = {0: "none", 1: "Local L3 or other L1/L2 in CCX",
                  2: "Another CCX cache in the same NUMA node", 3: "DRAM",
                  5: "Another CCX cache in a different NUMA node"}
ARR, NODES = 0x443000, 0x403000      # ibsdemo's .bss arrays (nm)


def instructions(path, funcs):
    """{function: [(addr, kind)]} from objdump -d: kind is load, store, branch or other."""
    try:
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit("gen_ibs.py needs objdump (binutils) for %s: %s" % (path, e))
    res = {n: [] for n, _, _ in funcs}
    for line in out.splitlines():
        head, _, rest = line.partition(":\t")
        try:
            addr = int(head.strip(), 16)
        except ValueError:
            continue
        parts = rest.split(None, 1)
        if not parts:
            continue
        mn, ops = parts[0], parts[1] if len(parts) > 1 else ""
        if mn.startswith("nop") or mn in ("data16", "cs", "xchg"):
            continue
        if mn.startswith("j") or mn.startswith("call") or mn.startswith("ret"):
            kind = "branch"
        elif "(" in ops and not mn.startswith("lea"):
            kind = "store" if "(" in ops.rsplit(",", 1)[-1] else "load"
        else:
            kind = "other"
        for n, lo, hi in funcs:
            if lo <= addr < hi:
                res[n].append((addr, kind))
    return res



def choose_op(rng, fname, addr, kind, insns):
    """IBS op register values for one sampled op (chosen), and the fields."""
    f = dict(comp_to_ret_ctr=rng.randint(1, 40), ld_op=0, st_op=0, dc_miss=0, l2_miss=0,
             data_src=0, dc_l1tlb_miss=0, dc_l2tlb_miss=0, dc_miss_lat=0, tlb_refill_lat=0,
             brn_ret=0, brn_taken=0, brn_misp=0, op_return=0, rip_invalid=0, rmt_node=0,
             mem_width=0, dc_linaddr=None, dc_physaddr=None, br_target=None)
    f["tag_to_ret_ctr"] = f["comp_to_ret_ctr"] + rng.randint(0, 60)
    if kind in ("load", "store"):
        f["ld_op" if kind == "load" else "st_op"] = 1
        f["mem_width"] = 4                           # 2^(4-1) = 8 bytes
        base = NODES if fname == "pointer_chase" else ARR
        lin = base + rng.randrange(0, 0x8000, 8)
        f["dc_linaddr"], f["dc_physaddr"] = lin, 0x1_2300_0000 + (lin & 0xFFFFF)
        miss_p = {"pointer_chase": 0.7, "stream_sum": 0.15, "store_fill": 0.1}.get(fname, 0.05)
        if rng.random() < miss_p:
            f["dc_miss"] = 1
            if fname == "pointer_chase":
                f["data_src"] = rng.choice([3, 3, 3, 1, 2, 5])
                f["dc_miss_lat"] = rng.randint(150, 700)
                f["l2_miss"] = 1
                f["tag_to_ret_ctr"] += f["dc_miss_lat"]
            else:
                f["data_src"] = rng.choice([0, 0, 1])
                f["dc_miss_lat"] = rng.randint(12, 90)
                f["l2_miss"] = int(f["data_src"] != 0)
            if f["data_src"] == 5:
                f["rmt_node"] = 1
        if rng.random() < (0.3 if fname == "pointer_chase" else 0.03):
            f["dc_l1tlb_miss"] = 1
            f["dc_l2tlb_miss"] = int(rng.random() < 0.4)
            f["tlb_refill_lat"] = rng.randint(20, 300)
    elif kind == "branch":
        f["brn_ret"] = 1
        f["brn_taken"] = int(rng.random() < 0.6)
        f["brn_misp"] = int(rng.random() < (0.35 if fname == "branchy" else 0.03))
        tgt = rng.choice(insns)[0]
        f["br_target"] = tgt if f["brn_taken"] else addr + 2
    return f


def op_regs(f, rip, curcnt):
    ctl = (PERIOD >> 4 & 0xFFFF) | 1 << 17 | 1 << 18 | 1 << 19 | ((PERIOD >> 20) & 0x7F) << 20 | \
        curcnt << 32
    data = (f["comp_to_ret_ctr"] | f["tag_to_ret_ctr"] << 16 | f["op_return"] << 34 |
            f["brn_taken"] << 35 | f["brn_misp"] << 36 | f["brn_ret"] << 37 |
            f["rip_invalid"] << 38)
    src = f["data_src"]
    data2 = (src & 7) | f["rmt_node"] << 4 | (src >> 3) << 6
    lin_ok, phys_ok = f["dc_linaddr"] is not None, f["dc_physaddr"] is not None
    data3 = (f["ld_op"] | f["st_op"] << 1 | f["dc_l1tlb_miss"] << 2 | f["dc_l2tlb_miss"] << 3 |
             f["dc_miss"] << 7 | int(lin_ok) << 17 | int(phys_ok) << 18 | f["l2_miss"] << 20 |
             f["mem_width"] << 22 | f["dc_miss_lat"] << 32 | f["tlb_refill_lat"] << 48)
    return [ctl, rip, data, data2, data3, f["dc_linaddr"] or 0, f["dc_physaddr"] or 0,
            f["br_target"] or 0]


def fetch_regs(rng, addr):
    f = dict(fetch_lat=rng.randint(2, 40), ic_miss=int(rng.random() < 0.15),
             l1tlb_miss=int(rng.random() < 0.05), l2tlb_miss=0, l2_miss=0, l3_miss=0,
             oc_miss=int(rng.random() < 0.3), pgsz=0, phy_addr_valid=1, itlb_refill_lat=0)
    if f["ic_miss"]:
        f["fetch_lat"] += rng.randint(10, 200)
        f["l2_miss"] = int(rng.random() < 0.4)
        f["l3_miss"] = int(f["l2_miss"] and rng.random() < 0.5)
    if f["l1tlb_miss"]:
        f["l2tlb_miss"] = int(rng.random() < 0.5)
        f["itlb_refill_lat"] = rng.randint(10, 120)
    f["pgsz"] = rng.choice([0, 0, 0, 1])          # 4KB or 2MB
    ctl = ((PERIOD >> 4) & 0xFFFF | ((PERIOD >> 4) & 0xFFFF) << 16 | f["fetch_lat"] << 32 |
           1 << 48 | 1 << 49 | 1 << 50 | f["ic_miss"] << 51 | f["phy_addr_valid"] << 52 |
           f["pgsz"] << 53 | f["l1tlb_miss"] << 55 | f["l2tlb_miss"] << 56 | 1 << 57 |
           f["l2_miss"] << 58 | f["oc_miss"] << 60 | f["l3_miss"] << 61)
    return f, [ctl, addr, 0x1_2300_0000 + (addr & 0xFFFFF), f["itlb_refill_lat"]]


def payload(regs):
    return struct.pack("<I", CAPS) + b"".join(struct.pack("<Q", r) for r in regs)


def choose_samples(rng, n, insns):
    weights = {"main": 1, "stream_sum": 3, "pointer_chase": 4, "branchy": 3, "store_fill": 2}
    names = [k for k in PICK for _ in range(weights[k])]
    all_insns = [(fn, a, k) for fn in PICK for a, k in insns[fn]]
    samples = []
    t = 2_000_000_000
    for i in range(n):
        t += rng.randint(20_000, 80_000)
        fname = rng.choice(names)
        addr, kind = rng.choice(insns[fname])
        s = dict(index=i, time=t, cpu=rng.randint(0, 3), tid=PID, period=PERIOD, symbol=fname)
        if rng.random() < 0.7:
            f = choose_op(rng, fname, addr, kind, insns[fname])
            ip, exact, misc = addr, True, MISC_USER | MISC_EXACT_IP
            r = rng.random()
            if r < 0.06:
                # RipInvalid: the driver writes the interrupted ip, no EXACT_IP
                f["rip_invalid"] = 1
                ofn, ip, _ = rng.choice(all_insns)
                exact, misc = False, MISC_USER
            elif r < 0.09:
                # the recording's ip disagrees with a valid IbsOpRip
                ofn, ip, _ = rng.choice([x for x in all_insns if x[1] != addr])
            regs = op_regs(f, addr, rng.randint(0, 0x3FF))
            s.update(event="ibs_op", kind=kind, ip=ip, misc=misc, rip=addr, fields=f, regs=regs,
                     payload=payload(regs))
            s["expected"] = dict(exact=exact, charge=addr if exact else ip,
                                 charge_symbol=fname if exact else ofn,
                                 ip_differs=exact and ip != addr,
                                 data_src_name=DATA_SRC_NAMES[f["data_src"]])
        else:
            f, regs = fetch_regs(rng, addr)
            s.update(event="ibs_fetch", kind="fetch", ip=addr, misc=MISC_USER | MISC_EXACT_IP,
                     fields=f, regs=regs, payload=payload(regs))
            s["expected"] = dict(exact=True, charge=addr, charge_symbol=fname, ip_differs=False)
        samples.append(s)
    # payloads that do not decode: the caps word only (no control register)
    main_pc = insns["main"][0][0]
    for j, ev in enumerate(["ibs_op", "ibs_fetch"]):
        t += 50_000
        samples.append(dict(index=n + j, time=t, cpu=0, tid=PID, period=PERIOD, event=ev,
                            kind="bad", ip=main_pc, misc=MISC_USER, symbol="main",
                            payload=struct.pack("<I", CAPS), raw_error="truncated",
                            reason="caps only: no control register"))
    return samples


def attr_bytes(attr):
    w = gp.W(False)
    w.put("IIQQQQQ", attr["type"], ATTR_SIZE, attr["config"], attr["sample_period"],
          attr["sample_type"], 0, attr["flags"])
    w.put("II", 0, 0)
    w.put("QQQ", 0, 0, 0)
    w.put("Q", 0)
    w.put("Ii", 0, 0)
    w.put("Q", 0)
    w.put("IHH", 0, 0, 0)
    w.put("II", 0, 0)
    w.put("Q", 0)
    assert len(w.b) == ATTR_SIZE
    return bytes(w.b)


def make_attrs():
    st = SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU | SAMPLE_PERIOD | \
        SAMPLE_RAW
    flags = (1 << F_DISABLED | 1 << F_MMAP | 1 << F_COMM | 1 << F_SAMPLE_ID_ALL | 1 << F_MMAP2 |
             1 << F_COMM_EXEC)
    return [dict(name=EVENTS[0], type=TYPE_OP, config=1 << 19, sample_period=PERIOD,
                 sample_type=st, flags=flags, id=101),
            dict(name=EVENTS[1], type=TYPE_FETCH, config=0, sample_period=PERIOD,
                 sample_type=st, flags=flags, id=102)]


def trailer(w, tid, time, cpu, ident):
    w.put("II", PID, tid)
    w.put("Q", time)
    w.put("II", cpu, 0)
    w.put("Q", ident)


def sample_record(s, ident):
    w = gp.W(False)
    w.put("Q", ident)
    w.put("Q", s["ip"])
    w.put("II", PID, s["tid"])
    w.put("Q", s["time"])
    w.put("II", s["cpu"], 0)
    w.put("Q", s["period"])
    p = s["payload"]
    assert (len(p) + 4) % 8 == 0, len(p)
    w.put("I", len(p))
    w.raw(p)
    return gp.record(False, REC_SAMPLE, s["misc"], bytes(w.b))


def side_records(t0, ident, exe_base, exe_len, exe_pgoff):
    w = gp.W(False)
    w.put("II", PID, PID)
    w.raw(COMM.encode() + b"\0")
    w.pad8()
    trailer(w, PID, t0, 0, ident)
    out = gp.record(False, REC_COMM, MISC_COMM_EXEC, bytes(w.b))
    w = gp.W(False)
    w.put("II", PID, PID)
    w.put("QQQ", exe_base, exe_len, exe_pgoff)
    w.put("IIQQ", 8, 1, 654321, 0)
    w.put("II", 5, 2)
    w.raw(EXE.encode() + b"\0")
    w.pad8()
    trailer(w, PID, t0 + 10, 0, ident)
    return out + gp.record(False, REC_MMAP2, MISC_USER, bytes(w.b))


def features(attrs):
    out = {}
    for name, s in [("HOSTNAME", "ibs-synthetic"), ("OSRELEASE", "6.12.0-synthetic"),
                    ("VERSION", "6.12.synthetic"), ("ARCH", "x86_64"),
                    ("CPUDESC", "AMD EPYC 9004 (Zen 4, synthetic)"), ("CPUID", CPUID)]:
        w = gp.W(False)
        gp.perf_string(w, s)
        out[FEAT[name]] = bytes(w.b)
    w = gp.W(False)
    w.put("II", 4, 4)
    out[FEAT["NRCPUS"]] = bytes(w.b)
    argv = ["perf", "record"] + [x for e in EVENTS for x in ("-e", e)] + ["-c", str(PERIOD),
                                                                         "./ibsdemo"]
    w = gp.W(False)
    w.put("I", len(argv))
    for a in argv:
        gp.perf_string(w, a)
    out[FEAT["CMDLINE"]] = bytes(w.b)
    w = gp.W(False)
    w.put("II", len(attrs), ATTR_SIZE)
    for a in attrs:
        w.raw(attr_bytes(a))
        w.put("I", 1)
        gp.perf_string(w, a["name"])
        w.put("Q", a["id"])
    out[FEAT["EVENT_DESC"]] = bytes(w.b)
    maps = [(4, "cpu"), (1, "software"), (2, "tracepoint"), (TYPE_FETCH, "ibs_fetch"),
            (TYPE_OP, "ibs_op"), (5, "breakpoint")]
    w = gp.W(False)
    w.put("I", len(maps))
    for t, n in maps:
        w.put("I", t)
        gp.perf_string(w, n)
    out[FEAT["PMU_MAPPINGS"]] = bytes(w.b)
    # PMU_CAPS: nr_pmu, then per PMU: nr_caps, (name, value) strings, PMU name
    w = gp.W(False)
    w.put("I", 2)
    for pmu in ("ibs_op", "ibs_fetch"):
        w.put("I", 1)
        gp.perf_string(w, "zen4_ibs_extensions")
        gp.perf_string(w, "1")
        gp.perf_string(w, pmu)
    out[FEAT["PMU_CAPS"]] = bytes(w.b)
    return out


def write(path, samples, exe):
    attrs = make_attrs()
    ident = {a["name"].split("/")[0]: a["id"] for a in attrs}
    t0 = samples[0]["time"] - 1000
    data = side_records(t0, attrs[0]["id"], *exe)
    data += b"".join(sample_record(s, ident[s["event"]]) for s in samples)
    feats = features(attrs)
    out = gp.file_mode(False, [(attr_bytes(a), [a["id"]]) for a in attrs], data, feats)
    with open(path, "wb") as f:
        f.write(out)
    return attrs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--expected", help="write the JSON sidecar of chosen values here")
    ap.add_argument("--samples", type=int, default=400)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--symfs", default=gp.SYMFS,
                    help="directory with usr/bin/ibsdemo (x86-64 ELF) (default: %(default)s)")
    a = ap.parse_args(argv)
    path = os.path.join(a.symfs, EXE.lstrip("/"))
    all_funcs, (vaddr, offset, memsz) = gp.read_elf_funcs(path, machine=62)
    funcs = [f for n in PICK for f in all_funcs if f[0] == n]
    if len(funcs) != len(PICK):
        raise SystemExit("%s: missing functions: have %s" % (path, [f[0] for f in all_funcs]))
    insns = instructions(path, funcs)
    exe_base = vaddr & ~(PAGE - 1)
    exe_pgoff = offset & ~(PAGE - 1)
    exe_len = (vaddr + memsz + PAGE - 1) // PAGE * PAGE - exe_base
    rng = random.Random(a.seed)
    samples = choose_samples(rng, a.samples, insns)
    attrs = write(a.out, samples, (exe_base, exe_len, exe_pgoff))
    if a.expected:
        for s in samples:
            s["payload"] = s["payload"].hex()
        meta = dict(synthetic=True, generator="tests/gen/gen_ibs.py", seed=a.seed, arch="x86_64",
                    cpuid=CPUID, caps=CAPS, period=PERIOD,
                    pmu_mappings={str(TYPE_FETCH): "ibs_fetch", str(TYPE_OP): "ibs_op"},
                    pmu_caps={"ibs_op": {"zen4_ibs_extensions": "1"},
                              "ibs_fetch": {"zen4_ibs_extensions": "1"}},
                    attrs=[dict(name=x["name"], type=x["type"], config=x["config"],
                                sample_type=x["sample_type"], id=x["id"]) for x in attrs],
                    comm=dict(pid=PID, comm=COMM),
                    mmap2=dict(pid=PID, start=exe_base, len=exe_len, pgoff=exe_pgoff, filename=EXE),
                    functions=[dict(name=n, start=lo, end=hi, module=COMM) for n, lo, hi in all_funcs],
                    note="expected.* follow the IBS attribution rule applied to the chosen "
                         "inputs: charge = IbsOpRip / IbsFetchLinAd when valid, else the sample ip")
        with open(a.expected, "w") as f:
            f.write('{"meta": %s,\n "samples": [\n' % json.dumps(meta, sort_keys=True))
            f.write(",\n".join("  " + json.dumps(s, sort_keys=True, separators=(",", ":"))
                                for s in samples))
            f.write("\n]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
