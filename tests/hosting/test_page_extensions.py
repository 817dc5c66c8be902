"""A public page loads only the labextensions it draws with, whatever else the environment has installed.

An extension installed for JupyterLab (jupytext's, for example) would otherwise load its code into every
viewer's page, and may log errors there (the chromium fixture fails on any console error).
"""

from __future__ import annotations

import json
import re

import pytest

import clients as cl
from conftest import Server
from explorer.hosting.server.server import PAGE_EXTENSIONS

pytestmark = pytest.mark.server

FAKE = "labextension-of-another-tool"


def _extension_names(url: str) -> set[str]:
    page = cl.get_page(url, timeout=120)
    assert page.rendered
    config = json.loads(re.search(r'<script id="jupyter-config-data" type="application/json">\s*(.*?)\s*</script>',
                                  page.body, re.S).group(1))
    return {e["name"] for e in config["federated_extensions"]}


@pytest.fixture(scope="module")
def extra_labextensions(tmp_path_factory):
    """A labextensions folder holding one extension that no page needs."""
    root = tmp_path_factory.mktemp("labextensions")
    (root / FAKE / "static").mkdir(parents=True)
    (root / FAKE / "static" / "remoteEntry.0123abcd.js").write_text("// not loaded by the page\n")
    (root / FAKE / "package.json").write_text(json.dumps(
        {"name": FAKE, "version": "1.0.0",
         "jupyterlab": {"_build": {"load": "static/remoteEntry.0123abcd.js", "extension": "./extension"}}}))
    return root


def test_the_page_loads_only_the_extensions_it_draws_with(extra_labextensions):
    path = f'--VoilaConfiguration.extra_labextensions_path=["{extra_labextensions}"]'
    default = Server("extensions-default", path, pool_size=0)
    try:
        names = _extension_names(default.url)
    finally:
        default.stop()
    assert FAKE not in names
    assert names <= set(PAGE_EXTENSIONS)
    assert {"@jupyter-widgets/jupyterlab-manager", "jupyter-matplotlib"} <= names  # controls and charts still load

    # an operator's own allowlist wins, and the extra folder is read: the fake loads when allowed
    allowlist = f"--VoilaConfiguration.extension_allowlist={json.dumps([*PAGE_EXTENSIONS, FAKE])}"
    allowed = Server("extensions-allowed", path, allowlist, pool_size=0)
    try:
        assert FAKE in _extension_names(allowed.url)
    finally:
        allowed.stop()
