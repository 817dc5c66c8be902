"""The public API's numpydoc docstrings document what they must (issue 40).

numpydoc's own validator (:func:`numpydoc.validate.validate`, the checks behind its Sphinx option
``numpydoc_validation_checks``) runs over every public function and class of the modules in
:data:`CLEAN_MODULES`: none may leave a parameter undocumented (PR01), document one it does not take (PR02),
return a value without a Returns section (RT01) or lack a docstring (GL08). A dataclass documents its fields
in a Parameters section: they are its constructor's parameters, and numpydoc does not count an Attributes
section for them.
"""

from __future__ import annotations

import functools
import importlib
import inspect

import pytest
from numpydoc.docscrape import get_doc_object
from numpydoc.validate import validate

#: The modules whose public API is numpydoc-complete. The others join this list as they are cleaned:
#: explorer (the package's re-exports), explorer.text, explorer.workshop, explorer.model, explorer.analysis,
#: explorer.app, explorer.plots and explorer.hosting (and their submodules).
CLEAN_MODULES = (
    "explorer.catalog",
    "explorer.prices",
    "explorer.messages",
    "explorer.scenario",
    "explorer.rules",
    "explorer.presets",
    "explorer.tables",
    "explorer.errors",
    "explorer.claims",
    "explorer.history",
    "explorer.history.trend",
    "explorer.history.report",
)

#: PR01 parameter undocumented, PR02 unknown parameter documented, RT01 no Returns section, GL08 no docstring.
CHECKS = frozenset({"PR01", "PR02", "RT01", "GL08"})


def _public(module_name: str) -> list[tuple[str, object]]:
    """(qualified name, object) of each public function or class of a module, as its home module defines it.

    The public names are the module's ``__all__``; a module without one (``explorer.history.trend``) exports
    every name without a leading underscore that it defines. A re-export from a module outside
    :data:`CLEAN_MODULES` (``explorer.errors.short_repr`` is :mod:`explorer.text`'s) is checked when its home
    module joins the list. A cached function (``functools.cache``) is checked as the function it wraps: numpydoc
    skips RT01 for the wrapper, which is not a function.
    """
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, obj in vars(module).items()
                 if not n.startswith("_") and getattr(obj, "__module__", None) == module_name]
    out = []
    for name in names:
        obj = getattr(module, name)
        if not (inspect.isclass(obj) or callable(obj)):
            continue
        home = getattr(obj, "__module__", None)
        if home in CLEAN_MODULES:
            out.append((f"{home}.{obj.__qualname__}", obj))
    return out


def _objects() -> dict[str, object]:
    return {qualname: obj for module in CLEAN_MODULES for qualname, obj in _public(module)}


def _gaps(obj: object) -> list[tuple[str, str]]:
    """The errors of :data:`CHECKS` numpydoc finds in the docstring of ``obj``."""
    report = validate(get_doc_object(inspect.unwrap(obj)))
    return [(code, message) for code, message in report["errors"] if code in CHECKS]


OBJECTS = _objects()


@pytest.mark.parametrize("qualname", sorted(OBJECTS))
def test_public_docstring_is_complete(qualname):
    assert _gaps(OBJECTS[qualname]) == [], qualname


@pytest.mark.parametrize("module_name", CLEAN_MODULES)
def test_every_clean_module_has_public_objects(module_name):
    # a module that contributes nothing would pass the check above vacuously (a mistyped name, an empty __all__)
    assert _public(module_name), module_name


def test_checked_objects_include_cached_functions_and_dataclasses():
    # the list reaches what the count missed: cached functions and the fields of dataclasses
    assert {"explorer.prices.quote", "explorer.catalog.accelerators", "explorer.scenario.Scenario",
            "explorer.history.trend.history_table", "explorer.claims.Finding"} <= set(OBJECTS)


def test_the_check_finds_what_it_looks_for():
    def undocumented(price_usd_per_gpu_hour: float) -> float:
        """Price of something."""
        return price_usd_per_gpu_hour

    @functools.cache
    def cached(n: int) -> int:
        """Twice ``n``.

        Parameters
        ----------
        n : int
            A number.
        m : int
            Not a parameter.
        """
        return 2 * n

    def silent(n):
        return n

    assert {code for code, _ in _gaps(undocumented)} == {"PR01", "RT01"}
    assert {code for code, _ in _gaps(cached)} == {"PR02", "RT01"}
    assert {code for code, _ in _gaps(silent)} == {"GL08"}
