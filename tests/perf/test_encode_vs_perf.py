#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Oracle test: `profileme encode --json` against the attr the real perf builds.

usage: test_encode_vs_perf.py PROFILEME_BINARY SOURCE_DIR BUILD_DIR

For each fixture sysfs tree (tests/fixtures/sysfs/{intel,amd,alpha,uncore}) the
tree is copied with its symlinks resolved (the trees link devices/ entries to
../../../devices/, which would point into the real /sys once bind-mounted) and
bind-mounted over /sys/bus/event_source/devices in a private mount namespace.
There `perf record -vv -e EVENT -o /dev/null -- true` prints the
perf_event_attr it built before the open fails (the PMUs do not exist), and
that is compared with our encoding of the same string on the same tree.

Only what the event string determines is compared:
  type, config, config1, config2, precise_ip, exclude_user, exclude_kernel,
  exclude_hv, exclude_idle -- always;
  exclude_host, exclude_guest -- always (perf 6.1 sets exclude_guest on
    every parsed event outside perf kvm, and so does pm_event_parse());
  freq and sample_period / sample_freq -- only when the string sets period=
    or freq= (otherwise perf fills its own default freq=1, sample_freq=4000,
    and we leave both 0 on purpose);
  config3 -- never: perf 6.1 knows attr VER7 (128 bytes) only and drops
    config3 ("format ... requires config3 which is not supported").
Not compared at all: sample_type, read_format, disabled, inherit, mmap*, comm*,
task, enable_on_exec, sample_id_all, ksymbol, bpf_event, size (tool settings),
and pinned/exclusive (not in the JSON).
For a group only its first event is compared: perf stops at the leader's
failed open, so it never prints the members' attrs.

Cases where perf 6.1 is known to differ from our documented behaviour are
listed in DIFFERENT: the test checks that perf still shows its documented
value (so the note stays true) and that we give ours.  Cases in BOTH_FAIL must
be refused by both; OURS_FAIL are refused by us and accepted by perf (rules
perf does not know about); PERF_FAIL are accepted by us and refused by perf 6.1
(syntax that newer perf added).

Exit 77 (skip) when perf, root, unshare or mount are not available.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from harness import skip  # noqa: E402

TREES = ["intel", "amd", "alpha", "uncore"]

# (tree, event): compared field by field with perf.
SAME = [
    ("intel", "cycles"),
    ("intel", "instructions:u"),
    ("intel", "cache-misses:k"),
    ("intel", "branches:uk"),
    ("intel", "branch-misses:h"),
    ("intel", "ref-cycles:kh"),
    ("intel", "bus-cycles:G"),
    ("intel", "cycles:H"),
    ("intel", "cycles:uGH"),
    ("intel", "cycles:I"),
    ("intel", "cycles:p"),
    ("intel", "cycles:pp"),
    ("intel", "cycles:ppp"),
    ("intel", "cycles:P"),
    ("intel", "cycles:upp"),
    ("intel", "cycles/period=0x20/"),
    ("intel", "instructions/freq=99/kI"),
    ("intel", "task-clock"),
    ("intel", "cpu-clock:u"),
    ("intel", "page-faults"),
    ("intel", "faults:k"),
    ("intel", "context-switches"),
    ("intel", "cs"),
    ("intel", "cpu-migrations"),
    ("intel", "minor-faults"),
    ("intel", "major-faults"),
    ("intel", "alignment-faults"),
    ("intel", "emulation-faults"),
    ("intel", "dummy"),
    ("intel", "stalled-cycles-frontend"),
    ("intel", "stalled-cycles-backend"),
    ("intel", "r1a"),
    ("intel", "r3c/period=1000/"),
    ("intel", "cpu/event=0x3c,umask=0x1/uk"),
    ("intel", "cpu/event=0xc0,edge,inv,cmask=2/"),
    ("intel", "cpu//"),
    ("intel", "cpu/mem-loads/pp"),
    ("intel", "cpu/mem-stores/"),
    ("intel", "cpu/cycles-ct/"),
    ("intel", "cpu/tx-start/u"),
    ("intel", "cpu/event=0xb7,umask=0x1,offcore_rsp=0x10003c0091/"),
    ("intel", "cpu/event=0xc6,umask=0x1,frontend=0x11/"),
    ("intel", "cpu/config=0x1234,config1=0x55/"),
    ("intel", "cpu/event=0x3c,period=100000/"),
    ("intel", "cpu/event=0x3c,freq=1000/k"),
    ("intel", "cpu/event=0xc0,any,pc,in_tx,in_tx_cp/"),
    ("intel", "{cpu/event=0x3c/,cpu/event=0xc0/}:u"),
    ("intel", "{cycles,instructions}:k"),
    ("intel", "L1-dcache-load-misses"),
    ("intel", "L1-dcache-loads"),
    ("intel", "L1-dcache-stores:u"),
    ("intel", "L1-dcache-prefetch-misses"),
    ("intel", "l1d-read-miss"),
    ("intel", "L1-icache-load-misses"),
    ("intel", "L1-icache-prefetches"),
    ("intel", "LLC-loads"),
    ("intel", "LLC-load-misses:k"),
    ("intel", "LLC-store-misses"),
    ("intel", "L2-speculative-read"),
    ("intel", "dTLB-load-misses"),
    ("intel", "dTLB-stores"),
    ("intel", "iTLB-loads"),
    ("intel", "iTLB-load-misses"),
    ("intel", "branch-loads"),
    ("intel", "branch-load-misses"),
    ("intel", "node-loads"),
    ("intel", "node-store-misses"),
    ("intel", "LLC-loads/period=5000/"),
    ("intel", "1:1"),
    ("intel", "4:0x3c"),
    ("intel", "0:5:u"),
    ("intel", "mem:0x1000"),
    ("intel", "mem:0x1000/8:w"),
    ("intel", "mem:0x2000:r"),
    ("intel", "mem:0x400000:x"),
    ("amd", "cycles"),
    ("amd", "cycles:p"),
    ("amd", "cpu/event=0x1d6/"),
    ("amd", "cpu/event=0xfff,umask=0xff/"),
    ("amd", "cpu/event=0x76/k"),
    ("amd", "cpu/cpu-cycles/"),
    ("amd", "cpu/cache-misses/u"),
    ("amd", "amd_df/event=0x1ff,umask=3/"),
    ("amd", "amd_df/event=0x3fff/"),
    ("amd", "ibs_op//"),
    ("amd", "ibs_op//p"),
    ("amd", "ibs_op//ppp"),
    ("amd", "ibs_op/cnt_ctl=1,l3missonly/"),
    ("amd", "ibs_op/cnt_ctl/p"),
    ("amd", "ibs_fetch/rand_en/"),
    ("amd", "ibs_fetch/rand_en,l3missonly,period=100000/"),
    ("alpha", "cycles"),
    ("alpha", "cycles:p"),
    ("alpha", "cycles:P"),
    ("alpha", "instructions:u"),
    ("alpha", "r2:pp"),
    ("alpha", "cpu/event=2/"),
    ("alpha", "cpu/event=2,profileme/"),
    ("alpha", "cpu/event=2,profileme,period=10000/"),
    ("alpha", "cpu/event=2,period=1000/p"),
    ("alpha", "cpu/event=3,freq=500/Pu"),
    ("alpha", "{cpu/event=2/,cs}:u"),
    ("alpha", "{cpu/event=2,profileme/,task-clock}"),
    ("uncore", "uncore_fabric_0/clockticks/"),
    ("uncore", "uncore_fabric_0/stall/"),
    ("uncore", "uncore_fabric_0/read_bw,filter=0x102/"),
    ("uncore", "uncore_fabric_0/write_bw/"),
    ("uncore", "uncore_fabric_0/event=0x5,filter=0xffff,mask=0xff,thresh=3/"),
    ("uncore", "fabric_0/event=0x7/"),
    ("uncore", "hv_24x7/PM_PB_CYC,core=3/"),
    ("uncore", "hv_24x7/PM_PB_INT_DATA_XFER,chip=1/"),
    ("uncore", "hv_24x7/domain=1,offset=0x80,lpar=5/"),
]

# (tree, event, field, ours, perf's, why): perf 6.1 is wrong or differs by design.
DIFFERENT = [
    ("intel", "cpu/mem-loads,ldlat=0x10/", "config1", 0x10, 0x13,
     "user term replaces the alias's ldlat=3; perf 6.1 ORs 3|0x10"),
    ("intel", "cpu/cycles-t,in_tx=0/", "config", 0x3c, 0x10000003c,
     "user in_tx=0 replaces the alias's in_tx=1; perf 6.1 ORs and keeps bit 32"),
    ("intel", "cpu/ref-cycles,umask=0x1/", "config", 0x100, 0x300,
     "user umask=1 replaces the alias's umask=3; perf 6.1 ORs to 3"),
    ("uncore", "uncore_fabric_0/write_bw,filter=0x2/", "config1", 0x2, 0xab00cf,
     "user filter=2 replaces the alias's filter=0xabcd (split field config1:0-7,16-23: "
     "0xab00cd); perf 6.1 ORs the encoded bits to 0xab00cf"),
]

# Refused by both.
BOTH_FAIL = [
    ("intel", "cpu/event=0x100/"),      # too big for event (config:0-7)
    ("intel", "cpu/bogus=1/"),          # unknown term
    ("intel", "nosuchpmu/event=1/"),    # unknown PMU
    ("intel", "cycles:pppp"),           # precise_ip > 3
    ("intel", "cycles:uu"),             # modifier twice
    ("intel", "L1-icache-stores"),      # L1-icache has no store op
    ("intel", "iTLB-prefetches"),       # iTLB: load only
    ("amd", "cpu/event=0x1000/"),       # too big for the split event field
    ("uncore", "hv_24x7/PM_PB_CYC/"),   # '?' parameter core not given
]

# Accepted by us, refused by perf 6.1 (syntax of newer perf).
PERF_FAIL = [
    ("intel", "r0x1a2b:u", "r0xNNN raw syntax came after perf 6.1"),
]

# Refused by us, accepted by perf 6.1 (documented rules of libprofileme).
OURS_FAIL = [
    ("intel", "cpu/event=1,umask/",
     "bare term on an 8-bit field: perf sets it to 1, we ask for a value"),
    ("alpha", "cpu/event=2,profileme,period=0/",
     "a ProfileMe event must sample; perf does not know ProfileMe"),
    ("alpha", "cpu/event=2,period=0/p",
     "precise selects ProfileMe on alpha, which must sample"),
    ("alpha", "{cpu/event=2,profileme/,cpu/event=3/}",
     "a ProfileMe event needs its PMU alone in its group"),
    ("alpha", "r108",
     "ProfileMe (config:8) with event code 8: the Alpha driver maps codes 1-4 only"),
]

FIELDS_HEX = {"config": "config", "{ bp_addr, config1 }": "config1",
              "config1": "config1", "{ bp_len, config2 }": "config2",
              "config2": "config2"}
FIELDS_INT = ["type", "precise_ip", "exclude_user", "exclude_kernel", "exclude_hv",
              "exclude_idle", "exclude_host", "exclude_guest", "freq", "bp_type"]


def parse_perf_attr(text):
    """The first perf_event_attr block perf printed, as a dict (absent = 0)."""
    m = re.search(r"^perf_event_attr:\n(.*?)^-{20,}", text, re.S | re.M)
    if not m:
        return None
    attr = {k: 0 for k in FIELDS_INT}
    attr.update(config=0, config1=0, config2=0, period=None)
    for line in m.group(1).splitlines():
        line = line.strip()
        mm = re.match(r"^(\{[^}]*\}|\S+)\s+(\S+)", line)
        if not mm:
            continue
        key, val = mm.group(1), mm.group(2)
        if key in FIELDS_HEX:
            attr[FIELDS_HEX[key]] = int(val, 0)
        elif key == "{ sample_period, sample_freq }":
            attr["period"] = int(val, 0)
        elif key in FIELDS_INT:
            attr[key] = int(val, 0)
    return attr


def run_perf(tree_dir, events, workdir):
    """Run perf on each event inside one private mount namespace."""
    evfile = os.path.join(workdir, "events.txt")
    with open(evfile, "w") as f:
        for e in events:
            f.write(e + "\n")
    script = (
        'mount --bind "$1" /sys/bus/event_source/devices || exit 99\n'
        'while IFS= read -r e; do\n'
        '  echo "@@@EVENT $e"\n'
        '  perf record -vv -e "$e" -o /dev/null -- true 2>&1\n'
        '  echo "@@@RC $?"\n'
        'done < "$2"\n')
    p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", tree_dir, evfile],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors="replace")
    if p.returncode == 99:
        skip("mount --bind over /sys/bus/event_source/devices failed: " + p.stdout.strip())
    out = {}
    for chunk in p.stdout.split("@@@EVENT ")[1:]:
        name, _, body = chunk.partition("\n")
        out[name] = body
    return out


def run_ours(prof, tree_root, events):
    out = {}
    for e in events:
        p = subprocess.run([prof, "encode", "--json", "--sysfs", tree_root, e],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True)
        lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        if not lines:
            raise SystemExit("no output from profileme encode for %r: %s" % (e, p.stderr))
        ok = "error" not in lines[0]
        if ok != (p.returncode == 0):
            raise SystemExit("exit status %d does not match output for %r" % (p.returncode, e))
        out[e] = lines
    return out


def ours_fields(j):
    d = {"config": int(j["config"], 16), "config1": int(j["config1"], 16),
         "config2": int(j["config2"], 16)}
    for k in FIELDS_INT:
        d[k] = int(j.get(k, 0))
    d["sample_type"] = int(j.get("sample_type", "0x0"), 16)
    return d


def modifiers(event):
    """Modifier letters written in the event string (after ':' or the closing '/')."""
    mods = ""
    for m in re.finditer(r"(?::|/)([A-Za-z]+)(?=$|,|\}|:)", event):
        mods += m.group(1)
    for m in re.finditer(r"\}:([A-Za-z]+)", event):
        mods += m.group(1)
    return mods


def compare(tree, event, ours, perf, failures):
    j = ours[0]
    if "error" in j:
        failures.append("%s %s: we failed: %s" % (tree, event, j["error"]))
        return
    if perf is None:
        failures.append("%s %s: perf printed no attr" % (tree, event))
        return
    mine = ours_fields(j)
    keys = ["type", "config", "config1", "config2", "precise_ip", "exclude_user",
            "exclude_kernel", "exclude_hv", "exclude_idle", "bp_type"]
    keys += ["exclude_host", "exclude_guest"]
    if "sample_period" in j or "sample_freq" in j:
        keys.append("freq")
        want = j.get("sample_period", j.get("sample_freq"))
        if perf["period"] != want:
            failures.append("%s %s: period/freq ours %d perf %s" %
                            (tree, event, want, perf["period"]))
    for k in keys:
        if mine[k] != perf[k]:
            failures.append("%s %s: %s ours %#x perf %#x" % (tree, event, k, mine[k], perf[k]))


# Tracepoints, against the real tracefs (the ids are this kernel's): run on
# the real /sys, ours with --sysfs /sys.  Compared: type, config, period (1),
# freq, exclude_*, and that sample_type has RAW, TIME, CPU and PERIOD.
TRACEPOINTS = ["sched:sched_switch", "sched:sched_wakeup:k", "sched:sched_process_exec:u",
               "irq:irq_handler_entry"]
# Accepted by us, refused by perf 6.1 (tracepoint terms other than
# call-graph/stack-size).
TRACEPOINTS_PERF_FAIL = ["sched:sched_switch/period=10/"]
TP_SAMPLE = {"RAW": 1 << 10, "TIME": 1 << 2, "CPU": 1 << 7, "PERIOD": 1 << 8}


def tracefs_ready():
    """Mount tracefs when it is missing; True when sched:sched_switch is there."""
    for root in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        if os.path.exists(os.path.join(root, "events/sched/sched_switch/id")):
            return True
    subprocess.run(["mount", "-t", "tracefs", "nodev", "/sys/kernel/tracing"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.exists("/sys/kernel/tracing/events/sched/sched_switch/id")


def perf_sample_type(text):
    m = re.search(r"^perf_event_attr:\n(.*?)^-{20,}", text, re.S | re.M)
    if not m:
        return 0
    mm = re.search(r"^\s*sample_type\s+(\S+)", m.group(1), re.M)
    bits = 0
    for name in (mm.group(1).split("|") if mm else []):
        bits |= TP_SAMPLE.get(name, 0)
    return bits


def check_tracepoints(prof, failures):
    """Returns the number of cases checked (0 when tracefs is unusable)."""
    if not tracefs_ready():
        print("note: no tracefs with sched:sched_switch here; tracepoint cases not run")
        return 0
    checked = 0
    events = TRACEPOINTS + TRACEPOINTS_PERF_FAIL
    ours = run_ours(prof, "/sys", events)
    for e in events:
        p = subprocess.run(["perf", "record", "-vv", "-e", e, "-o", "/dev/null", "--", "true"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, errors="replace")
        pa = parse_perf_attr(p.stdout)
        j = ours[e][0]
        checked += 1
        if e in TRACEPOINTS_PERF_FAIL:
            if "error" in j:
                failures.append("tracefs %s: we refused it: %s" % (e, j["error"]))
            if pa is not None and pa["type"] == 2:
                failures.append("tracefs %s: perf accepts it now: compare it" % e)
            continue
        compare("tracefs", e, ours[e], pa, failures)
        if pa is None or "error" in j:
            continue
        want = sum(TP_SAMPLE.values())
        if perf_sample_type(p.stdout) & want != want:
            failures.append("tracefs %s: perf's sample_type lacks RAW|TIME|CPU|PERIOD" % e)
        if ours_fields(j)["sample_type"] & want != want:
            failures.append("tracefs %s: our sample_type %#x lacks RAW|TIME|CPU|PERIOD" %
                            (e, ours_fields(j)["sample_type"]))
    return checked


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    prof, srcdir, builddir = sys.argv[1:]
    perf_bin = shutil.which("perf")
    if not perf_bin:
        skip("perf is not installed")
    if os.geteuid() != 0:
        skip("needs root for unshare -m and mount --bind")
    if not shutil.which("unshare"):
        skip("unshare(1) is not installed")
    p = subprocess.run(["unshare", "-m", "true"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        skip("unshare -m is not permitted here: " + p.stdout.strip())
    if not os.path.isdir("/sys/bus/event_source/devices"):
        skip("/sys/bus/event_source/devices does not exist")
    ver = subprocess.run(["perf", "--version"], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout.strip()
    print("oracle: " + ver)

    failures = []
    checked = 0
    work = tempfile.mkdtemp(prefix="encode_vs_perf.", dir=builddir)
    try:
        for tree in TREES:
            root = os.path.join(srcdir, "tests", "fixtures", "sysfs", tree)
            devices = os.path.join(root, "bus", "event_source", "devices")
            if not os.path.isdir(devices):
                failures.append("fixture tree %s is missing" % tree)
                continue
            flat = os.path.join(work, tree)
            shutil.copytree(devices, flat, symlinks=False)
            same = [e for t, e in SAME if t == tree]
            diff = [d for d in DIFFERENT if d[0] == tree]
            bfail = [e for t, e in BOTH_FAIL if t == tree]
            ofail = [d for d in OURS_FAIL if d[0] == tree]
            pfail = [d for d in PERF_FAIL if d[0] == tree]
            events = (same + [d[1] for d in diff] + bfail + [d[1] for d in ofail] +
                      [d[1] for d in pfail])
            perf_out = run_perf(flat, events, work)
            ours = run_ours(prof, root, events)
            for e in events:
                if e not in perf_out:
                    failures.append("%s %s: no perf output" % (tree, e))
            for e in same:
                compare(tree, e, ours[e], parse_perf_attr(perf_out.get(e, "")), failures)
                checked += 1
            for _, e, field, mine, theirs, why in diff:
                pa = parse_perf_attr(perf_out.get(e, ""))
                j = ours[e][0]
                if "error" in j:
                    failures.append("%s %s: we failed: %s" % (tree, e, j["error"]))
                    continue
                if pa is None or pa[field] != theirs:
                    failures.append("%s %s: perf no longer gives %s=%#x (%s); got %s" %
                                    (tree, e, field, theirs, why, pa and hex(pa[field])))
                if ours_fields(j)[field] != mine:
                    failures.append("%s %s: ours %s=%#x, want %#x (%s)" %
                                    (tree, e, field, ours_fields(j)[field], mine, why))
                checked += 1
            for e in bfail:
                if "error" not in ours[e][0]:
                    failures.append("%s %s: we accepted it, perf refuses" % (tree, e))
                if parse_perf_attr(perf_out.get(e, "")) is not None:
                    failures.append("%s %s: perf accepted it" % (tree, e))
                checked += 1
            for _, e, why in ofail:
                if "error" not in ours[e][0]:
                    failures.append("%s %s: we accepted it (%s)" % (tree, e, why))
                if parse_perf_attr(perf_out.get(e, "")) is None:
                    failures.append("%s %s: perf refuses it too now (%s)" % (tree, e, why))
                checked += 1
            for _, e, why in pfail:
                if "error" in ours[e][0]:
                    failures.append("%s %s: we refused it (%s)" % (tree, e, why))
                if parse_perf_attr(perf_out.get(e, "")) is not None:
                    failures.append("%s %s: perf accepts it now (%s): compare it" %
                                    (tree, e, why))
                checked += 1
        checked += check_tracepoints(prof, failures)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for f in failures:
        print("FAIL: " + f)
    print("%d cases checked against %s, %d failures" % (checked, ver, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
