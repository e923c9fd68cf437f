#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Oracle test: the names of events in files that name none (no EVENT_DESC:
old perf, simpleperf, pipe streams), as the real perf prints them.

SYNTHETIC files (tests/gen/gen_wild.py names) hold one attr each of: every
generic hardware event (and one past the table), every software event (and
past it), every cache type x op x result (and out-of-range ones), raw events,
each with modifier combinations (exclude_user/kernel/hv/host/guest,
precise_ip); and the attr of every event alias of every PMU of the sysfs
fixtures (tests/fixtures/sysfs/*, encoded with `profileme encode`).
`perf evlist -i FILE` gives perf's names; `profileme script --header` (the
library's pm_file_event_name()) must give the same, in the same order.

With PMU_MAPPINGS naming a dynamic type the library writes `pmu/config=../`
(perf 6.1 says `unknown attr type: N`); that is checked against the
generator's input.

usage: test_event_names_vs_perf.py PROFILEME SRCDIR BUILDDIR
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

from harness import skip  # noqa: E402

MODS = ["G", "", "uG", "kG", "hG", "ukG", "H", "HG", "uH", "khG"]


def specs_generic():
    out = []
    for cfg in range(11):
        for m in MODS:
            out.append("0:%d:%s" % (cfg, m))
        out.append("0:%d:G:2" % cfg)
        out.append("0:%d:uG:1" % cfg)
    for cfg in range(13):
        for m in MODS[:5]:
            out.append("1:%d:%s" % (cfg, m))
    for t in range(8):
        for op in range(4):
            for res in range(3):
                out.append("3:%d:G" % (t | op << 8 | res << 16))
    for m in MODS[:6]:
        out.append("4:0x1a:%s" % m)
    out.append("4:0x53003c:G:3")
    return out


def specs_fixtures(prof, src):
    out = []
    for root in sorted(glob.glob(os.path.join(src, "tests", "fixtures", "sysfs", "*"))):
        if os.path.basename(root).startswith("bad") or not os.path.isdir(root):
            continue
        evs = []
        for d in sorted(glob.glob(os.path.join(root, "bus", "event_source", "devices", "*"))):
            pmu = os.path.basename(d)
            for e in sorted(glob.glob(os.path.join(d, "events", "*"))):
                name = os.path.basename(e)
                if "." in name:
                    continue
                evs.append("%s/%s/" % (pmu, name))
            if os.path.isdir(os.path.join(d, "format")):
                evs.append("%s/config=0x1/u" % pmu)
        for ev in evs:
            r = subprocess.run([prof, "encode", "--json", "--sysfs", root, ev],
                               capture_output=True, text=True)
            if r.returncode != 0:
                continue  # aliases with '?' parameters and the like
            for line in r.stdout.splitlines():
                j = json.loads(line)
                fl = "".join(ch for ch, k in (("u", "exclude_user"), ("k", "exclude_kernel"),
                                             ("h", "exclude_hv"), ("H", "exclude_host"),
                                             ("G", "exclude_guest")) if j[k])
                out.append("%d:%s:%s:%d:%s:%s" % (j["type"], j["config"], fl, j["precise_ip"],
                                                  j["config1"], j["config2"]))
    return out


def perf_names(perf, path):
    r = subprocess.run([perf, "evlist", "-i", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("perf evlist failed on %s: %s" % (path, r.stderr))
    return [x for x in r.stdout.splitlines() if x.strip()]


def prof_names(prof, path):
    r = subprocess.run([prof, "script", "--header", "-i", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("profileme script --header failed on %s: %s" % (path, r.stderr))
    return re.findall(r"^# event : name = (.*?), , id = ", r.stdout, re.M)


def main():
    prof, src, build = sys.argv[1:4]
    perf = shutil.which("perf")
    if not perf:
        skip("perf is missing")
    work = os.path.join(build, "tests", "perf", "event_names")
    os.makedirs(work, exist_ok=True)
    gen = os.path.join(src, "tests", "gen", "gen_wild.py")
    groups = {"generic": specs_generic(), "fixtures": specs_fixtures(prof, src)}
    total = 0
    for name, specs in groups.items():
        if not specs:
            raise SystemExit("no attrs for %s" % name)
        for k in range(0, len(specs), 150):
            chunk = specs[k:k + 150]
            spec_file = os.path.join(work, "%s_%d.txt" % (name, k))
            with open(spec_file, "w") as f:
                f.write("\n".join(chunk) + "\n")
            path = os.path.join(work, "%s_%d.data" % (name, k))
            subprocess.run(["/usr/bin/python3", gen, "names", path, "--attr-file", spec_file],
                           check=True)
            want, got = perf_names(perf, path), prof_names(prof, path)
            if len(want) != len(chunk) or len(got) != len(chunk):
                raise SystemExit("%s: %d attrs, perf names %d, profileme %d" %
                                 (name, len(chunk), len(want), len(got)))
            bad = [(s, w, g) for s, w, g in zip(chunk, want, got) if w != g]
            if bad:
                raise SystemExit("%s: %d names differ from perf's, e.g.\n%s" %
                                 (name, len(bad), "\n".join("  attr %s: perf %r, profileme %r"
                                                            % b for b in bad[:10])))
            total += len(chunk)
    # a dynamic type the file's PMU_MAPPINGS names
    path = os.path.join(work, "pmu_map.data")
    subprocess.run(["/usr/bin/python3", gen, "names", path, "--pmu-map", "8:intel_pt",
                    "--pmu-map", "11:ibs_op", "--attr", "8:0x0:G", "--attr", "11:0x80000:G:2",
                    "--attr", "8:0x300e601:uG", "--attr", "12:0x5"], check=True)
    got = prof_names(prof, path)
    want = ["intel_pt//", "ibs_op/config=0x80000/ppH",
            "intel_pt/config=0x300e601/khH", "unknown attr type: 12"]
    if got != want:
        raise SystemExit("PMU_MAPPINGS names: %r, expected %r" % (got, want))
    print("%d attrs named as perf evlist names them; PMU_MAPPINGS names checked" % total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
