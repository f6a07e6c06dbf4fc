"""The shared numerical core: one log-sum-exp, one row normalisation in log space, one log-loss.

A layer of the boundary (next to :mod:`nbayes._validation`): NumPy only, no nbayes import, so
every module above (models, bridges, the evaluation, the CLI) can use it. The compiled
kernels (:mod:`nbayes._kernels`) have their own loops for the hot paths; their NumPy twins
should match these functions.

>>> import numpy as np
>>> round(float(logsumexp(np.log([0.25, 0.75]))), 12)
0.0
>>> logsumexp(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]), axis=1).tolist()
[-inf, 0.0]
>>> round(log_loss_of_true_class(np.array([0.5, 0.25])), 6)   # -(log .5 + log .25) / 2
1.039721
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LOG_LOSS_EPS", "log_loss_of_true_class", "log_normalize_rows", "logsumexp"]

#: Log-loss clips probabilities to [LOG_LOSS_EPS, 1 - LOG_LOSS_EPS] (the float64 machine
#: epsilon, 2.2e-16), as scikit-learn's ``log_loss`` does: a zero probability for the true class
#: costs about 36 rather than infinity. Every log-loss of nbayes (``nbayes.metrics``,
#: ``nbayes.compare``, the scorers of model selection, the CLI's measures) uses this floor.
LOG_LOSS_EPS: float = float(np.finfo(np.float64).eps)


def logsumexp(a: Any, axis: int | None = -1, *, keepdims: bool = False) -> np.ndarray:
    """log(sum(exp(a))) along ``axis`` (None: over every element), computed stably by
    subtracting the largest value first.

    -inf-safe: a slice whose values are all -inf gives -inf (its sum of probabilities is 0),
    with no warning and no NaN; +inf anywhere in a slice gives +inf; NaN gives NaN. An empty
    slice gives -inf. The result is float64; ``keepdims`` keeps the reduced axis (length 1)."""
    x = np.asarray(a, dtype=np.float64)
    if x.size == 0:
        shape = np.sum(x, axis=axis, keepdims=keepdims).shape
        return np.full(shape, -np.inf)
    m = np.max(x, axis=axis, keepdims=True)
    shift = np.where(np.isfinite(m), m, 0.0)  # a slice of -inf (or with +inf/NaN): no inf - inf
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = np.log(np.sum(np.exp(x - shift), axis=axis, keepdims=True)) + shift
    # all -inf: log(0) = -inf already; +inf: exp(inf - 0) = inf; NaN stays NaN
    out = np.where(np.isneginf(m), -np.inf, s)
    if not keepdims:
        out = np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    return out


def log_normalize_rows(Z: Any) -> np.ndarray:
    """Rows of log-scores to log-probabilities: ``Z - logsumexp(Z, axis=1)``. A row whose
    scores are all -inf stays -inf (no NaN, no warning): the caller decides what such a row
    means (the models answer it with the class prior)."""
    Z = np.asarray(Z, dtype=np.float64)
    lse = logsumexp(Z, axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        out = Z - lse
    return np.where(np.isneginf(lse), -np.inf, out)


def log_loss_of_true_class(p: Any, weights: Any = None) -> float:
    """The log-loss core: -mean log p of the true classes' probabilities ``p`` (one per row),
    each clipped to [:data:`LOG_LOSS_EPS`, 1 - :data:`LOG_LOSS_EPS`] (scikit-learn's rule),
    weighted by ``weights`` when given (a weighted mean; the weights must have a positive sum:
    the caller checks it and names its parameter)."""
    v = -np.log(np.clip(np.asarray(p, dtype=np.float64), LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS))
    if weights is None:
        return float(np.mean(v))
    w = np.asarray(weights, dtype=np.float64)
    return float(np.sum(v * w) / np.sum(w))
