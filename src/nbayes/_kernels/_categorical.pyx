# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Categorical counting: (class, value) pairs of integer-valued columns in one pass (compiled;
twin in categorical.py).

X may be any integer or float dtype (``read_table`` keeps a numeric matrix's own): one
specialisation per dtype, as numba compiled one per dtype. The rows are split into T explicit
ranges of ``ceil(n / T)`` rows, one per thread, each with its own table, the tables summed in
thread order at the end (no atomics).
"""

import numpy as np

from cython.parallel cimport prange
from libc.math cimport INFINITY, floor
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

ctypedef fused value_t:
    int8_t
    int16_t
    int32_t
    int64_t
    uint8_t
    uint16_t
    uint32_t
    uint64_t
    float
    double

cdef inline bint _missing(value_t x) noexcept nogil:
    """x is NaN (never, for integers)."""
    if value_t is float or value_t is double:
        return x != x
    else:
        return False


#: the dtypes of X the kernels take (others: TypeError)
DTYPES = frozenset(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                         np.uint32, np.uint64, np.float32, np.float64))


def _value_range(const value_t[:, ::1] X, int T):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    cdef Py_ssize_t per = (n + T - 1) // T
    lo_a = np.full((T, d), np.inf)
    hi_a = np.full((T, d), -np.inf)
    whole_a = np.ones((T, d), dtype=np.uint8)
    cdef double[:, ::1] lo_ = lo_a, hi_ = hi_a
    cdef uint8_t[:, ::1] whole = whole_a
    cdef Py_ssize_t t, i, j
    cdef value_t x
    cdef double v
    if n > 0 and d > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                for i in range(t * per, min(n, (t + 1) * per)):
                    for j in range(d):
                        x = X[i, j]
                        if not _missing(x):
                            v = <double>x
                            if v < lo_[t, j]:
                                lo_[t, j] = v
                            if v > hi_[t, j]:
                                hi_[t, j] = v
                            if v != floor(v):
                                whole[t, j] = False
    lo_out = np.full(d, np.inf)
    hi_out = np.full(d, -np.inf)
    wh_out = np.ones(d, dtype=np.bool_)
    cdef double[::1] lo = lo_out, hi = hi_out
    cdef uint8_t[::1] wh = wh_out.view(np.uint8)
    for t in range(T):
        for j in range(d):
            if lo_[t, j] < lo[j]:  # min(lo, lo_): numba's (and Python's) choice on ties
                lo[j] = lo_[t, j]
            if hi_[t, j] > hi[j]:
                hi[j] = hi_[t, j]
            wh[j] = wh[j] and whole[t, j]
    return lo_out, hi_out, wh_out


def value_range(X, T):
    """Per column: min and max of the non-NaN values and whether all of them are whole numbers
    (always true for integer dtypes). A column with no value gets min > max."""
    if T < 1:
        raise ValueError(f"T must be at least 1, got {T}")
    X = np.ascontiguousarray(X)
    if X.dtype not in DTYPES:
        raise TypeError(f"value_range: X of dtype {X.dtype} (expected one of {sorted(map(str, DTYPES))})")
    return _value_range(X, T)


def _count_values(const value_t[:, ::1] X, const Py_ssize_t[::1] y, const double[::1] w, bint has_w,
                  const double[::1] lo, const int64_t[::1] offsets, const int64_t[::1] width, int T):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    cdef Py_ssize_t per = (n + T - 1) // T
    cdef int64_t size = offsets[d]
    tables_a = np.zeros((T, size))
    cdef double[:, ::1] tables = tables_a
    cdef Py_ssize_t t, i, j, c
    cdef value_t x
    cdef double wi
    cdef double* table
    if n > 0 and size > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                table = &tables[t, 0]
                for i in range(t * per, min(n, (t + 1) * per)):
                    c = y[i]
                    wi = w[i] if has_w else 1.0
                    for j in range(d):
                        if width[j] == 0:
                            continue
                        x = X[i, j]
                        if not _missing(x):
                            table[offsets[j] + c * width[j] + <int64_t>(<double>x - lo[j])] += wi
    out = np.zeros(size)
    for t in range(T):  # in thread order, as numba did
        out += tables_a[t]
    return out


def count_values(X, y, w, has_w, K, lo, offsets, width, T):
    """counts[offsets[j] + c * width[j] + (x_ij - lo[j])] += w_i over non-NaN entries; columns
    with width 0 are skipped. Per-thread tables, summed at the end (no atomics). ``lo``,
    ``offsets`` and ``width`` must come from :func:`value_range` over the same X (a value
    outside a column's range would write outside its table)."""
    if T < 1:
        raise ValueError(f"T must be at least 1, got {T}")
    X = np.ascontiguousarray(X)
    if X.dtype not in DTYPES:
        raise TypeError(f"count_values: X of dtype {X.dtype} (expected one of {sorted(map(str, DTYPES))})")
    n, d = X.shape
    y = np.ascontiguousarray(y, dtype=np.intp)
    w = np.ascontiguousarray(w, dtype=np.float64) if has_w else np.empty(0)
    lo = np.ascontiguousarray(lo, dtype=np.float64)
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    width = np.ascontiguousarray(width, dtype=np.int64)
    if len(y) != n or (has_w and len(w) != n) or len(lo) != d or len(width) != d or len(offsets) != d + 1:
        raise ValueError("count_values: the lengths of X, y, w, lo, offsets and width do not agree")
    if offsets[0] < 0 or np.any(np.diff(offsets) < K * width) or np.any(width < 0):
        raise ValueError("count_values: offsets leave no room for K * width counts per column")
    return _count_values(X, y, w, has_w, lo, offsets, width, T)
