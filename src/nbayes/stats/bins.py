"""Per-class counts of binned numeric columns: the bin edges are part of the statistics.

A binned column is a numeric column cut at fixed edges into bins, each bin a category. The
edges are fixed at the first fit (or given) and travel with the counts, so two sets of counts
add only when they were binned alike: ``merge``, ``partial_fit``, ``unlearn`` and fold models
stay exact, and counts binned at other edges are refused (a :class:`~nbayes.errors.MergeError`
naming the column) instead of being added bin by bin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import MergeError, StatisticsError, UnlearnError
from .checks import check_array, check_at_most, check_class_count
from .counts import CategoricalStats
from .exact import read_tail, tail_arrays


def bin_codes(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each value: bin k holds edges[k-1] <= x < edges[k] (bin 0 everything below
    edges[0], the last bin everything from edges[-1] up); -1 for a missing value (NaN)."""
    codes = np.searchsorted(edges, x, side="right").astype(np.intp)
    codes[np.isnan(x)] = -1
    return codes


@dataclass
class BinnedStats:
    """Weighted bin counts per class of numeric columns cut at fixed edges.

    ``edges[j]``: the sorted, finite edges of column j (``len(edges[j]) + 1`` bins).
    ``counts[j][c, b]``: weight of class-c rows whose column j falls in bin b. Missing values
    are not counted, so column j's denominator is ``counts[j][c].sum()``.
    """

    class_count: np.ndarray
    edges: list[np.ndarray] = field(default_factory=list)
    counts: list[np.ndarray] = field(default_factory=list)
    #: tails of the exact values ("class_count", "counts/<j>"), as CategoricalStats.exact
    exact: dict[str, list[np.ndarray]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, M: np.ndarray, edges: list[np.ndarray], codes: np.ndarray, n_classes: int,
           w: np.ndarray | None) -> "BinnedStats":
        """The counts of a batch: ``M`` (n, d) floats (NaN missing), cut at ``edges``;
        ``codes[i]`` is row i's class index."""
        K = n_classes
        cc = np.bincount(codes, weights=w, minlength=K).astype(np.float64)
        counts = []
        for j, e in enumerate(edges):
            b = bin_codes(M[:, j], e)
            ok = b >= 0
            B = len(e) + 1
            flat = codes[ok] * B + b[ok]
            counts.append(np.bincount(flat, weights=None if w is None else w[ok], minlength=K * B)
                          .reshape(K, B).astype(np.float64))
        return cls(cc, [np.asarray(e, dtype=np.float64) for e in edges], counts)

    def n_bins(self) -> list[int]:
        """The number of bins of each column: one more than its edges."""
        return [len(e) + 1 for e in self.edges]

    def check_same_edges(self, other: "BinnedStats") -> None:
        """MergeError unless ``other`` was binned at the same edges, column by column."""
        if len(self.edges) != len(other.edges):
            raise MergeError(f"cannot add bin counts of {len(self.edges)} and {len(other.edges)} binned columns")
        for j, (a, b) in enumerate(zip(self.edges, other.edges)):
            if a.shape != b.shape or not np.array_equal(a, b):
                raise MergeError(
                    f"cannot add bin counts: binned column {j} was cut at other edges "
                    f"({_show_edges(a)} vs {_show_edges(b)}); bins are fixed at the first fit, so "
                    "models to merge must share them (give bin_edges= to fix them in advance)"
                )

    def embed(self, pos: np.ndarray, n_classes: int) -> "BinnedStats":
        """These counts inside a class set of ``n_classes``; class k goes to row ``pos[k]``."""
        return self._binned(self._categorical().embed(pos, n_classes))

    def _categorical(self) -> CategoricalStats:
        """The same counts as categorical statistics whose values are the bin numbers: the
        arithmetic (exact sums, refusals) is theirs, written once."""
        return CategoricalStats(self.class_count, [np.arange(len(e) + 1) for e in self.edges], self.counts,
                                self.exact, fixed=True)  # every bin is declared: an empty bin stays

    def _binned(self, c: CategoricalStats) -> "BinnedStats":
        return BinnedStats(c.class_count, [e.copy() for e in self.edges], c.counts, c.exact)

    def __add__(self, other: "BinnedStats") -> "BinnedStats":
        self.check_same_edges(other)
        return self._binned(self._categorical() + other._categorical())

    def subtract(self, other: "BinnedStats", classes: np.ndarray) -> "BinnedStats":
        """The counts of ``self``'s rows without ``other``'s, exactly (:class:`~nbayes.errors.UnlearnError`
        when ``other`` removes more than ``self`` holds)."""
        self.check_same_edges(other)
        try:
            return self._binned(self._categorical().subtract(other._categorical(), classes))
        except UnlearnError as exc:  # the refusal names the bin, not its number (issue #29)
            raise UnlearnError(_VALUE.sub(lambda m: f"column {m[1]}, bin {interval(self.edges[int(m[1])], int(m[2]))}",
                                          str(exc))) from None

    def merge(self, other: "BinnedStats") -> "BinnedStats":
        """The statistics of both sets of rows (same class layout, same edges): ``self + other``."""
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Raise StatisticsError unless data could have produced these counts: edges sorted,
        distinct and finite; one table per column with one entry per bin, finite and
        non-negative; no class with more counted values than its weight."""
        cc = check_class_count(self.class_count, n_classes)
        if len(self.edges) != len(self.counts) or (n_features is not None and len(self.counts) != n_features):
            raise StatisticsError(
                f"statistics: {len(self.edges)} edge lists and {len(self.counts)} bin tables for "
                f"{n_features if n_features is not None else len(self.counts)} binned columns"
            )
        for j, (e, cnt) in enumerate(zip(self.edges, self.counts)):
            e = check_array(f"edges/{j}", e, nonnegative=False)
            if e.ndim != 1 or np.any(np.diff(e) <= 0):
                raise StatisticsError(f"statistics 'edges/{j}': expected increasing edges, got {e.tolist()!r}")
            c = check_array(f"bins/{j}", cnt, (len(cc), len(e) + 1))
            check_at_most(f"bins/{j} summed over bins", c.sum(axis=1), "its class's weight", cc)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file: the class weights, and per column its edges
        (``stats/edges/<j>``) and bin counts (``stats/bins/<j>``)."""
        out = {"stats/class_count": self.class_count}
        for j, (e, cnt) in enumerate(zip(self.edges, self.counts)):
            out[f"stats/edges/{j}"] = e
            out[f"stats/bins/{j}"] = cnt
        return out | tail_arrays(self.exact)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> "BinnedStats":
        """The counts of ``n_features`` binned columns read back from ``to_arrays``'s arrays."""
        out = cls(
            arrays["stats/class_count"],
            [np.asarray(arrays[f"stats/edges/{j}"], dtype=np.float64) for j in range(n_features)],
            [arrays[f"stats/bins/{j}"] for j in range(n_features)],
        )
        for name, value in [("class_count", out.class_count)] + [(f"counts/{j}", c) for j, c in enumerate(out.counts)]:
            tail = read_tail(arrays, name, np.shape(value))
            if tail:
                out.exact[name] = tail
        return out


def _show_edges(e: np.ndarray) -> str:
    vals = ", ".join(f"{v:g}" for v in e[:4].tolist())
    return f"[{vals}{', ...' if len(e) > 4 else ''}] ({len(e) + 1} bins)"


#: the entry a refusal of the categorical arithmetic names: column j, value (a bin number here)
_VALUE = re.compile(r"column (\d+), value (\d+)")


def interval(edges: np.ndarray, b: int) -> str:
    """Bin ``b`` of ``edges`` as text: ``[3, 5)``, ``< 3``, ``>= 12``."""
    lo = edges[b - 1] if b > 0 else None
    hi = edges[b] if b < len(edges) else None
    if lo is None:
        return f"< {hi:g}" if hi is not None else "(all)"
    if hi is None:
        return f">= {lo:g}"
    return f"[{lo:g}, {hi:g})"
