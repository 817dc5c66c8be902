"""Issue 27's CLI minors: repeated compare options, scenario files with typed numbers, readable refusals."""

from __future__ import annotations

import json
import re

from explorer import Scenario, compare
from explorer.cli import main


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def test_compare_compares_every_value_of_a_repeated_option(capsys):
    """``compare --params 7B --params 70B`` used to keep 70B alone, silently: it now has a row for each."""
    code, out, _ = _run(capsys, "compare", "--params", "7B", "--params", "70B", "--gpus", "256", "--json")
    assert code == 0
    rows = json.loads(out)
    assert list(rows) == ["params=7B", "params=70B"]
    assert rows["params=7B"]["params"] == 7e9 and rows["params=70B"]["params"] == 70e9
    # each row is the scenario the options name (the same as the API's compare of those scenarios)
    expected = compare([Scenario(params=7e9, gpus=256), Scenario(params=70e9, gpus=256)])
    assert rows["params=70B"]["total_usd"] == expected.loc["B", "total_usd"]


def test_options_repeated_together_pair_up_and_unequal_repeats_are_refused(capsys):
    code, out, _ = _run(capsys, "compare", "--params", "7B", "--params", "70B", "--tokens", "140B", "--tokens", "1.4T",
                        "--json")
    assert code == 0 and list(json.loads(out)) == ["params=7B tokens=140B", "params=70B tokens=1.4T"]
    code, out, err = _run(capsys, "compare", "--params", "7B", "--params", "70B", "--tokens", "1T", "--tokens", "2T",
                          "--tokens", "3T")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "same number of times" in err and "params" in err and "tokens" in err


def test_compare_text_is_readable(capsys):
    code, out, _ = _run(capsys, "compare", "--params", "7B", "--params", "70B")
    assert code == 0 and not re.search(r"\de[+-]", out) and "70B" in out


def test_a_scenario_file_takes_numbers_as_the_boxes_do(capsys, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"params": "70B", "tokens": "1.4T", "gpus": "2,048"}))
    code, out, _ = _run(capsys, "estimate", "--scenario", str(path), "--json")
    assert code == 0
    s = json.loads(out)["scenario"]
    assert (s["params"], s["tokens"], s["gpus"]) == (70e9, 1.4e12, 2048)
    path.write_text(json.dumps({"params": "seventy"}))
    code, out, err = _run(capsys, "estimate", "--scenario", str(path))
    assert code == 2 and "params" in err and "seventy" in err


def test_cli_errors_write_numbers_as_the_options_read_them(capsys):
    code, _, err = _run(capsys, "estimate", "--tokens", "1e16")
    assert code == 2 and not re.search(r"\de[+-]", err) and "[1M, 1000T]" in err
