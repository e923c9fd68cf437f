# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""rec.to_pprof() and rec.folded(): the library's exporters from Python.

Expectations come from the CLI that calls the same library functions
(`profileme convert --to pprof`, `profileme script --folded`) and, for
pprof, byte for byte the profile the CLI writes (tests/perf/test_pprof.py
checks that one against `go tool pprof`).
"""
import gzip
import os
import subprocess

import pytest

import profileme
from conftest import PROFILEME, SRC, SYNTH

SYMFS = os.path.join(SRC, "examples", "data", "symfs")
KALLSYMS = os.path.join(SYMFS, "kallsyms")
SYM = ["--symfs", SYMFS, "--kallsyms", KALLSYMS]


def _cli(*args):
    return subprocess.run([PROFILEME, *args], check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE).stdout


def test_folded_equals_cli_synthetic():
    with profileme.open(SYNTH) as rec:
        text = rec.folded(symfs=SYMFS, kallsyms=KALLSYMS)
    assert text == _cli("script", "--folded", "-i", SYNTH, *SYM).decode()
    # every sample of the synthetic recording counted once (202, its sidecar)
    assert sum(int(line.rsplit(" ", 1)[1]) for line in text.splitlines()) == 202
    assert "pmdemo;parse_branchy " in text


def test_folded_perf_callchains(perf_files):
    path = perf_files["callchain"]
    with profileme.open(path) as rec:
        text = rec.folded()
        n = len(rec.samples(fields=["ip"]))
    assert text == _cli("script", "--folded", "-i", path).decode()
    assert sum(int(line.rsplit(" ", 1)[1]) for line in text.splitlines()) == n
    assert any(line.count(";") >= 3 for line in text.splitlines())


def test_to_pprof_equals_cli(tmp_path):
    ours = tmp_path / "py.pb.gz"
    cli = tmp_path / "cli.pb.gz"
    with profileme.open(SYNTH) as rec:
        try:
            rec.to_pprof(ours, symfs=SYMFS, kallsyms=KALLSYMS)
        except profileme.UnsupportedError as e:
            pytest.skip("library built without pprof support: %s" % e)
    _cli("convert", "--to", "pprof", "-i", SYNTH, "-o", str(cli), *SYM)
    with gzip.open(ours) as a, gzip.open(cli) as b:
        assert a.read() == b.read()


def test_export_errors(tmp_path):
    with profileme.open(SYNTH) as rec:
        with pytest.raises(ValueError):
            rec.to_pprof(str(tmp_path / "a\0b"))
        with pytest.raises(profileme.Error):
            rec.to_pprof(str(tmp_path / "no" / "such" / "dir" / "x.pb.gz"))
