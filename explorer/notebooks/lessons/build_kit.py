"""Build the lecturer's kit from the lesson notebooks and their exercise checkers (``make kit``).

Run from the repository root::

    python explorer/notebooks/lessons/build_kit.py [--out build/kit] [--class-url URL]

It writes, under ``--out`` (``build/kit``, gitignored), with no network:

* ``index.html``: what is in the kit, with a link to each part;
* ``lecturer/<lang>/<lesson>.html``: a lecturer mode per lesson and language: each section's heading and its
  talking points (the first sentence of each paragraph, each point of a list), the section's checks with
  their answers and solutions, and the lesson's stated time;
* ``answer_key.<lang>.html`` and ``answer_key.json``: each exercise and concept question whole (two pages), with its answer
  and an example capstone plan that passes, read from the checkers themselves (each lesson runs here
  as in JupyterLab, and the key is what its ``ws.exercises`` and ``ws.concepts`` hold), so it cannot drift
  from what the pages accept; the JSON is what ``tests/workshop/test_kit.py`` feeds back to the checkers;
* ``handout.<lang>.html``: the student handout: links, which lessons each agenda of ``docs/workshop.md``
  teaches in class, the formulas (``src/kit_labels.csv``, each with the lesson that teaches it and its reference) and the core
  terms of the glossary (those of the lessons both agendas teach);
* ``site/``: the lessons, the glossary and the fact-check as static HTML to read before class and to fall back
  on when the server is down (nbconvert's ``basic`` template, code left out): each lesson with what its cells
  show at their starting values (tables, charts, each panel's table and controls, the numbers under each
  exercise), so all 12 exercises can be done from it; no answer box and no solution. ``site/lessons/index.html``
  first.

The kit's own words are in ``src/kit_labels.csv`` (English and Chinese). Importing this module writes nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import html
import io
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parents[1]  # explorer/: the kit builds from the package alone (`llm-cost-explorer kit`)
sys.path.insert(0, str(HERE))
from build_lessons import EXTRAS, LANGS, LESSONS, SRC, title  # noqa: E402 - next to this file

#: Which notebooks each agenda teaches in class; docs/workshop.md's agenda tables say the same
#: (tests/workshop/test_kit.py checks it)
AGENDAS = SRC / "agendas.csv"
CLASS_URL = "http://127.0.0.1:8867/voila/render/lessons/index.ipynb"   # `make workshop`'s index
STYLE = """<style>
body {font-family: system-ui, "Noto Sans CJK SC", "PingFang SC", sans-serif; max-width: 58em; margin: 1.5em auto;
  padding: 0 1em; line-height: 1.45; color: #1f2328;}
h1 {font-size: 1.6em;} h2 {font-size: 1.25em; margin-top: 1.2em;} h3 {font-size: 1.05em;}
table {border-collapse: collapse; margin: .5em 0;} td, th {border: 1px solid #d0d7de; padding: 3px 8px;
  vertical-align: top; text-align: left;}
code {background: #f6f8fa; padding: 0 3px;} a {color: #0969da;} img {max-width: 100%;}
a, code {overflow-wrap: anywhere;} table {display: block; max-width: 100%; overflow-x: auto;}
.note {background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; border-radius: 4px;}
.ok {color: #1a7f37;} .small {font-size: 85%; color: #57606a;}
.key {font-size: 12px; line-height: 1.3;} .key td, .key th {padding: 2px 6px;} .nw {white-space: nowrap;}
.anchor-link {visibility: hidden; text-decoration: none; margin-left: .3em;} :hover > .anchor-link {visibility: visible;}
.key td:first-child {max-width: 11em;}
.shown {margin: .4em 0 .8em;} .control {margin: .1em 0; color: #57606a;}
@media print {body {margin: 0; max-width: none;} .noprint {display: none;} .key {font-size: 9.5px;}}
</style>"""


# ------------------------------------------------------------------ words
def labels() -> dict[str, dict[str, str]]:
    """The kit's words: ``{key: {"en", "zh", "lesson", "reference"}}`` from ``src/kit_labels.csv``.

    A formula's row names the lesson that teaches it and the paper it comes from, if any.
    """
    with open(SRC / "kit_labels.csv", encoding="utf-8", newline="") as f:
        return {r["key"]: r for r in csv.DictReader(f)}


def page(lang: str, heading: str, body: str) -> str:
    """A whole HTML page in ``lang`` with the kit's style."""
    code = "zh-Hans" if lang == "zh" else "en"
    return (f'<!DOCTYPE html>\n<html lang="{code}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(heading)}</title>{STYLE}</head>\n<body>\n{body}\n</body></html>\n")


def number_text(x: float) -> str:
    """A number as a student would type it, within 0.05% (``3.15e+23``, ``62,055``, ``0.0551``)."""
    if 1 <= abs(x) < 1e6:
        return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"
    return f"{x:.4g}"


# ------------------------------------------------------------------ the lessons, run as a student would
def run_lesson(lang: str, stem: str) -> dict:
    """Execute every code cell of ``<lang>/<stem>.ipynb`` in one namespace (as Run All does); returns it.

    What each cell shows (its ``display`` calls and its last expression, as Jupyter shows them) is kept as
    static HTML in ``ns["__shown__"]``, ``{cell index: [html, ...]}`` (:func:`static_html`): the static site
    prints it under the cell, so the numbers an exercise needs are there without a kernel.
    """
    import ast

    import IPython.display

    os.environ.setdefault("MPLBACKEND", "Agg")
    nb = json.loads((HERE / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))
    ns: dict = {"__name__": "__main__"}
    shown: dict[int, list[str]] = {}
    here, display = os.getcwd(), IPython.display.display
    os.chdir(HERE / lang)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for i, c in enumerate(nb["cells"]):
                tags = c["metadata"].get("tags", [])
                if c["cell_type"] != "code" or "preheat" in tags:
                    continue
                out = shown.setdefault(i, [])
                IPython.display.display = lambda *objects, _out=out, **_: _out.extend(objects)
                tree = ast.parse("".join(c["source"]))
                tail = tree.body[-1] if tree.body else None
                last = tail if isinstance(tail, ast.Expr) else None
                if last is not None:
                    tree.body.pop()
                exec(compile(tree, f"<{lang}/{stem}>", "exec"), ns)
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), f"<{lang}/{stem}>", "eval"), ns)
                    if value is not None:
                        out.append(value)
                shown[i] = [] if "setup" in tags else [h for o in out if (h := static_html(o))]
    finally:
        IPython.display.display = display
        os.chdir(here)
    ns["__shown__"] = shown
    return ns


def static_html(shown) -> str:
    """What a cell shows, as HTML that needs no kernel: HTML outputs as they are, and of a widget its HTML parts
    (a panel's table at its starting values, an exercise's table of given numbers and its tolerance) with each
    control's label and starting value. Answer boxes, buttons and folds (solutions) are left out."""
    import ipywidgets as W

    if isinstance(shown, W.Widget):
        if isinstance(shown, (W.Accordion, W.Button, W.Text)):
            return ""
        if isinstance(shown, W.HTML):
            return shown.value
        if isinstance(shown, W.Box):
            if any(isinstance(row, W.Box) and any(isinstance(c, W.Button) for c in row.children)
                   for row in shown.children):  # a check (answer box or letters, a button): its given numbers only
                return "".join(c.value for c in shown.children if isinstance(c, W.HTML) and "<table" in c.value)
            return "".join(static_html(c) for c in shown.children)
        label = getattr(shown, "description", "")
        value = getattr(shown, "label", None) or getattr(shown, "value", "")
        return f"<p class='control'>{html.escape(label)}: <b>{html.escape(str(value))}</b></p>" if label else ""
    data = getattr(shown, "data", None)
    if isinstance(data, str) and "<" in data:
        return data
    return ""


def _plain(text: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


def key_entries(lang: str, stem: str, ws) -> list[dict]:
    """The answers of one lesson, from its checkers: one dict per exercise, concept question or capstone plan.

    ``typed`` is the text the checker accepts (the tests type it); ``answer`` what the key shows.
    """
    out = []
    for n, ex in sorted(ws.exercises.items()):
        also = [f"{number_text(v)} ({_plain(en if lang == 'en' else zh)})" for v, en, zh in ex.accept]
        out.append({"lesson": stem, "lang": lang, "check": f"E{n}", "typed": number_text(ex.answer),
                    "answer": number_text(ex.answer), "tolerance": ex.tolerance, "also": also,
                    "solution": _plain(ex.solution)})
    for key, q in sorted(ws.concepts.items()):
        en, zh = q.why[q.answer]
        out.append({"lesson": stem, "lang": lang, "check": key, "typed": q.answer, "answer": q.answer,
                    "tolerance": None, "also": [], "solution": _plain(en if lang == "en" else zh)})
    cap = getattr(ws, "_capstone", None)
    if cap is not None:
        out.append(capstone_entry(lang, stem, cap))
    return out


def capstone_entry(lang: str, stem: str, cap) -> dict:
    """The capstone form's starting run with the statements that pass all six checks (verified here)."""
    from explorer import COST_DIMENSIONS

    e = cap._estimate()
    hand = cap._hand(e)[0]
    total = e.cost_usd["total"]
    top = max(COST_DIMENSIONS, key=lambda d: e.cost_usd[d])
    plan = {"gpu_hours": number_text(hand), "budget_usd": number_text(total * 1.25), "biggest": top,
            "why": cap.lesson.t("A 7B model on 2T tokens fits 256 H100s and ends well within the month; "
                                "the budget keeps 25% headroom for a lower MFU.",
                                "7B 模型、2T token，256 张 H100 放得下，一个月内完成；预算留出 25% 余量以防 MFU 偏低。")}
    cap.fill(plan)
    results = cap.check()
    failed = [name for name, ok, _ in results if not ok]
    if failed:
        raise RuntimeError(f"the capstone's example plan fails {failed}: {plan}")
    return {"lesson": stem, "lang": lang, "check": "plan", "typed": plan, "tolerance": cap.HOURS_TOLERANCE,
            "answer": {"gpu_hours": plan["gpu_hours"], "budget_usd": cap.lesson.money(total),
                       "biggest": cap.lesson.label("dim_" + top)}, "also": [], "solution": ""}


# ------------------------------------------------------------------ the answer key
def _questions(lang: str, stem: str) -> list[str]:
    """The whole question of each check of a lesson, in the order of its checkers ("" where a check sits under a
    heading that is not an exercise's or a question's): the paragraphs the lecturer notes keep whole."""
    return [" ".join(s["points"]) if _QUESTION_HEADING.match(s["heading"]) else ""
            for s in _sections(lang, stem) for _ in range(s["checks"])]


def answer_key_html(lang: str, entries: list[dict]) -> str:
    L = {k: v[lang] for k, v in labels().items()}
    questions = {stem: iter(_questions(lang, stem)) for stem in dict.fromkeys(e["lesson"] for e in entries)}
    rows = []
    for i, e in enumerate(entries):
        first = i == 0 or entries[i - 1]["lesson"] != e["lesson"]   # the lesson's name once, over its rows
        span = sum(1 for x in entries if x["lesson"] == e["lesson"])
        cell = f"<td rowspan='{span}'><b>{html.escape(title(e['lesson'], lang))}</b></td>" if first else ""
        if e["check"] == "plan":
            a = e["answer"]
            rows.append(f"<tr>{cell}<td colspan='3'>{L['capstone_plan']} "
                        f"{L['gpu_hours']} <b>{a['gpu_hours']}</b> (±{e['tolerance']:.0%}); {L['budget']} "
                        f"<b>{html.escape(a['budget_usd'])}</b>; {L['biggest']} <b>{html.escape(a['biggest'])}</b>."
                        "</td></tr>")
            continue
        name = (f"{L['exercise']} {e['check'][1:]}" if e["check"].startswith("E")
                else f"{L['question']} {e['check'][1:]}")
        tol = f" ±{e['tolerance']:.1%}".replace(".0%", "%") if e["tolerance"] is not None else ""
        also = ("<br><span class='small'>" + L["also_accepted"] + ": " + html.escape("; ".join(e["also"]))
                + "</span>") if e["also"] else ""
        why = html.escape(e["solution"])
        question = next(questions[e["lesson"]], "")  # the whole question, so the key reads without the lesson
        asked = f"<br><span class='small'>{_md_inline(question)}</span>" if question else ""
        rows.append(f"<tr>{cell}<td>{name}{asked}</td>"
                    f"<td><b>{html.escape(e['answer'])}</b>{tol}{also}</td><td>{why}</td></tr>")
    body = (f"<h1>{L['answer_key']}</h1><p class='small'>{L['kit_intro']}</p>"
            f"<table class='key'><tr><th>{L['lesson']}</th><th>{L['check']}</th><th>{L['answer']}</th>"
            f"<th>{L['why']}</th></tr>{''.join(rows)}</table>")
    return page(lang, L["answer_key"], body)


# ------------------------------------------------------------------ lecturer mode
def _sections(lang: str, stem: str) -> list[dict]:
    """The lesson's sections: ``{"heading", "level", "points", "checks"}``, in order.

    A talking point is the first sentence of a prose paragraph or one item of a list; under an exercise's or a
    question's heading, the whole paragraph (the question). The prerequisites, the
    setup ("Imports", the section holding the ``setup`` cell) and the references (the last section) are left out.
    """
    nb = json.loads((HERE / lang / f"{stem}.ipynb").read_text(encoding="utf-8"))
    sections: list[dict] = []
    for c in nb["cells"]:
        src = "".join(c["source"])
        tags = c["metadata"].get("tags", [])
        if c["cell_type"] == "code":
            if sections and "setup" in tags:
                sections[-1]["skip"] = True
            if sections and ("answer" in tags or "concept-answer" in tags):
                sections[-1]["checks"] += 1
            continue
        for block in re.split(r"\n\s*\n", src):
            block = block.strip()
            heading = re.match(r"^(#{1,3}) (.+)$", block.splitlines()[0]) if block else None
            if heading:
                sections.append({"heading": heading.group(2).strip(), "level": len(heading.group(1)),
                                 "points": [], "checks": 0, "skip": False})
                block = "\n".join(block.splitlines()[1:]).strip()
            if not block or not sections or block.startswith(("|", "---", "```")):
                continue
            if re.match(r"^(- |\d+\. )", block):
                items = re.split(r"\n(?=- |\d+\. )", block)
                sections[-1]["points"] += [re.sub(r"^(- |\d+\. )", "", i).replace("\n", " ") for i in items]
            elif _QUESTION_HEADING.match(sections[-1]["heading"]):  # an exercise or question: the whole question
                sections[-1]["points"].append(block.replace("\n", " "))
            else:
                sections[-1]["points"].append(first_sentence(block.replace("\n", " ")))
    body = [s for s in sections if s["level"] >= 2]
    if len(body) >= 2:
        body[1]["skip"] = True   # prerequisites
        body[-1]["skip"] = True  # resources and references
    return [s for s in body if not s["skip"]]


#: The headings of an exercise or a concept question: their paragraphs are the question, kept whole in the notes
#: (cut to their first sentence, the notes of issue 42 lost the question itself).
_QUESTION_HEADING = re.compile(r"^(Exercise|Question|练习|问题)\s*\d")

_ABBREVIATIONS = ("et al.", "e.g.", "i.e.", "vs.", "cf.", "approx.", "Fig.", "No.")


def first_sentence(text: str) -> str:
    """The first sentence of a paragraph (English or Chinese); ``et al.``, ``e.g.`` and a decimal point end none.

    >>> first_sentence("GPT-3 was trained by Brown et al. 2020 on 300B tokens. It cost more.")
    'GPT-3 was trained by Brown et al. 2020 on 300B tokens.'
    >>> first_sentence("训练计算量约为 6·N·D。它随参数增长。")
    '训练计算量约为 6·N·D。'
    """
    for m in re.finditer(r"[。！？]|[.!?](?=\s+[A-Z“\"(])", text):
        head = text[:m.end()]
        if not head.endswith(_ABBREVIATIONS):
            return head.strip()
    return text.strip()


def _md_inline(text: str) -> str:
    """The little markdown a talking point holds: **bold**, *italic*, `code`, [links](...) as text."""
    t = html.escape(text)
    t = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", t)
    t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
    t = re.sub(r"(?<![*\w])\*(?!\s)(.+?)\*", r"<i>\1</i>", t)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", t)


def lecturer_html(lang: str, stem: str, entries: list[dict]) -> str:
    L = {k: v[lang] for k, v in labels().items()}
    text = (SRC / f"{stem}.{lang}.md").read_text(encoding="utf-8")
    minutes = re.search(r"\*\*(?:Time to learn|学习时间)\*\*[:：]\s*([^\n]+)", text)
    checks = iter(e for e in entries if e["check"] != "plan")
    colon = "：" if lang == "zh" else ": "
    parts = [f"<h1>{html.escape(title(stem, lang))}</h1>",
             f"<p class='small'>{L['lecturer_notes']} · {L['time_to_learn']}{colon}"
             f"{html.escape(minutes.group(1)) if minutes else '?'}</p>"]
    for s in _sections(lang, stem):
        tag = "h2" if s["level"] == 2 else "h3"
        parts.append(f"<{tag}>{_md_inline(s['heading'])}</{tag}>")
        if s["points"]:
            parts.append("<ul>" + "".join(f"<li>{_md_inline(p)}</li>" for p in s["points"]) + "</ul>")
        for _ in range(s["checks"]):
            e = next(checks, None)
            if e is None:
                break
            tol = f" (±{e['tolerance']:.1%})".replace(".0%", "%") if e["tolerance"] is not None else ""
            parts.append(f"<p class='ok'>{L['answer']}{colon}<b>{html.escape(e['answer'])}</b>{tol}"
                         + (f" · {L['solution']}{colon}{html.escape(e['solution'])}" if e["solution"] else "") + "</p>")
    plan = next((e for e in entries if e["check"] == "plan"), None)
    if plan:
        a = plan["answer"]
        parts.append(f"<p class='ok'>{L['capstone_plan']} {L['gpu_hours']} <b>{a['gpu_hours']}</b>; {L['budget']} "
                     f"<b>{html.escape(a['budget_usd'])}</b>; {L['biggest']} <b>{html.escape(a['biggest'])}</b>.</p>")
    return page(lang, f"{title(stem, lang)} · {L['lecturer_notes']}", "\n".join(parts))


# ------------------------------------------------------------------ handout
def agendas() -> dict[str, set[str]]:
    """Which notebooks each agenda teaches in class: ``{"2 hours": {stems}, "3 hours": {...}}`` (agendas.csv)."""
    with open(AGENDAS, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    return {name: {r["notebook"] for r in rows if r[name] == "in class"} for name in ("3 hours", "2 hours")}


def handout_html(lang: str, class_url: str) -> str:
    L = {k: v[lang] for k, v in labels().items()}
    plans = agendas()
    both = plans["2 hours"] & plans["3 hours"]
    rows = []
    for stem in LESSONS + EXTRAS:
        text = (SRC / f"{stem}.{lang}.md").read_text(encoding="utf-8")
        minutes = re.search(r"\*\*(?:Time to learn|学习时间)\*\*[:：]\s*([0-9–-]+)", text)
        cells = "".join(f"<td>{L['in_class'] if stem in plans[k] else L['optional']}</td>"
                        for k in ("2 hours", "3 hours"))
        rows.append(f"<tr><td>{html.escape(title(stem, lang))}</td><td>{minutes.group(1) if minutes else ''}</td>"
                    f"{cells}</tr>")
    def where(r):  # the lesson the formula comes from, and its reference
        lesson = f"第 {r['lesson']} 课" if lang == "zh" else f"lesson {r['lesson']}"
        return html.escape(lesson + ("；" if lang == "zh" else "; ") + r["reference"] if r["reference"] else lesson)

    formulas = "".join(f"<li>{html.escape(r[lang])} <span class='small'>({where(r)})</span></li>"
                       for k, r in labels().items() if k.startswith("formula_"))
    terms = []
    with open(SRC / "glossary.csv", encoding="utf-8", newline="") as f:
        glossary = list(csv.DictReader(f))
    with open(PACKAGE / "data" / "labels.csv", encoding="utf-8", newline="") as f:
        app_labels = {r["key"]: r for r in csv.DictReader(f)}
    core = {n for n, stem in enumerate(LESSONS, 1) if stem in both}
    for r in glossary:
        if int(r["lesson"]) not in core:
            continue
        if r["label"]:
            k = f"glossary_{r['label']}"
            term, text = app_labels[k + "_term"][lang], app_labels[k][lang]
        else:
            term, text = r[f"term_{lang}"], r[f"definition_{lang}"]
        terms.append(f"<li><b>{html.escape(term)}</b>{'：' if lang == 'zh' else ': '}{html.escape(text)}</li>")
    body = (f"<h1>{L['handout']}</h1>"
            f"<h2>{L['links']}</h2><ul><li>{L['class_server']}: <a href='{html.escape(class_url)}'>"
            f"{html.escape(class_url)}</a></li><li>{L['read_before']}: <a href='site/lessons/index.html'>"
            f"site/lessons/index.html</a></li><li>{L['glossary_all']}: <a href='site/lessons/glossary.html'>"
            f"site/lessons/glossary.html</a></li></ul>"
            f"<h2>{L['agenda']}</h2><p class='small'>{L['agenda_note']}</p><table><tr><th>{L['lesson']}</th>"
            f"<th>{L['time_to_learn']}</th><th>{L['two_hours']}</th><th>{L['three_hours']}</th></tr>"
            f"{''.join(rows)}</table>"
            f"<h2>{L['formulas']}</h2><ul>{formulas}</ul>"
            f"<h2>{L['core_terms']}</h2><p class='small'>{L['core_terms_note']}</p><ul>{''.join(terms)}</ul>")
    return page(lang, L["handout"], body)


# ------------------------------------------------------------------ the static site
def site(out: Path, class_url: str, runs: dict | None = None) -> list[Path]:
    """The lessons, glossary, index and fact-check as HTML under ``out`` (mirroring ``explorer/notebooks/``).

    A lesson's page carries what its cells show at their starting values (``runs``: ``{(lang, stem): the
    namespace of``:func:`run_lesson```}``, run here when not given): the tables and charts, each panel's table
    with its controls' starting values, and under each exercise the table of the numbers it needs; so every
    exercise can be done from the page with no server. Code, answer boxes and solutions are left out.
    """
    import nbformat
    from nbconvert import HTMLExporter

    L = labels()
    runs = dict(runs or {})
    exporter = HTMLExporter(template_name="basic", exclude_input=True, exclude_output=False,
                            exclude_input_prompt=True, exclude_output_prompt=True)
    notebooks = ([HERE / "index.ipynb", HERE / "glossary.ipynb", PACKAGE / "notebooks" / "claims.ipynb"]
                 + [HERE / lang / f"{stem}.ipynb" for lang in LANGS for stem in LESSONS + EXTRAS])
    written = []
    for nb_path in notebooks:
        nb = nbformat.read(nb_path, as_version=4)
        lang = "zh" if nb.metadata.get("lang") == "zh-Hans" else "en" if nb.metadata.get("lang") else None
        lesson = (nb_path.parent.name, nb_path.stem)
        if nb_path.parent.name in LANGS and lesson not in runs:
            runs[lesson] = run_lesson(*lesson)
        shown = runs[lesson]["__shown__"] if lesson in runs else {}
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                cell.outputs = [nbformat.v4.new_output("display_data", {"text/html": f"<div class='shown'>{h}</div>"})
                                for h in shown.get(i, [])]
        fragment, _ = exporter.from_notebook_node(nb)
        fragment = re.sub(r'href="([^":#]+)\.ipynb', r'href="\1.html', fragment)  # links stay within the site
        note = (L["preview"][lang] if lang else f"{L['preview']['en']}<br>{L['preview']['zh']}")
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", fragment, re.S)
        name = _plain(heading.group(1)).rstrip("¶").strip() if heading else nb_path.stem
        body = (f"<p class='note'>{note} <a href='{html.escape(class_url)}'>{html.escape(class_url)}</a></p>"
                f"{fragment}")
        target = out / nb_path.relative_to(PACKAGE / "notebooks").with_suffix(".html")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page(lang or "en", name, body), encoding="utf-8")
        written.append(target)
    return written


# ------------------------------------------------------------------ the kit
def build(out: Path, class_url: str = CLASS_URL) -> dict:
    """Write the whole kit under ``out``; returns ``{"files": [...], "key": [answer key entries]}``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    runs = {(lang, stem): run_lesson(lang, stem) for lang in LANGS for stem in LESSONS + EXTRAS}
    files = site(out / "site", class_url, runs)
    key: list[dict] = []
    per_lesson: dict[tuple[str, str], list[dict]] = {}
    for lang in LANGS:
        for stem in LESSONS + EXTRAS:
            ws = runs[(lang, stem)]["ws"]
            per_lesson[(lang, stem)] = entries = key_entries(lang, stem, ws)
            key += entries
    for (lang, stem), entries in per_lesson.items():
        path = out / "lecturer" / lang / f"{stem}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(lecturer_html(lang, stem, entries), encoding="utf-8")
        files.append(path)
    for lang in LANGS:
        for name, text in ((f"answer_key.{lang}.html", answer_key_html(lang, [e for e in key if e["lang"] == lang])),
                           (f"handout.{lang}.html", handout_html(lang, class_url))):
            (out / name).write_text(text, encoding="utf-8")
            files.append(out / name)
    (out / "answer_key.json").write_text(json.dumps(key, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    files.append(out / "answer_key.json")
    (out / "index.html").write_text(index_html(), encoding="utf-8")
    files.append(out / "index.html")
    return {"files": files, "key": key}


def index_html() -> str:
    L = labels()
    items = []
    for lang in LANGS:
        l_ = {k: v[lang] for k, v in L.items()}
        lessons = "".join(f"<li><a href='lecturer/{lang}/{stem}.html'>{html.escape(title(stem, lang))}</a></li>"
                          for stem in LESSONS + EXTRAS)
        items.append(f"<h2>{'English' if lang == 'en' else '中文'}</h2><ul>"
                     f"<li><a href='answer_key.{lang}.html'>{l_['answer_key']}</a></li>"
                     f"<li><a href='handout.{lang}.html'>{l_['handout']}</a></li>"
                     f"<li>{l_['lecturer_notes']}<ul>{lessons}</ul></li></ul>")
    body = (f"<h1>{L['kit']['en']} · {L['kit']['zh']}</h1><p class='small'>{L['kit_intro']['en']}<br>"
            f"{L['kit_intro']['zh']}</p><p><a href='site/lessons/index.html'>{L['site']['en']} · {L['site']['zh']}"
            f"</a></p>{''.join(items)}")
    return page("en", f"{L['kit']['en']} · {L['kit']['zh']}", body)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Build the lecturer's kit (docs/workshop.md, 'The lecturer's kit').")
    parser.add_argument("--out", default=str(Path("build") / "kit"), help="output folder (default build/kit)")
    parser.add_argument("--class-url", default=CLASS_URL, help="the class server's lesson index, for the handout")
    args = parser.parse_args(argv)
    result = build(Path(args.out), args.class_url)
    print(f"{len(result['files'])} files in {args.out}: open {Path(args.out) / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
