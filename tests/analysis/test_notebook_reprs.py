"""Estimate and Attribution print like pandas in a notebook (issue 41): one short line for ``repr``, a table for
``_repr_html_``; before, both were the dataclass's dump of every field (about 5,000 characters for an Estimate)."""

from __future__ import annotations

import re

from explorer import Scenario, estimate
from explorer.analysis import attribute
from explorer.model import COST_DIMENSIONS


def test_an_estimate_prints_one_line_with_its_run_and_total():
    e = estimate(Scenario(params=7e9, tokens=1e12, gpus=1024))
    text = repr(e)
    assert "\n" not in text and len(text) < 200, text
    assert text.startswith("Estimate(7B parameters on 1T tokens, 1,024 x ")
    assert "whole project $" in text and "final run $" in text


def test_an_estimate_in_a_notebook_is_a_table_of_its_figures_and_warnings():
    e = estimate(Scenario(params=7e9, tokens=1e12, gpus=1024))
    page = e._repr_html_()
    assert page.startswith("<table>") and len(page) < 4000
    names = re.findall(r"<th style='text-align:left'>\s*([^<]+)</th>", page)
    assert {"model", "compute", "cluster", "whole project", "final run", *COST_DIMENSIONS} <= {n.strip() for n in names}
    assert "×10" in page  # compute as a power of ten, never e-notation
    if e.warnings:  # the default team's warning is there, escaped
        assert "<ul><li>" in page


def test_an_infeasible_estimate_says_so_without_money():
    e = estimate(Scenario(params=70e9, tokens=3e12, gpus=None, deadline_days=0.5))  # half a day: no cluster can
    assert not e.feasible
    assert "infeasible" in repr(e) and "$" not in repr(e)
    assert "infeasible" in e._repr_html_() and "whole project" not in e._repr_html_()


def test_an_attribution_prints_its_change_and_largest_parts_first():
    base = Scenario(params=7e9, tokens=1e12)
    a = attribute(base, base.replace(params=70e9))  # ten times the parameters: the model size is the change
    text = repr(a)
    assert "\n" not in text and len(text) < 200, text
    assert text.startswith("Attribution($") and ": model_size +$" in text
    page = a._repr_html_()
    assert page.startswith("<table>") and ">baseline<" in page and ">change<" in page
    assert re.search(r">\s*model_size</th><td style='text-align:right'>\+\$", page)


def test_an_attribution_with_nothing_changed_says_so():
    base = Scenario(params=7e9, tokens=1e12)
    assert "no lever differs" in repr(attribute(base, base))
