# SPDX-License-Identifier: LGPL-2.1-or-later OR BSD-2-Clause
"""Where ProfileMe and IBS samples are charged (issue 11, Python part):
hotspots(), symbolize(), attribute() and to_pandas() use the library's rule.
Expectations come from the generators' chosen inputs (SYNTHETIC recordings):
for ProfileMe the kernel's rule as the seed driver states it, applied here to
the chosen PMPC and ip; for IBS the sidecar's expected charge."""
import collections
import json
import os
import subprocess
import sys

import pytest

import profileme
from conftest import GEN, SRC

pd = pytest.importorskip("pandas")

SYMFS = os.path.join(SRC, "examples", "data", "symfs")
KALLSYMS = os.path.join(SYMFS, "kallsyms")
GEN_IBS = os.path.join(SRC, "tests", "gen", "gen_ibs.py")
REDIRECTS = {0x481: "Istream access violation", 0x581: "ITB miss", 0x681: "interrupt"}
K = 1 << 63


@pytest.fixture(scope="module")
def pm_gen(tmp_path_factory):
    d = tmp_path_factory.mktemp("attr")
    data, exp = str(d / "pm.data"), str(d / "pm.json")
    subprocess.run([sys.executable, GEN, data, "--expected", exp, "--samples", "1500",
                    "--seed", "23"], check=True)
    with open(exp) as f:
        return data, json.load(f)


@pytest.fixture(scope="module")
def ibs_gen(tmp_path_factory):
    d = tmp_path_factory.mktemp("ibs")
    data, exp = str(d / "ibs.data"), str(d / "ibs.json")
    subprocess.run([sys.executable, GEN_IBS, data, "--expected", exp, "--samples", "800",
                    "--seed", "5"], check=True)
    with open(exp) as f:
        return data, json.load(f)


def function_of(meta, addr):
    for f in meta["functions"]:
        if f["start"] <= addr < f["end"]:
            return f["name"]
    return "[unknown]"


def pm_expect(x, meta):
    """(charge, address, trap of a redirect, symbol, skid or None) by the rule
    of the seed driver, from the generator's chosen PMPC and sample ip."""
    pmpc, ip = x["pmpc"], x["ip"]
    pc = pmpc & ~3
    if pmpc & 1:
        entry = pmpc & 0x7FFF
        if entry in REDIRECTS:
            return "redirect", ip, REDIRECTS[entry], function_of(meta, ip), None
        return "PALcode", pc, None, "[PALcode]", None
    if not pc & K and ip & K and ip != pc:
        return "ip", ip, None, function_of(meta, ip), None
    return "pc", pc, None, function_of(meta, pc), ip - pc


def test_profileme_charge_per_row(pm_gen):
    path, exp = pm_gen
    with profileme.open(path) as r:
        df = r.to_pandas()
        s = r.samples()
        a = r.attribute(s)
        sym, dso, _ = r.symbolize(s, symfs=SYMFS, kallsyms=KALLSYMS)
        plain, _, _ = r.symbolize(s, symfs=SYMFS, kallsyms=KALLSYMS, attributed=False)
    by_time = {x["time"]: x for x in exp["samples"]}
    seen = collections.Counter()
    for i in range(len(df)):
        x = by_time[int(df["time"].iloc[i])]
        if x.get("raw_error"):
            assert pd.isna(df["charge"].iloc[i]) and not a["attributed"][i]
            continue
        charge, addr, trap, symbol, skid = pm_expect(x, exp["meta"])
        seen[charge] += 1
        assert df["charge"].iloc[i] == charge, i
        assert int(df["charge_ip"].iloc[i]) == addr, i
        assert sym[i] == symbol, (i, sym[i], symbol)
        if trap:
            assert df["trap"].iloc[i] == trap          # the redirect named
            assert plain[i] != symbol or symbol == "[unknown]" or x["ip"] == addr
        if skid is None:
            assert pd.isna(df["skid"].iloc[i]), i       # no skid for a PAL sample
        else:
            assert int(df["skid"].iloc[i]) == skid, i
        assert df["charge_mode"].iloc[i] == ("PAL" if charge == "PALcode" else
                                             "kernel" if addr & K else "user")
    # every kind the generator makes was checked
    assert seen["redirect"] > 10 and seen["PALcode"] > 10 and seen["pc"] > 100
    assert (dso[sym == "[PALcode]"] == "[PALcode]").all()


def test_profileme_hotspots_charge_redirects_to_the_trapping_instruction(pm_gen):
    path, exp = pm_gen
    want = collections.Counter()
    redirects = collections.Counter()
    by_trap = collections.Counter()
    for x in exp["samples"]:
        if x.get("raw_error"):
            want[function_of(exp["meta"], x["ip"])] += 1    # charged at the ip, unattributed
            continue
        charge, addr, trap, symbol, _ = pm_expect(x, exp["meta"])
        want[symbol] += 1
        if charge == "redirect":
            redirects[symbol] += 1
            by_trap[(symbol, trap)] += 1
    with profileme.open(path) as r:
        hot = r.hotspots(top=1000, symfs=SYMFS, kallsyms=KALLSYMS)
        got = {row.symbol: row.samples for row in hot.itertuples()}
        assert got == dict(want)
        assert {row.symbol: row.redirects for row in hot.itertuples() if row.redirects} == dict(redirects)
        assert "[PALcode]" in got and got["[PALcode]"] < sum(want.values())
        t = r.hotspots(top=1000, by=["symbol", "trap"], symfs=SYMFS, kallsyms=KALLSYMS)
        for (symbol, trap), n in by_trap.items():
            row = t[(t["symbol"] == symbol) & (t["trap"] == trap)]
            assert len(row) == 1 and int(row["samples"].iloc[0]) >= n
        with pytest.raises(ValueError):
            r.hotspots(by="nope")


def test_profileme_fate_columns_say_what_the_bits_say(pm_gen):
    """No 'retired' computed from samples minus killed: the fate columns are
    the bits (killed, stalled) and the derived flags that are not stale."""
    path, exp = pm_gen
    with profileme.open(path) as r:
        df = r.to_pandas()
    assert not [c for c in df.columns if "retire" in c]
    dec = {x["time"]: x for x in exp["samples"] if "fields" in x}
    got = df[df["raw_ok"]]
    for col, want in (("killed", lambda x: bool(x["fields"]["killed"])),
                      ("stalled", lambda x: bool(x["fields"]["stalled"])),
                      ("trapped", lambda x: x["expected"]["trapped"]),
                      ("mispredicted", lambda x: x["expected"]["mispredicted"])):
        assert [bool(v) for v in got[col]] == [want(dec[int(t)]) for t in got["time"]], col
    # trapped is never set for a killed instruction, though TRP may be (stale)
    assert not (got["trapped"] & got["killed"]).any()


def test_ibs_charge_and_columns(ibs_gen):
    path, exp = ibs_gen
    samples = {x["time"]: x for x in exp["samples"]}
    with profileme.open(path) as r:
        names = [e["name"] for e in r.events]
        op = names.index(next(n for n in names if n.startswith("ibs_op")))
        fetch = names.index(next(n for n in names if n.startswith("ibs_fetch")))
        dop = r.to_pandas(event=op)
        dfe = r.to_pandas(event=fetch)
        hot = r.hotspots(top=100, symfs=SYMFS)
    checked = collections.Counter()
    for df, kind in ((dop, "ibs_op"), (dfe, "ibs_fetch")):
        for i in range(len(df)):
            x = samples[int(df["time"].iloc[i])]
            assert x["event"] == kind
            if x.get("raw_error"):
                assert pd.isna(df["charge_ip"].iloc[i])
                continue
            e = x["expected"]
            assert int(df["charge_ip"].iloc[i]) == e["charge"], i
            assert bool(df["exact"].iloc[i]) == e["exact"], i
            assert bool(df["ip_differs"].iloc[i]) == e["ip_differs"], i
            checked[(kind, e["exact"], e["ip_differs"])] += 1
            if kind == "ibs_op":
                f = x["fields"]
                # the columns `profileme report` aggregates, per row
                assert int(df["tag_to_ret_ctr"].iloc[i]) == f["tag_to_ret_ctr"]
                assert int(df["comp_to_ret_ctr"].iloc[i]) == f["comp_to_ret_ctr"]
                assert df["data_src"].iloc[i] == e["data_src_name"] or \
                    (pd.isna(df["data_src"].iloc[i]) and not f["ld_op"])
                for col, key in (("ld_op", "ld_op"), ("st_op", "st_op"), ("dc_miss", "dc_miss"),
                                 ("op_brn_ret", "brn_ret"), ("op_brn_taken", "brn_taken"),
                                 ("op_brn_misp", "brn_misp"), ("dc_l1tlb_miss", "dc_l1tlb_miss"),
                                 ("dc_l2tlb_miss", "dc_l2tlb_miss")):
                    v = df[col].iloc[i]
                    assert (False if pd.isna(v) else bool(v)) == bool(f[key]), (i, col)
                if f["dc_miss"]:
                    assert int(df["dc_miss_lat"].iloc[i]) == f["dc_miss_lat"]
    assert checked[("ibs_op", True, False)] > 50 and checked[("ibs_op", False, False)] > 0
    assert checked[("ibs_fetch", True, False)] > 20
    # hotspots: one table per event, as perf report; each symbol's samples
    # and exact samples from the sidecar
    full = {"ibs_op": names[op], "ibs_fetch": names[fetch]}
    want = collections.Counter()
    exact = collections.Counter()
    for x in exp["samples"]:
        ev = full[x["event"]]
        if x.get("raw_error"):
            want[(ev, x["symbol"])] += 1
            continue
        want[(ev, x["expected"]["charge_symbol"])] += 1
        exact[(ev, x["expected"]["charge_symbol"])] += x["expected"]["exact"]
    assert {(row.event, row.symbol): row.samples for row in hot.itertuples()} == dict(want)
    assert {(row.event, row.symbol): row.exact for row in hot.itertuples() if row.exact} == \
        {k: v for k, v in exact.items() if v}
    for ev, t in hot.groupby("event"):
        assert abs(t["overhead"].sum() - 100.0) < 1e-6     # shares within each event


def test_bundled_ibs_to_pandas():
    """The bundled synthetic IBS recording has IBS columns in to_pandas()
    (a code shared by several values, data_src "(reserved)", keeps one
    category per code)."""
    with profileme.open(os.path.join(SRC, "examples", "data", "ibs-synthetic.data")) as r:
        df = r.to_pandas()
    for c in ("tag_to_ret_ctr", "comp_to_ret_ctr", "dc_miss_lat", "data_src", "charge_ip", "exact"):
        assert c in df.columns, c
    assert df["data_src"].cat.categories.is_unique


def report_json(path):
    out = subprocess.run([os.environ.get("PM_PROFILEME", "profileme"), "report", "--json", "-i", path,
                          "--symfs", SYMFS, "--kallsyms", KALLSYMS], check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    return [json.loads(line) for line in out.splitlines() if line.strip().startswith("{")]


@pytest.mark.parametrize("which", ["profileme", "ibs"])
def test_hotspots_agree_with_the_cli_report(which, pm_gen, ibs_gen):
    """Python and `profileme report` charge every sample to the same symbol
    (one policy, in the library): samples per (event, symbol), PAL redirects,
    exact IBS samples and IBS latency means over the exact samples."""
    path = pm_gen[0] if which == "profileme" else ibs_gen[0]
    # the report's rows are per comm, dso and symbol (perf's default sort):
    # summed per (event, symbol), the key of hotspots()
    rows = {}
    for j in report_json(path):
        if "sym" not in j:
            continue
        k = (j["event"], j["sym"])
        if k in rows:
            for n in ("samples", "overhead", "pal_redirects", "exact"):
                if n in j:
                    rows[k][n] = rows[k].get(n, 0) + j[n]
            rows[k]["merged"] = True
        else:
            rows[k] = dict(j)
    rows = list(rows.values())
    assert rows
    with profileme.open(path) as r:
        hot = r.hotspots(top=1000, symfs=SYMFS, kallsyms=KALLSYMS)
        multi = "event" in hot.columns
        got = {((row.event if multi else r.events[0]["name"]), row.symbol): row for row in hot.itertuples()}
        for j in rows:
            g = got[(j["event"], j["sym"])]
            assert g.samples == j["samples"], j
            assert abs(g.overhead - j["overhead"]) < 1e-3, j
            if which == "profileme":
                assert g.redirects == j.get("pal_redirects", 0), j
            else:
                assert g.exact == j["exact"], j
        assert sum(j["samples"] for j in rows) == int(hot["samples"].sum())
        if which == "ibs":
            names = [e["name"] for e in r.events]
            op = next(i for i, n in enumerate(names) if n.startswith("ibs_op"))
            s = r.samples(event=op)
            df = r.to_pandas(event=op)
            sym, _, _ = r.symbolize(s, symfs=SYMFS)
            df["sym"] = sym
            ex = df[df["exact"].fillna(False)]
            for j in rows:
                if j["event"] != names[op] or not j.get("ops") or j.get("merged"):
                    continue
                d = ex[ex["sym"] == j["sym"]]
                assert len(d) == j["ops"], j
                assert abs(d["tag_to_ret_ctr"].mean() - j["tag_to_ret_mean"]) < 1e-3, j
                assert int(d["ld_op"].sum()) == j["loads"] and int(d["dc_miss"].sum()) == j["dc_miss"], j
