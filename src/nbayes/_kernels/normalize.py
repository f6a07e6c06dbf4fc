"""Row-wise log-sum-exp normalisation of joint log-likelihoods: the compiled kernels
(:mod:`._normalize`) and their NumPy twin."""

from __future__ import annotations

import numpy as np

from ._normalize import answer_rows, log_normalize

__all__ = ["answer_rows", "log_normalize", "log_normalize_numpy"]


def log_normalize_numpy(jll: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """Twin of :func:`log_normalize`, for tests."""
    m = jll.max(axis=1, keepdims=True)
    dead = np.isneginf(m[:, 0])
    m = np.where(dead[:, None], 0.0, m)
    with np.errstate(divide="ignore", invalid="ignore"):  # dead rows are replaced below
        out: np.ndarray = jll - (m + np.log(np.exp(jll - m).sum(axis=1, keepdims=True)))
    out[dead] = fallback
    return out
