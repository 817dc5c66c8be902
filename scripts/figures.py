"""Write the documents' figures that depend on prices and people from the model, so a data update cannot leave a
stale number (issue 37).

Usage::

    python scripts/figures.py          # rewrite the generated blocks of README.md and docs/*.md
    python scripts/figures.py --check  # exit 1 when a block differs from what the model gives now

A generated block sits between ``<!-- figures:NAME -->`` and ``<!-- /figures:NAME -->`` in one of
:data:`DOCUMENTS`; each block is in exactly one. Blocks:

* ``first``: the README's example, a Chinchilla-sized run, and all it prints;
* ``cli``: the guide's first command and all it prints;
* ``gpt3``: that run's final-run cost against the AI Index, at today's and at 2020's prices;
* ``people``: the default team and people cost beside Cottier et al.'s method;
* ``bases``: each price basis and what it gives for an H100 SXM, with the providers and dates behind it;
* ``seller``, ``owned``: the CLI's price line for one named seller, and its owned-hardware lines;
* ``epoch``: the Epoch amortization option against Epoch AI's own amortized costs;
* ``plan``: what three budgets buy, with the cluster the planner picks;
* ``per_flop``: USD per peak 16-bit FLOP relative to H100 on each basis, with the reason for each entry outside
  0.75-1.35x (:data:`OUTSIDE_BAND_WHY`, which tests/model/test_prices_by_hardware.py checks);
* ``replay``: six published runs replayed (their own size, tokens, hardware and GPU count, every other value a
  default; explorer.analysis.runs) and their final run's cost against the published cloud estimate (AI Index 2024,
  or Epoch AI's cloud estimate where the AI Index has none), on the default basis at the newest prices and at the
  prices of the run's own publication month, as Epoch AI and the AI Index price them.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import re
import statistics
import sys
from pathlib import Path

from explorer import Scenario, catalog, estimate, prices, rules
from explorer.analysis.runs import models_table, run_scenario
from explorer.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: The documents with generated blocks.
DOCUMENTS = (README, ROOT / "docs" / "guide.md", ROOT / "docs" / "model.md")

#: run (published_runs.csv) -> (table, row id) of its published cloud estimate
REPLAY = {
    "GPT-3 175B (davinci)": ("history.csv", "aiindex_gpt3"),
    "OPT-175B": ("epoch_frontier.csv", "epochf_opt_175b"),
    "BLOOM-176B": ("epoch_frontier.csv", "epochf_bloom_176b"),
    "PaLM 540B": ("history.csv", "aiindex_palm"),
    "Llama 2 70B": ("history.csv", "aiindex_llama2_70b"),
    "Llama 3.1 405B": ("epoch_frontier.csv", "epochf_llama_3_1_405b"),
}
#: run -> its row of Epoch's frontier table, for the publication date
EPOCH_ROW = {"GPT-3 175B (davinci)": "epochf_gpt_3_175b_davinci", "OPT-175B": "epochf_opt_175b",
             "BLOOM-176B": "epochf_bloom_176b", "PaLM 540B": "epochf_palm_540b", "Llama 2 70B": "epochf_llama_2_70b",
             "Llama 3.1 405B": "epochf_llama_3_1_405b"}


def _row(table: str, row_id: str) -> dict:
    return next(r for r in catalog.read_csv(table) if r["id"] == row_id)


def replay_rows() -> list[dict]:
    """Each run: the published estimate [USD], its source, and the replay's ratio on both price dates [1]."""
    out = []
    for run, (table, row_id) in REPLAY.items():
        row = _row(table, row_id)
        published = float(row["cost_usd"] if table == "history.csv" else row["cloud_cost_usd"])
        month = _row("epoch_frontier.csv", EPOCH_ROW[run])["publication_date"][:7]
        s = run_scenario(f"run:{run}")
        now = estimate(s).final_run_usd
        then = estimate(s.replace(price_date=month)).final_run_usd
        source = "AI Index 2024" if table == "history.csv" else "Epoch AI cloud"
        out.append(dict(run=run, published=published, source=source, month=month, now=now / published,
                        then=then / published))
    return out


def replay_block() -> str:
    """The ``replay`` block: each run against its published estimate, and the medians."""
    rows = replay_rows()
    lines = ["| run | published cloud estimate | replay at the newest prices | replay at the run's month's prices |",
             "|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['run']} | ${r['published'] / 1e6:,.2f}M ({r['source']}) | {r['now']:.2f}× | "
                     f"{r['then']:.2f}× ({r['month']}) |")
    lines.append(f"| **median** | | **{statistics.median(r['now'] for r in rows):.2f}×** | "
                 f"**{statistics.median(r['then'] for r in rows):.2f}×** |")
    return "\n".join(lines)


FIRST_ARGS = ["estimate", "--params", "70B", "--tokens", "1.4T", "--gpus", "2048"]
CLI_ARGS = ["estimate", "--params", "175e9", "--tokens", "300e9", "--gpu", "v100", "--precision", "fp16",
            "--gpus", "10000"]


def cli_block() -> str:
    """The ``cli`` block: the guide's first command and all it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli_main(CLI_ARGS)
    return "```\n$ python -m explorer " + " ".join(CLI_ARGS) + "\n" + out.getvalue().rstrip() + "\n```"


def first_block() -> str:
    """The ``first`` block: the README's example, a Chinchilla-sized run, and all it prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli_main(FIRST_ARGS)
    return "```\n$ python -m explorer " + " ".join(FIRST_ARGS) + "\n" + out.getvalue().rstrip() + "\n```"


def _cli_lines(args: list[str], keep) -> str:
    """The CLI's output for ``args``, the lines for which ``keep(line)`` holds, in a fenced block; ``...`` marks
    where lines were left out (tests/test_docs_examples.py reads it so)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli_main(args)
    lines, skipped = [], False
    for line in out.getvalue().splitlines():
        if keep(line):
            lines += ["...", line] if skipped else [line]
            skipped = False
        else:
            skipped = True
    return "```\n$ python -m explorer " + " ".join(args) + "\n" + "\n".join(lines) + "\n```"


def seller_block() -> str:
    """The ``seller`` block: the price line for one named provider."""
    return _cli_lines(["estimate", "--params", "70B", "--tokens", "1.4T", "--gpus", "2048", "--seller", "lambda-labs",
                       "--pricing", "reserved_1y"], lambda x: "price basis" in x)


def owned_block() -> str:
    """The ``owned`` block: capex, amortization and break-even lines of an owned cluster."""
    keep = ("owned: capex", "amortization", "all-in per GPU-hour", "break-even vs rent")
    text = _cli_lines(["estimate", "--params", "70e9", "--tokens", "2e12", "--gpus", "2048", "--pricing", "owned"],
                      lambda x: x.strip().startswith(keep))
    return text


def gpt3_block() -> str:
    """The ``gpt3`` block: GPT-3's final run at today's and at May 2020's prices against the AI Index."""
    s = Scenario(params=175e9, tokens=300e9, gpu="v100", precision="fp16", gpus=10_000)
    ai_index = float(_row("history.csv", "aiindex_gpt3")["cost_usd"])
    now, then = (estimate(s.replace(price_date=d)).final_run_usd for d in (None, "2020-05"))
    rate_now, rate_then = (estimate(s.replace(price_date=d)).rate_usd_per_gpu_hour for d in (None, "2020-05"))
    return (f"The final run costs ${now / 1e6:.2f}M at today's V100 price ({rate_now:.2f} USD/GPU-hour) and "
            f"${then / 1e6:.2f}M at the prices of May 2020, when GPT-3 was published (`--price-date 2020-05`: "
            f"{rate_then:.2f} USD/GPU-hour); the AI Index 2024 estimates ${ai_index / 1e6:.2f}M "
            f"({now / ai_index:.2f}× and {then / ai_index:.2f}×).")


def people_block() -> str:
    """The ``people`` bullet: the rule, the default teams and the share on a frontier project."""
    fte, pay = catalog.default("team_fte_per_author"), catalog.default("team_loaded_usd_per_year_ai_lab")
    f = rules.team_fit()
    small, large = (estimate(Scenario(**kw)) for kw in (dict(), dict(params=405e9, tokens=15.6e12, gpus=16_384)))
    share = large.cost_usd["people"] / large.cost_usd["total"]
    return (f"- **people** over the project, not the run, scaled to the run by Cottier et al.'s method: each listed "
            f"author counts {fte:.1%} of a full-time person (the mean of their 5-80% distribution; their team cost is "
            f"a sum over contributors) at ${pay:,.0f} a year (the mean of their salary x overhead + equity), and the "
            f"authors follow a least-squares log-log line over the {len(f.x)} published large-scale runs "
            f"(>= 1e23 FLOP, `explorer/data/team_sizes.csv`: GPT-3 31 authors ... Llama 3.1 405B 554), held at the "
            f"smallest below them and followed beyond the largest with a warning: "
            f"{small.fallbacks['team_headcount']:.1f} people for 7B on 1T tokens, "
            f"{large.fallbacks['team_headcount']:.0f} for 405B on 15.6T (people {share:.0%} of that project on "
            f"Llama 3.1's 16,384 GPUs; Cottier et al. find 29-49% at the frontier). The project's months follow the "
            f"compute the same way (GPT-3 8.3, OPT-175B 6.3, GPT-4 12 months), never shorter than the run and at "
            f"most 60; fine-tuning and LoRA take Alpaca's team (8 authors, at most 0.46 months) and continual "
            f"pre-training MEDITRON-70B's (20 authors, at most 4.3 months), with no cap on their share: a small "
            f"adaptation is mostly people;")


def _h100(basis: str) -> prices.Quote:
    return prices.quote("h100-sxm", basis)


def bases_block() -> str:
    """The ``bases`` table: each price basis, its rule and its H100 SXM price with the providers behind it."""
    od, hs = _h100("on_demand"), _h100("hyperscaler_on_demand")

    def listed(q: prices.Quote) -> str:
        return ", ".join(f"{p} {v:.2f} ({d})" for p, v, d in prices.market_prices("h100-sxm", q.basis))
    r1, r3 = _h100("reserved_1y").usd_per_gpu_hour, _h100("reserved_3y").usd_per_gpu_hour
    h1, h3 = _h100("hyperscaler_reserved_1y").usd_per_gpu_hour, _h100("hyperscaler_reserved_3y").usd_per_gpu_hour
    owned = estimate(Scenario(pricing="owned")).rate_usd_per_gpu_hour
    rows = [
        ("`on_demand` (default)", "specialist GPU clouds: the median of each provider's latest price read on its "
         "own page (first-hand: live, or an archived copy), over the providers within 12 months of the newest, the "
         f"window widened up to {prices.WINDOW_DAYS_MAX} days until 3 are in; transcriptions and marketplaces "
         "(per-host listings: Spheron, RunPod Community Cloud) set no median",
         f"{od.usd_per_gpu_hour:.2f} ({len(od.providers)} providers: {listed(od)})"),
        ("`hyperscaler_on_demand`", "AWS, Google Cloud, Azure, Oracle list prices, the same rule",
         f"{hs.usd_per_gpu_hour:.2f} ({len(hs.providers)} providers: {listed(hs)}; the newer AWS p5 price, 6.88 "
         "after its June 2025 cut, is a transcription)"),
        ("`reserved_1y`, `reserved_3y`", "committed use from the chosen seller (default: the specialists): fewer "
         "than 3 specialists list committed prices for any chip, so the specialist on-demand median less the median "
         f"discount of the specialist offers that list both (Oblivus Cloud's V100 of 2024-02-26: "
         f"{prices.committed_discount('reserved_1y'):.0%} and {prices.committed_discount('reserved_3y'):.0%} off), "
         "marked as an estimate; never dearer than `on_demand`", f"{r1:.2f}, {r3:.2f} (estimates)"),
        ("`hyperscaler_reserved_1y`, `hyperscaler_reserved_3y`", "hyperscaler committed use (Epoch AI's method): "
         "listed prices, else the on-demand price less the median listed discount "
         f"({prices.committed_discount('hyperscaler_reserved_1y'):.0%} and "
         f"{prices.committed_discount('hyperscaler_reserved_3y'):.0%})", f"{h1:.2f}, {h3:.2f} (Google alone)"),
        ("`spot`", f"the seller's on-demand price less the spot discount ({catalog.default('spot_discount'):.0%}, "
         "the middle of the 30–70% aggregators report)", f"{_h100('spot').usd_per_gpu_hour:.2f}"),
        ("`owned`", "purchase, servers (×1.64) and network (19%), straight line over 5 years or Epoch AI's 0.322 a "
         "year, utilisation, financing, colocation at CBRE's $184 per kW-month", f"{owned:.2f} all-in"),
    ]
    return "\n".join(["| `--pricing` | what | H100 SXM [USD/GPU-hour] |", "|---|---|---|"]
                     + [f"| {a} | {b} | {c} |" for a, b, c in rows])


#: Accelerators whose USD per peak 16-bit FLOP lies outside 0.75-1.35x H100 on some basis, and why: (kind, why).
#: "sellers": the providers' own lists put it outside the band too; "estimate": no provider lists it on that basis
#: and its price is an estimate from another accelerator or basis; "floor": no seller of the basis's group sells it,
#: so it costs its own sellers' cheapest listed price (tests/model/test_prices_by_hardware.py checks each kind).
OUTSIDE_BAND_WHY = {
    "p100": ("sellers", "2016 chip without tensor cores: 21 TFLOP/s FP16, priced per GPU, ~10x H100 per FLOP"),
    "v100": ("sellers", "2018 generation: 125 TFLOP/s; Oblivus and Google list it at 0.21-0.25 of their H100"),
    "a100-40gb": ("sellers", "2020 generation: Lambda lists it at 1.99 beside its H100 at 4.14 for 0.32 of its FLOP/s"),
    "a100-80gb": ("sellers", "2020 generation: RunPod, Hyperstack, Spheron, CoreWeave and Lambda list it at "
                             "0.33-0.67 of their H100 for 0.32 of its FLOP/s"),
    "b200": ("sellers", "Blackwell: Oracle lists it at 16.00 beside its H100 at 10.00 (2026-04-14, a transcription) "
                        "for 2.28x the 16-bit peak"),
    "gb200": ("sellers", "Blackwell NVL72: 2.53x H100's 16-bit peak for 1.7x CoreWeave's H100 price"),
    "mi300x": ("sellers", "AMD: Oracle lists it at 0.60 of its H100 for 1.32x the 16-bit peak"),
    "tpu-v2": ("sellers", "2017 TPU priced by Google per chip"),
    "tpu-v3": ("sellers", "2018 TPU priced by Google per chip"),
    "tpu-v4": ("floor", "no specialist sells it: Google's cheapest listed price, its 3-year commitment of 1.45 "
                        "(2022-05-11), which the ratio to the specialists' H100 (0.87) would undercut (issue 37)"),
    "tpu-v5e": ("sellers", "Google prices its inference TPU at 0.60x H100 per FLOP"),
    "tpu-v6e": ("sellers", "Google lists Trillium at 2.70 against its H100 at 11.06 for 0.93x the peak"),
    "mi250x": ("estimate", "no listing: MI300X's price per FLOP (the nearest AMD chip)"),
    "mi325x": ("estimate", "no listing: MI300X's price per FLOP (the nearest AMD chip)"),
    "tpu-v5p": ("estimate", "no listing on these bases: nearest priced TPU per FLOP"),
    "ascend-910b": ("estimate", "no listing: the nearest priced GPU per FLOP"),
}
PER_FLOP_BASES = ("on_demand", "hyperscaler_on_demand", "hyperscaler_reserved_1y", "hyperscaler_reserved_3y", "spot")


def _peak(acc: str) -> float:
    a = catalog.accelerator(acc)
    return next(a.peak_tflops[p] for p in ("bf16", "fp16", "tf32", "fp32") if p in a.peak_tflops)


def per_flop_block() -> str:
    """The ``per_flop`` table: USD per peak 16-bit FLOP relative to H100 SXM, by accelerator and basis."""
    lines = ["| accelerator | " + " | ".join(f"`{b}`" for b in PER_FLOP_BASES) + " | outside 0.75–1.35×: why |",
             "|---" * (len(PER_FLOP_BASES) + 2) + "|"]
    for acc, a in catalog.accelerators().items():
        cells = []
        for b in PER_FLOP_BASES:
            q = prices.quote(acc, b)
            ratio = (q.usd_per_gpu_hour / _peak(acc)) / (_h100(b).usd_per_gpu_hour / _peak("h100-sxm"))
            mark = "ᵉ" if q.estimated else "ᵈ" if q.derived else "¹" if q.thin else ""
            cells.append(f"{ratio:.2f}{mark}")
        lines.append(f"| {a.name} | " + " | ".join(cells) + f" | {OUTSIDE_BAND_WHY.get(acc, ('', ''))[1]} |")
    return "\n".join(lines)


def plan_block() -> str:
    """The ``plan`` sentences: what $1B, $10B and $5M buy on the default scenario, the cluster picked."""
    from explorer import plan, text

    def size(x: float) -> str:
        return text.readable_number(float(f"{x:.3g}"))

    big, base, huge, small = (plan(b, Scenario(), **kw) for b, kw in
                              ((1e9, {}), (1e9, {"cluster": "base"}), (1e10, {}), (5e6, {})))
    limit = {"run_length": "limited by the run length on the largest cluster", "budget": "limited by the budget"}
    return (f"`plan --budget-usd 1B` buys {size(big.params)} parameters on {big.estimate.gpus:,} H100s in "
            f"{big.estimate.wall_days:.0f} days (at the base's {base.estimate.gpus:,} GPUs: {size(base.params)} in "
            f"{base.estimate.wall_days:,.0f} days); $10B buys {size(huge.params)}, "
            f"{limit.get(huge.limited_by, huge.limited_by)}. On the default scenario, $5M for the whole project buys a "
            f"{size(small.params)} model on {size(small.tokens)} tokens: {small.estimate.gpus:,} H100s for "
            f"{small.estimate.wall_days:.0f} days, the cheapest cluster within the longest published run, "
            f"${small.estimate.final_run_usd / 1e6:.2f}M of it the final run.")


def epoch_ratios() -> list[float]:
    """Every Epoch frontier model the explorer replays, owned by Epoch's rule at its publication month, over
    Epoch's own amortized hardware and energy cost [1]."""
    rows = {r["id"]: r for r in catalog.read_csv("epoch_frontier.csv")}
    out = []
    for _, m in models_table().iterrows():
        if m["id"] in rows and not m["missing"]:
            r = rows[m["id"]]
            s = run_scenario(m["id"]).replace(pricing="owned", amortization="epoch",
                                              price_date=r["publication_date"][:7])
            e = estimate(s)
            if math.isfinite(e.final_run_usd):
                out.append(e.final_run_usd / float(r["amortized_hardware_energy_cost_usd"]))
    return out


def epoch_block() -> str:
    """The ``epoch`` paragraph: the Epoch amortization option and how near it lands to Epoch's own points."""
    ratios = epoch_ratios()
    return ("`--amortization epoch` follows Epoch AI's method (Cottier et al. 2024, `cost_analysis_standalone.py`): the "
            "accelerator at its value when the run starts (its dated purchase price less 0.14 orders of magnitude a "
            "year of hardware progress, to `--price-date` or the price table's newest date), written off at 0.322 a "
            "year, with no hosting. Replayed so at each run's publication month, the "
            f"{len(ratios)} Epoch frontier models the explorer can replay land at a median "
            f"{statistics.median(ratios):.2f}× Epoch's own amortized hardware and energy costs (middle half "
            f"{statistics.quantiles(ratios, n=4)[0]:.2f}–{statistics.quantiles(ratios, n=4)[2]:.2f}×; 2.33× before "
            "issue 37); the rest is the explorer's own GPU-hours.")


BLOCKS = {"first": first_block, "cli": cli_block, "gpt3": gpt3_block, "people": people_block, "bases": bases_block,
          "per_flop": per_flop_block, "seller": seller_block, "owned": owned_block, "epoch": epoch_block,
          "replay": replay_block, "plan": plan_block}


def render(text: str) -> str:
    """``text`` with every generated block it holds rewritten."""
    for name, make in BLOCKS.items():
        pattern = re.compile(rf"(<!-- figures:{name} -->\n).*?(\n<!-- /figures:{name} -->)", re.S)
        if pattern.search(text):
            text = pattern.sub(lambda m: m.group(1) + make() + m.group(2), text)
    return text


def _holders() -> dict[str, list[str]]:
    """Each block's name and the documents that hold it (exactly one each, or the documents are wrong)."""
    return {name: [d.relative_to(ROOT).as_posix() for d in DOCUMENTS
                   if f"<!-- figures:{name} -->" in d.read_text(encoding="utf-8")] for name in BLOCKS}


def main(argv: list[str] | None = None) -> int:
    """Rewrite the documents' generated blocks, or with ``--check`` say whether they are current (exit 1 if not)."""
    parser = argparse.ArgumentParser(prog="python scripts/figures.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a document's blocks are stale")
    args = parser.parse_args(argv)
    misplaced = {name: where for name, where in _holders().items() if len(where) != 1}
    if misplaced:
        raise SystemExit(f"each block must be in exactly one document: {misplaced}")
    stale = []
    for document in DOCUMENTS:
        old = document.read_text(encoding="utf-8")
        new = render(old)
        if new != old:
            stale.append(document.relative_to(ROOT).as_posix())
            if not args.check:
                document.write_text(new, encoding="utf-8")
    if args.check:
        print(f"stale generated figures in {', '.join(stale)}: run `make figures`" if stale
              else "the generated figures are current")
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
