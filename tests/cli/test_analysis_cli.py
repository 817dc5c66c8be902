"""``python -m explorer compare | attribute | simulate``: JSON output and the bad-input rule (one line, exit 2)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hand_scenarios import hand_cost, simple

# ----------------------------------------------------------------- CLI
def _run(*args):
    return subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True, timeout=120)


def test_cli_compare_attribute_simulate(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(simple().to_json())
    b.write_text(simple(tokens=2e10, rate_usd_per_gpu_hour=6.0).to_json())
    p = _run("compare", "--scenario", str(a), "--scenario", str(b), "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert rows["A"]["total_usd"] == pytest.approx(hand_cost(), rel=1e-9)
    p = _run("attribute", "--scenario", str(a), "--target", str(b), "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["parts_usd"]["pricing"] == pytest.approx(3 * hand_cost(), rel=1e-9)
    p = _run("simulate", "--scenario", str(a), "--n", "1000", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out["percentiles"]) == {"P5", "P50", "P95"}
    assert p.stdout == _run("simulate", "--scenario", str(a), "--n", "1000", "--seed", "1", "--json").stdout


@pytest.mark.parametrize("args", [
    ("simulate", "--n", "-5"),
    ("simulate", "--tokens", "abc"),
    ("simulate", "--params", "-1"),
    ("compare", "--scenario", "/nonexistent.json"),
    ("attribute", "--target", "/nonexistent.json"),
    ("simulate", "--n", "2.5"),
    ("compare", "--name", "x", "--name", "y"),
    ("attribute", "--scenario", "/nonexistent.json", "--target", "/nonexistent.json"),
    ("simulate", "--gpu", "no-such-gpu"),
])
def test_cli_bad_input_is_one_line_exit_2(args):
    p = _run(*args)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1
