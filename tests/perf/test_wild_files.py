#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""perf.data files of the shapes met in the wild, SYNTHETIC (tests/gen/gen_wild.py),
read by `profileme script` / `report` and, where it reads them, the real perf.

- pipe streams cut short (the last record cut, junk after the last record,
  zeros after it): every record before the damage, exit 0, exactly one
  warning that names the damage offset once; `--strict` turns it back into an
  error (exit 1); perf also prints every record before it.  A record of size
  0 in the middle of a stream stays an error.
- PERFFILE (version 1) files: every attr size perf wrote (VER0..VER4), both
  byte orders, 72- and 104-byte headers, read as perf 6.1 reads them (perf
  reads each too); an attr_size perf never wrote is refused with the reason
  and the offset; the oldest BUILD_ID layout (no pid) is recognised as perf
  recognises it (perf buildid-list agrees).
- 136-byte attrs (VER8), the record types perf 6.16 knows (BPF_METADATA,
  SCHEDSTAT_*, AUX_OUTPUT_HW_ID, CALLCHAIN_DEFERRED) and COMPRESSED2 read.
- a simpleperf-shaped file is refused with a "simpleperf file" message.

usage: test_wild_files.py PROFILEME SRCDIR BUILDDIR
"""
import json
import os
import shutil
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def gen(src, work, name, kind, *args):
    path = os.path.join(work, name)
    exp = path + ".json"
    subprocess.run(["/usr/bin/python3", os.path.join(src, "tests", "gen", "gen_wild.py"), kind,
                    path, "--expected", exp] + list(args), check=True)
    return path, json.load(open(exp))


def fail(msg):
    raise SystemExit("FAIL: " + msg)


def check_cut_streams(prof, perf, src, work):
    cases = [("cut", ["--cut", "5"]), ("cut_header", ["--cut", "36"]),
             ("junk", ["--junk", "13"]), ("zeros", ["--junk", "24", "--junk-byte", "0"]),
             ("cut_junk", ["--cut", "9", "--junk", "3"])]
    for name, args in cases:
        path, exp = gen(src, work, "pipe_%s.data" % name, "pipecut", "--samples", "50", *args)
        off = exp["damage_offset"]
        for how in ("file", "stdin"):
            kw = {}
            cmd = [prof, "script", "--json", "-i", path]
            if how == "stdin":
                cmd[-1] = "-"
                kw["stdin"] = open(path, "rb")
                r = subprocess.run(cmd, capture_output=True, **kw)
                r = subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode(),
                                                r.stderr.decode())
            else:
                r = run(cmd)
            if r.returncode != 0:
                fail("%s (%s): exit %d: %s" % (name, how, r.returncode, r.stderr))
            got = [json.loads(x) for x in r.stdout.splitlines()]
            want = exp["samples"]
            if [(g["ip"], g["time"]) for g in got] != [("0x%x" % w["ip"], w["time"])
                                                        for w in want]:
                fail("%s (%s): %d samples, expected the %d before the damage" %
                     (name, how, len(got), len(want)))
            lines = [x for x in r.stderr.splitlines() if x.strip()]
            if len(lines) != 1 or "warning" not in lines[0]:
                fail("%s (%s): expected one warning, got %r" % (name, how, r.stderr))
            if lines[0].count("offset") != 1 or ("offset %d " % off) not in lines[0]:
                fail("%s (%s): the warning must name offset %d once: %r" %
                     (name, how, off, lines[0]))
        r = run([prof, "script", "--strict", "-i", path])
        if r.returncode != 1 or ("offset %d " % off) not in r.stderr:
            fail("%s: --strict must fail naming offset %d: %d %r" %
                 (name, off, r.returncode, r.stderr))
        if r.stderr.count("offset %d" % off) != 1:
            fail("%s: --strict error names the offset more than once: %r" % (name, r.stderr))
        r = run([prof, "report", "-q", "--sort", "comm", "-i", path])
        if r.returncode != 0 or r.stderr.count("warning") != 1:
            fail("%s: report: exit %d, %r" % (name, r.returncode, r.stderr))
        r = run([prof, "report", "-q", "--strict", "--sort", "comm", "-i", path])
        if r.returncode != 1:
            fail("%s: report --strict: exit %d" % (name, r.returncode))
        if perf:
            r = run([perf, "script", "-i", path])
            n = len([x for x in r.stdout.splitlines() if x.strip()])
            if name in ("cut", "cut_header", "cut_junk") and n != len(exp["samples"]):
                fail("%s: perf printed %d samples, profileme %d" % (name, n, len(exp["samples"])))
    # damage in the middle stays an error, from a file and from a pipe
    path, exp = gen(src, work, "pipe_middle.data", "pipecut", "--samples", "4000",
                    "--zero-at", "10")
    for how in ("file", "stdin"):
        if how == "stdin":
            r = subprocess.run([prof, "script", "-i", "-"], stdin=open(path, "rb"),
                               capture_output=True)
            err = r.stderr.decode()
        else:
            r = run([prof, "script", "-i", path])
            err = r.stderr
        if r.returncode != 1 or ("offset %d " % exp["damage_offset"]) not in err:
            fail("middle damage (%s): exit %d, %r" % (how, r.returncode, err))
    print("cut streams: %d cases from a file and a pipe, --strict, report, middle damage" %
          len(cases))


def samples_of(prof, path):
    r = run([prof, "script", "--json", "-i", path])
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (path, r.returncode, r.stderr))
    return [(int(j["ip"], 16), j["time"]) for j in map(json.loads, r.stdout.splitlines())]


def check_formats(prof, perf, src, work):
    n = 0
    # PERFFILE (version 1): every attr size perf wrote, both byte orders, the
    # 72-byte header and the later 104-byte one with features
    for asz in (64, 72, 80, 96, 104):
        for be in (False, True):
            for hdr in ("72", "104"):
                args = ["--attr-size", str(asz), "--v1-header", hdr, "--samples", "7"]
                if be:
                    args.append("--big-endian")
                path, exp = gen(src, work, "v1_%d_%s_%s.data" % (asz, "be" if be else "le", hdr),
                                "perffile", *args)
                want = [(e["ip"], e["time"]) for e in exp["samples"]]
                if samples_of(prof, path) != want:
                    fail("PERFFILE attr %d %s header %s: samples differ" % (asz, be, hdr))
                hdr_out = run([prof, "script", "--header", "-i", path]).stdout
                if hdr == "104":
                    # the oldest BUILD_ID layout (no pid), recognised as perf does
                    want_ids = ["# build id: %s [kernel.kallsyms] (pid -1)" %
                                bytes(range(0, 20)).hex(),
                                "# build id: %s /usr/bin/wildapp (pid -1)" %
                                bytes(range(20, 40)).hex()]
                    if [x for x in hdr_out.splitlines() if x.startswith("# build id")] != want_ids:
                        fail("old BUILD_ID layout: %r" % hdr_out)
                    if perf:
                        r = run([perf, "buildid-list", "-i", path])
                        for k, nm in ((0, "[kernel.kallsyms]"), (20, "/usr/bin/wildapp")):
                            if "%s %s" % (bytes(range(k, k + 20)).hex(), nm) not in r.stdout:
                                fail("perf buildid-list disagrees with the generator: %r"
                                     % r.stdout)
                if "version 1 (PERFFILE)" not in hdr_out or \
                        ("big endian" if be else "little endian") not in hdr_out:
                    fail("PERFFILE: --header says %r" % hdr_out.splitlines()[:2])
                if perf:
                    r = run([perf, "script", "-i", path])
                    if r.returncode != 0 or len(r.stdout.splitlines()) != len(want):
                        fail("PERFFILE attr %d: perf reads %d samples (exit %d)" %
                             (asz, len(r.stdout.splitlines()), r.returncode))
                n += 1
    # a PERFFILE pipe stream (byte order from its header size 16)
    path, exp = gen(src, work, "v1_pipe.data", "pipecut", "--samples", "5", "--v1-magic")
    if samples_of(prof, path) != [(e["ip"], e["time"]) for e in exp["samples"]]:
        fail("PERFFILE pipe stream: samples differ")
    if perf:
        r = run([perf, "script", "-i", path])
        if r.returncode != 0 or len(r.stdout.splitlines()) != 5:
            fail("PERFFILE pipe stream: perf reads %d samples" % len(r.stdout.splitlines()))
    # a PERFFILE whose attr_size perf never wrote: refused with the reason and offset
    path, _ = gen(src, work, "v1_bad.data", "perffile", "--attr-size", "184")
    r = run([prof, "script", "-i", path])
    if r.returncode != 1 or "PERFFILE" not in r.stderr or "offset 16" not in r.stderr:
        fail("PERFFILE with attr_size 200: %d %r" % (r.returncode, r.stderr))
    # 136-byte attrs (perf >= 6.3: config3); perf 6.1 itself refuses them
    path, exp = gen(src, work, "attr136.data", "attr136", "--samples", "9")
    if samples_of(prof, path) != [(e["ip"], e["time"]) for e in exp["samples"]]:
        fail("136-byte attrs: samples differ")
    # record types up to perf 6.16 and COMPRESSED2 (when the zstd tool is here)
    extra = ["--extra-types", "84,85,86,21,22"]
    if shutil.which("zstd"):
        extra.append("--compress2")
    path, exp = gen(src, work, "types616.data", "pipecut", "--samples", "6", *extra)
    r = run([prof, "script", "--all", "-i", path])
    types = [json.loads(x)["type"] for x in r.stdout.splitlines()]
    for t in ("BPF_METADATA", "SCHEDSTAT_CPU", "SCHEDSTAT_DOMAIN", "AUX_OUTPUT_HW_ID",
              "CALLCHAIN_DEFERRED") + (("COMPRESSED2",) if "--compress2" in extra else ()):
        if t not in types:
            fail("record type %s not handed out: %s" % (t, types))
    if r.returncode != 0 or types.count("SAMPLE") != 6:
        fail("perf 6.16 record types: exit %d, %d samples" % (r.returncode, types.count("SAMPLE")))
    # simpleperf: refused with a clear message, never walked into
    path, _ = gen(src, work, "simpleperf.data", "simpleperf")
    for cmd in (["script"], ["report", "-q"]):
        r = run([prof] + cmd + ["-i", path])
        if r.returncode != 1 or "simpleperf file" not in r.stderr or \
                "simpleperf_version 1.build.7" not in r.stderr:
            fail("simpleperf (%s): %d %r" % (cmd[0], r.returncode, r.stderr))
    print("formats: %d PERFFILE variants (as perf reads them), a refused one, 136-byte attrs, "
          "6.16 record types, simpleperf refused" % n)


def main():
    prof, src, build = sys.argv[1:4]
    perf = shutil.which("perf")
    work = os.path.join(build, "tests", "perf", "wild_files")
    os.makedirs(work, exist_ok=True)
    check_cut_streams(prof, perf, src, work)
    check_formats(prof, perf, src, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
