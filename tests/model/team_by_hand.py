"""The sourced tables behind the defaults that follow the run, typed from their sources, and the
least-squares line in log-log space worked by hand (closed form, no numpy), so that tests of
explorer.rules compare the code with an independent calculation.

Authors and compute: the papers named in explorer/data/team_sizes.csv (authors of the title page or the
contributions list; compute of published_runs.csv); project months: Cottier et al. 2024,
development_cost.ipynb (GPT-3 8.3, OPT-175B 6.3 = 192 days, GPT-4 12). MoE: total and active parameters of
Mixtral 8x7B (arXiv 2401.04088), Llama 4 Scout and Maverick (Meta, 2025-04-05), Qwen3-235B-A22B and
DeepSeek-V3 (arXiv 2412.19437).
"""

import math

# Cottier et al. 2024 section 2.5.1 and development_cost.ipynb: FTE share per listed contributor log-normal, 90% CI
# 5-80%; its mean exp(mu + sigma^2 / 2), mu = ln 0.2, sigma = ln 16 / 3.29 = 0.8428: 0.2853 (their cost is a sum)
FTE_PER_AUTHOR = 0.285
# the mean loaded pay of the same notebook: salary 196,227 x overhead 1.3237 + equity 184,506 = 444,245 (rounded)
AI_LAB_USD_PER_YEAR = 444_000.0
MONTHS_MAX = 60.0  # defaults.csv project_months_max: 5 years
LARGE_SCALE_FLOP = 1e23  # Epoch AI's large-scale models: the pre-training team is fitted over these runs
DAYS_PER_MONTH = 365.25 / 12

#: (training FLOP, listed authors) of published pre-training runs
PRETRAIN = [
    (2.3e19, 8),       # Transformer (big), Vaswani et al. 2017
    (2.85e20, 4),      # BERT-Large, Devlin et al. 2018
    (6 * 1.1e9 * 3e12, 4),  # TinyLlama 1.1B, ~1T tokens x ~3 epochs, Zhang et al. 2024
    (3.14e23, 31),     # GPT-3
    (4.3e23, 19),      # OPT-175B
    (5.5e23, 14),      # LLaMA-65B
    (5.76e23, 22),     # Chinchilla
    (8.1e23, 68),      # Llama 2 70B
    (3.4078e24, 199),  # DeepSeek-V3
    (2.1e25, 284),     # GPT-4 (contributors counted by Cottier et al.)
    (3.8e25, 554),     # Llama 3.1 405B
]
#: (training FLOP, project months)
MONTHS = [(3.14e23, 8.3), (4.3e23, 6.3), (2.1e25, 12.0)]
#: adaptation kind: (authors, months) of its sourced project (LoRA takes the full fine-tune's)
ADAPTATION = {"full_finetune": (8, 0.46), "lora": (8, 0.46), "continual_pretrain": (20, 4.3)}
#: (total, active) parameters of published MoE models
MOE = [(46.7e9, 12.9e9), (109e9, 17e9), (235e9, 22e9), (400e9, 17e9), (671e9, 37e9)]


def line(points):
    """(intercept, slope) of ln y = a + b ln x by least squares, worked in closed form."""
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def at(points, x):
    """The line's value at x clipped to the points' x range."""
    a, b = line(points)
    lo, hi = min(p[0] for p in points), max(p[0] for p in points)
    return math.exp(a + b * math.log(min(max(x, lo), hi)))


def large_scale():
    """The pre-training rows the team is fitted over."""
    return [(c, n) for c, n in PRETRAIN if c >= LARGE_SCALE_FLOP]


def team(train_flop, kind="pretrain"):
    """Default team [people]: the line over large-scale runs, held at the smallest below them, followed above."""
    if kind == "pretrain":
        a, b = line(large_scale())
        return FTE_PER_AUTHOR * math.exp(a + b * math.log(max(train_flop, min(c for c, _ in large_scale()))))
    return FTE_PER_AUTHOR * ADAPTATION[kind][0]


def months(train_flop, kind="pretrain"):
    """Default months before the run's length and the cap."""
    return at(MONTHS, train_flop) if kind == "pretrain" else ADAPTATION[kind][1]


def moe_share(params):
    """Default active share of an MoE."""
    return at([(n, a / n) for n, a in MOE], params)
