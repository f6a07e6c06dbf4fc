"""Per-class weighted moments for Gaussian models, merged by the Chan-Golub-LeVeque update."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._kernels import threads
from .._kernels.gaussian import moments
from ..errors import StatisticsError
from .checks import check_array, check_at_most, check_class_count, check_removed
from .exact import add_exact, read_tail, tail_arrays, tail_embed
from .moment_sums import assemble, combine_cells, exact_cell, sums_expansions


@dataclass
class MomentStats:
    """class_count[c]: weight of class-c rows; for each (class c, feature j) over the rows where
    feature j is observed: weight[c, j], mean[c, j] and the centred sum of squares m2[c, j].

    Exactness (stats.exact): a cell's exact state is its weight W and the exact sums
    S1 = sum of W_b mean_b and S2 = sum of (m2_b + W_b mean_b**2) over the batches b added (less
    those subtracted); ``mean`` = RN(S1 / W) and ``m2`` = RN(S2 - S1**2 / W), correctly rounded
    from the exact state. ``exact`` holds the tails of class_count and weight, and the full
    expansions of S1 and S2 ("s1", "s2") when the rounded mean and m2 no longer determine them
    (after adding or removing batches): learning a batch and unlearning it returns every array
    bit for bit (the Chan-Golub-LeVeque update does not invert exactly).
    """

    class_count: np.ndarray
    weight: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    exact: dict[str, list[np.ndarray]] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(
        cls, X: np.ndarray, codes: np.ndarray, n_classes: int, sample_weight: np.ndarray | None = None
    ) -> "MomentStats":
        """The moments of a batch of dense float rows (NaN = missing, left out of its cell):
        per (class, feature) the observed weight, the mean and the centred sum of squares, in one
        compiled pass (two-pass accurate: the mean first, then squares about it).

        >>> import numpy as np
        >>> s = MomentStats.of(np.array([[1.0], [3.0], [10.0]]), np.array([0, 0, 1]), 2)
        >>> s.mean.ravel().tolist(), s.m2.ravel().tolist()
        ([2.0, 10.0], [2.0, 0.0])
        """
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(codes, dtype=np.intp)
        has_w = sample_weight is not None
        w = np.ascontiguousarray(sample_weight, dtype=np.float64) if has_w else np.empty(0)
        cc, W, mu, m2, bad = moments(X, y, w, has_w, n_classes, threads())
        if bad >= 0:
            raise StatisticsError(f"row {bad}: a feature is infinite; moments need finite values")
        if not (np.isfinite(mu).all() and np.isfinite(m2).all()):
            overflow_error(X, y, mu, m2, cc)
        return cls(cc, W, mu, m2)

    def embed(self, pos: np.ndarray, n_classes: int) -> "MomentStats":
        """These moments inside a class set of ``n_classes``; class k goes to row ``pos[k]``."""
        d = self.weight.shape[1]
        cc = np.zeros(n_classes)
        w, mu, m2 = (np.zeros((n_classes, d)) for _ in range(3))
        cc[pos], w[pos], mu[pos], m2[pos] = self.class_count, self.weight, self.mean, self.m2
        return MomentStats(cc, w, mu, m2, tail_embed(self.exact, pos, n_classes))

    def __add__(self, other: "MomentStats") -> "MomentStats":
        return _combine(self, other, +1, None)

    def subtract(self, other: "MomentStats", classes: np.ndarray) -> "MomentStats":
        """Inverse of ``+``, exactly: the moments of the rows that remain once ``other``'s are
        removed (:class:`~nbayes.errors.UnlearnError` naming the class when ``other`` removes
        more weight than ``self`` holds)."""
        return _combine(self, other, -1, classes)

    def with_sums(self) -> "MomentStats":
        """The same statistics holding the full expansions of S1 and S2 (``exact["s1"]``, ``["s2"]``)
        for every cell (to lay rows of different statistics side by side)."""
        if "s1" in self.exact:
            return self
        return MomentStats(self.class_count, self.weight, self.mean, self.m2, dict(self.exact) | sums_expansions(self))

    def pooled(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Weight, mean and centred sum of squares per feature over all classes (Chan merge)."""
        w = self.weight.sum(axis=0)
        safe = np.where(w > 0, w, 1.0)
        mean = (self.weight * self.mean).sum(axis=0) / safe
        m2 = (self.m2 + self.weight * (self.mean - mean) ** 2).sum(axis=0)
        return w, np.where(w > 0, mean, 0.0), np.where(w > 0, m2, 0.0)

    def merge(self, other: "MomentStats") -> "MomentStats":
        """The moments of both sets of rows (same class layout): ``self + other``."""
        return self + other

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Raise StatisticsError unless data could have produced these moments: weights finite,
        non-negative and within their class's weight, means finite, sums of squares >= 0, and
        a cell without weight holding no mean or spread."""
        cc = check_class_count(self.class_count, n_classes)
        w = check_array("weight", self.weight)
        if w.ndim != 2 or w.shape[0] != len(cc) or (n_features is not None and w.shape[1] != n_features):
            want = (len(cc), "n_features" if n_features is None else n_features)
            raise StatisticsError(f"statistics 'weight': expected shape {want}, got {w.shape}")
        mean = check_array("mean", self.mean, w.shape, nonnegative=False)
        m2 = check_array("m2", self.m2, w.shape)
        check_at_most("weight", w, "its class's weight", cc[:, None])
        empty = (w == 0) & ((mean != 0) | (m2 != 0))
        if empty.any():
            at = [int(i) for i in np.argwhere(empty)[0]]
            raise StatisticsError(f"statistics 'mean'/'m2': entry {at} has no weight but a mean or spread")

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file (``stats/class_count``, ``stats/weight``, ``stats/mean``,
        ``stats/m2``)."""
        return {
            "stats/class_count": self.class_count,
            "stats/weight": self.weight,
            "stats/mean": self.mean,
            "stats/m2": self.m2,
        } | tail_arrays(self.exact)

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "MomentStats":
        """The moments read back from ``to_arrays``'s arrays."""
        out = cls(arrays["stats/class_count"], arrays["stats/weight"], arrays["stats/mean"], arrays["stats/m2"])
        for name, ref in (("class_count", out.class_count), ("weight", out.weight), ("s1", out.weight),
                          ("s2", out.weight)):
            tail = read_tail(arrays, name, np.shape(ref))
            if tail:
                out.exact[name] = tail
        if ("s1" in out.exact) != ("s2" in out.exact):
            raise StatisticsError("statistics 'exact/s1', 'exact/s2': a file holds both exact sums or neither")
        return out


def _combine(a: MomentStats, b: MomentStats, sign: int, classes: np.ndarray | None) -> MomentStats:
    """The exact ``a + sign * b`` (the class docstring): weights by exact sums, then per cell
    the exact sums S1, S2 and the correctly rounded mean and m2 derived from them
    (stats.moment_sums: vectorised and certified, the rest by exact integers)."""
    cc, cc_t = add_exact(a.class_count, a.exact.get("class_count"), b.class_count, b.exact.get("class_count"), sign)
    W, W_t = add_exact(a.weight, a.exact.get("weight"), b.weight, b.exact.get("weight"), sign)
    if classes is not None:
        check_removed(cc, a.class_count, b.class_count, classes, "weight", cc_t)
        check_removed(W, a.weight, b.weight, classes, "observed weight", W_t)
    K, d = W.shape
    W_all = [W, *W_t]
    got = combine_cells(a, b, sign, W_all)
    slow = {i: exact_cell(a, b, sign, W_all, np.unravel_index(i, (K, d))) for i in np.flatnonzero(~got["ok"]).tolist()}
    mean, m2, need = got["mean"], got["m2"], got["need"]
    for i, cell in slow.items():
        mean[i], m2[i], need[i] = cell["mean"], cell["m2"], cell["need"]
    mean, m2 = mean.reshape(K, d), m2.reshape(K, d)
    if not (np.isfinite(mean).all() and np.isfinite(m2).all()):
        j = int(np.argwhere(~(np.isfinite(mean) & np.isfinite(m2)))[0][1])
        raise StatisticsError(f"X: column {j}: its values are so large that their spread overflows float64 "
                              "(rescale the column)")
    tails = {"class_count": cc_t, "weight": W_t}
    if need.any():
        for name in ("s1", "s2"):
            parts = assemble(got[name], {i: c[name] for i, c in slow.items()})
            tails[name] = [t.reshape(K, d) for t in parts]
    tails = {k: kept for k, v in tails.items() if (kept := [t for t in v if np.any(t)])}
    return MomentStats(cc, W, mean, m2, tails)


def overflow_error(X: np.ndarray, codes: np.ndarray, mu: np.ndarray, m2: np.ndarray,
                   class_count: np.ndarray | None = None) -> None:
    """Raise the error of moments past float64: the weights when a class's weight overflowed,
    else the row and column of the largest value of the first (class, feature) cell whose mean
    or centred sum of squares overflowed (CORRECTNESS: past float64, a clear error naming the
    column, never inf/NaN parameters)."""
    if class_count is not None and not np.isfinite(class_count).all():
        raise StatisticsError(
            "sample_weight: the weights of a class overflow (their sum passes float64's largest "
            "number, about 1.8e308); rescale the weights (a uniform factor changes nothing)"
        )
    c, j = (int(v) for v in np.argwhere(~(np.isfinite(mu) & np.isfinite(m2)))[0])
    rows = np.flatnonzero(codes == c)
    col = np.abs(np.where(np.isnan(X[rows, j]), 0.0, X[rows, j]))
    i = int(rows[int(np.argmax(col))]) if len(rows) else 0
    raise StatisticsError(
        f"X: row {i}, column {j} holds {X[i, j]:.6g}: the column's values are so large that their "
        f"{'mean' if not np.isfinite(mu[c, j]) else 'spread'} overflows float64 (rescale the column)"
    )
