"""Per-class weighted counts: Bernoulli, multinomial, complement and categorical models."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import encode_labels, show, sorted_unique, union_labels
from ..errors import StatisticsError
from .checks import check_array, check_at_most, check_class_count, check_removed
from .exact import add_exact, combine, read_tail, tail_arrays, tail_embed


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

    ``exact``: per field, the tail of its exact value where float64 rounded it
    (:mod:`nbayes.stats.exact`); empty unless weights that do not add exactly were added and
    subtracted, so unlearning a batch returns the counts bit for bit.
    """

    class_count: np.ndarray
    feature_count: np.ndarray
    missing_count: np.ndarray | None = None
    exact: dict[str, list[np.ndarray]] = field(default_factory=dict, repr=False, compare=False)
    #: counts of 0/1 features (Bernoulli): each is at most the weight of the rows where it is observed
    presence: bool = field(default=False, repr=False, compare=False)

    FIELDS = ("class_count", "feature_count", "missing_count")

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
        return CountStats(cc, fc, mc, tail_embed(self.exact, pos, n_classes), self.presence)

    def __add__(self, other: "CountStats") -> "CountStats":
        values, tails = combine(self, other, self.FIELDS, +1)  # exact sums (stats.exact)
        return CountStats(**values, exact=tails, presence=self.presence)

    def subtract(self, other: "CountStats", classes: np.ndarray) -> "CountStats":
        """The counts of ``self``'s rows without ``other``'s, exactly (:class:`~nbayes.errors.UnlearnError`
        when ``other`` removes more than ``self`` holds)."""
        values, tails = combine(self, other, self.FIELDS, -1)
        names = {"class_count": "weight", "feature_count": "feature counts", "missing_count": "missing-value weight"}
        for name, what in names.items():
            if values[name] is not None:
                check_removed(values[name], getattr(self, name), getattr(other, name), classes, what, tails.get(name))
        out = CountStats(**values, exact=tails, presence=self.presence)
        if out.missing_count is not None and not out.missing_count.any() and self.missing_count is None:
            out.missing_count = None
        forget_empty_classes(out, self.FIELDS)
        return out

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
        if self.presence:  # a 0/1 feature is present in at most the rows where it is observed:
            # feature_count + missing_count <= class_count (a sum: no cancellation at any magnitude)
            part = fc if self.missing_count is None else fc + np.asarray(self.missing_count)
            name = "feature_count" if self.missing_count is None else "feature_count + missing_count"
            check_at_most(name, part, "its class's weight (a 0/1 feature is present in at most the rows where "
                          "it is observed)", cc[:, None])

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file (``stats/class_count``, ``stats/feature_count``,
        ``stats/missing_count``)."""
        out = {"stats/class_count": self.class_count, "stats/feature_count": self.feature_count}
        if self.missing_count is not None:
            out["stats/missing_count"] = self.missing_count
        return out | tail_arrays(self.exact)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], presence: bool = False) -> "CountStats":
        """The counts read back from ``to_arrays``'s arrays (``presence``: of 0/1 features)."""
        out = cls(
            arrays["stats/class_count"],
            arrays["stats/feature_count"],
            arrays.get("stats/missing_count"),
            presence=presence,
        )
        for name in cls.FIELDS:
            value = getattr(out, name)
            tail = read_tail(arrays, name, np.shape(value)) if value is not None else []
            if tail:
                out.exact[name] = tail
        return out


def forget_empty_classes(stats: Any, fields: tuple[str, ...]) -> Any:
    """A class whose weight is exactly 0 holds no data: every per-class field of its row is 0
    (what batch rounding left there, when rows are unlearned in other batches than learned, goes;
    CORRECTNESS: a forgotten class is gone)."""
    empty = np.flatnonzero(np.asarray(stats.class_count) == 0)
    if len(empty) == 0:
        return stats
    for name in fields:
        for arr in [getattr(stats, name)] + list(stats.exact.get(name, [])):
            if arr is None:
                continue
            if sp.issparse(arr):
                for k in empty.tolist():
                    arr.data[arr.indptr[k]:arr.indptr[k + 1]] = 0.0
                arr.eliminate_zeros()
            else:
                arr[empty] = 0.0
    trim_tails(stats.exact)
    return stats


def trim_tails(tails: dict[str, list[Any]]) -> None:
    """Drop tail components that are all zero (the canonical form holds none)."""
    for name in list(tails):
        kept = [t for t in tails[name] if (t.nnz if sp.issparse(t) else np.any(t))]
        if kept:
            tails[name] = kept
        else:
            del tails[name]


@dataclass
class CategoricalStats:
    """Weighted (class, value) counts per feature, each feature with its own value set.

    ``categories[j]``: the values held for feature j, in canonical sorted order: those with
    weight in some class (a value first seen in a batch leaves when that batch is unlearned,
    as a forgotten term leaves a vocabulary; CORRECTNESS: a forgotten value is gone), or, with
    ``fixed``, a value set declared in advance that stays whatever the counts (the bins of
    :class:`~nbayes.stats.BinnedStats`). Values declared with ``categories=`` live in the
    estimator's settings, not here.
    ``counts[j][c, v]``: weight of class-c rows whose feature j equals ``categories[j][v]``.
    Missing entries are not counted, so feature j's denominator is ``counts[j][c].sum()``.
    """

    class_count: np.ndarray
    categories: list[np.ndarray] = field(default_factory=list)
    counts: list[np.ndarray] = field(default_factory=list)
    #: tails of the exact values ("class_count", "counts/<j>"), as CountStats.exact
    exact: dict[str, list[np.ndarray]] = field(default_factory=dict, repr=False, compare=False)
    #: the value sets are declared (bins): a value whose counts return to 0 stays
    fixed: bool = field(default=False, repr=False, compare=False)

    def embed(self, pos: np.ndarray, n_classes: int) -> "CategoricalStats":
        """These counts inside a class set of ``n_classes``; class k goes to row ``pos[k]``."""
        cc = np.zeros(n_classes)
        cc[pos] = self.class_count
        counts = []
        for cnt in self.counts:
            new = np.zeros((n_classes, cnt.shape[1]))
            new[pos] = cnt
            counts.append(new)
        return CategoricalStats(cc, [c.copy() for c in self.categories], counts, tail_embed(self.exact, pos, n_classes),
                                self.fixed)

    def _aligned(self, other: "CategoricalStats") -> Iterator[tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]]:
        """Per feature: the united value set and both count tables (value and tail) laid out on it."""
        for j, (ca, na, cb, nb) in enumerate(zip(self.categories, self.counts, other.categories, other.counts)):
            ta, tb = [na, *self.exact.get(f"counts/{j}", [])], [nb, *other.exact.get(f"counts/{j}", [])]
            if len(ca) == len(cb) and (ca.dtype == cb.dtype) and np.array_equal(ca, cb):
                yield ca, ta, tb
                continue
            cats = union_labels(ca, cb)
            yield cats, [_spread(t, ca, cats) for t in ta], [_spread(t, cb, cats) for t in tb]

    def _combine(self, other: "CategoricalStats", sign: int, classes: np.ndarray | None) -> "CategoricalStats":
        """The exact ``self + sign * other`` (stats.exact), value sets united; with ``classes``, an
        UnlearnError when a result goes below 0."""
        cc, tail = add_exact(self.class_count, self.exact.get("class_count"), other.class_count,
                             other.exact.get("class_count"), sign)
        tails = {"class_count": tail}
        if classes is not None:
            check_removed(cc, self.class_count, other.class_count, classes, "weight", tail)
        cats, counts = [], []
        for j, (c, a, b) in enumerate(self._aligned(other)):
            v, tail = add_exact(a[0], a[1:], b[0], b[1:], sign)
            if classes is not None:
                check_removed(v, a[0], b[0], classes, "value counts", tail,
                              _value_of(j, c))
            cats.append(c)
            counts.append(v)
            tails[f"counts/{j}"] = tail
        out = CategoricalStats(cc, cats, counts, {k: v for k, v in tails.items() if v}, self.fixed)
        if classes is not None:
            empty = cc == 0  # a class without weight holds no data (CORRECTNESS: a forgotten class is gone)
            for j, cnt in enumerate(counts):
                cnt[empty] = 0.0
                for t in out.exact.get(f"counts/{j}", []):
                    t[empty] = 0.0
            trim_tails(out.exact)
            if not self.fixed:
                out.drop_unheld()
        return out

    def drop_unheld(self) -> "CategoricalStats":
        """Drop, in place, every value whose counts are exactly 0 in every class (value and
        tail): a value no remaining row holds is gone, as a forgotten term leaves a vocabulary,
        so learning a batch and unlearning it leaves the value sets of a model that never saw
        it (and ``J``, the smoothing's count of values, with them). Returns ``self``."""
        for j, cnt in enumerate(self.counts):
            tail = self.exact.get(f"counts/{j}", [])
            held = np.any(cnt != 0, axis=0)
            for t in tail:
                held |= np.any(t != 0, axis=0)
            if held.all():
                continue
            self.categories[j] = self.categories[j][held]
            self.counts[j] = np.ascontiguousarray(cnt[:, held])
            if tail:
                self.exact[f"counts/{j}"] = [np.ascontiguousarray(t[:, held]) for t in tail]
        trim_tails(self.exact)
        return self

    def __add__(self, other: "CategoricalStats") -> "CategoricalStats":
        return self._combine(other, +1, None)

    def subtract(self, other: "CategoricalStats", classes: np.ndarray) -> "CategoricalStats":
        """The counts of ``self``'s rows without ``other``'s, exactly, value sets aligned
        (:class:`~nbayes.errors.UnlearnError` when ``other`` removes more than ``self`` holds)."""
        return self._combine(other, -1, classes)

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
        return out | tail_arrays(self.exact)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> "CategoricalStats":
        """The counts of ``n_features`` features read back from ``to_arrays``'s arrays."""
        out = cls(
            arrays["stats/class_count"],
            [arrays[f"stats/categories/{j}"] for j in range(n_features)],
            [arrays[f"stats/counts/{j}"] for j in range(n_features)],
        )
        for name, value in [("class_count", out.class_count)] + [(f"counts/{j}", c) for j, c in enumerate(out.counts)]:
            tail = read_tail(arrays, name, np.shape(value))
            if tail:
                out.exact[name] = tail
        return out


def _spread(counts: np.ndarray, cats: np.ndarray, united: np.ndarray) -> np.ndarray:
    """Lay a (K, J) table over the columns of a larger, sorted value set."""
    pos, _ = encode_labels(cats, united)
    out = np.zeros((counts.shape[0], len(united)))
    out[:, pos] = counts
    return out


def _value_of(j: int, values: np.ndarray) -> Callable[[int], str]:
    """Names entry v of categorical column j's counts in a refusal: the column and its value."""
    return lambda v: f"column {j}, value {show(values[v])}"
