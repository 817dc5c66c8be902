"""The README's generated figures (scripts/figures.py, `make figures`) are what the model gives now (issue 37):
a price or people update cannot leave a stale number in them."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_figures():
    spec = importlib.util.spec_from_file_location("figures", ROOT / "scripts" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_figures_are_current():
    figures = load_figures()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert figures.render(text) == text, "README.md's generated figures are stale: run `make figures`"


def test_a_stale_figure_is_caught():
    figures = load_figures()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    stale = text.replace("<!-- figures:replay -->\n|", "<!-- figures:replay -->\n| (stale) |", 1)
    assert stale != text and figures.render(stale) == text


def test_the_replay_medians_lie_within_the_band():
    rows = load_figures().replay_rows()
    import statistics

    for key in ("now", "then"):  # the newest prices; each run's own month
        assert 0.67 <= statistics.median(r[key] for r in rows) <= 1.5, [(r["run"], round(r[key], 2)) for r in rows]
