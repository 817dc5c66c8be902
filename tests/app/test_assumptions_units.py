"""Issue 41: no unit "1" in the Assumptions table. The model writes a dimensionless value's unit as "1" (SI's
way); a reader took it for a number in 6 cells (MFU, PUE, the power fraction, layers, width, parallel degrees)."""

from __future__ import annotations

import re

import pytest

from explorer import Scenario, estimate
from explorer.app.pages.estimate_html import assumptions_html


@pytest.mark.parametrize("language", ["en", "zh"])
def test_no_unit_cell_says_1(language):
    e = estimate(Scenario())
    dimensionless = [a for a in e.assumptions if a.unit == "1"]
    assert len(dimensionless) >= 6  # MFU, PUE, layers, width, ... (the model's own units)
    rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td>", assumptions_html(e, language))
    assert len(rows) == len(e.assumptions)
    assert [unit for _n, _v, unit in rows if unit.strip() == "1"] == []
    units = {name: unit for name, _v, unit in rows}
    pue = next(a for a in e.assumptions if a.name == "pue")
    assert units[pue.render(language)] == ""  # PUE: a ratio, no unit
    price = next(a for a in e.assumptions if a.unit == "USD/GPU-hour")
    assert units[price.render(language)] != ""  # a unit that is one stays
