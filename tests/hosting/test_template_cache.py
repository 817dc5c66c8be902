"""The page templates compiled once per server (explorer/hosting/server/template_cache.py).

Voila makes a new exporter, with a new jinja2 environment, for every kernel's page. With the shared cache
the second environment loads what the first compiled; a template changed on disk is compiled again.
"""

from __future__ import annotations

import jinja2
import pytest

import clients as cl

from explorer.hosting.server.template_cache import SharedBytecodeCache


def _environment(folder, cache, **settings) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(folder)), **settings)
    env.bytecode_cache = cache
    return env


def test_a_second_environment_loads_the_templates_the_first_compiled(tmp_path):
    (tmp_path / "base.html.j2").write_text("<main>{% block body %}{% endblock %}</main>")
    (tmp_path / "page.html.j2").write_text("{% extends 'base.html.j2' %}{% block body %}{{ who }}{% endblock %}")
    cache = SharedBytecodeCache()
    first = _environment(tmp_path, cache).get_template("page.html.j2").render(who="a")
    assert (cache.compiled, cache.loaded) == (2, 0)  # the page and the template it extends
    second = _environment(tmp_path, cache).get_template("page.html.j2").render(who="b")
    assert (first, second) == ("<main>a</main>", "<main>b</main>")
    assert (cache.compiled, cache.loaded) == (2, 2)  # nothing compiled again


def test_a_template_changed_on_disk_is_compiled_again(tmp_path):
    page = tmp_path / "page.html.j2"
    page.write_text("old {{ x }}")
    cache = SharedBytecodeCache()
    assert _environment(tmp_path, cache).get_template("page.html.j2").render(x=1) == "old 1"
    page.write_text("new {{ x }}")
    assert _environment(tmp_path, cache).get_template("page.html.j2").render(x=2) == "new 2"
    assert cache.compiled == 2 and cache.loaded == 0


def test_environments_that_compile_differently_do_not_share_code(tmp_path):
    (tmp_path / "page.html.j2").write_text("{% set y = x * 2 %}{{ y }}")
    cache = SharedBytecodeCache()
    assert _environment(tmp_path, cache).get_template("page.html.j2").render(x=2) == "4"
    asynchronous = _environment(tmp_path, cache, enable_async=True).get_template("page.html.j2")
    # render_async on a loop of its own thread: jinja2's sync render of an async template calls asyncio.run,
    # refused when an earlier in-process test left a loop running in the main thread (a full run saw it)
    assert cl.run_async(asynchronous.render_async(x=3)) == "6"
    assert cache.compiled == 2  # the async environment got its own code


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_voilas_renderer_makes_exporters_that_share_the_cache():
    import voila.notebook_renderer

    import explorer.hosting.server.server  # noqa: F401 - installs the cached exporter, as `python -m explorer.hosting` does
    from explorer.hosting.server.template_cache import BYTECODE_CACHE, CachedVoilaExporter

    assert voila.notebook_renderer.VoilaExporter is CachedVoilaExporter
    one, two = CachedVoilaExporter(template_name="lab"), CachedVoilaExporter(template_name="lab")
    assert one.environment is not two.environment
    assert one.environment.bytecode_cache is two.environment.bytecode_cache is BYTECODE_CACHE
