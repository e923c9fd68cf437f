#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Oracle test: perf 6.1's own test strings through `profileme encode --json`
and through perf, on fixture trees.

usage: test_grammar_vs_perf.py PROFILEME_BINARY SOURCE_DIR BUILD_DIR

The strings are in tests/perf/grammar/cases.tsv, one case a line: the fixture
tree under tests/fixtures/sysfs, the perf 6.1 test file the string comes from,
the string, and a note.  An empty note means "must agree with perf"; a note
`TODO: why` is a known gap of libprofileme, `PERF-WRONG: why` a case where
perf 6.1 is wrong, `OURS: why` a documented rule of libprofileme that perf
does not have; `ORDER: why` means the same events in another order (they are
compared sorted).  A case with a note must still differ (so the note stays
true): one that agrees now fails the test until its note is removed.

perf's side: the tree is copied with its symlinks resolved and bind-mounted
over /sys/bus/event_source/devices in a private mount namespace (unshare -m),
and the tree's kernel/tracing (when it has one) over /sys/kernel/tracing.
PERF_CPUID names a CPU perf has no JSON tables for, so it adds no events of
its own.  tests/perf/attr_spy.c (LD_PRELOAD) makes every perf_event_open
succeed on a software dummy event, so that perf prints (-vv) and "opens"
every event of the list instead of stopping at the first fixture PMU that
does not exist here.  All strings of a tree run in one namespace, one
`perf record` each.

Compared for every event, in order: the number of events, type, config,
config1 (bp_addr), config2 (bp_len), config3, precise_ip, exclude_user,
exclude_kernel, exclude_hv, exclude_idle, exclude_host, exclude_guest, pinned,
exclusive, bp_type, the group leader of each event (perf's group_fd mapped
back to the event that opened that fd); the period or frequency when the string sets period= or
freq=; and, when the string has per-event config terms (call-graph=,
stack-size=, ...), the sample_type bits (CALLCHAIN, REGS_USER, STACK_USER,
BRANCH_STACK, AUX, and TIME with time=) and the attr fields perf sets for them
(exclude_callchain_user, sample_regs_user, sample_stack_user,
sample_max_stack, write_backward, aux_output, aux_sample_size,
branch_sample_type, and inherit with inherit/no-inherit).
A string both refuse agrees; our refusal must carry a byte position.
Whether perf accepts a string is asked with `perf record --dry-run`; the
accepted strings are then recorded in batches with a separator event
(emulation-faults/period=7770000+i/) after each, as one perf record costs
about 0.4 s here.

Exit 77 (skip) when perf, root, unshare, mount or a C compiler are missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from harness import skip  # noqa: E402

PERF_CPUID = "GenuineIntel-6-FF-0"   # no JSON event table matches it
SAMPLE_BITS = {"IP": 1 << 0, "TID": 1 << 1, "TIME": 1 << 2, "ADDR": 1 << 3, "READ": 1 << 4,
               "CALLCHAIN": 1 << 5, "ID": 1 << 6, "CPU": 1 << 7, "PERIOD": 1 << 8,
               "STREAM_ID": 1 << 9, "RAW": 1 << 10, "BRANCH_STACK": 1 << 11,
               "REGS_USER": 1 << 12, "STACK_USER": 1 << 13, "WEIGHT": 1 << 14,
               "DATA_SRC": 1 << 15, "IDENTIFIER": 1 << 16, "TRANSACTION": 1 << 17,
               "REGS_INTR": 1 << 18, "PHYS_ADDR": 1 << 19, "AUX": 1 << 20}
# sample_type bits the per-event config terms decide (TIME: only with time=)
TERM_SAMPLE_BITS = (SAMPLE_BITS["CALLCHAIN"] | SAMPLE_BITS["REGS_USER"] |
                    SAMPLE_BITS["STACK_USER"] | SAMPLE_BITS["BRANCH_STACK"] |
                    SAMPLE_BITS["AUX"])
TERM_FIELDS = ["exclude_callchain_user", "sample_regs_user", "sample_stack_user",
               "sample_max_stack", "write_backward", "aux_output", "aux_sample_size",
               "branch_sample_type"]
BRANCH_BITS = {n: 1 << i for i, n in enumerate(
    "USER KERNEL HV ANY ANY_CALL ANY_RETURN IND_CALL ABORT_TX IN_TX NO_TX COND CALL_STACK "
    "IND_JUMP CALL NO_FLAGS NO_CYCLES TYPE_SAVE HW_INDEX PRIV_SAVE".split())}
CONFIG_TERMS = re.compile(r"(call-graph|stack-size|max-stack|time=|[/,]time[/,]|inherit|"
                          r"overwrite|percore|aux-output|aux-sample-size|driver-config|"
                          r"metric-id|branch_type|@)")
FIELDS = ["type", "config", "config1", "config2", "config3", "precise_ip", "exclude_user",
          "exclude_kernel", "exclude_hv", "exclude_idle", "exclude_host", "exclude_guest",
          "pinned", "exclusive", "bp_type"]
PERF_KEYS = {"{ bp_addr, config1 }": "config1", "{ bp_len, config2 }": "config2",
             "{ sample_period, sample_freq }": "period"}


def load_cases(path):
    cases = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) < 3:
                raise SystemExit("%s:%d: needs tree, source, string" % (path, n))
            note = parts[3] if len(parts) > 3 else ""
            if note and not re.match(r"^(TODO|PERF-WRONG|OURS|ORDER): \S", note):
                raise SystemExit("%s:%d: a note starts with TODO:, PERF-WRONG:, OURS: or "
                                 "ORDER:" % (path, n))
            cases.append({"tree": parts[0], "source": parts[1], "str": parts[2],
                          "note": note, "line": n})
    return cases


def parse_perf(text):
    """perf's events (attr blocks before the ring buffers are mapped), or None
    when perf printed none (it refused the string)."""
    # perf probes some events while parsing (hybrid cache events, ...): the
    # real opens come after record's option dump ("comp level: N")
    m = re.search(r"^comp level: .*$", text, re.M)
    head = text[m.end():] if m else text
    head = head.split("\nmmap size ", 1)[0]
    events, fd_event = [], {}
    for m in re.finditer(r"^perf_event_attr:\n(.*?)^-{20,}", head, re.S | re.M):
        # the opens of this attr (one per CPU; fallbacks retry): the fds it
        # got and the group_fd of its first successful open
        nxt = head.find("perf_event_attr:", m.end())
        leader_fd = None
        for o in re.finditer(r"^sys_perf_event_open: .*group_fd (-?\d+) .*= (\d+)$",
                             head[m.end():nxt if nxt >= 0 else len(head)], re.M):
            fd_event[int(o.group(2))] = len(events)
            if leader_fd is None:
                leader_fd = int(o.group(1))
        a = {k: 0 for k in FIELDS}
        a["group"] = fd_event.get(leader_fd, len(events)) if leader_fd is not None and \
            leader_fd >= 0 else len(events)
        a.update(period=None, freq=0, sample_type=0, inherit=0)
        a.update({k: 0 for k in TERM_FIELDS})
        for line in m.group(1).splitlines():
            mm = re.match(r"^\s*(\{[^}]*\}|\S+)\s+(\S+)", line)
            if not mm:
                continue
            key, val = PERF_KEYS.get(mm.group(1), mm.group(1)), mm.group(2)
            if key == "sample_type":
                a[key] = sum(SAMPLE_BITS.get(b, 0) for b in val.split("|"))
            elif key == "branch_sample_type":
                a[key] = sum(BRANCH_BITS.get(b, 0) for b in val.split("|"))
            elif key in a:
                a[key] = int(val, 0)
        events.append(a)
    return events or None


def perf_reason(text):
    for line in text.splitlines():
        if re.search(r"event syntax error|Cannot find PMU|Unknown event|invalid or unsupported|"
                     r"unknown term|does not|not supported|Invalid|Error", line):
            return line.strip()
    return text.strip().splitlines()[-1] if text.strip() else "(no output)"


MARK = 7770000  # a separator event between batched strings: emulation-faults/period=MARK+i/
BATCH = 40


def in_namespace(devices, tracefs, body, args):
    """Runs the sh script body with the fixture mounted; "$@" is args."""
    script = ('mount --bind "$1" /sys/bus/event_source/devices || exit 99\n'
              'if [ -n "$2" ]; then mount --bind "$2" /sys/kernel/tracing || exit 98; fi\n'
              'shift 2\nexport PERF_CPUID=%s\n' % PERF_CPUID) + body
    p = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", devices, tracefs or ""] +
                       args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, errors="replace")
    if p.returncode in (98, 99):
        skip("mount --bind in a private namespace failed: " + p.stdout.strip()[-300:])
    return p.stdout


def run_perf(devices, tracefs, strings, work, spy):
    """perf's events for each string, or its rejection text.  Whether perf
    accepts a string is asked one string at a time with --dry-run (cheap);
    the accepted ones are recorded in batches, with a separator event after
    each string, since one `perf record` costs about 0.4 s here."""
    evfile = os.path.join(work, "events.txt")
    with open(evfile, "w") as f:
        for st in strings:
            f.write(st + "\n")
    out = in_namespace(devices, tracefs,
                       'while IFS= read -r e; do\n'
                       '  echo "@@@EVENT $e"\n'
                       '  LD_PRELOAD="$2" perf record --dry-run -e "$e" -o /dev/null -- true 2>&1\n'
                       '  echo "@@@RC $?"\n'
                       'done < "$1"\n', [evfile, spy])
    result, accepted = {}, []
    for chunk in out.split("@@@EVENT ")[1:]:
        name, _, body = chunk.partition("\n")
        m = re.search(r"@@@RC (\d+)", body)
        if m and m.group(1) == "0":
            accepted.append(name)
        else:
            result[name] = (None, body)
    data = os.path.join(work, "perf.data")
    todo = [accepted[i:i + BATCH] for i in range(0, len(accepted), BATCH)]
    while todo:
        batch = todo.pop(0)
        args = []
        for i, st in enumerate(batch):
            args += ["-e", st, "-e", "emulation-faults/period=%d/" % (MARK + i)]
        text = in_namespace(devices, tracefs,
                            'spy=$1; data=$2; shift 2\n'
                            'LD_PRELOAD="$spy" perf record -vv -B -N --synth=no '
                            '-o "$data" "$@" -- true 2>&1\n',
                            [spy, data] + args)
        evs = parse_perf(text) or []
        marks = [i for i, e in enumerate(evs) if e["type"] == 1 and e["config"] == 8 and
                 e["period"] is not None and MARK <= e["period"] < MARK + len(batch)]
        if [evs[i]["period"] - MARK for i in marks] != list(range(len(batch))):
            if len(batch) == 1:
                result[batch[0]] = (None, text)
            else:  # split the batch until the string perf cannot record is alone
                half = len(batch) // 2
                todo[:0] = [batch[:half], batch[half:]]
            continue
        start = 0
        for st, mi in zip(batch, marks):
            part = [dict(e, group=e["group"] - start) for e in evs[start:mi]]
            result[st] = (part, text)
            start = mi + 1
    return result


def run_ours(prof, root, s):
    p = subprocess.run([prof, "encode", "--json", "--sysfs", root, s],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    if not lines:
        raise SystemExit("no output from profileme encode for %r: %s" % (s, p.stderr))
    if "error" in lines[0]:
        return None, lines[0]
    evs = []
    for j in lines:
        e = {k: j.get(k, 0) for k in FIELDS}
        for k in ("config", "config1", "config2", "config3"):
            e[k] = int(j[k], 16)
        e["sample_type"] = int(j.get("sample_type", "0x0"), 16)
        for k in TERM_FIELDS + ["inherit"]:
            e[k] = j.get(k, 0)
        e["freq"] = j.get("freq", 0)
        e["group"] = j.get("group", len(evs))
        e["period"] = j.get("sample_period", j.get("sample_freq"))
        evs.append(e)
    return evs, None


def differences(s, ours, perf, group=True):
    """The differences between our events and perf's (empty: they agree)."""
    if len(ours) != len(perf):
        return ["%d events, perf %d" % (len(ours), len(perf))]
    out = []
    sets_period = re.search(r"(period|freq)=", s)
    terms = CONFIG_TERMS.search(s)
    for i, (o, p) in enumerate(zip(ours, perf)):
        if group and o["group"] != p["group"]:
            out.append("event %d in the group of event %d, perf %d" % (i, o["group"], p["group"]))
        for k in FIELDS:
            if o[k] != p[k]:
                out.append("event %d %s %#x, perf %#x" % (i, k, o[k], p[k]))
        if sets_period and (o["period"], o["freq"]) != (p["period"], p["freq"]):
            out.append("event %d period/freq %s/%s, perf %s/%s" %
                       (i, o["period"], o["freq"], p["period"], p["freq"]))
        if terms:
            bits = TERM_SAMPLE_BITS | (SAMPLE_BITS["TIME"] if re.search(r"[/,]time[=/,]", s)
                                       else 0)
            if (o["sample_type"] & bits) != (p["sample_type"] & bits):
                out.append("event %d sample_type (config terms) %#x, perf %#x" %
                           (i, o["sample_type"] & bits, p["sample_type"] & bits))
            for k in TERM_FIELDS + (["inherit"] if "inherit" in s else []):
                if o[k] != p[k]:
                    out.append("event %d %s %#x, perf %#x" % (i, k, o[k], p[k]))
    return out


def local_cpus(flat):
    """perf record refuses PMUs whose cpus/cpumask name CPUs this machine
    lacks (its thread masks): in perf's copy, point them at CPUs it has (they
    do not change an attr; cpu_atom gets the second CPU when there is one)."""
    last = max(0, (os.cpu_count() or 1) - 1)
    for pmu in os.listdir(flat):
        for f in ("cpus", "cpumask"):
            path = os.path.join(flat, pmu, f)
            if os.path.isfile(path):
                with open(path, "w") as fh:
                    fh.write("%d\n" % (min(1, last) if pmu == "cpu_atom" else 0))


def build_spy(srcdir, work):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        skip("no C compiler for tests/perf/attr_spy.c")
    spy = os.path.join(work, "attr_spy.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", spy,
                    os.path.join(srcdir, "tests", "perf", "attr_spy.c"), "-ldl"], check=True)
    return spy


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    prof, srcdir, builddir = sys.argv[1:]
    if not shutil.which("perf"):
        skip("perf is not installed")
    if os.geteuid() != 0:
        skip("needs root for unshare -m and mount --bind")
    if not shutil.which("unshare"):
        skip("unshare(1) is not installed")
    if subprocess.run(["unshare", "-m", "true"]).returncode != 0:
        skip("unshare -m is not permitted here")
    if not os.path.isdir("/sys/kernel/tracing"):
        skip("/sys/kernel/tracing does not exist (the fixture tracefs is mounted there)")
    ver = subprocess.run(["perf", "--version"], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout.strip()
    print("oracle: " + ver)
    cases = load_cases(os.path.join(srcdir, "tests", "perf", "grammar", "cases.tsv"))
    work = tempfile.mkdtemp(prefix="grammar_vs_perf.", dir=builddir)
    failures, agree, noted, checked = [], 0, {"TODO": 0, "PERF-WRONG": 0, "OURS": 0}, 0
    try:
        spy = build_spy(srcdir, work)
        for tree in sorted(set(c["tree"] for c in cases)):
            root = os.path.join(srcdir, "tests", "fixtures", "sysfs", tree)
            devices = os.path.join(root, "bus", "event_source", "devices")
            if not os.path.isdir(devices):
                failures.append("fixture tree %s is missing" % tree)
                continue
            flat = os.path.join(work, tree)
            shutil.copytree(devices, flat, symlinks=False)
            local_cpus(flat)
            tracefs = os.path.join(root, "kernel", "tracing")
            tc = [c for c in cases if c["tree"] == tree]
            perf_out = run_perf(flat, tracefs if os.path.isdir(tracefs) else None,
                                sorted(set(c["str"] for c in tc)), work, spy)
            for c in tc:
                s, checked = c["str"], checked + 1
                where = "%s:%d %s %r" % ("cases.tsv", c["line"], tree, s)
                if s not in perf_out:
                    failures.append(where + ": no perf output")
                    continue
                perf, text = perf_out[s]
                ours, err = run_ours(prof, root, s)
                if err is not None and (not err.get("error") or "position" not in err):
                    failures.append(where + ": our error has no message or position")
                if ours is None and perf is None:
                    diff = []
                elif ours is None:
                    diff = ["we refuse it (at byte %s: %s), perf accepts it" %
                            (err.get("position"), err.get("error"))]
                elif perf is None:
                    diff = ["we accept it, perf refuses it: " + perf_reason(text)]
                elif c["note"].startswith("ORDER:"):
                    key = lambda e: (e["type"], e["config"], e["config1"], e["config2"])
                    diff = differences(s, sorted(ours, key=key), sorted(perf, key=key), group=False)
                    if not diff and [key(e) for e in ours] == [key(e) for e in perf]:
                        diff = []  # same order too: fine either way
                    c = dict(c, note="")
                else:
                    diff = differences(s, ours, perf)
                kind = c["note"].split(":", 1)[0] if c["note"] else ""
                if not diff:
                    if kind:
                        failures.append(where + ": agrees with perf now; drop the note '%s'" %
                                        c["note"])
                    else:
                        agree += 1
                elif kind:
                    noted[kind] += 1
                    if os.environ.get("PM_GRAMMAR_VERBOSE"):
                        print("noted %s: %s [%s]" % (where, "; ".join(diff), c["note"]))
                else:
                    failures.append(where + " (" + c["source"] + "): " + "; ".join(diff))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f)
    print("%d cases (%d distinct strings) against %s: %d agree, %d known gaps (TODO), "
          "%d where perf is wrong, %d by our rules, %d failures" %
          (checked, len(set(c["str"] for c in cases)), ver, agree, noted["TODO"],
           noted["PERF-WRONG"], noted["OURS"], len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
