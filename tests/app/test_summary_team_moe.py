"""The summary names MoE with its active parameters and says when people are the largest dimension
(issue 25 items 2 and 7, issue 27 item 4), in both languages."""

from __future__ import annotations

import pytest

from explorer import Scenario, estimate
from explorer.app.pages.estimate_html import summary_text
from explorer.text import count_in, quantity


def test_summary_names_moe_with_its_active_parameters_and_says_when_they_are_a_default():
    e = estimate(Scenario(params=70e9, architecture="moe"))
    active = quantity(e.scenario.active_params_effective)  # the size-aware default: about 14B of 70B
    en, zh = summary_text(e, "en"), summary_text(e, "zh")
    assert f"Mixture-of-Experts: {active} of 70B parameters active per token" in en
    assert "the default for this size" in en
    # the Chinese page writes sizes in 万/亿 (issue 41): 70B = 700亿
    assert f"混合专家（MoE）：700亿 参数中每个 token 激活 {count_in(e.scenario.active_params_effective, 'zh')}" in zh
    assert "默认值" in zh
    typed = summary_text(estimate(Scenario(params=70e9, architecture="moe", active_params=13e9)), "en")
    assert "Mixture-of-Experts: 13B of 70B parameters active per token (19%)." in typed
    assert "Mixture-of-Experts" not in summary_text(estimate(Scenario()), "en")


@pytest.mark.parametrize("language, words", [("en", "People are the largest dimension"),
                                             ("zh", "人力是最大的成本项")])
def test_summary_says_when_people_are_the_largest_dimension(language, words):
    # the default 7B project: people are its largest dimension (the default team)
    e = estimate(Scenario())
    assert e.cost_usd["people"] > max(v for k, v in e.cost_usd.items() if k not in ("people", "total"))
    assert words in summary_text(e, language)
    # a 405B run: compute and hidden costs dwarf the team
    big = estimate(Scenario(params=405e9, tokens=15.6e12, gpus=16384))
    assert words not in summary_text(big, language)
    # the final run alone has no people
    assert words not in summary_text(e, language, scope="run")
