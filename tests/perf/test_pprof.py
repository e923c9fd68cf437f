#!/usr/bin/python3
"""profileme convert --to pprof read back by `go tool pprof`; script --folded
against a stackcollapse written here from `perf script`.

Records build/bin/workload with the real perf tool (task-clock, with and
without -g) and checks:
- `go tool pprof -raw` reads every produced profile (also the synthetic
  ProfileMe one);
- per-function flat sample counts of `pprof -top` equal
  `profileme report --sort sym --json`;
- `pprof -traces` shows the stacks `profileme script` prints, as often;
- `pprof -svg` (Graphviz) renders a non-empty SVG;
- on the SYNTHETIC ProfileMe recording (examples/data, generator
  tests/gen/gen_profileme.py) and a SYNTHETIC IBS one (tests/gen/gen_ibs.py),
  `-sample_index` of every extra value type gives the total computed from the
  generator's inputs (the JSON sidecar), and the trap / data_src labels and
  the IBS per-function counts are the generator's;
- `profileme script --folded` counts per stack equal the collapse of
  `perf script` output (stackcollapse-perf.pl's rules) on the same file;
- the progress line: shown when forced (PM_PROGRESS=1), never with -q.
usage: test_pprof.py PROFILEME SRCDIR BUILDDIR
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PM, SRC, BLD = sys.argv[1:4]
WORKLOAD = os.path.join(BLD, "bin", "workload")
PMDATA = os.path.join(SRC, "examples", "data", "profileme-synthetic.data")
PMEXP = os.path.join(SRC, "examples", "data", "profileme-synthetic.expected.json")
fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
        print("FAIL:", msg)
    return cond


def skip(why):
    print("SKIPPED:", why)
    sys.exit(77)


for tool in ("perf", "go"):
    if not shutil.which(tool):
        skip("no %s tool (scripts/setup.sh installs linux-perf and golang-go)" % tool)
if not os.path.exists(WORKLOAD):
    skip("no %s" % WORKLOAD)

tmp = tempfile.mkdtemp(prefix="pm-pprof-")
ENV = dict(os.environ, HOME=tmp, GOPATH=os.path.join(tmp, "go"), GOCACHE=os.path.join(tmp, "gocache"),
           GOFLAGS="-mod=mod", PPROF_TMPDIR=tmp, PPROF_BINARY_PATH=os.path.join(tmp, "none"))
ENV.pop("PM_PROGRESS", None)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, env=kw.pop("env", ENV), **kw)


def convert(data, out, extra=()):
    p = run([PM, "convert", "--to", "pprof", "-q", "-i", data, "-o", out] + list(extra))
    if p.returncode and "without pprof support" in p.stderr:
        skip("libprofileme built without pprof support (protobuf-c, zlib): %s" % p.stderr.strip())
    check(p.returncode == 0, "convert %s exited %d: %s" % (data, p.returncode, p.stderr))
    check(p.stderr == "", "convert -q printed on stderr: %r" % p.stderr)
    return p


def pprof(args, prof):
    p = run(["go", "tool", "pprof"] + args + [prof])
    check(p.returncode == 0, "go tool pprof %s %s exited %d: %s" % (" ".join(args), prof, p.returncode,
                                                                   p.stderr[-2000:]))
    return p.stdout


def record(out, g):
    cmd = ["perf", "record", "-q", "-e", "task-clock", "-c", "100000", "-o", out]
    if g:
        cmd.append("-g")
    p = run(cmd + [WORKLOAD, "300"])
    if p.returncode:
        skip("perf record failed: %s" % p.stderr.strip()[-500:])


TOP = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.*?)\s*$")


def pprof_flat(prof):
    out = pprof(["-top", "-sample_index=samples", "-nodecount=1000000", "-nodefraction=0",
                 "-edgefraction=0"], prof)
    flat = collections.Counter()
    total = None
    for line in out.splitlines():
        m = re.search(r"of (\d+) total", line)
        if m:
            total = int(m.group(1))
        m = TOP.match(line)
        if m:
            flat[m.group(3)] += int(m.group(1))
    return flat, total


def report_flat(data):
    p = run([PM, "report", "-q", "-i", data, "--sort", "sym", "--json"])
    check(p.returncode == 0, "report %s exited %d: %s" % (data, p.returncode, p.stderr))
    flat = collections.Counter()
    for line in p.stdout.splitlines():
        if line.strip():
            r = json.loads(line)
            flat[r["sym"]] += r["samples"]
    return flat


def pprof_traces(prof):
    """Counter of leaf-first stacks (tuples of function names) from -traces."""
    out = pprof(["-traces", "-sample_index=samples"], prof)
    stacks = collections.Counter()
    for block in out.split("-----------+-------------------------------------------------------")[1:]:
        frames, n = [], None
        for line in block.splitlines():
            if not line.strip() or re.match(r"^\s+[\w:]+:\s", line) and n is None:
                continue          # label lines ("comm:  workload")
            m = re.match(r"^\s+(\d+)\s{3}(.*)$", line)
            if n is None and m:
                n = int(m.group(1))
                frames.append(m.group(2).strip())
            elif n is not None:
                frames.append(line.strip())
        if n is not None:
            stacks[tuple(frames)] += n
    return stacks


CHAIN = re.compile(r"^\t\s*([0-9a-f]+) (.*) \((.*)\)$")


def script_stacks(data):
    """Counter of leaf-first stacks from profileme script (callchain lines)."""
    p = run([PM, "script", "-q", "-i", data])
    check(p.returncode == 0, "script %s exited %d: %s" % (data, p.returncode, p.stderr))
    stacks, cur = collections.Counter(), None
    for line in p.stdout.splitlines() + [""]:
        m = CHAIN.match(line)
        if m:
            cur.append(re.sub(r"\+0x[0-9a-f]+$", "", m.group(2)))
        elif not line.strip():
            if cur:
                stacks[tuple(cur)] += 1
            cur = None
        else:
            cur = []
    return stacks


def tidy(func):
    """stackcollapse-perf.pl's tidying of a function name."""
    func = func.replace(";", ":")
    i = func.find("(")
    while i > 0 and func.startswith("(anonymous namespace)", i):
        i = func.find("(", i + 21)
    if i > 0:
        func = func[:i]
    return func.replace('"', "").replace("'", "")


def frame_name(func, mod):
    """stackcollapse-perf.pl's name of one perf script frame."""
    func = re.sub(r"\+0x[0-9a-f]+$", "", func)
    if func == "[unknown]":
        if mod != "[unknown]":
            func = mod.rsplit("/", 1)[-1]
            func = func if func.startswith("[") else "[%s]" % func
        else:
            func = "[unknown]"
    return tidy(func)


def perf_collapse(data):
    """stackcollapse-perf.pl applied to `perf script -F comm,ip,sym,dso`:
    comm (spaces -> _), then the frames root first; an unknown symbol is
    the module's base name in brackets, or [unknown].  Returns the counts
    per stack, and the set of frame names perf found in the kernel or the
    workload (strict) and in shared libraries (lib)."""
    p = run(["perf", "script", "-F", "comm,ip,sym,dso", "-i", data])
    check(p.returncode == 0, "perf script exited %d: %s" % (p.returncode, p.stderr[-500:]))
    out = collections.Counter()
    strict, lib = set(), set()
    comm, frames = None, []

    def frame(func, mod):
        name = frame_name(func, mod)
        if mod.startswith("[kernel") or mod.endswith("/workload") or mod == "[unknown]":
            strict.add(name)
        else:
            lib.add(name)
        frames.append(name)

    def flush():
        if comm is not None:
            out[";".join([comm.replace(" ", "_")] + frames[::-1])] += 1

    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        m = re.match(r"^\t\s*([0-9a-f]+) (.*) \((.*)\)$", line)   # callchain entries start with a tab
        if m and comm is not None:
            frame(m.group(2), m.group(3))
            continue
        flush()
        # a sample line: "comm  ip sym (dso)" without a callchain, "comm" with one
        m = re.match(r"^\s*(.*?)\s+([0-9a-f]+) (.*) \((.*)\)$", line)
        comm, frames = (m.group(1), []) if m else (line.strip(), [])
        if m:
            frame(m.group(3), m.group(4))
    flush()
    return out, strict, lib


def canonical(folded, strict):
    """Library frames (any name perf did not see in the kernel or the
    workload) become [lib]: perf and libprofileme may pick different
    aliases of one address in a shared library (docs/report.md)."""
    out = collections.Counter()
    for k, n in folded.items():
        parts = k.split(";")
        out[";".join(parts[:1] + [f if f in strict else "[lib]" for f in parts[1:]])] += n
    return out


def pm_folded(data):
    p = run([PM, "script", "--folded", "-q", "-i", data])
    check(p.returncode == 0, "script --folded exited %d: %s" % (p.returncode, p.stderr))
    out = collections.Counter()
    for line in p.stdout.splitlines():
        stack, _, n = line.rpartition(" ")
        check(stack and n.isdigit(), "folded line %r is not 'stack count'" % line)
        out[stack] += int(n)
    lines = p.stdout.splitlines()
    check(lines == sorted(lines, key=lambda l: l.rpartition(" ")[0].encode()),
          "folded lines are not sorted by stack")
    return out


def known_difference(stack):
    # docs/report.md: perf names PLT stubs `x@plt` and reads the vDSO image
    # from memory; libprofileme shows both as [module] / [unknown].
    return "@plt" in stack or "[vdso]" in stack or "__vdso" in stack


try:
    datas = {}
    for g in (False, True):
        d = os.path.join(tmp, "g.data" if g else "nog.data")
        record(d, g)
        datas[g] = d
    profs = {}
    for g, d in datas.items():
        profs[g] = d + ".pb.gz"
        convert(d, profs[g])
    pmprof = os.path.join(tmp, "pm.pb.gz")
    convert(PMDATA, pmprof)

    # 1. pprof reads every file; the value types are the documented ones.
    for g, prof in list(profs.items()) + [("pm", pmprof)]:
        raw = pprof(["-raw"], prof)
        check("Samples:" in raw and "Locations" in raw, "%s: -raw shows no samples/locations" % prof)
        if g != "pm":
            check("samples/count task-clock/nanoseconds" in raw,
                  "%s: value types are not samples/count task-clock/nanoseconds" % prof)
            check(re.search(r"comm:\[workload\]", raw) and re.search(r"pid:\[\d+\]", raw) and
                  re.search(r"tid:\[\d+\]", raw), "%s: comm/pid/tid labels missing" % prof)
            check(re.search(r"build_id|[0-9a-f]{40}", raw), "%s: no mapping has a build id" % prof)
        else:
            check("SYNTHETIC" in raw, "the synthetic recording's profile does not say it is synthetic")

    # 2. flat per-function sample counts equal profileme report --sort sym.
    for g, prof in profs.items():
        flat, total = pprof_flat(prof)
        rep = report_flat(datas[g])
        check(total == sum(rep.values()), "-g=%s: pprof total %s != report total %d" % (g, total, sum(rep.values())))
        check(flat == rep, "-g=%s: pprof flat counts differ from report: %s" % (
            g, sorted(set(flat.items()) ^ set(rep.items()))[:20]))
        check(len(rep) >= 3, "-g=%s: too few symbols (%d) to mean anything" % (g, len(rep)))

    # 2b. a pipe-mode recording (perf record -o -: attrs arrive as records).
    pipe = os.path.join(tmp, "pipe.data")
    with open(pipe, "wb") as out:
        pr = subprocess.run(["perf", "record", "-q", "-g", "-e", "task-clock", "-c", "100000", "-o", "-",
                             WORKLOAD, "200"], stdout=out, stderr=subprocess.PIPE, env=ENV)
    if check(pr.returncode == 0, "perf record -o - failed: %s" % pr.stderr[-300:]):
        convert(pipe, pipe + ".pb.gz")
        flat, total = pprof_flat(pipe + ".pb.gz")
        rep = report_flat(pipe)
        check(flat == rep and total == sum(rep.values()) > 100,
              "pipe mode: pprof flat counts differ from report (%s vs %s)" % (total, sum(rep.values())))

    # 3. -traces: the stacks of profileme script, as often.
    tr = pprof_traces(profs[True])
    sc = script_stacks(datas[True])
    check(sum(sc.values()) > 100 and max(len(s) for s in sc) > 3, "script shows too few/short stacks")
    check(tr == sc, "pprof -traces differs from profileme script: %s" % (
        sorted(set(tr.items()) ^ set(sc.items()))[:10]))

    # 4. Graphviz.
    if shutil.which("dot"):
        svg = os.path.join(tmp, "g.svg")
        pprof(["-svg", "-output", svg], profs[True])
        body = open(svg, errors="replace").read() if os.path.exists(svg) else ""
        check(len(body) > 1000 and "<svg" in body and "</svg>" in body and "msort" in body,
              "-svg output is not a non-empty SVG of the profile (%d bytes)" % len(body))
    else:
        print("note: no Graphviz dot: the -svg check is skipped")

    # 5. ProfileMe value types against the generator's inputs.
    exp = json.load(open(PMEXP))
    good = [s for s in exp["samples"] if "expected" in s]
    want = {
        "samples": len(exp["samples"]),
        "trapped": sum(1 for s in good if s["expected"]["trapped"]),
        "killed": sum(s["fields"]["killed"] for s in good),
        "mispredicted": sum(1 for s in good if s["expected"]["mispredicted"]),
        "stalled": sum(s["fields"]["stalled"] for s in good),
    }
    for s in good:
        f, e = s["fields"], s["expected"]
        c0 = e["pctr0_counts"].replace(" ", "_")
        v0 = max(f["pctr0"] - f["ovr"], 0) if c0 == "instructions" else f["pctr0"]
        want[c0] = want.get(c0, 0) + v0
        c1 = e["pctr1_counts"].replace(" ", "_")
        want[c1] = want.get(c1, 0) + f["pctr1"]
    check(want["trapped"] and want["killed"] and want["stalled"] and want["mispredicted"],
          "the synthetic recording lacks some kind of sample: %s" % want)
    for vt, total in sorted(want.items()):
        out = pprof(["-top", "-sample_index=" + vt, "-nodecount=1"], pmprof)
        m = re.search(r"of (\d+)(?:cycles)? total", out)
        check(m and int(m.group(1)) == total, "-sample_index=%s: total %s, generator says %d" % (
            vt, m.group(1) if m else out[:300], total))
    raw = pprof(["-raw"], pmprof)
    traps = collections.Counter(s["expected"]["trap"] for s in good if s["expected"]["trap"] != "none")
    got = collections.Counter()
    for m in re.finditer(r"^\s+(\d+)\s.*\n((?:\s+\S.*:\[.*\n)+)", raw, re.M):
        t = re.search(r"trap:\[([^\]]*)\]", m.group(2))
        if t:
            got[t.group(1)] += int(m.group(1))
    check(got == traps, "trap labels %s != generator %s" % (dict(got), dict(traps)))

    # 5b. IBS (tests/gen/gen_ibs.py): value types and data_src labels from
    #     the generator's inputs; functions where the generator charged them.
    ibsgen = os.path.join(SRC, "tests", "gen", "gen_ibs.py")
    ibsdata, ibsjson = os.path.join(tmp, "ibs.data"), os.path.join(tmp, "ibs.json")
    p = run([sys.executable, ibsgen, ibsdata, "--expected", ibsjson])
    check(p.returncode == 0, "gen_ibs.py failed: %s" % p.stderr[-500:])
    ibsprof = os.path.join(tmp, "ibs.pb.gz")
    convert(ibsdata, ibsprof, ["--symfs", os.path.join(SRC, "examples", "data", "symfs")])
    iexp = json.load(open(ibsjson))["samples"]
    op = [x for x in iexp if x["event"] == "ibs_op" and "raw_error" not in x]
    fe = [x for x in iexp if x["event"] == "ibs_fetch" and "raw_error" not in x]
    iwant = {
        "samples": len(iexp),
        "tag_to_retire": sum(x["fields"]["tag_to_ret_ctr"] for x in op),
        "dc_miss_latency": sum(x["fields"]["dc_miss_lat"] for x in op if x["fields"]["dc_miss"]),
        "dc_misses": sum(x["fields"]["dc_miss"] for x in op),
        "mispredicted_branches": sum(x["fields"]["brn_misp"] for x in op),
        "fetch_latency": sum(x["fields"]["fetch_lat"] for x in fe),
        "ic_misses": sum(x["fields"]["ic_miss"] for x in fe),
    }
    check(all(iwant.values()), "the IBS recording lacks some kind of sample: %s" % iwant)
    for vt, total in sorted(iwant.items()):
        out = pprof(["-top", "-sample_index=" + vt, "-nodecount=1"], ibsprof)
        m = re.search(r"of (\d+)(?:cycles)? total", out)
        check(m and int(m.group(1)) == total, "IBS -sample_index=%s: total %s, generator says %d" % (
            vt, m.group(1) if m else out[:300], total))
    iflat, _ = pprof_flat(ibsprof)
    want_fn = collections.Counter(x.get("expected", {}).get("charge_symbol") or x["symbol"] for x in iexp)
    check(iflat == want_fn, "IBS per-function samples %s != generator's charges %s" % (dict(iflat), dict(want_fn)))
    raw = pprof(["-raw"], ibsprof)
    dsrc = collections.Counter()
    for m in re.finditer(r"^\s+(\d+)\s.*\n((?:\s+\S.*:\[.*\n)+)", raw, re.M):
        t = re.search(r"data_src:\[([^\]]*)\]", m.group(2))
        if t:
            dsrc[t.group(1)] += int(m.group(1))
    want_ds = collections.Counter(x["expected"]["data_src_name"] for x in op if "data_src_name" in x["expected"])
    check(dsrc == want_ds, "IBS data_src labels %s != generator %s" % (dict(dsrc), dict(want_ds)))

    # 6. --folded against stackcollapse of perf script: exact per stack
    #    for kernel and workload frames, library frames by position.
    for g, d in datas.items():
        mine = pm_folded(d)
        theirs, strict, lib = perf_collapse(d)
        check(sum(mine.values()) == sum(theirs.values()),
              "-g=%s: folded total %d != perf script samples %d" % (g, sum(mine.values()), sum(theirs.values())))
        cm, ct = canonical(mine, strict - lib), canonical(theirs, strict - lib)
        diff = {k for k in set(cm) | set(ct) if cm[k] != ct[k] and not known_difference(k)}
        check(not diff, "-g=%s: folded stacks differ from perf script's collapse: %s" % (
            g, [(k, cm[k], ct[k]) for k in sorted(diff)[:8]]))
        same = sum(n for k, n in mine.items() if theirs[k] == n)
        print("-g=%s: %d stacks, %d of %d samples in stacks identical to perf's by name" % (
            g, len(mine), same, sum(mine.values())))
        check(same * 10 >= sum(mine.values()) * 9, "-g=%s: under 90%% of the samples have perf's exact stack" % g)
        if g:
            check(max(k.count(";") for k in mine) > 3, "folded stacks of the -g recording are short")

    # 7. Progress line: forced on a non-tty, off with -q.
    p = run([PM, "convert", "--to", "pprof", "-i", datas[True], "-o", os.path.join(tmp, "x.pb.gz")],
            env=dict(ENV, PM_PROGRESS="1"))
    check("samples" in p.stderr and "MB" in p.stderr, "no progress line with PM_PROGRESS=1: %r" % p.stderr)
    for cmd in (["convert", "--to", "pprof", "-o", os.path.join(tmp, "y.pb.gz")], ["report"], ["script"]):
        p = run([PM] + cmd + ["-q", "-i", datas[True]], env=dict(ENV, PM_PROGRESS="1"))
        check("MB/s" not in p.stderr, "%s -q printed a progress line: %r" % (cmd[0], p.stderr[:200]))
        p = run([PM] + cmd + ["-i", datas[True]])
        check("MB/s" not in p.stderr, "%s printed a progress line on a non-terminal" % cmd[0])
finally:
    shutil.rmtree(tmp, ignore_errors=True)

if fails:
    print("%d failure(s)" % len(fails))
    sys.exit(1)
print("ok")
