"""Per-class weighted moments for Gaussian models, merged by the Chan-Golub-LeVeque update."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import threads
from .._kernels.gaussian import moments
from ..errors import StatisticsError
from .checks import REL_TOL, check_array, check_at_most, check_class_count, check_removable


@dataclass
class MomentStats:
    """class_count[c]: weight of class-c rows; for each (class c, feature j) over the rows where
    feature j is observed: weight[c, j], mean[c, j] and the centred sum of squares m2[c, j]."""

    class_count: np.ndarray
    weight: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

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
        return MomentStats(cc, w, mu, m2)

    def __add__(self, other: "MomentStats") -> "MomentStats":
        # Chan, Golub & LeVeque (1979): pairwise update of weight, mean and centred sum of squares
        wa, wb = self.weight, other.weight
        w = wa + wb
        safe = np.where(w > 0, w, 1.0)
        delta = other.mean - self.mean
        mean = np.where(w > 0, self.mean + delta * (wb / safe), 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            m2 = np.where(w > 0, self.m2 + other.m2 + delta * delta * (wa * (wb / safe)), 0.0)
        if not (np.isfinite(mean).all() and np.isfinite(m2).all()):
            j = int(np.argwhere(~(np.isfinite(mean) & np.isfinite(m2)))[0][1])
            raise StatisticsError(f"X: column {j}: its values are so large that their spread overflows float64 "
                                  "(rescale the column)")
        return MomentStats(self.class_count + other.class_count, w, mean, m2)

    def subtract(self, other: "MomentStats", classes: np.ndarray) -> "MomentStats":
        """Inverse of ``+``: the moments of the rows that remain once ``other``'s are removed."""
        check_removable(self.class_count, other.class_count, classes, "weight")
        check_removable(self.weight, other.weight, classes, "observed weight")
        w_all, wb = self.weight, other.weight
        wa = w_all - wb
        gone = wa <= REL_TOL * w_all  # the cell returns to "no data": reset it exactly
        safe_a = np.where(gone, 1.0, wa)
        mean_a = (w_all * self.mean - wb * other.mean) / safe_a
        delta = other.mean - mean_a
        m2 = self.m2 - other.m2 - delta * delta * (wa * (wb / np.where(w_all > 0, w_all, 1.0)))
        # cancellation can leave a tiny negative sum of squares: clamp it at 0
        m2 = np.maximum(m2, 0.0)
        cc = self.class_count - other.class_count
        cc = np.where(cc <= REL_TOL * self.class_count, 0.0, cc)
        return MomentStats(
            cc, np.where(gone, 0.0, wa), np.where(gone, 0.0, mean_a), np.where(gone, 0.0, m2)
        )

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
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "MomentStats":
        """The moments read back from ``to_arrays``'s arrays."""
        return cls(*(arrays[f"stats/{k}"] for k in ("class_count", "weight", "mean", "m2")))


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
