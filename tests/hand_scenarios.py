"""A hand-checkable scenario for the analysis tests: its cost is one product (tests/analysis/test_analysis.py)."""

from __future__ import annotations

from explorer import Scenario

PEAK_BF16_H100 = 989.5e12  # accelerators.csv, dense BF16

#: A run whose cost is rate x ideal hours (see the module docstring).
BASE = dict(params=1e9, tokens=1e10, gpu="h100-sxm", precision="bf16", gpus=8, mfu=0.5,
            rate_usd_per_gpu_hour=2.0, failure_rate_per_gpu_hour=0.0, checkpoint_write_minutes=0.0,
            restart_minutes=0.0, other_losses_factor=1.0, n_layers=1, d_model=64, seq_len=16,
            experiments_multiplier=1.0, team_headcount=0.0, data_usd_per_1m_tokens=0.0)  # final run only


def hand_cost(params=1e9, tokens=1e10, mfu=0.5, rate=2.0):
    """6 N D plus attention 12 L d s D FLOP, over peak x MFU, times the rate [USD]."""
    flop = 6 * params * tokens + 12 * 1 * 64 * 16 * tokens
    hours = flop / (PEAK_BF16_H100 * mfu * 3600)
    return hours * rate


def simple(**changes):
    return Scenario(**{**BASE, **changes})
