"""Preset scenarios: published training runs replayed, and a few typical runs.

``explorer/data/presets.csv`` names, for each preset, a published run (whose
parameters, tokens and GPU count come from ``published_runs.csv``) and the
scenario fields to set on top (accelerator id, precision, ...), with sources.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Mapping

from explorer import catalog
from explorer.scenario import Scenario

__all__ = ["Preset", "presets", "published_run"]


@dataclass(frozen=True)
class Preset:
    """A named scenario with its source; ``run`` names the published run it replays.

    Parameters
    ----------
    id : str
        Preset id (``presets.csv``).
    name : mapping of str to str
        Display name by language: ``{"en": ..., "zh": ...}``.
    run : str
        The ``model`` of the ``published_runs.csv`` row it replays; "" for a typical run.
    scenario : Scenario
        The scenario: the run's parameters, tokens, GPU count and disclosed shape, with the preset's own fields on
        top.
    source : str
        Sources of the replayed run and of the preset's own fields.
    """

    id: str
    name: Mapping[str, str]
    run: str
    scenario: Scenario
    source: str


def published_run(model: str) -> Mapping[str, str]:
    """The row of ``published_runs.csv`` whose ``model`` is ``model``.

    Parameters
    ----------
    model : str
        The run's name, as the ``model`` column writes it.

    Returns
    -------
    mapping of str to str
        The row, column name -> cell text.

    Raises
    ------
    KeyError
        When no row has that ``model``.
    """
    for row in catalog.published_runs():
        if row["model"] == model:
            return row
    raise KeyError(model)


def _from_run(row: Mapping[str, str]) -> dict:
    fields: dict = {"params": float(row["params_total"]), "tokens": float(row["tokens"])}
    if row["params_active"]:
        fields["active_params"] = float(row["params_active"])
    if row["n_accelerators"]:
        fields["gpus"] = int(float(row["n_accelerators"]))
    for name in ("n_layers", "d_model", "seq_len"):  # the run's disclosed shape (shape_source)
        if row[name]:
            fields[name] = int(row[name])
    return fields


@functools.cache
def presets() -> Mapping[str, Preset]:
    """All presets keyed by id, in catalog order.

    Returns
    -------
    mapping of str to Preset
        In the order of ``presets.csv``.
    """
    out = {}
    for row in catalog.read_csv("presets.csv"):
        fields = _from_run(published_run(row["run"])) if row["run"] else {}
        fields.update(json.loads(row["scenario_json"]))
        out[row["id"]] = Preset(
            id=row["id"],
            name={"en": row["name_en"], "zh": row["name_zh"]},
            run=row["run"],
            scenario=Scenario.from_dict(fields),
            source=row["source"],
        )
    return out
