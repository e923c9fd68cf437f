# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Derive the per-type part of the SWIG interface capi.i from the public headers.

    gen_capi.py OUT.i include/profileme/*.h

The conventions of docs/conventions.md are what make this mechanical:

* an opaque handle is `typedef struct X X;` without a public body; its
  destructor is the `void pm_..._free(X *)`, or without one the `void pm_..._close(X *)`, that
  takes only it (NULL-safe by convention) -> %pm_handle(X, destructor), or
  %pm_borrowed(X) for a handle that only lives inside another one;
* a size-versioned struct has `size_t sz;` as its first member
  -> %pm_sized(S) (constructed with sz set);
* every other public struct -> %pm_struct(S);
* a struct member that points to numbers (`const uint64_t *M`, `uint32_t
  *M`, ...) is an array the caller owns -> %pm_array_member(S, M, T, W): set
  from a buffer (numpy array, bytearray) that the struct object keeps
  alive, in a struct with a count member `n` (the rows structs such as
  pm_sym_rows); the call checks every array holds n items;
* a struct member `const char *M` / `const uint8_t *M` / `const void *M`
  whose length is another member (`M_len`, `M_size`, or the struct's one
  `size`/`len` when M is its only byte pointer) -> %pm_bytes_member(S, M, LEN)
  (read as str resp. bytes of that length, never as a NUL-terminated string).

It also writes the copies of the headers that capi.i %includes
(capi_gen/pm_swig/NAME.h): the Doxygen comment of a #define is a plain
comment there, so that SWIG does not hand it to the next declaration as its
docstring (swig_header_text()).

A new function needs nothing here: the typemaps of capi.i apply by type.
A new handle, struct or member is picked up by the next build.
"""
import re
import sys

# members whose length is not named after them
EXTRA_LEN = {
    ("pm_record", "bytes"): "header.size",
    ("pm_record", "body"): "body_size",
    ("pm_callchain", "ips"): "nr * 8",
    ("pm_regs", "regs"): "nr * 8",
    ("pm_record_text_poke", "old_bytes"): "old_len",
    ("pm_record_text_poke", "new_bytes"): "new_len",
    ("pm_record_header_attr", "attr_bytes"): "attr_size",
    ("pm_record_header_attr", "ids"): "nr_ids * 8",
    ("pm_mmap_build_id", "build_id"): "build_id_size",
    ("pm_record_mmap", "build_id"): "build_id_size",
    ("pm_record_build_id", "build_id"): "build_id_size",
    # PM_RAW_KIND_BYTES: u is the length (bytes is NULL for the other kinds)
    ("pm_raw_value", "bytes"): "u",
}


# Functions with outputs whose non-negative return value is kept, first:
# (ret, out1, ...).  The others drop it (it is 0, or a length).
KEEP = {"pm_file_end_status", "pm_file_header_status", "pm_file_next", "pm_alias_term_value", "pm_evlist_wait_child", "pm_sym_find",
        "pm_profileme_event_map", "pm_evlist_drain_max", "pm_ring_next"}
# Functions whose negative return is a value, not an error.
VALUE = {"pm_pmu_mux_interval_ms", "pm_pmu_rdpmc", "pm_pmu_max_precise", "pm_pmu_diag_code",
         "pm_sample_layout_id_pos", "pm_sample_layout_is_pos", "pm_ring_fd", "pm_evlist_child_pid",
         "pm_file_header_status", "pm_file_end_status"}
CONV = {"int": "PyLong_FromLong", "long": "PyLong_FromLong", "int64_t": "PyLong_FromLongLong"}


def strip_comments(s):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", s, flags=re.S)


def parse(headers):
    text = ""
    for h in headers:
        with open(h, encoding="utf-8") as f:
            text += strip_comments(f.read()) + "\n"
    structs = {}
    for m in re.finditer(r"\bstruct\s+(\w+)\s*\{(.*?)\}\s*;", text, flags=re.S):
        members = []
        for decl in m.group(2).split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            dm = re.match(r"(.*?)([\w\s,*]+?)(\[[^\]]*\])?$", decl)
            base = decl
            # "uint32_t pid, tid" -> two members
            tm = re.match(r"((?:const\s+)?(?:struct\s+)?\w+(?:\s+\w+)*?)\s*(\*?\s*\w+(?:\[[^\]]*\])?(?:\s*,\s*\*?\s*\w+(?:\[[^\]]*\])?)*)$",
                          base)
            if not tm:
                continue
            ctype = tm.group(1).strip()
            for name in tm.group(2).split(","):
                name = name.strip()
                ptr = name.count("*")
                name = name.replace("*", "").strip()
                name = re.sub(r"\[.*\]", "", name)
                members.append((ctype + " *" * ptr, name))
        structs[m.group(1)] = members
    opaque = []
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", text):
        if m.group(1) == m.group(2) and m.group(1) not in structs:
            opaque.append(m.group(1))
    funcs = []
    for m in re.finditer(r"PM_API\s+([^;(]*?)\b(\w+)\s*\(([^;]*?)\)\s*;", text, flags=re.S):
        funcs.append((" ".join(m.group(1).split()), m.group(2), " ".join(m.group(3).split())))
    return structs, opaque, funcs


# A Doxygen comment directly before a #define that SWIG does not wrap as a
# constant (PM_<STRUCT>_SZ_V1 = PM_OFFSETOFEND(...), function-like macros)
# stays pending in SWIG's -doxygen and becomes the docstring of the next
# function or struct.  SWIG reads copies of the headers in which such
# comments are plain ones (a constant has no docstring in Python anyway).
DEFINE_DOC = re.compile(r"/\*\*(?![<*])((?:[^*]|\*(?!/))*)\*/(\s*\n\s*#\s*define\b)")


def swig_header_text(text):
    """A header's text for SWIG: the Doxygen comments of #defines demoted
    to plain comments (same lines, so SWIG's messages keep their numbers)."""
    return DEFINE_DOC.sub(lambda m: "/* " + m.group(1) + "*/" + m.group(2), text)


def write_swig_headers(outdir, headers):
    import os
    os.makedirs(outdir, exist_ok=True)
    for h in headers:
        with open(h, encoding="utf-8") as f:
            text = swig_header_text(f.read())
        with open(os.path.join(outdir, os.path.basename(h)), "w", encoding="utf-8") as f:
            f.write(text)


def destructor(handle, funcs):
    """The call that releases a handle: its `_free` where it has one (a
    handle with both, such as pm_evlist, has a `_close` that only closes what
    it holds and keeps the handle), else its `_close`."""
    found = {}
    for ret, name, args in funcs:
        m = re.search(r"_(free|close)$", name)
        if ret != "void" or not m:
            continue
        if re.fullmatch(r"(struct\s+)?%s\s*\*\s*\w+" % handle, args):
            found.setdefault(m.group(1), name)
    return found.get("free") or found.get("close")


def main(out, headers):
    structs, opaque, funcs = parse(headers)
    lines = ["/* Generated by gen_capi.py from the public headers: do not edit. */"]
    rets = {n: r for r, n, _ in funcs}
    for n in sorted(VALUE):
        lines.append("%%pm_value(%s, %s, %s)" % (rets[n], CONV[rets[n]], n))
    for n in sorted(KEEP - VALUE):
        lines.append("%%pm_keep(%s, %s, %s)" % (rets[n], CONV[rets[n]], n))
    for n in sorted(rets):
        if rets[n] in CONV and n not in KEEP | VALUE:
            lines.append("%%pm_checked(%s, %s, %s)" % (rets[n], CONV[rets[n]], n))
    for h in sorted(set(opaque)):
        d = destructor(h, funcs)
        lines.append("%%pm_handle(%s, %s)" % (h, d) if d else "%%pm_borrowed(%s)" % h)
    fnames = {n for _, n, _ in funcs}
    for s, members in sorted(structs.items()):
        if s in fnames:  # struct pm_ring_stats and pm_ring_stats(): the class gets a suffix
            lines.append("%%rename(%s_s, %%$isclass) %s;" % (s, s))
        sized = bool(members) and members[0] == ("size_t", "sz")
        py = s + "_s" if s in fnames else s
        lines.append("%%pm_%s(%s, %s)" % ("sized" if sized else "struct", s, py))
        names = {n for _, n in members}
        for t, n in members:
            if t.startswith("struct ") and "*" not in t:
                lines.append("%%immutable %s::%s;" % (s, n))
        byteptrs = [n for t, n in members if re.fullmatch(r"const (char|uint8_t|void) \*", t)]
        for t, n in members:
            if n not in byteptrs:
                continue
            length = EXTRA_LEN.get((s, n))
            if not length:
                for cand in (n + "_len", n + "_size"):
                    if cand in names:
                        length = cand
                if not length and len(byteptrs) == 1:
                    for cand in ("size", "len"):
                        if cand in names:
                            length = cand
            if not length:
                continue
            kind = "str" if t.startswith("const char") else "bytes"
            lines.append("%%pm_%s_member(%s, %s, %s)" % (kind, s, n, length))
        arrays = [(t, n) for t, n in members
                  if re.fullmatch(r"(const )?(u?int(8|16|32|64)_t|int|unsigned|size_t|double) \*", t)
                  and (s, n) not in EXTRA_LEN and "n" in names]
        for t, n in arrays:
            base = t.replace("const ", "").replace(" *", "")
            lines.append("%%pm_array_member(%s, %s, %s, %d)" % (s, n, base, 0 if t.startswith("const") else 1))
        if arrays and "n" in names:
            checks = " ||\n\t    ".join('pmc_rows_short(swig_obj[$argnum - 1], "_pm_%s", sizeof(*$1->%s), $1->n, "$symname")'
                                       % (n, n) for _, n in arrays)
            lines.append("%%typemap(check) const struct %s * {\n\tif ($1 && (%s))\n\t\tSWIG_fail;\n}" % (s, checks))
    # the frozen minimum sizes, as constants (PM_OFFSETOFEND is not a value for SWIG)
    for h in headers:
        with open(h, encoding="utf-8") as f:
            for m in re.finditer(r"#define\s+(PM_\w+_SZ_V1)\s", f.read()):
                lines.append("%%constant size_t %s = %s;" % (m.group(1), m.group(1)))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    # the headers as SWIG reads them (capi.i %includes "pm_swig/NAME.h")
    import os
    write_swig_headers(os.path.join(os.path.dirname(os.path.abspath(out)), "pm_swig"), headers)




# ---------------------------------------------------------------------------
# Type stubs (capi.pyi): the Python signature each C function gets from the
# typemaps of capi.i (docs/python.md states the same rules).
# ---------------------------------------------------------------------------
SCALARS = {"int", "unsigned", "int32_t", "uint16_t", "uint32_t", "uint64_t", "size_t", "long",
           "int64_t", "unsigned long", "uint8_t", "int8_t", "int16_t", "double"}
# multi-argument typemaps: C parameters -> (python inputs, outputs)
MULTI = [
    (("char *buf", "size_t cap"), [], ["str"]),
    (("void *buf", "size_t cap"), [], ["bytes"]),
    (("const void **data", "size_t *len"), [], ["bytes | None"]),
    (("const uint8_t **id", "size_t *id_len"), [], ["bytes | None"]),
    (("const void **rec", "size_t *size"), [], ["bytes | None"]),
    (("int *cpus", "size_t cap", "size_t *n"), [], ["list[int]"]),
    (("uint64_t *ids", "size_t cap"), [], ["list[int]"]),
    (("uint64_t *values", "uint8_t *present", "size_t n"), [], ["list[int]", "list[bool]"]),
    (("struct pm_raw_value *vals", "size_t n"), [], ["list[pm_raw_value]"]),
    (("void *const *bufs", "size_t nbufs"), [("bufs", "Sequence[Buffer]")], []),
    (("const size_t *offsets", "size_t noffsets"), [("offsets", "Sequence[int]")], []),
    (("const uint64_t *ids", "size_t nr_ids"), [("ids", "Sequence[int]")], []),
    (("int argc", "char *const argv[]"), [("argv", "Sequence[str]")], []),
    (("pm_log_fn fn", "void *user"), [("fn", "Callable[[int, str], None] | None")], []),
    (("pm_ring_record_fn fn", "void *user"), [("fn", "Callable[[bytes], int | None] | pm_writer")], []),
    (("pm_stack_fn fn", "void *user"), [("fn", "Callable[[pm_stack], int | None]")], []),
    (("const void *buf", "size_t len"), [("buf", "Buffer")], []),
    (("const void *payload", "size_t len"), [("payload", "Buffer")], []),
    (("const void *raw", "size_t raw_len"), [("raw", "Buffer")], []),
    (("const void *rec", "size_t len"), [("rec", "Buffer")], []),
    (("const void *rec", "size_t size"), [("rec", "Buffer")], []),
    (("const char *text", "size_t len"), [("text", "str | Buffer")], []),
    (("const char *s", "size_t n"), [("s", "str | Buffer")], []),
    (("const char *name", "size_t name_len"), [("name", "str | Buffer")], []),
]



def split_param(p):
    p = " ".join(p.split())
    m = re.match(r"(.*?)(\w+)(\[\])?$", p)
    if not m or p == "void":
        return None, None
    return (m.group(1) + ("*" if m.group(3) else "")).strip(), m.group(2)


def pytype(ctype, handles, structs):
    base = ctype.replace("const ", "").replace("struct ", "").replace("*", "").strip()
    stars = ctype.count("*")
    if stars == 0:
        if base == "double":
            return "float"
        return "int" if base in SCALARS or base.startswith("enum") else "object"
    if base == "char" and stars == 1:
        return "str"
    if base in handles or base in structs:
        return base
    if base == "void":
        return "Buffer"
    return "Buffer"


def stub_sig(ret, name, args, handles, structs, owned):
    params = [split_param(p) for p in args.split(",")] if args.strip() not in ("", "void") else []
    ins, outs = [], []
    i = 0
    while i < len(params):
        for cparams, pins, pouts in MULTI:
            k = len(cparams)
            if tuple("%s %s" % (t.replace(" *", " *").strip(), n) if t else "" for t, n in params[i:i + k]) \
                    == tuple(" ".join(c.replace("*", " *").split()).replace(" *", " *") for c in cparams) \
                    or tuple(" ".join((t + " " + n).replace("*", " * ").split()) for t, n in params[i:i + k]) \
                    == tuple(" ".join(c.replace("*", " * ").replace("[]", "").split()) if "[]" not in c else
                             " ".join(c.replace("[]", "").replace("*", " * ").split()) + "" for c in cparams):
                ins += pins
                outs += pouts
                i += k
                break
        else:
            t, n = params[i]
            i += 1
            base = t.replace("const ", "").replace("struct ", "").replace("*", "").strip()
            const = t.startswith("const")
            stars = t.count("*")
            if (n == "err" and base == "pm_event_error") or n == "err_off":
                continue
            if stars == 2 and n == "out":
                outs.append(base)
            elif stars == 2 and base == "char":
                outs.append("str | None")
            elif stars == 1 and not const and base in structs and n != "self":
                outs.append(base)
            elif stars == 1 and not const and base in SCALARS and n not in ("out_idx",):
                outs.append("int")
            elif stars == 1 and base == "char" and not const and n == "comm":
                outs.append("str")
            elif base == "char" and stars == 1:
                opt = " | None"
                ins.append((n, ("str | bytes | os.PathLike[str]" if n in ("path", "filename") else "str") + opt))
            elif stars == 1 and (base in handles or base in structs):
                ins.append((n, base + (" | None" if n in ("opts", "pmus", "ctx") else "")))
            elif stars == 1:
                ins.append((n, "Buffer" + (" | None" if n in ("cpumode", "when") else "")))
            elif n == "user" and base == "void":
                ins.append((n, "pm_writer"))
            else:
                ins.append((n, pytype(t, handles, structs)))
    rbase = ret.replace("const ", "").replace("struct ", "").replace("*", "").strip()
    if ret == "void":
        rtype = None
    elif ret in ("int", "long", "int64_t"):
        rtype = "int"
    elif "*" in ret and rbase == "char":
        rtype = "str | None"
    elif "*" in ret and (rbase in handles or rbase in structs):
        rtype = rbase + " | None"
    elif name == "pm_file_attr_ids":
        rtype = "list[int]"
    elif name == "pm_file_tracing_text":
        rtype = "bytes | None"
    elif name == "pm_set_log":
        rtype = "Callable[[int, str], None] | None"
    else:
        rtype = pytype(ret, handles, structs)
    if name in ("pm_file_attr_ids", "pm_file_tracing_text"):
        outs = [o for o in outs if o != "int"]
    if outs and ret in ("int", "long", "int64_t") and name not in KEEP:
        rtype = None
    allout = ([rtype] if rtype else []) + outs
    res = "None" if not allout else allout[0] if len(allout) == 1 else "tuple[%s]" % ", ".join(allout)
    return "def %s(%s) -> %s: ..." % (name, ", ".join("%s: %s" % p for p in ins), res)


def stubs(out, headers):
    structs, opaque, funcs = parse(headers)
    handles = set(opaque)
    fnames = {n for _, n, _ in funcs}
    lines = ['"""Type stubs of profileme.capi, generated by gen_capi.py from the public headers."""',
             "import os", "from typing import Callable, Sequence", "",
             "Buffer = bytes | bytearray | memoryview", ""]
    for h in sorted(handles):
        lines += ["class %s:" % h, "    thisown: bool",
                  "    def __enter__(self) -> %s: ..." % h, "    def __exit__(self, *exc: object) -> bool: ...", ""]
    for s, members in sorted(structs.items()):
        cls = s + "_s" if s in fnames else s
        lines.append("class %s:" % cls)
        lines.append("    def __init__(self, **fields: object) -> None: ...")
        for t, n in members:
            if re.fullmatch(r"const (char|uint8_t|void) \*", t):
                py = "str | bytes | None"
            elif t.startswith("struct ") and "*" not in t:
                py = t.split()[1]
            elif "*" in t:
                py = "object"
            else:
                py = pytype(t, handles, structs)
            lines.append("    %s: %s" % (n if n not in ("from",) else "_from", py))
        lines.append("")
    for ret, name, args in funcs:
        lines.append(stub_sig(ret, name, args, handles, structs, None))
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__" and sys.argv[1] == "--stubs":
    stubs(sys.argv[2], sys.argv[3:])
elif __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
