"""Several scenarios side by side: :func:`compare` and the what-if grid :func:`what_if`."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, cast

import numpy as np
import pandas as pd

from explorer import catalog, prices
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model import COST_DIMENSIONS, Estimate, estimate
from explorer.model.estimating import owned_summary
from explorer.model.resolve import Resolved, resolve
from explorer.model.vectorized import compute
from explorer.scenario import Scenario
from explorer.text import readable_number

__all__ = ["COMPARE_COLUMNS", "owned_columns", "basis_warnings", "price_warnings", "compare", "WHAT_IF_LEVERS", "what_if"]

#: What :func:`compare` takes: one scenario, scenarios by name, or scenarios in order.
Scenarios = Scenario | Mapping[str, Scenario] | Iterable[Scenario]

#: Columns of :func:`compare`, in order.
COMPARE_COLUMNS: tuple[str, ...] = (*(f"{d}_usd" for d in COST_DIMENSIONS), "total_usd", "final_run_usd", "days",
                                    "gpus", "gpu_hours", "energy_mwh", "co2_tonnes", "usd_per_1m_tokens",
                                    "capex_usd", "breakeven_months")


def owned_columns(e: Estimate) -> dict[str, float]:
    """An owned estimate's up-front purchase and break-even, as a buyer compares them; NaN for cloud pricing.

    ``capex_usd``: the cluster's capital, paid before the run (``estimate.owned["capex_usd"]``) [USD];
    ``breakeven_months``: months of use after which owning costs less than renting the same cluster on demand
    from the default seller, the savings discounted at the financing rate
    (``estimate.owned["breakeven_months"]["on_demand"]``; inf: never) [months].
    """
    if e.scenario.pricing != "owned" or not e.owned:
        return {"capex_usd": float("nan"), "breakeven_months": float("nan")}
    breakeven = cast(Mapping[str, float], e.owned["breakeven_months"])
    return {"capex_usd": float(cast(float, e.owned["capex_usd"])), "breakeven_months": float(breakeven["on_demand"])}


def _named(scenarios: Scenarios, names: Iterable[str] | None) -> tuple[list[str], list[Scenario]]:
    if isinstance(scenarios, Scenario):
        scenarios = [scenarios]
    if isinstance(scenarios, Mapping):
        names = list(scenarios) if names is None else list(names)
        scenarios = list(scenarios.values())
    scenarios = list(scenarios)
    if not scenarios:
        raise ScenarioError("scenarios", scenarios, Message("allowed_at_least_one_scenario"))
    for s in scenarios:
        if not isinstance(s, Scenario):
            raise ScenarioError("scenarios", type(s).__name__, Message("allowed_scenario_objects"))
    if names is None:
        names = [chr(ord("A") + i) if i < 26 else f"S{i + 1}" for i in range(len(scenarios))]
    names = [str(n) for n in names]
    if len(names) != len(scenarios):
        raise ScenarioError("names", len(names), Message("allowed_names_per_scenario", n=len(scenarios)))
    if len(set(names)) != len(names):
        raise ScenarioError("names", names, Message("allowed_distinct_names"))
    return names, scenarios


def _basis_id(s: Scenario) -> str:
    """The scenario's price basis with its seller: ``reserved_1y``, ``hyperscaler_on_demand``, ``spot (Nebius)``."""
    if s.pricing == "owned" or s.seller == prices.DEFAULT_SELLER:
        return s.pricing
    if s.seller == "hyperscaler":
        return f"hyperscaler_{s.pricing}"
    return f"{s.pricing} ({prices.seller_name(s.seller)})"


def basis_warnings(scenarios: Iterable[Scenario]) -> list[Message]:
    """Warnings for a comparison of accelerators priced on different bases.

    Two accelerators compared on two price bases differ by who sells them as
    much as by the hardware (a hyperscaler's list price is about 3x a
    specialist cloud's for the same H100; explorer.prices). Empty when every
    scenario uses one basis or one accelerator.
    """
    scenarios = list(scenarios.values()) if isinstance(scenarios, Mapping) else list(scenarios)
    bases = sorted({_basis_id(s) for s in scenarios if s.rate_usd_per_gpu_hour is None})
    gpus = sorted({catalog.accelerator(s.gpu).name for s in scenarios})
    if len(bases) > 1 and len(gpus) > 1:
        return [Message("bases_differ", gpus=gpus, bases=bases, field="pricing")]
    return []


def price_warnings(scenarios: Iterable[Scenario]) -> list[Message]:
    """Warnings for a comparison of accelerators whose price is derived, estimated or one provider's.

    When the scenarios use more than one accelerator, each catalog price they
    compare (a typed rate and owned hardware excluded) whose
    :attr:`explorer.prices.Quote.caveat` is not empty gets one message: the
    comparison of the hardware is only as good as that price. Spot is judged
    by its on-demand price (the spot discount is the same for every
    accelerator). Empty for one accelerator.
    """
    scenarios = list(scenarios.values()) if isinstance(scenarios, Mapping) else list(scenarios)
    if len({s.gpu for s in scenarios}) < 2:
        return []
    out, seen = [], set()
    for s in scenarios:
        if s.rate_usd_per_gpu_hour is not None or s.pricing == "owned" or (s.gpu, s.pricing, s.seller) in seen:
            continue
        seen.add((s.gpu, s.pricing, s.seller))
        q = prices.quote(s.gpu, "on_demand" if s.pricing == "spot" else s.pricing, s.seller)
        if q.caveat:
            out.append(Message("compare_price_caveat", gpu=catalog.accelerator(s.gpu).name, bases=[_basis_id(s)],
                               caveat=q.caveat, n=len(q.providers), field="pricing"))
    return out


def _readable(x: object) -> str:
    """A result as people read it: money and counts with thousands separators, small values to 3 digits."""
    if isinstance(x, (float, int, np.floating, np.integer)) and not isinstance(x, bool):
        x = float(x)
        if not np.isfinite(x):
            return "unknown" if np.isnan(x) else "∞"
        return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"
    return str(x)


class Comparison(pd.DataFrame):  # type: ignore[misc]  # pandas is untyped here (no pandas-stubs)
    """The table of :func:`compare`: a :class:`pandas.DataFrame` that prints its numbers readably.

    ``print(df)`` and a notebook show ``1,332,987`` and ``15.8``, not ``1.332987e+06``; the values are the
    same floats (``df.loc["A", "total_usd"]``), and every DataFrame method works as usual.
    """

    @property
    def _constructor(self) -> type[Comparison]:
        return Comparison

    def _formatters(self) -> dict[str, Any]:
        """Scenario fields as the app's boxes write them (``70B``), results with separators (``1,332,987``)."""
        fields = set(self.attrs.get("scenario_columns", ()))
        return {c: (_field_text if c in fields else _readable) for c in self.columns}

    def readable(self) -> pd.DataFrame:
        """The table as text, as it prints (``df.readable().T`` puts the scenarios in columns)."""
        return pd.DataFrame({c: self[c].map(f) for c, f in self._formatters().items()}, index=self.index)

    def to_string(self, *args: Any, **kwargs: Any) -> str:
        kwargs.setdefault("formatters", self._formatters())
        return str(super().to_string(*args, **kwargs))

    def __repr__(self) -> str:
        return self.to_string()

    def _repr_html_(self) -> str:
        return str(self.to_html(formatters=self._formatters()))


def _field_text(x: object) -> str:
    if isinstance(x, (np.integer, int)) and not isinstance(x, bool):
        return readable_number(int(x))
    return readable_number(float(x)) if isinstance(x, (np.floating, float)) else str(x)


def _differing_fields(scenarios: list[Scenario]) -> list[str]:
    """The Scenario fields whose values are not the same in every one of ``scenarios``, in field order."""
    rows = [s.to_dict() for s in scenarios]
    return [name for name in rows[0] if any(r[name] != rows[0][name] for r in rows[1:])]


def compare(scenarios: Scenarios, names: Iterable[str] | None = None, *,
            scenario_columns: bool = True) -> pd.DataFrame:
    """Side-by-side results of several scenarios.

    Parameters
    ----------
    scenarios : sequence of Scenario, or mapping of name -> Scenario
        The scenarios to compare.
    names : sequence of str, optional
        Row names; default ``A, B, C...`` (the app's slots), or the mapping's keys.
    scenario_columns : bool
        Put first a column for each Scenario field that differs between the scenarios (``params``,
        ``pricing``...), so the table says what was compared (default True).

    Returns
    -------
    Comparison
        A :class:`pandas.DataFrame` that prints its numbers readably (``1,332,987``, not ``1.33e+06``).
        Index: names. Columns: the Scenario fields that differ (with ``scenario_columns``), then
        :data:`COMPARE_COLUMNS`: ``<dimension>_usd`` for
        the six cost dimensions and ``total_usd`` of the whole project [USD];
        ``final_run_usd`` machine cost of the final run [USD]; ``days``
        wall-clock [days]; ``gpus`` [1]; ``gpu_hours`` billed [GPU-hour];
        ``energy_mwh`` [MWh] and ``co2_tonnes`` [tCO2] of the final run;
        ``usd_per_1m_tokens`` total per million training tokens [USD];
        ``capex_usd`` and ``breakeven_months`` of owned rows (:func:`owned_columns`;
        NaN for cloud pricing): what owning costs up front and when it pays back.
        ``df.attrs["warnings"]``: :func:`basis_warnings` and :func:`price_warnings`
        of the scenarios.

    Examples
    --------
    >>> from explorer import Scenario, compare
    >>> df = compare([Scenario(gpus=256), Scenario(gpus=256, pricing="spot")], names=["on-demand", "spot"])
    >>> bool(df.loc["spot", "compute_usd"] < df.loc["on-demand", "compute_usd"])
    True
    >>> list(df.columns[:2])
    ['pricing', 'compute_usd']
    """
    names, scenarios = _named(scenarios, names)
    fields = _differing_fields(scenarios) if scenario_columns else []
    rows = []
    for s in scenarios:
        e = estimate(s)
        row = {name: getattr(s, name) for name in fields}
        row.update({f"{d}_usd": e.cost_usd[d] for d in COST_DIMENSIONS})
        row.update(total_usd=e.total_usd, final_run_usd=e.final_run_usd, days=e.wall_days, gpus=e.gpus,
                   gpu_hours=e.gpu_hours, energy_mwh=e.energy_mwh, co2_tonnes=e.co2_tonnes,
                   usd_per_1m_tokens=e.usd_per_1m_tokens, **owned_columns(e))
        rows.append(row)
    df = Comparison(rows, index=pd.Index(names, name="scenario"), columns=[*fields, *COMPARE_COLUMNS])
    df.attrs["scenario_columns"] = fields
    df.attrs["warnings"] = basis_warnings(scenarios) + price_warnings(scenarios)
    return df


def _possible(inputs: list[dict[str, Any] | None], ok: list[Scenario]) -> list[Scenario | None]:
    """Each combination's Scenario (None where it was refused), from the resolved inputs and the possible ones."""
    it = iter(ok)
    return [next(it) if x is not None else None for x in inputs]


#: Levers a what-if grid can vary: Scenario fields whose values are a closed set.
WHAT_IF_LEVERS: tuple[str, ...] = ("pricing", "precision", "region", "gpu", "architecture", "facility", "recovery",
                                   "training_kind")


def what_if(scenario: Scenario, levers: Mapping[str, Iterable[Any]]) -> pd.DataFrame:
    """Every combination of the values of two or three levers, computed in one vectorized call.

    Each combination is ``scenario`` with those fields changed; each is
    resolved from the catalogs (cheap, per combination), and the model then
    runs once over arrays of all of them (:func:`explorer.model.vectorized.compute`),
    not once per cell.

    Parameters
    ----------
    scenario : Scenario
        The starting point; fields not named in ``levers`` keep its values.
    levers : mapping of str to iterable
        Field name (one of :data:`WHAT_IF_LEVERS`) -> the values to try.

    Returns
    -------
    pandas.DataFrame
        One row per combination, in the order of ``itertools.product``: a column
        per lever, then ``total_usd`` (whole project), ``final_run_usd``, the six
        ``<dimension>_usd`` [USD], ``days``, ``gpus``, ``gpu_hours``,
        ``energy_mwh``, ``co2_tonnes``, ``usd_per_1m_tokens``, ``capex_usd`` and
        ``breakeven_months`` (owned rows: :func:`owned_columns`; NaN otherwise), ``vs_start``
        (total / the starting scenario's total [1]) and ``note``: "" or why the
        combination is not possible (its numbers are then NaN). ``attrs["warnings"]``:
        :func:`basis_warnings` and :func:`price_warnings` of the possible
        combinations with the starting scenario.

    Raises
    ------
    ScenarioError
        For an unknown lever, a lever without values, or more than 1,000 combinations.

    Examples
    --------
    >>> from explorer import Scenario
    >>> grid = what_if(Scenario(), {"pricing": ["on_demand", "spot"], "precision": ["bf16", "fp8"]})
    >>> len(grid), list(grid.columns[:3])
    (4, ['pricing', 'precision', 'total_usd'])
    """
    import itertools

    names = list(levers)
    for name in names:
        if name not in WHAT_IF_LEVERS:
            raise ScenarioError("levers", name, Message("allowed_field_choices", names=list(WHAT_IF_LEVERS)))
    values = [list(dict.fromkeys(levers[n])) for n in names]
    if not names or any(not v for v in values):
        raise ScenarioError("levers", {n: v for n, v in zip(names, values)}, Message("allowed_value_per_lever"))
    combos = list(itertools.product(*values))
    if len(combos) > 1000:
        raise ScenarioError("levers", len(combos), Message("allowed_combinations", limit=1000))
    start = scenario.to_dict()
    inputs: list[dict[str, Any] | None] = []
    resolved: list[Resolved | None] = []
    notes: list[str | Message] = []
    ok: list[Scenario] = []
    for combo in combos:
        try:
            s = Scenario.from_dict({**start, **dict(zip(names, combo))})
            done = resolve(s)
            resolved.append(done)
            inputs.append(done.inputs)
            notes.append("")
            ok.append(s)
        except ScenarioError as exc:
            inputs.append(None)
            resolved.append(None)
            notes.append(exc.message)
        except ValueError as exc:
            inputs.append(None)
            resolved.append(None)
            notes.append(str(exc))
    good = [x for x in inputs if x is not None]
    out_cols = ["total_usd", "final_run_usd", *(f"{d}_usd" for d in COST_DIMENSIONS), "days", "gpus", "gpu_hours",
                "energy_mwh", "co2_tonnes", "usd_per_1m_tokens"]
    table = pd.DataFrame({n: [c[i] for c in combos] for i, n in enumerate(names)})
    for col in out_cols:
        table[col] = np.nan
    if good:
        arrays = {k: np.array([x[k] for x in good]) for k in good[0]}
        v = compute(**arrays)  # the one call over every possible combination
        rows = np.array([x is not None for x in inputs])
        computed = {"total_usd": v["total_usd"], "final_run_usd": v["final_run_usd"],
                    **{f"{d}_usd": v[f"cost_{d}_usd"] for d in COST_DIMENSIONS}, "days": v["wall_days"],
                    "gpus": v["gpus"], "gpu_hours": v["gpu_hours"], "energy_mwh": v["energy_mwh"],
                    "co2_tonnes": v["co2_tonnes"], "usd_per_1m_tokens": v["usd_per_1m_tokens"]}
        for col, arr in computed.items():
            table.loc[rows, col] = np.asarray(arr, dtype=float)
        impossible = np.zeros(len(combos), dtype=bool)
        impossible[rows] = np.asarray(v["deadline_impossible"], dtype=bool)
        for row in np.flatnonzero(impossible):
            notes[row] = Message("whatif_deadline_unmet")
            table.loc[row, out_cols] = np.nan
    table["capex_usd"] = np.nan
    table["breakeven_months"] = np.nan
    if good:  # owned rows: the estimate's own owned summary, on this row of the one vectorized call
        row_of = np.cumsum(rows) - 1
        for i, possible in enumerate(_possible(inputs, ok)):
            owned_inputs = resolved[i]
            if possible is None or owned_inputs is None or possible.pricing != "owned" or notes[i]:
                continue
            v_i = {k: float(np.asarray(a).item() if np.ndim(a) == 0 else np.asarray(a)[row_of[i]])
                   for k, a in v.items() if np.asarray(a).dtype.kind in "biuf"}
            o = owned_summary(possible, owned_inputs, v_i, int(v_i["gpus"]))
            table.loc[i, "capex_usd"] = o["capex_usd"]
            table.loc[i, "breakeven_months"] = o["breakeven_months"]["on_demand"]
    table["vs_start"] = table["total_usd"] / estimate(scenario).total_usd
    table["note"] = notes
    table.attrs["warnings"] = (basis_warnings(ok) + price_warnings([scenario, *ok])) if ok else []
    return table
