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
    "myst_parser",  # the Markdown pages: the guide, the model, hosting, the workshop, the architecture
]

root_doc = "index"
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
# links between the pages resolve to their HTML; a link to a file outside docs/ (CONTRIBUTING.md, the code) stays a
# link to the repository's file, which Sphinx cannot check: myst's "xref_missing" warnings are about those
suppress_warnings = ["myst.xref_missing", "myst.header"]
myst_heading_anchors = 3

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
html_title = "llm-cost-explorer"
html_static_path: list[str] = []


# architecture.md draws its process diagram in a ```mermaid fence (GitHub renders it); Pygments knows no mermaid
# lexer, and its warning fails the -W build: show the diagram's source as plain text here
def setup(app):
    """Register ``mermaid`` as a plain-text fence for Pygments (no extension needed)."""
    from pygments.lexers.special import TextLexer

    app.add_lexer("mermaid", TextLexer)
