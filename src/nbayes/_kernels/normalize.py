"""Row-wise log-sum-exp normalisation of joint log-likelihoods."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True, inline="always")
def _normalize_row(jll, i, m, fallback):  # pragma: no cover - compiled
    """In place: jll[i] -= logsumexp(jll[i]), ``m`` its largest value; ``fallback`` when every
    value is -inf (a row impossible under every class)."""
    K = jll.shape[1]
    if m == -np.inf:
        for c in range(K):
            jll[i, c] = fallback[c]
        return
    s = 0.0
    for c in range(K):
        s += np.exp(jll[i, c] - m)
    lse = m + np.log(s)
    for c in range(K):
        jll[i, c] -= lse


@njit(parallel=True, cache=True, nogil=True)
def log_normalize(jll, fallback):  # pragma: no cover - compiled
    """In place: jll[i] -= logsumexp(jll[i]); a row that is -inf for every class (impossible under
    every class) becomes ``fallback`` (the normalised log prior). Never produces NaN."""
    n, K = jll.shape
    for i in prange(n):
        m = -np.inf
        for c in range(K):
            if jll[i, c] > m:
                m = jll[i, c]
        _normalize_row(jll, i, m, fallback)
    return jll


@njit(cache=True, nogil=True)
def answer_rows(jll, fallback, fallback_best):  # pragma: no cover - compiled
    """A served request's answers in one pass (no parallel launch, no small NumPy calls): per
    row the class with the largest joint log-likelihood (``fallback_best`` when every class is
    -inf, as ``predict`` does) and the normalised log-probabilities, :func:`log_normalize`'s
    arithmetic to the bit (in place); and the first row whose log-probabilities are NaN or
    +inf (-1: none), a row the model's arithmetic overflowed."""
    n, K = jll.shape
    best = np.empty(n, dtype=np.int64)
    bad = -1
    for i in range(n):
        m = -np.inf
        b = 0
        nan = False
        for c in range(K):
            v = jll[i, c]
            if v > m:
                m = v
                b = c
            elif v != v:
                nan = True
        best[i] = fallback_best if m == -np.inf else b
        _normalize_row(jll, i, m, fallback)
        for c in range(K):
            v = jll[i, c]
            nan = nan or v != v or v == np.inf
        if nan and bad < 0:
            bad = i
    return best, jll, bad


def log_normalize_numpy(jll, fallback):
    """Twin of :func:`log_normalize`, for tests."""
    m = jll.max(axis=1, keepdims=True)
    dead = np.isneginf(m[:, 0])
    m = np.where(dead[:, None], 0.0, m)
    with np.errstate(divide="ignore", invalid="ignore"):  # dead rows are replaced below
        out = jll - (m + np.log(np.exp(jll - m).sum(axis=1, keepdims=True)))
    out[dead] = fallback
    return out
