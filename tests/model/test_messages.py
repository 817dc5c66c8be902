"""Warnings and errors as ids with parameters (explorer.messages): every id renders in English and Chinese,
the Chinese has no English words left, every id in the code is in the table and every table row is used."""

from __future__ import annotations

import copy
import json
import math
import pathlib
import pickle
import re

import pytest

from explorer import Scenario, ScenarioError, catalog, estimate, prices
from explorer.messages import Message, message_ids, render, table
from explorer.model.resolve import reference_precision

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Latin words a Chinese message may keep: units, product and model names, acronyms of the field, authors.
ALLOWED_LATIN = {
    "gpu", "gpus", "mfu", "flop", "tflop", "usd", "kwh", "gb", "tdp", "dgx", "h100", "a100", "tpu", "moe", "co2",
    "json", "utf-8", "fp8", "fp4", "bf16", "fp16", "fp32", "tf32", "korthikanti", "sxm", "gaudi2", "pcie",
    "token", "epoch", "ai", "index",  # a loanword of the labels (训练 token 数); the history's sources
    "m", "b", "t", "k",  # the boxes' suffixes: 1M, 100T
    "pue", "s", "ln", "cottier",  # assumptions: PUE, the s of TFLOP/s, ln(10) of Epoch's rule; an author
    "bis", "eccn", "fr", "doc",  # a US rule cited as it is published (BIS, ECCN 3A090, 87 FR 62186, FR Doc.)
}
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[0-9A-Za-z]+)*")

#: Parameters for every message id, as the code passes them (numbers raw, ids and names as the catalogs hold them).
SAMPLES: dict[str, dict] = {
    "allowed_model_row": dict(example="'run:GPT-3 175B (davinci)'"),
    "error_not_allowed": dict(field="params", value=250000.0, allowed=Message("allowed_range", lo=1e6, hi=1e14,
                                                                                 bracket="[")),
    "allowed_number": {},
    "allowed_number_or_blank": {},
    "allowed_range": dict(lo=1e6, hi=1e14, bracket="["),
    "allowed_whole_range": dict(lo=1, hi=1e7, bracket="["),
    "allowed_required": {},
    "allowed_choices": dict(choices=["on_demand", "spot", "owned"], field="pricing"),
    "allowed_id": {},
    "allowed_not_bool": {},
    "allowed_precision": dict(choices=["bf16", "fp8"], gpu="H100 SXM"),
    "allowed_gpus_or_deadline": dict(a="gpus", b="deadline_days"),
    "allowed_at_most_experts": dict(experts=8),
    "allowed_at_most_params": dict(params=7e9),
    "allowed_shape_pair": {},
    "allowed_field_choices": dict(names=["params", "tokens", "precision"]),
    "allowed_json_object": {},
    "allowed_scenario_field": dict(names=["params", "tokens", "gpu"]),
    "allowed_json_text": {},
    "allowed_json_size": dict(limit=100_000),
    "allowed_json_valid": dict(detail="Expecting value", line=1),
    "allowed_json_depth": {},
    "allowed_json_digits": {},
    "allowed_readable_file": dict(reason="No such file or directory"),
    "allowed_repeat_same_count": dict(options=["params", "tokens"]),
    "allowed_utf8_file": {},
    "allowed_cloud_basis": dict(choices=["on_demand", "reserved_1y", "spot"], field="pricing"),
    "allowed_catalog_row": {},
    "allowed_date": {},
    "allowed_one_per_year": dict(n=5),
    "allowed_positive_costs": {},
    "allowed_distinct_dates": dict(n=3),
    "allowed_fittable_method": dict(choices=["amortized", "cloud"], n=3, field="history_method"),
    "allowed_between_0_1": {},
    "allowed_cost_or_none": {},
    "allowed_year": {},
    "allowed_history_figure": {},
    "allowed_at_least_one_scenario": {},
    "allowed_scenario_objects": {},
    "allowed_a_scenario": {},
    "allowed_names_per_scenario": dict(n=3),
    "allowed_distinct_names": {},
    "allowed_finite_total": {},
    "allowed_uncertain_input": dict(choices=["accelerator_price", "mfu", "spot_discount"], field="unc"),
    "allowed_low_high": {},
    "allowed_draws": dict(limit=1_000_000),
    "allowed_seed": dict(limit=2**32 - 1),
    "allowed_budget": {},
    "allowed_plan_budget": {},
    "allowed_plan_deadline": {},
    "allowed_gpu_cap": {},
    "allowed_value_per_lever": {},
    "allowed_combinations": dict(limit=1000),
    "value_characters": dict(n=100_001),
    "value_count": dict(n=4),
    "value_nonpositive": {},
    "value_deadline_unmet": {},
    "value_cost_undefined": {},
    "whatif_deadline_unmet": {},
    "budget_status_disagrees": dict(share=0.98, median_offset=0.04),
    "budget_status_at_risk": dict(share=0.97, p=0.31, threshold=0.2),
    "app_error": dict(kind="ZeroDivisionError", detail="float division by zero"),
    "deadline_unreachable": dict(max_gpus=100_000.0),
    "deadline_too_many_gpus": dict(gpus=250_000.0, max_gpus=100_000.0),
    "plan_nothing_fits": dict(params=1e6, tokens=2e7),
    "moe_active_spread": dict(n=5, lo=0.58, hi=1.52, share_lo=0.03, share_hi=0.08),
    "plan_cluster_binds": dict(days=118.24, gpus=100_000.0, cost=9.2e9, budget=1e10),
    "plan_moe_split": dict(tokens_per_param=20.0),
    "deadline_impossible": dict(gpus=90_000.0, days=1.23),
    "infeasible_no_money": dict(gpus=100_000.0, days=15.26),
    "infeasible_no_alternative": dict(max_gpus=100_000.0),
    "run_too_long": dict(years=57_700.0, max_years=5.0),
    "state_fits_no_cluster": dict(floor=125_000.0, gpu="H100 SXM", max_gpus=100_000.0),
    "batch_beyond_critical": dict(gpus=200_000.0, batch=102_400_000.0, critical=7_706_429.0, ratio=13.3, factor=2.0,
                                  steps=9766.0),
    "infeasible_nearest": dict(gpus=17.0, days=320.0, max_years=5.0),
    "layout_idle_gpus": dict(idle=29.0, gpus=1021.0, replicas=31.0, group=32.0, share=29 / 1021, used=992.0,
                             factor=1021 / 992),
    "layout_idle_next": dict(next=1040.0, tp=8.0, pp=10.0, dp=13.0),
    "gpus_beyond_known": dict(gpus=200_000.0, max_gpus=100_000.0),
    "goodput_zero": {},
    "goodput_low": dict(goodput=0.67, lost=0.33, limit=0.2),
    "gpus_set_by_memory": dict(gpus=64.0, gpu="H100 SXM"),
    "activations_do_not_fit": dict(activation_gb=120.0, gpu="H100 SXM", recompute="none", memory_gb=80.0),
    "memory_short": dict(floor=64.0, gpu="H100 SXM", memory_gb=80.0, recompute="selective", gpus=8.0),
    "owned_rate_ignored": {},
    "moe_settings_ignored": {},
    "spot_large": dict(gpus=20_000.0),
    "precision_no_speedup": dict(precision="FP8", gpu="A100 80GB", reference="BF16"),
    "fp4_speedup_upper_bound": dict(speedup=1.6),
    "mfu_outside_range": dict(mfu=0.9, lo=0.15, hi=0.55),
    "moe_active_lower_bound": {},
    "mfu_unmeasured": dict(gpu="Gaudi2", mfu=0.38),
    "full_recompute_mfu": {},
    "labelled_examples_free": dict(n=10_000.0),
    "price_estimated": dict(what="purchase price", gpu="Gaudi2", value=12000.0, unit="USD", peer="A100 80GB"),
    "cloud_price_unknown": dict(gpu="Gaudi2"),
    "market_price_estimated": dict(gpu="Gaudi2", rate=1.5),
    "seller_price_unknown": dict(gpu="TPU v4", seller="Lambda Labs"),
    "committed_price_estimated": dict(gpu="H100 SXM", rate=2.8, years=1),
    "market_price_derived": dict(gpu="NVIDIA H800 SXM5 80GB", rate=2.72, n=1.0, reference="NVIDIA H100 SXM5 80GB"),
    "compare_price_caveat": dict(gpu="NVIDIA H800 SXM5 80GB", bases=["on_demand"], caveat="derived", n=1.0,
                                 field="pricing"),
    "purchase_price_unknown": dict(gpu="Gaudi2"),
    "tdp_unknown": dict(gpu="Gaudi2"),
    "server_power_factor_fallback": dict(gpu="Gaudi2", factor=1.82),
    "grid_carbon_unknown": dict(region="Japan (Tokyo)"),
    "electricity_price_from_peer": dict(region="Japan (Tokyo)", price=0.17, peer="Japan"),
    "electricity_price_unknown": dict(region="Japan (Tokyo)"),
    "team_pay_us_default": dict(usd=444_000.0, country="Japan"),
    "team_beyond_data": dict(people=1620.0, largest=3.8e25, flop=1e27),
    "allowed_price_date": dict(first="2017-11"),
    "assumption_epoch_value": dict(gpu="v100", start="2020-05-31"),
    "assumption_source_epoch_value": dict(price=11458.0, acquired="2018-09-29", years=1.67),
    "assumption_source_epoch_no_hosting": {},
    "moe_active_defaulted": dict(share=0.204, active=14.3e9, params=70e9),
    "people_largest": dict(share=0.61, headcount=8.0, months=7.14),
    "people_largest_default": dict(share=0.75, headcount=4.09, months=7.14),
    "bases_differ": dict(gpus=["H100 SXM", "MI300X"], bases=["on_demand", "spot"], field="pricing"),
    # assumption names (explorer.model.Assumption) and the sources in the model's own words
    "models_missing": dict(fields=["params", "tokens"]),
    "assumption_named": dict(name="mfu_dense"),
    "assumption_derived_shape": dict(name="n_layers"),
    "assumption_derived_shape_moe": dict(name="d_model"),
    "assumption_weight_bytes": dict(precision="bf16"),
    "assumption_activation_bytes_kept": dict(precision="fp4", kept="fp8"),
    "assumption_activation_bytes_16bit": dict(precision="fp4", kept=""),
    "assumption_recompute": {},
    "assumption_price_estimated": dict(what="purchase price", gpu="gaudi2"),
    "assumption_cloud_price": dict(basis="on_demand", gpu="h100-sxm"),
    "assumption_cloud_price_estimated": dict(basis="spot", gpu="gaudi2"),
    "assumption_cloud_price_derived": dict(basis="reserved_1y", gpu="a100-80gb"),
    "assumption_seller_price": dict(seller="hyperscaler", basis="on_demand", gpu="h100-sxm"),
    "assumption_seller_price_estimated": dict(seller="Lambda Labs", basis="reserved_1y", gpu="h100-sxm"),
    "assumption_seller_price_derived": dict(seller="CoreWeave", basis="spot", gpu="a100-80gb"),
    "assumption_purchase_price": dict(gpu="b200", basis="system"),
    "assumption_server_overhead_system": dict(gpu="b200"),
    "assumption_hosting": dict(gpu="h100-sxm"),
    "assumption_system_power": dict(gpu="tpu-v5p"),
    "assumption_tdp": dict(gpu="h100-sxm"),
    "assumption_server_power_factor": dict(gpu="h100-sxm"),
    "assumption_pue_region": dict(region="jp", region_name="Japan (Tokyo)"),
    "assumption_grid_carbon": dict(region="jp", region_name="Japan (Tokyo)"),
    "assumption_electricity_peer": dict(region="cn-east", region_name="China East - Shanghai / Yangtze River Delta hub",
                                        peer="China - national average", year=2024),
    "assumption_electricity": dict(region="jp", region_name="Japan (Tokyo)", year=2024),
    "assumption_peak": dict(precision="fp8", gpu="h100-sxm"),
    "assumption_active_params_moe": {},
    "assumption_source_set": {},
    "assumption_source_hosting": dict(colo=184.06, watts=1274.0),
    "assumption_source_epoch_amortization": {},
    "assumption_source_straight_line": dict(years=5.0),
    "assumption_source_peer_price": dict(peer="AMD Instinct MI300X", year=2023, price=25734.0, unit="USD",
                                         peak=1307.4, peer_peak=1307.4, precision="bf16"),
    "assumption_source_active_fraction": dict(fraction=0.055),
    "allowed_known_gpu": {},
    "allowed_known_region": {},
    "allowed_link_length": dict(limit=4096, dropped=("tab", "plan_cap")),
    "export_controlled": dict(gpu="NVIDIA H100 SXM5 80GB"),
    "allowed_vary": {},
    "share_link_too_long": dict(chars=4123, limit=4096, dropped=("tab", "plan_cap")),
}


def latin_words(text: str) -> list[str]:
    """Latin words of ``text`` beyond :data:`ALLOWED_LATIN`, accelerator names, names with a digit (MI300X)
    and exception class names (ZeroDivisionError)."""
    text = re.sub(r"'[^']*'", "", text)  # a refused value is quoted as typed
    for acc in catalog.accelerators().values():  # accelerator names as their makers write them
        text = text.replace(acc.name, "")
    for provider in prices.PROVIDERS.values():  # cloud providers' names, as they write them (issue 27's seller)
        text = text.replace(provider[0], "")
    return [w for w in _LATIN.findall(text)
            if w.lower() not in ALLOWED_LATIN and not re.search(r"\d", w) and not w.endswith("Error")]


def refusal_parts(zh: str) -> tuple[str, str]:
    """The field label and what is allowed of a Chinese refusal (the refused value, as given, left out)."""
    field, _, rest = zh.partition("：")
    return field, rest.partition("不可用；允许：")[2]


def test_every_id_has_sample_parameters():
    assert set(SAMPLES) == set(message_ids())


@pytest.mark.parametrize("msg_id", message_ids())
def test_every_message_renders_in_both_languages(msg_id):
    m = Message(msg_id, **SAMPLES[msg_id])
    texts = [str(m), m.render("en"), m.render("zh")]
    for text in texts:
        assert text and "{" not in text and "}" not in text, (msg_id, text)
    zh = m.render("zh")
    assert re.search(r"[\u4e00-\u9fff]", zh), zh
    assert not latin_words(zh), (msg_id, zh, latin_words(zh))
    assert not re.search(r"[\u4e00-\u9fff]", m.render("en")), m.render("en")


def test_every_id_in_the_code_is_in_the_table_and_every_row_is_used():
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "explorer").rglob("*.py")
                       if p.name != "messages.py")
    called = set(re.findall(r'Message\(\s*"([a-z0-9_]+)"', source))
    assert called and called <= set(table()), called - set(table())
    quoted = set(re.findall(r'"([a-z0-9_]+)"', source))
    unused = set(table()) - quoted
    assert not unused, unused
    assert not (ROOT / "explorer" / "data" / "messages.csv").read_text(encoding="utf-8").startswith("pattern")


def test_a_message_is_its_english_text_and_keeps_its_id_through_copies():
    m = Message("mfu_outside_range", mfu=0.9, lo=0.15, hi=0.55)
    # the wording of the warning before it had an id
    assert m == "MFU 0.90 is outside the range seen in published runs (0.15-0.55)."
    assert m.startswith("MFU") and json.dumps([m]) == json.dumps([str(m)])
    for twin in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert twin == m and twin.id == m.id and twin.params == m.params
    assert m.render("zh") == "MFU 0.90 超出公开训练中见过的范围（0.15–0.55）。"
    assert render("plain text", "zh") == "plain text"  # no id: shown as it is


def test_an_error_names_field_value_and_allowed_in_english_and_renders_in_chinese():
    with pytest.raises(ScenarioError) as info:
        Scenario(params=250000.0)
    exc = info.value
    # the field's range in scenario.py: [1e6, 1e14] parameters
    assert str(exc) == "params: 250000.0 is not allowed; allowed: a number in [1e+06, 1e+14]"
    assert exc.allowed.id == "allowed_range" and exc.allowed == "a number in [1e+06, 1e+14]"
    assert exc.render("en") == "Model size [parameters]: 250,000 is not allowed; allowed: a number in [1M, 100T]"
    assert exc.render("zh") == "模型规模 [参数量]：25万不可用；允许：[100万, 100万亿] 内的数"  # 万/亿 (issue 41)


def test_the_reported_case_abc_in_the_model_size_is_chinese_throughout():
    with pytest.raises(ScenarioError) as info:
        Scenario(params="abc")
    assert info.value.render("zh") == "模型规模 [参数量]：'abc' 不可用；允许：数字"


@pytest.mark.parametrize("changes", [
    dict(params="abc"), dict(params=1.0), dict(gpus=3.5), dict(pricing="cheap"), dict(precision="fp2"),
    dict(gpus=None), dict(architecture="moe", experts=4, top_k=8), dict(active_params=1e13),
    dict(n_layers=32), dict(gpu="h100"), dict(region="mars"), dict(recompute=True), dict(seq_len=3),
    dict(tokens=math.inf),
])
def test_every_scenario_refusal_is_structured_and_chinese(changes):
    with pytest.raises(ScenarioError) as info:
        Scenario(**changes)
    exc = info.value
    assert isinstance(exc.allowed, Message)
    field, _, rest = str(exc).partition(": ")
    assert field == exc.field and "is not allowed; allowed: " in rest
    zh = exc.render("zh")
    field, allowed = refusal_parts(zh)
    assert field and allowed and not latin_words(field), zh
    if "gpu" not in changes and "region" not in changes:  # their choices are catalog ids
        assert not latin_words(allowed), zh


def test_json_refusals_are_structured():
    for text in ("{", "[" * 100_000, "1" * 5000, "x" * 100_001, '{"nope": 1}', "[]"):
        with pytest.raises(ScenarioError) as info:
            Scenario.from_json(text)
        assert isinstance(info.value.allowed, Message), text
        field, allowed = refusal_parts(info.value.render("zh"))
        assert field == ("nope" if "nope" in text else "场景文件") and allowed, text
        if text != '{"nope": 1}':  # that one lists every field by its label
            assert not latin_words(allowed), (text, allowed)


def _warning_scenarios():
    scenarios = [Scenario(gpu=g, precision=catalog.accelerator(g).nearest_precision("bf16"), pricing=m)
                 for g in catalog.accelerators() for m in ("on_demand", "owned")]
    scenarios += [Scenario(pricing="owned", region=r, team_headcount=3) for r in catalog.regions()]
    scenarios += [Scenario(gpus=1), Scenario(gpus=200_000, pricing="spot"), Scenario(mfu=0.9),
                  Scenario(recompute="full"), Scenario(params=2e12, tokens=1e14, gpus=None, deadline_days=30),
                  Scenario(params=2e12, tokens=1e14, gpus=None, deadline_days=1),
                  Scenario(gpu="a100-80gb", precision="fp8" if "fp8" in catalog.accelerator("a100-80gb").peak_tflops
                           else "bf16", pricing="owned", rate_usd_per_gpu_hour=2.0),
                  Scenario(active_params=1e9), Scenario(architecture="moe", experts=8, top_k=2),
                  Scenario(labelled_examples=1000, usd_per_labelled_example=0.0),
                  Scenario(seq_len=1_000_000, recompute="none", gpus=8),
                  Scenario(params=7e9, tokens=1e12, gpus=None, deadline_days=0.01),
                  Scenario(params=1e12, tokens=1e9, gpus=None, deadline_days=300),
                  # no progress at all: 5M GPUs with storage checkpoints at a high failure rate (goodput 0)
                  Scenario(gpus=5_000_000, recovery="storage", failure_rate_per_gpu_hour=1e-3),
                  Scenario(gpu="b200", precision="fp4")]
    # an accelerator whose FP8 is no faster than its reference precision (gaudi3 in the catalog)
    scenarios += [Scenario(gpu=a.id, precision="fp8") for a in catalog.accelerators().values()
                  if "fp8" in a.peak_tflops and a.peak_tflops["fp8"] <= a.peak_tflops[reference_precision(a)]]
    return scenarios


def test_every_model_warning_is_a_message_and_fully_chinese():
    seen = {}
    for s in _warning_scenarios():
        for w in estimate(s).warnings:
            assert isinstance(w, Message), w
            seen.setdefault(w.id, w)
    # the checks most scenarios reach; their wording is the table's
    assert {"deadline_unreachable", "deadline_too_many_gpus", "gpus_beyond_known", "gpus_set_by_memory",
            "memory_short", "activations_do_not_fit", "goodput_zero", "goodput_low", "mfu_outside_range",
            "team_pay_us_default", "labelled_examples_free", "price_estimated", "precision_no_speedup",
            "electricity_price_from_peer", "spot_large", "fp4_speedup_upper_bound"} <= set(seen), sorted(seen)
    for w in seen.values():
        zh = w.render("zh")
        assert not latin_words(zh), (w.id, zh, latin_words(zh))
