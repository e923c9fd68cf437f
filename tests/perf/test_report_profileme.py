#!/usr/bin/python3
"""ProfileMe aggregates of profileme report on generated recordings.

The expected aggregates are computed here from the generator's inputs (the
sidecar JSON of tests/gen/gen_profileme.py), never from the report: per
module and per pc (charged as the kernel's rule says: a PAL redirect to the
trapping instruction, other PAL samples to [PALcode], a user PMPC in a
kernel thread to its ip), samples, not killed/killed, stalled/trapped/
mispredicted counts and percentages, PAL redirects, trap names, PCTR1
mean/quartiles (nearest rank), and skid (only where both IPs are virtual
addresses of one address space; none for PAL samples).  Symbols come
from examples/data/symfs (the tiny Alpha ELF of the synthetic program and a
synthetic kallsyms); the sidecar says which function the generator put each
sample's pc in.  The bundled recording finds that directory by itself.
usage: test_report_profileme.py PROFILEME SRCDIR BUILDDIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from harness import Checks  # noqa: E402

check = Checks()

PM, SRC, BLD = sys.argv[1:4]


def quart(vals, q):
    v = sorted(vals)
    rank = max(1, (len(v) * q + 3) // 4)
    return v[rank - 1]


def expect(exp, keyfn):
    meta = exp["meta"]
    groups = {}
    for s in exp["samples"]:
        k = keyfn(meta, s)
        g = groups.setdefault(k, dict(samples=0, pm=[]))
        g["samples"] += 1
        if "raw_error" not in s:
            g["pm"].append(s)
    return groups


def charge_module(s):
    a = s["attribution"]
    if a["charge"] == "PALcode":
        return "[PALcode]"
    return "[kernel.kallsyms]" if a["charge_mode"] == "kernel" else "pmdemo"


def module_key(meta, s):
    if "raw_error" in s:
        return "pmdemo"
    return charge_module(s)


def sym_key(meta, s):
    # the generator's own choice: the function it put the charged address in
    if "attribution" in s and s["attribution"]["charge"] == "PALcode":
        return ("[PALcode]", "[PALcode]")
    return (s["module"], s["symbol"] or "[unknown]")


def fileaddr(meta, pc):
    m = meta["mmap2"]
    t = meta["elf_text"]
    # the file address (what objdump shows): file offset in the ELF -> vaddr of its segment
    return pc - m["start"] + m["pgoff"] - t["offset"] + t["vaddr"]


def pc_key(meta, s):
    if "raw_error" in s:
        return ("pmdemo", fileaddr(meta, s["ip"]))
    mod, addr = charge_module(s), s["attribution"]["charge_addr"]
    return (mod, fileaddr(meta, addr) if mod == "pmdemo" else addr)


def compare(row, g, label):
    check(row["samples"] == g["samples"], "%s samples %d != %d" % (label, row["samples"], g["samples"]))
    pm = g["pm"]
    if not pm:
        check("profileme" not in row, "%s: ProfileMe columns without ProfileMe samples" % label)
        return
    n = len(pm)
    killed = sum(1 for s in pm if s["fields"]["killed"])
    check(row.get("profileme") == n, "%s profileme %s != %d" % (label, row.get("profileme"), n))
    # only what the bits say: no "retired" computed as samples minus killed
    check("retired" not in row, "%s: a 'retired' key" % label)
    check(row.get("killed") == killed and row.get("not_killed") == n - killed,
          "%s killed/not_killed %s/%s != %d/%d" % (label, row.get("killed"), row.get("not_killed"),
                                                   killed, n - killed))
    for key, pred in (("stalled", lambda s: s["fields"]["stalled"]),
                      ("trapped", lambda s: s["fields"]["trp"] and not s["fields"]["killed"]),
                      ("mispredicted", lambda s: s["fields"]["trp"] and not s["fields"]["killed"]
                       and s["fields"]["mis"]),
                      ("pal_redirects", lambda s: s["attribution"]["charge"] == "redirect")):
        want = sum(1 for s in pm if pred(s))
        check(row.get(key) == want, "%s %s %s != %d" % (label, key, row.get(key), want))
    for key, pred in (("stalled_pct", lambda s: s["fields"]["stalled"]),
                      ("trapped_pct", lambda s: s["expected"]["trapped"]),
                      ("mispredicted_pct", lambda s: s["expected"]["mispredicted"])):
        want = 100.0 * sum(1 for s in pm if pred(s)) / n
        check(abs(row.get(key, -1) - want) < 1e-3, "%s %s %s != %.4f" % (label, key, row.get(key), want))
    traps = {}
    for s in pm:
        if s["expected"]["trap"] != "none":
            traps[s["expected"]["trap"]] = traps.get(s["expected"]["trap"], 0) + 1
    check(row.get("traps") == traps, "%s traps %s != %s" % (label, row.get("traps"), traps))
    vals = [s["fields"]["pctr1"] for s in pm]
    check(abs(row.get("pctr1_mean", -1) - sum(vals) / n) < 1e-3, "%s pctr1_mean" % label)
    for k, q in (("pctr1_min", 0), ("pctr1_q1", 1), ("pctr1_median", 2), ("pctr1_q3", 3)):
        check(row.get(k) == quart(vals, q), "%s %s %s != %d" % (label, k, row.get(k), quart(vals, q)))
    check(row.get("pctr1_max") == max(vals), "%s pctr1_max" % label)
    counts = {s["expected"]["pctr1_counts"] for s in pm}
    check(row.get("pctr1_counts") in counts, "%s pctr1_counts %s" % (label, row.get("pctr1_counts")))
    # a distance only where both IPs are virtual addresses of one address space
    skid = sum(1 for s in pm if s["attribution"]["skid_valid"] and s["ip"] != s["expected"]["pc"])
    undef = sum(1 for s in pm if not s["attribution"]["skid_valid"])
    check(row.get("skid_samples") == skid, "%s skid %s != %d" % (label, row.get("skid_samples"), skid))
    check(row.get("skid_undefined") == undef, "%s skid_undefined %s != %d" % (
        label, row.get("skid_undefined"), undef))
    if all(s["expected"]["pal"] for s in pm):
        check(row.get("skid_samples") == 0 and row.get("skid_max") == 0,
              "%s: a skid for PAL samples" % label)
    check(row.get("pctr0_counts") in {s["expected"]["pctr0_counts"] for s in pm},
          "%s pctr0_counts %s" % (label, row.get("pctr0_counts")))


SYMFS = os.path.join(SRC, "examples", "data", "symfs")


def run(data, sort, symopts=("--symfs", SYMFS, "--kallsyms", os.path.join(SYMFS, "kallsyms"))):
    p = subprocess.run([PM, "report", "-q", "-i", data, *symopts, "--skid",
                        "--json", "--sort", sort], capture_output=True, text=True)
    check(p.returncode == 0, "report %s exited %d: %s" % (sort, p.returncode, p.stderr))
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


tmp = tempfile.mkdtemp(prefix="pm-report-pm-")
try:
    for variant, extra in (("le", []), ("be", ["--big-endian"]), ("pipe", ["--pipe"]),
                           ("seed7", ["--seed", "7", "--samples", "500"])):
        data = os.path.join(tmp, variant + ".data")
        side = os.path.join(tmp, variant + ".json")
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "tests/gen/gen_profileme.py"), data,
                        "--expected", side] + extra, check=True)
        exp = json.load(open(side))
        for sort, keyfn, rowkey in (
                ("dso", module_key, lambda r: r["dso"]),
                ("dso,sym", sym_key, lambda r: (r["dso"], r["sym"])),
                ("dso,pc", pc_key, lambda r: (r["dso"], int(r["pc"], 16)))):
            rows = run(data, sort)
            want = expect(exp, keyfn)
            got = {rowkey(r): r for r in rows}
            check(set(got) == set(want), "%s %s: keys %s != %s" % (variant, sort, sorted(map(str, got)),
                                                                  sorted(map(str, want))))
            for k, g in want.items():
                if k in got:
                    compare(got[k], g, "%s %s %s" % (variant, sort, k))
            total = sum(r["overhead"] for r in rows)
            check(abs(total - 100.0) < 0.01, "%s %s: overhead sums to %f" % (variant, sort, total))
        # every PAL redirect is charged to the trapping instruction (the sample ip),
        # with its trap named, in report --json --sort dso,pc ...
        rows = {(r["dso"], int(r["pc"], 16)): r for r in run(data, "dso,pc")}
        red = [s for s in exp["samples"] if s.get("attribution", {}).get("charge") == "redirect"]
        check(len(red) >= 3, "%s: only %d PAL redirect samples" % (variant, len(red)))
        for s in red:
            k = pc_key(exp["meta"], s)
            r = rows.get(k)
            check(r is not None and r["dso"] != "[PALcode]" and s["expected"]["trap"] in r.get("traps", {}),
                  "%s sample %d: redirect %s not at its trapping instruction %s: %s" % (
                      variant, s["index"], s["expected"]["trap"], k, r))
        # ... and in annotate, named at that address
        for s in red[:4]:
            if s["module"] != "pmdemo" or not s["symbol"]:
                continue
            p = subprocess.run([PM, "annotate", "-q", s["symbol"], "-i", data, "--no-disasm",
                                "--symfs", SYMFS, "--kallsyms", os.path.join(SYMFS, "kallsyms")],
                               capture_output=True, text=True)
            line = "# traps at %#x:" % fileaddr(exp["meta"], s["ip"])
            got = [l for l in p.stdout.splitlines() if l.startswith(line)]
            check(got and s["expected"]["trap"] in got[0] and "PAL redirect" in got[0],
                  "%s annotate %s: no '%s ... %s' line: %s" % (variant, s["symbol"], line,
                                                               s["expected"]["trap"], p.stdout[-800:]))
        # text: the header says synthetic, names what PCTR0/PCTR1 counted, the fate columns
        p = subprocess.run([PM, "report", "-q", "-i", data, "--skid"], capture_output=True, text=True)
        check("(synthetic)" in p.stdout and "PCTR1 counts cycles" in p.stdout and "Skid" in p.stdout
              and "PCTR0 sampled on instructions" in p.stdout and "NotKilled" in p.stdout
              and "Retired" not in p.stdout and "No distance for" in p.stdout
              # the generator's attr: config 0x102, event code 2 -> SL1 0
              and "ProfileMe event code 2: the driver samples on instructions (PCTR0) and counts "
                  "cycles (PCTR1)" in p.stdout,
              "%s text header: %s" % (variant, p.stdout[:1200]))
    # The bundled recording: its symbols are found next to it (examples/data/symfs),
    # per-symbol sample counts as the sidecar's choices say.
    exp = json.load(open(os.path.join(SRC, "examples/data/profileme-synthetic.expected.json")))
    want = {}
    for s in exp["samples"]:
        k = sym_key(exp["meta"], s)[1]
        want[k] = want.get(k, 0) + 1
    check(len(want) >= 8 and set(want) >= {"list_walk", "parse_branchy", "do_page_fault"},
          "bundled sidecar names too few functions: %s" % sorted(want))
    data = os.path.join(SRC, "examples/data/profileme-synthetic.data")
    got = {r["sym"]: r["samples"] for r in run(data, "sym", ())}
    check(got == want, "bundled --sort sym: %s != %s" % (sorted(got.items()), sorted(want.items())))
    rows = run(data, "dso,sym", ())
    check({(r["dso"], r["sym"]) for r in rows} == set(expect(exp, sym_key)),
          "bundled --sort dso,sym keys: %s" % sorted((r["dso"], r["sym"]) for r in rows))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
check.finish()
