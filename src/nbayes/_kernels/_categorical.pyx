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


cdef extern from *:
    """
    #include <math.h>
    #include <stdint.h>
    #define NB_VALUE int8_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_i8
    #include "_categorical_rows.h"
    #define NB_VALUE int16_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_i16
    #include "_categorical_rows.h"
    #define NB_VALUE int32_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_i32
    #include "_categorical_rows.h"
    #define NB_VALUE int64_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_i64
    #include "_categorical_rows.h"
    #define NB_VALUE uint8_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_u8
    #include "_categorical_rows.h"
    #define NB_VALUE uint16_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_u16
    #include "_categorical_rows.h"
    #define NB_VALUE uint32_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_u32
    #include "_categorical_rows.h"
    #define NB_VALUE uint64_t
    #define NB_FLOAT 0
    #define NB_NAME(x) nbayes_##x##_u64
    #include "_categorical_rows.h"
    #define NB_VALUE float
    #define NB_FLOAT 1
    #define NB_NAME(x) nbayes_##x##_f32
    #include "_categorical_rows.h"
    #define NB_VALUE double
    #define NB_FLOAT 1
    #define NB_NAME(x) nbayes_##x##_f64
    #include "_categorical_rows.h"
    """
    void range_rows_i8 "nbayes_range_rows_i8"(const int8_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   int8_t* mn, int8_t* mx) noexcept nogil
    void range_rows_i16 "nbayes_range_rows_i16"(const int16_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   int16_t* mn, int16_t* mx) noexcept nogil
    void range_rows_i32 "nbayes_range_rows_i32"(const int32_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   int32_t* mn, int32_t* mx) noexcept nogil
    void range_rows_i64 "nbayes_range_rows_i64"(const int64_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   int64_t* mn, int64_t* mx) noexcept nogil
    void range_rows_u8 "nbayes_range_rows_u8"(const uint8_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   uint8_t* mn, uint8_t* mx) noexcept nogil
    void range_rows_u16 "nbayes_range_rows_u16"(const uint16_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   uint16_t* mn, uint16_t* mx) noexcept nogil
    void range_rows_u32 "nbayes_range_rows_u32"(const uint32_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   uint32_t* mn, uint32_t* mx) noexcept nogil
    void range_rows_u64 "nbayes_range_rows_u64"(const uint64_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   uint64_t* mn, uint64_t* mx) noexcept nogil
    void range_rows_f32 "nbayes_range_rows_f32"(const float* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   double* mn, double* mx, double* frac) noexcept nogil
    void range_rows_f64 "nbayes_range_rows_f64"(const double* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi,
                                                   double* mn, double* mx, double* frac) noexcept nogil


cdef inline void _float_range(const value_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi, double* mn, double* mx,
                              double* frac) noexcept nogil:
    """The C row loop (_categorical_rows.h) of this float type."""
    if value_t is float:
        range_rows_f32(X, d, lo, hi, mn, mx, frac)
    elif value_t is double:
        range_rows_f64(X, d, lo, hi, mn, mx, frac)


cdef inline void _int_range(const value_t* X, Py_ssize_t d, Py_ssize_t lo, Py_ssize_t hi, value_t* mn,
                            value_t* mx) noexcept nogil:
    """The C row loop (_categorical_rows.h) of this integer type (lo < hi)."""
    if value_t is int8_t:
        range_rows_i8(X, d, lo, hi, mn, mx)
    elif value_t is int16_t:
        range_rows_i16(X, d, lo, hi, mn, mx)
    elif value_t is int32_t:
        range_rows_i32(X, d, lo, hi, mn, mx)
    elif value_t is int64_t:
        range_rows_i64(X, d, lo, hi, mn, mx)
    elif value_t is uint8_t:
        range_rows_u8(X, d, lo, hi, mn, mx)
    elif value_t is uint16_t:
        range_rows_u16(X, d, lo, hi, mn, mx)
    elif value_t is uint32_t:
        range_rows_u32(X, d, lo, hi, mn, mx)
    elif value_t is uint64_t:
        range_rows_u64(X, d, lo, hi, mn, mx)


def _value_range(const value_t[:, ::1] X, int T):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    cdef Py_ssize_t per = (n + T - 1) // T
    lo_a = np.full((T, d), np.inf)
    hi_a = np.full((T, d), -np.inf)
    frac_a = np.zeros((T, d))  # 1 where a thread saw a value with a fraction
    cdef double[:, ::1] lo_ = lo_a, hi_ = hi_a, frac = frac_a
    cdef value_t[:, ::1] ilo, ihi
    cdef Py_ssize_t t, i, j, first, last
    if n > 0 and d > 0:
        if value_t is float or value_t is double:
            with nogil:
                for t in prange(T, schedule="static", num_threads=T):
                    _float_range(&X[0, 0], d, t * per, min(n, (t + 1) * per), &lo_[t, 0], &hi_[t, 0], &frac[t, 0])
        else:
            dtype = np.asarray(X).dtype
            ilo = np.empty((T, d), dtype=dtype)
            ihi = np.empty((T, d), dtype=dtype)
            with nogil:
                for t in prange(T, schedule="static", num_threads=T):
                    first = t * per
                    last = min(n, (t + 1) * per)
                    if first < last:
                        _int_range(&X[0, 0], d, first, last, &ilo[t, 0], &ihi[t, 0])
                        for j in range(d):
                            lo_[t, j] = <double>ilo[t, j]
                            hi_[t, j] = <double>ihi[t, j]
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
            wh[j] = wh[j] and frac[t, j] == 0.0
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


cdef inline void _count_row(const value_t* x, Py_ssize_t d, Py_ssize_t c, double wi, const double* lo,
                            const int64_t* offsets, const int64_t* width, double* table) noexcept nogil:
    cdef Py_ssize_t j
    for j in range(d):
        if width[j] == 0 or _missing(x[j]):
            continue
        table[offsets[j] + c * width[j] + <int64_t>(<double>x[j] - lo[j])] += wi


cdef inline void _count_row_int(const value_t* x, Py_ssize_t d, Py_ssize_t c, double wi, const int64_t* lo,
                                const int64_t* offsets, const int64_t* width, double* table) noexcept nogil:
    """_count_row for integers whose ranges lie within +-2^52: x - lo in integers is the same
    number as numba's int64(x - lo) in floats, without two conversions per value."""
    cdef Py_ssize_t j
    for j in range(d):
        if width[j] == 0:
            continue
        table[offsets[j] + c * width[j] + (<int64_t>x[j] - lo[j])] += wi


def _count_values(const value_t[:, ::1] X, const Py_ssize_t[::1] y, const double[::1] w, bint has_w,
                  const double[::1] lo, const int64_t[::1] offsets, const int64_t[::1] width, int T,
                  const int64_t[::1] ilo, bint exact_int):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    cdef Py_ssize_t per = (n + T - 1) // T
    cdef int64_t size = offsets[d]
    tables_a = np.zeros((T, size))
    cdef double[:, ::1] tables = tables_a
    cdef Py_ssize_t t, i
    if n > 0 and size > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                for i in range(t * per, min(n, (t + 1) * per)):
                    if (value_t is float or value_t is double) or not exact_int:
                        _count_row(&X[i, 0], d, y[i], w[i] if has_w else 1.0, &lo[0], &offsets[0], &width[0],
                                   &tables[t, 0])
                    else:
                        _count_row_int(&X[i, 0], d, y[i], w[i] if has_w else 1.0, &ilo[0], &offsets[0],
                                       &width[0], &tables[t, 0])
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
    on = width > 0
    exact_int = X.dtype.kind in "iu" and bool(np.all(np.abs(lo[on]) < 2.0**52) and np.all(np.abs(lo[on] + width[on]) < 2.0**52)
                                              and np.all(lo[on] == np.floor(lo[on])))
    ilo = np.where(on, lo, 0.0).astype(np.int64) if exact_int else np.zeros(d, dtype=np.int64)
    return _count_values(X, y, w, has_w, lo, offsets, width, T, ilo, exact_int)
