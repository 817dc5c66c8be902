"""Issue 41: a US-controlled accelerator priced in a Chinese region is warned about (en and zh), with the primary
source (the BIS interim final rules of 7 Oct 2022, 87 FR 62186, and of Oct 2023, FR Doc. 2023-23055) in
explorer/data/export_controls.csv's source column."""

from __future__ import annotations

import pytest

from explorer import Scenario, catalog, estimate
from explorer.messages import render

CHINESE = [r for r, reg in catalog.regions().items() if reg.country == "China"]


def _warned(gpu: str, region: str) -> list[str]:
    precision = "fp16" if gpu.startswith("ascend") else "bf16"
    return [render(w, "en") for w in estimate(Scenario(gpu=gpu, region=region, precision=precision)).warnings
            if "export controls" in render(w, "en")]


@pytest.mark.parametrize("gpu", ["h100-sxm", "h100-pcie", "h200", "b200"])
def test_a_controlled_chip_in_a_chinese_region_is_warned_about(gpu):
    assert len(CHINESE) >= 2  # cn-avg and the provinces
    for region in CHINESE:
        [text] = _warned(gpu, region)
        assert catalog.accelerator(gpu).name in text and "87 FR 62186" in text and "2023-23055" in text


def test_in_chinese_too():
    e = estimate(Scenario(gpu="h100-sxm", region="cn-avg"))
    zh = [render(w, "zh") for w in e.warnings if "87 FR 62186" in render(w, "zh")]
    assert len(zh) == 1 and "出口管制" in zh[0] and "未经美国许可" in zh[0]


@pytest.mark.parametrize("gpu, region", [("h100-sxm", "us-avg"), ("h20", "cn-avg"), ("ascend-910b", "cn-avg"),
                                         ("mi300x", "us-avg")])
def test_no_note_elsewhere(gpu, region):
    assert _warned(gpu, region) == []


def test_every_row_has_a_primary_source_and_dates():
    rows = catalog.export_controls()
    assert {"h100-sxm", "h200", "b200"} <= set(rows)
    for gpu, row in rows.items():
        assert gpu in catalog.accelerators()
        assert "federalregister.gov/d/2022-21658" in row["source"]  # the Oct 2022 rule, 87 FR 62186
        assert "87 FR 62186" in row["rule"] and row["destination_country"] == "China"
        assert row["published"] in ("2022-10-13", "2023-10-25")
