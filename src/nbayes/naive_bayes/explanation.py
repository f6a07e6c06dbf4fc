"""What ``explain`` returns: each feature's additive term of each class's joint log-probability
(:class:`nbayes._estimator.Explanation`, the return type of the ``explain`` protocol method,
shared with the logistic regression's explanation)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._estimator import Explanation

__all__ = ["Explanation", "top_of"]


def top_of(scores: np.ndarray, names: list[str], classes: np.ndarray, k: int) -> dict[Any, list[tuple[str, float]]]:
    """The ``k`` best-scored features per class, best first (NaN scores last), with their scores."""
    out: dict[Any, list[tuple[str, float]]] = {}
    for c, label in enumerate(classes.tolist()):
        row = np.where(np.isnan(scores[c]), -np.inf, scores[c])
        order = np.argsort(-row, kind="stable")[:k]
        out[label] = [(names[j], float(scores[c, j])) for j in order]
    return out
