#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Keep README.md and docs/*.md true to the API, so that a rename cannot leave
them stale:

  names    every `pm_*` / `PM_*` name written anywhere in the pages exists:
           a public one in include/profileme/*.h, the generated version.h or
           lib/libprofileme.map; an internal one (`pm__x`, `PM__X`, `PM_HIDDEN`)
           in lib/; an environment variable (`PM_JOBS`) where a script, test
           or CMake file reads it; a name ending in `_` is a prefix of one of
           those; the few placeholders of PLACEHOLDERS are the only others;
           every `PROFILEME_*` (CMake option, environment variable, header
           macro) occurs in the tree outside the pages;
  arity    in the C blocks (```c), every call of a public function has as
           many arguments as its prototype (a fragment cannot be compiled,
           but a call left over from an older signature is caught);
  compile  a C block preceded by the line `<!-- snippet: complete -->` is a
           whole program: it is compiled with -Wall -Wextra -Werror against
           the headers and linked with the library (CC, LIB given; the
           CFLAGs, e.g. -fsanitize=..., go on that command line too).

usage: check_doc_snippets.py SRC_DIR BUILD_INCLUDE_DIR [CC LIBRARY [CFLAG...]]
       check_doc_snippets.py --selftest
Exit 0: all hold; 1: each failure printed as page:line: what.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

NAME = re.compile(r"\b(?:pm|PM)_[A-Za-z0-9_]*")
OPTION = re.compile(r"(?:(?<=-D)|\b)PROFILEME_[A-Z0-9_]*[A-Z0-9]")
# Names the pages use that are not API on purpose, with why.
PLACEHOLDERS = {
    "pm_x": "the pattern of a name (conventions, deprecation example)",
    "pm_new_function": "the version-script example of adding a function",
    "pm_internal": "the file lib/internal/pm_internal.h",
    "pm_check": "the file tests/unit/pm_check.h",
    "pm_test_skip": "the test helper of tests/unit/pm_check.h",
    "pm_ring_stats_s": "the SWIG name of struct pm_ring_stats in profileme.capi",
}
COMPLETE = "<!-- snippet: complete -->"
ENV_READ = (r"\$\{?%s\b", r"environ[^\n]{0,40}[\"']%s[\"']", r"getenv\(\s*\"%s\"",
            r"ENV\{%s\}", r"\b%s:-", r"\b%s-")


def strip_c_comments(text):
    """Comments and string literals blanked out (newlines kept, so lines hold)."""
    out = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    out = re.sub(r"//[^\n]*", "", out)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', out)


def read_tree(paths):
    text = []
    for p in paths:
        try:
            with open(p, encoding="utf-8", errors="replace") as fh:
                text.append(fh.read())
        except OSError:
            pass
    return "\n".join(text)


def prototypes(header_text):
    """{function name: number of parameters} of the PM_API declarations."""
    code = strip_c_comments(header_text)
    protos = {}
    for m in re.finditer(r"\bPM_API\b[^;{}#]*?\b(pm_[a-z0-9_]+)\s*\(([^;{}]*?)\)\s*;", code, re.S):
        params = m.group(2).strip()
        protos[m.group(1)] = 0 if params in ("", "void") else len(split_args(params))
    return protos


def split_args(s):
    """Top-level comma-separated pieces of s."""
    depth, cur, out = 0, [], []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [a for a in out if a.strip()]


def calls(code):
    """(name, line offset, number of arguments) of each pm_x(...) call in code."""
    for m in re.finditer(r"\b(pm_[a-z0-9_]+)\s*\(", code):
        i, depth = m.end(), 1
        while i < len(code) and depth:
            if code[i] == "(":
                depth += 1
            elif code[i] == ")":
                depth -= 1
            i += 1
        if depth:
            continue
        inner = code[m.end():i - 1]
        if inner.strip() == "...":
            continue
        n = 0 if inner.strip() in ("", "void") else len(split_args(inner))
        yield m.group(1), code.count("\n", 0, m.start()), n


def blocks(text):
    """(language, first line number, body, marked complete) of each fenced block."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i + 1
        complete = i > 0 and lines[i - 1].strip() == COMPLETE
        j = start
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        yield lang, start + 1, "\n".join(lines[start:j]), complete
        i = j + 1


class Known:
    def __init__(self, src, build_include):
        pub = sorted(glob.glob(os.path.join(src, "include/profileme/*.h")))
        pub += sorted(glob.glob(os.path.join(build_include, "profileme/*.h")))
        header_text = read_tree(pub)
        self.public = set(NAME.findall(header_text))
        self.public |= set(NAME.findall(read_tree([os.path.join(src, "lib/libprofileme.map")])))
        self.protos = prototypes(header_text)
        lib = [p for p in glob.glob(os.path.join(src, "lib/**/*.[ch]"), recursive=True)]
        self.internal = set(NAME.findall(read_tree(lib)))
        rest = []
        for d in ("scripts", "tests", "cmake", "examples", "bindings", ".ci"):
            for p in glob.glob(os.path.join(src, d, "**/*"), recursive=True):
                if os.path.isfile(p) and not p.endswith((".data", ".gz", ".pb")):
                    rest.append(p)
        rest += glob.glob(os.path.join(src, "**/CMakeLists.txt"), recursive=True)
        self.scripts = read_tree(sorted(set(rest)))
        self.options = set(OPTION.findall(self.scripts + header_text + read_tree(lib)))

    def check(self, name):
        """None when name is known, else why not."""
        if name in PLACEHOLDERS or name in self.public:
            return None
        if name.endswith("_"):
            pool = self.internal if name.startswith(("pm__", "PM__")) else self.public
            return None if any(n.startswith(name) and n != name for n in pool) else \
                "no name starts with this prefix"
        if name.startswith(("pm__", "PM__")) or name == "PM_HIDDEN":
            return None if name in self.internal else "internal name not in lib/"
        if name.isupper() or re.match(r"^PM_[A-Z0-9_]+$", name):
            for pat in ENV_READ:
                if re.search(pat % re.escape(name), self.scripts):
                    return None
            return "neither in the public headers/map nor an environment variable read by the tree"
        return "not in include/profileme/*.h nor lib/libprofileme.map"


def check_pages(pages, known, cc=None, lib=None, src=None, build_include=None, cflags=()):
    errors = []
    for page in pages:
        with open(page, encoding="utf-8") as fh:
            text = fh.read()
        rel = os.path.relpath(page, src) if src else page
        for n, line in enumerate(text.split("\n"), 1):
            for name in NAME.findall(line):
                why = known.check(name)
                if why:
                    errors.append("%s:%d: %s: %s" % (rel, n, name, why))
            for name in OPTION.findall(line):
                if name not in known.options:
                    errors.append("%s:%d: %s: no CMake file, script, test or header uses it"
                                  % (rel, n, name))
        for lang, first, body, complete in blocks(text):
            if lang != "c":
                continue
            for name, off, nargs in calls(strip_c_comments(body)):
                want = known.protos.get(name)
                if want is not None and want != nargs:
                    errors.append("%s:%d: %s() called with %d argument(s), its prototype has %d"
                                  % (rel, first + off, name, nargs, want))
            if complete and cc:
                errors += compile_block(rel, first, body, cc, lib, src, build_include, cflags)
    return errors


def compile_block(rel, first, body, cc, lib, src, build_include, cflags):
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "snippet.c")
        with open(c, "w") as fh:
            fh.write('#line %d "%s"\n%s\n' % (first, rel, body))
        cmd = [cc] + list(cflags) + ["-std=c99", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE",
               "-I" + os.path.join(src, "include"), "-I" + build_include,
               c, lib, "-o", os.path.join(tmp, "snippet")]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
        if r.returncode:
            return ["%s:%d: the complete snippet does not build:\n%s" % (rel, first, r.stdout)]
    return []


def selftest():
    with tempfile.TemporaryDirectory() as src:
        os.makedirs(os.path.join(src, "include/profileme"))
        os.makedirs(os.path.join(src, "lib"))
        os.makedirs(os.path.join(src, "scripts"))
        with open(os.path.join(src, "include/profileme/x.h"), "w") as fh:
            fh.write("/** doc */\nPM_API int pm_thing_new(pm_thing **out, int a);\n#define PM_THING_FLAG 1\n")
        with open(os.path.join(src, "lib/libprofileme.map"), "w") as fh:
            fh.write("PROFILEME_0.1 { global: pm_thing_new; local: *; };\n")
        with open(os.path.join(src, "lib/x.c"), "w") as fh:
            fh.write("int pm__helper(void);\n")
        with open(os.path.join(src, "scripts/run.sh"), "w") as fh:
            fh.write('jobs=${PM_JOBS:-2}\ncmake -DPROFILEME_WERROR=ON\n')
        page = os.path.join(src, "page.md")
        with open(page, "w") as fh:
            fh.write("Good: `pm_thing_new()`, `PM_THING_FLAG`, `pm__helper`, `PM_JOBS`, `pm_thing_*`.\n"
                     "```c\npm_thing *t;\npm_thing_new(&t, 1); /* pm_thing_new(): ok in a comment */\n```\n"
                     "Stale: `pm_thing_open()`, `PM_OLD_FLAG`, `pm__gone`, `pm_nothing_*`.\n"
                     "Options: `-DPROFILEME_WERROR=ON`, `-DPROFILEME_GONE=ON`.\n"
                     "```c\npm_thing_new(&t);\n```\n")
        known = Known(src, os.path.join(src, "build-include"))
        got = check_pages([page], known)
        expect = ["pm_thing_open", "PM_OLD_FLAG", "pm__gone", "pm_nothing_", "PROFILEME_GONE",
                  "pm_thing_new() called with 1 argument(s), its prototype has 2"]
        missing = [e for e in expect if not any(e in g for g in got)]
        extra = [g for g in got if ":1:" in g or ":3:" in g]
        if missing or extra or len(got) != len(expect):
            print("selftest failed: missing %s, extra %s, got:\n  %s"
                  % (missing, extra, "\n  ".join(got)))
            return 1
    print("selftest: the %d planted stale names/calls were reported, nothing else" % len(expect))
    return 0


def main(argv):
    if argv[1:] == ["--selftest"]:
        return selftest()
    if len(argv) < 3 or len(argv) == 4:
        print(__doc__)
        return 2
    src, build_include = argv[1], argv[2]
    cc, lib = (argv[3], argv[4]) if len(argv) >= 5 else (None, None)
    pages = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs/*.md")))
    known = Known(src, build_include)
    errors = check_pages(pages, known, cc, lib, src, build_include, argv[5:])
    for e in errors:
        print(e)
    ncomplete = sum(1 for p in pages for b in blocks(open(p, encoding="utf-8").read())
                    if b[0] == "c" and b[3])
    print("%d pages, %d complete C snippet(s) built%s: %s"
          % (len(pages), ncomplete if cc else 0, "" if cc else " (no compiler given)",
             "%d problem(s)" % len(errors) if errors else "ok"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
