# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Error messages name the recording once (issue 15, item 5): the library
names the file by its path (or "<fd N>" / "<stdin>" for a descriptor), never
with a literal "perf.data:", and the binding shows that name once, as
.filename.  Input: the synthetic recording cut short at 40 bytes (its header
needs 104) and in the middle of its data."""
import io

import pytest

import profileme
from conftest import SYNTH


def _cut(tmp_path, n):
    data = open(SYNTH, "rb").read()
    p = tmp_path / "named-recording.data"
    p.write_bytes(data[: n if n > 0 else len(data) // 2])
    return str(p)


def test_path_named_once(tmp_path):
    p = _cut(tmp_path, 40)
    with pytest.raises(profileme.TruncatedError) as ei:
        profileme.open(p)
    e = ei.value
    assert e.filename == p
    text = str(e)
    assert "perf.data:" not in text
    assert text.count(p) == 1  # as .filename, not again inside the message
    assert "header cut short" in text


def test_descriptor_name_not_leaked():
    with pytest.raises(profileme.TruncatedError) as ei:
        profileme.open(io.BytesIO(open(SYNTH, "rb").read()[:40]))
    text = str(ei.value)
    assert "perf.data:" not in text
    assert "<fd " not in text
    assert "header cut short" in text


def test_records_damage_named_once(tmp_path):
    """records() (Python over profileme.capi) names the recording of a
    failure in the middle of its data as the other calls do, after
    handing out the records before the damage."""
    p = _cut(tmp_path, 0)
    got = []
    with profileme.open(p) as r:
        with pytest.raises(profileme.TruncatedError) as ei:
            for x in r.records():
                got.append(x)
    assert len(got) > 10 and any(x["type"] == "SAMPLE" for x in got)
    e = ei.value
    assert e.filename == p
    text = str(e)
    assert "perf.data:" not in text and text.count(p) == 1
