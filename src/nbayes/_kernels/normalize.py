"""Row-wise log-sum-exp normalisation of joint log-likelihoods."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


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
        if m == -np.inf:
            for c in range(K):
                jll[i, c] = fallback[c]
            continue
        s = 0.0
        for c in range(K):
            s += np.exp(jll[i, c] - m)
        lse = m + np.log(s)
        for c in range(K):
            jll[i, c] -= lse
    return jll


def log_normalize_numpy(jll, fallback):
    """Twin of :func:`log_normalize`, for tests."""
    m = jll.max(axis=1, keepdims=True)
    dead = np.isneginf(m[:, 0])
    m = np.where(dead[:, None], 0.0, m)
    with np.errstate(divide="ignore", invalid="ignore"):  # dead rows are replaced below
        out = jll - (m + np.log(np.exp(jll - m).sum(axis=1, keepdims=True)))
    out[dead] = fallback
    return out
