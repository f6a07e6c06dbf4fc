"""The class prior every Naive Bayes model estimates, written once."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_probability_vector

__all__ = ["class_log_prior"]


def class_log_prior(
    class_count: np.ndarray, *, fit_prior: bool, class_prior: Any, class_alpha: float,
    classes: Any = None,
) -> np.ndarray:
    """log P(y = c): given (``class_prior``: a sequence in ``classes`` order or a mapping from
    label to probability, normalised), fitted (eq. 8 of chapter 002, or eq. 9 smoothed by
    ``class_alpha``), or uniform. A class with no weight has log prior -inf (no warning)."""
    K = len(class_count)
    if class_prior is not None:
        labels = np.arange(K) if classes is None else classes
        prior = check_probability_vector("class_prior", class_prior, labels)
    elif not fit_prior:
        prior = np.ones(K)
    else:
        prior = np.asarray(class_count, dtype=np.float64) + class_alpha
    # a class without weight (forgotten by unlearn, or declared and never seen) is gone: as in
    # a model never trained on its rows, it has probability 0 and the others share the rest
    # (CORRECTNESS.md, "A forgotten class is gone")
    live = np.asarray(class_count) > 0
    if live.any() and not live.all():
        prior = np.where(live, prior, 0.0)
    total = prior.sum()
    if not total > 0:  # a given prior that puts all its mass on classes without data
        prior, total = live.astype(np.float64), float(live.sum())
    with np.errstate(divide="ignore"):
        log_prior: np.ndarray = np.log(prior) - np.log(total)
    return log_prior
