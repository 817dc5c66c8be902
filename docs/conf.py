"""Sphinx configuration: the API reference of the ``explorer`` package (``make docs``).

The docstrings are numpydoc; the numpydoc extension renders them, including the
References sections of the formulas (pvlib style: ``[1]_`` in the text, the
citation under References). The build runs with ``-W``: a warning fails it.
"""

import os
import sys

# the package from this checkout, whatever is installed
sys.path.insert(0, os.path.abspath(".."))

project = "llm-cost-explorer"
author = "llm-cost-explorer contributors"
copyright = "the llm-cost-explorer contributors"  # noqa: A001 - the name Sphinx reads

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "numpydoc",
]

root_doc = "index"
source_suffix = {".rst": "restructuredtext"}  # the Markdown pages in docs/ are read on the forge, not built
exclude_patterns = ["_build"]

# autodoc: members in ``__all__``, in source order; type hints stay in the signature
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
# the app module builds ipywidgets and an ipympl canvas only when an app is made; importing is enough

# numpydoc: no member tables under classes (the members follow in full), no type cross-references
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_title = "llm-cost-explorer API"
html_static_path: list[str] = []
