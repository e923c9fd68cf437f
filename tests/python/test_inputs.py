# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Errors and inputs as Python expects (issue 16), and the binding's share of
issue 12: exception types by kind with the library codes, partial reads of
damaged files, every kind of source, no leaked descriptor, event names
without EVENT_DESC, NUL characters refused, unknown layouts never silent.
Expectations: exception types and errno values, include/profileme/common.h
(parsed here), /proc/self/fd counts, the producer's own EPIPE, the intact
file's samples, and `profileme script --json`."""
import errno
import gzip
import io
import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

import profileme
from conftest import PROFILEME, SRC, SYNTH, script_json


def intact():
    with profileme.open(SYNTH) as r:
        return r.samples()


def lib_codes():
    """PM_ERR_* = N from the public header, read independently."""
    with open(os.path.join(SRC, "include", "profileme", "common.h")) as f:
        return {m.group(1): int(m.group(2)) for m in re.finditer(r"PM_ERR_(\w+)\s*=\s*(\d+)", f.read())}


# ---------------------------------------------------------------- exception types

def test_missing_file_and_directory(tmp_path):
    p = str(tmp_path / "missing.data")
    with pytest.raises(FileNotFoundError) as e:
        profileme.open(p)
    assert isinstance(e.value, profileme.Error)
    assert e.value.errno == errno.ENOENT and e.value.filename == p
    assert str(e.value).count(p) == 1
    with pytest.raises(IsADirectoryError) as e:
        profileme.open(str(tmp_path))
    assert isinstance(e.value, profileme.Error) and e.value.filename == str(tmp_path)
    assert e.value.errno == errno.EISDIR
    assert "perf.data:" not in str(e.value)
    # a missing file is not a profileme.FileNotFoundError at module level:
    # `from profileme import *` must not shadow the builtin
    assert "FileNotFoundError" not in profileme.__all__
    assert not hasattr(profileme, "FileNotFoundError")


def test_codes_are_the_library_codes():
    codes = lib_codes()
    for name in ("FORMAT", "TRUNCATED", "VERSION", "SYNTAX", "NO_PMU", "UNKNOWN_TERM", "RANGE",
                 "PROFILEME", "UNSUPPORTED", "NO_DECODER", "STRUCT_SIZE", "NOT_PROFILEME", "CORRUPT"):
        assert getattr(profileme, "ERR_" + name) == codes[name], name
    for cls in (profileme.FormatError, profileme.UnsupportedError, profileme.NoDecoderError,
                profileme.EventError, profileme.StructSizeError):
        assert issubclass(cls, profileme.Error) and issubclass(cls, OSError)
    assert issubclass(profileme.TruncatedError, profileme.FormatError)
    assert issubclass(profileme.CorruptError, profileme.FormatError)
    assert issubclass(profileme.VersionError, profileme.UnsupportedError)
    assert issubclass(profileme.NotProfileMeError, profileme.NoDecoderError)


def test_failures_by_kind(tmp_path):
    codes = lib_codes()
    bad = tmp_path / "bad.data"
    bad.write_bytes(b"NOTAPERF" + b"\0" * 200)
    with pytest.raises(profileme.FormatError) as e:
        profileme.open(str(bad))
    assert e.value.errno == codes["FORMAT"] and e.value.filename == str(bad)
    assert "perf.data:" not in str(e.value) and str(bad) in str(e.value)
    trunc = tmp_path / "trunc.data"
    trunc.write_bytes(open(SYNTH, "rb").read()[:50])
    with pytest.raises(profileme.TruncatedError) as e:
        profileme.open(str(trunc))
    assert e.value.errno == codes["TRUNCATED"]
    v1 = tmp_path / "v1.data"
    v1.write_bytes(b"PERFFILE" + b"\0" * 200)
    with pytest.raises(profileme.VersionError) as e:
        profileme.open(str(v1))
    assert e.value.errno == codes["VERSION"]
    with pytest.raises(profileme.NotProfileMeError):
        profileme.decode_profileme(b"\0" * 28)
    with pytest.raises(profileme.EventError) as e:
        profileme.encode("cycles/oops")
    assert e.value.errno in (codes["SYNTAX"], codes["NO_PMU"], codes["UNKNOWN_TERM"])


@pytest.mark.parametrize("kind,magic", [("gzip", None), ("zstd", b"\x28\xb5\x2f\xfd\x04\x58"),
                                        ("xz", b"\xfd7zXZ\x00\x00")])
def test_compressed_file_says_so(tmp_path, kind, magic):
    p = tmp_path / ("x.data." + kind)
    if magic is None:
        with gzip.open(str(p), "wb") as g:
            g.write(open(SYNTH, "rb").read())
    else:
        p.write_bytes(magic + b"\0" * 100)
    for src in (str(p), open(str(p), "rb"), p.read_bytes()):
        with pytest.raises(profileme.FormatError) as e:
            profileme.open(src)
        assert "%s-compressed" % kind in str(e.value)
        if not isinstance(src, (str, bytes)):
            src.close()
    if magic is None:
        # and the decompressing file object reads as the recording itself
        with gzip.open(str(p), "rb") as g, profileme.open(g) as r:
            assert np.array_equal(r.samples(), intact())


# ---------------------------------------------------------------- damage

def damaged(tmp_path):
    data = bytearray(open(SYNTH, "rb").read())
    with profileme.open(SYNTH) as r:
        recs = list(r.records())
    off = recs[100]["offset"]
    before = sum(1 for x in recs if x["type"] == "SAMPLE" and x["offset"] < off)
    data[off + 6:off + 8] = b"\x03\x00"     # header.size = 3: impossible
    p = tmp_path / "damaged.data"
    p.write_bytes(bytes(data))
    return str(p), before


def test_partial_returns_rows_before_damage(tmp_path):
    path, before = damaged(tmp_path)
    full = intact()
    with profileme.open(path) as r:
        with pytest.raises(profileme.FormatError) as e:
            r.samples()
        assert e.value.filename == path and "perf.data:" not in str(e.value)
        assert "%d samples were read before it" % before in str(e.value)
        with pytest.warns(profileme.DamageWarning, match=r"returning the %d samples" % before) as w:
            s = r.samples(partial=True)
        assert path in str(w[0].message) and "perf.data:" not in str(w[0].message)
        assert len(s) == before > 0
        assert np.array_equal(s, full[:before])
        with pytest.warns(profileme.DamageWarning):
            df = r.to_pandas(partial=True)
        assert len(df) == before and (df["ip"].to_numpy() == full["ip"][:before]).all()
        with pytest.raises(profileme.FormatError):
            r.to_pandas()


def _attr_offset(data):
    (attrs_off,) = struct.unpack_from("<Q", data, 24)
    return attrs_off


def test_unknown_sample_type_bits_are_not_silent(tmp_path):
    """Issue 12 item 7: an attr with sample_type bits this library does not
    know: samples() raises (naming the event and the bits), as `script`
    refuses; partial=True leaves them out with a warning saying how many."""
    data = bytearray(open(SYNTH, "rb").read())
    off = _attr_offset(data) + 24                     # perf_event_attr.sample_type
    (st,) = struct.unpack_from("<Q", data, off)
    struct.pack_into("<Q", data, off, st | (1 << 50))
    p = str(tmp_path / "unknown-bits.data")
    open(p, "wb").write(bytes(data))
    n = len(intact())
    # the CLI says so too (the oracle for "the same way")
    cli = subprocess.run([PROFILEME, "script", "-i", p], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert cli.stderr and (b"unknown" in cli.stderr or b"does not know" in cli.stderr)
    with profileme.open(p) as r:
        assert r.events[0]["layout_error"] and "0x4000000000000" in r.events[0]["layout_error"]
        with pytest.raises(profileme.UnsupportedError) as e:
            r.samples()
        assert "%d samples cannot be read" % n in str(e.value)
        assert "0x4000000000000" in str(e.value) and e.value.filename == p
        with pytest.warns(profileme.DamageWarning, match="%d samples cannot be read" % n):
            assert len(r.samples(partial=True)) == 0


# ---------------------------------------------------------------- sources

class Reader:
    """A readable binary object with nothing but read()."""

    def __init__(self, data):
        self._b = io.BytesIO(data)

    def read(self, n=-1):
        return self._b.read(n)


def test_sources_bytes_memoryview_bytesio_reader():
    want = intact()
    raw = open(SYNTH, "rb").read()
    for src in (raw, bytearray(raw), memoryview(raw), io.BytesIO(raw), Reader(raw)):
        with profileme.open(src) as r:
            assert np.array_equal(r.samples(), want), type(src)
            assert np.array_equal(r.samples(), want)          # read again: it is in memory
            assert r.codes["trap"][0] == "none"
    with pytest.raises(profileme.FormatError) as e:
        profileme.open(b"x" * 100)
    assert "<bytes of 100 bytes>" in str(e.value)


def test_real_file_read_from_offset_zero():
    want = intact()
    with open(SYNTH, "rb") as fh:
        fh.read(1000)
        pos = fh.tell()
        with profileme.open(fh) as r:
            assert np.array_equal(r.samples(), want)
            assert np.array_equal(r.samples(), want)          # a regular file reads again
        assert fh.tell() == pos                              # the caller's position is kept
    with open(SYNTH, "rb", buffering=0) as fh:
        fh.seek(123)
        with profileme.open(fh) as r:
            assert len(r.samples()) == len(want)
        assert fh.tell() == 123


def test_fields_string_is_one_field():
    with profileme.open(SYNTH) as r:
        s = r.samples(fields="ip")
        assert s.dtype.names == ("ip",)
        assert np.array_equal(s["ip"], intact()["ip"])
        with pytest.raises(TypeError):
            r.samples(fields=[1, 2])
        assert list(r.to_pandas(fields="trap").columns) == ["trap"]


def test_dataframe_where_array_expected():
    pd = pytest.importorskip("pandas")
    with profileme.open(SYNTH) as r:
        df = r.to_pandas()
        with pytest.raises(TypeError, match="structured array of samples"):
            r.symbolize(df)
        with pytest.raises(TypeError, match="structured array of samples"):
            r.hotspots(samples=df)
        with pytest.raises(TypeError):
            r.symbolize(np.zeros(3))
        assert isinstance(pd.DataFrame, type)


def test_codes_before_samples(gen_files):
    with profileme.open(SYNTH) as r:
        assert r.codes["trap"][0] == "none" and "PAL" in r.codes["mode"]
        assert r.decoder == "alpha_profileme"
    path, exp = gen_files["le_pipe"]
    with open(path, "rb") as src:
        p = subprocess.Popen(["cat"], stdin=src, stdout=subprocess.PIPE)
        with profileme.open(p.stdout) as r:
            assert "trap" in r.codes                           # known before any sample
            assert len(r.samples()) == len(exp["samples"])     # and nothing was consumed
        p.stdout.close()
        p.wait()


def test_records_docs_name_the_key():
    doc = profileme.PerfData.records.__doc__
    assert '"profileme"' in doc and '"ibs_op"' in doc
    with profileme.open(SYNTH) as r:
        s = next(x for x in r.records() if x["type"] == "SAMPLE")
    assert "profileme" in s


def test_nul_in_strings_refused():
    """Issue 12 item 9: 'cyc\\0les' was encoded as 'cyc' without a word."""
    with pytest.raises(profileme.EventError) as e:
        profileme.encode("cyc\0les")
    assert e.value.position == 3 and isinstance(e.value, ValueError)
    with pytest.raises(ValueError):
        profileme.open(SYNTH + "\0junk")
    with pytest.raises(ValueError):
        profileme.pmus("/sys\0/x")
    with pytest.raises(profileme.EventError):
        profileme.Session(["task-clock\0x"], command=["true"])
    with pytest.raises(ValueError):
        profileme.Session(["task-clock"], command=["tr\0ue"])


# ---------------------------------------------------------------- descriptors (issue 12 item 4)

def nfds():
    return len(os.listdir("/proc/self/fd"))


def test_no_descriptor_leak():
    base = nfds()
    for _ in range(1000):
        with open(SYNTH, "rb") as fh, profileme.open(fh) as r:
            pass
    assert nfds() == base
    for _ in range(200):
        with open(SYNTH, "rb") as fh:
            r = profileme.open(fh)
            r.samples(fields="ip")
            r.close()
    assert nfds() == base
    for _ in range(200):
        with profileme.open(open(SYNTH, "rb").read()) as r:
            pass
    assert nfds() == base
    with open(SYNTH, "rb") as fh:
        r = profileme.open(fh)
        assert nfds() == base + 2          # the caller's and the recording's own
        del r
        import gc
        gc.collect()
        assert nfds() == base + 1
    # a failed open leaves nothing open either
    for _ in range(100):
        with pytest.raises(profileme.FormatError):
            profileme.open(io.BytesIO(b"NOTAPERF" * 10))
    assert nfds() == base


PRODUCER = r"""
import sys, signal
signal.signal(signal.SIGPIPE, signal.SIG_DFL if False else signal.SIG_IGN)
head = open(sys.argv[1], "rb").read()
out = sys.stdout.buffer
try:
    out.write(head)
    out.flush()
    while True:                      # more than the consumer reads: it blocks here
        out.write(b"\0" * 65536)
        out.flush()
except BrokenPipeError:
    sys.stderr.write("EPIPE\n")
    sys.exit(3)
"""


def test_pipe_producer_sees_epipe(gen_files, tmp_path):
    """With the binding's copy of the read end closed, a producer writing into
    a pipe that nobody reads any more gets EPIPE (before the fix it blocked
    forever on the leaked copy)."""
    path = gen_files["le_pipe"][0]
    prog = tmp_path / "producer.py"
    prog.write_text(PRODUCER)
    p = subprocess.Popen([sys.executable, str(prog), path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    with profileme.open(p.stdout) as r:
        assert r.events and r.codes
    p.stdout.close()
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        pytest.fail("the producer is still blocked: a copy of the pipe's read end is open")
    assert rc == 3 and b"EPIPE" in p.stderr.read()
    p.stderr.close()


# ---------------------------------------------------------------- names without EVENT_DESC (issue 12 item 8)

def strip_feature(data, bit):
    """A file-mode perf.data without feature @bit: its bit cleared and its
    entry dropped from the feature table (the others keep their offsets)."""
    data = bytearray(data)
    data_off, data_size = struct.unpack_from("<QQ", data, 40)
    words = list(struct.unpack_from("<4Q", data, 72))
    bitmap = sum(w << (64 * i) for i, w in enumerate(words))
    assert bitmap >> bit & 1
    bits = [b for b in range(256) if bitmap >> b & 1]
    table = data_off + data_size
    entries = [data[table + 16 * i:table + 16 * i + 16] for i in range(len(bits))]
    keep = [e for b, e in zip(bits, entries) if b != bit]
    data[table:table + 16 * len(bits)] = b"".join(keep) + b"\0" * 16
    bitmap &= ~(1 << bit)
    struct.pack_into("<4Q", data, 72, *[(bitmap >> (64 * i)) & (2 ** 64 - 1) for i in range(4)])
    return bytes(data)


@pytest.mark.parametrize("which", ["synthetic", "perf"])
def test_to_pandas_without_event_desc(tmp_path, which, request):
    pytest.importorskip("pandas")
    if which == "perf":
        src = request.getfixturevalue("perf_files")["file"]
    else:
        src = SYNTH
    p = str(tmp_path / "no-event-desc.data")
    open(p, "wb").write(strip_feature(open(src, "rb").read(), 12))   # HEADER_EVENT_DESC
    want = script_json(p)
    with profileme.open(p) as r:
        assert r.events[0]["name"]
        df = r.to_pandas()
    assert len(df) == len(want) > 0
    assert list(df["event"].astype(str)) == [j["event"] for j in want]
    assert not df["event"].isna().any()


def test_pipe_stream_cut_in_its_last_record_says_so(gen_files, tmp_path):
    """A pipe stream whose last record is cut ends there (as perf does), but
    not without a word: a DamageWarning names the offset, and the rows are
    the samples before the cut."""
    path, exp = gen_files["le_pipe"]
    with profileme.open(path) as r:
        recs = list(r.records())
        full = r.samples()
    last = max((x for x in recs if x["type"] == "SAMPLE"), key=lambda x: x["offset"])
    assert all(x["offset"] < last["offset"] for x in recs if x["type"] == "SAMPLE" and x is not last)
    data = open(path, "rb").read()[:last["offset"] + 12]
    p = tmp_path / "cut-pipe.data"
    p.write_bytes(data)
    with open(str(p), "rb") as src:
        cat = subprocess.Popen(["cat"], stdin=src, stdout=subprocess.PIPE)
        with profileme.open(cat.stdout) as r:
            with pytest.warns(profileme.DamageWarning, match=str(last["offset"])) as w:
                s = r.samples()
        cat.stdout.close()
        cat.wait()
    assert "the stream ends there (%d samples read)" % (len(full) - 1) in str(w[0].message)
    assert len(s) == len(full) - 1
    rest = np.sort(full, order="time")
    assert np.array_equal(np.sort(s, order="time"), rest[rest["time"] != last["time"]])
