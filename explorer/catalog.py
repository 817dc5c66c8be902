"""Packaged catalogs: accelerators, regions, named defaults and published runs.

Each catalog is a CSV file in ``explorer/data`` with a source column, read once
with :mod:`importlib.resources` and returned as typed, immutable rows (the
CodeCarbon way of shipping data with its provenance). Blank cells mean that no
sourced value was found; they load as ``None`` and the model says so when it
needs them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from explorer import tables
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.tables import SCHEMAS

__all__ = [
    "PRECISIONS",
    "Precision",
    "precisions",
    "Accelerator",
    "Region",
    "Default",
    "accelerators",
    "accelerator",
    "regions",
    "region",
    "defaults",
    "default",
    "published_runs",
    "read_csv",
    "check_rows",
    "CatalogError",
    "SCHEMAS",
]


_PEAK_COLUMNS = {
    "fp32": "fp32_tflops",
    "tf32": "tf32_tflops_dense",
    "bf16": "bf16_tflops_dense",
    "fp16": "fp16_tflops_dense",
    "fp8": "fp8_tflops_dense",
    "fp4": "fp4_tflops_dense",
}


def read_csv(name: str) -> tuple[Mapping[str, str], ...]:
    """Rows of a packaged CSV file as read-only mappings of strings, schema-checked (read once).

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
    CatalogError
        When the file breaks its schema (:data:`SCHEMAS`): a row with the wrong
        number of fields, a value of the wrong type, a missing source or id, or
        a duplicate id.
    """
    try:
        return tables.read_rows(name)
    except tables.TableError as exc:
        raise CatalogError(str(exc)) from None


class CatalogError(ScenarioError):
    """A packaged catalog breaks its schema: names the file and line, the value and what is allowed.

    Parameters
    ----------
    message : str
        The message of :class:`explorer.tables.TableError`, ``"<file> line <n> (<id>): <what>"``; the text before
        the first ``": "`` becomes the error's ``field``, the rest its ``value``.
    """

    def __init__(self, message: str):
        where, _, what = message.partition(": ")
        super().__init__(where, what, Message("allowed_catalog_row"))


def check_rows(name: str, text: str) -> tuple[Mapping[str, str], ...]:
    """Parse CSV ``text`` of catalog ``name`` and check it against :data:`SCHEMAS`.

    Parameters
    ----------
    name : str
        File name of the catalog (a key of :data:`SCHEMAS`, e.g. ``"regions.csv"``); a name without a schema is
        checked for its header, its column count and unique, non-empty ids in the first column.
    text : str
        The CSV text, header first.

    Returns
    -------
    tuple of mapping
        One read-only mapping per data row, column name -> cell text, in text order (blank lines skipped).

    Raises
    ------
    CatalogError
        As :func:`read_csv` (:func:`explorer.tables.check_rows` does the checking).
    """
    try:
        return tables.check_rows(name, text)
    except tables.TableError as exc:
        raise CatalogError(str(exc)) from None


def _number(text: str | None) -> float | None:
    if text is None or not text.strip():
        return None
    value = float(text)
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class Accelerator:
    """One accelerator of ``accelerators.csv``.

    Cloud prices are not here: :func:`explorer.prices.quote` derives them per
    price basis from ``cloud_prices.csv``.

    Parameters
    ----------
    id : str
        Catalog id (e.g. ``"h100-sxm"``).
    name : str
        Display name.
    vendor : str
        Maker of the chip.
    year : int
        Year of release.
    memory_gb : float
        Device memory [GB].
    tdp_w : float or None
        Thermal design power of the chip [W]; None where unpublished.
    peak_tflops : mapping
        Dense peak [TFLOP/s] per precision; precisions it lacks are absent.
    purchase_usd : float or None
        Approximate purchase price per accelerator [USD].
    source : str
        Source of the row's specifications.
    power_basis : {"tdp", "measured_system"}
        How energy is computed: from ``tdp_w`` times the server factor and the
        average power fraction, or from ``system_power_w``, a measured mean
        system power per chip (host share included).
    system_power_w : float or None
        Measured mean system power per chip [W] (``power_basis`` measured_system).
    server_power_factor : float or None
        Server wall power per accelerator over its TDP for this generation [x];
        None: the model falls back to ``server_power_factor_gpu`` and says so.
    power_source : str
        Source of ``system_power_w`` and ``server_power_factor``; "" where neither is given.
    purchase_basis : {"chip", "system"}
        Whether ``purchase_usd`` is a chip (or GPU board) price, to which the
        server overhead applies, or a per-GPU share of a whole system.
    mfu_default : str
        Name of the default MFU (``defaults.csv``) measured on this generation;
        empty where none was measured.
    purchase_source : str
        Source and date of ``purchase_usd``.
    purchase_date : str
        Date of ``purchase_usd`` as its source gives it (``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD``; a TPU's: its
        release year, when Epoch AI takes it as acquired); "" where the source gives none.
    """

    id: str
    name: str
    vendor: str
    year: int
    memory_gb: float
    tdp_w: float | None
    peak_tflops: Mapping[str, float]
    purchase_usd: float | None
    source: str
    power_basis: str = "tdp"
    system_power_w: float | None = None
    server_power_factor: float | None = None
    power_source: str = ""
    purchase_basis: str = "chip"
    mfu_default: str = "mfu_dense"
    purchase_source: str = ""
    purchase_date: str = ""

    @property
    def is_tpu(self) -> bool:
        """True for Google TPUs, whose server power and utilization differ from GPU servers."""
        return self.id.startswith("tpu")

    @property
    def precisions(self) -> tuple[str, ...]:
        """Precisions with a published dense peak, in :data:`PRECISIONS` order."""
        return tuple(p for p in PRECISIONS if p in self.peak_tflops)

    def nearest_precision(self, precision: str) -> str:
        """``precision`` if this accelerator has it, else the supported one closest to it.

        Closest means the same width first (BF16 and FP16), then wider formats
        before narrower ones: a run is never silently moved to FP8.

        Examples
        --------
        >>> accelerator("v100").nearest_precision("bf16")
        'fp16'
        >>> accelerator("h100-sxm").nearest_precision("fp4")
        'fp8'
        """
        if precision in self.peak_tflops:
            return precision
        for candidate in _NEAREST_PRECISION.get(precision, ()):
            if candidate in self.peak_tflops:
                return candidate
        return self.precisions[0]


# Fallback order per precision: same width first, then wider, then narrower.
_NEAREST_PRECISION = {
    "bf16": ("fp16", "tf32", "fp32", "fp8"),
    "fp16": ("bf16", "tf32", "fp32", "fp8"),
    "fp8": ("bf16", "fp16", "tf32", "fp32"),
    "fp4": ("fp8", "bf16", "fp16", "tf32", "fp32"),
    "tf32": ("fp32", "bf16", "fp16"),
    "fp32": ("tf32", "bf16", "fp16"),
}


@dataclass(frozen=True)
class Region:
    """One region of ``regions.csv``; unknown values are None.

    Parameters
    ----------
    id : str
        Catalog id (e.g. ``"us-avg"``).
    name : str
        Display name (the ``region`` column).
    country : str
        Country of the region.
    electricity_usd_per_kwh : float or None
        Industrial electricity price [USD/kWh].
    price_year : int or None
        Year of ``electricity_usd_per_kwh``.
    grid_gco2_per_kwh : float or None
        Carbon intensity of the grid [gCO2/kWh].
    pue : float or None
        Typical power usage effectiveness of the region's data centres [1].
    source : str
        Sources of the price and of the carbon intensity, joined by "; ".
    """

    id: str
    name: str
    country: str
    electricity_usd_per_kwh: float | None
    price_year: int | None
    grid_gco2_per_kwh: float | None
    pue: float | None
    source: str


@dataclass(frozen=True)
class Default:
    """A named model default with its unit and source (``defaults.csv``).

    Parameters
    ----------
    name : str
        Name of the default (e.g. ``"spot_discount"``).
    value : float
        Its value, in ``unit``.
    unit : str
        Unit of ``value`` as ``defaults.csv`` writes it.
    description : str
        What the default is.
    source : str
        Source and date of ``value`` (or the rule it was chosen by).
    """

    name: str
    value: float
    unit: str
    description: str
    source: str


def _accelerator(row: Mapping[str, str]) -> Accelerator:
    peaks = {p: _number(row[col]) for p, col in _PEAK_COLUMNS.items()}
    return Accelerator(
        id=row["id"],
        name=row["name"],
        vendor=row["vendor"],
        year=int(row["year"]),
        memory_gb=float(row["memory_gb"]),
        tdp_w=_number(row["tdp_watts"]),
        peak_tflops=MappingProxyType({p: v for p, v in peaks.items() if v}),
        purchase_usd=_number(row["approx_purchase_usd"]),
        source=row["source"],
        power_basis=row["power_basis"],
        system_power_w=_number(row["system_power_w"]),
        server_power_factor=_number(row["server_power_factor"]),
        power_source=row["power_source"],
        purchase_basis=row["purchase_basis"],
        mfu_default=row["mfu_default"],
        purchase_source=row["purchase_price_basis_source_date"],
        purchase_date=row["purchase_date"],
    )


def _region(row: Mapping[str, str]) -> Region:
    year = _number(row["price_year"])
    return Region(
        id=row["id"],
        name=row["region"],
        country=row["country"],
        electricity_usd_per_kwh=_number(row["industrial_electricity_usd_per_kwh"]),
        price_year=int(year) if year else None,
        grid_gco2_per_kwh=_number(row["grid_carbon_gco2_per_kwh"]),
        pue=_number(row["typical_pue"]),
        source="; ".join(s for s in (row["source_price"], row["source_carbon"]) if s),
    )


@dataclass(frozen=True)
class Precision:
    """One training precision of ``precisions.csv``.

    Parameters
    ----------
    id : str
        Precision id (``"bf16"``, ``"fp8"``, ...; :data:`PRECISIONS`).
    weight_bytes : float
        Bytes per stored weight [bytes].
    activation_bytes : float or None
        Bytes per stored activation value [bytes]; None where no source was found.
    source : str
        Source of the byte counts.
    """

    id: str
    weight_bytes: float
    activation_bytes: float | None
    source: str


@functools.cache
def precisions() -> Mapping[str, Precision]:
    """All training precisions, keyed by id, from widest to narrowest.

    Returns
    -------
    mapping of str to Precision
        Read-only; in the order of ``precisions.csv``.
    """
    return MappingProxyType({
        r["id"]: Precision(r["id"], float(r["weight_bytes"]), _number(r["activation_bytes"]), r["source"])
        for r in read_csv("precisions.csv")
    })


#: Training precisions the model knows, from widest to narrowest (``precisions.csv``).
PRECISIONS: tuple[str, ...] = tuple(precisions())


@functools.cache
def accelerators() -> Mapping[str, Accelerator]:
    """All accelerators, keyed by id, in catalog order.

    Returns
    -------
    mapping of str to Accelerator
        Read-only; in the order of ``accelerators.csv``.
    """
    return MappingProxyType({row["id"]: _accelerator(row) for row in read_csv("accelerators.csv")})


@functools.cache
def regions() -> Mapping[str, Region]:
    """All regions, keyed by id, in catalog order.

    Returns
    -------
    mapping of str to Region
        Read-only; in the order of ``regions.csv``.
    """
    return MappingProxyType({row["id"]: _region(row) for row in read_csv("regions.csv")})


@functools.cache
def defaults() -> Mapping[str, Default]:
    """All named defaults, keyed by name.

    Returns
    -------
    mapping of str to Default
        Read-only; in the order of ``defaults.csv``.
    """
    return MappingProxyType(
        {
            row["name"]: Default(row["name"], float(row["value"]), row["unit"], row["description"], row["source"])
            for row in read_csv("defaults.csv")
        }
    )


def default(name: str) -> float:
    """Value of the named default (see ``explorer/data/defaults.csv``).

    Parameters
    ----------
    name : str
        Name of the default (the ``name`` column).

    Returns
    -------
    float
        Its value, in the unit of its row (:attr:`Default.unit`).

    Raises
    ------
    KeyError
        For a name that is not in ``defaults.csv``.
    """
    return defaults()[name].value


def accelerator(accelerator_id: str) -> Accelerator:
    """The accelerator with this id; :class:`ScenarioError` names the known ids otherwise.

    Parameters
    ----------
    accelerator_id : str
        Catalog id (a key of :func:`accelerators`).

    Returns
    -------
    Accelerator
        Its row.

    Raises
    ------
    ScenarioError
        For an unknown id (field ``gpu``).
    """
    try:
        return accelerators()[accelerator_id]
    except KeyError:
        raise ScenarioError("gpu", accelerator_id, Message("allowed_choices", choices=list(accelerators()),
                                                            field="gpu")) from None


def region(region_id: str) -> Region:
    """The region with this id; :class:`ScenarioError` names the known ids otherwise.

    Parameters
    ----------
    region_id : str
        Catalog id (a key of :func:`regions`).

    Returns
    -------
    Region
        Its row.

    Raises
    ------
    ScenarioError
        For an unknown id (field ``region``).
    """
    try:
        return regions()[region_id]
    except KeyError:
        raise ScenarioError("region", region_id, Message("allowed_choices", choices=list(regions()),
                                                            field="region")) from None


@functools.cache
def export_controls() -> Mapping[str, Mapping[str, str]]:
    """Accelerators under US export controls for a destination country: gpu id -> row of export_controls.csv.

    Each row names the country, the rule (the BIS interim final rules of October 2022 and October 2023, by
    Federal Register citation), its dates and sources; issue 41.
    """
    return MappingProxyType({row["gpu"]: row for row in read_csv("export_controls.csv")})


def published_runs() -> tuple[Mapping[str, str], ...]:
    """Disclosed training runs (``published_runs.csv``), as read; see its ``notes`` column.

    Returns
    -------
    tuple of mapping
        One read-only mapping of column name -> cell text per run, in file order.
    """
    return read_csv("published_runs.csv")
