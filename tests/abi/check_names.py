#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""The naming rule of docs/conventions.md ("Creating and releasing handles"),
checked on the exported names (lib/libprofileme.map) and their prototypes
(include/profileme/*.h), so that it cannot drift:

  - a handle is an opaque `typedef struct pm_x pm_x;`; a creator hands out a
    new one through a non-const `pm_x **` parameter (a `const pm_x **` is
    borrowed, not created);
  - creators named `pm_x_new` or `pm_x_new_from_<src>` make a memory handle,
    released by `pm_x_free`; creators named `pm_x_open` or `pm_x_open_<how>`
    make a handle owning an OS resource given by path or fd, released by
    `pm_x_close`; a `_new*`/`_open*` creator's handle type is the name's
    prefix (`pm_sym_new()` makes a `pm_sym`, never a `pm_symbolizer`);
  - a creator named otherwise is an operation returning its result (pm_pmu_scan,
    pm_event_parse): its result is a memory handle, released by `pm_x_free`;
  - `_new_from_<src>`: when pm_<src> is a handle type, the creator takes one;
  - every handle type that has a creator has exactly one releaser
    (`pm_x_free` or `pm_x_close`, `void`, taking one `pm_x *`);
  - no `_free` without a `_new*` or an operation creating its type; no
    `_close` without an `_open*`; every `pm_y_open` operation on an existing
    handle (not a creator) has its `pm_y_close` taking the same handle;
  - every function whose first parameter is a handle `pm_x *` is named
    `pm_x_*` (or is in the few families listed in FAMILY below).

Usage: check_names.py MAP INCLUDE_DIR     (exit 0: rule holds, 1: violations)
       check_names.py --selftest          (the check finds planted violations)
"""
import os
import re
import sys
import tempfile

# Handles whose methods also live under a shorter family prefix (documented
# in docs/conventions.md): the PMU list's lookups read pm_pmu_find(pmus, ..).
FAMILY = {
    "pm_pmu_list": ("pm_pmu_",),
    # a record's id read with its event's layout (lib/record)
    "pm_sample_layout": ("pm_record_peek_",),
}
# Functions that take a handle first but belong to another module's family
# (the handle is their input, not their subject).
METHOD_EXCEPTIONS = ("pm_export_", "pm_json_", "pm_raw_", "pm_profileme_", "pm_ibs_")

PROTO = re.compile(r"\bPM_API\s+([^;{}#]*?)\b(pm_[a-z0-9_]+)\s*\(([^;{}]*?)\)\s*;", re.S)
TYPEDEF = re.compile(r"\btypedef\s+struct\s+(pm_[a-z0-9_]+)\s+(pm_[a-z0-9_]+)\s*;")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def read_map(path):
    names = []
    text = strip_comments(open(path).read())
    for m in re.finditer(r"\bglobal:(.*?)(?:\blocal:|\})", text, re.S):
        names += re.findall(r"\b(pm_[a-z0-9_]+)\s*;", m.group(1))
    return names


def read_headers(incdir):
    protos, handles = {}, set()
    for fn in sorted(os.listdir(incdir)):
        if not fn.endswith(".h"):
            continue
        text = strip_comments(open(os.path.join(incdir, fn)).read())
        for tag, name in TYPEDEF.findall(text):
            if tag == name:
                handles.add(name)
        for ret, name, params in PROTO.findall(text):
            protos[name] = (" ".join(ret.split()), " ".join(params.split()))
    return protos, handles


def first_param_handle(params, handles):
    first = params.split(",")[0]
    m = re.match(r"\s*(?:const\s+)?(?:struct\s+)?(pm_[a-z0-9_]+)\s*\*\s*\w*\s*$", first)
    return m.group(1) if m and m.group(1) in handles else None


def created_types(params, handles):
    out = []
    for m in re.finditer(r"(const\s+)?(?:struct\s+)?\b(pm_[a-z0-9_]+)\s*\*\s*\*", params):
        if not m.group(1) and m.group(2) in handles:
            out.append(m.group(2))
    return out


def check(mapfile, incdir):
    errors = []
    names = read_map(mapfile)
    protos, handles = read_headers(incdir)
    exported = set(names)
    for n in names:
        if n not in protos:
            errors.append("%s: in the version script but no PM_API prototype in %s" % (n, incdir))
    fns = {n: protos[n] for n in names if n in protos}

    creators = {}  # handle -> [(fn, kind)]
    for n, (ret, params) in sorted(fns.items()):
        for t in created_types(params, handles):
            if re.match(r"^%s_new(_from_[a-z0-9_]+)?$" % t, n):
                kind = "new"
            elif re.match(r"^%s_open(_[a-z0-9_]+)?$" % t, n):
                kind = "open"
            elif re.search(r"_(new|open)(_|$)", n):
                errors.append("%s: creates a %s, so it must be named %s_new*/%s_open* "
                              "(type and functions are one family)" % (n, t, t, t))
                continue
            else:
                kind = "op"
            creators.setdefault(t, []).append((n, kind))
            m = re.match(r"^%s_new_from_([a-z0-9_]+)$" % t, n)
            if m and "pm_" + m.group(1) in handles and \
                    not re.search(r"\bpm_%s\s*\*" % m.group(1), params):
                errors.append("%s: named _new_from_%s but takes no pm_%s" %
                              (n, m.group(1), m.group(1)))

    for t, cs in sorted(creators.items()):
        kinds = {k for _, k in cs}
        # a _close that undoes an _open operation on the handle (pm_evlist_open)
        # is not a releaser
        op_open = (t + "_open") in fns and (t + "_open") not in [n for n, _ in cs]
        rel = [r for r in (t + "_free", t + "_close") if r in fns and
               not (r == t + "_close" and op_open)]
        if len(rel) != 1:
            errors.append("%s: created by %s but released by %s (exactly one of %s_free/%s_close)"
                          % (t, ", ".join(n for n, _ in cs), ", ".join(rel) or "nothing", t, t))
            continue
        r = rel[0]
        want = "close" if "open" in kinds else "free"
        if "open" in kinds and kinds & {"new", "op"}:
            errors.append("%s: created both by _open* and by %s: one kind per handle" %
                          (t, ", ".join(n for n, k in cs if k != "open")))
        if not r.endswith("_" + want):
            errors.append("%s: created by %s (%s) so released by %s_%s, not %s" %
                          (t, ", ".join(n for n, _ in cs), want == "close" and "_open*: an fd/path"
                           or "_new*/an operation: memory", t, want, r))
        ret, params = fns[r]
        if ret != "void" or first_param_handle(params, handles) != t or "," in params:
            errors.append("%s: a releaser is `void %s(%s *)`, found `%s %s(%s)`" %
                          (r, r, t, ret, r, params))

    # releasers without a creator; _open operations without their _close
    for n, (ret, params) in sorted(fns.items()):
        h = first_param_handle(params, handles)
        if n.endswith("_free"):
            t = n[: -len("_free")]
            if t not in creators:
                errors.append("%s: a _free without a creator of %s (_new*/an operation)" % (n, t))
        elif n.endswith("_close"):
            t = n[: -len("_close")]
            opens = [o for o in fns if o == t + "_open" or o.startswith(t + "_open_")]
            if not opens:
                errors.append("%s: a _close without an %s_open*" % (n, t))
            elif t not in creators and h != t:
                errors.append("%s: closes what %s_open() opened, so it takes a %s *" % (n, t, t))
        if re.search(r"_open$", n) and h is not None and n not in sum(
                [[c for c, _ in cs] for cs in creators.values()], []):
            if n[: -len("_open")] + "_close" not in fns:
                errors.append("%s: an _open operation without its %s_close" %
                              (n, n[: -len("_open")]))
        if h and not n.startswith(h + "_") and \
                not any(n.startswith(p) for p in FAMILY.get(h, ()) + METHOD_EXCEPTIONS):
            errors.append("%s: takes a %s first, so it belongs to the %s_* family" % (n, h, h))
    return errors, len(fns), len(creators)


BAD_HEADER = """
typedef struct pm_thing pm_thing;
typedef struct pm_widget pm_widget;
typedef struct pm_gadget pm_gadget;
typedef struct pm_doohickey pm_doohickey;
typedef struct pm_lone pm_lone;
PM_API int pm_thing_new(pm_thing **out);
PM_API void pm_thing_close(pm_thing *t);
PM_API int pm_widget_open(pm_widget **out, const char *path);
PM_API void pm_widget_free(pm_widget *w);
PM_API int pm_gadget_open(pm_thing **out);
PM_API void pm_gadget_close(pm_gadget *g);
PM_API int pm_doohickey_new(pm_doohickey **out);
PM_API void pm_doohickey_free(pm_doohickey *d);
PM_API int pm_doohickey_start(pm_doohickey *d);
PM_API int pm_doohickey_open(pm_doohickey *d);
PM_API void pm_doohickey_close(pm_doohickey *d);
typedef struct pm_bare pm_bare;
PM_API int pm_bare_new(pm_bare **out);
PM_API void pm_bare_free(pm_bare *b);
PM_API int pm_bare_open(pm_bare *b);
PM_API void pm_lone_free(pm_lone *l);
PM_API int pm_stray_free(pm_thing *t);
PM_API int pm_widget_poke(pm_thing *t);
"""
BAD_MAP = """PROFILEME_0.1 { global: pm_thing_new; pm_thing_close; pm_widget_open;
pm_widget_free; pm_gadget_open; pm_gadget_close; pm_doohickey_new; pm_doohickey_free;
pm_doohickey_start; pm_doohickey_open; pm_doohickey_close; pm_bare_new; pm_bare_free; pm_bare_open; pm_lone_free; pm_stray_free; pm_widget_poke; pm_missing; local: *; };"""
# what each planted mistake must produce
EXPECT = [
    "pm_thing: created by pm_thing_new (_new*/an operation: memory) so released by pm_thing_free",
    "pm_widget: created by pm_widget_open (_open*: an fd/path) so released by pm_widget_close",
    "pm_gadget_open: creates a pm_thing, so it must be named pm_thing_new*",
    "pm_lone_free: a _free without a creator",
    "pm_stray_free: a _free without a creator",
    "pm_widget_poke: takes a pm_thing first",
    "pm_missing: in the version script but no PM_API prototype",
    "pm_bare_open: an _open operation without its pm_bare_close",
]


def selftest():
    with tempfile.TemporaryDirectory() as d:
        inc = os.path.join(d, "inc")
        os.mkdir(inc)
        open(os.path.join(inc, "bad.h"), "w").write(BAD_HEADER)
        mp = os.path.join(d, "bad.map")
        open(mp, "w").write(BAD_MAP)
        errors, _, _ = check(mp, inc)
        text = "\n".join(errors)
        missing = [e for e in EXPECT if e not in text]
        good = [e for e in errors if "pm_doohickey" in e]
        for e in missing:
            print("selftest: not reported: %s" % e)
        for e in good:
            print("selftest: a correct pair was reported: %s" % e)
        if missing or good:
            print("selftest: the check reported:\n  " + "\n  ".join(errors))
            return 1
        print("selftest: all %d planted violations reported (%d messages)" %
              (len(EXPECT), len(errors)))
        return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--selftest":
        return selftest()
    if len(argv) != 3:
        print(__doc__)
        return 2
    errors, nfn, nh = check(argv[1], argv[2])
    for e in errors:
        print("naming rule: " + e)
    if errors:
        print("%d violation(s) of the naming rule (docs/conventions.md)" % len(errors))
        return 1
    print("naming rule holds: %d exported functions, %d handle types with creators" % (nfn, nh))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
