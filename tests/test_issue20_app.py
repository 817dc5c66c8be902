"""Issue 20, kernel side: a flood of chart widths costs one layout, for the latest width only."""

from __future__ import annotations

import asyncio

from explorer.app import ExplorerApp
from explorer.app.explorer_app import WIDTH_COALESCE_SECONDS


def test_chart_widths_in_a_running_kernel_are_coalesced_to_the_latest():
    app = ExplorerApp(query_string="")
    app.coalesce_widths = True  # as in a kernel: the comm handler runs on the event loop below
    applied: list = []
    apply = app.sizer.apply
    app.sizer.apply = lambda width: applied.append(width) or apply(width)

    async def flood() -> None:
        for i in range(60):  # what a page (or a script) can send within the rate limit
            app.bridge.chart_width = 320 + 20 * (i % 30)
        app.bridge.chart_width = 372
        for _ in range(100):  # bounded wait for the one layout
            await asyncio.sleep(WIDTH_COALESCE_SECONDS / 5)
            if applied:
                break
        await asyncio.sleep(WIDTH_COALESCE_SECONDS * 2)

    import threading  # a loop of its own, also when the test process already runs one (playwright)

    runner = threading.Thread(target=lambda: asyncio.run(flood()))
    runner.start()
    runner.join(timeout=120)
    assert len(applied) == 1 and app.sizer.width_px == 360  # 372 px rounds down to the 20 px step


def test_absurd_link_values_are_refused_with_a_message_not_clamped():
    for build in (lambda: ExplorerApp(query_string="tokens=1e309&gpus=1e99"),
                  lambda: _applied("tokens=1e309&gpus=1e99")):
        app = build()
        assert app.scenario.tokens == 1e12 and app.scenario.gpus != 10_000_000  # the defaults, not the clamps
        assert "tokens" in app.error or "gpus" in app.error
        assert "explorer-banner" in app.banner.value


def _applied(link: str) -> ExplorerApp:
    app = ExplorerApp(query_string="")
    app.apply_query(link)
    return app
