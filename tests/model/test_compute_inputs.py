"""compute()'s inputs are declared once (explorer.model.inputs): its signature and docstring are made from the
declaration, and the callers that build every input (resolve, the analysis's compose_inputs) give exactly those."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from explorer import Scenario
from explorer.analysis.levers import lever_atoms, compose_inputs
from explorer.model import compute
from explorer.model.inputs import COMPUTE_INPUTS, INPUT_NAMES, REQUIRED, compute_inputs
from explorer.model.resolve import resolve
from explorer.presets import presets

SCENARIOS = [p.scenario for p in presets().values()] + [
    Scenario(pricing="owned"), Scenario(architecture="moe", experts=8, top_k=2, training_kind="lora"),
    Scenario(gpus=None, deadline_days=30.0, pricing="spot", recovery="in_memory"),
]


def test_the_signature_is_the_declaration_in_order_with_its_defaults():
    params = inspect.signature(compute).parameters
    assert tuple(params) == INPUT_NAMES == tuple(s.name for s in COMPUTE_INPUTS)
    assert len(set(INPUT_NAMES)) == len(INPUT_NAMES)
    for spec in COMPUTE_INPUTS:
        p = params[spec.name]
        assert p.kind is inspect.Parameter.KEYWORD_ONLY
        if spec.default is REQUIRED:
            assert p.default is inspect.Parameter.empty
        else:  # NaN defaults compare as NaN
            assert p.default == spec.default or (math.isnan(p.default) and math.isnan(spec.default))
    # the five a model cannot guess: size, tokens, hardware speed and its use
    assert {s.name for s in COMPUTE_INPUTS if s.default is REQUIRED} == {
        "params", "active_params", "tokens", "peak_flop_per_s", "mfu"}


def test_the_docstring_documents_every_input_once_with_its_unit():
    doc = compute.__doc__
    for spec in COMPUTE_INPUTS:
        assert doc.count(f"\n    {spec.name} : array_like") == 1, spec.name
        assert spec.unit == "bool" or f"[{spec.unit}]" in doc, spec.name
    assert "{parameters}" not in doc


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: f"{s.gpu}-{s.pricing}-{s.architecture}")
def test_resolve_and_the_analysis_give_exactly_the_declared_inputs(scenario):
    assert sorted(resolve(scenario).inputs) == sorted(INPUT_NAMES)
    assert sorted(compose_inputs(lever_atoms(scenario))) == sorted(INPUT_NAMES)


def test_an_input_declared_but_not_given_is_named_and_an_unknown_one_refused():
    given = dict(resolve(Scenario()).inputs)
    del given["pue"]
    with pytest.raises(TypeError, match=r"missing inputs \['pue'\]"):
        compute_inputs(given)
    assert compute_inputs(given, complete=False)["pue"] == 1.0  # a call of compute: the declared default
    with pytest.raises(TypeError, match=r"unexpected inputs \['pue_typo'\]"):
        compute(**given, pue_typo=1.2)
    with pytest.raises(TypeError, match=r"missing inputs \['mfu'\]"):
        compute(params=7e9, active_params=7e9, tokens=1e12, peak_flop_per_s=989e12)


def test_compute_of_the_declared_defaults_is_compute_of_no_optional_input():
    """Only the required inputs: the result of giving every declared default explicitly, by hand (6 N D FLOP)."""
    required = dict(params=7e9, active_params=7e9, tokens=1e12, peak_flop_per_s=1e15, mfu=0.5, gpus=64.0)
    out = compute(**required)
    explicit = compute(**{s.name: s.default for s in COMPUTE_INPUTS if s.default is not REQUIRED} | required)
    assert out.keys() == explicit.keys()
    for k in out:
        np.testing.assert_array_equal(out[k], explicit[k])
    assert float(out["train_flop"]) == 6 * 7e9 * 1e12
    # no failures, no losses: GPU-hours = C / (P u 3600)
    assert float(out["gpu_hours"]) == pytest.approx(6 * 7e9 * 1e12 / (1e15 * 0.5 * 3600), rel=1e-12)
