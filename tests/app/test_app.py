"""Headless tests of the explorer app: set control values, assert on state, text and figure data.

No kernel is needed: ipywidgets 8 builds widgets without one.
"""

from __future__ import annotations

import numpy as np
import pytest

from explorer import Scenario, estimate
from explorer.model import COST_DIMENSIONS


def _bar_amounts(app):
    """What the breakdown bars show, in the scenario's currency."""
    return np.array([bar.get_width() for bar in app.breakdown.bars]) * app.breakdown.scale


def _marker_y(app):
    return float(np.asarray(app.history_fig.history_handles.scenario_marker.get_ydata())[0])


def test_required_controls_and_summary_class(app):
    for name in ("params", "tokens", "precision", "architecture", "gpu", "gpus", "mfu", "pricing", "region",
                 "currency", "language"):
        assert name in app.controls, name
    assert "explorer-summary" in app.summary._dom_classes
    assert isinstance(app.scenario, Scenario)
    # the summary reports the estimate's own numbers
    assert f"{app.estimate.gpus:,}" in app.summary.value


def test_charts_start_with_loadable_images(make_app):
    # a canvas drawn before any browser attached must carry a data: URL the browser can load
    # (undrawn ones have none and are drawn when the browser asks)
    fresh = make_app()
    urls = [fig.canvas._data_url for fig in (fresh.breakdown.figure, fresh.waterfall.figure, fresh.history_fig)]
    assert urls[0] is not None  # the visible breakdown is drawn at start
    assert all(url is None or url.startswith("data:image/png;base64,") for url in urls)


def test_sliders_do_not_update_continuously(app):
    import ipywidgets as w

    sliders = [c for c in app.controls.values() if isinstance(c, (w.FloatSlider, w.FloatLogSlider, w.IntSlider))]
    assert sliders and all(s.continuous_update is False for s in sliders)


def test_model_size_changes_summary_figure_and_marker(app):
    before_summary, before_amounts = app.summary.value, _bar_amounts(app)
    before_run = app.estimate.final_run_usd
    before_marker = _marker_y(app)
    app.controls["params"].value = app.scenario.params * 4
    assert app.error == ""
    assert app.estimate.total_usd == pytest.approx(estimate(app.scenario).total_usd, rel=1e-12)
    assert app.estimate.final_run_usd > before_run * 3  # the run's machine cost is compute: ~4x
    assert app.summary.value != before_summary
    assert not np.allclose(_bar_amounts(app), before_amounts)
    assert app.breakdown.value_texts[0].get_text() != ""
    assert _marker_y(app) != before_marker
    # the bar of each dimension holds that dimension's cost
    for bar, d in zip(app.breakdown.bars, COST_DIMENSIONS):
        assert bar.get_width() * app.breakdown.scale == pytest.approx(app.estimate.cost()[d], rel=1e-9)
    assert max(bar.get_width() for bar in app.breakdown.bars) == pytest.approx(1.0)


def test_typed_twin_sets_values_beyond_the_slider(app):
    row = app.rows["params"]
    row.twin.value = 5e12  # the slider covers the field's whole range (1M to 100T)
    assert app.scenario.params == 5e12
    assert row.widget.value == pytest.approx(5e12)


def test_fp8_on_a100_switches_to_nearest_precision_and_says_so(app):
    app.controls["gpu"].value = "h100-sxm"
    app.controls["precision"].value = "fp8"
    assert app.scenario.precision == "fp8" and app.error == ""
    app.controls["gpu"].value = "a100-80gb"  # no FP8 on an A100
    assert app.error == "" and app.scenario.gpu == "a100-80gb" and app.scenario.precision == "bf16"
    assert app.controls["precision"].value == "bf16"
    assert "FP8" in app.rows["precision"].note and "BF16" in app.rows["precision"].note
    assert "fp8" not in [v for _, v in app.controls["precision"].options]
    app.controls["precision"].value = "fp16"
    assert app.rows["precision"].note == "" and app.scenario.precision == "fp16"
    app.controls["precision"].value = "bf16"


def test_pin_baseline_and_waterfall_steps(app):
    app.set_scenario(Scenario())
    app.pin_baseline()
    base_total = app.estimate.total_usd
    app.controls["pricing"].value = "spot"
    steps = app.waterfall.steps(app.baseline, app.estimate)
    assert steps[0][1] == pytest.approx(base_total)
    assert steps[-1][1] == pytest.approx(app.estimate.total_usd)
    assert sum(h for _b, h in steps[1:-1]) == pytest.approx(app.estimate.total_usd - base_total)
    # the bars show the steps
    heights = [bar.get_height() * app.waterfall.scale for bar in app.waterfall.bars]
    assert heights == pytest.approx([h for _b, h in steps])
    assert steps[1][1] < 0  # compute got cheaper on spot


def test_controls_accept_the_scenario_fields_whole_range(app):
    from explorer.app.controls import NumberBox
    from explorer.scenario import field_spec

    for name in ("params", "tokens", "gpus"):
        slider, spec = app.rows[name].widget, field_spec(name)
        assert (10 ** slider.min, 10 ** slider.max) == pytest.approx((spec["min"], spec["max"])), name
        assert not hasattr(app.rows[name].twin, "max"), name  # the typed twin clamps nothing
    for name in ("lora_trainable_fraction", "checkpoints_kept"):
        # a number box without bounds (issue 9: it shows "7B", takes "1.5T", clamps nothing)
        assert isinstance(app.controls[name], NumberBox) and not hasattr(app.controls[name], "max"), name
    # the team is an optional box now: blank = the default that follows the run (issue 25 item 2)
    assert not hasattr(app.controls["team_headcount"], "max")
    assert app.scenario.team_headcount is None
    widget, spec = app.controls["mfu"], field_spec("mfu")
    assert (widget.min, widget.max) == (spec["min"], spec["max"])


def test_values_beyond_the_sliders_survive_other_changes(make_app):
    a = make_app("mfu=0.95&experiments_multiplier=50")
    total = a.estimate.total_usd
    assert a.scenario.mfu == 0.95 and a.scenario.experiments_multiplier == 50
    a.controls["currency"].value = "CNY"
    a.controls["currency"].value = "USD"
    assert a.scenario.mfu == 0.95 and a.scenario.experiments_multiplier == 50
    assert a.estimate.total_usd == pytest.approx(total)


def test_fields_without_a_control_survive_a_refresh(app):
    s = Scenario(params=30e9, tokens=1e12, n_layers=48, d_model=7168, seq_len=8192, checkpoint_write_minutes=3.0,
                 architecture="moe", experts=64, top_k=4)
    app.set_scenario(s)
    flop = app.estimate.train_flop
    app.controls["currency"].value = "CNY"
    app.controls["currency"].value = "USD"
    kept = app.scenario
    assert (kept.n_layers, kept.d_model, kept.seq_len, kept.checkpoint_write_minutes) == (48, 7168, 8192, 3.0)
    assert app.estimate.train_flop == pytest.approx(flop)
    app.set_scenario(Scenario())


def test_unknown_price_reads_unknown_in_both_charts(app):
    app.set_scenario(Scenario(pricing="owned"))
    app.pin_baseline()
    app.controls["region"].value = "jp"  # no sourced electricity price for Japan, nor a national average
    assert app.error == ""
    assert app.breakdown.value_texts[1].get_text() == "unknown"  # energy
    texts = [t.get_text() for t in app.waterfall.texts]
    assert texts[2] == "unknown" and texts[-1] == "unknown"  # energy change and the current total
    assert not any(t.startswith("-$") for t in texts)
    assert any("No sourced electricity price" in w for w in app.estimate.warnings)
    app.set_scenario(Scenario())


def test_history_marker_shows_the_final_run_not_the_project(app):
    app.set_scenario(Scenario(team_headcount=50, team_loaded_usd_per_year=300_000, experiments_multiplier=2.0))
    e = app.estimate
    run = e.cost_usd["compute"] + e.cost_usd["energy"] + e.cost_usd["hardware"] + e.details_usd["restart_loss"]
    assert _marker_y(app) == pytest.approx(run)
    assert run < e.total_usd / 2  # people and experiments are not on the curve
    app.set_scenario(Scenario())
