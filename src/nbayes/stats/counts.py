"""Per-class weighted counts: Bernoulli, multinomial, complement and categorical models."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import encode_labels, sorted_unique, union_labels
from ..errors import StatisticsError
from .checks import check_array, check_at_most, check_class_count, check_removable, zero_small


def class_indicator(codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> sp.csr_matrix:
    """The (n, K) weighted one-hot matrix of the labels: its transpose times X sums per class."""
    n = len(codes)
    data = np.ones(n) if w is None else w
    return sp.csr_matrix((data, (np.arange(n), codes)), shape=(n, n_classes))


def class_totals(codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> np.ndarray:
    """The weight of each class's rows."""
    return np.bincount(codes, weights=w, minlength=n_classes).astype(np.float64)


def per_class_sum(Y: sp.csr_matrix, X: Any) -> np.ndarray:
    """Y.T @ X as a dense C-ordered (K, d) array, for dense or sparse X."""
    out = Y.T @ X
    # C order always: a sparse product can come back in Fortran order, and sums over it would
    # then round differently from the same counts read back from a model file
    return np.ascontiguousarray(out.toarray() if sp.issparse(out) else out, dtype=np.float64)


@dataclass
class CountStats:
    """Weighted counts per class and feature.

    class_count[c]: total weight of class-c rows.
    feature_count[c, j]: weighted sum of feature j over class-c rows (of its binarised value for
    Bernoulli). missing_count[c, j]: weight of class-c rows whose feature j is missing (None when
    no value was ever missing), so feature j's denominator is class_count - missing_count.
    """

    class_count: np.ndarray
    feature_count: np.ndarray
    missing_count: np.ndarray | None = None

    @classmethod
    def of(
        cls, X: Any, codes: np.ndarray, n_classes: int, sample_weight: np.ndarray | None = None
    ) -> "CountStats":
        """The counts of a batch: per class, the weight of its rows and the weighted sum of each
        feature (one sparse product, dense or sparse X). ``codes[i]`` is row i's class index.

        >>> import numpy as np
        >>> s = CountStats.of(np.array([[1, 0], [2, 3], [0, 1]]), np.array([0, 1, 1]), 2)
        >>> s.class_count.tolist(), s.feature_count.tolist()
        ([1.0, 2.0], [[1.0, 0.0], [2.0, 4.0]])
        """
        codes = np.asarray(codes)
        Y = class_indicator(codes, n_classes, sample_weight)
        return cls(class_totals(codes, n_classes, sample_weight), per_class_sum(Y, X))

    @property
    def observed_count(self) -> np.ndarray:
        """Per class and feature, the weight of the rows where the feature is observed (``class_count`` minus
        ``missing_count``)."""
        if self.missing_count is None:
            return np.broadcast_to(self.class_count[:, None], self.feature_count.shape)
        observed: np.ndarray = self.class_count[:, None] - self.missing_count
        return observed

    def embed(self, pos: np.ndarray, n_classes: int) -> "CountStats":
        """These statistics inside a class set of ``n_classes``; class k goes to row pos[k]."""
        cc = np.zeros(n_classes)
        fc = np.zeros((n_classes, self.feature_count.shape[1]))
        cc[pos], fc[pos] = self.class_count, self.feature_count
        mc = None
        if self.missing_count is not None:
            mc = np.zeros_like(fc)
            mc[pos] = self.missing_count
        return CountStats(cc, fc, mc)

    def __add__(self, other: "CountStats") -> "CountStats":
        return CountStats(
            self.class_count + other.class_count,
            self.feature_count + other.feature_count,
            _add_opt(self.missing_count, other.missing_count),
        )

    def subtract(self, other: "CountStats", classes: np.ndarray) -> "CountStats":
        """The counts of ``self``'s rows without ``other``'s (:class:`~nbayes.errors.UnlearnError` when
        ``other`` removes more than ``self`` holds)."""
        check_removable(self.class_count, other.class_count, classes, "weight")
        check_removable(self.feature_count, other.feature_count, classes, "feature counts")
        if other.missing_count is not None:
            mine = self.missing_count if self.missing_count is not None else 0 * other.missing_count
            check_removable(mine, other.missing_count, classes, "missing-value weight")
        cc = np.maximum(zero_small(self.class_count - other.class_count, self.class_count), 0)
        fc = np.maximum(zero_small(self.feature_count - other.feature_count, self.feature_count), 0)
        mc = self.missing_count
        if other.missing_count is not None and mc is not None:
            mc = np.maximum(zero_small(mc - other.missing_count, mc), 0)
        return CountStats(cc, fc, mc)

    def merge(self, other: "CountStats") -> "CountStats":
        """The statistics of both sets of rows (same class layout): ``self + other``."""
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Raise StatisticsError unless data could have produced these counts: finite and
        non-negative, one row per class, and missing weight within each class's weight."""
        cc = check_class_count(self.class_count, n_classes)
        fc = check_array("feature_count", self.feature_count)
        if fc.ndim != 2 or fc.shape[0] != len(cc) or (n_features is not None and fc.shape[1] != n_features):
            want = (len(cc), "n_features" if n_features is None else n_features)
            raise StatisticsError(f"statistics 'feature_count': expected shape {want}, got {fc.shape}")
        if self.missing_count is not None:
            mc = check_array("missing_count", self.missing_count, fc.shape)
            check_at_most("missing_count", mc, "its class's weight", cc[:, None])

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file (``stats/class_count``, ``stats/feature_count``,
        ``stats/missing_count``)."""
        out = {"stats/class_count": self.class_count, "stats/feature_count": self.feature_count}
        if self.missing_count is not None:
            out["stats/missing_count"] = self.missing_count
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "CountStats":
        """The counts read back from ``to_arrays``'s arrays."""
        return cls(
            arrays["stats/class_count"],
            arrays["stats/feature_count"],
            arrays.get("stats/missing_count"),
        )


def _add_opt(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None:
        return None if b is None else b.copy()
    return a.copy() if b is None else a + b


@dataclass
class CategoricalStats:
    """Weighted (class, value) counts per feature, each feature with its own value set.

    ``categories[j]``: the values seen (or declared) for feature j, in canonical sorted order.
    ``counts[j][c, v]``: weight of class-c rows whose feature j equals ``categories[j][v]``.
    Missing entries are not counted, so feature j's denominator is ``counts[j][c].sum()``.
    """

    class_count: np.ndarray
    categories: list[np.ndarray] = field(default_factory=list)
    counts: list[np.ndarray] = field(default_factory=list)

    def embed(self, pos: np.ndarray, n_classes: int) -> "CategoricalStats":
        """These counts inside a class set of ``n_classes``; class k goes to row ``pos[k]``."""
        cc = np.zeros(n_classes)
        cc[pos] = self.class_count
        counts = []
        for cnt in self.counts:
            new = np.zeros((n_classes, cnt.shape[1]))
            new[pos] = cnt
            counts.append(new)
        return CategoricalStats(cc, [c.copy() for c in self.categories], counts)

    def _aligned(self, other: "CategoricalStats") -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per feature: the united value set and both count tables laid out on it."""
        for ca, na, cb, nb in zip(self.categories, self.counts, other.categories, other.counts):
            if len(ca) == len(cb) and (ca.dtype == cb.dtype) and np.array_equal(ca, cb):
                yield ca, na, nb
                continue
            cats = union_labels(ca, cb)
            yield cats, _spread(na, ca, cats), _spread(nb, cb, cats)

    def __add__(self, other: "CategoricalStats") -> "CategoricalStats":
        cats, counts = [], []
        for c, a, b in self._aligned(other):
            cats.append(c)
            counts.append(a + b)
        return CategoricalStats(self.class_count + other.class_count, cats, counts)

    def subtract(self, other: "CategoricalStats", classes: np.ndarray) -> "CategoricalStats":
        """The counts of ``self``'s rows without ``other``'s, value sets aligned
        (:class:`~nbayes.errors.UnlearnError` when ``other`` removes more than ``self`` holds)."""
        check_removable(self.class_count, other.class_count, classes, "weight")
        cats, counts = [], []
        for c, a, b in self._aligned(other):
            check_removable(a, b, classes, "value counts")
            cats.append(c)
            counts.append(np.maximum(zero_small(a - b, a), 0))
        cc = np.maximum(zero_small(self.class_count - other.class_count, self.class_count), 0)
        return CategoricalStats(cc, cats, counts)

    def merge(self, other: "CategoricalStats") -> "CategoricalStats":
        """The statistics of both sets of rows (same class layout; value sets united)."""
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Raise StatisticsError unless data could have produced these counts: finite and
        non-negative, one table per feature with one column per distinct value, and no class
        with more counted values than its weight."""
        cc = check_class_count(self.class_count, n_classes)
        if len(self.categories) != len(self.counts) or (n_features is not None and len(self.counts) != n_features):
            raise StatisticsError(
                f"statistics: {len(self.categories)} value sets and {len(self.counts)} count tables "
                f"for {n_features if n_features is not None else len(self.counts)} features"
            )
        for j, (cat, cnt) in enumerate(zip(self.categories, self.counts)):
            cat = np.asarray(cat)
            if cat.ndim != 1 or len(sorted_unique(cat)) != len(cat):
                raise StatisticsError(f"statistics 'categories/{j}': expected distinct values, got {cat.tolist()!r}")
            c = check_array(f"counts/{j}", cnt, (len(cc), len(cat)))
            check_at_most(f"counts/{j} summed over values", c.sum(axis=1), "its class's weight", cc)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file (the class weights, and per feature its values and counts)."""
        out = {"stats/class_count": self.class_count}
        for j, (cat, cnt) in enumerate(zip(self.categories, self.counts)):
            out[f"stats/categories/{j}"] = cat
            out[f"stats/counts/{j}"] = cnt
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> "CategoricalStats":
        """The counts of ``n_features`` features read back from ``to_arrays``'s arrays."""
        return cls(
            arrays["stats/class_count"],
            [arrays[f"stats/categories/{j}"] for j in range(n_features)],
            [arrays[f"stats/counts/{j}"] for j in range(n_features)],
        )


def _spread(counts: np.ndarray, cats: np.ndarray, united: np.ndarray) -> np.ndarray:
    """Lay a (K, J) table over the columns of a larger, sorted value set."""
    pos, _ = encode_labels(cats, united)
    out = np.zeros((counts.shape[0], len(united)))
    out[:, pos] = counts
    return out
