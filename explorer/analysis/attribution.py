"""A cost change split among levers: exact Shapley values over all ``2**k`` mixed scenarios in one call."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
import pandas as pd

from explorer.analysis.comparison import price_warnings
from explorer.analysis.levers import LEVERS, OTHER, lever_atoms, compose_inputs
from explorer.errors import ScenarioError
from explorer.messages import Message
from explorer.model.vectorized import compute
from explorer.scenario import Scenario

__all__ = ["Attribution", "attribute", "joint_key"]

def _same(x: float, y: float) -> bool:
    return x == y or (isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y))


@dataclass(frozen=True)
class Attribution:
    """A cost change split among levers (:func:`attribute`).

    Attributes
    ----------
    parts_usd : dict of str -> float
        Shapley value of each lever [USD] (negative = a saving), in
        :data:`LEVERS` order; exactly 0.0 for a lever that does not differ.
        With ``levers=`` given, the levers left out share one ``"other"`` part.
    baseline_usd, target_usd, change_usd : float
        Total cost of the whole project before and after, and their
        difference [USD]; the parts add up to ``change_usd``.
    warnings : tuple of explorer.messages.Message
        :func:`explorer.analysis.comparison.price_warnings` when the accelerator
        differs: a part of the ``accelerator`` lever resting on a derived,
        estimated or one-provider price says so.
    inseparable : tuple of dict
        Levers whose parts cannot be separated because a scenario mixing them
        has no finite cost (e.g. a 1-day deadline with the baseline's 405B
        parameters cannot be met): each dict has ``levers``, ``key`` (their
        joint key in ``parts_usd``, :func:`joint_key`), ``from_target`` and
        ``from_baseline`` (an infeasible mix) and ``reason`` (``deadline`` or
        ``undefined``). :meth:`note` says it in words.
    """

    parts_usd: dict[str, float]
    baseline_usd: float
    target_usd: float
    change_usd: float
    inseparable: tuple[dict[str, Any], ...] = ()
    warnings: tuple[Message, ...] = ()

    def note(self, language: str = "en") -> str:
        """In words, which levers could not be separated and why ("" when every lever has its own part).

        One sentence per joint part (``labels.csv`` ``attribution_inseparable``), e.g. "Model size, Training
        tokens and GPU count / deadline cannot be separated: with the target's Model size and the baseline's
        ... the run cannot meet its deadline. Their joint part is one bar (model_size+tokens+cluster)."
        """
        from explorer.text import label

        def names(levers: Iterable[str]) -> str:
            return label("list_and", language).join(label(f"lever_{lv}", language) for lv in levers)

        out = []
        for group in self.inseparable:
            out.append(label("attribution_inseparable", language).format(
                levers=names(group["levers"]), on=names(group["from_target"]), off=names(group["from_baseline"]),
                reason=label(f"attribution_reason_{group['reason']}", language), key=joint_key(group["levers"])))
        return " ".join(out)

    def to_frame(self) -> pd.DataFrame:
        """Parts as a table: index lever; ``usd`` [USD] and ``share`` of the change [1]."""
        df = pd.DataFrame({"usd": pd.Series(self.parts_usd, dtype=float)})
        df.index.name = "lever"
        df["share"] = df["usd"] / self.change_usd if self.change_usd else 0.0
        return df

    @property
    def differing(self) -> tuple[str, ...]:
        """Levers with a nonzero part."""
        return tuple(k for k, v in self.parts_usd.items() if v != 0.0)

    def _rows(self) -> list[tuple[str, str]]:
        """(name, value): the two totals, the change, then each lever's part, largest first (zero parts left out)."""
        from explorer.text import money

        def signed(x: float) -> str:
            return ("+" if x > 0 else "-" if x < 0 else "") + money(abs(x))

        parts = sorted(((k, v) for k, v in self.parts_usd.items() if v != 0.0), key=lambda kv: -abs(kv[1]))
        return ([("baseline", money(self.baseline_usd)), ("target", money(self.target_usd)),
                 ("change", signed(self.change_usd))] + [(f"  {k}", signed(v)) for k, v in parts])

    def __repr__(self) -> str:
        """One line: the change and its three largest parts (the dataclass's repr printed every lever)."""
        rows = self._rows()
        largest = ", ".join(f"{k.strip()} {v}" for k, v in rows[3:6])
        more = f", {len(rows) - 6} more" if len(rows) > 6 else ""
        return f"Attribution({rows[0][1]} -> {rows[1][1]}, {rows[2][1]}: {largest or 'no lever differs'}{more})"

    def _repr_html_(self) -> str:
        from explorer.text import rows_html

        return rows_html("Attribution", self._rows(), [*self.warnings, *([self.note()] if self.inseparable else [])])


def joint_key(levers: Iterable[str]) -> str:
    """Key of the part of levers that cannot be separated: ``"model_size+tokens+cluster"``."""
    return "+".join(levers)


def _consistent(groups: list[list[int]], k: int) -> np.ndarray:
    """Coalitions (bitmasks over ``k`` players) in which each group is wholly on or wholly off."""
    masks = np.arange(1 << k)
    ok = np.ones(1 << k, bool)
    for g in groups:
        bits = [(masks >> i) & 1 for i in g]
        for b in bits[1:]:
            ok &= b == bits[0]
    return ok


def _merge_infeasible(values: np.ndarray, k: int) -> list[list[int]]:
    """Group players until every coalition the Shapley value needs has a finite value.

    A mixed scenario can be infeasible although both ends are valid (405B
    parameters on 15.6T tokens with a 1-day deadline: no cluster is large
    enough), so its total is NaN and so would be the Shapley parts. Greedily,
    the two groups whose merging removes the most non-finite coalitions are
    merged (ties: the first in lever order) until none is left; with every
    player in one group only the two ends remain, which are finite.
    """
    groups = [[i] for i in range(k)]
    masks = np.arange(1 << k)
    finite = np.isfinite(values)
    while True:
        bad = _consistent(groups, k) & ~finite
        if not bad.any():
            return groups
        best, pair = -1, None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                split = ((masks >> groups[a][0]) & 1) != ((masks >> groups[b][0]) & 1)
                n = int(np.count_nonzero(bad & split))
                if n > best:
                    best, pair = n, (a, b)
        assert pair is not None  # best starts below any count: with two groups or more (while a coalition is bad) one is taken
        a, b = pair
        groups[a] = sorted(groups[a] + groups[b])
        del groups[b]


def _shapley(values: np.ndarray, k: int) -> np.ndarray:
    """Exact Shapley values of ``k`` players from the values of all ``2**k`` coalitions (bitmask order)."""
    masks = np.arange(1 << k)
    size = np.zeros(1 << k, dtype=int)
    for i in range(k):
        size += (masks >> i) & 1
    fact = np.array([math.factorial(j) for j in range(k + 1)], dtype=float)
    out = np.zeros(k)
    for i in range(k):
        without = masks[((masks >> i) & 1) == 0]
        s = size[without]
        weights = fact[s] * fact[k - s - 1] / fact[k]
        out[i] = float(np.sum(weights * (values[without | (1 << i)] - values[without])))
    return out


def attribute(baseline: Scenario, target: Scenario, levers: Iterable[str] | None = None) -> Attribution:
    """Split the change in total cost from ``baseline`` to ``target`` among the levers that differ.

    Exact Shapley values: each lever's part is its marginal effect averaged
    over every order in which the changes could be made, so the parts add up
    to the change whatever the order, levers that change nothing get exactly
    zero, and levers with the same effect get the same part. All ``2**k``
    mixed scenarios of the ``k`` differing levers are evaluated in one call of
    :func:`~explorer.model.compute`.

    Each endpoint is resolved once (catalogs, defaults); a lever then swaps
    its whole group of resolved quantities. Quantities that several levers
    set are split into parts (see ``lever_atoms``): e.g. the peak FLOP/s is the
    accelerator's 16-bit peak times the precision's ratio to it, the rate is
    the accelerator's on-demand price times the pricing mode's factor.

    Parameters
    ----------
    baseline, target : Scenario
        Before and after.
    levers : iterable of str, optional
        Levers to split out (default :data:`LEVERS`); the differing levers not
        named are moved together as one ``"other"`` part.

    Returns
    -------
    Attribution
        Parts [USD], totals and change [USD].

    Raises
    ------
    ScenarioError
        For an unknown lever name or a non-scenario argument.
    """
    for name, s in (("baseline", baseline), ("target", target)):
        if not isinstance(s, Scenario):
            raise ScenarioError(name, type(s).__name__, Message("allowed_a_scenario"))
    chosen = LEVERS if levers is None else tuple(levers)
    for lever in chosen:
        if lever not in LEVERS:
            raise ScenarioError("levers", lever, Message("allowed_choices", choices=list(LEVERS), field="lever"))
    base, tgt = lever_atoms(baseline), lever_atoms(target)
    differs = [lv for lv in LEVERS if any(not _same(base[lv][q], tgt[lv][q]) for q in base[lv])]
    players = [[lv] for lv in chosen if lv in differs]
    rest = [lv for lv in differs if lv not in chosen]
    names = [p[0] for p in players]
    if rest:
        players.append(rest)
        names.append(OTHER)
    k = len(players)
    masks = np.arange(1 << k)
    mixed = {}
    for lv in LEVERS:
        owner = next((i for i, group in enumerate(players) if lv in group), None)
        on = ((masks >> owner) & 1).astype(bool) if owner is not None else np.zeros(1 << k, bool)
        mixed[lv] = {q: np.where(on, tgt[lv][q], base[lv][q]) for q in base[lv]}
    out = compute(**compose_inputs(mixed))
    totals = np.asarray(out["total_usd"], dtype=float)
    b, t = float(totals[0]), float(totals[-1])
    for name, value, s in (("baseline", b, baseline), ("target", t, target)):
        if not math.isfinite(value):
            why = Message("value_deadline_unmet") if bool(np.asarray(out["deadline_impossible"]).ravel()[
                0 if name == "baseline" else -1]) else Message("value_cost_undefined")
            raise ScenarioError(name, why, Message("allowed_finite_total"))
    groups = _merge_infeasible(totals, k) if k else []
    impossible = np.broadcast_to(np.asarray(out["deadline_impossible"], bool), totals.shape)
    inseparable: list[dict[str, Any]] = []
    keys = []
    for g in groups:
        levers = [lv for i in g for lv in ([names[i]] if names[i] != OTHER else [OTHER])]
        keys.append(names[g[0]] if len(g) == 1 else joint_key(levers))
        if len(g) > 1:
            # an example of a mixed scenario of this group that has no finite cost
            # (one that mixes the group's levers, with the fewest levers switched to the target)
            masks = np.arange(1 << k)
            on = sum((((masks >> i) & 1) for i in g), np.zeros_like(masks))
            mixed_group = (on > 0) & (on < len(g))
            bad = np.flatnonzero(mixed_group & ~np.isfinite(totals))
            m = int(bad[np.argmin([bin(int(x)).count("1") for x in bad])]) if bad.size else 0
            inseparable.append(dict(
                levers=tuple(levers), key=keys[-1],
                from_target=tuple(names[i] for i in g if (m >> i) & 1),
                from_baseline=tuple(names[i] for i in g if not (m >> i) & 1),
                reason="deadline" if bad.size and bool(impossible[m]) else "undefined"))
    parts = {lv: 0.0 for lv in chosen if not any(lv in grp["levers"] for grp in inseparable)}
    if rest and not any(OTHER in grp["levers"] for grp in inseparable):
        parts[OTHER] = 0.0
    if groups:
        bits = np.array([sum(1 << i for i in g) for g in groups])
        gm = np.arange(1 << len(groups))
        player_masks = np.zeros(1 << len(groups), dtype=int)
        for j, bit in enumerate(bits):
            player_masks |= np.where((gm >> j) & 1, bit, 0)
        for key, value in zip(keys, _shapley(totals[player_masks], len(groups))):
            parts[key] = float(value)
    ordered = {}
    for lv in (*LEVERS, OTHER):
        if lv in parts:
            ordered[lv] = parts[lv]
        for grp in inseparable:
            if grp["levers"][0] == lv:
                ordered[grp["key"]] = parts[grp["key"]]
    return Attribution(parts_usd=ordered, baseline_usd=b, target_usd=t, change_usd=t - b,
                       inseparable=tuple(inseparable), warnings=tuple(price_warnings([baseline, target])))
