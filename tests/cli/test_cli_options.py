"""The CLI's scenario options are generated from the Scenario's fields (docs/architecture.md: "the app, the query
string and the CLI all read [a field's range] from field_spec"): one option per field, each landing in its field."""

from __future__ import annotations

import dataclasses
import math

import pytest

from explorer import Scenario, catalog
from explorer.cli import _ALIASES, _parser, _scenario_from_args
from explorer.scenario import field_spec

FIELDS = [f.name for f in dataclasses.fields(Scenario)]
#: fields that need a partner to be valid
PARTNERS = {"n_layers": {"d_model": 4096}, "d_model": {"n_layers": 32}, "top_k": {"experts": 64},
            "active_params": {"architecture": "moe"}, "active_fraction": {"architecture": "moe"},
            "experts": {"architecture": "moe"}}


def _sample(name: str):
    """A valid value of ``name`` other than its default, chosen from the field's own range or choices."""
    spec, default = field_spec(name), Scenario().__getattribute__(name)
    if name == "gpu":
        return "a100-80gb"
    if name == "region":
        return next(r for r in catalog.regions() if r != default)
    if name == "price_date":
        return "2024-06"  # a month of the price table (explorer.prices.check_price_date)
    if spec.get("kind") == "choice":
        return next(c for c in spec["choices"] if c != default)
    lo, hi = spec["min"], spec["max"]
    value = math.sqrt(max(lo, 1e-3) * hi) if hi / max(lo, 1e-3) > 1e3 else (lo + hi) / 2
    if name == "active_params":
        value = 1e9  # at most params (7e9)
    if name in ("n_layers", "d_model", "experts", "top_k", "gpus", "seq_len", "zero_stage", "pipeline_parallel"):
        value = {"n_layers": 32, "d_model": 4096, "experts": 64, "top_k": 8, "gpus": 512, "seq_len": 8192,
                 "zero_stage": 1, "pipeline_parallel": 4}[name]
    return value


def _option(name: str) -> str:
    return "--" + _ALIASES.get(name, name).replace("_", "-")


def test_every_scenario_field_has_one_option():
    parser = _parser()
    estimate = next(a for a in parser._subparsers._group_actions[0].choices.values() if a.prog.endswith("estimate"))
    flags = {s for a in estimate._actions for s in a.option_strings}
    assert {_option(n) for n in FIELDS} <= flags
    assert len({_option(n) for n in FIELDS}) == len(FIELDS)


@pytest.mark.parametrize("name", FIELDS)
def test_each_option_sets_its_field(name):
    value = _sample(name)
    argv = ["estimate", _option(name), str(value)]
    for partner, v in PARTNERS.get(name, {}).items():
        argv += [_option(partner), str(v)]
    s = _scenario_from_args(_parser().parse_args(argv))
    got = getattr(s, name)
    assert got == pytest.approx(value) if isinstance(value, float) else got == value, (name, got, value)


def test_numbers_are_read_as_the_boxes_read_them_and_refused_by_range():
    s = _scenario_from_args(_parser().parse_args(["estimate", "--params", "70B", "--gpus", "2,048"]))
    assert (s.params, s.gpus) == (70e9, 2048)
    with pytest.raises(SystemExit) as exit_:
        _parser().parse_args(["estimate", "--gpus", "8", "--days", "30"])  # a cluster or a deadline, not both
    assert exit_.value.code == 2


def test_help_shows_each_fields_option_with_its_range_or_choices(capsys):
    """Every Scenario field has an option in ``estimate --help``, with the range of its field_spec (a number) or
    its choices (a choice), as the user reads them; argparse wraps lines, so runs of spaces are joined."""
    with pytest.raises(SystemExit) as exit_:
        _parser().parse_args(["estimate", "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for name in FIELDS:
        spec = field_spec(name)
        assert _option(name) + " " in text, name
        if spec.get("kind") in ("float", "int"):
            shown = f"{'(' if spec['lo_open'] else '['}{spec['min']:g}, {spec['max']:g}]"
            assert shown in text, (name, shown)
        elif spec.get("kind") == "choice":
            assert "{" + ",".join(spec["choices"]) + "}" in text, name


def test_a_value_out_of_its_range_exits_2_naming_the_field_and_the_range(capsys):
    """The refusal of an option's value comes from the Scenario's own range: one line, exit code 2."""
    from explorer.cli import main

    spec = field_spec("mfu")
    assert main(["estimate", "--mfu", "1.5"]) == 2
    err = capsys.readouterr().err
    assert "mfu" in err and "1.5" in err and f"{spec['max']:g}" in err and "Traceback" not in err
