#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Write a SYNTHETIC Alpha ProfileMe perf.data file, and a JSON sidecar of
the values it chose, so that tests compare decoders against these inputs.

  gen_profileme.py OUT.data [--expected OUT.json] [--samples N] [--seed S]
                   [--big-endian] [--pipe] [--no-regs-user] [--symfs DIR]

The recording looks like `perf record -e cpu/event=0x2,profileme/u` on an
Alpha (ARCH "alpha", PMU_MAPPINGS "4:cpu", ...): one attr of the cpu PMU
(PERF_TYPE_RAW = 4, config = event | profileme bit 8, precise_ip 2),
sample_type IP|TID|TIME|CPU|PERIOD|RAW|REGS_USER, sample_id_all; COMM and
MMAP2 records of a small synthetic program (a real tiny Alpha ELF,
DIR/usr/bin/pmdemo, default examples/data/symfs: user PCs lie in its
functions, kernel PCs in those of DIR/kallsyms); samples whose PERF_SAMPLE_RAW
payloads are struct alpha_profileme_sample of version 1, 2 and 3 (v2/v3
append 8/16 bytes), plus a few payloads that are not ProfileMe samples
(version 0, 20 bytes).  Payloads are little endian in every file;
with --big-endian only the file's own fields are big endian.

Sample ips, modes and registers follow the seed's driver
(alpha_perf_event_profileme): the ip is the PMPC, except for a PALmode PMPC
(the interrupted PC: for the redirect entries 0x481/0x581/0x681 the
instruction that trapped) and for a user PMPC sampled in a kernel thread
(the interrupted kernel PC; a few samples of a `kworker/0:1` thread).  Each
sample also chooses the mode the interrupt was taken in; REGS_USER (one
register, the PC) is then: ABI_NONE for a user PMPC whose interrupt was taken
in the kernel (the driver reports a PC-only frame and no registers) and for a
kernel thread; the PMPC for a user PMPC interrupted in user mode; the user
frame's PC, left alone, for a kernel PMPC (whatever the interrupt mode) and
for a PALmode sample.  The sidecar's `attribution` is where a profile charges
each sample (`charge`, `charge_addr`, `charge_mode`, `skid_valid`, as
pm_profileme_attribute() defines it), and `symbol`/`module` name where that
address lies.

Formats: perf.data file and pipe mode (see docs in
tools/perf/Documentation/perf.data-file-format.txt); attr size 128
(PERF_ATTR_SIZE_VER7) so that perf 6.1 reads it.  Uses struct only.
"""
import argparse
import json
import os
import random
import struct
import sys

ATTR_SIZE = 128
PERF_TYPE_RAW = 4
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_CPU, SAMPLE_PERIOD, SAMPLE_RAW, SAMPLE_REGS_USER = (
    1 << 0, 1 << 1, 1 << 2, 1 << 7, 1 << 8, 1 << 10, 1 << 12)
# attr flag bit numbers
F_DISABLED, F_EXCLUDE_KERNEL, F_EXCLUDE_HV, F_MMAP, F_COMM, F_SAMPLE_ID_ALL, F_MMAP2, F_COMM_EXEC = (
    0, 5, 6, 8, 9, 18, 23, 24)
PRECISE_SHIFT = 15
REC_MMAP2, REC_COMM, REC_SAMPLE, REC_FINISHED_ROUND = 10, 3, 9, 68
REC_HEADER_ATTR, REC_HEADER_FEATURE = 64, 80
MISC_KERNEL, MISC_USER, MISC_EXACT_IP, MISC_COMM_EXEC = 1, 2, 1 << 14, 1 << 13
FEAT = dict(HOSTNAME=3, OSRELEASE=4, VERSION=5, ARCH=6, NRCPUS=7, CPUDESC=8, CMDLINE=11,
            EVENT_DESC=12, PMU_MAPPINGS=16)

TRAP_NAMES = {0: "replay", 2: "DTB double miss (3 level)", 3: "DTB double miss (4 level)",
              4: "FP disabled", 5: "unaligned", 6: "DTB single miss", 7: "Dstream fault",
              8: "OPCDEC", 10: "machine check", 12: "arithmetic", 14: "MT_FPCR", 15: "reset"}
REDIRECTS = {0x481: "Istream access violation", 0x581: "ITB miss", 0x681: "interrupt"}
PCTR1_COUNTS = ["cycles", "retire delay", "bcache misses", "mbox replays"]

PID = 4242
COMM = "pmdemo"
KTHREAD_PID = 23
KTHREAD_COMM = "kworker/0:1"
EXE = "/usr/bin/pmdemo"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The synthetic program is a real (tiny) Alpha executable, built from
# examples/data/pmdemo.c by build-pmdemo.sh and committed under the symfs
# directory at the path its MMAP2 record names; kernel PCs fall in the
# functions of the bundled (synthetic) kallsyms file of that directory.
SYMFS = os.path.join(ROOT, "examples", "data", "symfs")
ALPHA_PAGE = 8192
USER_PICK = ["main", "daxpy", "list_walk", "copy_unaligned", "parse_branchy"]
KERNEL_PICK = ["do_page_fault", "entMM", "entUna", "do_entUna", "__copy_user", "entSys"]


def read_elf_funcs(path, machine=0x9026):
    """(functions [(name, start, end)], exec PT_LOAD (vaddr, offset, memsz)) of a
    little-endian ELF64 ET_EXEC for `machine` (default Alpha; 62 = x86-64): a
    minimal parser of the ELF header, program headers and .symtab, enough for
    pmdemo and ibsdemo."""
    with open(path, "rb") as f:
        b = f.read()
    if b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
        raise SystemExit("%s: not a little-endian ELF64 file" % path)
    (e_type, e_machine, _v, _entry, e_phoff, e_shoff, _fl, _ehsz, e_phentsize, e_phnum,
     e_shentsize, e_shnum, _shstrndx) = struct.unpack_from("<HHIQQQIHHHHHH", b, 16)
    if e_type != 2 or e_machine != machine:
        raise SystemExit("%s: not an ET_EXEC for machine %#x (type %d machine %#x)" %
                         (path, machine, e_type, e_machine))
    text = None
    for i in range(e_phnum):
        p_type, p_flags, p_offset, p_vaddr, _pa, _fsz, p_memsz, _al = struct.unpack_from(
            "<IIQQQQQQ", b, e_phoff + i * e_phentsize)
        if p_type == 1 and p_flags & 1 and text is None:      # PT_LOAD, PF_X
            text = (p_vaddr, p_offset, p_memsz)
    shdrs = [struct.unpack_from("<IIQQQQIIQQ", b, e_shoff + i * e_shentsize) for i in range(e_shnum)]
    funcs = []
    for sh in shdrs:
        if sh[1] != 2:                                        # SHT_SYMTAB
            continue
        stroff = shdrs[sh[6]][4]
        for off in range(sh[4] + sh[9], sh[4] + sh[5], sh[9]):   # skip the null symbol
            st_name, st_info, _other, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", b, off)
            if st_info & 0xF != 2 or not st_size or st_shndx == 0:   # STT_FUNC, defined, sized
                continue
            name = b[stroff + st_name:b.index(b"\0", stroff + st_name)].decode()
            funcs.append((name, st_value, st_value + st_size))
    if text is None or not funcs:
        raise SystemExit("%s: no executable segment or no function symbols" % path)
    return sorted(funcs, key=lambda f: f[1]), text


def read_kallsyms(path):
    """[(name, start, end)]: a symbol runs to the next one (kallsyms has no sizes)."""
    syms = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and not line.startswith("#") and parts[1] in "tTwW":
                syms.append((parts[2], int(parts[0], 16)))
    syms.sort(key=lambda x: x[1])
    return [(n, a, syms[i + 1][1]) for i, (n, a) in enumerate(syms[:-1])]


def load_program(symfs):
    global FUNCS, ALL_FUNCS, KFUNCS, KALL, EXE_BASE, EXE_LEN, EXE_PGOFF, EXE_TEXT
    ALL_FUNCS, (vaddr, offset, memsz) = read_elf_funcs(os.path.join(symfs, EXE.lstrip("/")))
    EXE_TEXT = (vaddr, offset)
    EXE_BASE = vaddr & ~(ALPHA_PAGE - 1)
    EXE_PGOFF = offset & ~(ALPHA_PAGE - 1)
    EXE_LEN = (vaddr + memsz + ALPHA_PAGE - 1) // ALPHA_PAGE * ALPHA_PAGE - EXE_BASE
    FUNCS = [f for n in USER_PICK for f in ALL_FUNCS if f[0] == n]
    KALL = read_kallsyms(os.path.join(symfs, "kallsyms"))
    KFUNCS = [f for n in KERNEL_PICK for f in KALL if f[0] == n]
    if len(FUNCS) != len(USER_PICK) or len(KFUNCS) != len(KERNEL_PICK):
        raise SystemExit("%s: missing functions: have %s" % (symfs, [f[0] for f in ALL_FUNCS + KALL]))


def symbol_of(addr):
    for n, lo, hi in ALL_FUNCS + KALL:
        if lo <= addr < hi:
            return n
    return None


EVENT = 0x2  # instructions: PCTR0 counts instructions, PCTR1 cycles (SL1 = 0)


class W:
    """Byte writer in the file's byte order."""

    def __init__(self, be):
        self.e = ">" if be else "<"
        self.b = bytearray()

    def put(self, fmt, *v):
        self.b += struct.pack(self.e + fmt, *v)

    def raw(self, data):
        self.b += data

    def pad8(self):
        self.b += b"\0" * (-len(self.b) % 8)


def bitrev64(v):
    return int("{:064b}".format(v)[::-1], 2)


def attr_bytes(be, attr):
    w = W(be)
    flags = attr["flags"]
    if be:  # kernel bitfields are allocated from the most significant bit on BE
        flags = bitrev64(flags)
    w.put("IIQQQQQ", attr["type"], ATTR_SIZE, attr["config"], attr["sample_period"],
          attr["sample_type"], 0, flags)
    w.put("II", 0, 0)                       # wakeup_events, bp_type
    w.put("QQQ", 0, 0, 0)                   # config1, config2, branch_sample_type
    w.put("Q", attr["sample_regs_user"])    # sample_regs_user
    w.put("Ii", 0, 0)                       # sample_stack_user, clockid
    w.put("Q", 0)                           # sample_regs_intr
    w.put("IHH", 0, 0, 0)                   # aux_watermark, sample_max_stack, reserved_2
    w.put("II", 0, 0)                       # aux_sample_size, reserved_3
    w.put("Q", 0)                           # sig_data
    assert len(w.b) == ATTR_SIZE
    return bytes(w.b)


def perf_string(w, s):
    data = s.encode() + b"\0"
    n = (len(data) + 63) // 64 * 64
    w.put("I", n)
    w.raw(data + b"\0" * (n - len(data)))


def record(be, rtype, misc, body):
    w = W(be)
    assert len(body) % 8 == 0
    w.put("IHH", rtype, misc, 8 + len(body))
    w.raw(body)
    return bytes(w.b)


def id_trailer(w, tid, time, cpu):
    w.put("II", PID, tid)
    w.put("Q", time)
    w.put("II", cpu, 0)


def pm_payload(version, pmpc, i_stat, pctr_ctl, extra):
    # Little endian ALWAYS, packed.
    return struct.pack("<IQQQ", version, pmpc, i_stat, pctr_ctl) + extra


def expected_fields(pmpc, f):
    """The seed's rules applied to the chosen inputs."""
    pal = pmpc & 1
    trapped = bool(f["trp"] and not f["killed"])
    trap = None
    if pal and (pmpc & 0x7FFF) in REDIRECTS:
        trap = REDIRECTS[pmpc & 0x7FFF]
    elif not trapped or f["mis"]:
        trap = "none"
    else:
        trap = TRAP_NAMES.get(f["trap_type"], "other (see PMPC)")
    return dict(
        pal=pal, pc=pmpc & ~3 & (2**64 - 1),
        mode="PAL" if pal else ("kernel" if pmpc >> 63 else "user"),
        trapped=trapped, trap=trap, mispredicted=bool(trapped and f["mis"]),
        pctr0_counts="cycles" if f["sl1"] & 1 else "instructions",
        pctr1_counts=PCTR1_COUNTS[f["sl1"]])


def attribution(pmpc, ip):
    """The kernel's attribution rule (seed: alpha_perf_event_profileme), as
    pm_profileme_attribute() documents it."""
    pc = pmpc & ~3 & (2**64 - 1)
    mode = lambda a: "kernel" if a >> 63 else "user"
    if pmpc & 1:
        if (pmpc & 0x7FFF) in REDIRECTS:
            return dict(charge="redirect", charge_addr=ip, charge_mode=mode(ip), skid_valid=False)
        return dict(charge="PALcode", charge_addr=pc, charge_mode="PAL", skid_valid=False)
    if mode(pc) == "user" and mode(ip) == "kernel":
        return dict(charge="ip", charge_addr=ip, charge_mode="kernel", skid_valid=False)
    return dict(charge="pc", charge_addr=pc, charge_mode=mode(pc), skid_valid=mode(pc) == mode(ip))


def choose_samples(rng, n):
    samples = []
    t = 1_000_000_000
    for i in range(n):
        t += rng.randint(50_000, 150_000)
        kind = rng.random()
        f = dict(ovr=rng.randint(0, 7), icm=int(rng.random() < 0.1), trap_type=0, lso=0, trp=0,
                 mis=0, tak=0, val=1, sl1=0, sl0=1, pctr1=rng.randint(1, 400),
                 killed=int(rng.random() < 0.08), stalled=int(rng.random() < 0.2),
                 pctr0=rng.randint(0, 0xFFFFF))
        tid = PID
        user_frame_pc = rng.randrange(FUNCS[0][1], FUNCS[0][2], 4)   # where user mode was left
        if kind < 0.68:            # user code
            name, lo, hi = rng.choice(FUNCS)
            pmpc = rng.randrange(lo, hi, 4)
            ip, module = pmpc, COMM
            intr = "kernel" if rng.random() < 0.25 else "user"
            if name == "parse_branchy":
                f["tak"] = rng.randint(0, 1)
                if rng.random() < 0.3:
                    f["trp"], f["mis"] = 1, 1
            elif name == "copy_unaligned" and rng.random() < 0.5:
                f["trp"], f["trap_type"], f["lso"] = 1, 5, 0
                intr = "kernel"                          # the trap entered the kernel
            elif name == "list_walk" and rng.random() < 0.4:
                f["trp"], f["trap_type"] = 1, 6             # DTB miss on the pointer chase
                f["pctr1"] = rng.randint(200, 900)
                f["stalled"] = 1
            elif rng.random() < 0.15:
                f["trp"], f["trap_type"] = 1, rng.randint(0, 15)
            # PC-only frame for a user PMPC interrupted in the kernel: no registers
            regs_user = None if intr == "kernel" else pmpc
        elif kind < 0.83:          # kernel code
            name, lo, hi = rng.choice(KFUNCS)
            pmpc = rng.randrange(lo, hi, 4)
            ip, module = pmpc, "[kernel.kallsyms]"
            intr = "user" if rng.random() < 0.2 else "kernel"
            if rng.random() < 0.2:
                f["trp"], f["trap_type"] = 1, 6
            regs_user = user_frame_pc                    # the user frame is left alone
        elif kind < 0.86:          # a user PMPC sampled in a kernel thread
            _, lo, hi = rng.choice(FUNCS)
            pmpc = rng.randrange(lo, hi, 4)
            name, klo, khi = rng.choice(KFUNCS)
            ip, module = rng.randrange(klo, khi, 4), "[kernel.kallsyms]"   # the interrupted PC
            intr, tid, regs_user = "kernel", KTHREAD_PID, None              # no user frame
        else:                      # PALmode PMPC: redirect entries or inside PALcode
            off = rng.choice([0x481, 0x581, 0x681, 0x401, 0x2101])
            pmpc = 0x8000 * rng.randint(0, 3) + off
            if off == 0x681 and rng.random() < 0.4:
                name, lo, hi = rng.choice(KFUNCS)
            else:
                name, lo, hi = rng.choice(FUNCS)
            ip = rng.randrange(lo, hi, 4)   # the interrupted PC: the trapping instruction for a redirect
            intr = "kernel" if ip >> 63 else "user"
            regs_user = ip if intr == "user" else user_frame_pc
            if off in REDIRECTS:
                module = "[kernel.kallsyms]" if ip >> 63 else COMM
            else:
                name, module = None, "[PALcode]"    # no symbol table for PALcode
            if rng.random() < 0.5:
                f["trp"], f["trap_type"] = 1, rng.randint(0, 15)
        i_stat = (f["ovr"] << 30 | f["icm"] << 33 | f["trap_type"] << 34 | f["lso"] << 38 |
                  f["trp"] << 39 | f["mis"] << 40)
        pctr_ctl = (f["tak"] | f["val"] << 1 | f["sl1"] << 2 | f["sl0"] << 4 | f["pctr1"] << 6 |
                    f["killed"] << 26 | f["stalled"] << 27 | f["pctr0"] << 28)
        version = 1 if i % 5 else rng.choice([2, 3])
        extra = bytes(rng.randrange(256) for _ in range(8 * (version - 1)))
        s = dict(index=i, time=t, cpu=rng.randint(0, 1), tid=tid, ip=ip,
                 period=10000, symbol=name, module=module, version=version, pmpc=pmpc,
                 i_stat=i_stat, pctr_ctl=pctr_ctl, fields=f, extra=extra.hex(),
                 intr_mode=intr, regs_user=regs_user)
        s["expected"] = expected_fields(pmpc, f)
        s["attribution"] = attribution(pmpc, ip)
        s["payload"] = pm_payload(version, pmpc, i_stat, pctr_ctl, extra)
        samples.append(s)
    # Payloads that are not ProfileMe samples, which a reader must report.
    main_pc = FUNCS[0][1]
    for j, (payload, why) in enumerate([(pm_payload(0, main_pc, 0, 0, b""), "version 0"),
                                        (struct.pack("<IQQ", 1, main_pc, 0),  # 20 bytes: no padding in RAW
                                         "short")]):
        t += 100_000
        samples.append(dict(index=n + j, time=t, cpu=0, tid=PID, ip=main_pc, period=10000,
                            symbol=symbol_of(main_pc), module=COMM, payload=payload, raw_error="not_profileme",
                            reason=why, version=struct.unpack_from("<I", payload)[0],
                            intr_mode="user", regs_user=main_pc))
    return samples


def sample_record(be, s, regs_user):
    w = W(be)
    w.put("Q", s["ip"])
    w.put("II", s["tid"], s["tid"])
    w.put("Q", s["time"])
    w.put("II", s["cpu"], 0)
    w.put("Q", s["period"])
    payload = s["payload"]
    size = (len(payload) + 4 + 7) // 8 * 8 - 4
    w.put("I", size)
    w.raw(payload + b"\0" * (size - len(payload)))
    if regs_user:
        # Like the seed's driver (see the module doc): the chosen user PC, or
        # no registers (ABI_NONE) for a PC-only frame and for a kernel thread.
        if s["regs_user"] is not None:
            w.put("QQ", 2, s["regs_user"])   # PERF_SAMPLE_REGS_ABI_64, one register
        else:
            w.put("Q", 0)                    # PERF_SAMPLE_REGS_ABI_NONE
        s["regs_user_abi"] = 2 if s["regs_user"] is not None else 0
    misc = (MISC_KERNEL if s["ip"] >> 63 else MISC_USER) | MISC_EXACT_IP
    return record(be, REC_SAMPLE, misc, bytes(w.b))


def comm_record(be, time, pid=PID, comm=COMM, misc=MISC_COMM_EXEC):
    w = W(be)
    w.put("II", pid, pid)
    w.raw(comm.encode() + b"\0")
    w.pad8()
    w.put("II", pid, pid)
    w.put("Q", time)
    w.put("II", 0, 0)
    return record(be, REC_COMM, misc, bytes(w.b))


def mmap2_record(be, time):
    w = W(be)
    w.put("II", PID, PID)
    w.put("QQQ", EXE_BASE, EXE_LEN, EXE_PGOFF)
    w.put("IIQQ", 8, 1, 123456, 0)           # maj, min, ino, ino_generation
    w.put("II", 5, 2)                        # PROT_READ|PROT_EXEC, MAP_PRIVATE
    w.raw(EXE.encode() + b"\0")
    w.pad8()
    id_trailer(w, PID, time, 0)
    return record(be, REC_MMAP2, MISC_USER, bytes(w.b))


def features(be, attr, attr_id):
    """{feature number: payload bytes}"""
    out = {}
    for name, s in [("HOSTNAME", "pm-synthetic"), ("OSRELEASE", "6.12.0-alpha-synthetic"),
                    ("VERSION", "6.12.synthetic"), ("ARCH", "alpha"),
                    ("CPUDESC", "EV68CB (synthetic)")]:
        w = W(be)
        perf_string(w, s)
        out[FEAT[name]] = bytes(w.b)
    w = W(be)
    w.put("II", 2, 2)                        # nr_cpus_avail, nr_cpus_online
    out[FEAT["NRCPUS"]] = bytes(w.b)
    w = W(be)
    argv = ["perf", "record", "-e", "cpu/event=0x2,profileme/u", "./pmdemo"]
    w.put("I", len(argv))
    for a in argv:
        perf_string(w, a)
    out[FEAT["CMDLINE"]] = bytes(w.b)
    w = W(be)
    w.put("II", 1, ATTR_SIZE)
    w.raw(attr_bytes(be, attr))
    w.put("I", 1)
    perf_string(w, "cpu/event=0x2,profileme/u")
    w.put("Q", attr_id)
    out[FEAT["EVENT_DESC"]] = bytes(w.b)
    w = W(be)
    maps = [(4, "cpu"), (1, "software"), (2, "tracepoint"), (5, "breakpoint")]
    w.put("I", len(maps))
    for t, n in maps:
        w.put("I", t)
        perf_string(w, n)
    out[FEAT["PMU_MAPPINGS"]] = bytes(w.b)
    return out


def make_attr(regs_user):
    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU | SAMPLE_PERIOD | SAMPLE_RAW
    if regs_user:
        st |= SAMPLE_REGS_USER
    flags = (1 << F_DISABLED | 1 << F_EXCLUDE_KERNEL | 1 << F_EXCLUDE_HV | 1 << F_MMAP |
             1 << F_COMM | 1 << F_SAMPLE_ID_ALL | 1 << F_MMAP2 | 1 << F_COMM_EXEC |
             2 << PRECISE_SHIFT)
    return dict(type=PERF_TYPE_RAW, config=EVENT | 1 << 8, sample_period=10000, sample_type=st,
                flags=flags, sample_regs_user=1 if regs_user else 0)


def file_mode(be, attrs, data, feats):
    """The bytes of a file-mode perf.data: header, id arrays, attrs (each
    given serialised, with its ids), the data section and the feature
    sections (feats: {feature bit: payload}), laid out as perf writes them
    (tools/perf/util/header.c: ids, then attrs, then data, then the
    feature table and payloads)."""
    hdr_size = 104
    ids_off = hdr_size
    nids = sum(len(ids) for _a, ids in attrs)
    attrs_off = ids_off + 8 * nids
    attrs_size = (ATTR_SIZE + 16) * len(attrs)
    data_off = attrs_off + attrs_size
    data_off += -data_off % 8
    feat_off = data_off + len(data)
    fids = sorted(feats)
    table = W(be)
    payload_off = feat_off + 16 * len(fids)
    blobs = b""
    for fid in fids:
        table.put("QQ", payload_off + len(blobs), len(feats[fid]))
        blobs += feats[fid]
    bitmap = 0
    for fid in fids:
        bitmap |= 1 << fid
    h = W(be)
    h.put("Q", 0x32454C4946524550)
    h.put("QQ", hdr_size, ATTR_SIZE + 16)
    h.put("QQ", attrs_off, attrs_size)
    h.put("QQ", data_off, len(data))
    h.put("QQ", 0, 0)
    for k in range(4):                   # adds_features, as u64 words
        h.put("Q", (bitmap >> (64 * k)) & (2**64 - 1))
    assert len(h.b) == hdr_size
    out = bytearray(h.b)
    w = W(be)
    for _a, ids in attrs:
        for i in ids:
            w.put("Q", i)
    out += w.b
    at = ids_off
    for a, ids in attrs:
        assert len(a) == ATTR_SIZE
        out += a
        w = W(be)
        w.put("QQ", at, 8 * len(ids))
        out += w.b
        at += 8 * len(ids)
    out += b"\0" * (data_off - len(out))
    return out + data + bytes(table.b) + blobs


def write(path, samples, be, pipe, regs_user):
    attr = make_attr(regs_user)
    attr_id = 1
    t0 = samples[0]["time"] - 1000
    data = comm_record(be, t0) + mmap2_record(be, t0 + 10)
    data += comm_record(be, t0 + 20, KTHREAD_PID, KTHREAD_COMM, 0)   # a kernel thread
    data += b"".join(sample_record(be, s, regs_user) for s in samples)
    feats = features(be, attr, attr_id)
    magic = struct.pack(">Q" if be else "<Q", 0x32454C4946524550)
    if pipe:
        out = bytearray(magic + struct.pack(">Q" if be else "<Q", 16))
        w = W(be)
        w.raw(attr_bytes(be, attr))
        w.put("Q", attr_id)
        out += record(be, REC_HEADER_ATTR, 0, bytes(w.b))
        for fid in sorted(feats):
            w = W(be)
            w.put("Q", fid)
            w.raw(feats[fid])
            w.pad8()
            out += record(be, REC_HEADER_FEATURE, 0, bytes(w.b))
        out += data
        out += record(be, REC_FINISHED_ROUND, 0, b"")
    else:
        out = file_mode(be, [(attr_bytes(be, attr), [attr_id])], data, feats)
    with open(path, "wb") as f:
        f.write(out)
    return attr


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--expected", help="write the JSON sidecar of chosen values here")
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20240501)
    ap.add_argument("--big-endian", action="store_true")
    ap.add_argument("--pipe", action="store_true")
    ap.add_argument("--no-regs-user", action="store_true")
    ap.add_argument("--symfs", default=SYMFS,
                    help="directory with usr/bin/pmdemo (Alpha ELF) and kallsyms (default: %(default)s)")
    a = ap.parse_args(argv)
    load_program(a.symfs)
    rng = random.Random(a.seed)
    samples = choose_samples(rng, a.samples)
    attr = write(a.out, samples, a.big_endian, a.pipe, not a.no_regs_user)
    if a.expected:
        for s in samples:
            s["payload"] = s["payload"].hex()
        meta = dict(synthetic=True, generator="tests/gen/gen_profileme.py", seed=a.seed,
                    big_endian=a.big_endian, pipe=a.pipe, arch="alpha",
                    pmu_mappings={"4": "cpu", "1": "software", "2": "tracepoint", "5": "breakpoint"},
                    attr=dict(type=attr["type"], config=attr["config"],
                              sample_type=attr["sample_type"], sample_period=attr["sample_period"],
                              precise_ip=2, sample_regs_user=attr["sample_regs_user"]),
                    comm=dict(pid=PID, comm=COMM), kthread=dict(pid=KTHREAD_PID, comm=KTHREAD_COMM),
                    mmap2=dict(pid=PID, start=EXE_BASE, len=EXE_LEN, pgoff=EXE_PGOFF, filename=EXE),
                    elf_text=dict(vaddr=EXE_TEXT[0], offset=EXE_TEXT[1]),
                    symfs=os.path.relpath(a.symfs, ROOT) if a.symfs == SYMFS else a.symfs,
                    functions=[dict(name=n, start=lo, end=hi, module=COMM) for n, lo, hi in ALL_FUNCS] +
                              [dict(name=n, start=lo, end=hi, module="[kernel.kallsyms]")
                               for n, lo, hi in KALL],
                    note="expected.* follow the rules of the ProfileMe decode patch applied to "
                         "the chosen inputs; payloads are little endian in every file")
        with open(a.expected, "w") as f:   # one sample per line: small and diffable
            f.write('{"meta": %s,\n "samples": [\n' % json.dumps(meta, sort_keys=True))
            f.write(",\n".join("  " + json.dumps(s, sort_keys=True, separators=(",", ":"))
                                for s in samples))
            f.write("\n]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
