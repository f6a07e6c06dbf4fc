"""Per-class weighted moments for Gaussian models, merged by the Chan-Golub-LeVeque update."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._common import REL_TOL, check_removable


@dataclass
class MomentStats:
    """class_count[c]: weight of class-c rows; for each (class c, feature j) over the rows where
    feature j is observed: weight[c, j], mean[c, j] and the centred sum of squares m2[c, j]."""

    class_count: np.ndarray
    weight: np.ndarray
    mean: np.ndarray
    m2: np.ndarray

    def embed(self, pos: np.ndarray, n_classes: int) -> "MomentStats":
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
        m2 = np.where(w > 0, self.m2 + other.m2 + delta * delta * (wa * wb / safe), 0.0)
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
        m2 = self.m2 - other.m2 - delta * delta * (wa * wb / np.where(w_all > 0, w_all, 1.0))
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

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {
            "stats/class_count": self.class_count,
            "stats/weight": self.weight,
            "stats/mean": self.mean,
            "stats/m2": self.m2,
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "MomentStats":
        return cls(*(arrays[f"stats/{k}"] for k in ("class_count", "weight", "mean", "m2")))
