"""What the app sends before a viewer sees the first page (issue 26: a lighter first page).

A control row's CSS classes go out with the row's first state, not as a message each after it (about 120 of
the first page's 600 messages were such; benchmarks/first_page.py counts them).
"""

from __future__ import annotations


def test_a_control_rows_classes_are_in_its_first_state(app):
    row = app.rows["params"]
    assert "explorer-control-params" in row.box._dom_classes
    assert "explorer-control-message" in row.message._dom_classes
