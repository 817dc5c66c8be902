"""Schema checks of every packaged catalog (issue 8, error 7)."""

from __future__ import annotations

import csv
import functools
import io
import pathlib
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


HEADER = "name,value,unit,description,source\n"


@pytest.mark.parametrize(
    "body, words",
    [
        ("a,1,x,CPUs, board,src\n", "6 fields"),
        ("a,one,x,d,src\n", "not a number"),
        ("a,1,x,d,\n", "needs a source"),
        ("a,1,x,d,src\na,2,x,d,src\n", "duplicate"),
        (",1,x,d,src\n", "empty name"),
        ("a,,x,d,src\n", "required"),
    ],
)
def test_schema_violations_raise_the_one_error(body, words):
    with pytest.raises(ScenarioError, match=words):
        catalog.check_rows("defaults.csv", HEADER + body)


def test_header_missing_a_column():
    with pytest.raises(catalog.CatalogError, match="header lacks"):
        catalog.check_rows("defaults.csv", "name,value,unit\na,1,x\n")


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
