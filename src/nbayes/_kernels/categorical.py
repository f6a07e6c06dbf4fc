"""Categorical counting: (class, value) pairs of integer-valued columns in one pass."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True, nogil=True)
def value_range(X, T):  # pragma: no cover - compiled
    """Per column: min and max of the non-NaN values and whether all of them are whole numbers
    (always true for integer dtypes). A column with no value gets min > max."""
    n, d = X.shape
    per = (n + T - 1) // T
    lo_ = np.full((T, d), np.inf)
    hi_ = np.full((T, d), -np.inf)
    whole = np.ones((T, d), dtype=np.bool_)
    for t in prange(T):
        for i in range(t * per, min(n, (t + 1) * per)):
            for j in range(d):
                x = X[i, j]
                if x == x:
                    v = float(x)
                    if v < lo_[t, j]:
                        lo_[t, j] = v
                    if v > hi_[t, j]:
                        hi_[t, j] = v
                    if v != np.floor(v):
                        whole[t, j] = False
    lo = np.full(d, np.inf)
    hi = np.full(d, -np.inf)
    wh = np.ones(d, dtype=np.bool_)
    for t in range(T):
        for j in range(d):
            lo[j] = min(lo[j], lo_[t, j])
            hi[j] = max(hi[j], hi_[t, j])
            wh[j] = wh[j] and whole[t, j]
    return lo, hi, wh


@njit(parallel=True, cache=True, nogil=True)
def count_values(X, y, w, has_w, K, lo, offsets, width, T):  # pragma: no cover - compiled
    """counts[offsets[j] + c * width[j] + (x_ij - lo[j])] += w_i over non-NaN entries; columns
    with width 0 are skipped. Per-thread tables, summed at the end (no atomics)."""
    n, d = X.shape
    per = (n + T - 1) // T
    size = offsets[d]
    tables = np.zeros((T, size))
    for t in prange(T):
        for i in range(t * per, min(n, (t + 1) * per)):
            c = y[i]
            wi = w[i] if has_w else 1.0
            for j in range(d):
                if width[j] == 0:
                    continue
                x = X[i, j]
                if x == x:
                    tables[t, offsets[j] + c * width[j] + np.int64(x - lo[j])] += wi
    out = np.zeros(size)
    for t in range(T):
        out += tables[t]
    return out


def count_values_numpy(X, y, w, K, lo, offsets, width):
    """Twin of :func:`count_values`, for tests."""
    out = np.zeros(offsets[-1])
    w = np.ones(X.shape[0]) if w is None else w
    for j in range(X.shape[1]):
        if width[j] == 0:
            continue
        col = X[:, j]
        ok = ~np.isnan(col) if col.dtype.kind == "f" else np.ones(len(col), bool)
        idx = y[ok] * width[j] + (col[ok] - lo[j]).astype(np.int64)
        out[offsets[j] : offsets[j + 1]] = np.bincount(idx, w[ok], minlength=K * width[j])
    return out
