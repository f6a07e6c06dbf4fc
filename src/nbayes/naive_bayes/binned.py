"""Binned numeric columns: a numeric column cut into bins at fixed edges, each bin a category.

For numeric columns a Gaussian fits badly (mostly one value, heavy skew, few distinct values)
:class:`~nbayes.naive_bayes.mixed.NaiveBayes` models the column as the categorical
distribution of its bin (``column_types={col: "binned"}``, or chosen by ``numeric="auto"``):
theta_cjb = (n_cjb + alpha) / (n_cj + alpha B_j), eq. 7 of chapter 002 with J_j = B_j bins.
The edges are part of the statistics (:class:`nbayes.stats.BinnedStats`): fixed at the first
fit (quantile edges of that data, :func:`quantile_edges`) or given, and every later batch is
binned with them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from dataclasses import fields as dataclass_fields
from typing import Any

import numpy as np

from ..stats import BinnedStats, CategoricalStats
from ..stats.bins import bin_codes, interval
from ._categorical_params import CategoricalParams, CategoricalSettings, estimate
from .categorical import CategoricalNB
from .params import fitted

#: the default number of quantile bins of a binned column (as the usual 20-bin discretisers)
BINS = 20


@dataclass
class Binned:
    """Prepared binned columns: the values as floats (NaN missing) and each column's edges."""

    M: np.ndarray
    edges: list[np.ndarray]

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the binned codes."""
        n, d = self.M.shape
        return int(n), int(d)


def quantile_edges(x: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Edges that cut the observed values of ``x`` into about ``bins`` bins of equal weight.

    A column of ``bins`` distinct values or fewer gets one bin per value (edges at the values
    above the smallest). Otherwise a value that holds 1/``bins`` of the rows or more (the zeros
    of a mostly-zero column) gets a bin of its own, and the other values are cut at their
    quantiles (values of the data, so every bin holds some). Bins are [edge, next edge); values
    below the smallest observed value fall in the first bin, values above the largest in the
    last.

    >>> quantile_edges(np.array([0.0, 0, 0, 0, 0, 0, 3, 5, 9, 12]), bins=4).tolist()
    [1.5, 5.0, 9.0]
    """
    v = np.asarray(x, dtype=np.float64)
    v = v[~np.isnan(v)]
    if not len(v):
        return np.zeros(0)
    values, counts = np.unique(v, return_counts=True)
    if len(values) <= bins:
        return values[1:].copy()
    spike = counts * bins >= len(v)
    rest = v[~np.isin(v, values[spike])]
    cuts = np.quantile(rest, np.linspace(0, 1, bins + 1)[1:-1], method="inverted_cdf") if len(rest) else np.zeros(0)
    # a spike's bin runs from halfway to the value below it to halfway to the value above it
    mid = (values[:-1] + values[1:]) / 2
    around = np.concatenate([mid[spike[1:]], mid[spike[:-1]]])
    edges = np.unique(np.concatenate([around, cuts]))
    # no empty bin: an edge with no observed value between it and the edge below goes
    held = np.bincount(np.searchsorted(edges, values, side="right"), minlength=len(edges) + 1)
    return edges[held[:-1] > 0]


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class BinnedParams(CategoricalParams):
    """:class:`BinnedNB`'s parameters: the categorical ones over bin numbers, and ``edges``
    (list of n_features ndarrays) the bin edges of each column."""

    edges: list[np.ndarray]


def estimate_binned(stats: Any, s: CategoricalSettings) -> BinnedParams:
    """Categorical estimation over bin numbers 0 .. B_j - 1 (every bin a declared value)."""
    bins = [np.arange(B, dtype=np.int64) for B in stats.n_bins()]
    p = estimate(CategoricalStats(stats.class_count, bins, stats.counts), replace(s, declared=list(bins)))
    fields = {f.name: getattr(p, f.name) for f in dataclass_fields(p)}
    return BinnedParams(edges=[np.array(e) for e in stats.edges], **fields)


class BinnedNB(CategoricalNB):
    """The component of :class:`NaiveBayes` for its binned columns: a categorical model over
    bin indices, every bin of a column declared (J_j = number of bins, so an empty bin gets the
    smoothed zero count), the bins read through the edges of its statistics."""

    # the input is Binned and the statistics BinnedStats (Any: the categorical hooks take a Table)
    def count_statistics(self, Xv: Any, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> Any:
        return BinnedStats.of(Xv.M, Xv.edges, codes, n_classes, w)

    def count_expected(self, Xv: Any, R: np.ndarray) -> Any:
        """Expected counts: per column, R^T @ (one-hot of its bins)."""
        counts = []
        for j, e in enumerate(Xv.edges):
            b = bin_codes(Xv.M[:, j], e)
            onehot = np.zeros((len(b), len(e) + 2))
            onehot[np.arange(len(b)), b] = 1.0  # missing (-1) lands in the last column, dropped
            counts.append(np.ascontiguousarray((onehot[:, : len(e) + 1].T @ R).T))
        return BinnedStats(R.sum(axis=0), [np.asarray(e, dtype=np.float64) for e in Xv.edges], counts)

    edges_ = fitted("edges", "list of n_features ndarrays: the bin edges of each column.")

    def estimate_parameters(self, stats: Any, n_features: int) -> BinnedParams:
        return estimate_binned(stats, self.estimation_settings(n_features))

    def _codes(self, Xv: Any) -> list[np.ndarray]:
        out = []
        for j, e in enumerate(self.edges_):
            c = bin_codes(Xv.M[:, j], e)
            c[c < 0] = len(e) + 2  # missing: the zero column of the table (after the unseen one)
            out.append(c)
        return out

    def feature_bins(self, Xv: Any) -> list[list[str | None]] | None:
        codes = [bin_codes(Xv.M[:, j], e) for j, e in enumerate(self.edges_)]
        return [[interval(e, int(c[i])) if c[i] >= 0 else None for e, c in zip(self.edges_, codes)]
                for i in range(Xv.M.shape[0])]

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        scores, _ = super().feature_scores()
        feat = self.display_feature_names()
        names = [f"{feat[j]} in {interval(e, b)}" for j, e in enumerate(self.edges_) for b in range(len(e) + 1)]
        return scores, names


__all__ = ["BINS", "Binned", "BinnedNB", "interval", "quantile_edges"]
