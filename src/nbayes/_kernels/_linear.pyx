# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Kernels of the linear models (compiled; twins and the notes in linear.py).

The sums follow numba's arithmetic to the bit, so that a fit gives the same coefficients: a
loop numba ran as ``prange(n)`` with a ``+=`` reduction splits its n iterations into
``threads()`` contiguous ranges of sizes differing by at most one, the larger first (numba's
static schedule, OpenMP's ``schedule(static)`` too), each range summed in order from 0, the
ranges' sums added in order to 0 (:func:`_span`, :func:`_merge`). Loops without a reduction run
as ``prange(n, schedule="static")``: their results do not depend on the split.

CSR index arrays may be int32 or int64 (SciPy's, the tokeniser's); the single-precision paths
of the Hessian's products take float32 data, weights and results.
"""

import numpy as np

from cython.parallel cimport prange
from libc.math cimport exp, log, log1p
from libc.stdint cimport int32_t, int64_t

from nbayes._kernels._omp cimport omp_get_max_threads

ctypedef fused index_t:
    int32_t
    int64_t

ctypedef fused real_t:
    float
    double


# ---------------------------------------------------------------------------- numba's split
cdef inline Py_ssize_t _span(Py_ssize_t n, Py_ssize_t T, Py_ssize_t t, Py_ssize_t* hi) noexcept nogil:
    """Range t of n iterations split over T threads as numba's scheduler splits a prange:
    contiguous, the first n % T ranges one longer. Returns its start, sets its end."""
    cdef Py_ssize_t q = n // T, r = n % T
    cdef Py_ssize_t lo = t * q + (t if t < r else r)
    hi[0] = lo + q + (1 if t < r else 0)
    return lo


cdef double _merge(double[::1] part):
    """numba's merge of a reduction's per-thread sums: 0 + part[0] + part[1] + ..."""
    cdef double total = 0.0
    cdef Py_ssize_t t
    for t in range(part.shape[0]):
        total += part[t]
    return total


cdef inline int _threads() noexcept nogil:
    cdef int T = omp_get_max_threads()
    return T if T > 0 else 1


def _index(a):
    """A CSR index array as the kernels take it: int32 or int64, contiguous (no copy when it
    is one already)."""
    a = np.asarray(a)
    if a.dtype == np.int32 or a.dtype == np.int64:
        return np.ascontiguousarray(a)
    return np.ascontiguousarray(a, dtype=np.int64)


# ---------------------------------------------------------------------------- products
cdef extern from *:
    """
    #include <stdint.h>
    #define NB_IDX int32_t
    #define NB_REAL float
    #define NB_NAME(x) nbayes_##x##_i32_f32
    #include "_linear_rows.h"
    #define NB_IDX int32_t
    #define NB_REAL double
    #define NB_NAME(x) nbayes_##x##_i32_f64
    #include "_linear_rows.h"
    #define NB_IDX int64_t
    #define NB_REAL float
    #define NB_NAME(x) nbayes_##x##_i64_f32
    #include "_linear_rows.h"
    #define NB_IDX int64_t
    #define NB_REAL double
    #define NB_NAME(x) nbayes_##x##_i64_f64
    #include "_linear_rows.h"

    /* scale_rows over rows lo..hi-1: out[j, c] = s[j] V[j, c], rounded to out's type */
    #define NBAYES_SCALE_ROWS(NAME, REAL)                                                   \
    static NBAYES_CLONES void NAME(const double* V, const double* s, Py_ssize_t K, REAL* out, \
                                   Py_ssize_t lo, Py_ssize_t hi) {                          \
        if (K == 1) {                                                                       \
            for (Py_ssize_t j = lo; j < hi; j++)                                            \
                out[j] = (REAL)(s[j] * V[j]);                                               \
            return;                                                                         \
        }                                                                                   \
        for (Py_ssize_t j = lo; j < hi; j++)                                                \
            for (Py_ssize_t c = 0; c < K; c++)                                              \
                out[j * K + c] = (REAL)(s[j] * V[j * K + c]);                               \
    }
    NBAYES_SCALE_ROWS(nbayes_scale_rows_f32, float)
    NBAYES_SCALE_ROWS(nbayes_scale_rows_f64, double)
    """
    void scale_rows_f32 "nbayes_scale_rows_f32"(const double* V, const double* s, Py_ssize_t K, float* out,
                                                Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    void scale_rows_f64 "nbayes_scale_rows_f64"(const double* V, const double* s, Py_ssize_t K, double* out,
                                                Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    void csr_rows_i32_f32 "nbayes_csr_rows_i32_f32"(const int32_t* indptr, const int32_t* indices, const float* data,
                                                    const float* B, Py_ssize_t K, float* out, Py_ssize_t lo,
                                                    Py_ssize_t hi) noexcept nogil
    void csr_rows_i32_f64 "nbayes_csr_rows_i32_f64"(const int32_t* indptr, const int32_t* indices, const double* data,
                                                    const double* B, Py_ssize_t K, double* out, Py_ssize_t lo,
                                                    Py_ssize_t hi) noexcept nogil
    void csr_rows_i64_f32 "nbayes_csr_rows_i64_f32"(const int64_t* indptr, const int64_t* indices, const float* data,
                                                    const float* B, Py_ssize_t K, float* out, Py_ssize_t lo,
                                                    Py_ssize_t hi) noexcept nogil
    void csr_rows_i64_f64 "nbayes_csr_rows_i64_f64"(const int64_t* indptr, const int64_t* indices, const double* data,
                                                    const double* B, Py_ssize_t K, double* out, Py_ssize_t lo,
                                                    Py_ssize_t hi) noexcept nogil
    void presence_rows_i32_f32 "nbayes_presence_rows_i32_f32"(const int64_t* indptr, const int32_t* indices,
                                                              const float* B, Py_ssize_t K, double* out,
                                                              Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    void presence_rows_i32_f64 "nbayes_presence_rows_i32_f64"(const int64_t* indptr, const int32_t* indices,
                                                              const double* B, Py_ssize_t K, double* out,
                                                              Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    void presence_rows_i64_f32 "nbayes_presence_rows_i64_f32"(const int64_t* indptr, const int64_t* indices,
                                                              const float* B, Py_ssize_t K, double* out,
                                                              Py_ssize_t lo, Py_ssize_t hi) noexcept nogil
    void presence_rows_i64_f64 "nbayes_presence_rows_i64_f64"(const int64_t* indptr, const int64_t* indices,
                                                              const double* B, Py_ssize_t K, double* out,
                                                              Py_ssize_t lo, Py_ssize_t hi) noexcept nogil


cdef inline void _csr_rows(const index_t* indptr, const index_t* indices, const real_t* data, const real_t* B,
                           Py_ssize_t K, real_t* out, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The C row kernel (_linear_rows.h) of these types."""
    if index_t is int32_t:
        if real_t is float:
            csr_rows_i32_f32(indptr, indices, data, B, K, out, lo, hi)
        else:
            csr_rows_i32_f64(indptr, indices, data, B, K, out, lo, hi)
    else:
        if real_t is float:
            csr_rows_i64_f32(indptr, indices, data, B, K, out, lo, hi)
        else:
            csr_rows_i64_f64(indptr, indices, data, B, K, out, lo, hi)


cdef inline void _presence_rows(const int64_t* indptr, const index_t* indices, const real_t* B, Py_ssize_t K,
                                double* out, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    if index_t is int32_t:
        if real_t is float:
            presence_rows_i32_f32(indptr, indices, B, K, out, lo, hi)
        else:
            presence_rows_i32_f64(indptr, indices, B, K, out, lo, hi)
    else:
        if real_t is float:
            presence_rows_i64_f32(indptr, indices, B, K, out, lo, hi)
        else:
            presence_rows_i64_f64(indptr, indices, B, K, out, lo, hi)


def _csr_dense(const index_t[::1] indptr, const index_t[::1] indices, const real_t[::1] data,
               const real_t[:, ::1] B, real_t[:, ::1] out):
    cdef Py_ssize_t n = indptr.shape[0] - 1, K = B.shape[1], t, lo, hi
    cdef int T = _threads()
    cdef const index_t* ind = &indices[0] if indices.shape[0] else NULL
    cdef const real_t* dat = &data[0] if data.shape[0] else NULL
    cdef const real_t* b = &B[0, 0] if B.shape[0] and K else NULL
    if n <= 0 or K == 0:
        return
    with nogil:
        for t in prange(T, schedule="static", num_threads=T):
            lo = _span(n, T, t, &hi)
            _csr_rows(&indptr[0], ind, dat, b, K, &out[0, 0], lo, hi)


def csr_dense(indptr, indices, data, B, out):
    """out = A @ B for A in CSR form (n x d) and a C-ordered B (d x K); out is (n x K), in B's
    precision (float64 or float32, data too)."""
    indptr, indices = _index(indptr), _index(indices)
    if indptr.dtype != indices.dtype:
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int64)
    if out.shape != (len(indptr) - 1, B.shape[1]):
        raise ValueError(f"csr_dense: out has shape {out.shape}, expected {(len(indptr) - 1, B.shape[1])}")
    _csr_dense(indptr, indices, data, B, out)
    return out


cdef inline double _softmax_row(double* z, double* P, Py_ssize_t K, Py_ssize_t y, double w) noexcept nogil:
    """One row of softmax_loss: P = softmax(z), z <- w (P - onehot(y)); returns w (lse - z_y)."""
    cdef Py_ssize_t c
    cdef double m = z[0], s = 0.0, e, lse, p, loss
    for c in range(1, K):
        if z[c] > m:
            m = z[c]
    for c in range(K):
        e = exp(z[c] - m)
        P[c] = e
        s += e
    lse = m + log(s)
    loss = w * (lse - z[y])
    for c in range(K):
        p = P[c] / s
        P[c] = p
        z[c] = w * p
    z[y] -= w
    return loss


cdef inline double _softmax_rows(double* Z, double* P, Py_ssize_t K, const int64_t* codes,
                                 const double* weights, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t i
    for i in range(lo, hi):
        total += _softmax_row(Z + i * K, P + i * K, K, codes[i], weights[i])
    return total


def softmax_loss(double[:, ::1] Z, const int64_t[::1] codes, const double[::1] weights, double[:, ::1] P):
    """Multinomial log-loss (chapter 002 eqs. 27-28 in the symmetric form of CORRECTNESS.md).

    Z holds the scores x_i W^T + b (n x K). Writes P = softmax(Z) and, in place of Z, the
    per-row gradient factor w_i (P_i - onehot(y_i)); returns sum_i w_i (logsumexp(Z_i) - Z_iy).
    """
    cdef Py_ssize_t n = Z.shape[0], K = Z.shape[1], t, lo, hi
    cdef int T = _threads()
    if P.shape[0] != n or P.shape[1] != K or codes.shape[0] != n or weights.shape[0] != n:
        raise ValueError("softmax_loss: the shapes of Z, codes, weights and P do not agree")
    part_a = np.zeros(T)
    cdef double[::1] part = part_a
    if n > 0 and K > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = _span(n, T, t, &hi)
                part[t] = _softmax_rows(&Z[0, 0], &P[0, 0], K, &codes[0], &weights[0], lo, hi)
    return _merge(part)


cdef inline void _hess_row(double* R, const double* P, Py_ssize_t K, double w) noexcept nogil:
    cdef Py_ssize_t c
    cdef double s = 0.0
    for c in range(K):
        s += P[c] * R[c]
    for c in range(K):
        R[c] = w * P[c] * (R[c] - s)


def softmax_hess_factor(R, const double[:, ::1] P, const double[::1] weights):
    """In place: R_i <- w_i P_i * (R_i - <P_i, R_i>), the row factor of a Hessian-vector product."""
    cdef double[:, ::1] Rv = R
    cdef Py_ssize_t n = Rv.shape[0], K = Rv.shape[1], i
    if P.shape[0] != n or P.shape[1] != K or weights.shape[0] != n:
        raise ValueError("softmax_hess_factor: the shapes of R, P and weights do not agree")
    if n > 0 and K > 0:
        with nogil:
            for i in prange(n, schedule="static"):
                _hess_row(&Rv[i, 0], &P[i, 0], K, weights[i])
    return R


cdef inline double _binary_rows(double* z, const double* y, const double* weights, double* d,
                                Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef Py_ssize_t i
    cdef double total = 0.0, zi, e, log1pexp, p, w
    for i in range(lo, hi):
        zi = z[i]
        if zi > 0:
            e = exp(-zi)
            log1pexp = zi + log1p(e)
            p = 1.0 / (1.0 + e)
        else:
            e = exp(zi)
            log1pexp = log1p(e)
            p = e / (1.0 + e)
        w = weights[i]
        total += w * (log1pexp - y[i] * zi)
        z[i] = w * (p - y[i])
        d[i] = w * p * (1.0 - p)
    return total


def binary_loss(double[::1] z, const double[::1] y, const double[::1] weights, double[::1] d):
    """Binary log-loss (chapter 002 eqs. 16-17 with the sign of P(Y=1|X) = sigma(z)).

    In place of z writes w_i (sigma(z_i) - y_i); d gets w_i sigma(z_i)(1 - sigma(z_i)) for
    Hessian-vector products. Returns sum_i w_i (log(1 + e^z_i) - y_i z_i), computed without
    overflow for any z.
    """
    cdef Py_ssize_t n = z.shape[0], t, lo, hi
    cdef int T = _threads()
    if y.shape[0] != n or weights.shape[0] != n or d.shape[0] != n:
        raise ValueError("binary_loss: z, y, weights and d must have one length")
    part_a = np.zeros(T)
    cdef double[::1] part = part_a
    if n > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = _span(n, T, t, &hi)
                part[t] = _binary_rows(&z[0], &y[0], &weights[0], &d[0], lo, hi)
    return _merge(part)


# ---------------------------------------------------------------------------- scaled presence
def _presence_dot(const int64_t[::1] indptr, const index_t[::1] indices, const real_t[:, ::1] B,
                  double[:, ::1] out):
    cdef Py_ssize_t n = indptr.shape[0] - 1, K = B.shape[1], t, lo, hi
    cdef int T = _threads()
    cdef const index_t* ind = &indices[0] if indices.shape[0] else NULL
    cdef const real_t* b = &B[0, 0] if B.shape[0] and K else NULL
    if n <= 0 or K == 0:
        return
    with nogil:
        for t in prange(T, schedule="static", num_threads=T):
            lo = _span(n, T, t, &hi)
            _presence_rows(&indptr[0], ind, b, K, &out[0, 0], lo, hi)


def presence_dot(indptr, indices, B, out):
    """out = P @ B for the 0/1 matrix P in CSR form (n x d) and B (d x K) (B may be single
    precision: the sums are float64, as out is)."""
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    if out.shape != (len(indptr) - 1, B.shape[1]):
        raise ValueError(f"presence_dot: out has shape {out.shape}, expected {(len(indptr) - 1, B.shape[1])}")
    _presence_dot(indptr, _index(indices), B, out)
    return out


cdef inline double _tdot_blocks(const int64_t* tindptr, const index_t* tindices, const double* G,
                                const double* s, double lam, const double* V, double* out, Py_ssize_t K,
                                const int64_t* blocks, Py_ssize_t b0, Py_ssize_t b1) noexcept nogil:
    """presence_tdot over the column blocks b0..b1-1; returns the sum of their sums of out * V."""
    cdef Py_ssize_t b, j, c, p
    cdef double total = 0.0, sub, sj, acc, v
    for b in range(b0, b1):
        sub = 0.0
        for j in range(blocks[b], blocks[b + 1]):
            sj = s[j]
            for c in range(K):
                acc = 0.0
                for p in range(tindptr[j], tindptr[j + 1]):
                    acc += G[tindices[p] * K + c]
                v = sj * acc
                if lam != 0.0:
                    v += lam * V[j * K + c]
                    sub += v * V[j * K + c]
                out[j * K + c] = v
        total += sub
    return total


def _presence_tdot(const int64_t[::1] tindptr, const index_t[::1] tindices, const double[:, ::1] G,
                   const double[::1] s, double lam, const double[:, ::1] V, double[:, ::1] out,
                   const int64_t[::1] blocks):
    cdef Py_ssize_t nb = blocks.shape[0] - 1, K = G.shape[1], t, lo, hi
    cdef int T = _threads()
    cdef const index_t* ind = &tindices[0] if tindices.shape[0] else NULL
    cdef const double* g = &G[0, 0] if G.shape[0] and K else NULL
    cdef const double* v = &V[0, 0] if V.shape[0] and V.shape[1] else NULL
    cdef double* o = &out[0, 0] if out.shape[0] and K else NULL
    part_a = np.zeros(T)
    cdef double[::1] part = part_a
    if nb > 0 and K > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = _span(nb, T, t, &hi)
                part[t] = _tdot_blocks(&tindptr[0], ind, g, &s[0] if s.shape[0] else NULL, lam, v, o, K,
                                       &blocks[0], lo, hi)
    return _merge(part)


def presence_tdot(tindptr, tindices, G, s, lam, V, out, blocks):
    """out = diag(s) P^T G + lam V for P^T in CSR form (tindptr, tindices: P's transpose stored
    row-major, d x n), G (n x K), V (d x K; unread when lam is 0, and may then be out itself).
    Returns sum(out * V), the curvature d'Hd of a Hessian-vector product when V is the
    direction. The threads take the column ranges ``blocks[b]..blocks[b + 1]`` (of about equal
    entries: with the columns ordered by frequency, equal column counts would leave one thread
    most of the work)."""
    tindptr = np.ascontiguousarray(tindptr, dtype=np.int64)
    blocks = np.ascontiguousarray(blocks, dtype=np.int64)
    d, K = len(tindptr) - 1, G.shape[1]
    if out.shape != (d, K) or V.shape != (d, K) or len(s) != d:
        raise ValueError(f"presence_tdot: out and V must be {(d, K)} and s of length {d}")
    if len(blocks) and (blocks[0] < 0 or blocks[-1] > d or np.any(np.diff(blocks) < 0)):
        raise ValueError("presence_tdot: blocks must be non-decreasing column boundaries in 0..d")
    return _presence_tdot(tindptr, _index(tindices), G, s, float(lam), V, out, blocks)


def _scale_rows(const double[:, ::1] V, const double[::1] s, real_t[:, ::1] out):
    cdef Py_ssize_t n = V.shape[0], K = V.shape[1], t, lo, hi
    cdef int T = _threads()
    if n == 0 or K == 0:
        return
    with nogil:
        for t in prange(T, schedule="static", num_threads=T):
            lo = _span(n, T, t, &hi)
            if real_t is float:
                scale_rows_f32(&V[0, 0], &s[0], K, &out[0, 0], lo, hi)
            else:
                scale_rows_f64(&V[0, 0], &s[0], K, &out[0, 0], lo, hi)


def scale_rows(V, s, out):
    """out[j, c] = s[j] V[j, c], in out's precision."""
    if out.shape != V.shape or len(s) != V.shape[0]:
        raise ValueError("scale_rows: out must have V's shape and s one value per row")
    _scale_rows(V, s, out)
    return out


def _transpose_pattern(const int64_t[::1] indptr, const index_t[::1] indices, Py_ssize_t n_cols, tindices_a):
    cdef Py_ssize_t n = indptr.shape[0] - 1, p, j, i
    tindptr_a = np.zeros(n_cols + 1, dtype=np.int64)
    cdef int64_t[::1] tindptr = tindptr_a
    cdef index_t[::1] tindices = tindices_a
    cdef int64_t nnz = indptr[n]
    with nogil:
        for p in range(nnz):
            tindptr[indices[p] + 1] += 1
        for j in range(n_cols):
            tindptr[j + 1] += tindptr[j]
    fill_a = tindptr_a[:-1].copy()
    cdef int64_t[::1] fill = fill_a
    with nogil:
        for i in range(n):
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                tindices[fill[j]] = <index_t>i
                fill[j] += 1
    return tindptr_a, tindices_a


def transpose_pattern(indptr, indices, n_cols):
    """The CSR pattern (indptr, indices) of P^T for the n x n_cols pattern of P: a counting
    sort by column, rows in increasing order within each column. The transpose's indices have
    P's index dtype, its indptr is int64."""
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    kind = np.asarray(indices).dtype
    ind = _index(indices)
    n, nnz = len(indptr) - 1, int(indptr[-1]) if len(indptr) else 0
    if n < 0 or len(ind) < nnz or (nnz and (int(ind[:nnz].min()) < 0 or int(ind[:nnz].max()) >= n_cols)):
        raise ValueError("transpose_pattern: the indices must lie in 0..n_cols - 1")
    tindptr, tindices = _transpose_pattern(indptr, ind, n_cols, np.empty(nnz, dtype=ind.dtype))
    return tindptr, tindices if tindices.dtype == kind else tindices.astype(kind)


def _frequency_order(const index_t[::1] indices, Py_ssize_t n_cols):
    cdef Py_ssize_t p, j, k = 0, q, b
    cdef int64_t top = 0
    df_a = np.zeros(n_cols, dtype=np.int64)
    seen_a = np.empty(n_cols, dtype=np.int64)
    new_a = np.empty(n_cols, dtype=np.int64)
    cdef int64_t[::1] df = df_a, seen = seen_a, new = new_a
    with nogil:
        for p in range(indices.shape[0]):
            j = indices[p]
            if df[j] == 0:
                seen[k] = j
                k += 1
            df[j] += 1
        for j in range(n_cols):
            if df[j] == 0:
                seen[k] = j
                k += 1
        for j in range(n_cols):
            if df[j] > top:
                top = df[j]
    at_a = np.zeros(top + 2, dtype=np.int64)
    cdef int64_t[::1] at = at_a
    with nogil:
        for j in range(n_cols):
            at[top - df[j] + 1] += 1
        for b in range(top + 1):
            at[b + 1] += at[b]
        for q in range(n_cols):
            j = seen[q]
            b = top - df[j]
            new[j] = at[b]
            at[b] += 1
    return new_a


def frequency_order(indices, n_cols):
    """A renumbering of the columns of a 0/1 pattern: new[j] is column j's place in the order
    of decreasing frequency, ties (most of the rare terms) in order of first appearance."""
    ind = _index(indices)
    if len(ind) and (int(ind.min()) < 0 or int(ind.max()) >= n_cols):
        raise ValueError("frequency_order: the indices must lie in 0..n_cols - 1")
    return _frequency_order(ind, n_cols)


# ---------------------------------------------------------------------------- CG vector steps
cdef inline double _axpy_mnorm(double* s, double alpha, const double* d, const double* M,
                               Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef double total = 0.0, v
    cdef Py_ssize_t j
    for j in range(lo, hi):
        v = s[j] + alpha * d[j]
        s[j] = v
        total += v * M[j] * v
    return total


def axpy_mnorm(double[::1] s, double alpha, const double[::1] d, const double[::1] M):
    """s += alpha d; return s' diag(M) s."""
    cdef Py_ssize_t n = s.shape[0], t, lo, hi
    cdef int T = _threads()
    if d.shape[0] != n or M.shape[0] != n:
        raise ValueError("axpy_mnorm: s, d and M must have one length")
    part_a = np.zeros(T)
    cdef double[::1] part = part_a
    if n > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = _span(n, T, t, &hi)
                part[t] = _axpy_mnorm(&s[0], alpha, &d[0], &M[0], lo, hi)
    return _merge(part)


cdef inline void _residual_step(double* r, double alpha, const double* Hd, const double* M, double* z,
                                Py_ssize_t lo, Py_ssize_t hi, double* rz_out, double* rr_out) noexcept nogil:
    cdef double rz = 0.0, rr = 0.0, v, zj
    cdef Py_ssize_t j
    for j in range(lo, hi):
        v = r[j] - alpha * Hd[j]
        r[j] = v
        zj = v / M[j]
        z[j] = zj
        rz += v * zj
        rr += v * v
    rz_out[0] = rz
    rr_out[0] = rr


def residual_step(double[::1] r, double alpha, const double[::1] Hd, const double[::1] M, double[::1] z):
    """r -= alpha Hd; z = r / M; return (r'z, r'r)."""
    cdef Py_ssize_t n = r.shape[0], t, lo, hi
    cdef int T = _threads()
    if Hd.shape[0] != n or M.shape[0] != n or z.shape[0] != n:
        raise ValueError("residual_step: r, Hd, M and z must have one length")
    rz_a, rr_a = np.zeros(T), np.zeros(T)
    cdef double[::1] rz = rz_a, rr = rr_a
    if n > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = _span(n, T, t, &hi)
                _residual_step(&r[0], alpha, &Hd[0], &M[0], &z[0], lo, hi, &rz[t], &rr[t])
    return _merge(rz), _merge(rr)


def direction_step(d, const double[::1] z, double beta):
    """d = z + beta d."""
    cdef double[::1] dv = d
    cdef Py_ssize_t n = dv.shape[0], j
    if z.shape[0] != n:
        raise ValueError("direction_step: d and z must have one length")
    with nogil:
        for j in prange(n, schedule="static"):
            dv[j] = z[j] + beta * dv[j]
    return d


cdef inline void _mdots(const double* s, const double* dv, const double* M, Py_ssize_t lo, Py_ssize_t hi,
                        double* sd_out, double* ss_out, double* dd_out) noexcept nogil:
    cdef double sd = 0.0, ss = 0.0, dd = 0.0, m
    cdef Py_ssize_t j
    for j in range(lo, hi):
        m = M[j]
        sd += s[j] * m * dv[j]
        ss += s[j] * m * s[j]
        dd += dv[j] * m * dv[j]
    sd_out[0] = sd
    ss_out[0] = ss
    dd_out[0] = dd


def mdots(const double[::1] s, const double[::1] d, const double[::1] M):
    """(s'Md, s'Ms, d'Md) for a diagonal M."""
    cdef Py_ssize_t n = s.shape[0], t, lo, hi
    cdef int T = _threads()
    if d.shape[0] != n or M.shape[0] != n:
        raise ValueError("mdots: s, d and M must have one length")
    sd_a, ss_a, dd_a = np.zeros(T), np.zeros(T), np.zeros(T)
    cdef double[::1] sd = sd_a, ss = ss_a, dd = dd_a
    if n > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = _span(n, T, t, &hi)
                _mdots(&s[0], &d[0], &M[0], lo, hi, &sd[t], &ss[t], &dd[t])
    return _merge(sd), _merge(ss), _merge(dd)


cdef inline double _vdot(const double* a, const double* b, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t j
    for j in range(lo, hi):
        total += a[j] * b[j]
    return total


def vdot(const double[::1] a, const double[::1] b):
    """a'b. Not NumPy's: its BLAS threads keep spinning after the call and take the cores
    from the kernels that follow (measured: every kernel of a CG step 2-3x slower)."""
    cdef Py_ssize_t n = a.shape[0], t, lo, hi
    cdef int T = _threads()
    if b.shape[0] != n:
        raise ValueError("vdot: a and b must have one length")
    part_a = np.zeros(T)
    cdef double[::1] part = part_a
    if n > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = _span(n, T, t, &hi)
                part[t] = _vdot(&a[0], &b[0], lo, hi)
    return _merge(part)


def add_scaled(out, double lam, const double[::1] V):
    """out += lam V (flat views)."""
    cdef double[::1] ov = out
    cdef Py_ssize_t n = ov.shape[0], j
    if V.shape[0] != n:
        raise ValueError("add_scaled: out and V must have one length")
    with nogil:
        for j in prange(n, schedule="static"):
            ov[j] += lam * V[j]
    return out


def to_float32(const double[::1] src, dst):
    """dst = src rounded to single precision."""
    cdef float[::1] dv = dst
    cdef Py_ssize_t n = src.shape[0], j
    if dv.shape[0] != n:
        raise ValueError("to_float32: src and dst must have one length")
    with nogil:
        for j in prange(n, schedule="static"):
            dv[j] = <float>src[j]
    return dst


def add_from32(out, const float[::1] src32, double lam, const double[::1] V):
    """out = src32 + lam V (flat views), back in float64."""
    cdef double[::1] ov = out
    cdef Py_ssize_t n = ov.shape[0], j
    if src32.shape[0] != n or V.shape[0] != n:
        raise ValueError("add_from32: out, src32 and V must have one length")
    with nogil:
        for j in prange(n, schedule="static"):
            ov[j] = src32[j] + lam * V[j]
    return out
