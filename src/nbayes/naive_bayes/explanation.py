"""What ``explain`` returns: each feature's additive term of each class's joint log-probability."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._frames import explanation_frame

__all__ = ["Explanation", "top_of"]


@dataclass
class Explanation:
    """Additive terms of each class's joint log-probability.

    ``contributions[i, k, j]`` is feature j's term for row i and class k; with ``intercept[k]``
    (the log prior) they sum to ``predict_joint_log_proba``: see :meth:`joint`.
    """

    contributions: np.ndarray
    intercept: np.ndarray
    classes: np.ndarray
    feature_names: list[str]

    def joint(self) -> np.ndarray:
        """The joint log-probabilities the terms add up to, shape (n_rows, n_classes)."""
        joint: np.ndarray = self.contributions.sum(axis=2) + self.intercept
        return joint

    def log_odds(self, row: int = 0) -> tuple[Any, Any, np.ndarray, float]:
        """Per feature, the contribution to the log-odds of the predicted class against the
        runner-up in ``row``; returns (predicted, runner_up, terms, baseline) with
        ``terms.sum() + baseline`` equal to the difference of their joint log-probabilities."""
        joint = self.joint()[row]
        order = np.argsort(-joint, kind="stable")
        a, b = order[0], order[1] if len(order) > 1 else order[0]
        terms = _diff(self.contributions[row, a], self.contributions[row, b])
        return self.classes[a], self.classes[b], terms, float(self.intercept[a] - self.intercept[b])

    def to_frame(self, library: str | None = None) -> Any:
        """A frame with a row per explained row and feature: its term of the log-odds of the
        row's predicted class against the runner-up (:meth:`log_odds`), in the schema every
        explanation shares (``nbayes._frames.EXPLANATION_COLUMNS``; ``start``/``end`` null);
        pandas if installed, else polars (``library``)."""
        rows = (self.log_odds(i) for i in range(self.contributions.shape[0]))
        return explanation_frame([(p, r, b, self.feature_names, None, t) for p, r, t, b in rows], library)


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = a - b
    return np.where(a == b, 0.0, out)  # -inf - -inf: the same impossible term, no difference


def top_of(scores: np.ndarray, names: list[str], classes: np.ndarray, k: int) -> dict[Any, list[tuple[str, float]]]:
    """The ``k`` best-scored features per class, best first (NaN scores last), with their scores."""
    out: dict[Any, list[tuple[str, float]]] = {}
    for c, label in enumerate(classes.tolist()):
        row = np.where(np.isnan(scores[c]), -np.inf, scores[c])
        order = np.argsort(-row, kind="stable")[:k]
        out[label] = [(names[j], float(scores[c, j])) for j in order]
    return out
