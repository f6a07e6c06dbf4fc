"""Gaussian kernels: per-class moments in one pass over X, and joint log-likelihoods."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

BLOCK = 512  # rows per block: a block of X stays in cache between its two passes


@njit(parallel=True, cache=True, nogil=True)
def moments(X, y, w, has_w, K, T):  # pragma: no cover - compiled
    """Weighted per-(class, feature) weight, mean and centred sum of squares, NaN skipped.

    One pass over memory: each block of rows is summed, then centred on its own class means
    while still in cache, and merged into per-thread totals by the Chan-Golub-LeVeque update.
    Returns (class_count, weight, mean, m2, first row holding +-inf or -1).
    """
    n, d = X.shape
    per = (n + T - 1) // T
    W = np.zeros((T, K, d))
    M = np.zeros((T, K, d))
    S = np.zeros((T, K, d))
    CC = np.zeros((T, K))
    bad = np.full(T, -1, dtype=np.int64)
    for t in prange(T):
        lo = t * per
        hi = min(n, lo + per)
        bw = np.empty((K, d))
        bm = np.empty((K, d))
        bq = np.empty((K, d))
        for b0 in range(lo, hi, BLOCK):
            b1 = min(b0 + BLOCK, hi)
            bw[:] = 0.0
            bm[:] = 0.0
            bq[:] = 0.0
            for i in range(b0, b1):
                c = y[i]
                wi = w[i] if has_w else 1.0
                CC[t, c] += wi
                row = X[i]
                wrow = bw[c]
                mrow = bm[c]
                inf = False
                for j in range(d):  # branch-free, so that it vectorises
                    x = row[j]
                    ok = x - x == 0.0  # finite
                    wv = wi if ok else 0.0
                    wrow[j] += wv
                    mrow[j] += wv * (x if ok else 0.0)
                    inf |= (not ok) and (x == x)
                if inf and bad[t] < 0:
                    bad[t] = i
            for c in range(K):
                for j in range(d):
                    if bw[c, j] > 0.0:
                        bm[c, j] /= bw[c, j]
            for i in range(b0, b1):
                c = y[i]
                wi = w[i] if has_w else 1.0
                row = X[i]
                mrow = bm[c]
                qrow = bq[c]
                for j in range(d):
                    x = row[j]
                    dl = x - mrow[j]
                    qrow[j] += (wi * dl * dl) if x - x == 0.0 else 0.0
            for c in range(K):
                for j in range(d):
                    wb = bw[c, j]
                    if wb > 0.0:
                        wa = W[t, c, j]
                        wt = wa + wb
                        dl = bm[c, j] - M[t, c, j]
                        M[t, c, j] += dl * (wb / wt)
                        S[t, c, j] += bq[c, j] + dl * dl * (wa * (wb / wt))
                        W[t, c, j] = wt
    cc = np.zeros(K)
    wt_ = np.zeros((K, d))
    mu = np.zeros((K, d))
    m2 = np.zeros((K, d))
    first_bad = -1
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
    return cc, wt_, mu, m2, first_bad


def moments_numpy(X, y, w, K):
    """Twin of :func:`moments` in plain NumPy (two passes), for tests."""
    d = X.shape[1]
    w = np.ones(X.shape[0]) if w is None else w
    cc, W, mu, m2 = np.zeros(K), np.zeros((K, d)), np.zeros((K, d)), np.zeros((K, d))
    for c in range(K):
        rows = y == c
        Xc, wc = X[rows], w[rows]
        cc[c] = wc.sum()
        obs = ~np.isnan(Xc)
        wo = np.where(obs, wc[:, None], 0.0)
        W[c] = wo.sum(axis=0)
        safe = np.where(W[c] > 0, W[c], 1.0)
        mu[c] = np.where(obs, Xc, 0.0).T @ wc / safe
        m2[c] = (wo * np.where(obs, Xc - mu[c], 0.0) ** 2).sum(axis=0)
    return cc, W, mu, m2


#: reassociation lets LLVM vectorise the sum over features; no 'nnan'/'ninf', so the NaN test
#: that skips missing entries keeps its meaning
_FAST = {"reassoc", "contract", "nsz", "arcp"}


@njit(parallel=True, cache=True, nogil=True, fastmath=_FAST)
def joint_log_likelihood(X, mu, prec, lognorm, intercept, T):  # pragma: no cover - compiled
    """out[i, c] = intercept[c] + sum over observed j of lognorm[c, j] - prec[c, j] (x_ij - mu_cj)^2.

    (x - mu)^2 is formed directly, never expanded into GEMM products (CORRECTNESS.md: the
    expansion loses about 12 of 16 digits when |x - mu| is 1e6 sigma). NaN entries are skipped
    (the exact marginal). Returns (out, first row holding +-inf or -1).
    """
    n, d = X.shape
    K = mu.shape[0]
    out = np.empty((n, K))
    bad = np.full(T, -1, dtype=np.int64)
    per = (n + T - 1) // T
    for t in prange(T):
        lo = t * per
        hi = min(n, lo + per)
        for i in range(lo, hi):
            xi = X[i]
            for c in range(K):
                s = intercept[c]
                m = mu[c]
                p = prec[c]
                ln = lognorm[c]
                for j in range(d):
                    x = xi[j]
                    dl = x - m[j]
                    term = ln[j] - p[j] * dl * dl
                    s += term if x == x else 0.0
                out[i, c] = s
            if bad[t] < 0:
                for c in range(K):
                    if not (out[i, c] > -np.inf):  # -inf or NaN: look for an infinite input
                        for j in range(d):
                            if np.isinf(xi[j]):
                                bad[t] = i
                        break
    first_bad = -1
    for t in range(T):
        if bad[t] >= 0 and (first_bad < 0 or bad[t] < first_bad):
            first_bad = bad[t]
    return out, first_bad


def joint_log_likelihood_numpy(X, mu, prec, lognorm, intercept):
    """Twin of :func:`joint_log_likelihood`, for tests."""
    obs = ~np.isnan(X)[:, None, :]
    terms = lognorm[None] - prec[None] * (X[:, None, :] - mu[None]) ** 2
    return intercept[None] + np.where(obs, terms, 0.0).sum(axis=2)
