# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Issue 12, the Python leg of the cut driver: a real recording (perf, file
mode) cut at record boundaries and at random offsets inside records.  For
every cut, samples() raises a profileme.Error naming the file, and
samples(partial=True) returns exactly the samples of the records wholly
before the cut, with a DamageWarning.  Expectations from the bytes (perf's
layout, tests/perf/perfdata.py), never from the library on the intact file."""
import os
import random
import struct
import sys
import warnings

import pytest

import profileme
from conftest import SRC

sys.path.insert(0, os.path.join(SRC, "tests", "perf"))
import perfdata  # noqa: E402

IDENTIFIER, IP, TID, TIME = 1 << 16, 1 << 0, 1 << 1, 1 << 2


def sample_keys(b, stop):
    """(time, ip) of the SAMPLE records that end at or before @stop."""
    (_off, attr) = perfdata.attr_at(b, 0)
    (st,) = struct.unpack_from("<Q", attr, 24)
    assert st & IP and st & TIME
    out = []
    for off, t, sz in perfdata.records(b):
        if off + sz > stop:
            break
        if t != 9:
            continue
        p = off + 8 + (8 if st & IDENTIFIER else 0)
        (ip,) = struct.unpack_from("<Q", b, p)
        p += 8 + (8 if st & TID else 0)
        (tm,) = struct.unpack_from("<Q", b, p)
        out.append((tm, ip))
    return sorted(out)


def test_cuts_at_boundaries_and_random_offsets(perf_files, tmp_path):
    b = open(perf_files["file"], "rb").read()
    recs = perfdata.records(b)
    do, dn = perfdata.header(b)["data"]
    assert len(recs) > 100
    rng = random.Random(12)
    step = max(1, len(recs) // 150)
    cuts = [off for off, _t, _sz in recs[::step]]                   # record boundaries
    cuts += [rng.randrange(off + 1, off + sz) for off, _t, sz in rng.sample(recs, 60)]  # inside
    path = str(tmp_path / "cut.data")
    total = 0
    for cut in sorted(set(cuts)):
        assert do <= cut < do + dn
        with open(path, "wb") as f:
            f.write(b[:cut])
        want = sample_keys(b, cut)
        total += len(want)
        with profileme.open(path) as r:
            with pytest.raises(profileme.Error) as e:
                r.samples(fields=["time", "ip"])
            assert e.value.filename == path, cut
            assert "perf.data:" not in str(e.value)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                s = r.samples(fields=["time", "ip"], partial=True)
            assert any(issubclass(x.category, profileme.DamageWarning) for x in w), cut
            got = sorted(zip(s["time"].tolist(), s["ip"].tolist()))
            assert got == want, "cut at %d: %d samples, %d before the cut" % (cut, len(got), len(want))
    assert total > 0
