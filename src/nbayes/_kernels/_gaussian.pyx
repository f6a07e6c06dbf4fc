# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Gaussian kernels: per-class moments in one pass over X, and joint log-likelihoods
(compiled; twins in gaussian.py).

Both split the rows into T explicit ranges of ``ceil(n / T)`` rows, one per thread, and merge
the threads' results in thread order: the numbers depend on T (as they always did), never on
the scheduling. ``moments`` follows IEEE arithmetic to the letter (no reassociation: model files
keep their bytes); ``joint_log_likelihood``'s sum over features may be reassociated (built with
``-fassociative-math``, see meson.build), so that it vectorises.
"""

import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int64_t

#: rows per block: a block of X stays in cache between its two passes
cdef enum:
    BLOCK = 512


cdef extern from "_simd.h":
    pass

cdef extern from *:
    """
    #include <math.h>

    /* Joint log-likelihoods of rows lo..hi-1 of X (n x d, C order) into out (n x K): per class
       c, intercept[c] + sum over observed j of lognorm[c, j] - prec[c, j] (x_j - mu[c, j])^2.
       A row without NaN takes base[c] (intercept[c] + sum_j lognorm[c, j]) minus the weighted
       squares; a NaN among them sends the row to the sum over its observed terms. The sums
       over features are vectorised (NBAYES_SIMD_SUM: numba's fastmath reassociated them too).
       Returns the first row whose log-likelihood is -inf or NaN for some class while one of its
       values is infinite, or -1. */
    static NBAYES_CLONES Py_ssize_t nbayes_gaussian_rows(
            const double* X, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t d, Py_ssize_t K,
            const double* mu, const double* prec, const double* lognorm,
            const double* intercept, const double* base, double* out) {
        Py_ssize_t bad = -1;
        for (Py_ssize_t i = lo; i < hi; i++) {
            const double* x = X + i * d;
            double* o = out + i * K;
            /* a NaN (or an inf) in the row: the masked sum for every class */
            double probe = 0.0;
            NBAYES_SIMD_SUM(probe)
            for (Py_ssize_t j = 0; j < d; j++)
                probe += x[j] - x[j];
            int missing = probe != probe;
            for (Py_ssize_t c = 0; c < K; c++) {
                const double* m = mu + c * d;
                const double* p = prec + c * d;
                double acc;
                if (!missing) {
                    acc = 0.0;
                    NBAYES_SIMD_SUM(acc)
                    for (Py_ssize_t j = 0; j < d; j++) {
                        double dl = x[j] - m[j];
                        acc += p[j] * dl * dl;
                    }
                    if (acc == acc) {
                        o[c] = base[c] - acc;
                        continue;
                    }
                    missing = 1;
                }
                /* a NaN entry (missing), or an invalid parameter: the observed terms only */
                const double* ln = lognorm + c * d;
                acc = 0.0;
                NBAYES_SIMD_SUM(acc)
                for (Py_ssize_t j = 0; j < d; j++) {
                    double dl = x[j] - m[j];
                    double term = ln[j] - p[j] * dl * dl;
                    acc += (x[j] == x[j]) ? term : 0.0;
                }
                o[c] = intercept[c] + acc;
            }
            if (bad < 0) {
                for (Py_ssize_t c = 0; c < K; c++) {
                    if (!(o[c] > -INFINITY)) {  /* -inf or NaN: look for an infinite input */
                        for (Py_ssize_t j = 0; j < d; j++)
                            if (isinf(x[j]))
                                bad = i;
                        break;
                    }
                }
            }
        }
        return bad;
    }

    /* moments' first pass over rows b0..b1-1 of a block: per class c, bw (the weight) and bm
       (the weighted sum) of the finite entries of its rows, CC[c] += the row weights. Returns
       the first row holding +-inf, or -1. Element-wise sums in row order (vectorised across
       features, which changes no bit), and a count of infinities (exact in any order). */
    static NBAYES_CLONES Py_ssize_t nbayes_block_sums(
            const double* X, Py_ssize_t d, const Py_ssize_t* y, const double* w, int has_w,
            Py_ssize_t b0, Py_ssize_t b1, double* CC, double* bw, double* bm) {
        Py_ssize_t bad = -1;
        for (Py_ssize_t i = b0; i < b1; i++) {
            Py_ssize_t c = y[i];
            double wi = has_w ? w[i] : 1.0;
            CC[c] += wi;
            const double* row = X + i * d;
            double* wrow = bw + c * d;
            double* mrow = bm + c * d;
            double infs = 0.0;
            NBAYES_SIMD_SUM(infs)
            for (Py_ssize_t j = 0; j < d; j++) {
                double x = row[j];
                int ok = x - x == 0.0;  /* finite */
                double wv = ok ? wi : 0.0;
                wrow[j] += wv;
                mrow[j] += wv * (ok ? x : 0.0);
                infs += (!ok && x == x) ? 1.0 : 0.0;
            }
            if (infs > 0.0 && bad < 0)
                bad = i;
        }
        return bad;
    }

    /* moments' second pass: bq (per class) += w (x - mean)^2 over the finite entries */
    static NBAYES_CLONES void nbayes_block_squares(
            const double* X, Py_ssize_t d, const Py_ssize_t* y, const double* w, int has_w,
            Py_ssize_t b0, Py_ssize_t b1, const double* bm, double* bq) {
        for (Py_ssize_t i = b0; i < b1; i++) {
            Py_ssize_t c = y[i];
            double wi = has_w ? w[i] : 1.0;
            const double* row = X + i * d;
            const double* mrow = bm + c * d;
            double* qrow = bq + c * d;
            NBAYES_SIMD
            for (Py_ssize_t j = 0; j < d; j++) {
                double x = row[j];
                double dl = x - mrow[j];
                qrow[j] += (x - x == 0.0) ? (wi * dl * dl) : 0.0;
            }
        }
    }
    """
    Py_ssize_t _block_sums "nbayes_block_sums" (
        const double* X, Py_ssize_t d, const Py_ssize_t* y, const double* w, int has_w,
        Py_ssize_t b0, Py_ssize_t b1, double* CC, double* bw, double* bm) noexcept nogil
    void _block_squares "nbayes_block_squares" (
        const double* X, Py_ssize_t d, const Py_ssize_t* y, const double* w, int has_w,
        Py_ssize_t b0, Py_ssize_t b1, const double* bm, double* bq) noexcept nogil
    Py_ssize_t _gaussian_rows "nbayes_gaussian_rows" (
        const double* X, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t d, Py_ssize_t K,
        const double* mu, const double* prec, const double* lognorm,
        const double* intercept, const double* base, double* out) noexcept nogil


def _moments(const double[:, ::1] X, const Py_ssize_t[::1] y, const double[::1] w, bint has_w,
             Py_ssize_t K, int T):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1]
    cdef Py_ssize_t per = (n + T - 1) // T
    W_a = np.zeros((T, K, d))
    M_a = np.zeros((T, K, d))
    S_a = np.zeros((T, K, d))
    CC_a = np.zeros((T, K))
    bad_a = np.full(T, -1, dtype=np.int64)
    # per-thread scratch: one block's weights, sums (then means) and sums of squares
    bw_a = np.empty((T, K, d))
    bm_a = np.empty((T, K, d))
    bq_a = np.empty((T, K, d))
    cdef double[:, :, ::1] W = W_a, M = M_a, S = S_a, bw = bw_a, bm = bm_a, bq = bq_a
    cdef double[:, ::1] CC = CC_a
    cdef int64_t[::1] bad = bad_a
    cdef Py_ssize_t t, lo, hi, b0, b1, i, c, j, kd = K * d
    cdef double wa, wb, wt, dl
    cdef double *pw
    cdef double *pm
    cdef double *pq
    cdef double *tw
    cdef double *tm
    cdef double *ts
    cdef const double* wp = &w[0] if has_w else NULL
    if n > 0 and d > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = t * per
                hi = min(n, lo + per)
                pw = &bw[t, 0, 0]
                pm = &bm[t, 0, 0]
                pq = &bq[t, 0, 0]
                tw = &W[t, 0, 0]
                tm = &M[t, 0, 0]
                ts = &S[t, 0, 0]
                b0 = lo
                while b0 < hi:
                    b1 = min(b0 + BLOCK, hi)
                    for j in range(kd):
                        pw[j] = 0.0
                        pm[j] = 0.0
                        pq[j] = 0.0
                    i = _block_sums(&X[0, 0], d, &y[0], wp, has_w, b0, b1, &CC[t, 0], pw, pm)
                    if i >= 0 and bad[t] < 0:
                        bad[t] = i
                    for j in range(kd):
                        if pw[j] > 0.0:
                            pm[j] /= pw[j]
                    _block_squares(&X[0, 0], d, &y[0], wp, has_w, b0, b1, pm, pq)
                    for j in range(kd):
                        wb = pw[j]
                        if wb > 0.0:
                            wa = tw[j]
                            wt = wa + wb
                            dl = pm[j] - tm[j]
                            tm[j] += dl * (wb / wt)
                            ts[j] += pq[j] + dl * dl * (wa * (wb / wt))
                            tw[j] = wt
                    b0 = b1
    elif n > 0:  # no features: the class weights only
        for t in range(T):
            for i in range(t * per, min(n, (t + 1) * per)):
                CC[t, y[i]] += w[i] if has_w else 1.0
    cc_a = np.zeros(K)
    wt_a = np.zeros((K, d))
    mu_a = np.zeros((K, d))
    m2_a = np.zeros((K, d))
    cdef double[::1] cc = cc_a
    cdef double[:, ::1] wt_ = wt_a, mu = mu_a, m2 = m2_a
    cdef int64_t first_bad = -1
    cdef double tot
    for t in range(T):
        if bad[t] >= 0 and (first_bad < 0 or bad[t] < first_bad):
            first_bad = bad[t]
        for c in range(K):
            cc[c] += CC[t, c]
            for j in range(d):
                wb = W[t, c, j]
                if wb > 0.0:
                    wa = wt_[c, j]
                    tot = wa + wb
                    dl = M[t, c, j] - mu[c, j]
                    mu[c, j] += dl * (wb / tot)
                    m2[c, j] += S[t, c, j] + dl * dl * (wa * (wb / tot))
                    wt_[c, j] = tot
    return cc_a, wt_a, mu_a, m2_a, first_bad


def moments(X, y, w, has_w, K, T):
    """Weighted per-(class, feature) weight, mean and centred sum of squares, NaN skipped.

    One pass over memory: each block of rows is summed, then centred on its own class means
    while still in cache, and merged into per-thread totals by the Chan-Golub-LeVeque update.
    ``y`` holds class indices in 0..K-1, ``w`` the row weights (read when ``has_w``), ``T`` the
    number of threads (and of row ranges). Returns (class_count, weight, mean, m2, first row
    holding +-inf or -1).
    """
    if T < 1:
        raise ValueError(f"T must be at least 1, got {T}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got {X.ndim}-D")
    y = np.ascontiguousarray(y, dtype=np.intp)
    w = np.ascontiguousarray(w, dtype=np.float64) if has_w else np.empty(0)
    if len(y) != X.shape[0] or (has_w and len(w) != X.shape[0]):
        raise ValueError("X, y and w must have as many rows")
    return _moments(X, y, w, has_w, K, T)


def _joint_log_likelihood(const double[:, ::1] X, const double[:, ::1] mu, const double[:, ::1] prec,
                          const double[:, ::1] lognorm, const double[::1] intercept, int T):
    cdef Py_ssize_t n = X.shape[0], d = X.shape[1], K = mu.shape[0]
    cdef Py_ssize_t per = (n + T - 1) // T
    out_a = np.empty((n, K))
    bad_a = np.full(T, -1, dtype=np.int64)
    base_a = np.empty(K)
    cdef double[:, ::1] out = out_a
    cdef int64_t[::1] bad = bad_a
    cdef double[::1] base = base_a
    cdef Py_ssize_t t, c, j, lo, hi
    cdef double v
    if d == 0 or K == 0:  # nothing observed: the intercepts
        out_a[:] = intercept
        return out_a, -1
    for c in range(K):
        v = intercept[c]
        for j in range(d):
            v += lognorm[c, j]
        base[c] = v
    if n > 0:
        with nogil:
            for t in prange(T, schedule="static", num_threads=T):
                lo = t * per
                hi = min(n, lo + per)
                if lo < hi:
                    bad[t] = _gaussian_rows(&X[0, 0], lo, hi, d, K, &mu[0, 0], &prec[0, 0], &lognorm[0, 0],
                                            &intercept[0], &base[0], &out[0, 0])
    cdef int64_t first_bad = -1
    for t in range(T):
        if bad[t] >= 0 and (first_bad < 0 or bad[t] < first_bad):
            first_bad = bad[t]
    return out_a, first_bad


def joint_log_likelihood(X, mu, prec, lognorm, intercept, T):
    """out[i, c] = intercept[c] + sum over observed j of lognorm[c, j] - prec[c, j] (x_ij - mu_cj)^2.

    (x - mu)^2 is formed directly, never expanded into GEMM products (CORRECTNESS.md: the
    expansion loses about 12 of 16 digits when |x - mu| is 1e6 sigma). NaN entries are skipped
    (the exact marginal). Returns (out, first row holding +-inf or -1).
    """
    if T < 1:
        raise ValueError(f"T must be at least 1, got {T}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    mu, prec, lognorm = (np.ascontiguousarray(a, dtype=np.float64) for a in (mu, prec, lognorm))
    intercept = np.ascontiguousarray(intercept, dtype=np.float64)
    K, d = mu.shape
    if X.ndim != 2 or X.shape[1] != d or prec.shape != (K, d) or lognorm.shape != (K, d) or intercept.shape != (K,):
        raise ValueError("joint_log_likelihood: the shapes of X, mu, prec, lognorm and intercept do not agree")
    return _joint_log_likelihood(X, mu, prec, lognorm, intercept, T)
