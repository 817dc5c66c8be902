"""The workshop's one source: writes every lesson in English and Simplified Chinese.

Run from the repository root after editing a lesson here::

    python notebooks/lessons/build_lessons.py

It writes ``notebooks/lessons/{en,zh}/NN_*.ipynb``, the bilingual index
``notebooks/lessons/index.ipynb`` and ``notebooks/claims.ipynb``, all without
outputs. ``tests/test_lessons.py`` fails when a committed notebook differs from
what this script writes, so the two languages never drift apart: each
markdown cell is written once in both languages side by side, and the code is
the same code, with labels chosen by ``t(english, chinese)``.

Every number in the text is either computed in the notebook or cited.
Importing this module writes nothing.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NOTEBOOKS = HERE.parent
LANGS = ("en", "zh")
KERNEL = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


# ------------------------------------------------------------------ cell constructors
_CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
# a line break inside a Chinese paragraph renders as a space ("成本 从"): join such lines, keeping
# breaks before a block (list item, table row, heading, quote) and around blank lines
_ZH_SOFT_BREAK = re.compile(rf"(?<=[{_CJK}])\n(?![ \t]*(?:[-*+>|#]|\d+\.|\n))|(?<=[^\n])\n(?=[{_CJK}])")


def md(en: str, zh: str) -> dict:
    """A markdown cell, in both languages (Chinese paragraphs without soft line breaks)."""
    return {"kind": "markdown", "text": {"en": en.strip("\n"), "zh": _ZH_SOFT_BREAK.sub("", zh.strip("\n"))}}


def code(source: str, *, hidden: bool = False, tags: tuple[str, ...] = ()) -> dict:
    """A code cell, the same in both languages; ``hidden`` collapses its source in JupyterLab."""
    return {"kind": "code", "source": source.strip("\n"), "hidden": hidden, "tags": tags}


def exercise(n: int, question: dict, var: str, answer: str, explain_en: str, explain_zh: str, *,
             tol: float, unit_en: str, unit_zh: str, mistakes: str = "[]", given: str = "[]") -> list:
    """An exercise a student answers in Voila (a box and a Check button) or in JupyterLab (a variable).

    ``answer`` is code that computes ``answer`` (and checks it against a paper or a hand calculation
    with ``assert``); ``mistakes`` is code for a list of ``(value, why_en, why_zh)``: answers a student
    is likely to give, each with the reason it is wrong; ``given`` is code for ``(label, value)`` pairs
    the student needs and cannot compute without code (Voila shows no code). ``tol`` is the accepted
    relative error. The checker cell's first line is a comment: JupyterLab shows the first line of a
    folded cell, and it must not give the answer away.
    """
    tol_text = f"{tol:.0%}" if tol >= 0.01 else f"{tol:.1%}"
    how_en = (f"\n\n**Answer**: {unit_en}, within ±{tol_text}. In the web page, type it in the box and press "
              f"**Check**. In JupyterLab, set `{var}` in the cell below and run it.")
    how_zh = (f"\n\n**作答**：{unit_zh}，允许误差 ±{tol_text}。网页中，在框里输入后按 **检查**。"
              f"JupyterLab 中，在下面的单元格里给 `{var}` 赋值并运行。")
    checker = (f"# Exercise {n}: the checker. Run it; open it only to see how the answer is computed.\n"
               + answer.strip("\n") + "\n"
               + f"ws.exercise({n}, answer, tolerance={tol!r}, mistakes={mistakes}, given={given},\n"
               + f"            solution=ws.t({explain_en!r},\n                          {explain_zh!r}).format(**globals()))")
    student = (f"# your answer / 你的答案: replace None, then run this cell\n{var} = None\n"
               f"ws.check({n}, {var})")
    return [
        md(f"### Exercise {n}\n\n" + question["text"]["en"] + how_en,
           f"### 练习 {n}\n\n" + question["text"]["zh"] + how_zh),
        code(checker, hidden=True, tags=("answer",)),
        code(student, tags=("exercise",)),
    ]


SETUP = '''
LANG = "{lang}"  # this notebook's language: "en" or "zh" (written by build_lessons.py)

from IPython.display import HTML, display
from matplotlib.figure import Figure

import explorer
from explorer import Scenario, estimate
from explorer.workshop import Lesson

# every helper of the lesson lives in ws (ws.t, ws.W, ws.panel, ws.table, ws.money, ws.check):
# your own variables (t, W, e, ...) never break the lesson
ws = Lesson(LANG)
ws.session()  # a notice with Reload if this page loses its kernel (culled, crashed, server restarted)
'''


def header(title_en, title_zh, overview_en, overview_zh, prereq_en, prereq_zh, minutes) -> list:
    return [
        md(f"# {title_en}\n\n---", f"# {title_zh}\n\n---"),
        md("## Overview\n\n" + overview_en, "## 概述\n\n" + overview_zh),
        md("## Prerequisites\n\n| Concept | Importance | Notes |\n| --- | --- | --- |\n" + prereq_en
           + f"\n\n- **Time to learn**: {minutes} minutes",
           "## 预备知识\n\n| 概念 | 重要性 | 说明 |\n| --- | --- | --- |\n" + prereq_zh
           + f"\n\n- **学习时间**：{minutes} 分钟"),
        md("## Imports\n\nIn JupyterLab, run the folded cell below first: it loads the cost model and a few helpers.",
           "## 导入\n\n在 JupyterLab 中，先运行下面折叠起来的单元格：它载入成本模型和几个辅助函数。"),
        code(SETUP, hidden=True, tags=("setup",)),
    ]


def footer(summary_en, summary_zh, next_en, next_zh, refs_en, refs_zh) -> list:
    return [
        md("---\n\n## Summary\n\n" + summary_en, "---\n\n## 小结\n\n" + summary_zh),
        md("### What's next?\n\n" + next_en, "### 下一步\n\n" + next_zh),
        md("## Resources and references\n\n" + refs_en, "## 资料与参考文献\n\n" + refs_zh),
        # a preheated Voila kernel (make workshop POOL=...) has run the lesson and waits here for its student
        code("ws.wait_for_viewer()", hidden=True, tags=("preheat",)),
    ]


# ------------------------------------------------------------------ lesson 1
L1 = header(
    "From FLOPs to dollars", "从 FLOP 到美元",
    """Where does the bill for training a language model come from? We follow the first source article's
estimation recipe step by step:

1. Training compute: C ≈ 6·N·D
1. GPU-hours: compute divided by what a GPU really delivers
1. Dollars: GPU-hours times the price of an hour
1. Checking the recipe against a published run (GPT-3)""",
    """训练一个语言模型的账单从哪里来？我们一步一步跟随第一篇源文章的估算方法：

1. 训练计算量：C ≈ 6·N·D
1. 卡时：计算量除以一张卡实际能提供的算力
1. 美元：卡时乘以每卡时单价
1. 用一次公开的训练（GPT-3）检验这个方法""",
    "| Python arithmetic | Necessary | |\n| Scientific notation (3e23) | Helpful | |\n"
    "| What a transformer is | Helpful | no details needed |",
    "| Python 算术 | 必需 | |\n| 科学计数法（3e23） | 有帮助 | |\n| Transformer 是什么 | 有帮助 | 不需要细节 |",
    "20–25") + [
    md("""## Compute: C ≈ 6·N·D

Each training token passes forward through every parameter once (about 2 FLOP per parameter: a multiply and an
add) and backward twice (about 4 FLOP). So training compute is about **6 × parameters × tokens**
(Kaplan et al. 2020; EleutherAI, *Transformer Math 101*). The first article writes it as
`总计算量(FLOPs) ≈ 6 × 参数量 × 训练Token数`.

GPT-3 had N = 175 billion parameters and was trained on D = 300 billion tokens (Brown et al. 2020):""",
       """## 计算量：C ≈ 6·N·D

每个训练 token 前向经过每个参数一次（每个参数约 2 FLOP：一次乘法、一次加法），反向两次（约 4 FLOP）。
所以训练计算量约为 **6 × 参数量 × token 数**（Kaplan 等 2020；EleutherAI《Transformer Math 101》）。
第一篇文章写作 `总计算量(FLOPs) ≈ 6 × 参数量 × 训练Token数`。

GPT-3 有 N = 175B（1750 亿）参数，训练了 D = 300B（3000 亿）token（Brown 等 2020）："""),
    code('''
N, D = 175e9, 300e9
C = 6 * N * D
print(ws.t(f"6·N·D = {C:.3g} FLOP", f"6·N·D = {C:.3g} FLOP"))
'''),
    md("""The model adds the attention term (12·L·d·s per token) when the shape is known; for GPT-3 it is a few
percent. `estimate()` does all of this for a whole scenario:""",
       """已知模型形状时，模型会加上注意力项（每个 token 12·L·d·s）；对 GPT-3 只有几个百分点。
`estimate()` 对整个场景完成这些计算："""),
    code('''
from explorer.presets import presets

gpt3 = presets()["gpt3"].scenario          # GPT-3 as published: V100, FP16, 10,000 GPUs
e = estimate(gpt3)
display(HTML(ws.table([
    (ws.t("training compute", "训练计算量"), f"{e.train_flop:.3g} FLOP"),
    (ws.t("of which attention", "其中注意力"), f"{e.train_flop / C - 1:.1%}"),
    (ws.t("GPU-hours (billed)", "卡时（计费）"), f"{e.gpu_hours:,.0f}"),
    (ws.t("MFU assumed (the model's V100 default, Megatron-LM; GPT-3 itself measured 0.197)",
          "假设的 MFU（模型的 V100 默认值，来自 Megatron-LM；GPT-3 实测为 0.197）"), f"{e.mfu:.3f}"),
])))
'''),
    md("""## GPU-hours and dollars

An accelerator has a peak speed P (FLOP/s) at a precision; a real run gets only a fraction *u* of it, the
**model FLOPs utilization** (MFU). Then

GPU-hours = C / (P · u · 3600), cost = GPU-hours × price per GPU-hour.

Move the sliders: the cost follows parameters × tokens, and the time falls with more GPUs while the cost
hardly moves.""",
       """## 卡时与美元

加速卡在某种精度下有峰值速度 P（FLOP/s）；实际训练只能用到其中一部分 *u*，即**模型算力利用率**（MFU）。于是

卡时 = C / (P · u · 3600)，成本 = 卡时 × 每卡时单价。

拖动滑块：成本随参数量 × token 数变化；GPU 越多，时间越短，而成本几乎不变。"""),
    code('''
def render(params_b, tokens_t, gpus):
    e = estimate(Scenario(params=params_b * 1e9, tokens=tokens_t * 1e12, gpu="h100-sxm", gpus=gpus))
    return ws.table([
        (ws.t("compute", "计算量"), f"{e.train_flop:.3g} FLOP"),
        (ws.t("GPU-hours", "卡时"), f"{e.gpu_hours:,.0f}"),
        (ws.t("days", "天数"), f"{e.wall_days:,.1f}"),
        (ws.t("compute cost (H100 on demand)", "算力成本（H100 按需）"), ws.money(e.cost_usd["compute"])),
        (ws.t("USD per 1M tokens", "每百万 token 美元"), f"{e.usd_per_1m_tokens:.3f}"),
    ] + ws.warnings(e))  # e.g. "does not fit in memory" when there are too few GPUs

ws.panel(render,
      params_b=ws.W.SelectionSlider(options=[1, 3, 7, 13, 34, 70, 175, 405, 671], value=7,
                                    description=ws.t("params [B]", "参数 [十亿]")),
      tokens_t=ws.W.SelectionSlider(options=[0.3, 1, 1.4, 2, 3, 15], value=2,
                                    description=ws.t("tokens [T]", "token [万亿]")),
      gpus=ws.W.IntSlider(value=256, min=8, max=8192, step=8, description=ws.t("GPUs", "GPU 数")))
'''),
    md("""## Checking the recipe against history

The first article's dated costs (2017 ≈ USD 900 … 2023 ≈ USD 191M) are compared with the AI Index and Epoch AI
estimates in `explorer.history`. The chart shows the frontier trend; the full fact-check is in
`claims.ipynb`.""",
       """## 用历史数据检验

第一篇文章按年份给出的成本（2017 年约 900 美元……2023 年约 1.91 亿（191M）美元）在 `explorer.history` 中与
AI Index 和 Epoch AI 的估计对比。下图是前沿模型的成本趋势；完整的核查见 `claims.ipynb`。"""),
    code('''
from explorer.history import fit_trend
from explorer.plots.history import history_figure

fit = fit_trend()
fig = history_figure(fit, language=ws.FIG_LANG)
y0, y1, g = int(fit.year.min()), int(fit.year.max()), fit.growth_per_year
ws.figure_html(fig, ws.t(f"Training cost of notable AI models from {y0} to {y1} on a log scale; the fitted frontier "
                   f"trend grows about {g:.1f} times a year.",
                   f"{y0}–{y1} 年重要 AI 模型的训练成本（对数坐标）；拟合的前沿趋势每年约增长 {g:.1f} 倍。"))
'''),
] + exercise(1, md(
    """Compute 6·N·D for GPT-3 (N = 175B parameters, D = 300B tokens) in FLOP, then compare it with the
3.14 × 10²³ FLOP that Brown et al. (2020) report (`published_runs.csv`).""",
    """计算 GPT-3 的 6·N·D（N = 175B 即 1750 亿参数，D = 300B 即 3000 亿 token），单位 FLOP，再与 Brown 等（2020）
报告的 3.14 × 10²³ FLOP 比较（`published_runs.csv`）。"""),
    "my_flop",
    '''
from explorer.presets import published_run
reported = float(published_run("GPT-3 175B (davinci)")["train_flop"])
answer = 6 * 175e9 * 300e9
ratio = answer / reported
assert abs(ratio - 1) < 0.01, ratio
''',
    "6 × 175e9 × 300e9 = {answer:.3g} FLOP, {ratio:.3f} times the reported {reported:.3g}: the rule is good to "
    "about 0.3% here.",
    "6 × 175e9 × 300e9 = {answer:.3g} FLOP，是报告值 {reported:.3g} 的 {ratio:.3f} 倍：这里的误差约 0.3%。",
    tol=0.01, unit_en="training compute in FLOP", unit_zh="训练计算量，单位 FLOP",
    mistakes='''[(answer / 6, "that is N·D; each token costs about 6 FLOP per parameter (2 forward, 4 backward).",
             "这是 N·D；每个 token 每个参数约 6 FLOP（前向 2、反向 4）。"),
            (answer / 3, "that is 2·N·D, the forward pass only; training also runs backward (4·N·D).",
             "这是 2·N·D，只算了前向；训练还要反向（4·N·D）。")]''',
) + exercise(2, md(
    """A 7B model on 2T tokens, H100 at its BF16 peak of 989.5 TFLOP/s and MFU 0.38: compute the ideal
GPU-hours by hand with 6·N·D. Then open the solution: why is `estimate(...).ideal_gpu_hours` larger?""",
    """一个 7B 模型训练 2T token，H100 BF16 峰值 989.5 TFLOP/s，MFU 0.38：用 6·N·D 手算理想卡时。
然后打开解答：为什么 `estimate(...).ideal_gpu_hours` 更大？"""),
    "my_hours",
    '''
answer = 6 * 7e9 * 2e12 / (989.5e12 * 0.38 * 3600)
model = estimate(Scenario(params=7e9, tokens=2e12, gpu="h100-sxm", gpus=256)).ideal_gpu_hours
ratio = model / answer
assert 1.0 < ratio < 1.2, ratio
''',
    "By hand 6 × 7e9 × 2e12 / (989.5e12 × 0.38 × 3600) = {answer:,.0f} GPU-hours; the model {model:,.0f} "
    "({ratio:.2f}x): it adds attention FLOP (12·L·d·s per token), which grows with the sequence length.",
    "手算 6 × 7e9 × 2e12 / (989.5e12 × 0.38 × 3600) = {answer:,.0f} 卡时；模型 {model:,.0f}（{ratio:.2f} 倍）："
    "模型加上了注意力计算量（每个 token 12·L·d·s），它随序列长度增长。",
    tol=0.01, unit_en="GPU-hours", unit_zh="卡时",
    mistakes='''[(answer * 3600, "that is GPU-seconds; divide by 3,600 seconds per hour.",
             "这是卡秒；再除以每小时 3600 秒。"),
            (answer * 0.38 ** 2, "you multiplied by the MFU; divide by it: a GPU delivers only 38% of its peak.",
             "你乘以了 MFU；应除以它：一张卡只发挥峰值的 38%。"),
            (answer * 0.38, "you left out the MFU: a GPU delivers only 38% of its peak, so divide by 0.38.",
             "你漏掉了 MFU：一张卡只发挥峰值的 38%，要除以 0.38。")]''',
) + footer(
    """- Training compute is about 6 × parameters × tokens; attention adds a few percent at common lengths.
- GPU-hours = compute / (peak × MFU × 3600); cost = GPU-hours × price.
- More GPUs shorten the run; they do not make it cheaper.""",
    """- 训练计算量约为 6 × 参数量 × token 数；常见序列长度下注意力只多几个百分点。
- 卡时 = 计算量 / (峰值 × MFU × 3600)；成本 = 卡时 × 单价。
- 更多 GPU 缩短时间，但不降低成本。""",
    "Lesson 2, [Utilization and precision](02_utilization_precision.ipynb): what MFU and FP8 do to these numbers.",
    "第 2 课，[利用率与精度](02_utilization_precision.ipynb)：MFU 和 FP8 如何改变这些数字。",
    """- Kaplan et al. 2020, *Scaling Laws for Neural Language Models* (arXiv 2001.08361)
- Brown et al. 2020, *Language Models are Few-Shot Learners* (arXiv 2005.14165)
- EleutherAI, *Transformer Math 101*
- Stanford HAI, *AI Index Report 2024*, chapter 1""",
    """- Kaplan 等 2020，*Scaling Laws for Neural Language Models*（arXiv 2001.08361）
- Brown 等 2020，*Language Models are Few-Shot Learners*（arXiv 2005.14165）
- EleutherAI，*Transformer Math 101*
- 斯坦福 HAI，《AI Index Report 2024》第 1 章""")


# ------------------------------------------------------------------ lesson 2
L2 = header(
    "Utilization and precision", "利用率与精度",
    """1. MFU: the share of the peak a run really uses, and what runs achieve
1. Why 50% vs 80% utilization changes unit cost by about 60%
1. What FP8 really buys: speed, and memory (weights vs optimizer state)""",
    """1. MFU：训练实际用到的峰值比例，以及真实训练能达到多少
1. 为什么 50% 与 80% 的利用率会让单位成本相差约 60%
1. FP8 真正带来什么：速度，以及显存（权重与优化器状态）""",
    "| [Lesson 1](01_flops_to_dollars.ipynb) | Necessary | 6·N·D, GPU-hours |\n| Floating-point formats | Helpful | |",
    "| [第 1 课](01_flops_to_dollars.ipynb) | 必需 | 6·N·D、卡时 |\n| 浮点数格式 | 有帮助 | |",
    "25") + [
    md("""## MFU: how much of the peak a run uses

Across 62 runs in Epoch AI's database the median MFU is 0.38 and the middle half lies between 0.30 and 0.50;
GPT-3 on V100 measured 0.197 (Patterson et al. 2021), PaLM 0.46 (Chowdhery et al. 2022). Cost per token is
proportional to 1 / MFU: move the slider.""",
       """## MFU：训练用到了多少峰值

Epoch AI 数据库中 62 次训练的 MFU 中位数为 0.38，中间一半在 0.30 到 0.50 之间；GPT-3 在 V100 上实测为 0.197
（Patterson 等 2021），PaLM 为 0.46（Chowdhery 等 2022）。每个 token 的成本与 1 / MFU 成正比：拖动滑块看看。"""),
    code('''
# the compute bill alone: no data or team (their costs do not depend on MFU)
base = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024, data_usd_per_1m_tokens=0, team_headcount=0)

def render(mfu):
    e = estimate(base.replace(mfu=mfu))
    ref = estimate(base.replace(mfu=0.38))
    return ws.table([
        (ws.t("USD per 1M tokens", "每百万 token 美元"), f"{e.usd_per_1m_tokens:.3f}"),
        (ws.t("vs the median MFU 0.38", "相对 MFU 中位数 0.38"), f"{e.usd_per_1m_tokens / ref.usd_per_1m_tokens:.2f}x"),
        (ws.t("days on 1,024 H100", "1024 张 H100 天数"), f"{e.wall_days:.1f}"),
    ] + ws.warnings(e))

ws.panel(render, mfu=ws.W.FloatSlider(value=0.38, min=0.1, max=0.8, step=0.01, description="MFU"))
'''),
    md("""## What FP8 buys

On paper FP8 doubles the peak (H100: 1,979 vs 989.5 TFLOP/s). Measured end-to-end speed-ups are 1.1–1.35×
(MosaicML llm-foundry; NVIDIA Megatron-Bridge 1.28×), because much of a step is not matrix multiplication.
Memory: FP8 training computes the matrix products in FP8 but keeps the weights in BF16, and mixed-precision
AdamW keeps FP32 master weights and two FP32 moments, 12 bytes per parameter (Rajbhandari et al. 2020, ZeRO;
Micikevicius et al. 2022; DeepSeek-V3 section 3.3). What shrinks is the cached activations: only the inputs of
the linear layers are stored in FP8.""",
       """## FP8 带来什么

纸面上 FP8 让峰值翻倍（H100：1979 对 989.5 TFLOP/s）。实测端到端加速只有 1.1–1.35 倍（MosaicML llm-foundry；
NVIDIA Megatron-Bridge 1.28 倍），因为一步训练中很多时间不是矩阵乘法。显存：FP8 训练用 FP8 做矩阵乘法，
但权重仍以 BF16 保存，混合精度 AdamW 还保留 FP32 主权重和两个 FP32 动量，每个参数 12 字节（Rajbhandari 等 2020，ZeRO；
Micikevicius 等 2022；DeepSeek-V3 第 3.3 节）。变小的是缓存的激活：只有线性层的输入以 FP8 保存。"""),
    code('''
def render(precision, gpus):
    e = estimate(base.replace(precision=precision, gpus=gpus))
    m = e.memory_gb_per_gpu
    return ws.table([(ws.t(k, {"weights": "权重", "gradients": "梯度", "optimizer": "优化器状态",
                          "activations": "激活", "total": "合计"}[k]), f"{m[k]:.2f} GB") for k in m]
                 + [(ws.t("GPU-hours", "卡时"), f"{e.gpu_hours:,.0f}"), (ws.t("MFU vs this precision's peak",
                     "相对该精度峰值的 MFU"), f"{e.mfu:.3f}")] + ws.warnings(e))

ws.panel(render, precision=ws.W.ToggleButtons(options=["bf16", "fp8"], description=ws.t("precision", "精度")),
      gpus=ws.W.IntSlider(value=64, min=16, max=1024, step=16, description=ws.t("GPUs", "GPU 数")))
'''),
    code('''
fig = Figure(figsize=(6, 2.6))
ax = fig.subplots()
parts = ["weights", "gradients", "optimizer", "activations"]
names = {"weights": ws.t("weights", "权重"), "gradients": ws.t("gradients", "梯度"), "optimizer": ws.t("optimizer", "优化器"),
         "activations": ws.t("activations", "激活")}
for row, prec in enumerate(["bf16", "fp8"]):
    m = estimate(base.replace(precision=prec, gpus=64)).memory_gb_per_gpu
    left = 0
    for i, p in enumerate(parts):
        ax.barh(row, m[p], left=left, color=f"C{i}", label=names[p] if row == 0 else None)
        left += m[p]
ax.set_yticks([0, 1], ["BF16", "FP8"])
ax.set_xlabel(ws.t("memory per GPU [GB], 70B on 64 GPUs", "每卡显存 [GB]，70B，64 卡"), **ws.TEXT_KW)
ax.legend(prop={"family": ws.TEXT_KW.get("fontfamily", ["DejaVu Sans"])}, loc="upper center",
          bbox_to_anchor=(0.5, -0.3), ncol=4, frameon=False)
ws.figure_html(fig, ws.t("Stacked bars of memory per GPU for BF16 and FP8: weights, gradients and optimizer state are "
                   "the same; only the activations segment shrinks.",
                   "BF16 与 FP8 每卡显存的堆叠条形图：权重、梯度和优化器状态不变；只有激活部分变短。"))
'''),
] + exercise(1, md(
    """The first article says 50% vs 80% utilization changes unit cost by about 60%. What is the unit cost at
MFU 0.5 divided by the unit cost at MFU 0.8? (Cost per token ∝ 1 / MFU; in JupyterLab you can check it with
`usd_per_1m_tokens` of `base`.) Is "60%" right, and in which direction?""",
    """第一篇文章说利用率 50% 与 80% 相比，单位成本相差约 60%。MFU 0.5 时的单位成本除以 MFU 0.8 时的单位成本是多少？
（每个 token 的成本 ∝ 1 / MFU；在 JupyterLab 中可以用 `base` 的 `usd_per_1m_tokens` 验证。）“60%”对吗？是哪个方向？"""),
    "ratio",
    '''
answer = estimate(base.replace(mfu=0.5)).usd_per_1m_tokens / estimate(base.replace(mfu=0.8)).usd_per_1m_tokens
assert abs(answer - 0.8 / 0.5) < 1e-6, answer
''',
    "{answer:.2f}x: the 50% run costs 60% more per token; seen from the other side the 80% run costs 37.5% less.",
    "{answer:.2f} 倍：50% 的训练每个 token 贵 60%；反过来看，80% 的训练便宜 37.5%。",
    tol=0.01, unit_en="a ratio, e.g. 1.25", unit_zh="一个比值，例如 1.25",
    mistakes='''[(0.5 / 0.8, "that is the 80% run's cost divided by the 50% run's: the ratio upside down.",
             "这是 80% 训练的成本除以 50% 训练的成本：比值倒过来了。"),
            (0.6, "that is the difference as a fraction; give the ratio of the two costs (1 + the difference).",
             "这是差额的比例；请给出两个成本的比值（1 + 差额）。"),
            (0.375, "that is how much less the 80% run costs; the question asks for the 50% cost over the 80% cost.",
             "这是 80% 训练便宜的比例；题目问的是 50% 成本除以 80% 成本。")]''',
) + exercise(2, md(
    """The second article says FP8 needs about 50% less memory than FP16. By what fraction does the memory per GPU
(the "total" row: training state + activations) shrink with FP8? Use the table above with 64 GPUs, switching
between bf16 and fp8 (in JupyterLab: `memory_gb_per_gpu` of `base` on 64 GPUs).""",
    """第二篇文章说 FP8 比 FP16 少用约 50% 显存。用 FP8 时，每卡显存（“合计”一行：训练状态 + 激活）减少多少比例？
用上面的表格（64 卡），在 bf16 与 fp8 之间切换（JupyterLab 中：`base` 在 64 卡上的 `memory_gb_per_gpu`）。"""),
    "saved",
    '''
mem = {p: estimate(base.replace(precision=p, gpus=64)).memory_gb_per_gpu for p in ("bf16", "fp8")}
state = {p: mem[p]["weights"] + mem[p]["gradients"] + mem[p]["optimizer"] for p in mem}
answer = 1 - mem["fp8"]["total"] / mem["bf16"]["total"]
act = 1 - mem["fp8"]["activations"] / mem["bf16"]["activations"]
assert state["fp8"] == state["bf16"] and 0 < answer < act < 0.5, (answer, act)  # only activations shrink
''',
    "{answer:.1%}: the training state (weights, gradients, optimizer: 16 bytes per parameter) is the same in FP8; "
    "only the cached activations shrink, by {act:.0%}. The claim holds for the FP8 matrix inputs, not for memory.",
    "{answer:.1%}：训练状态（权重、梯度、优化器：每个参数 16 字节）在 FP8 下不变；只有缓存的激活减少 {act:.0%}。"
    "这个说法对 FP8 的矩阵输入成立，对显存不成立。",
    tol=0.05, unit_en="a fraction (0.1) or a percentage (10%)", unit_zh="一个比例（0.1）或百分数（10%）",
    mistakes='''[(0.5, "that halves everything; FP8 training keeps BF16 weights, gradients and the 12 bytes of "
                  "FP32 optimizer state per parameter. Only the cached activations shrink.",
             "这是全部减半；FP8 训练仍保留 BF16 权重、梯度和每个参数 12 字节的 FP32 优化器状态。只有缓存的激活变小。"),
            (act, "that is the activations alone; the question asks for the whole memory per GPU (the total row).",
             "这只是激活；题目问的是每卡全部显存（合计一行）。")]''',
) + footer(
    """- MFU of real runs: median 0.38, middle half 0.30–0.50; cost per token ∝ 1 / MFU.
- 50% vs 80%: the slower run costs 60% more per token.
- FP8: measured 1.1–1.35× faster; shrinks the cached activations, not the weights or the optimizer state.""",
    """- 真实训练的 MFU：中位数 0.38，中间一半 0.30–0.50；每 token 成本 ∝ 1 / MFU。
- 50% 对 80%：较慢的训练每个 token 贵 60%。
- FP8：实测快 1.1–1.35 倍；缓存的激活变小，权重和优化器状态不变。""",
    "Lesson 3, [Architecture and scaling](03_architecture_scaling.ipynb).",
    "第 3 课，[架构与规模](03_architecture_scaling.ipynb)。",
    """- Epoch AI, *Notable AI Models* database (MFU)
- Rajbhandari et al. 2020, *ZeRO* (arXiv 1910.02054)
- Micikevicius et al. 2022, *FP8 Formats for Deep Learning* (arXiv 2209.05433)
- Korthikanti et al. 2022, *Reducing Activation Recomputation* (arXiv 2205.05198)""",
    """- Epoch AI，*Notable AI Models* 数据库（MFU）
- Rajbhandari 等 2020，*ZeRO*（arXiv 1910.02054）
- Micikevicius 等 2022，*FP8 Formats for Deep Learning*（arXiv 2209.05433）
- Korthikanti 等 2022，*Reducing Activation Recomputation*（arXiv 2205.05198）""")


# ------------------------------------------------------------------ lesson 3
L3 = header(
    "Architecture and scaling", "架构与规模",
    """1. Mixture of experts: active vs total parameters, compute vs memory
1. Compute-optimal size: about 20 tokens per parameter (Chinchilla) and the loss formula
1. LoRA and continual pre-training vs training from scratch""",
    """1. 混合专家（MoE）：激活参数与总参数，计算与显存
1. 计算最优规模：每个参数约 20 个 token（Chinchilla）与损失公式
1. LoRA、继续预训练与从头训练""",
    "| [Lesson 2](02_utilization_precision.ipynb) | Necessary | MFU, memory |",
    "| [第 2 课](02_utilization_precision.ipynb) | 必需 | MFU、显存 |",
    "25–30") + [
    md("""## Mixture of experts

An MoE layer routes each token to a few experts: compute follows the **active** parameters Na, memory the
**total** N. DeepSeek-V3 has 671B parameters, 37B active (DeepSeek-AI 2024). MoE runs reach lower MFU than
dense ones (the model uses 0.77× the dense MFU, NVIDIA NeMo figures), so the saving is smaller than Na/N.""",
       """## 混合专家

MoE 层把每个 token 路由到少数几个专家：计算量取决于**激活**参数 Na，显存取决于**总**参数 N。
DeepSeek-V3 共 671B（6710 亿）参数，激活 37B（370 亿）（DeepSeek-AI 2024）。MoE 训练的 MFU 低于稠密模型
（模型取稠密 MFU 的 0.77 倍，来自 NVIDIA NeMo 数据），所以节省小于 Na/N。"""),
    code('''
dense = Scenario(params=70e9, tokens=1.4e12, gpu="h100-sxm", gpus=1024)

def render(active_share):
    d = estimate(dense)
    m = estimate(dense.replace(architecture="moe", active_params=70e9 * active_share))
    return ws.table([
        (ws.t("FLOP vs dense", "计算量相对稠密"), f"{m.train_flop / d.train_flop:.2f}x"),
        (ws.t("GPU-hours vs dense", "卡时相对稠密"), f"{m.gpu_hours / d.gpu_hours:.2f}x"),
        (ws.t("fewest GPUs for memory", "显存所需最少 GPU"), f"{m.min_gpus_memory} ({ws.t('dense', '稠密')} {d.min_gpus_memory})"),
    ])

ws.panel(render, active_share=ws.W.FloatSlider(value=0.25, min=0.05, max=1.0, step=0.05,
                                         description=ws.t("active share", "激活比例")))
'''),
    md("""## Compute-optimal parameters and tokens

Hoffmann et al. (2022) fitted the loss of a model with N parameters trained on D tokens as
L(N, D) = E + A / N^α + B / D^β, and found the best split of a fixed compute C = 6·N·D at roughly
**20 tokens per parameter**. The rounded constants printed in their paper (E = 1.69, A = 406.4, B = 410.7,
α = 0.34, β = 0.28) do not reproduce that: their optimum lands near 90 tokens per parameter. Besiroglu et al.
(2024) refitted the same formula to the paper's data: E = 1.82, A = 482.01, B = 2085.43, α = 0.3478,
β = 0.3658, whose optimum is near 20, in line with Hoffmann et al.'s other two methods. This lesson uses
the refit. Move the slider: at fixed compute, too few or too many tokens per parameter gives a higher loss.""",
       """## 计算最优的参数量与 token 数

Hoffmann 等（2022）把 N 个参数、D 个 token 训练出的损失拟合为 L(N, D) = E + A / N^α + B / D^β，
并发现在固定计算量 C = 6·N·D 下，最优分配大约是**每个参数 20 个 token**。但论文正文中四舍五入后的常数
（E = 1.69，A = 406.4，B = 410.7，α = 0.34，β = 0.28）并不能得到这个结果：其最优点在每个参数约 90 个 token 附近。
Besiroglu 等（2024）用论文的数据重新拟合了同一公式：E = 1.82，A = 482.01，B = 2085.43，α = 0.3478，β = 0.3658，
最优点在 20 附近，与 Hoffmann 等的另外两种方法一致。本课使用重新拟合的结果。拖动滑块：计算量固定时，
每个参数的 token 太少或太多，损失都会更高。"""),
    code('''
import numpy as np

def chinchilla_loss(n, d):
    """Besiroglu et al. 2024 (arXiv 2404.10102), table 1: the refit of Hoffmann et al. 2022's approach 3."""
    return 1.82 + 482.01 / n**0.3478 + 2085.43 / d**0.3658

C_chin = 5.76e23  # Chinchilla's training compute (published_runs.csv)

def split(tokens_per_param):
    n = (C_chin / (6 * tokens_per_param)) ** 0.5
    return n, tokens_per_param * n

grid = np.logspace(0, 3, 3001)
best = grid[np.argmin([chinchilla_loss(*split(r)) for r in grid])]
print(ws.t(f"lowest loss at {best:.0f} tokens per parameter", f"损失最低点：每个参数 {best:.0f} 个 token"))

def render(tokens_per_param):
    n, d = split(tokens_per_param)
    return ws.table([(ws.t("parameters", "参数量"), f"{n / 1e9:.1f} B"), (ws.t("tokens", "token 数"), f"{d / 1e12:.2f} T"),
                     (ws.t("predicted loss", "预测损失"), f"{chinchilla_loss(n, d):.4f}")])

ws.panel(render, tokens_per_param=ws.W.FloatLogSlider(value=20, base=10, min=0, max=3,
                                                      description=ws.t("tokens/param", "token/参数")))
'''),
    md("""## LoRA and continual pre-training

LoRA freezes the model and trains small adapters: no weight gradients, so about 4·N·D instead of 6·N·D, and
far less memory. Continual pre-training starts from a trained model, so you pay only for the new tokens:
Code Llama 34B continued Llama 2 34B on 500B tokens (Rozière et al. 2023) after 2T tokens of pre-training
(Touvron et al. 2023).""",
       """## LoRA 与继续预训练

LoRA 冻结模型、只训练小的适配器：没有权重梯度，所以约 4·N·D 而不是 6·N·D，显存也少得多。
继续预训练从已训练好的模型出发，只为新 token 付费：Code Llama 34B 在 Llama 2 34B（预训练 2T token，
Touvron 等 2023）的基础上继续训练了 500B token（Rozière 等 2023）。"""),
    code('''
from explorer.presets import presets
rows = []
for key in ("lora_70b", "continual_34b"):
    p = presets()[key]
    e = estimate(p.scenario)
    rows.append((p.name[ws.LANG], f"{ws.money(e.cost_usd['compute'])}, {e.gpu_hours:,.0f} {ws.t('GPU-hours', '卡时')}"))
display(HTML(ws.table(rows)))
'''),
] + exercise(1, md(
    """Chinchilla used C = 5.76 × 10²³ FLOP. With D = 20·N and C = 6·N·D, what N is compute-optimal? Compare
with Chinchilla's 70B.""",
    """Chinchilla 用了 C = 5.76 × 10²³ FLOP。若 D = 20·N 且 C = 6·N·D，计算最优的 N 是多少？与 Chinchilla 的
70B 比较。"""),
    "n_opt",
    '''
answer = (5.76e23 / 120) ** 0.5
assert abs(answer / 70e9 - 1) < 0.02, answer
''',
    "C = 6·N·(20·N) = 120·N², so N = √(C / 120) = {answer:.3g}: 69B, the 70B DeepMind trained on 1.4T tokens.",
    "C = 6·N·(20·N) = 120·N²，所以 N = √(C / 120) = {answer:.3g}：690 亿，正是 DeepMind 用 1.4T token 训练的 70B。",
    tol=0.02, unit_en="parameters, e.g. 5e10 or 50B", unit_zh="参数个数，例如 5e10 或 50B",
    mistakes='''[(20 * answer, "that is D = 20·N, the tokens; the question asks for the parameters N.",
             "这是 D = 20·N，即 token 数；题目问的是参数量 N。"),
            (answer ** 2, "that is N², not N: take the square root.", "这是 N²，不是 N：要开平方。"),
            ((5.76e23 / 6) ** 0.5, "you left out D = 20·N: C = 6·N·(20·N) = 120·N².",
             "你漏掉了 D = 20·N：C = 6·N·(20·N) = 120·N²。")]''',
) + exercise(2, md(
    """DeepSeek-V3 activates 37B of 671B parameters. What fraction of the FLOP of a dense model of the same
total size does the MoE need, per `estimate()`? (Open the solution for the GPU-hours.)""",
    """DeepSeek-V3 在 671B（6710 亿）参数中激活 37B（370 亿）。按 `estimate()`，同样总规模的 MoE 需要稠密模型多少比例的计算量？
（卡时见解答。）"""),
    "flop_share",
    '''
big = Scenario(params=671e9, tokens=14.8e12, gpu="h800", precision="bf16", gpus=2048)
d_e = estimate(big)
m_e = estimate(big.replace(architecture="moe", active_params=37e9))
answer = m_e.train_flop / d_e.train_flop
hours = m_e.gpu_hours / d_e.gpu_hours
assert abs(answer - 37 / 671) < 0.005 and hours > answer, (answer, hours)
''',
    "FLOP {answer:.1%} of dense (≈ 37/671), GPU-hours {hours:.1%}: the MoE's lower MFU eats part of the saving; "
    "its memory is still that of 671B parameters.",
    "计算量为稠密的 {answer:.1%}（≈ 37/671），卡时为 {hours:.1%}：MoE 较低的 MFU 吃掉了一部分节省；显存仍是 6710 亿参数的。",
    tol=0.02, unit_en="a fraction (0.1) or a percentage (10%)", unit_zh="一个比例（0.1）或百分数（10%）",
    mistakes='''[(1.0, "that is a dense model: compute follows the active parameters (37B), not the total (671B).",
             "这是稠密模型：计算量取决于激活参数（37B），而不是总参数（671B）。"),
            (hours, "that is the share of GPU-hours (lower MFU included); the question asks for FLOP.",
             "这是卡时的比例（含较低的 MFU）；题目问的是计算量。")]''',
) + footer(
    """- MoE: compute follows active parameters, memory total ones; lower MFU trims the saving.
- Compute-optimal: about 20 tokens per parameter (Chinchilla).
- LoRA saves memory and about a third of compute per token; continual pre-training pays only for new tokens.""",
    """- MoE：计算量取决于激活参数，显存取决于总参数；较低的 MFU 会减少节省。
- 计算最优：每个参数约 20 个 token（Chinchilla）。
- LoRA 省显存，每个 token 约省三分之一计算；继续预训练只为新 token 付费。""",
    "Lesson 4, [Buying compute](04_buying_compute.ipynb).",
    "第 4 课，[购买算力](04_buying_compute.ipynb)。",
    """- Hoffmann et al. 2022, *Training Compute-Optimal Large Language Models* (arXiv 2203.15556)
- Besiroglu et al. 2024, *Chinchilla Scaling: A replication attempt* (arXiv 2404.10102)
- DeepSeek-AI 2024, *DeepSeek-V3 Technical Report* (arXiv 2412.19437)
- Hu et al. 2021, *LoRA* (arXiv 2106.09685); Rozière et al. 2023, *Code Llama* (arXiv 2308.12950)""",
    """- Hoffmann 等 2022，*Training Compute-Optimal Large Language Models*（arXiv 2203.15556）
- Besiroglu 等 2024，*Chinchilla Scaling: A replication attempt*（arXiv 2404.10102）
- DeepSeek-AI 2024，*DeepSeek-V3 Technical Report*（arXiv 2412.19437）
- Hu 等 2021，*LoRA*（arXiv 2106.09685）；Rozière 等 2023，*Code Llama*（arXiv 2308.12950）""")


# ------------------------------------------------------------------ lesson 4
L4 = header(
    "Buying compute", "购买算力",
    """1. On-demand, reserved, spot and owned: what an hour costs
1. Failures, checkpoints and goodput
1. When owning beats renting""",
    """1. 按需、预留、竞价与自建：一卡时多少钱
1. 故障、检查点与有效产出（goodput）
1. 什么时候自建比租用划算""",
    "| [Lesson 1](01_flops_to_dollars.ipynb) | Necessary | GPU-hours |",
    "| [第 1 课](01_flops_to_dollars.ipynb) | 必需 | 卡时 |",
    "25") + [
    md("""## Four ways to pay

- **On demand**: the list price (catalog, per accelerator).
- **Reserved**: 1-year ≈ 25–41% off, 3-year ≈ 49–64% off (Epoch AI; AWS, GCP, Azure).
- **Spot**: typical discounts 30–70% (aggregators), and preemptions you must survive.
- **Owned**: purchase price × server overhead, network ≈ 19% of capital, straight-line over 5 years, plus energy.""",
       """## 四种付费方式

- **按需**：目录价（每种加速卡）。
- **预留**：1 年约便宜 25–41%，3 年约 49–64%（Epoch AI；AWS、GCP、Azure）。
- **竞价**：常见折扣 30–70%（价格聚合网站），并且要扛得住被抢占。
- **自建**：采购价 × 服务器系数，网络约占资本 19%，按 5 年直线折旧，另加电费。"""),
    code('''
from explorer.presets import presets
run = presets()["startup_7b"].scenario

def render(pricing):
    e = estimate(run.replace(pricing=pricing))
    c = e.cost_usd
    return ws.table([(ws.t(k, {"compute": "算力", "energy": "电力", "hardware": "硬件", "total": "合计"}[k]), ws.money(c[k]))
                  for k in ("compute", "energy", "hardware", "total")]
                 + [(ws.t("USD per GPU-hour (machine)", "每卡时美元（机器）"), f"{e.final_run_usd / e.gpu_hours:.2f}")])

ws.panel(render, pricing=ws.W.Dropdown(options=ws.options(["on_demand", "hyperscaler_on_demand", "reserved_1y",
                                                     "reserved_3y", "spot", "owned"], "pricing_"),
                                    value="on_demand", description=ws.t("pricing", "计价")))
'''),
    md("""## Failures, checkpoints and goodput

Llama 3 saw 419 unexpected interruptions in 54 days on 16,384 H100s, about 2 × 10⁻⁵ per GPU-hour (Llama Team
2024). Each failure loses the work since the last checkpoint plus the restart time. Checkpoint every
τ ≈ √(2·δ·MTBF) (Young/Daly), with δ the time to write one. **Goodput** is the useful share of the hours.""",
       """## 故障、检查点与有效产出

Llama 3 在 16384 张 H100 上 54 天内遇到 419 次意外中断，约每卡时 2 × 10⁻⁵ 次（Llama Team 2024）。
每次故障会丢掉上次检查点之后的工作，外加重启时间。检查点间隔 τ ≈ √(2·δ·MTBF)（Young/Daly），
δ 是写一次检查点的时间。**有效产出**（goodput）是有用工时所占比例。"""),
    code('''
big = presets()["llama31_405b"].scenario

def render(failures_per_million, restart_minutes):
    e = estimate(big.replace(failure_rate_per_gpu_hour=failures_per_million / 1e6, restart_minutes=restart_minutes))
    return ws.table([(ws.t("goodput", "有效产出"), f"{e.goodput:.1%}"), (ws.t("GPU-hours", "卡时"), f"{e.gpu_hours:,.0f}"),
                  (ws.t("lost to failures (work since the checkpoint, restarts)", "故障损失（检查点之后的工作、重启）"),
                   ws.money(e.details_usd["failure_loss"])),
                  (ws.t("other lost hours (evaluations, stragglers, stack restarts)", "其他损失工时（评估、慢节点、软件重启）"),
                   ws.money(e.details_usd["other_loss"]))])

ws.panel(render,
      failures_per_million=ws.W.FloatSlider(value=19.7, min=0, max=100, step=0.1,
                                         description=ws.t("fail/1M GPU-h", "每百万卡时故障")),
      restart_minutes=ws.W.FloatSlider(value=10, min=1, max=120, step=1, description=ws.t("restart [min]", "重启 [分钟]")))
'''),
] + exercise(1, md(
    """Llama 3's cluster: 16,384 GPUs at 1.97 × 10⁻⁵ failures per GPU-hour, 0.5 minutes to write a checkpoint.
Compute the mean time between failures (MTBF) of the cluster, then the Young/Daly checkpoint interval
τ = √(2·δ·MTBF) in minutes.""",
    """Llama 3 的集群：16384 张 GPU，每卡时故障 1.97 × 10⁻⁵ 次，写一次检查点 0.5 分钟。先算集群的平均故障间隔（MTBF），
再算 Young/Daly 检查点间隔 τ = √(2·δ·MTBF)，单位分钟。"""),
    "tau_minutes",
    '''
from explorer.model.formulas import daly_checkpoint_interval_hours
mtbf_h = 1 / (16384 * 1.97e-5)
answer = 60 * (2 * (0.5 / 60) * mtbf_h) ** 0.5          # Young 1974
daly_min = 60 * float(daly_checkpoint_interval_hours(mtbf_h, 0.5 / 60))  # Daly 2006, what the model uses
assert abs(answer / daly_min - 1) < 0.05, (answer, daly_min)
''',
    "MTBF = 1 / (16,384 × 1.97e-5) = {mtbf_h:.2f} h; τ = √(2 × 0.5 min × MTBF) = {answer:.1f} minutes; "
    "Daly's higher-order formula, which the model uses, gives {daly_min:.1f}.",
    "MTBF = 1 / (16384 × 1.97e-5) = {mtbf_h:.2f} 小时；τ = √(2 × 0.5 分钟 × MTBF) = {answer:.1f} 分钟；"
    "模型使用的 Daly 高阶公式给出 {daly_min:.1f} 分钟。",
    tol=0.05, unit_en="minutes", unit_zh="分钟",
    mistakes='''[(answer / 60, "that is hours; the question asks for minutes.", "这是小时；题目要的是分钟。"),
            (answer * 60, "that is seconds; the question asks for minutes.", "这是秒；题目要的是分钟。"),
            (answer / 2 ** 0.5, "you left out the factor 2 under the square root: τ = √(2·δ·MTBF).",
             "你漏掉了根号里的 2：τ = √(2·δ·MTBF)。"),
            (answer * 128, "you used one GPU's MTBF; a cluster of 16,384 GPUs fails 16,384 times as often.",
             "你用了单张卡的 MTBF；16384 张卡的集群故障频率是它的 16384 倍。")]''',
) + exercise(2, md(
    """Owning: the machine cost per GPU-hour of owned GPUs (`final_run_usd / gpu_hours` of
`estimate(run.replace(pricing="owned"))`) assumes they are busy all year. If your GPUs are busy only a fraction f
of the year, each busy hour costs that divided by f. Below what f does renting at the 3-year committed rate win?
The two hourly costs are shown under the question.""",
    """自建：自建 GPU 的每卡时机器成本（`estimate(run.replace(pricing="owned"))` 的 `final_run_usd / gpu_hours`）
假设它们全年忙碌。如果 GPU 一年中只有 f 的时间在忙，每个忙碌小时的成本就要除以 f。f 低于多少时，按 3 年承诺价租用更划算？
两个小时成本列在题目下方。"""),
    "break_even",
    '''
owned = estimate(run.replace(pricing="owned"))
owned_hourly = owned.final_run_usd / owned.gpu_hours
rented = estimate(run.replace(pricing="reserved_3y"))
rented_hourly = rented.final_run_usd / rented.gpu_hours
answer = owned_hourly / rented_hourly
assert 0 < answer < 1, answer
''',
    "f = {owned_hourly:.2f} / {rented_hourly:.2f} = {answer:.2f}: owning wins while the GPUs are busy more than "
    "{answer:.0%} of the time (people, hosting and resale not counted).",
    "f = {owned_hourly:.2f} / {rented_hourly:.2f} = {answer:.2f}：GPU 忙碌时间超过 {answer:.0%} 时自建更划算"
    "（未计人力、托管和残值）。",
    tol=0.02, unit_en="a fraction (0.1) or a percentage (10%)", unit_zh="一个比例（0.1）或百分数（10%）",
    given='''[(ws.t("owned: USD per busy GPU-hour at f = 1", "自建：f = 1 时每个忙碌卡时美元"), f"{owned_hourly:.2f}"),
           (ws.t("3-year committed: USD per GPU-hour", "3 年承诺：每卡时美元"), f"{rented_hourly:.2f}")]''',
) + footer(
    """- Reserved and spot cut the hourly rate; spot adds preemptions, which large synchronous jobs feel most.
- Failures cost τ/2 + restart each; checkpoint near √(2·δ·MTBF).
- Owning wins only when the GPUs stay busy.""",
    """- 预留和竞价降低小时单价；竞价带来抢占，大型同步训练受影响最大。
- 每次故障损失 τ/2 + 重启时间；检查点间隔取 √(2·δ·MTBF) 附近。
- 只有 GPU 持续忙碌时，自建才划算。""",
    "Lesson 5, [Energy, region and carbon](05_energy_region_carbon.ipynb).",
    "第 5 课，[能源、地区与碳排放](05_energy_region_carbon.ipynb)。",
    """- Llama Team 2024, *The Llama 3 Herd of Models* (arXiv 2407.21783), section 3.3.4
- Daly 2006, *A higher order estimate of the optimum checkpoint interval*
- Cottier et al. 2024, *The rising costs of training frontier AI models* (Epoch AI)""",
    """- Llama Team 2024，*The Llama 3 Herd of Models*（arXiv 2407.21783）第 3.3.4 节
- Daly 2006，*A higher order estimate of the optimum checkpoint interval*
- Cottier 等 2024，*The rising costs of training frontier AI models*（Epoch AI）""")


# ------------------------------------------------------------------ lesson 5
L5 = header(
    "Energy, region and carbon", "能源、地区与碳排放",
    """1. From GPU-hours to MWh: TDP, server power, average load and PUE
1. Electricity prices and grid carbon by region
1. "East Data West Compute": moving training to western China""",
    """1. 从卡时到兆瓦时：TDP、服务器功率、平均负载与 PUE
1. 各地区电价与电网碳强度
1. “东数西算”：把训练放到中国西部""",
    "| [Lesson 4](04_buying_compute.ipynb) | Helpful | owned vs cloud |",
    "| [第 4 课](04_buying_compute.ipynb) | 有帮助 | 自建与云 |",
    "20–25") + [
    md("""## From GPU-hours to energy

kWh = GPU-hours × TDP × server factor × average power fraction × PUE. A DGX H100 draws 10.2 kW for eight
700 W GPUs (server factor ≈ 1.8); training averages ≈ 0.75 of that (Epoch AI); PUE is ≈ 1.1 for hyperscale
sites and ≈ 1.56 on average (Uptime Institute). Check: GPT-3 used 1,287 MWh (Patterson et al. 2021).""",
       """## 从卡时到能耗

kWh = 卡时 × TDP × 服务器系数 × 平均功率比例 × PUE。DGX H100 八张 700 W GPU 共耗电 10.2 kW（服务器系数约 1.8）；
训练时平均约为其 0.75（Epoch AI）；超大规模数据中心 PUE 约 1.1，行业平均约 1.56（Uptime Institute）。
检验：GPT-3 用电 1287 MWh（Patterson 等 2021）。"""),
    code('''
from explorer.presets import presets
e = estimate(presets()["gpt3"].scenario)
display(HTML(ws.table([(ws.t("model: facility energy", "模型：设施能耗"), f"{e.energy_mwh:,.0f} MWh"),
                    (ws.t("measured (Patterson et al. 2021)", "实测（Patterson 等 2021）"), "1,287 MWh"),
                    (ws.t("model: emissions", "模型：排放"), f"{e.co2_tonnes:,.0f} tCO2")])))
'''),
    md("""## Region: price and carbon

The same owned run in different regions (prices and grid intensity from `explorer/data/regions.csv`, each with
its source). In the cloud the hourly rate already includes power; the region then changes carbon, not the bill.""",
       """## 地区：电价与碳排放

同一次自建训练放在不同地区（电价与电网碳强度来自 `explorer/data/regions.csv`，各有出处）。在云上，小时单价已含电费；
地区改变的是碳排放，而不是账单。"""),
    code('''
from explorer import catalog
run = presets()["startup_7b"].scenario.replace(pricing="owned")
priced = [r for r, reg in catalog.regions().items() if reg.electricity_usd_per_kwh]

def render(region, pue):
    e = estimate(run.replace(region=region, pue=pue))
    reg = catalog.region(region)
    return ws.table([(ws.t("electricity", "电价"), f"{reg.electricity_usd_per_kwh} USD/kWh ({reg.price_year})"),
                  (ws.t("energy", "能耗"), f"{e.energy_mwh:,.1f} MWh"),
                  (ws.t("energy cost", "电费"), ws.money(e.cost_usd["energy"])),
                  (ws.t("emissions", "排放"), f"{e.co2_tonnes:,.1f} tCO2")])

region_names = [(ws.label("term:" + catalog.region(r).name) if ws.LANG == "zh" else catalog.region(r).name, r)
                for r in priced]
ws.panel(render, region=ws.W.Dropdown(options=region_names, value="cn-avg", description=ws.t("region", "地区")),
      pue=ws.W.FloatSlider(value=1.3, min=1.0, max=2.0, step=0.05, description="PUE"))
'''),
    code('''
names = ["cn-avg", "cn-ningxia", "cn-inner-mongolia", "us-avg", "se"]
fig = Figure(figsize=(6, 2.8))
ax1, ax2 = fig.subplots(1, 2)
ax1.barh(names, [catalog.region(r).electricity_usd_per_kwh for r in names], color="C0")
ax1.set_xlabel(ws.t("USD/kWh", "美元/千瓦时"), **ws.TEXT_KW)
ax2.barh(names, [catalog.region(r).grid_gco2_per_kwh for r in names], color="C3")
ax2.set_xlabel(ws.t("gCO2/kWh", "克CO2/千瓦时"), **ws.TEXT_KW)
ax2.set_yticks(range(len(names)), [""] * len(names))
cheap = min(names, key=lambda r: catalog.region(r).electricity_usd_per_kwh)
clean = min(names, key=lambda r: catalog.region(r).grid_gco2_per_kwh)
ws.figure_html(fig, ws.t(f"Two bar charts for {', '.join(names)}: electricity price (USD/kWh) and grid carbon "
                   f"intensity (gCO2/kWh). Cheapest power: {cheap}; cleanest grid: {clean}.",
                   f"{', '.join(names)} 的两个条形图：电价（美元/千瓦时）与电网碳强度（克CO2/千瓦时）。"
                   f"电价最低：{cheap}；电网最清洁：{clean}。"))
'''),
] + exercise(1, md(
    """Recompute GPT-3's facility energy in MWh by hand with the formula above: GPU-hours × 300 W (V100 TDP) ×
server factor × average power fraction × PUE. The values `estimate` used are under the question (in JupyterLab:
`e.gpu_hours` and `e.assumptions`).""",
    """用上面的公式手算 GPT-3 的设施能耗（MWh）：卡时 × 300 W（V100 TDP）× 服务器系数 × 平均功率比例 × PUE。
`estimate` 使用的数值列在题目下方（JupyterLab 中：`e.gpu_hours` 和 `e.assumptions`）。"""),
    "my_mwh",
    '''
gpt3_e = estimate(presets()["gpt3"].scenario)
used = {a.name: a.value for a in gpt3_e.assumptions}
factor = next(v for k, v in used.items() if "server" in k and "power" in k)
avg = next(v for k, v in used.items() if k.startswith("avg_power"))
pue_used = next(v for k, v in used.items() if "pue" in k.lower())
gpu_h = gpt3_e.gpu_hours
answer = gpu_h * 300 * factor * avg * pue_used / 1e6
assert abs(answer / gpt3_e.energy_mwh - 1) < 0.01, (answer, gpt3_e.energy_mwh)
''',
    "{answer:,.0f} MWh = {gpu_h:,.0f} GPU-hours × 300 W × {factor} × {avg} × PUE {pue_used} / 10⁶; the measured "
    "1,287 MWh (Patterson et al. 2021) is within about 25%.",
    "{answer:,.0f} MWh = {gpu_h:,.0f} 卡时 × 300 W × {factor} × {avg} × PUE {pue_used} / 10⁶；与实测 1287 MWh"
    "（Patterson 等 2021）相差约 25% 以内。",
    tol=0.01, unit_en="MWh", unit_zh="兆瓦时（MWh）",
    mistakes='''[(answer / pue_used, "you left out the PUE (cooling and power losses of the facility).",
             "你漏掉了 PUE（数据中心的冷却与供电损耗）。"),
            (answer / factor, "you left out the server factor (CPUs, network and fans around the GPUs).",
             "你漏掉了服务器系数（GPU 之外的 CPU、网络和风扇）。"),
            (answer / avg, "you left out the average power fraction: GPUs do not draw their TDP all the time.",
             "你漏掉了平均功率比例：GPU 并非一直满功率运行。")]''',
    given='''[(ws.t("GPU-hours", "卡时"), f"{gpu_h:,.0f}"), (ws.t("server factor", "服务器系数"), f"{factor}"),
           (ws.t("average power fraction", "平均功率比例"), f"{avg}"), ("PUE", f"{pue_used}")]''',
) + exercise(2, md(
    """The second article: western data centres cut power cost by 40%. Compare the energy cost of `run` in
`cn-ningxia` and `cn-avg` at the same PUE 1.3 (the table above, or `estimate` in JupyterLab). By what fraction is
Ningxia's energy cost lower? Open the solution for what happens to emissions.""",
    """第二篇文章：西部数据中心电力成本可降低 40%。在相同 PUE 1.3 下比较 `run` 在 `cn-ningxia` 与 `cn-avg` 的电费
（用上面的表格，或在 JupyterLab 中用 `estimate`）。宁夏的电费低多少比例？排放怎样变化，见解答。"""),
    "saving",
    '''
west = estimate(run.replace(region="cn-ningxia", pue=1.3))
avg_cn = estimate(run.replace(region="cn-avg", pue=1.3))
answer = 1 - west.cost_usd["energy"] / avg_cn.cost_usd["energy"]
co2 = west.co2_tonnes / avg_cn.co2_tonnes
assert abs(answer - (1 - 0.0508 / 0.0905)) < 1e-6 and co2 > 1, (answer, co2)
''',
    "{answer:.0%} cheaper power (Ningxia 0.0508 vs 0.0905 USD/kWh), but {co2:.2f}x the emissions: the western grids "
    "emit more CO2 per kWh (regions.csv).",
    "电费便宜 {answer:.0%}（宁夏 0.0508 对 0.0905 美元/千瓦时），但排放是 {co2:.2f} 倍：西部电网每千瓦时排放的 CO2 更多（regions.csv）。",
    tol=0.02, unit_en="a fraction (0.1) or a percentage (10%)", unit_zh="一个比例（0.1）或百分数（10%）",
    mistakes='''[(1 - answer, "that is Ningxia's cost as a share of the average (0.0508 / 0.0905); the saving is 1 minus it.",
             "这是宁夏电费占平均水平的比例（0.0508 / 0.0905）；节省的是 1 减去它。")]''',
) + footer(
    """- Energy = GPU-hours × TDP × server factor × average load × PUE; the model is within ~25% of GPT-3's measured 1,287 MWh.
- Cheaper power and cleaner power are different regions.
- In the cloud, power is inside the hourly rate.""",
    """- 能耗 = 卡时 × TDP × 服务器系数 × 平均负载 × PUE；模型与 GPT-3 实测 1287 MWh 相差约 25%。
- 便宜的电和清洁的电往往不在同一个地区。
- 在云上，电费已包含在小时单价中。""",
    "Lesson 6, [Budgeting and governance](06_budgeting_governance.ipynb).",
    "第 6 课，[预算与治理](06_budgeting_governance.ipynb)。",
    """- Patterson et al. 2021, *Carbon Emissions and Large Neural Network Training* (arXiv 2104.10350)
- Uptime Institute, *Global Data Center Survey* (PUE)
- `explorer/data/regions.csv` (sources per row)""",
    """- Patterson 等 2021，*Carbon Emissions and Large Neural Network Training*（arXiv 2104.10350）
- Uptime Institute，*Global Data Center Survey*（PUE）
- `explorer/data/regions.csv`（每行有出处）""")


# ------------------------------------------------------------------ lesson 6
L6 = header(
    "Budgeting and governance", "预算与治理",
    """1. The full lifecycle: compute is one of six cost dimensions
1. Fixed vs elastic costs, and a budget threshold (the first article's 120% review rule)
1. Attributing a cost change to concrete actions, not to "the model got bigger\"""",
    """1. 全周期：算力只是六个成本维度之一
1. 固定成本与弹性成本，以及预算阈值（第一篇文章的 120% 复核规则）
1. 把成本变化归因到具体动作，而不是笼统地说“模型变大了”""",
    "| Lessons [1](01_flops_to_dollars.ipynb)–[5](05_energy_region_carbon.ipynb) | Helpful | |",
    "| 第 [1](01_flops_to_dollars.ipynb)–[5](05_energy_region_carbon.ipynb) 课 | 有帮助 | |",
    "25–30") + [
    md("""## Six dimensions

The first article splits cost into compute, energy, data, people, hardware and hidden costs. Published figures
such as DeepSeek-V3's USD 5.576M (2.788M H800-hours × USD 2) are the final run only. Add a team, data and
experiments (total development compute is ≈ 1.2–4× the final run, Epoch AI) and watch the shares move.""",
       """## 六个维度

第一篇文章把成本分为算力、电力、数据、人才、硬件和隐性成本。公开数字如 DeepSeek-V3 的 5.576M 美元（557.6 万）
（2.788M 即 278.8 万 H800 卡时 × 2 美元）只是最终一次训练。加上团队、数据和实验（总研发算力约为最终训练的 1.2–4 倍，Epoch AI），
看各部分占比如何变化。"""),
    code('''
from explorer import COST_DIMENSIONS
from explorer.presets import presets
from explorer.text import label
base = presets()["startup_7b"].scenario
plan = estimate(base)
used = {a.name: a.value for a in plan.assumptions}
default_experiments = used["experiments_multiplier"]  # by kind of training: 2.2x for pre-training

def render(headcount, experiments, data_usd_per_1m):
    e = estimate(base.replace(team_headcount=headcount, experiments_multiplier=experiments,
                              data_usd_per_1m_tokens=data_usd_per_1m))
    total = e.cost_usd["total"]
    return ws.table([(label(f"dim_{d}", ws.LANG), f"{ws.money(e.cost_usd[d])} ({e.cost_usd[d] / total:.0%})")
                     for d in COST_DIMENSIONS] + [(ws.t("total", "合计"), ws.money(total))])

ws.panel(render,
         headcount=ws.W.IntSlider(value=8, min=0, max=50, description=ws.t("team", "团队人数")),
         experiments=ws.W.FloatSlider(value=default_experiments, min=1.0, max=4.0, step=0.1,
                                      description=ws.t("experiments ×", "实验倍数")),
         data_usd_per_1m=ws.W.FloatSlider(value=0.0, min=0.0, max=1.0, step=0.01,
                                          description=ws.t("data USD/1M tokens", "数据 美元/百万 token")))
'''),
    md("""The team's cost is the model's default: a loaded cost per person-year at an AI lab, over the whole
project, not only the final run (`defaults.csv`, with its source). Put in your own. Fixed costs (cluster, core
team) run whatever you do; elastic ones (experiments, trial runs, evaluations) should come from elastic supply.""",
       """团队成本取模型的默认值：AI 实验室每人每年的全成本，按整个项目计算，而不只是最终训练（`defaults.csv`，附出处）。
请填入你自己的数字。固定成本（集群、核心团队）无论做什么都在发生；弹性成本（实验、试跑、评估）应优先用弹性资源满足。"""),
    code('''
ws.show_table([(ws.t("people: loaded cost per person-year", "人员：每人每年全成本"),
                ws.money(used["team_loaded_usd_per_year_ai_lab"])),
               (ws.t("project length", "项目时长"), f"{used['project_months']} " + ws.t("months", "个月")),
               (ws.t("experiments (x the final run)", "实验（最终训练的倍数）"), f"{default_experiments}")])
'''),
    md("""## Uncertainty and the 120% rule

A plan is a point estimate; MFU alone spreads it widely (middle half of measured runs 0.30–0.50). This cell uses
`explorer.simulate` (the analysis module) to draw the uncertain inputs.""",
       """## 不确定性与 120% 规则

计划只是一个点估计；单是 MFU 就会让它大幅波动（实测训练的中间一半为 0.30–0.50）。本单元格用 `explorer.simulate`
（分析模块）对不确定的输入抽样。"""),
    code('''
import numpy as np
sim = explorer.simulate(base, n=2000, seed=0)
totals = np.asarray(sim.totals_usd)
over = float(np.mean(totals > 1.2 * plan.total_usd))
ws.show_table([(ws.t("plan", "计划"), ws.money(plan.total_usd)),
               ("P5 / P50 / P95", " / ".join(ws.money(v) for v in np.percentile(totals, [5, 50, 95]))),
               (ws.t("chance over 120% of plan", "超过计划 120% 的概率"), f"{over:.0%}")])
'''),
    md("""## Attributing a change

"The run got more expensive" is not an explanation. Name the actions: here the baseline moves to FP8 and spot
pricing, and the team adds one more final run's worth of experiments (from 2.2× to 3.2× the final run's
compute). `explorer.attribute` splits the change fairly among them (Shapley values).""",
       """## 成本变化归因

“训练变贵了”不是解释。要说出具体动作：这里基线改为 FP8 和竞价实例，同时团队多做相当于一次最终训练的实验
（从最终训练算力的 2.2 倍增加到 3.2 倍）。`explorer.attribute` 把变化公平地分给这些动作（Shapley 值）。"""),
    code('''
actions = {"precision": "fp8", "pricing": "spot", "experiments_multiplier": default_experiments + 1.0}
target = base.replace(**actions)
parts = dict(explorer.attribute(base, target).parts_usd)
change = estimate(target).total_usd - estimate(base).total_usd
names = {"precision": ws.t("FP8 instead of BF16", "FP8 代替 BF16"), "pricing": ws.t("spot pricing", "竞价实例"),
         "experiments": ws.t(f"experiments {default_experiments:g}x -> {default_experiments + 1:g}x",
                                        f"实验 {default_experiments:g} 倍 -> {default_experiments + 1:g} 倍")}
# each action's part of the change: negative saves money, positive adds cost
ws.show_table([(names.get(k, k), ws.money(v)) for k, v in parts.items() if v != 0])
'''),
] + exercise(1, md(
    """The 120% rule: at what MFU does `base` (planned at MFU 0.38) cost 120% of its compute plan? Cost per token
is proportional to 1 / MFU; in JupyterLab, check with `estimate`.""",
    """120% 规则：`base`（按 MFU 0.38 做计划）的 MFU 降到多少时，算力成本达到计划的 120%？每个 token 的成本与 1 / MFU
成正比；在 JupyterLab 中用 `estimate` 检验。"""),
    "trigger",
    '''
answer = 0.38 / 1.2
ratio = estimate(base.replace(mfu=answer)).cost_usd["compute"] / estimate(base.replace(mfu=0.38)).cost_usd["compute"]
assert abs(ratio - 1.2) < 1e-6, ratio
''',
    "MFU 0.38 / 1.2 = {answer:.3f}: inside the 0.30-0.50 middle half of real runs, so with an uncertain MFU the "
    "rule fires often. Use it with a plan whose spread you know.",
    "MFU 0.38 / 1.2 = {answer:.3f}：落在真实训练 0.30–0.50 的中间一半内，所以 MFU 不确定时这条规则会经常触发。"
    "应配合已知波动范围的计划使用。",
    tol=0.01, unit_en="an MFU, e.g. 0.3", unit_zh="一个 MFU，例如 0.3",
    mistakes='''[(0.38 * 1.2, "a higher MFU makes the run cheaper; the cost grows as the MFU falls, so divide by 1.2.",
             "MFU 越高训练越便宜；成本随 MFU 下降而上升，所以要除以 1.2。"),
            (0.38 * 0.8, "cost ∝ 1 / MFU, so 120% of the cost means MFU / 1.2, not MFU × 0.8.",
             "成本 ∝ 1 / MFU，所以成本为 120% 意味着 MFU / 1.2，而不是 MFU × 0.8。")]''',
) + exercise(2, md(
    """Add up the parts of the attribution table above: by how many US dollars does the total change? (A saving
is negative.) Then open the solution: do the parts add up to the change, and which action saved the most?""",
    """把上面归因表中的各部分加起来：总成本变化多少美元？（节省为负数。）然后打开解答：各部分之和等于总变化吗？哪个动作省得最多？"""),
    "total_change",
    '''
assert abs(sum(parts.values()) - change) <= 1e-6 * max(1.0, abs(change)), (sum(parts.values()), change)
answer = change
saved_most = names[min(parts, key=parts.get)]
added = ", ".join(names[k] for k, v in parts.items() if v > 0) or ws.t("none", "无")
''',
    "The parts add up to the total change, {answer:,.0f} USD. The biggest saving is <b>{saved_most}</b>; the "
    "action that adds cost: {added}. Name such actions in the budget instead of hiding them in a total.",
    "各部分之和等于总变化 {answer:,.0f} 美元。省得最多的是 <b>{saved_most}</b>；增加成本的动作：{added}。"
    "要在预算中写明这些动作，而不是把它们藏在总数里。",
    tol=0.02, unit_en="US dollars, e.g. -250000 or -250k", unit_zh="美元，例如 -250000 或 -250k",
    mistakes='''[(sum(v for v in parts.values() if v < 0), "you added only the savings; the added experiments count too.",
             "你只加了节省的部分；增加的实验成本也要算上。")]''',
) + footer(
    """- Published costs are usually the final run; the project also pays for data, people and experiments.
- A threshold such as 120% only makes sense next to the plan's own spread.
- Attribute every change to named actions.""",
    """- 公开的成本通常只是最终训练；项目还要为数据、人员和实验付费。
- 像 120% 这样的阈值，只有与计划本身的波动范围一起看才有意义。
- 把每一次变化归因到具体动作。""",
    "The [claims notebook](../../claims.ipynb) checks every number of the two source articles. The full app: "
    "`notebooks/explorer.ipynb`.",
    "[论断核查笔记本](../../claims.ipynb)逐一核查两篇源文章的数字。完整应用：`notebooks/explorer.ipynb`。",
    """- Cottier et al. 2024, *The rising costs of training frontier AI models* (Epoch AI)
- DeepSeek-AI 2024, *DeepSeek-V3 Technical Report*, table 1
- Shapley 1953, *A value for n-person games*""",
    """- Cottier 等 2024，*The rising costs of training frontier AI models*（Epoch AI）
- DeepSeek-AI 2024，*DeepSeek-V3 Technical Report* 表 1
- Shapley 1953，*A value for n-person games*""")


LESSONS = (
    ("01_flops_to_dollars", L1),
    ("02_utilization_precision", L2),
    ("03_architecture_scaling", L3),
    ("04_buying_compute", L4),
    ("05_energy_region_carbon", L5),
    ("06_budgeting_governance", L6),
)
TITLES = {
    "01_flops_to_dollars": ("From FLOPs to dollars", "从 FLOP 到美元"),
    "02_utilization_precision": ("Utilization and precision", "利用率与精度"),
    "03_architecture_scaling": ("Architecture and scaling", "架构与规模"),
    "04_buying_compute": ("Buying compute", "购买算力"),
    "05_energy_region_carbon": ("Energy, region and carbon", "能源、地区与碳排放"),
    "06_budgeting_governance": ("Budgeting and governance", "预算与治理"),
}


# ------------------------------------------------------------------ index and claims notebook
def index_cells() -> list:
    rows_en = "\n".join(f"{i}. [{TITLES[s][0]}](en/{s}.ipynb) · [{TITLES[s][1]}](zh/{s}.ipynb)"
                        for i, (s, _) in enumerate(LESSONS, 1))
    return [md(f"""# Training cost of large language models: a workshop · 大模型训练成本工作坊

Six lessons of 20–30 minutes each, in order. Each lesson exists in English and in Simplified Chinese.
六节课，每节 20–30 分钟，按顺序学习。每节课都有英文版和简体中文版。

{rows_en}
{len(LESSONS) + 1}. [Fact-check of the source articles · 源文章论断核查](../claims.ipynb)

Facilitators: see `docs/workshop.md`. 讲师请看 `docs/workshop.md`。""", "")]


CLAIMS_CELLS = [
    md("""# Fact-check: every quantitative claim of the two source articles · 源文章论断核查

Each claim of article A, 《大模型训练成本全维度拆解与优化指南》, and article B,
《大模型训练成本怎么控制，大模型训练成本优化》, is tested by a scenario of the cost model or by sourced data in `explorer/data/`, and given a
verdict that is computed, not typed in: **holds**, **holds only under stated conditions**,
**does not hold**, or **cannot be checked** (no sourced figure to test it against). The code is `explorer/claims.py`; the dated cost figures come from
`explorer.history.check_claims`. Add `?lang=zh` to the address (or press 中文 below) for every verdict and
explanation in Chinese.

两篇源文章中的每个论断都用成本模型的场景或 `explorer/data/` 中有出处的数据检验，并给出计算得出（而非手写）的结论：
**成立**、**仅在所述条件下成立**、**不成立**、**无法核实**（没有可靠数据可供检验）。代码见 `explorer/claims.py`。
在网页地址后加上 `?lang=zh`（或点击下方的“中文”）即可用中文显示全部结论与解释。""", ""),
    code('''
from explorer.app.claims_view import claims_page
from explorer.claims import CANNOT_CHECK, CONDITIONAL, FAILS, HOLDS, check_claims

claims = check_claims()
assert len(claims) >= 41
# in English, or in Chinese with ?lang=zh in the address (or the 中文 button)
claims_page()
'''),
    md("""## Checks · 校验

The notebook fails if a hand-checked verdict changes (see also `tests/test_claims.py`).
如果经人工核对的结论发生变化，本笔记本会报错。""", ""),
    code('''
v = claims.set_index("id")["verdict"]
assert v["a_2018_bert"] == FAILS              # AI Index: $3,288, not $300k
assert v["a_2020_gpt3_cost"] == CONDITIONAL   # $1.4M is a 2023 re-training estimate; AI Index 2020: $4.3M
assert v["b_fp8_memory"] == FAILS             # FP8 keeps BF16 weights and FP32 optimizer state
assert v["a_util_50_80"] == HOLDS
'''),
]


# ------------------------------------------------------------------ writing
def _cell(spec: dict, lang: str | None) -> dict:
    if spec["kind"] == "markdown":
        text = spec["text"][lang] if lang else spec["text"]["en"]
        return {"cell_type": "markdown", "metadata": {}, "source": text}
    meta: dict = {}
    if spec["hidden"]:
        meta["jupyter"] = {"source_hidden": True}
    if spec["tags"]:
        meta["tags"] = list(spec["tags"])
    src = spec["source"].format(lang=lang) if "setup" in spec["tags"] else spec["source"]
    return {"cell_type": "code", "execution_count": None, "metadata": meta, "outputs": [], "source": src}


def notebook(cells: list, lang: str | None) -> dict:
    """The notebook's JSON (nbformat 4, no outputs) for ``lang`` (None: the bilingual single version)."""
    return {
        "cells": [_cell(c, lang) for c in cells],
        "metadata": {"kernelspec": KERNEL, "language_info": {"name": "python"},
                     **({"lang": "zh-Hans" if lang == "zh" else "en"} if lang else {})},
        "nbformat": 4, "nbformat_minor": 5,
    }


def _ids(nb: dict, stem: str) -> dict:
    for i, cell in enumerate(nb["cells"]):
        cell["id"] = f"{stem[:12]}-{i:02d}"
    return nb


def outputs() -> dict[Path, str]:
    """Every generated notebook: path -> text."""
    out: dict[Path, str] = {}

    def dump(nb: dict) -> str:
        return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"

    for stem, cells in LESSONS:
        for lang in LANGS:
            out[HERE / lang / f"{stem}.ipynb"] = dump(_ids(notebook(cells, lang), stem))
    out[HERE / "index.ipynb"] = dump(_ids(notebook(index_cells(), None), "index"))
    out[NOTEBOOKS / "claims.ipynb"] = dump(_ids(notebook(CLAIMS_CELLS, None), "claims"))
    return out


def main() -> int:
    for path, text in outputs().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(path.relative_to(NOTEBOOKS.parent))
    return 0


if __name__ == "__main__":
    sys.exit(main())
