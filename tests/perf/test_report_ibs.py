#!/usr/bin/python3
"""AMD IBS aggregates of profileme report / annotate, and raw_error in
profileme script --json, on generated recordings.

Every expectation is computed here from the generator's inputs (the sidecar
of tests/gen/gen_ibs.py and tests/gen/gen_profileme.py), never from the
report: each ibs_op sample is charged to its valid IbsOpRip (the sample ip,
counted inexact, when RipInvalid), per row the exact/inexact/ip_differs
counts, tag-to-retire and completion-to-retire mean and quartiles (nearest
rank), branches taken/mispredicted, loads/stores with DC misses and their
latency, DTLB misses and the data-source breakdown (Zen 4 names), and for
ibs_fetch the fetch latency, IC/ITLB/L2/L3/op-cache misses and page sizes.
usage: test_report_ibs.py PROFILEME SRCDIR BUILDDIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from harness import Checks, skip  # noqa: E402

check = Checks()

PM, SRC, BLD = sys.argv[1:4]
SYMFS = os.path.join(SRC, "examples", "data", "symfs")
if not shutil.which("objdump"):
    skip("gen_ibs.py needs objdump (binutils)")


def quart(vals, q):
    v = sorted(vals)
    if q == 4:
        return v[-1]
    return v[max(1, (len(v) * q + 3) // 4) - 1]


def dist(row, key, vals, label):
    if not vals:
        check(key + "_mean" not in row, "%s: %s_mean without values" % (label, key))
        return
    check(abs(row.get(key + "_mean", -1) - sum(vals) / len(vals)) < 1e-3,
          "%s %s_mean %s != %.4f" % (label, key, row.get(key + "_mean"), sum(vals) / len(vals)))
    for suf, q in (("q1", 1), ("median", 2), ("q3", 3), ("max", 4)):
        check(row.get(key + "_" + suf) == quart(vals, q),
              "%s %s_%s %s != %d" % (label, key, suf, row.get(key + "_" + suf), quart(vals, q)))


def expect_op(row, ss, label):
    dec = [s for s in ss if s["kind"] != "bad"]
    ex = [s for s in dec if s["expected"]["exact"]]
    check(row.get("ibs_op") == len(dec), "%s ibs_op %s != %d" % (label, row.get("ibs_op"), len(dec)))
    check(row.get("exact") == len(ex) and row.get("inexact") == len(dec) - len(ex),
          "%s exact/inexact %s/%s != %d/%d" % (label, row.get("exact"), row.get("inexact"),
                                               len(ex), len(dec) - len(ex)))
    diff = sum(1 for s in ex if s["expected"]["ip_differs"])
    check(row.get("ip_differs") == diff, "%s ip_differs %s != %d" % (label, row.get("ip_differs"), diff))
    f = [s["fields"] for s in ex]
    dist(row, "tag_to_ret", [x["tag_to_ret_ctr"] for x in f], label)
    dist(row, "comp_to_ret", [x["comp_to_ret_ctr"] for x in f], label)
    br = [x for x in f if x["brn_ret"]]
    for key, want in (("branches", len(br)), ("branch_taken", sum(x["brn_taken"] for x in br)),
                      ("branch_mispredicted", sum(x["brn_misp"] for x in br)),
                      ("loads", sum(x["ld_op"] for x in f)), ("stores", sum(x["st_op"] for x in f)),
                      ("dc_miss", sum(x["dc_miss"] for x in f if x["ld_op"] or x["st_op"])),
                      ("dtlb_l1_miss", sum(x["dc_l1tlb_miss"] for x in f if x["ld_op"] or x["st_op"])),
                      ("dtlb_l2_miss", sum(x["dc_l2tlb_miss"] for x in f if x["ld_op"] or x["st_op"]))):
        check(row.get(key) == want, "%s %s %s != %d" % (label, key, row.get(key), want))
    mem = sum(1 for x in f if x["ld_op"] or x["st_op"])
    if mem:
        want = 100.0 * sum(x["dc_miss"] for x in f if x["ld_op"] or x["st_op"]) / mem
        check(abs(row.get("dc_miss_pct", -1) - want) < 1e-3, "%s dc_miss_pct" % label)
    if br:
        want = 100.0 * sum(x["brn_misp"] for x in br) / len(br)
        check(abs(row.get("branch_mispredicted_pct", -1) - want) < 1e-3, "%s branch_mispredicted_pct" % label)
    dist(row, "dc_miss_lat", [x["dc_miss_lat"] for x in f if x["ld_op"] and x["dc_miss"]], label)
    src = {}
    for s in ex:
        if s["fields"]["ld_op"]:
            n = s["expected"]["data_src_name"]
            src[n] = src.get(n, 0) + 1
    check(row.get("data_src") == src, "%s data_src %s != %s" % (label, row.get("data_src"), src))


PGSZ = ["4KB", "2MB", "1GB", "RESERVED"]


def expect_fetch(row, ss, label):
    dec = [s for s in ss if s["kind"] != "bad"]
    f = [s["fields"] for s in dec]
    check(row.get("ibs_fetch") == len(dec) and row.get("exact") == len(dec) and row.get("inexact") == 0,
          "%s ibs_fetch/exact %s/%s != %d" % (label, row.get("ibs_fetch"), row.get("exact"), len(dec)))
    dist(row, "fetch_lat", [x["fetch_lat"] for x in f], label)
    for key, fld in (("ic_miss", "ic_miss"), ("itlb_l1_miss", "l1tlb_miss"), ("itlb_l2_miss", "l2tlb_miss"),
                     ("l2_miss", "l2_miss"), ("l3_miss", "l3_miss"), ("oc_miss", "oc_miss")):
        want = sum(x[fld] for x in f)
        check(row.get(key) == want, "%s %s %s != %d" % (label, key, row.get(key), want))
        check(abs(row.get(key + "_pct", -1) - 100.0 * want / len(f)) < 1e-3, "%s %s_pct" % (label, key))
    pg = {}
    for x in f:
        pg[PGSZ[x["pgsz"]]] = pg.get(PGSZ[x["pgsz"]], 0) + 1
    check(row.get("page_size") == pg, "%s page_size %s != %s" % (label, row.get("page_size"), pg))


def report(data, sort):
    p = subprocess.run([PM, "report", "-q", "-i", data, "--symfs", SYMFS, "--json", "--sort", sort],
                       capture_output=True, text=True)
    check(p.returncode == 0, "report %s exited %d: %s" % (sort, p.returncode, p.stderr))
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def event_of(row):
    return "ibs_op" if row["event"].startswith("ibs_op") else "ibs_fetch"


tmp = tempfile.mkdtemp(prefix="pm-report-ibs-")
try:
    cases = [("bundled", os.path.join(SRC, "examples/data/ibs-synthetic.data"),
              json.load(open(os.path.join(SRC, "examples/data/ibs-synthetic.expected.json"))))]
    for seed in ("3", "11"):
        data, side = os.path.join(tmp, seed + ".data"), os.path.join(tmp, seed + ".json")
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/gen/gen_ibs.py"), data, "--expected",
                        side, "--seed", seed, "--samples", "600"], check=True)
        cases.append(("seed" + seed, data, json.load(open(side))))
    # the bundled recording is what the generator writes (deterministic)
    regen = os.path.join(tmp, "regen.data")
    subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/gen/gen_ibs.py"), regen], check=True)
    check(open(regen, "rb").read() == open(cases[0][1], "rb").read(),
          "examples/data/ibs-synthetic.data is not what tests/gen/gen_ibs.py writes: regenerate it")
    for name, data, exp in cases:
        samples = exp["samples"]
        check(sum(1 for s in samples if s.get("expected", {}).get("exact") is False) >= 3 and
              sum(1 for s in samples if s.get("expected", {}).get("ip_differs")) >= 2,
              "%s: the generator made too few inexact / disagreeing samples" % name)
        # by symbol: charged to the valid IbsOpRip, else the sample ip
        groups = {}
        for s in samples:
            sym = s["expected"]["charge_symbol"] if "expected" in s else s["symbol"]
            groups.setdefault((s["event"], sym), []).append(s)
        rows = report(data, "sym")
        got = {(event_of(r), r["sym"]): r for r in rows}
        check(set(got) == set(groups), "%s --sort sym keys %s != %s" % (name, sorted(got), sorted(groups)))
        for k, ss in groups.items():
            r = got.get(k)
            if not r:
                continue
            label = "%s %s" % (name, k)
            check(r["samples"] == len(ss), "%s samples %d != %d" % (label, r["samples"], len(ss)))
            (expect_op if k[0] == "ibs_op" else expect_fetch)(r, ss, label)
        # by instruction: exact samples at the tagged address, inexact ones apart
        rows = report(data, "pc")
        got = {}
        for r in rows:
            got.setdefault((event_of(r), int(r["pc"], 16)), r)
        want = {}
        for s in samples:
            if "expected" not in s:
                continue
            k = (s["event"], s["expected"]["charge"] if s["expected"]["exact"] else 0)
            want.setdefault(k, []).append(s)
        for k, ss in want.items():
            r = got.get(k)
            check(r is not None and r.get("exact" if k[1] else "inexact") == len(ss),
                  "%s --sort pc %s: %s != %d samples" % (name, k, r and (r.get("exact"), r.get("inexact")),
                                                         len(ss)))
            if r and k[1] and k[0] == "ibs_op":
                expect_op(r, ss, "%s pc %#x" % (name, k[1]))
        # annotate keeps inexact samples apart and counts them
        for fn in ("pointer_chase", "branchy"):
            p = subprocess.run([PM, "annotate", "-q", fn, "-i", data, "--symfs", SYMFS, "--event",
                                "ibs_op/cnt_ctl=1/"], capture_output=True, text=True)
            check(p.returncode == 0, "%s annotate %s exited %d: %s" % (name, fn, p.returncode, p.stderr))
            ex = [s for s in samples if s["event"] == "ibs_op" and s.get("expected", {}).get("exact")
                  and s["expected"]["charge_symbol"] == fn]
            inex = [s for s in samples if s["event"] == "ibs_op" and "expected" in s and
                    not s["expected"]["exact"] and s["expected"]["charge_symbol"] == fn]
            check(("%d samples of event 'ibs_op/cnt_ctl=1/'" % len(ex)) in p.stdout,
                  "%s annotate %s: not %d exact samples: %s" % (name, fn, len(ex), p.stdout[:400]))
            if inex:
                check(("# %d inexact IBS samples" % len(inex)) in p.stdout,
                      "%s annotate %s: %d inexact not said: %s" % (name, fn, len(inex), p.stdout[:500]))
            per = {}
            for s in ex:
                per[s["rip"]] = per.get(s["rip"], 0) + 1
            for line in p.stdout.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                left, _, right = line.partition(" :")
                parts = left.split()
                addr = right.split(":")[0].strip()
                if len(parts) >= 2 and addr:
                    a = int(addr, 16)
                    check(int(parts[1]) == per.get(a, 0), "%s annotate %s %#x: %s != %d" % (
                        name, fn, a, parts[1], per.get(a, 0)))
        # text: the IBS header lines
        p = subprocess.run([PM, "report", "-q", "-i", data, "--symfs", SYMFS, "--skid"],
                           capture_output=True, text=True)
        check("valid IbsOpRip" in p.stdout and "Tag-to-retire" in p.stdout and "no skid" in p.stdout
              and "Fetch latency" in p.stdout, "%s text: %s" % (name, p.stdout[:1500]))

    # raw_error for every payload that does not decode (ProfileMe and IBS)
    pm_side = os.path.join(tmp, "pm.json")
    pm_data = os.path.join(tmp, "pm.data")
    subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/gen/gen_profileme.py"), pm_data,
                    "--expected", pm_side], check=True)
    for data, exp in ((pm_data, json.load(open(pm_side))), (cases[0][1], cases[0][2])):
        p = subprocess.run([PM, "script", "--json", "-i", data], capture_output=True, text=True)
        rows = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
        check(len(rows) == len(exp["samples"]), "%s: %d rows != %d" % (data, len(rows), len(exp["samples"])))
        want_reason = {"version 0": "version 0", "short": "shorter than",
                       "caps only: no control register": "no control register"}
        kinds = set()
        for r, s in zip(sorted(rows, key=lambda r: r["time"]), exp["samples"]):
            if "raw_error" in s:
                kinds.add(s["reason"])
                check(want_reason[s["reason"]] in r.get("raw_error", ""),
                      "%s sample %d (%s): raw_error %r" % (data, s["index"], s["reason"], r.get("raw_error")))
                check(not any(k in r for k in ("profileme", "ibs_op", "ibs_fetch")),
                      "%s sample %d: decoded and raw_error" % (data, s["index"]))
            else:
                check("raw_error" not in r, "%s sample %d: raw_error %r" % (data, s["index"], r.get("raw_error")))
        check(kinds == ({"version 0", "short"} if data == pm_data else {"caps only: no control register"}),
              "%s: payload kinds that fail: %s" % (data, kinds))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check.finish()
