"""Each published-run preset's team: its paper's listed authors x 28.5% (the rule of defaults.csv team_headcount).

Cottier et al. 2024 ('The rising costs of training frontier AI models', arXiv 2405.21015, section 2.5.1): the
full-time-equivalent share per listed contributor is log-normal with 90% CI 5-80% (median 20%), and their team cost
is a sum over contributors, so its point estimate is the count x the mean share, 28.5%. The counts below were read and
counted by hand (a script splitting the lists) in the sources named next to them.
"""

import pytest

from explorer import estimate
from tests.model import team_by_hand as H
from explorer.presets import presets

FTE_SHARE = H.FTE_PER_AUTHOR  # 0.285, the mean of Cottier et al.'s log-normal (tests/model/team_by_hand.py)
US_LOADED_USD_PER_YEAR = 189_000  # defaults.csv team_loaded_usd_per_year (BLS $133,080 / 0.704 = $189,034)
AI_LAB_LOADED_USD_PER_YEAR = H.AI_LAB_USD_PER_YEAR  # Cottier et al. 2024: mean salary x overhead + mean equity

DAYS_PER_MONTH = 365.25 / 12  # 30.4375

AUTHORS = {
    # Brown et al. 2020 'Language Models are Few-Shot Learners', arXiv 2005.14165: the arXiv author list
    # (papers.cool/arxiv/2005.14165, deeplearn.org), Tom B. Brown ... Dario Amodei
    "gpt3": (31, "2005.14165"),
    # Zhang et al. 2022 'OPT', arXiv 2205.01068: the arXiv author list and BibTeX entry, Susan Zhang ... Luke Zettlemoyer
    "opt175b": (19, "2205.01068"),
    # Touvron et al. 2023 'LLaMA', arXiv 2302.13971: the arXiv author list, Hugo Touvron ... Guillaume Lample
    "llama65b": (14, "2302.13971"),
    # Touvron et al. 2023 'Llama 2', arXiv 2307.09288: appendix A.1 Contributions, 7 + 6 + 28 + 27
    # (= the 68 names of the title page)
    "llama2_70b": (68, "2307.09288"),
    # Llama Team 2024 'The Llama 3 Herd of Models', arXiv 2407.21783: Contributors and Acknowledgements,
    # core contributors 234 + contributors 320 (arXiv's author list: 561)
    "llama31_405b": (554, "2407.21783"),
    # DeepSeek-AI 2024 'DeepSeek-V3 Technical Report', arXiv 2412.19437: appendix A, research and
    # engineering 150 + data annotation 31 + business and compliance 18 (arXiv's author list: 199 too)
    "deepseek_v3": (199, "2412.19437"),
}


@pytest.mark.parametrize("preset_id", sorted(AUTHORS))
def test_team_is_the_listed_authors_times_the_mean_share(preset_id):
    count, arxiv = AUTHORS[preset_id]
    p = presets()[preset_id]
    assert p.scenario.team_headcount == pytest.approx(count * FTE_SHARE, abs=0.05)  # typed to 0.1 person
    # the source says where the count comes from and by which rule
    assert f"{count} " in p.source and arxiv in p.source and "Cottier et al. 2024" in p.source
    assert "28.5%" in p.source and "90% CI 5-80%" in p.source


@pytest.mark.parametrize("preset_id", sorted(AUTHORS))
def test_people_cost_is_headcount_times_loaded_cost_times_the_project_months(preset_id):
    count, _ = AUTHORS[preset_id]
    s = presets()[preset_id].scenario
    # no cost per person typed: a US AI lab's loaded pay over the project's months
    assert s.team_loaded_usd_per_year is None
    e = estimate(s)
    # GPT-3 and OPT-175B keep their sourced project lengths (Cottier et al. 2024: 8.3 and 6.3 months); the others'
    # months follow the run's compute: the hand line over those lengths and GPT-4's 12 months
    # (tests/model/team_by_hand.py); never below the run
    sourced = {"gpt3": 8.3, "opt175b": 6.3}
    assert s.project_months == sourced.get(preset_id)
    months = max(sourced.get(preset_id) or H.months(e.train_flop), e.wall_days / DAYS_PER_MONTH)
    # e.g. GPT-3: 31 x 0.285 = 8.8 people (typed to 0.1) x $444,000 / 12 x the months
    by_hand = round(count * FTE_SHARE, 1) * AI_LAB_LOADED_USD_PER_YEAR / 12 * months
    assert e.cost_usd["people"] == pytest.approx(by_hand, rel=1e-9)
    assert e.cost_usd["people"] > 0


def test_llama31_team_is_far_larger_than_the_generic_default():
    # 554 x 0.285 = 157.9 people, vs LLaMA's 14 x 0.285 = 4.0
    assert presets()["llama31_405b"].scenario.team_headcount == pytest.approx(157.9)
    assert presets()["llama31_405b"].scenario.team_headcount / 4.0 == pytest.approx(554 / 14, rel=0.01)


def test_presets_without_a_readable_author_list_keep_the_default():
    # BLOOM (hundreds of BigScience volunteers; no full list was read) and MPT-7B (credited to
    # "the MosaicML NLP Team", no author list): left on the default team, which follows the run's compute
    for pid in ("bloom", "mpt7b"):
        assert presets()[pid].scenario.team_headcount is None
        assert "team_headcount" not in presets()[pid].source
        e = estimate(presets()[pid].scenario)
        assert e.fallbacks["team_headcount"] == pytest.approx(H.team(e.train_flop), rel=1e-9)
    # presets that are not one published team keep what they set
    assert presets()["startup_7b"].scenario.team_headcount == 8
