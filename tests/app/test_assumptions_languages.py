"""The Assumptions table in Chinese and in English over every accelerator x price basis x architecture x kind
of training: names, values and units have no English word left in Chinese (beyond units and names, the
allow-list of tests/model/test_messages.py) and no Chinese in English. Assumptions are ids with params
(explorer.model.Assumption) rendered from messages.csv, never English parsed back."""

from __future__ import annotations

import html
import itertools
import re

import pytest

from explorer import Scenario, ScenarioError, catalog, estimate, prices
from explorer.app.pages import estimate_html
from explorer.scenario import ARCHITECTURES, FACILITIES, PRICING_MODES, TRAINING_KINDS
from tests.model.test_messages import ALLOWED_LATIN, latin_words

#: Latin a Chinese assumption may keep besides the messages' allow-list (units and symbols: TFLOP/s, gCO2, PUE,
#: MFU, MoE, TDP, ln): grid operators named in region names (ERCOT, PJM). Catalog ids and accelerator names are
#: stripped before the check.
NAMES = {"ercot", "pjm"}
_CJK = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")
_ROW = re.compile(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td class=\"src\">(.*?)</td></tr>")


def _scenarios():
    """Every accelerator (at its 16-bit precision) x price basis x architecture x kind of training, then every
    precision, every region as owned in a regional-average facility, and the values a scenario sets."""
    for gpu, pricing, arch, kind in itertools.product(catalog.accelerators(), PRICING_MODES, ARCHITECTURES,
                                                      TRAINING_KINDS):
        precision = catalog.accelerator(gpu).nearest_precision("bf16")
        yield dict(gpu=gpu, precision=precision, pricing=pricing, architecture=arch, training_kind=kind)
    for gpu in catalog.accelerators():
        for precision in catalog.accelerator(gpu).precisions:
            yield dict(gpu=gpu, precision=precision, architecture="moe", experts=8, top_k=2)
    for seller in prices.sellers():  # a group or one provider at its own prices
        for pricing in ("on_demand", "reserved_1y", "reserved_3y", "spot"):
            yield dict(gpu="h100-sxm", pricing=pricing, seller=seller)
    for region, facility in itertools.product(catalog.regions(), FACILITIES):
        yield dict(region=region, pricing="owned", facility=facility)
    yield dict(mfu=0.4, rate_usd_per_gpu_hour=2.0, currency="CNY", usd_to_cny=7.0, pricing="spot",
               spot_discount=0.5, amortization="epoch", n_layers=32, d_model=4096, recompute="full")
    yield dict(pricing="owned", amortization="epoch", hosting_usd_per_gpu_hour=0.5, server_overhead=1.3)
    yield dict(architecture="moe", active_fraction=0.1)


@pytest.fixture(scope="module")
def estimates():
    out = []
    refused = 0
    for kw in _scenarios():
        try:
            out.append(estimate(Scenario(**kw)))
        except ScenarioError:  # a combination the scenario refuses (a precision the chip lacks, ...)
            refused += 1
    assert len(out) > 10 * refused and len(out) > 500, (len(out), refused)
    return out


def _rows(e, language):
    page = estimate_html.assumptions_html(e, language)
    rows = [tuple(html.unescape(c) for c in row) for row in _ROW.findall(page)]
    assert len(rows) == len(e.assumptions), page
    return rows


def _ids():
    """Accelerator and region ids and names: names a Chinese table keeps as they are."""
    return sorted({*catalog.accelerators(), *(a.name for a in catalog.accelerators().values()),
                   *catalog.regions(), *(prices.seller_name(p) for p in prices.PROVIDERS)}, key=len, reverse=True)


_NUMBER = re.compile(r"(?<![A-Za-z])\d[\d.,]*(?:e[+-]?\d+)?")


def _english_left(text: str) -> list[str]:
    for name in _ids():  # whole words only: the region "in" is not the "in" of "Instinct"
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", text)
    text = _NUMBER.sub(" ", text)  # 1e+05, not the 16 of FP16
    return [w for w in latin_words(text) if w.lower() not in ALLOWED_LATIN | NAMES]


def test_the_chinese_table_has_no_english_word_in_names_values_units(estimates):
    left = {}
    for e in estimates:
        for row, a in zip(_rows(e, "zh"), e.assumptions):
            name, value, unit, source = row
            words = _english_left(" ".join((name, value, unit)))
            if hasattr(a.source, "render"):  # the model's own words (a citation stays in its language)
                words += _english_left(source)
            for w in words:
                left.setdefault((a.id, w), row)
    assert not left, "\n".join(f"{k}: {v}" for k, v in left.items())


def test_the_english_table_has_no_chinese(estimates):
    for e in estimates:
        for row in _rows(e, "en"):
            assert not any(_CJK.search(cell) for cell in row), row


def test_every_assumption_id_of_the_model_is_seen_by_the_sweep(estimates):
    """The sweep reaches every template of an assumption name (messages.csv ``assumption_*``, sources aside)."""
    from explorer.messages import message_ids

    from explorer.model.resolve import _WIDER_ACTIVATIONS

    # the 16-bit fallback of activation storage is for a precision with no sourced figure and no wider format's
    # to keep: none in precisions.csv today (FP4 keeps FP8's); tests/model/test_messages.py renders its row
    table = catalog.precisions()
    assert all(p.activation_bytes is not None or k in _WIDER_ACTIVATIONS for k, p in table.items())
    unreached = {"assumption_activation_bytes_16bit"}
    names = {i for i in message_ids() if i.startswith("assumption_") and not i.startswith("assumption_source_")}
    seen = {a.id for e in estimates for a in e.assumptions}
    assert names - unreached <= seen, names - unreached - seen


def test_english_names_read_as_before_and_render_readably():
    """``name`` and ``str`` keep the English the CLI, notebooks and tests read; ``render`` names defaults by label.

    The English names are those resolve wrote as text before assumptions had ids (this commit's parent)."""
    e = estimate(Scenario(gpu="b200", pricing="owned", region="jp", precision="fp8"))
    names = [a.name for a in e.assumptions]
    assert names == [str(a) for a in e.assumptions]
    for old in ("peak fp8 (b200)", "mfu_dense", "n_layers (derived from params)", "bytes per weight (fp8)",
                "purchase price (b200, system price)", "server overhead (b200: system price, none added)",
                "grid carbon (jp)", "activation recomputation", "amortization"):
        assert old in names, (old, names)
    zh = {a.name: a.render("zh") for a in e.assumptions}
    assert zh["n_layers (derived from params)"] == "层数（由参数量推算）"
    assert zh["purchase price (b200, system price)"] == "采购价（b200，整机价格）"
    assert zh["grid carbon (jp)"] == "电网碳强度（日本（东京））"
    en = {a.name: a.render("en") for a in e.assumptions}
    assert en["mfu_dense"] == "Default MFU, dense run" and en["peak fp8 (b200)"] == "Peak FP8 (b200)"
