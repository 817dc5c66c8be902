"""Packaged CSV tables read once and checked against their schema: the bottom of the package.

Every table in ``explorer/data`` is read through :func:`read_rows`, which checks the header, the column count of
each row, the types, the sources and duplicate ids (:data:`SCHEMAS`). It imports nothing else of the package, so
the modules above it (:mod:`explorer.text` for the labels, :mod:`explorer.messages` for the message table,
:mod:`explorer.catalog` for the typed catalogs) form no import cycle. A table that breaks its schema raises
:class:`TableError` in plain English (it cannot be worded from a table that may be the broken one);
:mod:`explorer.catalog` turns it into the package's :class:`~explorer.errors.ScenarioError`.
"""

from __future__ import annotations

import csv
import datetime
import functools
import io
from importlib import resources
from types import MappingProxyType
from typing import Mapping, Required, TypedDict

__all__ = ["SCHEMAS", "TableError", "check_rows", "read_rows"]


#: Schema of every packaged catalog: its id column (unique, non-empty), the
#: columns that must hold a source, the type of each typed column
#: (``float``/``int``/``date``: blank allowed; ``float!``/``int!``/``date!``: required; a date is ``YYYY``,
#: ``YYYY-MM`` or ``YYYY-MM-DD``), and its
#: documentary columns: kept for the reader (where a value came from, the local
#: price before conversion, an alternative figure), read by no code. Columns not
#: named are free text the code reads. Every read checks the header, the column
#: count of each row, the types, the sources and duplicate ids.
class Schema(TypedDict, total=False):
    """One table's entry in :data:`SCHEMAS`: id column, source columns, column types, documentary columns."""

    id: Required[str]
    source: Required[tuple[str, ...]]
    types: Required[Mapping[str, str]]
    documentary: tuple[str, ...]


SCHEMAS: Mapping[str, Schema] = MappingProxyType({
    "accelerators.csv": {
        "id": "id", "documentary": ("datasheet_sparsity_note",), "source": ("source",),
        "types": {"year": "int!", "memory_gb": "float!", "mem_bandwidth_tbs": "float", "fp32_tflops": "float",
                  "tf32_tflops_dense": "float", "bf16_tflops_dense": "float", "fp16_tflops_dense": "float",
                  "fp8_tflops_dense": "float", "fp4_tflops_dense": "float", "tdp_watts": "float",
                  "approx_purchase_usd": "float", "system_power_w": "float", "server_power_factor": "float",
                  "purchase_date": "date"},
    },
    "cloud_prices.csv": {"id": "id", "documentary": ("epoch_hardware_model", "offer"), "source": ("source",),
                         "types": {"on_demand_usd_per_gpu_hour": "float", "committed_1y_usd_per_gpu_hour": "float",
                                   "committed_3y_usd_per_gpu_hour": "float"}},
    "price_index.csv": {"id": "id", "source": ("source",), "types": {"ppi_pcu518210518210": "float!"}},
    # outside figures the default prices are checked against (tests/data/test_market_checks.py); read by no code
    "market_checks.csv": {"id": "id", "source": ("source",),
                          "types": {"low_usd_per_gpu_hour": "float", "high_usd_per_gpu_hour": "float",
                                    "central_usd_per_gpu_hour": "float", "date": "date!"}},
    "precisions.csv": {"id": "id", "source": ("source",),
                       "types": {"weight_bytes": "float!", "activation_bytes": "float"}},
    "regions.csv": {
        "id": "id", "source": ("source_carbon",),
        "documentary": ("price_local", "price_local_unit", "fx_to_usd_used", "carbon_year", "carbon_basis",
                        "alt_carbon_gco2_per_kwh", "hyperscaler_pue_example"),
        "types": {"industrial_electricity_usd_per_kwh": "float", "price_year": "int",
                  "grid_carbon_gco2_per_kwh": "float", "typical_pue": "float"},
    },
    # as_of: the date of the newest dated publication the value rests on (as_of_basis "source": YYYY, YYYY-MM
    # or YYYY-MM-DD, as precise as the source or its arXiv number gives it); where none of its sources is dated
    # (a live web page, a code repository, a rule), the day the value was last checked against them
    # (as_of_basis "checked")
    "defaults.csv": {"id": "name", "source": ("source",), "documentary": ("as_of", "as_of_basis"),
                     "types": {"value": "float!", "as_of": "date!"}},
    "published_runs.csv": {
        "id": "model", "documentary": ("org", "shape_source", "cost_basis"), "source": ("source",),
        "types": {"year": "int!", "params_total": "float", "params_active": "float", "tokens": "float",
                  "train_flop": "float", "n_accelerators": "float", "gpu_hours": "float", "wall_days": "float",
                  "reported_mfu": "float", "energy_mwh": "float", "n_layers": "int", "d_model": "int",
                  "seq_len": "int", "tco2eq": "float", "reported_cost_usd": "float"},
    },
    "presets.csv": {"id": "id", "source": ("source",), "types": {}},
    "labels.csv": {"id": "key", "source": (), "types": {}},
    "messages.csv": {"id": "id", "source": (), "types": {}},
    "claim_texts.csv": {"id": "id", "source": (), "types": {}},
    "history.csv": {"id": "id", "source": ("source",), "types": {"cost_usd": "float!"}},
    "epoch_frontier.csv": {"id": "id", "documentary": ("organization", "training_hardware"), "source": ("source",),
                           "types": {"training_compute_flop": "float!", "amortized_hardware_energy_cost_usd": "float!",
                                     "cloud_cost_usd": "float", "hardware_acquisition_cost_usd": "float",
                                     "parameters": "float", "hardware_quantity": "float"}},
    "article_claims.csv": {"id": "id", "source": ("source",), "types": {"year": "int", "claimed_usd": "float"}},
    "uncertainty.csv": {"id": "id", "source": ("source",), "types": {"low": "float!", "high": "float!"}},
    "recipe_claims.csv": {"id": "id", "source": ("source",), "types": {"low": "float", "high": "float"}},
    "recipe_steps.csv": {"id": "id", "source": ("source",), "types": {"value": "float!"}},
    "team_sizes.csv": {"id": "id", "source": ("source",),
                       "types": {"train_flop": "float", "authors": "float!", "project_months": "float"}},
    "moe_models.csv": {"id": "id", "source": ("source",), "types": {"params_total": "float!", "params_active": "float!"}},
    "mfu_bounds.csv": {"id": "id", "source": ("source",), "types": {"low": "float!", "high": "float!"}},
    "export_controls.csv": {"id": "gpu", "documentary": ("rule", "note"), "source": ("source",), "types": {"published": "date!", "effective": "date!"}},
})


class TableError(ValueError):
    """A packaged table breaks its schema; the message names the file, the line, the value and the rule."""


@functools.cache
def read_rows(name: str) -> tuple[Mapping[str, str], ...]:
    """Rows of the packaged CSV file ``name`` (in ``explorer/data``) as read-only mappings of strings, checked once.

    Parameters
    ----------
    name : str
        File name inside ``explorer/data`` (e.g. ``"regions.csv"``).

    Returns
    -------
    tuple of mapping
        One read-only mapping per data row, column name -> cell text, in file order.

    Raises
    ------
    TableError
        When the file breaks its schema (:data:`SCHEMAS`).
    """
    text = resources.files("explorer").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    return check_rows(name, text)


def check_rows(name: str, text: str) -> tuple[Mapping[str, str], ...]:
    """Parse CSV ``text`` of table ``name`` and check it against :data:`SCHEMAS`.

    Parameters
    ----------
    name : str
        File name of the table (a key of :data:`SCHEMAS`); a name without a schema is checked for its header, its
        column count and unique, non-empty ids in the first column.
    text : str
        The CSV text, header first.

    Returns
    -------
    tuple of mapping
        One read-only mapping per data row, column name -> cell text, in text order (blank lines skipped).

    Raises
    ------
    TableError
        When the text breaks the schema: an empty text, a missing column, a row with the wrong number of fields,
        an empty or duplicate id, a missing source, a missing required value, or a value of the wrong type.
    """
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        raise TableError(f"{name}: empty file") from None
    schema = SCHEMAS.get(name, {"id": header[0], "source": (), "types": {}})
    named = (schema["id"], *schema["source"], *schema["types"], *schema.get("documentary", ()))
    missing = [c for c in named if c not in header]
    if missing:
        raise TableError(f"{name}: header lacks column(s) {', '.join(missing)}")
    rows, seen = [], set()
    for line, fields in enumerate(reader, start=2):
        if not fields:
            continue
        if len(fields) != len(header):
            raise TableError(f"{name} line {line}: {len(fields)} fields, the header has {len(header)} "
                               "(unquoted comma?)")
        row = dict(zip(header, fields))
        key = row[schema["id"]].strip()
        if not key:
            raise TableError(f"{name} line {line}: empty {schema['id']}")
        if key in seen:
            raise TableError(f"{name} line {line}: duplicate {schema['id']} {key!r}")
        seen.add(key)
        for col in schema["source"]:
            if not row[col].strip():
                raise TableError(f"{name} line {line} ({key}): column {col} needs a source")
        for col, kind in schema["types"].items():
            cell = row[col].strip()
            if not cell:
                if kind.endswith("!"):
                    raise TableError(f"{name} line {line} ({key}): column {col} is required")
                continue
            if kind.startswith("date"):
                if not _is_date(cell):
                    raise TableError(f"{name} line {line} ({key}): column {col} = {cell!r} is not a date "
                                     "(YYYY, YYYY-MM or YYYY-MM-DD)")
                continue
            try:
                value = float(cell)
            except ValueError:
                raise TableError(f"{name} line {line} ({key}): column {col} = {cell!r} is not a number") from None
            if kind.startswith("int") and value != int(value):
                raise TableError(f"{name} line {line} ({key}): column {col} = {cell!r} is not a whole number")
        rows.append(MappingProxyType(row))
    return tuple(rows)


def _is_date(cell: str) -> bool:
    """Whether ``cell`` is a real date written ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``."""
    parts = cell.split("-")
    if not 1 <= len(parts) <= 3 or len(parts[0]) != 4 or any(len(p) != 2 for p in parts[1:]) \
            or not all(p.isascii() and p.isdigit() for p in parts):
        return False
    try:
        datetime.date(*(int(p) for p in parts), *(1,) * (3 - len(parts)))
    except ValueError:
        return False
    return True
