"""How :class:`~nbayes.naive_bayes.mixed.NaiveBayes` models its numeric columns: a Gaussian or
bins (``numeric=``, ``column_types``, ``bin_edges``), decided once, at the first fit.

``numeric="auto"`` flags the numeric columns a Gaussian fits badly (:func:`diagnose`: few
distinct values, mostly one value, heavy skew) and bins a flagged column when that beats the
Gaussian in held-out accuracy: 5 stratified folds of the first fit's rows, every other column as
typed, columns switched one at a time (the best first) while the switch wins by more than
:data:`Z` standard errors of a paired comparison (McNemar's). A better density is not always a
better classifier: on adult, bins fit the mostly-zero capital-gain far better than a Gaussian,
yet the Gaussian classifies better; the held-out check keeps such a column Gaussian.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._tables import Table
from .._validation import check_sample_weight, check_y, classes_and_codes, show
from ..errors import InvalidParameterError, NBayesError
from .binned import quantile_edges

#: at most this many distinct values: "few", a Gaussian's bell over a handful of spikes
FEW_VALUES = 20
#: the most frequent value holds at least this share of the observed values: "mostly one value"
ONE_VALUE = 0.3
#: |sample skewness| at least this: "heavily skewed" (the usual rule of thumb's "highly skewed")
SKEW = 1.0
#: fewer observed values (or rows to choose on) than this: no judgement, the column stays Gaussian
MIN_ROWS = 100
#: folds of the held-out comparison, and the standard errors a switch must win by
FOLDS = 5
Z = 2.0
#: the comparison reads at most this many rows (a fixed sample of the first fit's rows)
MAX_ROWS = 50_000


@dataclass
class Choice:
    """The columns' kinds after the numeric choice, the bin edges of the binned columns
    (column index -> edges), and one decision per flagged column."""

    kinds: list[str]
    edges: dict[int, np.ndarray] = field(default_factory=dict)
    decisions: list[dict[str, Any]] = field(default_factory=list)


def diagnose(x: np.ndarray) -> str | None:
    """Why a Gaussian fits the numeric column ``x`` badly (a phrase), or None.

    >>> diagnose(np.r_[np.zeros(900), np.arange(1, 101) * 1000.0])
    'mostly one value (0 in 90% of rows)'
    """
    v = x[~np.isnan(x)]
    if len(v) < MIN_ROWS:
        return None
    values, counts = np.unique(v, return_counts=True)
    if len(values) < 2:
        return None
    if len(values) <= FEW_VALUES:
        return f"{len(values)} distinct values"
    top = int(np.argmax(counts))
    if counts[top] >= ONE_VALUE * len(v):
        return f"mostly one value ({values[top]:g} in {counts[top] / len(v):.0%} of rows)"
    d = v - v.mean()
    m2 = float(np.mean(d * d))
    skew = float(np.mean(d**3)) / m2**1.5 if m2 > 0 else 0.0
    if abs(skew) >= SKEW:
        return f"skewed (skewness {skew:.1f})"
    return None


def decide_numeric(model: Any, T: Table, names: list[str] | None, kinds: list[str], named: set[int],
                   labels: tuple[Any, Any] | None, column: Callable[[int], np.ndarray]) -> Choice:
    """The kinds of ``model``'s columns once its ``numeric`` setting has decided the numeric
    columns no ``column_types`` entry names (``named``), with the edges of every binned column
    (``bin_edges``, else quantile edges of ``column(j)``, the column as floats)."""
    kinds = list(kinds)
    decisions: list[dict[str, Any]] = []
    given = _given_edges(model.bin_edges, names, T.shape[1])
    free = [j for j, k in enumerate(kinds) if k == "gaussian" and j not in named]
    if model.numeric == "binned":
        for j in free:
            kinds[j] = "binned"

    def edges_of(j: int) -> np.ndarray:
        return given[j] if j in given else quantile_edges(column(j), model.bins)

    edges = {j: edges_of(j) for j, k in enumerate(kinds) if k == "binned"}
    if model.numeric == "auto" and free:
        flagged = {j: r for j in free if (r := diagnose(column(j))) is not None}
        edges.update({j: edges_of(j) for j in flagged})
        chosen, accuracy = _choose(model, T, names, kinds, flagged, edges, labels)
        for j, reason in flagged.items():
            kinds[j] = "binned" if j in chosen else "gaussian"
            decisions.append(_decision(j, names, kinds[j], reason, accuracy.get(j), len(edges[j]) + 1))
    return Choice(kinds, {j: e for j, e in edges.items() if kinds[j] == "binned"}, decisions)


def _decision(j: int, names: list[str] | None, kind: str, reason: str, acc: tuple[float, float] | None,
              n_bins: int) -> dict[str, Any]:
    name = names[j] if names is not None else j
    if acc is None:
        why = f"{reason}; too few labelled rows to compare in held-out accuracy, kept Gaussian"
    elif kind == "binned":
        why = f"{reason}; {n_bins} bins beat the Gaussian in 5-fold accuracy ({acc[1]:.2%} vs {acc[0]:.2%})"
    else:
        why = f"{reason}; kept Gaussian: bins were not clearly better in 5-fold accuracy ({acc[1]:.2%} vs {acc[0]:.2%})"
    out: dict[str, Any] = {"column": name, "kind": kind, "reason": why}
    if kind == "binned":
        out["bins"] = n_bins
    return out


def _given_edges(bin_edges: dict[Any, Any] | None, names: list[str] | None, d: int) -> dict[int, np.ndarray]:
    """``bin_edges`` by column index, each checked: finite and increasing."""
    out: dict[int, np.ndarray] = {}
    for col, e in (bin_edges or {}).items():
        if names is not None and col in names:
            j = names.index(col)
        elif isinstance(col, int | np.integer) and not isinstance(col, bool) and 0 <= col < d:
            j = int(col)
        else:
            raise InvalidParameterError(f"parameter 'bin_edges' names column {col!r}, which is not in X")
        try:
            arr = np.asarray(e, dtype=np.float64)
        except (TypeError, ValueError):
            arr = np.zeros((0, 0))
        if arr.ndim != 1 or not np.isfinite(arr).all() or np.any(np.diff(arr) <= 0):
            raise InvalidParameterError(
                f"parameter 'bin_edges': column {col!r} has edges {show(e)}; expected increasing finite numbers"
            )
        out[j] = arr
    return out


def _choose(model: Any, T: Table, names: list[str] | None, kinds: list[str], flagged: dict[int, str],
            edges: dict[int, np.ndarray], labels: tuple[Any, Any] | None
            ) -> tuple[set[int], dict[int, tuple[float, float]]]:
    """The flagged columns to bin, and per flagged column the held-out accuracy of the final
    choice with the column Gaussian and with it binned."""
    n = T.shape[0]
    if not flagged or labels is None or n < MIN_ROWS:
        return set(), {}
    try:
        y = check_y(labels[0], n)
        w = check_sample_weight(labels[1], n)
    except NBayesError:  # the fit's own checks say what is wrong
        return set(), {}
    classes, codes = classes_and_codes(y)
    if len(classes) < 2:
        return set(), {}
    if n > MAX_ROWS:
        rows = np.sort(np.random.default_rng(0).choice(n, MAX_ROWS, replace=False))
        T, codes, w = _rows(T, rows), codes[rows], None if w is None else w[rows]
    fold = _folds(codes, FOLDS)
    cols = sorted(flagged)
    rest = [j for j in range(T.shape[1]) if j not in flagged]
    gauss, icpt = _held_out(model, T, names, cols, ["gaussian"] * len(cols), edges, codes, classes, w, fold)
    binned, _ = _held_out(model, T, names, cols, ["binned"] * len(cols), edges, codes, classes, w, fold)
    others = 0.0
    if rest:  # the other columns' terms, alike in both
        others = _held_out(model, T, names, rest, [kinds[j] for j in rest], edges, codes, classes, w, fold)[0].sum(axis=2)
    delta = {j: _finite(binned[:, :, i] - gauss[:, :, i]) for i, j in enumerate(cols)}
    cur = _finite(icpt + others + gauss.sum(axis=2))
    right = cur.argmax(axis=1) == codes
    chosen: set[int] = set()
    while True:
        best: tuple[int, int, np.ndarray] | None = None
        for j in flagged:
            if j in chosen:
                continue
            new = (cur + delta[j]).argmax(axis=1) == codes
            b, c = int(np.sum(new & ~right)), int(np.sum(right & ~new))
            if b - c > Z * np.sqrt(b + c) and (best is None or b - c > best[0]):
                best = (b - c, j, new)
        if best is None:
            break
        _, j, right = best
        cur = cur + delta[j]
        chosen.add(j)
    acc = {}
    for j in flagged:
        other = float(np.mean(((cur - delta[j]) if j in chosen else (cur + delta[j])).argmax(axis=1) == codes))
        now = float(np.mean(right))
        acc[j] = (other, now) if j in chosen else (now, other)
    return chosen, acc


def _held_out(model: Any, T: Table, names: list[str] | None, cols: list[int], kinds: list[str],
              edges: dict[int, np.ndarray], codes: np.ndarray, classes: np.ndarray, w: np.ndarray | None,
              fold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's terms of the columns ``cols`` (typed ``kinds``), shape (n, K, len(cols)),
    and its log prior (n, K), under the model fitted on the other folds (each fold model counts
    every row, the held-out ones with weight 0, and scores the held-out ones)."""
    sub = Table(None, [T.column(j) for j in cols], (T.shape[0], len(cols)))
    sub_names = None if names is None else [names[j] for j in cols]
    sub_edges = {i: edges[j] for i, j in enumerate(cols) if kinds[i] == "binned"}
    Xv = model._parts_of(sub, sub_names, kinds, sub_edges)
    n, K = T.shape[0], len(classes)
    terms = np.empty((n, K, len(cols)))
    icpt = np.empty((n, K))
    base = np.ones(n) if w is None else w
    for k in range(int(fold.max()) + 1):
        held = np.flatnonzero(fold == k)
        m = type(model)(**{**model.get_params(), "numeric": "gaussian", "bin_edges": None, "column_types": None})
        m._pending_kinds = list(kinds)
        weights = base.copy()
        weights[held] = 0.0
        m.set_statistics(m.count_statistics(Xv, codes, K, weights), classes, len(cols), sub_names)
        terms[held] = m.feature_terms(model._parts_of(_rows(sub, held), sub_names, kinds, sub_edges))
        icpt[held] = m._intercept
    return terms, icpt


def _folds(codes: np.ndarray, k: int) -> np.ndarray:
    """Stratified folds: the rows of each class, in a fixed random order, dealt out in turn."""
    n = len(codes)
    order = np.random.default_rng(0).permutation(n)
    order = order[np.argsort(codes[order], kind="stable")]
    start = np.searchsorted(codes[order], codes[order], side="left")
    fold = np.empty(n, dtype=np.intp)
    fold[order] = (np.arange(n) - start) % k
    return fold


def _rows(T: Table, rows: np.ndarray) -> Table:
    return Table(None if T.matrix is None else T.matrix[rows],
                 None if T.columns is None else [c[rows] for c in T.columns], (len(rows), T.shape[1]))


def _finite(a: np.ndarray) -> np.ndarray:
    """-inf - -inf (a zero probability under both models, alpha = 0) counts as no change."""
    return np.where(np.isnan(a), 0.0, a)
