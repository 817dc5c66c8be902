"""Claims on a preset sized by its deadline rather than a GPU count (issue 40: mypy found ``Scenario.gpus``, None
for such a preset, multiplied and compared in explorer/claims.py, which then raised TypeError)."""

from __future__ import annotations

import dataclasses

import pytest

from explorer import claims
from explorer.model import estimate
from explorer.presets import presets


@pytest.fixture
def by_deadline(monkeypatch):
    """The presets, with ``llama31_405b`` and ``lora_70b`` given the deadline their GPU count meets instead."""
    table = dict(presets())
    for name in ("llama31_405b", "lora_70b"):
        s = table[name].scenario
        table[name] = dataclasses.replace(table[name], scenario=s.replace(gpus=None,
                                                                            deadline_days=estimate(s).wall_days))
    monkeypatch.setattr(claims, "presets", lambda: table)
    return table


def test_claims_of_presets_sized_by_a_deadline(by_deadline):
    checked = claims.check_claims().set_index("id")
    # MTBF of the cluster [h] = 1 / (interruptions per GPU-hour x GPUs), on the GPUs the deadline chose
    s = by_deadline["llama31_405b"].scenario
    rate = s.failure_rate_per_gpu_hour or claims.catalog.default("failure_rate_per_gpu_hour")
    assert checked.loc["b_weeks_lost", "number"] == pytest.approx(1 / (rate * estimate(s).gpus))
    assert checked.loc["b_lora", "verdict"] in claims.VERDICTS
