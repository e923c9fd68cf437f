# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""profileme.capi under valgrind memcheck: the typemaps free what they
allocate and the handles free themselves (ctest python.capi_leaks).

    capi_leaks.py SRCDIR            run the workload below under valgrind
    capi_leaks.py SRCDIR --child    the workload itself

Fails on a definitely or indirectly lost block, or an invalid access, whose
stack goes through the generated module (capiPYTHON_wrap.c, _capi.so) or
libprofileme; CPython's own blocks lost at exit are not ours.  Exit 77
(skipped) without valgrind.
"""
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = sys.argv[1]
SYNTH = os.path.join(SRC, "examples", "data", "profileme-synthetic.data")
SYSFS = os.path.join(SRC, "tests", "fixtures", "sysfs", "intel")
OURS = re.compile(r"capiPYTHON_wrap\.c|/_capi\.so|libprofileme\.so|/glue\.c:|/_glue_c\.so")


def workload():
    import profileme
    from profileme import capi
    with capi.pm_file_open(SYNTH, None) as f:
        ctx = capi.pm_raw_ctx_new_from_file(f)
        while True:
            more, rec = capi.pm_file_next(f)
            if not more:
                break
            if rec.type == capi.PM_RECORD_SAMPLE:
                s = capi.pm_file_sample(f, rec)
                d = capi.pm_raw_ctx_select(ctx, capi.pm_file_attr(f, rec.attr_idx))
                try:
                    vals = capi.pm_raw_decode(d, ctx, bytearray(s.raw.data))
                    [v.bytes for v in vals]            # BYTES fields: the value's own copy
                    capi.pm_raw_decode_row(d, ctx, s.raw.data)
                    capi.pm_raw_format_json(d, ctx, s.raw.data)
                except profileme.Error:
                    pass
    # a handle with both _close and _free (pm_evlist): freed once, by
    # pm_evlist_free, whether explicitly or by the proxy
    el = capi.pm_evlist_new(capi.pm_evlist_opts())
    capi.pm_evlist_close(el)
    capi.pm_evlist_free(el)
    del el
    with capi.pm_evlist_new(capi.pm_evlist_opts()):
        pass
    capi.pm_evlist_new(capi.pm_evlist_opts())
    gc.collect()
    # records() and the glue's symbol columns (Python over capi; the
    # hand-written array transfers), their error path too
    import numpy as np
    from profileme import _glue
    with profileme.open(SYNTH) as r:
        list(r.records())
        a = r.samples(fields=["pid", "tid", "ip", "cpumode", "time"])
        r.symbolize(a)
    f = capi.pm_file_open(SYNTH, None)
    for tids in (None, np.zeros(2, np.uint32)):
        try:
            _glue.symbol_rows(f, np.zeros(3, np.int32), tids, np.zeros(3, np.uint64),
                              np.zeros(3, np.uint8), None, None, None, None, 1, 0)
        except ValueError:
            pass
    # to_pandas()'s one pass over the rows, and its error path
    rows = np.zeros(4, dtype=[("a", "<u4"), ("b", "u1")])
    _glue.frame_convert(rows, rows.dtype.itemsize, [(0, 4, 0, 0, 0, np.empty(4, np.uint64)),
                                                    (4, 1, 0, 2, 9, np.empty(4, np.int8))])
    try:
        _glue.frame_convert(rows, rows.dtype.itemsize, [(4, 1, 0, 2, 9, np.empty(3, np.int8))])
    except ValueError:
        pass
    capi.pm_file_close(f)
    pl = capi.pm_pmu_scan(SYSFS)
    try:
        capi.pm_event_parse(pl, "cpu/bogus=1/")
    except profileme.EventError:
        pass
    el = capi.pm_event_parse(pl, "cycles/name=%s/,instructions" % ("x" * 3000))
    capi.pm_attr_format(capi.pm_event_attr(capi.pm_event_list_get(el, 0)), pl)
    try:
        capi.pm_file_open(os.path.join(SRC, "no-such-file"), None)
    except FileNotFoundError:
        pass
    o = capi.pm_sym_opts(kallsyms="/nonexistent")
    o.kallsyms = None
    f = capi.pm_file_open(SYNTH, None)
    capi.pm_export_stacks(f, capi.pm_export_opts(flags=capi.PM_EXPORT_NO_KERNEL), lambda st: len(st.syms) and 0)
    capi.pm_file_close(f)
    capi.pm_file_close(f)
    capi.pm_set_log(lambda level, msg: None, capi.PM_LOG_DEBUG)
    capi.pm_set_log(None, 0)


def main():
    if "--child" in sys.argv:
        for _ in range(3):
            workload()
        gc.collect()
        return 0
    vg = shutil.which("valgrind")
    if not vg:
        print("SKIP: valgrind is not installed")
        return 77
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "vg.log")
        env = dict(os.environ, PYTHONMALLOC="malloc")
        env.pop("LD_PRELOAD", None)
        r = subprocess.run([vg, "--leak-check=full", "--show-leak-kinds=definite,indirect",
                            "--num-callers=40", "--log-file=" + log, sys.executable, __file__, SRC, "--child"],
                           env=env)
        if r.returncode != 0:
            print("the workload failed under valgrind (exit %d)" % r.returncode)
            return 1
        text = open(log).read()
    # one valgrind record: from its headline to the next blank line
    bad = []
    for rec in re.split(r"\n==\d+== \n", text):
        if ("definitely lost" in rec or "indirectly lost" in rec or "Invalid " in rec
                or "uninitialised" in rec) and "LEAK SUMMARY" not in rec and OURS.search(rec):
            bad.append(rec)
    for rec in bad:
        print(rec)
    print("capi under valgrind: %d problem(s) in the binding or the library" % len(bad))
    return 1 if bad else 0


sys.exit(main())
