"""The Plan tab (issue 27): "What can I train for $5M?", built when first opened, checked by hand.

Hand calculation (final run, a typed rate r, MFU u, no failures, no other losses, a sequence of 16 tokens so
the attention term 12·L·d·s per token is below 0.1% of 6·N): the run costs
6·N·(20·N) / (P·u·3600) GPU-hours × r, so the largest N a budget B pays for is N = sqrt(B·P·u·3600 / (120·r)).
P is the catalog's dense BF16 peak of the H100 SXM (989.5 TFLOP/s, NVIDIA's datasheet).
"""

from __future__ import annotations

import math
import re

import pytest

from explorer import Scenario, catalog
from explorer.app.tabs.plan import parse_deadline
from explorer.errors import ScenarioError
from explorer.plots.plan import PlanCurvePlot

_PLAN = 8  # index of the Plan tab (explorer_app.TAB_KEYS)

HAND = dict(gpu="h100-sxm", precision="bf16", mfu=0.4, rate_usd_per_gpu_hour=2.0, failure_rate_per_gpu_hour=0.0,
            other_losses_factor=1.0, seq_len=16, gpus=1024)


def _hand_params(budget_usd: float, rate: float = 2.0, mfu: float = 0.4) -> float:
    peak = catalog.accelerator("h100-sxm").peak_tflops["bf16"] * 1e12
    return math.sqrt(budget_usd * peak * mfu * 3600 / (120 * rate))


def _open_plan(app):
    app.tabs.selected_index = _PLAN
    assert app._tab_key() == "plan"
    return app.plan_view


def test_the_tab_is_built_only_when_opened(make_app):
    app = make_app()
    assert not app.plan_view.built and app.plan_view.widget.children == ()
    view = _open_plan(app)
    assert view.built and view.plan is not None and view.plan.scenario is not None
    assert app.error == ""


def test_five_million_dollars_on_the_final_run_matches_the_hand_calculation(make_app):
    app = make_app()
    assert app.set_scenario(Scenario(**HAND))
    view = _open_plan(app)
    view.scope.value = "final_run"
    view.budget_box.value = "5M"
    p = view.plan
    expected = _hand_params(5e6)  # 1.72e11: a 172B model on 3.4T tokens
    assert p.params == pytest.approx(expected, rel=2e-3)  # the bisection stops at 0.1%
    assert p.tokens == pytest.approx(20 * p.params)
    gpu_hours = 6 * p.params * p.tokens / (catalog.accelerator("h100-sxm").peak_tflops["bf16"] * 1e12 * 0.4 * 3600)
    assert p.estimate.final_run_usd == pytest.approx(2.0 * gpu_hours, rel=1e-3)
    # the plan picks its cluster (issue 38): the run ends within the longest published final run, 118 days
    assert p.estimate.wall_days == pytest.approx(gpu_hours / (24 * p.estimate.gpus), rel=1e-3)
    assert p.estimate.wall_days <= 118.24 * (1 + 1e-9)
    assert p.limited_by == "budget"
    # what the tab shows: the size, the tokens, the cluster, both costs
    text = view.result.value
    assert round(expected / 1e9) == 172 and "172B parameters" in text
    assert f"{p.estimate.gpus:,} × NVIDIA H100 SXM5 80GB" in text


def test_the_budget_is_read_as_typed_and_refused_beside_the_box(make_app):
    app = make_app()
    view = _open_plan(app)
    good = view.plan
    for bad in ("abc", "-5M", "0", "1e1000000"):
        view.budget_box.value = bad
        assert "explorer-message" in view.message.value, bad
        assert view.plan is good  # the last good plan stays
    view.budget_box.value = "10M"
    assert view.message.value == "" and view.plan.budget_usd == 10e6
    assert view.plan.params > good.params  # a larger budget, a larger model (monotone)


def test_deadline_and_gpu_cap_limit_the_plan(make_app):
    app = make_app()
    view = _open_plan(app)
    view.budget_box.value = "1B"
    view.deadline_box.value = "30"
    view.cap_box.value = "2048"
    p = view.plan
    assert p.scenario is not None and p.estimate.gpus <= 2048 and p.estimate.wall_days <= 30 * 1.0001
    assert p.limited_by in ("deadline", "gpu_cap", "budget")
    view.deadline_box.value = "next june"
    assert "explorer-message" in view.message.value and view.plan is p


def test_parse_deadline_reads_days_and_dates():
    import datetime as dt

    assert parse_deadline("90") == 90.0
    assert parse_deadline("2027-06-30", dt.date(2027, 1, 1)) == 180.0  # Jan 1 to Jun 30: 31+28+31+30+31+29
    assert parse_deadline("") is None
    for bad in ("2020-01-01", "-3"):  # the field, the refused text and what is allowed
        with pytest.raises(ScenarioError, match=rf"^deadline: '{re.escape(bad)}' is not allowed; allowed: days"):
            parse_deadline(bad, dt.date(2026, 1, 1))
    with pytest.raises(ValueError, match="soon"):  # not a number at all: the number parser's refusal
        parse_deadline("soon", dt.date(2026, 1, 1))


def test_accelerator_and_price_basis_override_the_scenario(make_app):
    app = make_app()
    view = _open_plan(app)
    view.gpu.value = "a100-80gb"
    view.pricing.value = "spot"
    assert view.plan.scenario.gpu == "a100-80gb" and view.plan.scenario.pricing == "spot"
    assert app.scenario.gpu == "h100-sxm"  # the app's scenario is not touched until "Use this plan"


def test_use_this_plan_loads_it_into_the_app(make_app):
    app = make_app()
    view = _open_plan(app)
    view.budget_box.value = "20M"
    planned = view.plan.scenario
    view.use_button.click()
    # the size as a person types it (issue 41): three significant digits, rounded down, e.g. 131.79B -> 131B
    typed = planned.replace(params=float(f"{planned.params:.3g}") if float(f"{planned.params:.3g}") <= planned.params
                            else float(f"{planned.params:.3g}") - 10 ** (len(f"{int(planned.params)}") - 3))
    assert app.scenario.params == typed.params and app.scenario.params <= planned.params
    assert app.scenario.replace(params=planned.params, tokens=planned.tokens) == planned
    assert app._tab_key() == "breakdown"
    assert app.controls["params"].value == app.scenario.params


def test_a_preset_shape_does_not_leak_into_the_plan(make_app):
    app = make_app(query_string="preset=deepseek_v3")
    assert app.scenario.n_layers is not None
    view = _open_plan(app)
    base = view.base()
    assert base.n_layers is None and base.d_model is None and base.active_params is None


def test_chinese_labels(make_app):
    app = make_app(query_string="lang=zh")
    view = _open_plan(app)
    assert view.use_button.description == "采用此方案"
    assert "模型规模" in view.result.value
    assert app.tabs.titles[_PLAN] == "预算规划"


def test_curve_marks_the_budget():
    import numpy as np
    import pandas as pd

    plot = PlanCurvePlot()
    curve = pd.DataFrame({"budget_usd": [1e5, 1e6, 1e7], "params": [1e9, 3e9, np.nan]})
    plot.update(curve, 5e6, 2e9, "USD", 1.0, draw=False)
    assert list(plot.line.get_xdata()) == [1e5, 1e6]  # a budget without a plan is left out
    assert plot.budget_line.get_xdata()[0] == 5e6 and plot.point.get_visible()
    plot.update(curve, 5e6, None, "CNY", 7.0, draw=False)
    assert not plot.point.get_visible() and plot.budget_line.get_xdata()[0] == 35e6


def test_in_yuan_the_budget_box_takes_yuan_with_its_sign(make_app):
    """¥70.84M in a CNY box is $10M at the data's 7.084 CNY/USD (defaults.csv); a $ amount is refused there."""
    app = make_app("currency=CNY")
    view = _open_plan(app)
    for typed in ("¥70.84M", "7084万", "70,840,000"):
        view.budget_box.value = typed
        assert view.message.value == "", typed
        assert view.plan.budget_usd == pytest.approx(10e6, rel=1e-9), typed
    good = view.plan
    view.budget_box.value = "$10M"
    assert "explorer-message" in view.message.value and view.plan is good
