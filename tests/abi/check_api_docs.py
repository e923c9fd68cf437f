#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Lint the public headers of libprofileme.

Rules (each failure names file:line and the declaration):
  doc      every PM_API declaration is immediately preceded by a Doxygen
           comment (/** ... */, /*! ... */ or a run of /// lines) that has
           text and an @since tag;
  name     (warning only) that comment names the declared function;
  variadic no PM_API function is variadic (SWIG cannot wrap them);
  union    no union in a public header;
  include  no public header includes <linux/perf_event.h>.

The headers are tokenised (comments, string/char literals and preprocessor
lines are told apart from code), so PM_API inside a comment, a string or a
#define is not taken for a declaration.

usage: check_api_docs.py HEADER... (or a directory: its *.h)
"""
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tokenize(text):
    """Split text into items (kind, start, end): kind is 'comment', 'pp',
    'str' or 'code'.  Code items are single characters or identifiers."""
    items = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            items.append(("comment", i, j))
            i = j
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            items.append(("comment", i, j))
            i = j
            continue
        if c == "#" and line_start:
            # A directive runs to an unescaped newline; comments inside it
            # belong to it.
            j = i
            while j < n:
                if text.startswith("/*", j):
                    k = text.find("*/", j + 2)
                    j = n if k < 0 else k + 2
                    continue
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text[j] == "\n":
                    break
                j += 1
            items.append(("pp", i, j))
            i = j
            continue
        line_start = False
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            items.append(("str", i, j))
            i = j
            continue
        m = IDENT.match(text, i)
        if m:
            items.append(("code", i, m.end()))
            i = m.end()
            continue
        if text.startswith("...", i):
            items.append(("code", i, i + 3))
            i += 3
            continue
        items.append(("code", i, i + 1))
        i += 1
    return items


def is_doc_comment(s):
    if s.startswith("/**<") or s.startswith("/*!<") or s.startswith("///<"):
        return False  # documents the member before it
    if s.startswith("/**") and not s.startswith("/**/"):
        return True
    return s.startswith("/*!") or s.startswith("///") or s.startswith("//!")


def doc_text(s):
    s = re.sub(r"^/\*[*!]|\*/$", "", s)
    s = re.sub(r"^///?!?", "", s)
    return " ".join(re.sub(r"^\s*\*", "", ln).strip() for ln in s.splitlines()).strip()


def check_file(path, errors, warnings):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    items = tokenize(text)
    count = 0

    def where(pos):
        return "%s:%d" % (path, text.count("\n", 0, pos) + 1)

    for kind, a, b in items:
        if kind == "pp" and re.match(r"#\s*include\s*[<\"]linux/perf_event\.h[>\"]", text[a:b]):
            errors.append("%s: [include] public headers must not include <linux/perf_event.h> "
                          "(use profileme/attr.h)" % where(a))
    for idx, (kind, a, b) in enumerate(items):
        if kind == "code" and text[a:b] == "union":
            errors.append("%s: [union] no unions in the public API (SWIG)" % where(a))
        if kind != "code" or text[a:b] != "PM_API":
            continue
        count += 1
        # The declaration starts after the previous ; { } or non-code item;
        # attribute macros before PM_API belong to it.
        s = idx
        while s > 0 and items[s - 1][0] == "code" and text[items[s - 1][1]:items[s - 1][2]] not in ";{}":
            s -= 1
        # The declaration ends at ; or { at paren depth 0.
        depth, e = 0, idx + 1
        decl_toks = []
        while e < len(items):
            k, x, y = items[e]
            t = text[x:y]
            if k == "code":
                if t in "([":
                    depth += 1
                elif t in ")]":
                    depth -= 1
                elif depth == 0 and t in ";{":
                    break
            if k != "comment":
                decl_toks.append(t)
            e += 1
        decl = " ".join(decl_toks)
        toks = [t for t in decl_toks]
        name = None
        if "(" in toks:
            p = toks.index("(")
            # "PM_API void (*pm_x(...))(...)": the name follows the '(' '*'
            cands = [t for t in toks[:p] if IDENT.fullmatch(t)]
            if cands:
                name = cands[-1]
            if len(toks) > p + 2 and toks[p + 1] == "*" and IDENT.fullmatch(toks[p + 2]):
                name = toks[p + 2]
            depth = 0
            for t in toks[p:]:
                depth += t == "("
                depth -= t == ")"
                if t == "..." and depth == 1:
                    errors.append("%s: [variadic] %s: no variadic functions in the public API"
                                  % (where(items[idx][1]), name))
        else:
            cands = [t for t in toks if IDENT.fullmatch(t)]
            name = cands[-1] if cands else "?"
        label = "%s: %s" % (where(items[idx][1]), name)
        if s == 0 or items[s - 1][0] != "comment":
            prev = "start of file" if s == 0 else items[s - 1][0]
            errors.append("%s: [doc] no Doxygen comment right before the declaration (found %s)"
                          % (label, {"pp": "a preprocessor line", "code": "code",
                                     "str": "a string"}.get(prev, prev)))
            continue
        # A run of /// lines counts as one comment.
        c = s - 1
        com = text[items[c][1]:items[c][2]]
        while com.startswith("//") and c > 0 and items[c - 1][0] == "comment" \
                and text[items[c - 1][1]:items[c - 1][2]].startswith("//"):
            c -= 1
            com = text[items[c][1]:items[c][2]] + "\n" + com
        if not is_doc_comment(com):
            errors.append("%s: [doc] the comment before the declaration is not a Doxygen "
                          "comment (start it with /**)" % label)
            continue
        body = doc_text(com)
        words = re.sub(r"[@\\]\w+(\[[^\]]*\])?", "", body).strip()
        if not words:
            errors.append("%s: [doc] the Doxygen comment is empty" % label)
        if not re.search(r"[@\\]since\b", body):
            errors.append("%s: [doc] the Doxygen comment has no @since" % label)
        if name and name not in body:
            warnings.append("%s: [name] the comment does not name %s (convention: "
                            "@brief **%s()** ...)" % (label, name, name))
    return count


def main(argv):
    paths = []
    for a in argv[1:]:
        if os.path.isdir(a):
            paths += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".h"))
        else:
            paths.append(a)
    if not paths:
        print("usage: check_api_docs.py HEADER|DIR...", file=sys.stderr)
        return 2
    errors, warnings = [], []
    total = 0
    for p in paths:
        n = check_file(p, errors, warnings)
        print("%-40s %3d PM_API declarations" % (p, n))
        total += n
    for w in warnings:
        print("warning: " + w)
    for e in errors:
        print("error: " + e)
    if total == 0:
        print("error: no PM_API declarations found at all: wrong directory?")
        return 1
    print("%d declarations in %d headers: %d errors, %d warnings"
          % (total, len(paths), len(errors), len(warnings)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
