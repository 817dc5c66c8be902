"""Issue 41: ``1e400`` (a number past any float) is refused in one wording wherever it is typed. Before, a link
said ``'1e400' is not allowed; allowed: a number in [1M, 100T]``, the Model size box ``∞ is not allowed`` (the
inf it read), the USD-to-CNY box ``allowed: a number, or blank`` and the CLI ``is outside the float range (about
2.2e-308 to 1.8e308 in size, or 0)``. Now all say what the field allows: the range of its spec
(explorer/scenario.py: params [1e6, 1e14], usd_to_cny [0.01, 1000], gpus a whole number in [1, 1e7])."""

from __future__ import annotations

import subprocess
import sys

import pytest

from explorer.app import link
from explorer.app.controls import _number_from_text

from conftest import ROOT

WORDS = {"params": "'1e400' is not allowed; allowed: a number in [1M, 100T]",
         "usd_to_cny": "'1e400' is not allowed; allowed: a number in [0.01, 1,000]",
         "gpus": "'1e400' is not allowed; allowed: a whole number in [1, 10M]"}
ZH = {"params": "'1e400' 不可用；允许：[100万, 100万亿] 内的数"}  # bounds as Chinese readers write them (issue 41)


def _box(app, field: str) -> str:
    row = app.rows[field]
    box = row.twin or row.widget
    box.value = _number_from_text("1e400", box) if hasattr(box, "integer") else "1e400"
    return row.message.value.replace("&#x27;", "'")


@pytest.mark.parametrize("field", sorted(WORDS))
def test_a_typed_box_and_a_link_say_the_same(make_app, field):
    app = make_app()
    assert WORDS[field] in _box(app, field), _box(app, field)
    [refused] = link.refused_fields_from_query(f"{field}=1e400")
    assert WORDS[field] in refused.render("en")
    linked = make_app(query_string=f"{field}=1e400")
    assert WORDS[field] in linked.banner.value.replace("&#x27;", "'")


def test_the_chinese_box_and_link_say_the_same(make_app):
    app = make_app(query_string="lang=zh")
    assert ZH["params"] in _box(app, "params")
    [refused] = link.refused_fields_from_query("params=1e400")
    assert ZH["params"] in refused.render("zh")


@pytest.mark.parametrize("option, field", [("--params", "params"), ("--usd-to-cny", "usd_to_cny"), ("--gpus", "gpus")])
def test_the_cli_says_the_same_in_one_line_with_exit_code_2(option, field):
    result = subprocess.run([sys.executable, "-m", "explorer", "estimate", option, "1e400"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and WORDS[field] in result.stderr, result.stderr
