"""People's share of the whole project, before and after the team that follows the run (issue 25 item 2).

For every preset, the default scenario and the issue's cases, prints a Markdown table: people [USD] and
share of the total under the old fixed defaults (2.8 people, 8.3 months never shorter than the run,
DeepSeek-V3's 5.5% MoE active share at every size) and under today's rules (explorer.rules).

"Before" is replayed by typing the old defaults into the scenario (team_headcount 2.8 where the
scenario leaves it blank, project_months 8.3, active_fraction 0.0551 for a defaulted MoE), which
reproduces the old code's figures: it took max(8.3, the run's months) and charged people without a cap.
Everything else (prices, goodput, ...) is today's model in both columns.

Run: ``.venv/bin/python benchmarks/people_shares.py``
"""

from __future__ import annotations

from explorer import Scenario, estimate
from explorer.presets import presets

OLD_TEAM, OLD_MONTHS, OLD_MOE_SHARE = 2.8, 8.3, 0.0551  # the removed defaults.csv rows
#: presets that now type their sourced project length (they had none before, so they took the 8.3 default)
MONTHS_NOW_TYPED = {"gpt3", "opt175b"}

CASES = {
    "default scenario (7B, 1T tokens)": Scenario(),
    "1B on 100B tokens": Scenario(params=1e9, tokens=100e9),
    "LoRA of 70B on 1B tokens (8 GPUs)": Scenario(params=70e9, tokens=1e9, training_kind="lora", gpus=8),
    "full fine-tune of 7B on 1B tokens (8 GPUs)": Scenario(params=7e9, tokens=1e9, training_kind="full_finetune",
                                                           gpus=8),
    "405B on 15.6T tokens (16,384 GPUs)": Scenario(params=405e9, tokens=15.6e12, gpus=16384),
    "70B MoE toggle (1T tokens)": Scenario(params=70e9, architecture="moe"),
    "1e14 parameters on 1e15 tokens": Scenario(params=1e14, tokens=1e15),
}


def before(s: Scenario, key: str = "") -> Scenario:
    """``s`` (preset ``key``) with the old fixed defaults typed in where it leaves them blank."""
    changes = {}
    if s.team_headcount is None:
        changes["team_headcount"] = OLD_TEAM
    if s.project_months is None or key in MONTHS_NOW_TYPED:
        changes["project_months"] = OLD_MONTHS
    if s.architecture == "moe" and s.active_params is None and s.active_fraction is None and (
            s.experts is None or s.top_k is None):
        changes["active_fraction"] = OLD_MOE_SHARE
    return s.replace(**changes)


def row(name: str, s: Scenario, key: str = "") -> str:
    old, new = estimate(before(s, key)), estimate(s)
    team = new.fallbacks["team_headcount"] if s.team_headcount is None else s.team_headcount
    cells = [name,
             f"{before(s, key).team_headcount:.3g} x {old.project_months:.3g} mo", f"${old.cost_usd['people']:,.0f}",
             f"{old.cost_usd['people'] / old.total_usd:.1%}",
             f"{team:.3g} x {new.project_months:.3g} mo", f"${new.cost_usd['people']:,.0f}",
             f"{new.cost_usd['people'] / new.total_usd:.1%}",
             "yes" if {"people_largest", "people_largest_default"} & {w.id for w in new.warnings} else ""]
    return "| " + " | ".join(cells) + " |"


def main() -> None:
    print("| scenario | before: team x months | before: people | before: share | after: team x months "
          "| after: people | after: share | people largest (warned) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, s in CASES.items():
        print(row(name, s))
    for key, p in presets().items():
        print(row(f"preset {key}", p.scenario, key))


if __name__ == "__main__":
    main()
