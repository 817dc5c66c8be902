"""Command line: ``python -m explorer estimate | plan | compare | attribute | simulate | catalog | history``.

Bad input prints one line naming the field, the value and what is allowed,
and exits with code 2; never a traceback. A valid question whose run cannot
happen (it fits on no cluster, misses its deadline on the largest one, or
lasts longer than ``max_run_years``) is answered, not refused: exit code 0, an
``INFEASIBLE`` line with the reason and the nearest feasible alternative, no
money (``--json``: ``"feasible": false`` and null for every money figure).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
from typing import Any, Mapping, Sequence

from explorer import __version__, catalog, prices
from explorer.errors import ScenarioError, short_repr
from explorer.hosting import commands
from explorer.messages import Message, render
from explorer.model import COST_DIMENSIONS, HIDDEN_PARTS, Estimate, estimate
from explorer.text import (LANGUAGES, MAX_NUMBER_CHARS, NumberError, breakeven_text, count_in, label, money_in,
                           parse_number, power_of_ten, quantity, quantity_in, readable_number)
from explorer.scenario import MAX_JSON_CHARS, Scenario, field_spec, range_error

__all__ = ["main", "format_estimate"]

#: Options named otherwise than their scenario field (the names of earlier versions, kept); every other field
#: is the option ``--field-name``. :func:`_scenario_options` builds one option per field of :class:`Scenario`.
_ALIASES = {
    "n_layers": "layers",
    "gpus": "gpus",
    "deadline_days": "days",
    "rate_usd_per_gpu_hour": "rate",
    "purchase_usd_per_gpu": "purchase_usd",
    "owned_utilization": "utilization",
    "experiments_multiplier": "experiments",
    "team_headcount": "team",
    "team_pay_basis": "team_pay",
}

#: Option (its ``argparse`` dest) -> scenario field, for every scenario field.
_OPTION_FIELDS = {_ALIASES.get(f.name, f.name): f.name for f in dataclasses.fields(Scenario)}

#: Where the ids of the free-text fields are listed.
_ID_HELP = {"gpu": "accelerator id (python -m explorer catalog gpus)", "region": "region id (python -m explorer "
            "catalog regions)"}


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors in the project's one-line form, exit code 2."""

    def error(self, message: str):  # noqa: D102
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def _number(text: str) -> float:
    """A number as the app's boxes read it: ``7B``, ``1.5T``, ``70e9``, ``2,048`` (:func:`explorer.text.parse_number`)."""
    try:
        return parse_number(text)
    except NumberError as exc:  # the one error of the parser: too long, past the float range, or no number
        why = {"long": f"is longer than {MAX_NUMBER_CHARS} characters",
               "range": "is outside the float range (about 2.2e-308 to 1.8e308 in size, or 0)",
               "comma": "has a comma that is no thousands separator (one needs three digits after it): "
                        "write a decimal with a dot, 3.5 not 3,5"}.get(exc.reason,
                                                                                               "is not a number")
        raise argparse.ArgumentTypeError(f"{short_repr(text, 40)} {why}") from None


def _field_number(name: str):
    """:func:`_number` for the option of scenario field ``name``: a number past the float range (``1e400``) is
    refused in the words the app's boxes and links use (:func:`explorer.scenario.range_error`)."""

    def read(text: str) -> float:
        try:
            return parse_number(text)
        except NumberError as exc:
            if exc.reason == "range":
                raise argparse.ArgumentTypeError(range_error(name, text).render("en", readable="numbers")) from None
            return _number(text)

    read.__name__ = "number"  # argparse names the type in its own messages
    return read


def _whole(text: str) -> int:
    """A whole number for ``--n`` and ``--seed`` (digits, at most :data:`~explorer.text.MAX_NUMBER_CHARS` long);
    its range is checked where it is used (``simulate``)."""
    stripped = text.strip()
    if len(stripped) > MAX_NUMBER_CHARS:
        raise argparse.ArgumentTypeError(f"{short_repr(text, 40)} is longer than {MAX_NUMBER_CHARS} characters")
    try:
        return int(stripped)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{short_repr(text, 40)} is not a whole number") from None


def _field_help(name: str) -> str:
    """An option's help from the field's label (labels.csv) and range (``field_spec``): one source for both."""
    spec = field_spec(name)
    text = _ID_HELP.get(name) or label(name, "en").replace("%", "%%")
    if spec.get("kind") in ("float", "int"):
        lo, hi = spec["min"], spec["max"]
        text += f"; {'(' if spec['lo_open'] else '['}{lo:g}, {hi:g}]"
    if spec.get("optional"):
        text += "; unset: the sourced default (explorer/data/defaults.csv)"
    return text


def _scenario_options(p: argparse.ArgumentParser, *, repeat: bool = False) -> None:
    """One option per scenario field (shared by estimate, plan, compare, attribute, simulate).

    Names, kinds, ranges and help come from :class:`~explorer.scenario.Scenario`'s fields (``field_spec``) and
    their labels; numbers are read as the app's boxes read them (``7B``, ``2,048``). ``--gpus`` and ``--days``
    exclude each other (a cluster or a deadline). With ``repeat`` (``compare``) an option may be given more than
    once, and each value is a row (:func:`_compare_rows`).
    """
    count = p.add_mutually_exclusive_group()
    for f in dataclasses.fields(Scenario):
        dest = _ALIASES.get(f.name, f.name)
        kind = field_spec(f.name).get("kind", "str")
        target = count if f.name in ("gpus", "deadline_days") else p
        options: dict = {"dest": dest, "help": _field_help(f.name)}
        if kind == "choice":
            options["choices"] = field_spec(f.name)["choices"]
        elif kind in ("float", "int"):
            options["type"] = _field_number(f.name)
        if repeat:
            options.update(action="append", help=options["help"] + "; repeatable: one row per value")
        target.add_argument("--" + dest.replace("_", "-"), **options)


def _prog() -> str:
    """The name the user typed: ``llm-cost-explorer`` (the installed command) or ``python -m explorer``."""
    return "llm-cost-explorer" if os.path.basename(sys.argv[0]) == "llm-cost-explorer" else "python -m explorer"


#: ``--help`` examples: each runs as written (tests/cli/test_cli_whatif_help.py runs every one).
EXAMPLES = {
    "": ["estimate --params 70B --tokens 1.4T --gpu h100-sxm --gpus 2048",
         "what-if --vary pricing=on_demand,spot --vary precision=bf16,fp8",
         "plan --budget-usd 5M --gpu-cap 1024",
         "estimate --params 7B --region cn-avg --currency CNY --lang zh"],
    "estimate": ["estimate --params 70B --tokens 1.4T --gpu h100-sxm --gpus 2048",
                 "estimate --params 7B --days 30 --pricing spot --json"],
    "what-if": ["what-if --vary pricing=on_demand,reserved_1y,spot --vary precision=bf16,fp8",
                "what-if --params 70B --vary gpu=h100-sxm,mi300x --vary region=us-avg,cn-avg --sort days",
                "what-if --vary pricing=on_demand,spot --vary precision=bf16,fp8 --lang zh"],
    "plan": ["plan --budget-usd 5M --gpu-cap 1024", "plan --budget 5000万 --currency CNY --lang zh"],
    "compare": ["compare --pricing on_demand --pricing spot --name on-demand --name spot"],
    "simulate": ["simulate --n 2000 --budget 3M"],
}


def _epilog(command: str) -> str:
    return "examples:\n" + "\n".join(f"  {_prog()} {line}" for line in EXAMPLES[command])


#: What ``--json`` promises whatever ``--lang`` says.
_JSON_NOTE = " (machine-readable: English keys and raw numbers whatever --lang; only warnings follow --lang)"
_JSON_HELP = "print JSON" + _JSON_NOTE


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=_prog(), description="LLM training-cost explorer.", epilog=_epilog(""),
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    est = sub.add_parser("estimate", epilog=_epilog("estimate"), formatter_class=argparse.RawDescriptionHelpFormatter,
                              help="estimate the cost of one training run")
    est.add_argument("--scenario", metavar="FILE", help="scenario JSON file; options below override its fields")
    _scenario_options(est)
    est.add_argument("--json", action="store_true", help="print one JSON object" + _JSON_NOTE)

    cmp_ = sub.add_parser("compare", epilog=_epilog("compare"), formatter_class=argparse.RawDescriptionHelpFormatter,
                               help="compare scenarios side by side (one row each)")
    cmp_.add_argument("--scenario", metavar="FILE", action="append",
                      help="scenario JSON file, repeatable (one row each); options below override every row")
    cmp_.add_argument("--name", action="append", help="row name, repeatable (default A, B, C...)")
    _scenario_options(cmp_, repeat=True)
    cmp_.add_argument("--json", action="store_true", help="print one JSON object keyed by row name" + _JSON_NOTE)

    att = sub.add_parser("attribute", help="split a cost change among levers (exact Shapley values)")
    att.add_argument("--scenario", metavar="FILE", help="baseline scenario JSON file (default: the defaults)")
    att.add_argument("--target", metavar="FILE",
                     help="target scenario JSON file (default: the baseline); options below change the target")
    _scenario_options(att)
    att.add_argument("--json", action="store_true", help="print one JSON object" + _JSON_NOTE)

    sim = sub.add_parser("simulate", epilog=_epilog("simulate"), formatter_class=argparse.RawDescriptionHelpFormatter,
                              help="Monte Carlo of the cost over the uncertain inputs (P5/P50/P95)")
    sim.add_argument("--scenario", metavar="FILE", help="scenario JSON file; options below override its fields")
    _scenario_options(sim)
    sim.add_argument("--n", type=_whole, default=10_000, help="number of draws (default 10000, at most 2,000,000)")
    sim.add_argument("--seed", type=_whole, default=0, help="random seed (default 0; 0 to 4294967295)")
    sim.add_argument("--budget", type=_number, help="budget in USD: adds the budget status")
    sim.add_argument("--gpu-cap", type=_number, help="most GPUs available, for the budget's deadline check")
    sim.add_argument("--json", action="store_true", help="print one JSON object" + _JSON_NOTE)

    pln = sub.add_parser("plan", epilog=_epilog("plan"), formatter_class=argparse.RawDescriptionHelpFormatter,
                              help="the largest compute-optimal model a budget pays for (explorer.plan)")
    money = pln.add_mutually_exclusive_group(required=True)
    money.add_argument("--budget", type=_number,
                       help="the budget in the scenario's currency (--currency; USD by default), e.g. 5M, 5e6 or "
                            "5000万: with --currency CNY it is yuan, as in the app's Plan tab")
    money.add_argument("--budget-usd", type=_number, help="the budget [USD] whatever --currency says, e.g. 5M or 5e6")
    pln.add_argument("--scope", choices=("project", "final_run"), default="project",
                     help="what the budget pays for: the whole project (default) or the final run")
    pln.add_argument("--tokens-per-param", type=_number, default=20.0,
                     help="training tokens per parameter (default 20, Chinchilla: Hoffmann et al. 2022)")
    pln.add_argument("--gpu-cap", type=_number, help="most GPUs available")
    pln.add_argument("--scenario", metavar="FILE",
                     help="base scenario JSON file (hardware, prices, team...); options below override its fields")
    _scenario_options(pln)
    pln.add_argument("--json", action="store_true",
                     help="print one JSON object; its 'scenario' is a file for estimate --scenario" + _JSON_NOTE)

    wif = sub.add_parser("what-if", epilog=_epilog("what-if"), formatter_class=argparse.RawDescriptionHelpFormatter,
                         help="every combination of two or three levers' values, sorted (the app's What-if tab)")
    wif.add_argument("--vary", action="append", required=True, metavar="LEVER=V1,V2",
                     help="a lever and the values to try, repeatable (one to three levers: pricing, precision, region, "
                          "gpu, architecture, facility, recovery, training_kind; explorer.analysis.WHAT_IF_LEVERS)")
    wif.add_argument("--sort", choices=WHAT_IF_SORTS, default="total_usd",
                     help="the column the rows are sorted by, best first (default total_usd)")
    wif.add_argument("--scenario", metavar="FILE", help="starting scenario JSON file; options below override its fields")
    _scenario_options(wif)
    wif.add_argument("--json", action="store_true", help="print one JSON object: the rows and the warnings" + _JSON_NOTE)

    cat = sub.add_parser("catalog", help="list a catalog")
    cat.add_argument("which", choices=("gpus", "regions", "defaults"))
    cat.add_argument("--json", action="store_true", help=_JSON_HELP)

    hist = sub.add_parser("history", help="historical cost curve: trend, projections, claims check")
    hist.add_argument("--method", help="cost method to fit (default: amortized)")
    hist.add_argument("--json", action="store_true", help=_JSON_HELP)
    for command in (est, pln, cmp_, att, sim, cat, wif, hist):
        command.add_argument("--lang", choices=LANGUAGES, default="en",
                             help="language of the whole output (headings, row names, units, numbers as 万/亿, "
                                  "warnings, errors): en (default) or zh; --json stays machine-readable")
    commands.register(sub, parser.prog)  # app, workshop, lab: the package's notebooks served
    return parser


def _read_scenario(path: str, option: str = "scenario") -> dict:
    """Fields of the scenario in JSON file ``path`` (validated)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(MAX_JSON_CHARS + 1)  # from_json refuses anything longer
    except OSError as exc:
        raise ScenarioError(option, path, Message("allowed_readable_file", reason=exc.strerror)) from None
    except UnicodeDecodeError:
        raise ScenarioError(option, path, Message("allowed_utf8_file")) from None
    return _scenario_from_text(text).to_dict()


def _scenario_from_text(text: str) -> Scenario:
    """The scenario of a file's JSON text; a number field may hold text as the app's boxes and the options read
    it (``"params": "70B"``, ``"gpus": "2,048"``). Anything else is :meth:`Scenario.from_json`'s to refuse."""
    try:
        data = json.loads(text) if len(text) <= MAX_JSON_CHARS else None
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        return Scenario.from_json(text)  # its refusal, or the scenario
    names = {f.name for f in dataclasses.fields(Scenario)}
    for name, value in data.items():
        if name in names and isinstance(value, str) and field_spec(name).get("kind") in ("float", "int"):
            try:
                number = parse_number(value)
            except ValueError:
                continue  # the Scenario refuses the text, naming the field
            data[name] = int(number) if field_spec(name)["kind"] == "int" and number.is_integer() else number
    return Scenario.from_dict(data)


def _scenario_from_args(args: argparse.Namespace, data: dict | None = None) -> Scenario:
    """The scenario of ``--scenario FILE`` (or ``data``) with the options on top."""
    if data is None:
        data = _read_scenario(args.scenario) if args.scenario else {}
    data = dict(data)
    for option, name in _OPTION_FIELDS.items():
        value = getattr(args, option)
        if value is not None and name not in ("gpus", "deadline_days"):  # the cluster or the deadline: below
            data[name] = value
    if args.active_params is not None or args.experts is not None:
        data.setdefault("architecture", "moe")
        if args.architecture is None:
            data["architecture"] = "moe"
    if args.gpus is not None:
        data["gpus"], data["deadline_days"] = args.gpus, None
    elif args.days is not None:
        data["gpus"], data["deadline_days"] = None, args.days
    return Scenario.from_dict(data)


def _compare_rows(args: argparse.Namespace) -> tuple[list[argparse.Namespace], list[str] | None]:
    """The rows of ``compare``: one per value of a repeated option, and their default names.

    ``compare --params 7B --params 70B`` compares both (a user who repeats an option in a command that
    compares means both; keeping the last silently would drop a row). Options repeated together pair up
    in order (``--params 7B --params 70B --tokens 140B --tokens 1.4T``: two rows), so they must be repeated
    the same number of times; an option given once applies to every row. Names: ``params=7B``, ... when the
    rows come from repeated options, else None (A, B, C...).
    """
    values = {opt: getattr(args, opt) for opt in _OPTION_FIELDS}
    repeated = {opt: v for opt, v in values.items() if v is not None and len(v) > 1}
    counts = sorted({len(v) for v in repeated.values()})
    if len(counts) > 1:
        first = next(iter(repeated))
        raise ScenarioError(first, len(repeated[first]), Message(
            "allowed_repeat_same_count", options=[_OPTION_FIELDS[o] for o in repeated]))
    rows, names = [], []
    for i in range(counts[0] if counts else 1):
        row = argparse.Namespace(**vars(args))
        for opt, v in values.items():
            setattr(row, opt, None if v is None else v[i] if len(v) > 1 else v[0])
        rows.append(row)
        if args.lang == "zh":  # the option by its field's label without the unit: 模型规模=70亿
            names.append(" ".join(
                f"{_field_name_zh(_OPTION_FIELDS[opt]).split(' [')[0]}="
                f"{readable_number(v[i], 'zh') if isinstance(v[i], (int, float)) else _zh_value('', v[i])}"
                for opt, v in repeated.items()))
            continue
        names.append(" ".join(f"{opt}={readable_number(v[i]) if isinstance(v[i], (int, float)) else v[i]}"
                              for opt, v in repeated.items()))
    return rows, (names if repeated else None)


def _fmt(x: float | None, unit: str = "") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "unknown"
    if abs(x) >= 1e15:
        text = f"{x:.3g}"
    elif abs(x) >= 100:
        text = f"{x:,.0f}"
    else:
        text = f"{x:.3g}"
    return f"{text} {unit}".rstrip()


def _memory(e: Estimate) -> str:
    m = e.memory_gb_per_gpu
    parts = ", ".join(f"{k} {m[k]:.3g}" for k in ("weights", "gradients", "optimizer", "activations"))
    return f"{m['total']:.3g} GB ({parts})"


def _layout_lines(e: Estimate) -> list[str]:
    """The parallel layout, the batch and the steps (issue 38); the parts the model chose are marked."""
    L = e.layout
    if L is None:
        return []
    chosen = ", ".join(name.replace("_", " ") for name in L.chosen)
    return [f"  layout               {L.text()}" + (f" (chosen: {chosen})" if chosen else ""),
            f"  memory in layout     {L.state_gb + L.activations_gb:.3g} GB per GPU (state {L.state_gb:.3g}, "
            f"activations {L.activations_gb:.3g}); the line above: fully sharded, the least any layout needs",
            f"  batch                {_fmt(L.batch_tokens)} tokens a step ({_fmt(L.batch_sequences)} sequences; "
            f"critical batch {_fmt(L.critical_batch_tokens)}, DeepSeek LLM 2024), {L.steps:,} steps"]


def format_estimate(e: Estimate, language: str = "en") -> str:
    """A readable table of an estimate in ``language`` ("en" or "zh": rendered from labels.csv, 万/亿 numbers)."""
    if language == "zh":
        return _format_estimate_zh(e)
    s, cur = e.scenario, e.scenario.currency
    cost = e.cost()
    total = cost["total"]
    lines = [
        f"Scenario: {s.params:.3g} params ({s.architecture}), {s.tokens:.3g} tokens, {s.gpu} {s.precision.upper()}, "
        f"{s.pricing.replace('_', '-')}{'' if s.pricing == 'owned' else ' from ' + _seller_words(s)}, region {s.region}",
        "",
        f"  train compute        {_fmt(e.train_flop, 'FLOP')}",
        f"  MFU                  {e.mfu:.3f} of {e.peak_tflops:g} TFLOP/s peak",
        f"  GPU-hours            {_fmt(e.gpu_hours)} (ideal {_fmt(e.ideal_gpu_hours)}, goodput {e.goodput:.3f})",
        f"  GPUs                 {e.gpus:,} (memory needs at least {e.min_gpus_memory:,})",
        f"  memory per GPU       {_memory(e)}",
        *_layout_lines(e),
        f"  wall-clock           {_fmt(e.wall_days, 'days')}",
        f"  energy               {_fmt(e.energy_mwh, 'MWh')} (IT {_fmt(e.energy_it_mwh, 'MWh')})",
        f"  carbon               {_fmt(e.co2_tonnes, 'tCO2')}",
        f"  whole project        {_fmt(e.energy_project_mwh, 'MWh')}, {_fmt(e.co2_project_tonnes, 'tCO2')} "
        f"(x{s.experiments_multiplier_effective:g} experiments, {e.project_months:.3g} months of people)",
        f"  price basis          {_basis_line(e)}",
    ]
    if not e.feasible:  # no money for a run that cannot happen: why, and the nearest run that can
        alt = (f"nearest feasible: {e.alternative['gpus']:,.0f} GPUs for {_fmt(e.alternative['wall_days'], 'days')}"
               if e.alternative else "no cluster the model allows makes it feasible")
        why = _INFEASIBLE_WHY[e.infeasible_reason]
        if (e.infeasible_reason == "no_fit" and e.scenario.gpus is not None and e.alternative
                and e.gpus < e.min_gpus_memory):
            why = f"does not fit in memory on {e.gpus:,} GPUs (any standard layout needs {e.min_gpus_memory:,})"
        lines[1:1] = ["", f"  INFEASIBLE           {why}; {alt}"]
        lines += ["", f"  cost ({cur})           none: a run that cannot happen has no cost (see the warnings)",
                  f"  tokens per GPU-hour  {_fmt(e.tokens_per_gpu_hour)}"]
        return "\n".join(lines + _warning_lines(e.warnings, language))
    lines += ["", f"  {'cost (' + cur + ')':<20} {'amount':>12}  {'share':>6}"]
    fx = e.usd_to_currency
    for d in COST_DIMENSIONS:
        share = cost[d] / total if total and not math.isnan(total) else math.nan
        lines.append(f"  {d:<20} {_fmt(cost[d]):>12}  {'' if math.isnan(share) else f'{share:6.1%}'}")
        if d == "hidden":
            for part in HIDDEN_PARTS:
                lines.append(f"    {_HIDDEN_NAMES[part]:<18} {_fmt(e.details_usd[part] * fx):>12}")
    lines.append(f"  {'total':<20} {_fmt(total):>12}")
    lines.append(f"  {'final run only':<20} {_fmt(e.final_run_usd * fx):>12}  (compute, losses, energy, hardware)")
    if s.pricing == "owned":
        lines += ["", *_owned_lines(e, cur, fx)]
    lines += [
        "",
        f"  {cur} per 1M tokens     {_fmt(e.usd_per_1m_tokens * fx)}",
        f"  {cur} per PFLOP-day     {_fmt(e.usd_per_pflop_day * fx)}",
        f"  tokens per GPU-hour  {_fmt(e.tokens_per_gpu_hour)}",
    ]
    return "\n".join(lines + _warning_lines(e.warnings, language))


def _zh_currency(cur: str) -> str:
    """The currency as a Chinese word (美元, 元); another code as it is."""
    return {"USD": "美元", "CNY": "元"}.get(cur, cur)


def _format_estimate_zh(e: Estimate) -> str:
    """The estimate table in Chinese, rendered from labels.csv (``cli:t:*``): counts and amounts with 万/亿
    (:func:`explorer.text.count_in`, :func:`explorer.text.quantity_in`), units as words."""
    zh = "zh"

    def t(key: str, **values) -> str:
        return label(f"cli:t:{key}", zh).format(**values)

    def row(name: str, text: str, indent: int = 2, width: int = 21) -> str:
        return " " * indent + _pad(label(f"cli:{name}", zh), width) + text

    def n(x: float) -> str:  # a count or a quantity, 万/亿
        return count_in(x, zh)

    s, cur = e.scenario, e.scenario.currency
    word = _zh_currency(cur)
    cost = e.cost()
    total = cost["total"]
    pricing = label(f"pricing_{s.pricing}", zh)
    scenario = t("scenario", params=n(s.params), architecture=label(f"arch_{s.architecture}", zh), tokens=n(s.tokens),
                 gpu=s.gpu, precision=s.precision.upper(),
                 pricing=pricing if s.pricing == "owned" else t("from", pricing=pricing, seller=_seller_words_zh(s)),
                 region=s.region)
    m = e.memory_gb_per_gpu
    lines = [scenario, "",
             row("train compute", f"{power_of_ten(e.train_flop)} FLOP"),
             row("MFU", t("mfu", mfu=f"{e.mfu:.3f}", peak=f"{e.peak_tflops:g}")),
             row("GPU-hours", t("gpu_hours", gpu_hours=n(e.gpu_hours), ideal=n(e.ideal_gpu_hours),
                                goodput=f"{e.goodput:.3f}")),
             row("GPUs", t("gpus", gpus=n(e.gpus), least=n(e.min_gpus_memory))),
             row("memory per GPU", t("memory", total=f"{m['total']:.3g}",
                                     **{k: f"{m[k]:.3g}" for k in ("weights", "gradients", "optimizer", "activations")}))]
    L = e.layout
    if L is not None:
        dp = f"{L.data_parallel:,.0f}" if float(L.data_parallel).is_integer() else f"{L.data_parallel:,.1f}"
        text = t("layout", tp=L.tensor_parallel, pp=L.pipeline_parallel, dp=dp,
                 ep=f"，EP {L.expert_parallel}" if L.expert_parallel > 1 else "", zero=L.zero_stage,
                 recompute=label(f"cli:recompute:{L.recompute}", zh))
        if L.idle_gpus:
            text += t("layout_idle", idle=n(L.idle_gpus))
        if L.chosen:
            text += t("chosen", chosen="、".join(label(f"cli:chosen:{c}", zh) for c in L.chosen))
        lines += [row("layout", text),
                  row("memory in layout", t("layout_memory", gb=f"{L.state_gb + L.activations_gb:.3g}",
                                            state=f"{L.state_gb:.3g}", activations=f"{L.activations_gb:.3g}")),
                  row("batch", t("batch", tokens=n(L.batch_tokens), sequences=n(L.batch_sequences),
                                 critical=n(L.critical_batch_tokens), steps=n(L.steps)))]
    lines += [row("wall-clock", t("days", days=n(e.wall_days))),
              row("energy", t("energy", mwh=n(e.energy_mwh), it=n(e.energy_it_mwh))),
              row("carbon", t("carbon", tco2=n(e.co2_tonnes))),
              row("whole project", t("project", mwh=n(e.energy_project_mwh), tco2=n(e.co2_project_tonnes),
                                     experiments=f"{s.experiments_multiplier_effective:g}",
                                     months=f"{e.project_months:.3g}")),
              row("price basis", _basis_zh(e))]
    if not e.feasible:
        alt = (t("nearest", gpus=n(e.alternative["gpus"]), days=n(e.alternative["wall_days"])) if e.alternative
               else t("no_cluster"))
        why = t(f"why_{e.infeasible_reason}")
        if (e.infeasible_reason == "no_fit" and e.scenario.gpus is not None and e.alternative
                and e.gpus < e.min_gpus_memory):
            why = t("why_memory", gpus=n(e.gpus), least=n(e.min_gpus_memory))
        lines[1:1] = ["", row("INFEASIBLE", f"{why}；{alt}")]
        lines += ["", "  " + _pad(t("cost_head", currency=word), 21) + t("no_cost"),
                  row("tokens per GPU-hour", n(e.tokens_per_gpu_hour))]
        return "\n".join(lines + _warning_lines(e.warnings, zh))
    amount, share = label("cli:amount", zh), label("cli:share", zh)
    lines += ["", f"  {_pad(t('cost_head', currency=word), 20)} {' ' * (12 - _width(amount))}{amount}  "
                  f"{' ' * (6 - _width(share))}{share}"]
    fx = e.usd_to_currency

    def q(x: float) -> str:
        return quantity_in(x, zh)

    for d in COST_DIMENSIONS:
        part = cost[d] / total if total and not math.isnan(total) else math.nan
        lines.append(f"  {_pad(label(f'cli:{d}', zh), 20)} {_rjust(q(cost[d]), 12)}  "
                     f"{'' if math.isnan(part) else f'{part:6.1%}'}")
        if d == "hidden":
            for p in HIDDEN_PARTS:
                lines.append(f"    {_pad(label(f'cli:{_HIDDEN_NAMES[p]}', zh), 18)} {_rjust(q(e.details_usd[p] * fx), 12)}")
    lines.append(f"  {_pad(label('cli:total', zh), 20)} {_rjust(q(total), 12)}")
    lines.append(f"  {_pad(label('cli:final run only', zh), 20)} {_rjust(q(e.final_run_usd * fx), 12)}  {t('final_parts')}")
    if s.pricing == "owned":
        o: Mapping[str, Any] = e.owned  # the keys of explorer.model.owned_summary
        rule = (t("straight_line", years=f"{o['years']:g}") if o["amortization"] == "straight_line"
                else t("epoch_rule"))
        months = "，".join(f"{label(f'pricing_{b}', zh) if f'pricing_{b}' in _label_keys() else b} "
                          f"{breakeven_text(mo, zh)}" for b, mo in o["breakeven_months"].items())
        lines += ["",
                  row("owned: capex", t("capex", capex=money_in(o["capex_usd"] * fx, cur, zh), currency=word,
                                        per_gpu=money_in(o["capital_usd_per_gpu"] * fx, cur, zh))),
                  row("amortization", t("amortization", rule=rule, utilization=f"{o['utilization']:.0%}",
                                        financing=f"{o['financing_rate']:.1%}")),
                  row("all-in per GPU-hour", t("all_in", rate=money_in(o["usd_per_gpu_hour"] * fx, cur, zh),
                                               currency=word,
                                               hosting=money_in(o["hosting_usd_per_gpu_hour"] * fx, cur, zh))),
                  row("break-even vs rent", months)]
    lines += ["",
              "  " + _pad(t("per_1m", currency=word), 21) + q(e.usd_per_1m_tokens * fx),
              "  " + _pad(t("per_pflop_day", currency=word), 21) + q(e.usd_per_pflop_day * fx),
              row("tokens per GPU-hour", n(e.tokens_per_gpu_hour))]
    return "\n".join(lines + _warning_lines(e.warnings, zh))


def _seller_words_zh(s) -> str:
    """Who sells, in Chinese: the group's label, or the provider with its date."""
    if s.seller in prices.SELLER_GROUPS:
        return label(f"seller_{s.seller}", "zh")
    date = prices.seller_date(s.seller, s.gpu) or label("unit_unknown", "zh")
    return label("seller_provider", "zh").format(name=prices.seller_name(s.seller), date=date)


def _basis_zh(e: Estimate) -> str:
    """The price basis and the rate it gives, in Chinese (:func:`_basis_line`'s words from labels.csv)."""
    s, zh = e.scenario, "zh"
    rate = money_in(e.rate_usd_per_gpu_hour * e.usd_to_currency, s.currency, zh)
    if s.pricing == "owned":
        return label("cli:t:basis_owned", zh).format(rate=rate, currency=s.currency)
    estimated = (label("cli:t:estimated", zh) if "cloud price" in e.estimated
                 else label("cli:t:derived", zh) if "cloud price (derived)" in e.estimated else "")
    typed = label("cli:t:typed", zh) if s.rate_usd_per_gpu_hour is not None else ""
    as_of = "" if typed else (label("cli:t:as_of", zh).format(date=prices.check_price_date(s.price_date))
                              if s.price_date else label("cli:t:newest", zh) if s.seller in prices.SELLER_GROUPS
                              else "")
    return label("cli:t:basis", zh).format(pricing=label(f"pricing_{s.pricing}", zh), seller=_seller_words_zh(s),
                                           as_of=as_of, rate=rate, currency=s.currency, estimated=estimated,
                                           typed=typed)


def _label_keys() -> frozenset:
    from explorer.text import labels

    return frozenset(labels())


def _warning_lines(warnings, language: str) -> list[str]:
    """The warnings block: a blank line, the heading, one line per warning (none when there are none)."""
    if not warnings:
        return []
    return ["", label("warnings", language) + ("：" if language == "zh" else ":")] + [
        f"  - {render(w, language)}" for w in warnings]


#: Why a run is infeasible, in the CLI's words (:attr:`Estimate.infeasible_reason`).
_INFEASIBLE_WHY = {"no_fit": "fits on no cluster the model allows",
                   "deadline": "misses its deadline even on the largest cluster the model allows",
                   "too_long": "would run longer than a plausible project (max_run_years)"}

_HIDDEN_NAMES = {"experiments": "experiments (R&D)", "failure_loss": "failures+restarts",
                 "other_loss": "other losses", "storage": "storage"}


def _seller_words(s) -> str:
    """Who sells, for the CLI: ``specialist clouds (median)``, ``Nebius (prices of 2026-09-25)``."""
    if s.seller in prices.SELLER_GROUPS:
        return f"{s.seller} clouds (median)" if s.seller == "specialist" else "hyperscalers (median)"
    return f"{prices.seller_name(s.seller)} (prices of {prices.seller_date(s.seller, s.gpu) or 'none for this accelerator'})"


def _basis_line(e: Estimate) -> str:
    """The price basis and the rate it gives, in words."""
    s = e.scenario
    if s.pricing == "owned":
        return f"owned: {_fmt(e.rate_usd_per_gpu_hour * e.usd_to_currency)} {s.currency}/GPU-hour of capital and hardware"
    estimated = (" (estimated)" if "cloud price" in e.estimated
                 else " (derived)" if "cloud price (derived)" in e.estimated else "")
    typed = " (typed)" if s.rate_usd_per_gpu_hour is not None else ""
    # the date the prices are from: the one asked for, else the newest (a named seller's words give its own date)
    as_of = "" if typed else (f" at prices as of {prices.check_price_date(s.price_date)}" if s.price_date
                              else " at the newest prices" if s.seller in prices.SELLER_GROUPS else "")
    return (f"{s.pricing} from {_seller_words(s)}{as_of}: {e.rate_usd_per_gpu_hour * e.usd_to_currency:.3g} "
            f"{s.currency}/GPU-hour{estimated}{typed}")


def _owned_lines(e: Estimate, cur: str, fx: float) -> list[str]:
    """Owning the cluster: capex, amortization, utilisation and the buy-versus-rent break-even."""
    o: Mapping[str, Any] = e.owned  # the keys of explorer.model.owned_summary
    rule = (f"straight line over {o['years']:g} years" if o["amortization"] == "straight_line"
            else "Epoch AI, 0.322 of the value a year")
    months = ", ".join(f"{b} {_months(m)}" for b, m in o["breakeven_months"].items())
    return [f"  owned: capex         {_fmt(o['capex_usd'] * fx)} {cur} ({_fmt(o['capital_usd_per_gpu'] * fx)} per GPU "
            "with servers and network)",
            f"  amortization         {rule}, utilisation {o['utilization']:.0%}, financing {o['financing_rate']:.1%}"
            " a year",
            f"  all-in per GPU-hour  {_fmt(o['usd_per_gpu_hour'] * fx)} {cur} (capital, hosting "
            f"{_fmt(o['hosting_usd_per_gpu_hour'] * fx)}, electricity)",
            f"  break-even vs rent   {months}"]


def _months(m: float) -> str:
    return "never" if not math.isfinite(m) else f"{m:.0f} months"


#: Column heads of the price bases in ``catalog gpus``, 10 characters at most.
_BASIS_SHORT = {"on_demand": "on_demand", "reserved_1y": "commit_1y", "reserved_3y": "commit_3y", "spot": "spot",
                "hyperscaler_on_demand": "hs_on_dem", "hyperscaler_reserved_1y": "hs_1y", "hyperscaler_reserved_3y": "hs_3y"}


def _catalog_table(which: str, as_json: bool, language: str = "en") -> str:
    if which == "gpus":
        rows = [
            {
                "id": a.id,
                "name": a.name,
                **{f"{p}_tflops": a.peak_tflops.get(p) for p in catalog.PRECISIONS},
                "memory_gb": a.memory_gb,
                "tdp_w": a.tdp_w,
                **{f"{b}_usd_per_gpu_hour": prices.quote(a.id, b).usd_per_gpu_hour for b in prices.CLOUD_BASES},
                "estimated": [b for b in prices.CLOUD_BASES if prices.quote(a.id, b).estimated],
                "derived": [b for b in prices.CLOUD_BASES if prices.quote(a.id, b).derived],
                "purchase_usd": a.purchase_usd,
            }
            for a in catalog.accelerators().values()
        ]
        header = (f"{'id':<12} {'precisions':<28} {'mem GB':>7} {'TDP W':>6}  "
                  + " ".join(f"{_BASIS_SHORT[b]:>10}" for b in prices.CLOUD_BASES)
                  + "   (USD/GPU-hour; * estimated, + derived; hs = hyperscaler)")
        body = [
            f"{a.id:<12} {','.join(a.precisions):<28} {a.memory_gb:>7g} {_fmt(a.tdp_w):>6}  "
            + " ".join(f"{_fmt(q.usd_per_gpu_hour) + ('*' if q.estimated else '+' if q.derived else ' '):>10}"
                       for q in (prices.quote(a.id, b) for b in prices.CLOUD_BASES))
            for a in catalog.accelerators().values()
        ]
    elif which == "regions":
        rows = [r.__dict__ for r in catalog.regions().values()]
        header = f"{'id':<18} {'$/kWh':>7} {'year':>5} {'gCO2/kWh':>9} {'PUE':>5}  name"
        body = [
            f"{r.id:<18} {_fmt(r.electricity_usd_per_kwh):>7} {r.price_year or '':>5} "
            f"{_fmt(r.grid_gco2_per_kwh):>9} {_fmt(r.pue):>5}  {r.name}"
            for r in catalog.regions().values()
        ]
    else:
        rows = [d.__dict__ for d in catalog.defaults().values()]
        header = f"{'name':<28} {'value':>10} {'unit':<14} source"
        body = [f"{d.name:<28} {d.value:>10g} {d.unit:<14} {d.source[:70]}" for d in catalog.defaults().values()]
    if as_json:
        return json.dumps(rows, indent=1, ensure_ascii=False)
    if language == "zh":
        return _catalog_zh(which)
    return "\n".join([header] + body)


def _catalog_zh(which: str) -> str:
    """``catalog`` in Chinese: the heads from labels.csv (``cli:catalog:<which>``), region and default names by
    their labels, money in dollars as words; the sources of the defaults are cited as published."""
    heads = label(f"cli:catalog:{which}", "zh").split("|")
    if which == "gpus":
        rows = [(a.id, [",".join(a.precisions), f"{a.memory_gb:g}", quantity_in(a.tdp_w, "zh"),
                        *[quantity_in(q.usd_per_gpu_hour, "zh") + ("*" if q.estimated else "+" if q.derived else " ")
                          for q in (prices.quote(a.id, b) for b in prices.CLOUD_BASES)]])
                for a in catalog.accelerators().values()]
        bases = [label(f"pricing_{b}", "zh") for b in prices.CLOUD_BASES]
        return heads[-1] + "\n" + _table_zh([*heads[:4], *bases], rows)
    if which == "regions":
        rows = [(r.id, [quantity_in(r.electricity_usd_per_kwh, "zh"), str(r.price_year or ""),
                        quantity_in(r.grid_gco2_per_kwh, "zh"), quantity_in(r.pue, "zh"), _field_name_zh(r.name)])
                for r in catalog.regions().values()]
        table = _table_zh(heads[:5], [(i, c[:4]) for i, c in rows]).split("\n")
        return "\n".join(f"{line}  {name}" for line, name in zip(table, [heads[5]] + [c[4] for _, c in rows]))
    rows = [(_field_name_zh(d.name), [power_of_ten(d.value) if abs(d.value) >= 1e16 else readable_number(d.value, "zh"),
                                      "" if d.unit == "1" else _field_name_zh(d.unit), d.source[:70]])
            for d in catalog.defaults().values()]  # a pure number has no unit (not "1"); no e-notation
    return "\n".join(f"{_pad(n, 28)} {_rjust(c[0], 12)} {_pad(c[1], 14)} {c[2]}"
                     for n, c in [(heads[0], heads[1:])] + rows)


def _dumps(value) -> str:
    from explorer.model import json_safe

    return json.dumps(json_safe(value), indent=1, allow_nan=False, ensure_ascii=False)


#: The labels.csv prefix of a choice field's values (``pricing_spot``, ``arch_moe``, ``kind_lora``).
_VALUE_PREFIX = {"pricing": "pricing_", "architecture": "arch_", "training_kind": "kind_", "facility": "facility_",
                 "recovery": "recovery_", "seller": "seller_"}


def _zh_value(column: str, x) -> str:
    """One cell of a Chinese table: a choice by its label, amounts and counts with 万/亿 (the unit is in the row's
    name); an id (accelerator, region) as it is."""
    if isinstance(x, str):
        for key in (f"{_VALUE_PREFIX.get(column, '')}{x}", f"pricing_{x}", f"term:{x}"):
            if key in _label_keys() and (column in _VALUE_PREFIX or key.startswith(("pricing_", "term:"))):
                return label(key, "zh")
        return x
    if x is None:
        return label("unit_unknown", "zh")
    x = float(x)
    if column == "breakeven_months":
        return breakeven_text(x, "zh")
    if column == "days":
        return quantity_in(x, "zh")
    return count_in(x, "zh")


def _field_name_zh(name: str) -> str:
    """A Scenario field or a result column by its Chinese label (labels.csv), else as it is."""
    for key in (f"cli:col:{name}", f"term:{name}", name):
        if key in _label_keys():
            return label(key, "zh")
    return name


def _table_zh(columns: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """A text table, its first column left-aligned and the rest right-aligned, in terminal columns."""
    body = [(name, cells) for name, cells in rows]
    first = max(_width(r) for r in [columns[0]] + [n for n, _ in body])
    widths = [max(_width(c) for c in [columns[i + 1]] + [cells[i] for _, cells in body])
              for i in range(len(columns) - 1)]
    lines = [_pad(columns[0], first) + "".join("  " + _rjust(c, w) for c, w in zip(columns[1:], widths))]
    lines += [_pad(n, first) + "".join("  " + _rjust(c, w) for c, w in zip(cells, widths)) for n, cells in body]
    return "\n".join(line.rstrip() for line in lines)


def _compare_zh(df) -> str:
    """``compare``'s table in Chinese: scenarios in columns, fields and results by their labels."""
    fields = set(df.attrs.get("scenario_columns", ()))
    rows = []
    for c in df.columns:
        if c in fields:
            cells = [readable_number(v, "zh") if isinstance(v, (int, float)) and not isinstance(v, bool)
                     else _zh_value(c, v) for v in df[c]]
        else:
            cells = [_zh_value(c, v) for v in df[c]]
        rows.append((_field_name_zh(c), cells))
    return _table_zh([label("cli:t:scenario_col", "zh"), *[str(i) for i in df.index]], rows)


_BUDGET_STATUS = {"within": "budget_status_within", "at_risk": "budget_status_within_risk",
                  "over": "budget_status_over", "review": "budget_status_review"}


def _lever_zh(name: str) -> str:
    """A lever of ``attribute`` by its Chinese label (labels.csv ``lever_<name>``)."""
    key = f"lever_{name}"
    return label(key, "zh") if key in _label_keys() else name


def _simulate_zh(sim, budget: dict | None) -> str:
    """``simulate``'s text in Chinese: the point, the 90% range and the percentiles, amounts with 万/亿."""
    zh = "zh"
    lo, hi = sim.interval_usd
    lines = [label("cli:t:simulate", zh).format(point=money_in(sim.point_usd, "USD", zh), lo=money_in(lo, "USD", zh),
                                                hi=money_in(hi, "USD", zh), n=f"{sim.n:,}", seed=sim.seed), ""]
    table = sim.percentiles.T
    lines.append(_table_zh(["", *[str(c) for c in table.columns]],
                           [(_field_name_zh(str(r)), [_zh_value(str(r), v) for v in table.loc[r]])
                            for r in table.index]))
    if budget is not None:
        lines += ["", label("cli:t:budget", zh).format(
            budget=money_in(budget["budget_usd"], "USD", zh), status=label(_BUDGET_STATUS[budget["status"]], zh),
            ratio=f"{budget['ratio']:.2f}", p_over=f"{budget['probability_over']:.1%}")]
        if budget["deadline_feasible"] is not None:
            key = "cli:t:deadline_ok" if budget["deadline_feasible"] else "cli:t:deadline_no"
            lines.append(label(key, zh).format(gpus=count_in(budget["gpus_needed"], zh)))
    return "\n".join(lines)


def _analysis_command(args: argparse.Namespace) -> str:
    """Output of ``compare``, ``attribute`` or ``simulate``."""
    from explorer import analysis

    if args.command == "compare":
        files = args.scenario or []
        rows, row_names = _compare_rows(args)
        # every file with every row of repeated options
        scenarios = ([_scenario_from_args(r, _read_scenario(f)) for f in files for r in rows]
                     or [_scenario_from_args(r, {}) for r in rows])
        if row_names and len(files) > 1:
            row_names = [f"{os.path.basename(f)} {n}" for f in files for n in row_names]
        df = analysis.compare(scenarios, names=args.name or row_names)
        warnings = df.attrs.get("warnings", [])
        if args.json:
            by_name = {name: {k: (v if v is None or isinstance(v, str) else float(v)) for k, v in row.items()}
                       for name, row in df.iterrows()}
            return _dumps({**by_name, "warnings": [render(w, args.lang) for w in warnings]} if warnings else by_name)
        text = (_compare_zh(df) if args.lang == "zh"
                else df.readable().T.to_string())  # scenarios in columns, fields as typed (70B), results with separators
        return "\n".join([text] + _warning_lines(warnings, args.lang))
    if args.command == "attribute":
        base = _read_scenario(args.scenario) if args.scenario else {}
        baseline = Scenario.from_dict(base)
        target = _scenario_from_args(args, _read_scenario(args.target, "target") if args.target else base)
        a = analysis.attribute(baseline, target)
        if args.json:
            return _dumps({"baseline_usd": a.baseline_usd, "target_usd": a.target_usd, "change_usd": a.change_usd,
                           "parts_usd": a.parts_usd, "inseparable": [dict(g) for g in a.inseparable],
                           "note": a.note(args.lang)})
        if args.lang == "zh":
            lines = [label("cli:t:attribute", "zh").format(
                baseline=money_in(a.baseline_usd, "USD", "zh"), target=money_in(a.target_usd, "USD", "zh"),
                change=("+" if a.change_usd >= 0 else "") + money_in(a.change_usd, "USD", "zh")), ""]
            parts = [(_lever_zh(k), ("+" if v >= 0 else "") + money_in(v, "USD", "zh"))
                     for k, v in a.parts_usd.items() if v != 0.0]
            lines += [f"  {_pad(k, 16)} {_rjust(v, 14)}" for k, v in parts]
            if a.inseparable:
                lines += ["", a.note(args.lang)]
            return "\n".join(lines)
        lines = [f"baseline {_fmt(a.baseline_usd)} USD -> target {_fmt(a.target_usd)} USD "
                 f"(change {a.change_usd:+,.0f} USD)", ""]
        lines += [f"  {k:<14} {v:>+16,.0f}" for k, v in a.parts_usd.items() if v != 0.0]
        if a.inseparable:
            lines += ["", a.note(args.lang)]
        return "\n".join(lines)
    s = _scenario_from_args(args)
    sim = analysis.simulate(s, n=args.n, seed=args.seed)
    out: dict[str, Any] = {"point_usd": sim.point_usd, "n": sim.n, "seed": sim.seed,
           "percentiles": {p: {k: float(v) for k, v in row.items()} for p, row in sim.percentiles.iterrows()}}
    if args.budget is not None:
        status = analysis.budget_status(s, args.budget, simulation=sim, gpu_cap=args.gpu_cap)
        out["budget"] = dataclasses.asdict(status)
    if args.json:
        return _dumps(out)
    lo, hi = sim.interval_usd
    if args.lang == "zh":
        return _simulate_zh(sim, out.get("budget"))
    lines = [f"total {_fmt(sim.point_usd)} USD (point); 90% range {_fmt(lo)} - {_fmt(hi)} USD "
             f"({sim.n:,} draws, seed {sim.seed})", "", sim.percentiles.T.to_string(float_format=lambda x: _fmt(x))]
    if "budget" in out:
        b = out["budget"]
        lines += ["", f"budget {_fmt(b['budget_usd'])} USD: {b['status']} (x{b['ratio']:.2f}), "
                      f"P(over) = {b['probability_over']:.1%}"]
        if b["deadline_feasible"] is not None:
            lines.append(f"deadline {'feasible' if b['deadline_feasible'] else 'not feasible'} "
                         f"with {b['gpus_needed']:,} GPUs")
    return "\n".join(lines)


#: The columns ``what-if --sort`` offers (the app's What-if sort keys), each labelled as the app labels it.
WHAT_IF_SORTS = ("total_usd", "final_run_usd", "days", "co2_tonnes", "usd_per_1m_tokens")
_SORT_LABEL = {"total_usd": "kpi_total_project", "final_run_usd": "kpi_total_run", "days": "kpi_days",
               "co2_tonnes": "kpi_co2", "usd_per_1m_tokens": "kpi_per_token"}
_MAX_VARY_VALUES = 50  # values of one lever; what_if itself refuses more than 1,000 combinations


def _levers(texts: Sequence[str]) -> dict[str, list[str]]:
    """``["pricing=on_demand,spot", ...]`` -> ``{"pricing": ["on_demand", "spot"]}``; ScenarioError when malformed.

    At most 50 values a lever are read (``what_if`` refuses more than 1,000 combinations and unknown levers)."""
    levers: dict[str, list[str]] = {}
    for text in texts:
        name, eq, values = text.partition("=")
        name = name.strip()
        items = [v.strip() for v in values.split(",") if v.strip()][:_MAX_VARY_VALUES + 1]
        if not eq or not name:  # the lever's name is checked by what_if
            raise ScenarioError("vary", text, Message("allowed_vary"))
        if not items or len(items) > _MAX_VARY_VALUES or name in levers:
            raise ScenarioError("vary", text, Message("allowed_value_per_lever"))
        levers[name] = items
    return levers


def _whatif_command(args: argparse.Namespace) -> str:
    """Output of ``what-if``: :func:`explorer.analysis.what_if` of the scenario, sorted (the What-if tab's table)."""
    from explorer.analysis import what_if

    lang = args.lang
    levers = _levers(args.vary)
    start = _scenario_from_args(args, _read_scenario(args.scenario) if args.scenario else {})
    grid = what_if(start, levers)
    warnings = grid.attrs.get("warnings", [])
    grid = grid.sort_values(args.sort, kind="stable", na_position="last")
    if args.json:
        rows = [{k: (v if v is None or isinstance(v, str) else float(v)) for k, v in row.items()}
                for row in grid.to_dict("records")]
        return _dumps({"rows": rows, "sort": args.sort, "warnings": [render(w, lang) for w in warnings]})
    cur, fx = start.currency, estimate(start).usd_to_currency
    names = list(levers)
    days = f"{label('kpi_days', lang)} [{label('unit_days', lang)}]"
    head = [label(n, lang) for n in names] + [label(_SORT_LABEL["total_usd"], lang), days,
                                              label("whatif_vs_start", lang)]
    if args.sort not in ("total_usd", "days"):
        unit = f" [{label('unit_tco2', lang)}]" if args.sort == "co2_tonnes" else ""
        head.append(label(_SORT_LABEL[args.sort], lang) + unit)
    body: list[list[str]] = []
    notes: dict[int, str] = {}
    for row in grid.to_dict("records"):
        cells = [_zh_value(n, str(row[n])) if lang == "zh" else str(row[n]) for n in names]
        if row["note"]:  # not possible: why, after the columns
            notes[len(body)] = render(row["note"], lang)
            body.append(cells)
            continue
        cells += [money_in(row["total_usd"] * fx, cur, lang, symbol=True), f"{row['days']:,.1f}",
                  f"{row['vs_start']:.2f}x"]
        if args.sort in ("final_run_usd", "usd_per_1m_tokens"):
            cells.append(money_in(row[args.sort] * fx, cur, lang, symbol=True))
        elif args.sort == "co2_tonnes":
            cells.append(f"{row['co2_tonnes']:,.1f}")
        body.append(cells)
    widths = [max(_width(r[i]) for r in [head] + body if i < len(r)) for i in range(len(head))]
    lines = [label("whatif_note", lang).format(n=len(body), currency=_zh_currency(cur) if lang == "zh" else cur), ""]
    for i, r in enumerate([head] + body):
        text = "  ".join(_pad(c, w) for c, w in zip(r, widths))
        lines.append((text + notes.get(i - 1, "")).rstrip())
    return "\n".join(lines + _warning_lines(warnings, lang))


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal: a CJK character takes two."""
    return sum(2 if "\u2e80" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _rjust(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` terminal columns (a CJK character takes two)."""
    return " " * (width - _width(text)) + text


_PLAN_CLUSTER = {"auto": "picked: the cheapest on which the run ends within the longest published run "
                          "(plan_longest_run_days), capped by --gpu-cap",
                 "base": "the GPU count given", "deadline": "solved for the deadline"}


def _plan_command(args: argparse.Namespace) -> str:
    """Output of ``plan``: the plan's figures, then the planned run's estimate (or JSON)."""
    from explorer.analysis.plan import plan

    data = _read_scenario(args.scenario) if args.scenario else {}
    # a GPU count typed (or in the file) is the cluster; otherwise the planner picks it (issue 38)
    cluster = "base" if args.gpus is not None or (data.get("gpus") is not None and args.days is None) else "auto"
    base = _scenario_from_args(args, data)
    fx = estimate(base).usd_to_currency  # the scenario's rate: a budget typed in its currency, in dollars
    budget_usd = args.budget_usd if args.budget_usd is not None else args.budget / fx
    p = plan(budget_usd, base, scope=args.scope,
             tokens_per_param=args.tokens_per_param, gpu_cap=args.gpu_cap, cluster=cluster)
    if args.json:
        out = p.to_dict()
        out["warnings"] = [render(w, args.lang) for w in p.warnings]
        return _dumps(out)
    if args.lang == "zh":
        return _plan_zh(args, p, base.currency, fx)
    scope = "whole project" if p.scope == "project" else "final run"
    cur = base.currency
    typed = (f"{_fmt(args.budget)} {cur} (--budget, in the scenario's currency) = " if args.budget is not None
             and cur != "USD" else "")
    said = (f" (--budget-usd is in dollars; --budget {_fmt(p.budget_usd * fx)} would be the same in {cur})"
            if args.budget_usd is not None and cur != "USD" else "")
    lines = [f"Plan: the largest compute-optimal model for {typed}{_fmt(p.budget_usd)} USD{said} ({scope}), "
             f"{p.tokens_per_param:g} tokens per parameter",
             f"  parameters           {quantity(p.params)}",
             f"  tokens               {quantity(p.tokens)}",
             f"  cost ({scope})".ljust(23) + f"{_fmt(p.cost_usd)} USD",
             f"  limited by           {p.limited_by.replace('_', ' ')}",
             f"  cluster              {_PLAN_CLUSTER[p.cluster]}"]
    lines += _warning_lines(p.warnings, args.lang)
    if p.estimate is not None:
        lines += ["", format_estimate(p.estimate, args.lang)]
    return "\n".join(lines)


def _plan_zh(args: argparse.Namespace, p, cur: str, fx: float) -> str:
    """``plan``'s text in Chinese, from labels.csv: amounts in the scenario's currency with 万/亿."""
    zh = "zh"
    scope = label("cli:whole project" if p.scope == "project" else "cli:final run", zh)
    typed = (label("cli:t:plan_typed", zh).format(amount=money_in(args.budget, cur, zh), currency=cur)
             if args.budget is not None and cur != "USD" else "")
    said = (label("cli:t:plan_said", zh).format(amount=quantity_in(p.budget_usd * fx, zh), currency=cur)
            if args.budget_usd is not None and cur != "USD" else "")

    def row(name: str, text: str) -> str:
        return "  " + _pad(label(f"cli:{name}", zh), 21) + text

    lines = [label("cli:t:plan", zh).format(typed=typed, budget=money_in(p.budget_usd, "USD", zh), said=said,
                                            scope=scope, tpp=f"{p.tokens_per_param:g}"),
             row("parameters", quantity_in(p.params, zh)),
             row("tokens", quantity_in(p.tokens, zh)),
             "  " + _pad(label("cli:t:plan_cost", zh).format(scope=scope), 21) + money_in(p.cost_usd, "USD", zh),
             row("limited by", label(f"plan_limited_{p.limited_by}", zh)),
             row("cluster", label(f"cli:plan_cluster:{p.cluster}", zh))]
    lines += _warning_lines(p.warnings, zh)
    if p.estimate is not None:
        lines += ["", format_estimate(p.estimate, zh)]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 for bad input)."""
    parser = _parser()
    args, extra = parser.parse_known_args(argv)
    if getattr(args, "serve", None):  # app, workshop, lab: options they do not know go to the server
        return args.serve(args, extra)
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        if args.command == "estimate":
            result = estimate(_scenario_from_args(args))
            if args.json:
                out = result.to_dict()
                out["warnings"] = [render(w, args.lang) for w in result.warnings]
                out["scenario"] = result.scenario.to_dict()  # a file for --scenario: the run can be reused
                print(_dumps(out))
            else:
                print(format_estimate(result, args.lang))
        elif args.command == "plan":
            print(_plan_command(args))
        elif args.command in ("compare", "attribute", "simulate"):
            print(_analysis_command(args))
        elif args.command == "what-if":
            print(_whatif_command(args))
        elif args.command == "catalog":
            print(_catalog_table(args.which, args.json, args.lang))
        else:
            from explorer import history

            print(history.render_report(as_json=args.json, method=args.method, language=args.lang))
    except ScenarioError as exc:
        # English as str(exc) names the field as the options do; Chinese names it by its label
        # (numbers as the options read them: 1M, not 1e+06)
        text = f"error: {exc.render('en', readable='numbers')}" if args.lang == "en" else f"错误：{exc.render(args.lang)}"
        print(text, file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader stopped early (``| head``): not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python docs, "Note on SIGPIPE"
        return 0
    return 0
