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


def linear(X: Any, W: np.ndarray) -> np.ndarray:
    """X @ W.T. For sparse X, only the columns X holds a value in are read: W (classes x terms,
    C-ordered) would otherwise be copied whole into the Fortran order the sparse product
    takes, as large as W itself on a bigram vocabulary (issue #29). Each row's sum runs over
    the same nonzeros in the same order, so the result is the same to the bit."""
    if not sp.issparse(X) or W.ndim != 2:
        return np.asarray(X @ W.T)
    X = X.tocsr()
    held = np.zeros(W.shape[1], dtype=np.bool_)
    held[X.indices] = True  # the columns held, sorted: O(nonzeros + terms), no sort (EM calls this per step)
    cols = np.flatnonzero(held)
    if 2 * len(cols) > W.shape[1]:  # most columns touched: the copy saves nothing
        return np.asarray(X @ W.T)
    remap = np.zeros(W.shape[1], dtype=X.indices.dtype)
    remap[cols] = np.arange(len(cols), dtype=X.indices.dtype)
    Xc = sp.csr_matrix((X.data, remap[X.indices], X.indptr), shape=(X.shape[0], len(cols)))
    return np.asarray(Xc @ np.ascontiguousarray(W[:, cols].T))


def safe_linear(X: Any, W: np.ndarray) -> np.ndarray:
    """X @ W.T where W may hold -inf (a zero probability, alpha = 0): a -inf weight counts only
    where x > 0, and 0 * -inf is 0, never NaN (GEMM alone would give NaN)."""
    finite = np.isfinite(W)
    if finite.all():
        return linear(X, W)
    out = linear(X, np.where(finite, W, 0.0))
    hit = linear(X, (~finite).astype(np.float64)) > 0
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
