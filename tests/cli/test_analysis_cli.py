"""``python -m explorer compare | attribute | simulate``: JSON output and the bad-input rule (one line, exit 2)."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli

from hand_scenarios import hand_cost, simple

# ----------------------------------------------------------------- CLI
def test_cli_compare_attribute_simulate(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(simple().to_json())
    b.write_text(simple(tokens=2e10, rate_usd_per_gpu_hour=6.0).to_json())
    p = run_cli("compare", "--scenario", str(a), "--scenario", str(b), "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert rows["A"]["total_usd"] == pytest.approx(hand_cost(), rel=1e-9)
    p = run_cli("attribute", "--scenario", str(a), "--target", str(b), "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["parts_usd"]["pricing"] == pytest.approx(3 * hand_cost(), rel=1e-9)
    p = run_cli("simulate", "--scenario", str(a), "--n", "1000", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out["percentiles"]) == {"P5", "P50", "P95"}
    assert p.stdout == run_cli("simulate", "--scenario", str(a), "--n", "1000", "--seed", "1", "--json").stdout
