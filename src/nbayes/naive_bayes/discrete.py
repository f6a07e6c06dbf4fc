"""Shared pieces of the count-based models (multinomial, complement, Bernoulli)."""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_number, check_vector_param

#: what ``force_alpha=False`` clips a smaller alpha to (scikit-learn's value)
ALPHA_MIN = 1e-10


def check_alpha(alpha: Any, n_features: int | None, force_alpha: bool) -> np.ndarray | float:
    """Validate the smoothing strength (a number, or one per feature) and apply ``force_alpha``."""
    if np.ndim(alpha) == 0:
        check_number("alpha", alpha, low=0.0)
        a: np.ndarray | float = float(alpha)
    else:
        if n_features is None:
            a = np.asarray(alpha, dtype=float)
        else:
            a = check_vector_param("alpha", alpha, n_features)
    if not force_alpha:
        a = np.maximum(a, ALPHA_MIN)  # a float stays a float (np.float64)
    return a


def safe_linear(X: Any, W: np.ndarray) -> np.ndarray:
    """X @ W.T where W may hold -inf (a zero probability, alpha = 0): a -inf weight counts only
    where x > 0, and 0 * -inf is 0, never NaN (GEMM alone would give NaN)."""
    finite = np.isfinite(W)
    if finite.all():
        return np.asarray(X @ W.T)
    out = np.asarray(X @ np.where(finite, W, 0.0).T)
    hit = np.asarray(X @ (~finite).astype(np.float64).T) > 0
    out[hit] = -np.inf
    return out


def dense_rows(X: Any) -> np.ndarray:
    return X.toarray() if sp.issparse(X) else np.asarray(X)


def times(x: np.ndarray, logp: np.ndarray) -> np.ndarray:
    """Elementwise x * logp with 0 * -inf = 0 (the term of an absent feature)."""
    with np.errstate(invalid="ignore"):
        out = x * logp
    return np.where(x == 0, 0.0, out)


# ---------------------------------------------------------------------------- EM's statistics
def soft_class_sum(R: np.ndarray, X: Any) -> np.ndarray:
    """R.T @ X as a dense C-ordered (K, d) array: per-class sums of the rows weighted by R[i, k]
    (EM's expected counts), for dense or sparse X: one sparse product."""
    out = (X.T @ R).T if sp.issparse(X) else R.T @ np.asarray(X)
    return np.ascontiguousarray(out, dtype=np.float64)


def dirichlet_log_density(alpha: Any, log_theta: np.ndarray) -> float:
    """sum alpha log theta (0 where alpha is 0, also against log 0): the log density, up to a
    constant, of the Dirichlet / Beta prior whose posterior mode is the (n + alpha)-smoothed
    estimate (MAP-EM's objective)."""
    if np.ndim(alpha) == 0 and alpha > 0 and np.isfinite(log_theta).all():
        return float(alpha) * float(np.sum(log_theta))
    a = np.broadcast_to(np.asarray(alpha, dtype=np.float64), log_theta.shape)
    with np.errstate(invalid="ignore"):
        terms = a * log_theta
    return float(np.sum(np.where(a == 0, 0.0, terms)))
