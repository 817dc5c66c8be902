"""Font choice for chart text: Chinese where a CJK font is installed, else English.

Matplotlib draws empty boxes for characters its font lacks, so charts only
switch to Chinese when :func:`cjk_font` finds a font that covers it. English
charts carry the CJK font too, as a fallback behind DejaVu Sans (matplotlib
>= 3.6 draws each character in the first font of the list that has it): a
Chinese slot name or article title on the English page is drawn, not boxed
(issue 41).
"""

from __future__ import annotations

import functools

from matplotlib import font_manager

__all__ = ["cjk_font", "text_kwargs"]

_CJK_CANDIDATES = ("Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK JP", "Source Han Sans SC",
                   "WenQuanYi Zen Hei", "WenQuanYi Micro Hei", "SimHei", "Microsoft YaHei",
                   "PingFang SC", "Heiti SC", "Noto Serif CJK SC")


#: Where CJK fonts are installed on common systems, searched when matplotlib's font cache lacks one
#: (the cache is built once and misses fonts installed after it).
CJK_FONT_GLOBS = (
    "/usr/share/fonts/opentype/noto/NotoSansCJK*.ttc", "/usr/share/fonts/**/NotoSansCJK*.tt[cf]",
    "/usr/share/fonts/**/NotoSansCJK*.otf", "/usr/share/fonts/**/SourceHanSans*.tt[cf]",
    "/usr/share/fonts/**/SourceHanSans*.otf", "/usr/share/fonts/**/wqy-*.ttc", "/usr/local/share/fonts/**/*CJK*",
    "~/.local/share/fonts/**/*CJK*", "~/.fonts/**/*CJK*", "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/STHeiti*.ttc", "C:/Windows/Fonts/msyh.tt[cf]", "C:/Windows/Fonts/simhei.ttf",
)


def _add_cjk_font_by_path() -> None:
    """Register with matplotlib the first CJK font file found on disk (see :data:`CJK_FONT_GLOBS`)."""
    import glob
    import os

    for pattern in CJK_FONT_GLOBS:
        for path in sorted(glob.glob(os.path.expanduser(pattern), recursive=True)):
            try:
                font_manager.fontManager.addfont(path)
                return
            except Exception:  # noqa: BLE001 - an unreadable file: try the next one
                continue


@functools.cache
def cjk_font() -> str | None:
    """Name of a font that draws Chinese (tested on 成本), or None.

    Looks in matplotlib's font list first; when that has none (a cache built
    before the font was installed), registers a CJK font file found by path.
    """
    name = _find_cjk_font()
    if name is None:
        _add_cjk_font_by_path()
        name = _find_cjk_font()
    return name


def _find_cjk_font() -> str | None:
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
        except Exception:  # noqa: BLE001 - an unreadable font file: try the next one
            continue
    return None


def text_kwargs(language: str) -> tuple[dict, str]:
    """Text keyword arguments and the language the chart can actually show.

    Returns ``({"fontfamily": [cjk, "DejaVu Sans"]}, "zh")`` when Chinese is
    asked for and drawable; else English with the CJK font as a fallback,
    ``({"fontfamily": ["DejaVu Sans", cjk]}, "en")``, so that Chinese text a
    user typed (a slot name) still draws; ``({}, "en")`` when no CJK font is
    installed.
    """
    font = cjk_font()
    if font is None:
        return {}, "en"
    if language == "zh":
        return {"fontfamily": [font, "DejaVu Sans"]}, "zh"
    return {"fontfamily": ["DejaVu Sans", font]}, "en"
