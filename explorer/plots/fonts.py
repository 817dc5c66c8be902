"""Font choice for chart text: Chinese where a CJK font is installed, else English.

Matplotlib draws empty boxes for characters its font lacks, so charts only
switch to Chinese when :func:`cjk_font` finds a font that covers it.
"""

from __future__ import annotations

import functools

from matplotlib import font_manager

__all__ = ["cjk_font", "text_kwargs"]

_CJK_CANDIDATES = ("Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK JP", "Source Han Sans SC",
                   "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "SimHei", "Microsoft YaHei",
                   "PingFang SC", "Heiti SC", "Noto Serif CJK SC")


@functools.cache
def cjk_font() -> str | None:
    """Name of an installed font that draws Chinese (tested on 成本), or None."""
    from matplotlib.ft2font import FT2Font

    by_name: dict[str, str] = {}
    for entry in font_manager.fontManager.ttflist:
        by_name.setdefault(entry.name, entry.fname)
    names = [n for n in _CJK_CANDIDATES if n in by_name]
    names += sorted(n for n in by_name if "CJK" in n and n not in names)
    for name in names:
        try:
            font = FT2Font(by_name[name])
            if all(font.get_char_index(ord(ch)) for ch in "成本"):
                return name
        except Exception:  # an unreadable font file: try the next one
            continue
    return None


def text_kwargs(language: str) -> tuple[dict, str]:
    """Text keyword arguments and the language the chart can actually show.

    Returns ``({"fontfamily": [cjk, "DejaVu Sans"]}, "zh")`` when Chinese is
    asked for and drawable, else ``({}, "en")``.
    """
    if language == "zh":
        font = cjk_font()
        if font:
            return {"fontfamily": [font, "DejaVu Sans"]}, "zh"
    return {}, "en"
