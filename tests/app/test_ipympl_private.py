"""The private ipympl and matplotlib names the app relies on still exist (explorer/app/ipympl_private.py).

An upgrade that renames one fails here naming it, before a blank chart or an
unguarded canvas shows up in a browser. "source" names are instance attributes
the library sets and reads itself: its module must still mention them, or
setting one (say ``_force_full``) would silently do nothing.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from explorer.app import ipympl_private
from explorer.app.ipympl_private import PRIVATE_NAMES


@pytest.mark.parametrize("module, owner, name, how", PRIVATE_NAMES, ids=lambda v: str(v))
def test_private_name_still_exists(module, owner, name, how):
    mod = importlib.import_module(module)
    cls = getattr(mod, owner)
    if how == "read":
        assert hasattr(cls, name), (f"{module}.{owner}.{name} is gone: explorer/app/ipympl_private.py relies on it "
                                    f"(installed versions: see pip show ipympl matplotlib)")
    else:
        assert f"self.{name}" in inspect.getsource(mod) or f".{name} =" in inspect.getsource(mod), (
            f"{module} no longer sets or reads {name}: explorer/app/ipympl_private.py relies on it")


def test_every_private_name_used_is_listed():
    """Each private attribute the module touches on a library object is in PRIVATE_NAMES (and its docstring)."""
    import re

    source = Path(ipympl_private.__file__).read_text()
    code = source[source.index("from __future__"):]
    used = set(re.findall(r"(?:canvas|fig|self|super\(\))\.(_[a-z][a-z_]*)\b", code))
    own = {"_stale_pixels", "_clamped"}  # GuardedCanvas's own
    listed = {name for _, _, name, _ in PRIVATE_NAMES}
    assert used - own <= listed, used - own - listed
    assert all(name in ipympl_private.__doc__ for name in listed)


def test_no_other_module_of_the_package_uses_them():
    root = Path(ipympl_private.__file__).resolve().parents[1]
    names = {name for _, _, name, _ in PRIVATE_NAMES if name.startswith("_")}
    offenders = [f"{path.relative_to(root)}: {name}" for path in root.rglob("*.py") if path.name != "ipympl_private.py"
                 for name in names if f".{name}" in path.read_text()]
    assert offenders == []


def test_the_helpers_work_on_a_real_canvas():
    """The behaviour the names stand for, once: a chart drawn before a page is there is a loadable data URL; a
    figure attached to a canvas with a pixel ratio of 2 renders at twice its dpi."""
    from matplotlib.figure import Figure

    fig = ipympl_private.widget_figure(2.0, 1.0)
    fig.add_subplot().plot([0, 1], [0, 1])
    fig.canvas.draw()
    assert ipympl_private.image_url(fig.canvas).startswith("data:image/png;base64,")
    ipympl_private.page_connected(fig.canvas)
    fig.canvas._handle_message(fig.canvas, {"type": "set_device_pixel_ratio", "device_pixel_ratio": 2}, [])
    other = Figure(figsize=(2.0, 1.0), dpi=96)
    ipympl_private.attach_figure(other, fig.canvas)
    assert other.canvas is fig.canvas and other.dpi == 192 and ipympl_private.original_dpi(other) == 96
