#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Oracle test: tracepoint names and fields come from the recording.

1. Real recordings made here with `perf record -e 'sched:*'` (and
   raw_syscalls / syscalls events when this machine has them): for every
   sample, `profileme script --json`'s "event" and "tp" object equal what
   `perf script -s` hands a Python script (the event's own fields).
2. SYNTHETIC recordings (tests/gen/gen_wild.py) of tracepoints whose ids do
   not exist on this machine (probe_wild:main 61001, probe_wild:exit 61002),
   file and pipe mode, both byte orders, tracing data 0.5 and 0.6, with and
   without EVENT_DESC / EVENT_UPDATE, without tracing data: names and fields
   equal the generator's, and perf's where perf reads the file.

perf's engine reads a signed field narrower than 8 bytes without sign
extension (a short -63 is handed out as 65473); profileme gives the signed
value, so such fields are compared modulo 2^(8*size).  perf hands numeric
arrays out as bytes; they are compared as the elements those bytes hold.

usage: test_tracepoints_vs_perf.py PROFILEME SRCDIR BUILDDIR
"""
import json
import os
import shutil
import subprocess
import sys

from harness import SKIPPED as SKIP, skip  # noqa: E402

DUMP = r'''
import json
def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict=None):
    d = {}
    for k, v in event_fields_dict.items():
        if k.startswith("common_"):
            continue
        if isinstance(v, (bytes, bytearray)):
            v = list(v)
        d[k] = v
    print(json.dumps({"event": event_name, "tp": d,
                      "time": event_fields_dict["common_s"] * 1000000000 +
                      event_fields_dict["common_ns"],
                      "cpu": event_fields_dict["common_cpu"]}))
'''


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def prof_json(prof, path):
    r = run([prof, "script", "-i", path, "--json"])
    if r.returncode != 0:
        raise SystemExit("profileme script failed on %s: %s" % (path, r.stderr))
    return [json.loads(x) for x in r.stdout.splitlines()]


def perf_dump(perf, path, work):
    script = os.path.join(work, "dump_tp.py")
    with open(script, "w") as f:
        f.write(DUMP)
    r = run([perf, "script", "-i", path, "-s", script])
    if r.returncode != 0:
        raise SystemExit("perf script -s failed on %s: %s" % (path, r.stderr[-400:]))
    out = []
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            d["event"] = d["event"].replace("__", ":", 1)
            out.append(d)
    return out


def formats_of(path):
    """field layout per event from the format text in the file (parsed here
    independently: name -> (size, signed, elem count))."""
    data = open(path, "rb").read()
    out = {}
    pos = 0
    while True:
        i = data.find(b"\nID: ", pos)
        if i < 0:
            break
        j = data.rfind(b"name: ", 0, i)
        name = data[j + 6:i].decode()
        end = data.find(b"print fmt:", i)
        fields = {}
        for line in data[i:end].decode(errors="replace").splitlines():
            line = line.strip()
            if not line.startswith("field:"):
                continue
            parts = dict(p.strip().split(":", 1) for p in line.split(";") if ":" in p)
            decl = parts["field"].strip()
            fname = decl.split()[-1]
            n = 1
            if "[" in fname and not decl.startswith("__data_loc"):
                fname, cnt = fname.split("[")
                n = int(cnt.rstrip("]")) if cnt.rstrip("]").isdigit() else 1
            fields[fname] = (int(parts["size"]), parts.get("signed", "0").strip() == "1", n,
                             decl)
        out[name] = fields
        pos = i + 1
    return out


def same(field, ours, perfs, layout):
    if ours == perfs:
        return True
    if layout is None:
        return False
    size, signed, n, decl = layout
    if isinstance(ours, list) and isinstance(perfs, list):
        # perf: the array's bytes; ours: its elements
        es = size // max(n, 1)
        if len(perfs) == size and len(ours) == n:
            el = [int.from_bytes(bytes(perfs[k * es:(k + 1) * es]), "little", signed=signed)
                  for k in range(n)]
            return el == ours
        return False
    if isinstance(ours, int) and isinstance(perfs, int) and signed and size < 8:
        return (ours - perfs) % (1 << (8 * size)) == 0
    return False


def compare(ours, perfs, layouts, what):
    ps = list(perfs)
    os_ = [o for o in ours if "tp" in o]
    if len(os_) != len(ps):
        raise SystemExit("%s: %d tracepoint samples from profileme, %d from perf" %
                         (what, len(os_), len(ps)))
    # same time and cpu can repeat: compare as sorted multisets per (time, cpu, event)
    byk = {}
    for p in ps:
        byk.setdefault((p["time"], p["cpu"], p["event"]), []).append(p["tp"])
    n = 0
    for o in os_:
        k = (o["time"], o["cpu"], o["event"])
        cands = byk.get(k)
        if not cands:
            raise SystemExit("%s: profileme sample %s has no perf twin" % (what, k))
        lay = layouts.get(o["event"].split(":", 1)[1], {})
        for c in cands:
            if set(c) == set(o["tp"]) and all(same(f, o["tp"][f], c[f], lay.get(f)) for f in c):
                cands.remove(c)
                n += 1
                break
        else:
            raise SystemExit("%s: fields differ at %s:\n profileme %s\n perf      %s" %
                             (what, k, o["tp"], cands))
    return n


def main():
    prof, src, build = sys.argv[1:4]
    perf = shutil.which("perf")
    if not perf:
        skip("perf is missing")
    work = os.path.join(build, "tests", "perf", "tracepoints_vs_perf")
    os.makedirs(work, exist_ok=True)
    gen = os.path.join(src, "tests", "gen", "gen_wild.py")

    # ---- synthetic: ids no machine has
    tracefs = "/sys/kernel/tracing/events"
    local_ids = set()
    for root, _d, files in os.walk(tracefs) if os.path.isdir(tracefs) else []:
        if "id" in files:
            try:
                local_ids.add(int(open(os.path.join(root, "id")).read()))
            except (OSError, ValueError):
                pass
    assert not {61001, 61002} & local_ids, "the synthetic ids exist on this machine"
    variants = [[], ["--no-event-desc"], ["--no-tracing"], ["--no-tracing", "--no-event-desc"],
                ["--pipe"], ["--pipe", "--no-event-desc"], ["--pipe", "--pad16", "--no-event-desc"],
                ["--trace-version", "0.5", "--no-event-desc"], ["--big-endian", "--no-event-desc"],
                ["--big-endian", "--pipe", "--no-event-desc"]]
    checked = 0
    for v in variants:
        tag = "_".join(x.strip("-") for x in v) or "plain"
        path = os.path.join(work, "tp_%s.data" % tag)
        expf = path + ".json"
        subprocess.run(["/usr/bin/python3", gen, "tp", path, "--expected", expf, "--samples",
                        "30"] + v, check=True)
        exp = json.load(open(expf))["samples"]
        ours = prof_json(prof, path)
        if len(ours) != len(exp):
            raise SystemExit("%s: %d samples, expected %d" % (tag, len(ours), len(exp)))
        for o, e in zip(ours, exp):
            if o["event"] != e["event"] or o["time"] != e["time"]:
                raise SystemExit("%s: sample %s named %s, expected %s" %
                                 (tag, o["time"], o["event"], e["event"]))
            if ("tp" in e) != ("tp" in o) or ("tp" in e and o["tp"] != e["tp"]):
                raise SystemExit("%s: fields %s, expected %s" % (tag, o.get("tp"), e.get("tp")))
        if "--no-tracing" not in v:
            # perf reads it too, names it from the file and decodes the same fields
            # (the generator's little-endian layouts; big endian files are
            # compared with the generator only)
            if "--big-endian" not in v:
                n = compare(ours, perf_dump(perf, path, work), formats_of(path), tag)
                checked += n
        hdr = run([prof, "script", "-i", path, "--header"]).stdout
        if "--no-tracing" not in v and "# tracepoint : probe_wild:main, id = 61001" not in hdr:
            raise SystemExit("%s: --header does not list the file's formats:\n%s" % (tag, hdr))
    print("synthetic: %d variants, %d samples equal to perf's" % (len(variants), checked))

    # ---- real recordings
    probe = os.path.join(work, "probe.data")
    r = run([perf, "record", "-q", "-o", probe, "-e", "sched:sched_switch", "--", "true"])
    if r.returncode != 0:
        print("SKIPPED (real part): perf record -e sched:sched_switch fails here:",
              r.stderr.strip()[:200])
        return 0 if checked else SKIP
    events = ["sched:*"]
    for ev, d in (("raw_syscalls:sys_enter", "raw_syscalls/sys_enter"),
                  ("syscalls:sys_enter_openat", "syscalls/sys_enter_openat"),
                  ("syscalls:sys_exit_openat", "syscalls/sys_exit_openat")):
        if os.path.isdir(os.path.join(tracefs, d)):
            events.append(ev)
    total = 0
    for evs, mode in ((events, "file"), (["sched:*"], "pipe")):
        path = os.path.join(work, "real_%s.data" % mode)
        cmd = [perf, "record", "-q"]
        for e in evs:
            cmd += ["-e", e]
        workload = ["sh", "-c", "for i in 1 2 3; do cat /proc/self/stat >/dev/null; "
                    "ls / >/dev/null; sleep 0.01; done"]
        if mode == "pipe":
            with open(path, "wb") as out:
                r = subprocess.run(cmd + ["-o", "-", "--"] + workload, stdout=out,
                                   stderr=subprocess.PIPE, text=True)
        else:
            r = run(cmd + ["-o", path, "--"] + workload)
        if r.returncode != 0:
            raise SystemExit("perf record %s failed: %s" % (evs, r.stderr[-300:]))
        ours = prof_json(prof, path)
        perfs = perf_dump(perf, path, work)
        if not perfs:
            raise SystemExit("%s: perf handed out no tracepoint sample" % mode)
        n = compare(ours, perfs, formats_of(path), "real " + mode)
        total += n
        kinds = sorted({o["event"] for o in ours if "tp" in o})
        print("real %s: %d samples of %d events equal to perf's (%s)" %
              (mode, n, len(kinds), ", ".join(kinds[:8])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
