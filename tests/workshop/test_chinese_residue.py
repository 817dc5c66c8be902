"""Issue 28 item 7: a Chinese reader of the lessons meets Chinese, names and units, not raw ids or English.

Each zh lesson and the capstone is run as a student would (``workshop_run.run``); the test reads what the
page shows: its markdown, the tables it displays, its panels at their starting values (and their controls'
labels), the exercises' given figures and solutions, the concept questions' feedback and the capstone's form
and report. Two rules:

* no raw id anywhere, code spans included: region, pricing, preset and claim ids (``cn-ningxia``,
  ``reserved_1y``, ``startup_7b``, ``b_spot``) and ``field="value"`` code (``pricing="owned"``);
* outside code spans (which name the JupyterLab variables and files a student types), no English word beyond
  an allow-list of units, names (people, models, firms, hardware, grids, tools) and the symbols of the
  formulas. The references section (titles of works) and numbers in scientific notation are not read.
"""

from __future__ import annotations

import html
import json
import re

import IPython.display
import pytest

from explorer import catalog
from explorer.claims import CLAIMS
from explorer.presets import presets
from explorer.scenario import PRICING_MODES
from explorer.workshop import Lesson
from workshop_run import LESSONS, run

STEMS = ["01_flops_to_dollars", "02_utilization_precision", "03_architecture_scaling", "04_buying_compute",
         "05_energy_region_carbon", "06_budgeting_governance", "capstone"]

#: Units and unit-like terms a Chinese technical text writes in Latin letters.
UNITS = {"FLOP", "FLOPs", "FLOP/s", "TFLOP/s", "PFLOP", "GB", "TB", "MWh", "kWh", "GWh", "kW", "W", "tCO2", "CO2",
         "gCO2", "s", "token", "tokens", "PUE", "TDP", "MFU", "MTBF", "GPU", "GPUs", "IT", "AI", "B", "T", "M", "k",
         "x", "P5", "P50", "P95", "USD"}
#: Names: people and institutions cited, models, firms, hardware, formats, grids and tools.
NAMES = {"Epoch", "Kaplan", "Hoffmann", "Patterson", "Young", "Daly", "Young/Daly", "Shapley", "Cottier", "Brown",
         "Touvron", "Rozière", "Chowdhery", "Korthikanti", "Micikevicius", "Rajbhandari", "Besiroglu", "Hu", "Rozi", "Zhu",
         "EleutherAI", "DeepMind", "DeepSeek", "DeepSeek-V3", "DeepSeek-AI", "Meta", "Llama", "LLaMA", "GPT-3",
         "GPT-4", "PaLM", "Chinchilla", "MoE", "LoRA", "Megatron-LM", "Megatron-Bridge", "NeMo", "MosaicML",
         "NVIDIA", "AWS", "GCP", "Azure", "H100", "H800", "A100", "V100", "DGX", "BF16", "FP8", "FP16", "FP32",
         "AdamW", "ZeRO", "Uptime", "Institute", "ERCOT", "PJM", "JupyterLab", "Voila", "Python", "HAI", "Index",
         "Stanford", "Transformer", "Math", "Code", "MPT-7B", "OPT-175B", "BLOOM-176B", "arXiv", "llm-foundry", "Team"}
#: English terms a lesson gives once in brackets after the Chinese one, as a glossary does: 有效产出（goodput）.
TERMS = {"goodput"}
#: Symbols of the formulas (6·N·D, C / (P · u · 3600), Na/N) and of the exercises (τ, f, d, L).
SYMBOLS = {"C", "N", "D", "P", "u", "Na", "Na/N", "L", "d", "s", "f", "A", "E", "e"}
ALLOWED = UNITS | NAMES | SYMBOLS | TERMS

#: Scientific notation and plain numbers: 175e9, 3.15e+23, 1.97e-5, 1e6.
NUMBER = re.compile(r"\d[\d,.]*[eE][+-]?\d+")
CODE_SPAN = re.compile(r"`[^`]*`")
#: A function call written without backticks (``estimate()``, ``history.fit_periods('cloud')``) is code too.
CALL = re.compile(r"\b[A-Za-z_][\w.]*\([^()]*\)")


def raw_ids() -> set[str]:
    """Ids a reader should never see: every one that has a dash or an underscore (plain words such as
    ``spot`` or ``owned`` are caught by the English-word rule instead)."""
    ids = set(catalog.regions()) | set(PRICING_MODES) | set(presets()) | {c.id for c in CLAIMS}
    return {i for i in ids if re.search(r"[-_]", i)}


def shown_texts(stem: str) -> tuple[list[str], list[str]]:
    """(markdown cells without the references section, everything the lesson's code shows) of a zh page."""
    shown: list[str] = []
    original_show = Lesson.show_table

    def show(self, rows):
        out = original_show(self, rows)
        shown.append(out.data)
        return out

    def display(*objects, **_):
        shown.extend(str(getattr(o, "data", None) or getattr(o, "value", "") or "") for o in objects)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Lesson, "show_table", show)
        mp.setattr(IPython.display, "display", display)
        ns = run("zh", stem, shadow=False)
    ws = ns["ws"]
    for panel in ws.panels:
        for c in panel.children:
            if isinstance(getattr(c, "value", None), str) and "<" in c.value:
                shown.append(c.value)
            shown.append(getattr(c, "description", "") or "")
            shown += [str(o[0] if isinstance(o, tuple) else o) for o in getattr(c, "options", ())]
    for ex in ws.exercises.values():
        shown += [ex.solution, ws.table(ex.given) if ex.given else ""]
    for q in ws.concepts.values():
        shown += [zh for _, zh in q.why.values()]
    if getattr(ws, "_capstone", None) is not None:
        cap = ws._capstone
        shown += [c.description for c in (*cap.controls.values(), *cap.answers.values())]
        shown += [str(o[0]) for c in cap.controls.values() for o in getattr(c, "options", ())]
        cap.answers["biggest"].value = "compute"
        cap.submit()
        shown += [cap.given.value, cap.report.value]
    nb = json.loads((LESSONS / "zh" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    markdown = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"
                and not "".join(c["source"]).startswith("## 资料与参考文献")]
    return markdown, shown


def plain(text: str) -> str:
    """What a reader reads: tags removed, entities decoded, link targets dropped."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", str(text)))
    return re.sub(r"\]\([^)]*\)", "]", text)


@pytest.fixture(scope="module", params=STEMS)
def page(request):
    markdown, shown = shown_texts(request.param)
    return request.param, [plain(t) for t in markdown + shown]


def test_no_raw_ids(page):
    stem, texts = page
    ids = raw_ids()
    found = {(i, t[max(0, m.start() - 30):m.end() + 30]) for t in texts for i in ids
             for m in re.finditer(rf"(?<![\w-]){re.escape(i)}(?![\w-])", t)}
    found |= {(m.group(0), t[max(0, m.start() - 30):m.end() + 30]) for t in texts
              for m in re.finditer(r"\b\w+=[\"'][\w-]+[\"']", t)}
    assert not found, (stem, sorted(found))


def test_no_english_beyond_units_and_names(page):
    stem, texts = page
    accelerator_names = sorted((a.name for a in catalog.accelerators().values()), key=len, reverse=True)
    found = set()
    for t in texts:
        t = NUMBER.sub(" ", CALL.sub(" ", CODE_SPAN.sub(" ", t)))
        t = re.sub(r"\S+\.(?:csv|ipynb|md)\b", " ", t)  # file names, cited as sources
        for name in accelerator_names:  # product names, as the app shows them in both languages
            t = t.replace(name, " ")
        for word in re.findall(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ0-9'/\-]*[A-Za-zÀ-ÖØ-öø-ÿ0-9]|[A-Za-z]", t):
            if word not in ALLOWED and word.rstrip("s") not in ALLOWED:
                found.add(word)
    assert not found, (stem, sorted(found))


def test_the_scan_finds_what_issue_28_reported():
    """The rules catch the v2 residue: a raw region id, pricing="owned", USD/kWh in a Chinese table, a claim id."""
    ids = raw_ids()
    assert {"cn-ningxia", "reserved_1y", "startup_7b", "b_spot"} <= ids
    assert re.search(r"\b\w+=[\"'][\w-]+[\"']", 'estimate(run.replace(pricing="owned"))')
    words = re.findall(r"[A-Za-z][A-Za-z0-9'/\-]*[A-Za-z0-9]", plain("<td>0.0905 USD/kWh (2023)</td>"))
    assert "USD/kWh" not in ALLOWED and words == ["USD/kWh"]


def english_words(text: str) -> set[str]:
    """The words of ``text`` outside the allow-list, by the rules of :func:`test_no_english_beyond_units_and_names`."""
    accelerator_names = sorted((a.name for a in catalog.accelerators().values()), key=len, reverse=True)
    t = NUMBER.sub(" ", CALL.sub(" ", CODE_SPAN.sub(" ", plain(text))))
    t = re.sub(r"\S+\.(?:csv|ipynb|md)\b", " ", t)
    for name in accelerator_names:
        t = t.replace(name, " ")
    return {w for w in re.findall(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ0-9'/\-]*[A-Za-zÀ-ÖØ-öø-ÿ0-9]|[A-Za-z]", t)
            if w not in ALLOWED and w.rstrip("s") not in ALLOWED}



@pytest.mark.parametrize("stem", STEMS)
def test_the_cells_a_student_opens_in_jupyterlab_say_what_they_are_in_chinese(stem):
    """Issue 42: the zh lessons' checker cells began "# Exercise 1: the checker. Run it; ..." in English only
    (what JupyterLab shows of a folded cell when a student opens it). The first line of every checker, feedback,
    exercise and question cell of a zh lesson carries Chinese when it has English words beyond the allow-list."""
    found = []
    for cell in json.loads((LESSONS / "zh" / f"{stem}.ipynb").read_text(encoding="utf-8"))["cells"]:
        tags = set(cell["metadata"].get("tags", []))
        if cell["cell_type"] != "code" or not tags & {"answer", "concept-answer", "exercise", "concept"}:
            continue
        first = "".join(cell["source"]).splitlines()[0].strip()
        if first.startswith("#") and english_words(first.lstrip("# ")) and not re.search(r"[\u4e00-\u9fff]", first):
            found.append(first)
    assert not found, (stem, found)


@pytest.mark.parametrize("stem", [s for s in STEMS if s != "capstone"])
def test_the_exercise_boxes_and_their_feedback_read_in_chinese(stem):
    """The answer boxes as a zh page shows them: label, placeholder, button, fold, and the feedback to a right, a
    wrong, a power-of-ten, an unreadable, an empty and a decimal-comma answer (what was typed, quoted back in
    “…”, is not read)."""
    ws = run("zh", stem, shadow=False)["ws"]
    found = set()
    for ex in ws.exercises.values():
        texts = [ex.box.placeholder, ex.button.description, ex.fold.get_title(0)]
        texts += [c.value for c in ex.widget.children if hasattr(c, "value") and isinstance(c.value, str)]
        for typed in (str(ex.answer), str(ex.answer * 1.5), str(ex.answer * 1000), "abc", "", "3,5"):
            texts.append(re.sub(r"“[^”]*”", " ", ex.judge(typed)[1]))
        found |= {w for t in texts for w in english_words(t)}
    assert not found, (stem, sorted(found))


#: Names on the fact-check page beyond the lessons': models and data sets of the claims, and the Chinese
#: article's own Latin words quoted as it wrote them (Checkpoint, Spot Instance, Token, its FAQ numbers Q1, Q3).
CLAIM_NAMES = {"BERT-Large", "RoBERTa", "Large", "Gemini", "Ultra", "Grok-3", "LLaMA-65B", "LLaMA-MoE", "Meditron",
               "Meditron-70B", "Qwen3-235B-A22B", "davinci", "FineWeb", "INT4", "BF16/FP16/FP32", "H100/H800",
               "Checkpoint", "Spot", "Instance", "Token", "Q1", "Q3"}


def test_the_claims_page_reads_in_chinese():
    """The fact-check page in Chinese (issue 42 asks for no English on the Chinese pages): its table and every
    claim's explanation, without the page's CSS and <code> (names a reader types)."""
    from explorer.app.pages.claims import claims_table_html, why_html
    from explorer.claims import check_claims

    zh = check_claims("zh")
    texts = [claims_table_html(zh, "zh")] + [why_html(zh, cid, "zh") for cid in zh["id"]]
    texts = [re.sub(r"<style.*?</style>|<code>.*?</code>", " ", t, flags=re.S) for t in texts]
    found = {w for t in texts for w in english_words(t)} - CLAIM_NAMES
    assert not found, sorted(found)
