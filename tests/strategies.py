"""Inputs for the model tests: hypothesis strategies over the whole valid domain of a scenario
(tests/model/test_properties.py explains it), and hostile scenario files beyond it."""

from __future__ import annotations

import math

from hypothesis import settings
from hypothesis import strategies as st

from explorer import Scenario, catalog
from explorer import prices
from explorer.catalog import default
from explorer.scenario import PRICING_MODES, TRAINING_KINDS, field_spec


PRICED = [a.id for a in catalog.accelerators().values() if prices.market_prices(a.id, "on_demand") and a.tdp_w]
OWNABLE = [i for i in PRICED if catalog.accelerator(i).purchase_usd]
REGIONS = [r.id for r in catalog.regions().values() if r.grid_gco2_per_kwh is not None]
POWERED = [r for r in REGIONS if catalog.region(r).electricity_usd_per_kwh is not None]
MAX_GPUS = int(default("max_gpus"))


def log_uniform(lo, hi):
    return st.floats(math.log10(lo), math.log10(hi)).map(lambda x: min(hi, max(lo, 10.0**x)))


PARAMS = log_uniform(field_spec("params")["min"], field_spec("params")["max"])
TOKENS = log_uniform(field_spec("tokens")["min"], field_spec("tokens")["max"])


@st.composite
def scenarios(draw, mode=None):
    """A valid scenario with every catalog value it needs known.

    mode: None (either), "gpus" or "deadline".
    """
    pricing = draw(st.sampled_from(PRICING_MODES))
    gpu = draw(st.sampled_from(OWNABLE if pricing == "owned" else PRICED))
    acc = catalog.accelerator(gpu)
    region = draw(st.sampled_from(POWERED if pricing == "owned" else REGIONS))
    params = draw(PARAMS)
    kw = dict(
        params=params,
        tokens=draw(TOKENS),
        gpu=gpu,
        precision=draw(st.sampled_from(acc.precisions)),
        pricing=pricing,
        # who sells: the two seller groups, which price every accelerator (a named provider may list none)
        seller=draw(st.sampled_from(("specialist", "hyperscaler"))) if not pricing.startswith("hyperscaler_")
        else "hyperscaler",
        region=region,
        mfu=draw(st.none() | st.floats(0.05, 0.8)),
        training_kind=draw(st.sampled_from(TRAINING_KINDS)),
        lora_trainable_fraction=draw(st.floats(1e-4, 1.0)),
        experiments_multiplier=draw(st.sampled_from([1.0, 1.5, 3.0])),
        checkpoints_kept=draw(st.sampled_from([0.0, 3.0])),
        team_headcount=draw(st.sampled_from([None, 0.0, 20.0])),
        team_loaded_usd_per_year=250000.0,
        data_usd_per_1m_tokens=draw(st.sampled_from([0.0, 0.01])),
        project_months=draw(st.none() | st.floats(0.5, 24.0)),
        currency=draw(st.sampled_from(["USD", "CNY"])),
    )
    if draw(st.booleans()):
        kw["architecture"] = "moe"
        how = draw(st.sampled_from(["active_params", "experts", "default"]))
        if how == "active_params":
            kw["active_params"] = max(1e5, params * draw(log_uniform(0.01, 1.0)))
        elif how == "experts":
            experts = draw(st.sampled_from([8, 16, 64, 256]))
            kw.update(experts=experts, top_k=draw(st.integers(1, 8)))
    if draw(st.booleans()):
        kw.update(n_layers=draw(st.integers(1, 128)), d_model=draw(st.sampled_from([512, 4096, 16384])),
                  seq_len=draw(st.sampled_from([2048, 8192, 131072])))
    use_deadline = draw(st.booleans()) if mode is None else mode == "deadline"
    if use_deadline:
        kw.update(gpus=None, deadline_days=draw(log_uniform(0.1, 3650.0)))
    else:
        kw["gpus"] = int(draw(log_uniform(1, MAX_GPUS)))
    return Scenario(**kw)


#: Scenario files built to exhaust a parser (huge integers, deep nesting, megabytes of text).
HOSTILE_JSON = {
    "400-digit integer": '{"params": 1' + "0" * 400 + "}",
    "5,000-digit integer": '{"params": 1' + "0" * 5000 + "}",
    "100,000 nested lists": "[" * 100_000 + "]" * 100_000,
    "40,000 nested lists": "[" * 40_000 + "]" * 40_000,
    "2 MB of text": '{"gpu": "' + "x" * 2_000_000 + '"}',
}


def examples(n: int) -> int:
    """How many examples a property test that asks for ``n`` runs under the loaded hypothesis profile.

    ``n`` under the "ci" profile (100 examples by default, tests/conftest.py), a tenth of it (at least 5)
    under "fast": ``max(5, round(n * profile_max_examples / 100))``.
    """
    return max(5, round(n * settings.default.max_examples / 100))
