"""Schema checks of every packaged catalog (issue 8, error 7)."""

from __future__ import annotations

import csv
import datetime
import functools
import io
import pathlib
import re
from importlib import resources

import pytest

from explorer import Scenario, ScenarioError, catalog, estimate


CATALOGS = sorted(catalog.SCHEMAS)


def _text(name):
    return resources.files("explorer").joinpath("data").joinpath(name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", CATALOGS)
def test_catalog_matches_its_schema(name):
    rows = catalog.read_csv(name)
    assert rows, name
    raw = list(csv.reader(io.StringIO(_text(name))))
    header = raw[0]
    # every row has exactly as many fields as the header (an unquoted comma would add some)
    assert all(len(r) == len(header) for r in raw[1:] if r), name
    schema = catalog.SCHEMAS[name]
    ids = [r[schema["id"]] for r in rows]
    assert len(ids) == len(set(ids)), name
    for r in rows:
        for col in schema["source"]:
            assert r[col].strip(), (name, r[schema["id"]], col)


def test_defaults_server_overhead_source_is_whole():
    """defaults.csv once split 'CPUs, board, memory' into three fields: the source read ' board'."""
    d = catalog.defaults()["server_overhead"]
    assert d.description.endswith("(CPUs, board, memory)")
    assert d.source.startswith("Epoch AI")


HEADER = "name,value,unit,description,source,as_of,as_of_basis\n"


@pytest.mark.parametrize(
    "body, words",
    [
        ("a,1,x,CPUs, board,src,2024-05,source\n", "8 fields"),
        ("a,one,x,d,src,2024-05,source\n", "not a number"),
        ("a,1,x,d,,2024-05,source\n", "needs a source"),
        ("a,1,x,d,src,2024-05,source\na,2,x,d,src,2024-05,source\n", "duplicate"),
        (",1,x,d,src,2024-05,source\n", "empty name"),
        ("a,,x,d,src,2024-05,source\n", "value is required"),
        ("a,1,x,d,src,,checked\n", "as_of is required"),
        ("a,1,x,d,src,May 2024,source\n", "not a date"),
        ("a,1,x,d,src,2024-13,source\n", "not a date"),
        ("a,1,x,d,src,2023-02-29,source\n", "not a date"),
        ("a,1,x,d,src,24-05,source\n", "not a date"),
    ],
)
def test_schema_violations_raise_the_one_error(body, words):
    with pytest.raises(ScenarioError, match=words):
        catalog.check_rows("defaults.csv", HEADER + body)


def test_header_missing_a_column():
    with pytest.raises(catalog.CatalogError, match="header lacks"):
        catalog.check_rows("defaults.csv", "name,value,unit\na,1,x\n")
    with pytest.raises(catalog.CatalogError, match="header lacks column.* as_of"):
        catalog.check_rows("defaults.csv", "name,value,unit,description,source\na,1,x,d,src\n")


def test_every_default_has_the_date_of_its_source_or_of_its_check():
    """as_of is a real date no later than today's, of the kind as_of_basis names (explorer.tables.SCHEMAS)."""
    rows = list(csv.DictReader(io.StringIO(_text("defaults.csv"))))
    assert len(rows) == len(catalog.defaults()) > 40
    today = datetime.date.today()
    for r in rows:
        parts = [int(p) for p in r["as_of"].split("-")]
        assert 1 <= len(parts) <= 3, r["name"]
        day = datetime.date(*parts, *(1,) * (3 - len(parts)))  # ValueError: not a date
        assert datetime.date(2000, 1, 1) <= day <= today, (r["name"], r["as_of"])
        assert r["as_of_basis"] in ("source", "checked"), r["name"]
        if r["as_of_basis"] == "checked":  # the day it was checked: a whole date
            assert len(parts) == 3, r["name"]
        else:  # a dated source: its year is named in the source column (or its arXiv number's YYMM)
            year = r["as_of"][:4]
            arxiv = re.findall(r"(?:arXiv:? ?)(\d{2})(\d{2})\.\d{4,5}", r["source"])
            assert year in r["source"] or any("20" + yy == year for yy, _ in arxiv) or \
                "NeMo " + year[2:] in r["source"], (r["name"], r["as_of"], r["source"][:120])
    # the spot rows are read from dated aggregator pages (Feb and Mar 2026): their dates, not the day checked
    by_name = {r["name"]: r for r in rows}
    assert by_name["spot_preemption_per_gpu_hour"]["as_of"] == "2026-02"
    assert by_name["colocation_usd_per_kw_month"]["as_of"] == "2025-02-26"  # CBRE H2 2024 report's date


def test_h20_specs_from_nvidia_figures_and_no_price():
    from explorer import catalog
    a = catalog.accelerator("h20")
    # NVIDIA HGX H20 spec sheet (Tom's Hardware, TweakTown 2024): 96 GB, FP8 296, BF16 148 TFLOPS dense, 400 W
    assert (a.memory_gb, a.peak_tflops["fp8"], a.peak_tflops["bf16"], a.tdp_w) == (96, 296, 148, 400)
    from explorer import prices
    assert not prices.market_prices("h20", "on_demand") and a.purchase_usd is None  # no market price found
    assert prices.quote("h20", "on_demand").estimated  # derived by the peer rule, and marked
    e = estimate(Scenario(gpu="h20", gpus=512))
    assert any("No measured MFU for NVIDIA H20" in w for w in e.warnings)
    # 989.5 / 148 = 6.69x the H100's ideal hours at the same MFU (hand)
    h100 = estimate(Scenario(gpu="h100-sxm", gpus=512, mfu=0.38))
    assert estimate(Scenario(gpu="h20", gpus=512, mfu=0.38)).ideal_gpu_hours / h100.ideal_gpu_hours == \
        pytest.approx(989.5 / 148)


def _quoted_in_code(column: str) -> bool:
    code = _package_code()
    return f'"{column}"' in code or f"'{column}'" in code


@functools.cache
def _package_code() -> str:
    root = pathlib.Path(catalog.__file__).parent
    return "\n".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py"))


@pytest.mark.parametrize("name", CATALOGS)
def test_every_column_is_read_by_code_or_marked_documentary(name):
    """A column nobody reads is either documentation for the reader (marked so in SCHEMAS) or dead weight."""
    header = next(csv.reader(io.StringIO(_text(name))))
    schema = catalog.SCHEMAS[name]
    documentary = set(schema.get("documentary", ()))
    unread = [c for c in header if c not in documentary and not _quoted_in_code(c)]
    assert not unread, f"{name}: columns no code reads; mark them documentary in explorer.tables.SCHEMAS: {unread}"
    assert documentary <= set(header)
