# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""The protocol every script in tests/perf follows with ctest: exit 0 when
every check held, 1 when one failed (each failure printed as it happens),
77 when the test cannot run here (ctest's SKIP_RETURN_CODE, set in
tests/perf/CMakeLists.txt).  One place for it, so a script only says what
it checks."""
import os
import sys

SKIPPED = 77


def skip(why):
    """Ends the test as skipped, saying why."""
    print("SKIPPED:", why)
    sys.exit(SKIPPED)


class Checks:
    """check(cond, what) records one check and returns cond, so a caller can
    stop looking at something that already failed.  With echo=True every check
    is printed (`ok   what` / `FAIL what`), otherwise only the failures."""

    def __init__(self, echo=False):
        self.echo = echo
        self.failed = []
        self.count = 0

    def __call__(self, cond, what):
        self.count += 1
        if self.echo:
            print(("ok   " if cond else "FAIL ") + what)
        elif not cond:
            print("FAIL:", what)
        if not cond:
            self.failed.append(what)
        return bool(cond)

    def fail(self, what):
        """A failure found without a condition to test."""
        self(False, what)

    def finish(self):
        """Prints the verdict and exits with ctest's code."""
        if self.failed:
            print("FAILED %d of %d checks" % (len(self.failed), self.count))
            sys.exit(1)
        print("OK (%d checks)" % self.count)
        sys.exit(0)


def import_binding(build):
    """numpy and the profileme package of BUILD/python, or a skip: a build
    without the Python binding cannot run a test that needs it."""
    sys.path.insert(0, os.path.join(build, "python"))
    try:
        import numpy  # noqa: F401
        import profileme
    except Exception as e:  # noqa: BLE001 - any import failure means no binding here
        skip("python binding not importable: %s" % e)
    return profileme
