# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Row-wise log-sum-exp normalisation of joint log-likelihoods (compiled; twin in normalize.py)."""

import numpy as np

from cython.parallel cimport prange
from libc.math cimport INFINITY, exp, log
from libc.stdint cimport int64_t


cdef inline void _normalize_row(double* row, Py_ssize_t step, Py_ssize_t K, double m,
                                const double[:] fallback) noexcept nogil:
    """In place: row -= logsumexp(row) (K values ``step`` apart), ``m`` its largest value;
    ``fallback`` when every value is -inf (a row impossible under every class). Hot helpers
    take pointers, not memoryviews: a memoryview argument is reference-counted (atomically)
    at each call."""
    cdef Py_ssize_t c
    cdef double s = 0.0, lse
    if m == -INFINITY:
        for c in range(K):
            row[c * step] = fallback[c]
        return
    for c in range(K):
        s += exp(row[c * step] - m)
    lse = m + log(s)
    for c in range(K):
        row[c * step] -= lse


def log_normalize(jll_array, fallback_array):
    """In place: jll[i] -= logsumexp(jll[i]); a row that is -inf for every class (impossible under
    every class) becomes ``fallback`` (the normalised log prior). Never produces NaN. Returns jll."""
    cdef double[:, :] jll = jll_array
    cdef const double[:] fallback = fallback_array
    cdef Py_ssize_t n = jll.shape[0], K = jll.shape[1], i, c
    cdef Py_ssize_t step = jll.strides[1] // sizeof(double)
    cdef double m
    if fallback.shape[0] != K:
        raise ValueError(f"fallback has {fallback.shape[0]} values for {K} classes")
    with nogil:
        for i in prange(n, schedule="static"):
            m = -INFINITY
            for c in range(K):
                if jll[i, c] > m:
                    m = jll[i, c]
            _normalize_row(&jll[i, 0], step, K, m, fallback)
    return jll_array


def answer_rows(jll_array, fallback_array, Py_ssize_t fallback_best):
    """A served request's answers in one pass (no thread team, no small NumPy calls): per row
    the class with the largest joint log-likelihood (``fallback_best`` when every class is
    -inf, as ``predict`` does) and the normalised log-probabilities, :func:`log_normalize`'s
    arithmetic to the bit (in place); and the first row whose log-probabilities are NaN or
    +inf (-1: none), a row the model's arithmetic overflowed. Returns (best, jll, bad)."""
    cdef double[:, :] jll = jll_array
    cdef const double[:] fallback = fallback_array
    cdef Py_ssize_t n = jll.shape[0], K = jll.shape[1], i, c, b
    cdef Py_ssize_t step = jll.strides[1] // sizeof(double)
    cdef int64_t bad = -1
    cdef double m, v
    cdef bint nan
    if fallback.shape[0] != K:
        raise ValueError(f"fallback has {fallback.shape[0]} values for {K} classes")
    best_array = np.empty(n, dtype=np.int64)
    cdef int64_t[:] best = best_array
    with nogil:
        for i in range(n):
            m = -INFINITY
            b = 0
            nan = False
            for c in range(K):
                v = jll[i, c]
                if v > m:
                    m = v
                    b = c
                elif v != v:
                    nan = True
            best[i] = fallback_best if m == -INFINITY else b
            _normalize_row(&jll[i, 0], step, K, m, fallback)
            for c in range(K):
                v = jll[i, c]
                nan = nan or v != v or v == INFINITY
            if nan and bad < 0:
                bad = i
    return best_array, jll_array, bad
