"""Categorical counting: (class, value) pairs of integer-valued columns in one pass: the
compiled kernels (:mod:`._categorical`) and their NumPy twin."""

from __future__ import annotations

import numpy as np

from ._categorical import DTYPES, count_values, value_range

__all__ = ["DTYPES", "count_values", "count_values_numpy", "value_range"]


def count_values_numpy(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray | None,
    K: int,
    lo: np.ndarray,
    offsets: np.ndarray,
    width: np.ndarray,
) -> np.ndarray:
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
