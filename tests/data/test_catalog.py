"""Schema checks of every packaged catalog (issue 8, error 7)."""

from __future__ import annotations

import csv
import io
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
