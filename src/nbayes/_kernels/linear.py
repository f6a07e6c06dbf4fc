"""Kernels of the linear models: sparse-times-dense products and the fused softmax loss.

A logistic regression's objective, gradient and Hessian-vector products are two products with
the data matrix each (``X W`` and ``X^T G``) plus a row-wise pass over the n x K scores. SciPy's
sparse product runs on one core; these split the rows over the machine's cores. ``X^T G`` is
computed as ``XT @ G`` with ``XT`` the transpose stored row-major once per fit, so both products
are the same row-parallel kernel with no write conflicts.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True, nogil=True)
def csr_dense(indptr, indices, data, B, out):  # pragma: no cover - compiled
    """out = A @ B for A in CSR form (n x d) and a C-ordered B (d x K); out is (n x K)."""
    n = indptr.shape[0] - 1
    K = B.shape[1]
    for i in prange(n):
        for c in range(K):
            out[i, c] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            v = data[p]
            j = indices[p]
            for c in range(K):
                out[i, c] += v * B[j, c]
    return out


@njit(parallel=True, cache=True, nogil=True)
def softmax_loss(Z, codes, weights, P):  # pragma: no cover - compiled
    """Multinomial log-loss (chapter 002 eqs. 27-28 in the symmetric form of CORRECTNESS.md).

    Z holds the scores x_i W^T + b (n x K). Writes P = softmax(Z) and, in place of Z, the
    per-row gradient factor w_i (P_i - onehot(y_i)); returns sum_i w_i (logsumexp(Z_i) - Z_iy).
    """
    n, K = Z.shape
    total = np.zeros(n)
    for i in prange(n):
        m = Z[i, 0]
        for c in range(1, K):
            if Z[i, c] > m:
                m = Z[i, c]
        s = 0.0
        for c in range(K):
            e = np.exp(Z[i, c] - m)
            P[i, c] = e
            s += e
        lse = m + np.log(s)
        w = weights[i]
        y = codes[i]
        total[i] = w * (lse - Z[i, y])
        for c in range(K):
            p = P[i, c] / s
            P[i, c] = p
            Z[i, c] = w * p
        Z[i, y] -= w
    return total.sum()


@njit(parallel=True, cache=True, nogil=True)
def softmax_hess_factor(R, P, weights):  # pragma: no cover - compiled
    """In place: R_i <- w_i P_i * (R_i - <P_i, R_i>), the row factor of a Hessian-vector product."""
    n, K = R.shape
    for i in prange(n):
        s = 0.0
        for c in range(K):
            s += P[i, c] * R[i, c]
        w = weights[i]
        for c in range(K):
            R[i, c] = w * P[i, c] * (R[i, c] - s)
    return R


@njit(parallel=True, cache=True, nogil=True)
def binary_loss(z, y, weights, d):  # pragma: no cover - compiled
    """Binary log-loss (chapter 002 eqs. 16-17 with the sign of P(Y=1|X) = sigma(z)).

    In place of z writes w_i (sigma(z_i) - y_i); d gets w_i sigma(z_i)(1 - sigma(z_i)) for
    Hessian-vector products. Returns sum_i w_i (log(1 + e^z_i) - y_i z_i), computed without
    overflow for any z.
    """
    n = z.shape[0]
    total = np.zeros(n)
    for i in prange(n):
        zi = z[i]
        if zi > 0:
            e = np.exp(-zi)
            log1pexp = zi + np.log1p(e)
            p = 1.0 / (1.0 + e)
        else:
            e = np.exp(zi)
            log1pexp = np.log1p(e)
            p = e / (1.0 + e)
        w = weights[i]
        total[i] = w * (log1pexp - y[i] * zi)
        z[i] = w * (p - y[i])
        d[i] = w * p * (1.0 - p)
    return total.sum()


# ---------------------------------------------------------------------------- scaled presence
# The NB-weighted logistic regression's data (:mod:`nbayes.text.nblr`): X[i, j] = s[j] for the
# terms j present in document i, a 0/1 matrix P times diag(s). Its products need P's index
# arrays only: X B = P (s B) and X^T G = s (P^T G), a third of the memory traffic of a float64
# CSR product and no data array to build.
@njit(parallel=True, cache=True, nogil=True)
def presence_dot(indptr, indices, B, out):  # pragma: no cover - compiled
    """out = P @ B for the 0/1 matrix P in CSR form (n x d) and B (d x K) (B may be single
    precision: the sums are float64 when out is)."""
    n = indptr.shape[0] - 1
    K = B.shape[1]
    for i in prange(n):
        if K == 1:
            acc = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                acc += B[indices[p], 0]
            out[i, 0] = acc
            continue
        for c in range(K):
            out[i, c] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            for c in range(K):
                out[i, c] += B[j, c]
    return out


@njit(parallel=True, cache=True, nogil=True)
def presence_tdot(tindptr, tindices, G, s, lam, V, out, blocks):  # pragma: no cover - compiled
    """out = diag(s) P^T G + lam V for P^T in CSR form (tindptr, tindices: P's transpose stored
    row-major, d x n), G (n x K), V (d x K; unread when lam is 0). Returns sum(out * V), the
    curvature d'Hd of a Hessian-vector product when V is the direction. The threads take the
    column ranges ``blocks[b]..blocks[b + 1]`` (of about equal entries: with the columns
    ordered by frequency, equal column counts would leave one thread most of the work)."""
    K = G.shape[1]
    total = 0.0
    for b in prange(blocks.shape[0] - 1):
        sub = 0.0
        for j in range(blocks[b], blocks[b + 1]):
            sj = s[j]
            for c in range(K):
                acc = 0.0
                for p in range(tindptr[j], tindptr[j + 1]):
                    acc += G[tindices[p], c]
                v = sj * acc
                if lam != 0.0:
                    v += lam * V[j, c]
                    sub += v * V[j, c]
                out[j, c] = v
        total += sub
    return total


@njit(parallel=True, cache=True, nogil=True)
def scale_rows(V, s, out):  # pragma: no cover - compiled
    """out[j, c] = s[j] V[j, c], in out's precision."""
    for j in prange(V.shape[0]):
        for c in range(V.shape[1]):
            out[j, c] = s[j] * V[j, c]
    return out


def even_blocks(indptr: np.ndarray, parts: int) -> np.ndarray:
    """Row boundaries 0 = b_0 <= ... <= b_parts = n splitting a CSR matrix's rows into
    ``parts`` ranges of about equal entries (for the threads of a row-parallel kernel)."""
    n = len(indptr) - 1
    cuts = np.searchsorted(indptr, np.linspace(0, indptr[-1], parts + 1)[1:-1], side="left")
    return np.concatenate([[0], np.clip(cuts, 0, n), [n]]).astype(np.int64)


@njit(cache=True, nogil=True)
def transpose_pattern(indptr, indices, n_cols):  # pragma: no cover - compiled
    """The CSR pattern (indptr, indices) of P^T for the n x n_cols pattern of P: a counting
    sort by column, rows in increasing order within each column."""
    n = indptr.shape[0] - 1
    tindptr = np.zeros(n_cols + 1, dtype=np.int64)
    for p in range(indptr[n]):
        tindptr[indices[p] + 1] += 1
    for j in range(n_cols):
        tindptr[j + 1] += tindptr[j]
    fill = tindptr[:-1].copy()
    tindices = np.empty(indptr[n], dtype=indices.dtype)
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            tindices[fill[j]] = i
            fill[j] += 1
    return tindptr, tindices



@njit(cache=True, nogil=True)
def frequency_order(indices, n_cols):  # pragma: no cover - compiled
    """A renumbering of the columns of a 0/1 pattern: new[j] is column j's place in the order
    of decreasing frequency, ties (most of the rare terms) in order of first appearance."""
    df = np.zeros(n_cols, dtype=np.int64)
    seen = np.empty(n_cols, dtype=np.int64)
    k = 0
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
    top = 0
    for j in range(n_cols):
        top = max(top, df[j])
    at = np.zeros(top + 2, dtype=np.int64)
    for j in range(n_cols):
        at[top - df[j] + 1] += 1
    for b in range(top + 1):
        at[b + 1] += at[b]
    new = np.empty(n_cols, dtype=np.int64)
    for q in range(n_cols):
        j = seen[q]
        b = top - df[j]
        new[j] = at[b]
        at[b] += 1
    return new

# ---------------------------------------------------------------------------- NumPy twins
def csr_dense_numpy(indptr, indices, data, B, out):
    import scipy.sparse as sp

    A = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, B.shape[0]))
    out[:] = A @ B
    return out


def softmax_loss_numpy(Z, codes, weights, P):
    from scipy.special import logsumexp, softmax

    n = Z.shape[0]
    lse = logsumexp(Z, axis=1)
    total = float(np.sum(weights * (lse - Z[np.arange(n), codes])))
    P[:] = softmax(Z, axis=1)
    G = weights[:, None] * P
    G[np.arange(n), codes] -= weights
    Z[:] = G
    return total


def binary_loss_numpy(z, y, weights, d):
    from scipy.special import expit

    total = float(np.sum(weights * (np.logaddexp(0.0, z) - y * z)))
    p = expit(z)
    d[:] = weights * p * (1 - p)
    z[:] = weights * (p - y)
    return total


def _pattern(indptr, indices, n_cols):
    import scipy.sparse as sp

    ones = np.ones(len(indices))
    return sp.csr_matrix((ones, indices, indptr), shape=(len(indptr) - 1, n_cols))


def presence_dot_numpy(indptr, indices, B, out):
    out[:] = _pattern(indptr, indices, B.shape[0]) @ B.astype(out.dtype)
    return out


def presence_tdot_numpy(tindptr, tindices, G, s, lam, V, out, blocks):
    out[:] = s[:, None] * (_pattern(tindptr, tindices, G.shape[0]) @ G)
    if lam == 0.0:
        return 0.0
    out += lam * V
    return float(np.sum(out * V))


def scale_rows_numpy(V, s, out):
    out[:] = s[:, None] * V
    return out


# ---------------------------------------------------------------------------- CG vector steps
# Fused, in-place and parallel: on a 2.6-million-coefficient problem (20 Newsgroups, 20 classes)
# each NumPy temporary costs a fresh 21 MB allocation and its page faults.
@njit(parallel=True, cache=True, nogil=True)
def axpy_mnorm(s, alpha, d, M):  # pragma: no cover - compiled
    """s += alpha d; return s' diag(M) s."""
    total = 0.0
    for j in prange(s.shape[0]):
        v = s[j] + alpha * d[j]
        s[j] = v
        total += v * M[j] * v
    return total


@njit(parallel=True, cache=True, nogil=True)
def residual_step(r, alpha, Hd, M, z):  # pragma: no cover - compiled
    """r -= alpha Hd; z = r / M; return (r'z, r'r)."""
    rz = 0.0
    rr = 0.0
    for j in prange(r.shape[0]):
        v = r[j] - alpha * Hd[j]
        r[j] = v
        zj = v / M[j]
        z[j] = zj
        rz += v * zj
        rr += v * v
    return rz, rr


@njit(parallel=True, cache=True, nogil=True)
def direction_step(d, z, beta):  # pragma: no cover - compiled
    """d = z + beta d."""
    for j in prange(d.shape[0]):
        d[j] = z[j] + beta * d[j]
    return d


@njit(parallel=True, cache=True, nogil=True)
def mdots(s, d, M):  # pragma: no cover - compiled
    """(s'Md, s'Ms, d'Md) for a diagonal M."""
    sd = 0.0
    ss = 0.0
    dd = 0.0
    for j in prange(s.shape[0]):
        m = M[j]
        sd += s[j] * m * d[j]
        ss += s[j] * m * s[j]
        dd += d[j] * m * d[j]
    return sd, ss, dd


@njit(parallel=True, cache=True, nogil=True)
def vdot(a, b):  # pragma: no cover - compiled
    """a'b. Not NumPy's: its BLAS threads keep spinning after the call and take the cores
    from the kernels that follow (measured: every kernel of a CG step 2-3x slower)."""
    total = 0.0
    for j in prange(a.shape[0]):
        total += a[j] * b[j]
    return total


@njit(parallel=True, cache=True, nogil=True)
def add_scaled(out, lam, V):  # pragma: no cover - compiled
    """out += lam V (flat views)."""
    for j in prange(out.shape[0]):
        out[j] += lam * V[j]
    return out


@njit(parallel=True, cache=True, nogil=True)
def to_float32(src, dst):  # pragma: no cover - compiled
    for j in prange(src.shape[0]):
        dst[j] = src[j]
    return dst


@njit(parallel=True, cache=True, nogil=True)
def add_from32(out, src32, lam, V):  # pragma: no cover - compiled
    """out = src32 + lam V (flat views), back in float64."""
    for j in prange(out.shape[0]):
        out[j] = src32[j] + lam * V[j]
    return out


# ---------------------------------------------------------------------------- small problems
# A parallel kernel wakes the thread pool on every call: fine for millions of entries, but on a
# few thousand it is all overhead (and on a busy machine each wake-up can cost milliseconds).
# Small problems use these NumPy twins instead; tests check both agree.
def softmax_hess_factor_numpy(R, P, weights):
    s = np.sum(P * R, axis=1, keepdims=True)
    R[:] = weights[:, None] * P * (R - s)
    return R


def axpy_mnorm_numpy(s, alpha, d, M):
    s += alpha * d
    return float(np.dot(s * M, s))


def residual_step_numpy(r, alpha, Hd, M, z):
    r -= alpha * Hd
    np.divide(r, M, out=z)
    return float(np.dot(r, z)), float(np.dot(r, r))


def direction_step_numpy(d, z, beta):
    d *= beta
    d += z
    return d


def mdots_numpy(s, d, M):
    Ms = M * s
    return float(np.dot(Ms, d)), float(np.dot(Ms, s)), float(np.dot(d * M, d))


def vdot_numpy(a, b):
    return float(np.dot(a, b))


def add_scaled_numpy(out, lam, V):
    out += lam * V
    return out


def to_float32_numpy(src, dst):
    dst[:] = src
    return dst


def add_from32_numpy(out, src32, lam, V):
    np.add(src32, lam * V, out=out)
    return out


#: the compiled kernel -> its NumPy twin
TWINS: dict[Any, Callable[..., Any]] = {
    csr_dense: csr_dense_numpy,
    softmax_loss: softmax_loss_numpy,
    softmax_hess_factor: softmax_hess_factor_numpy,
    binary_loss: binary_loss_numpy,
    axpy_mnorm: axpy_mnorm_numpy,
    residual_step: residual_step_numpy,
    direction_step: direction_step_numpy,
    mdots: mdots_numpy,
    add_scaled: add_scaled_numpy,
    vdot: vdot_numpy,
    to_float32: to_float32_numpy,
    add_from32: add_from32_numpy,
    presence_dot: presence_dot_numpy,
    presence_tdot: presence_tdot_numpy,
    scale_rows: scale_rows_numpy,
}

#: below this many stored entries (sparse) or cells (dense) the NumPy twins run
PARALLEL_MIN = 200_000
