"""The documents' generated figures (scripts/figures.py, `make figures`) are what the model gives now (issue 37):
a price or people update cannot leave a stale number in them."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_figures():
    spec = importlib.util.spec_from_file_location("figures", ROOT / "scripts" / "figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_figures_are_current():
    figures = load_figures()
    for document in figures.DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        assert figures.render(text) == text, f"{document.name}'s generated figures are stale: run `make figures`"
    assert figures.main(["--check"]) == 0  # and each block is in exactly one document


def test_a_stale_figure_is_caught():
    figures = load_figures()
    text = (ROOT / "docs" / "model.md").read_text(encoding="utf-8") + (ROOT / "docs" / "guide.md").read_text()
    stale = text.replace("<!-- figures:replay -->\n|", "<!-- figures:replay -->\n| (stale) |", 1)
    assert stale != text and figures.render(stale) == text


def test_the_replay_medians_lie_within_the_band():
    rows = load_figures().replay_rows()
    import statistics

    for key in ("now", "then"):  # the newest prices; each run's own month
        assert 0.67 <= statistics.median(r[key] for r in rows) <= 1.5, [(r["run"], round(r[key], 2)) for r in rows]
