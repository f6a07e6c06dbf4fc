"""Kernels of the linear models: sparse-times-dense products and the fused softmax loss: the
compiled kernels (:mod:`._linear`) and their NumPy twins.

A logistic regression's objective, gradient and Hessian-vector products are two products with
the data matrix each (``X W`` and ``X^T G``) plus a row-wise pass over the n x K scores. SciPy's
sparse product runs on one core; these split the rows over the machine's cores. ``X^T G`` is
computed as ``XT @ G`` with ``XT`` the transpose stored row-major once per fit, so both products
are the same row-parallel kernel with no write conflicts.

Scaled presence: the NB-weighted logistic regression's data (:mod:`nbayes.text.nblr`) is
X[i, j] = s[j] for the terms j present in document i, a 0/1 matrix P times diag(s). Its
products need P's index arrays only: X B = P (s B) and X^T G = s (P^T G) (``presence_dot``,
``presence_tdot``, ``scale_rows``), a third of the memory traffic of a float64 CSR product and
no data array to build.

CG vector steps (``axpy_mnorm``, ``residual_step``, ``direction_step``, ``mdots``, ``vdot``,
``add_scaled``, ``to_float32``, ``add_from32``): fused, in-place and parallel: on a
2.6-million-coefficient problem (20 Newsgroups, 20 classes) each NumPy temporary costs a fresh
21 MB allocation and its page faults.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ._linear import (
    add_from32,
    add_scaled,
    axpy_mnorm,
    binary_loss,
    csr_dense,
    direction_step,
    frequency_order,
    mdots,
    presence_dot,
    presence_tdot,
    residual_step,
    scale_rows,
    softmax_hess_factor,
    softmax_loss,
    to_float32,
    transpose_pattern,
    vdot,
)

__all__ = [
    "PARALLEL_MIN", "TWINS", "add_from32", "add_scaled", "axpy_mnorm", "binary_loss", "csr_dense",
    "direction_step", "even_blocks", "frequency_order", "mdots", "presence_dot", "presence_tdot",
    "residual_step", "scale_rows", "softmax_hess_factor", "softmax_loss", "to_float32",
    "transpose_pattern", "vdot",
]


def even_blocks(indptr: np.ndarray, parts: int) -> np.ndarray:
    """Row boundaries 0 = b_0 <= ... <= b_parts = n splitting a CSR matrix's rows into
    ``parts`` ranges of about equal entries (for the threads of a row-parallel kernel)."""
    n = len(indptr) - 1
    cuts = np.searchsorted(indptr, np.linspace(0, indptr[-1], parts + 1)[1:-1], side="left")
    return np.concatenate([[0], np.clip(cuts, 0, n), [n]]).astype(np.int64)


# ---------------------------------------------------------------------------- NumPy twins
def csr_dense_numpy(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, B: np.ndarray, out: np.ndarray
) -> np.ndarray:
    import scipy.sparse as sp

    A = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, B.shape[0]))
    out[:] = A @ B
    return out


def softmax_loss_numpy(Z: np.ndarray, codes: np.ndarray, weights: np.ndarray, P: np.ndarray) -> float:
    from scipy.special import logsumexp, softmax

    n = Z.shape[0]
    lse = logsumexp(Z, axis=1)
    total = float(np.sum(weights * (lse - Z[np.arange(n), codes])))
    P[:] = softmax(Z, axis=1)
    G = weights[:, None] * P
    G[np.arange(n), codes] -= weights
    Z[:] = G
    return total


def binary_loss_numpy(z: np.ndarray, y: np.ndarray, weights: np.ndarray, d: np.ndarray) -> float:
    from scipy.special import expit

    total = float(np.sum(weights * (np.logaddexp(0.0, z) - y * z)))
    p = expit(z)
    d[:] = weights * p * (1 - p)
    z[:] = weights * (p - y)
    return total


def _pattern(indptr: np.ndarray, indices: np.ndarray, n_cols: int) -> Any:
    """The 0/1 CSR matrix of ``indptr`` / ``indices`` (a SciPy sparse matrix: SciPy is untyped)."""
    import scipy.sparse as sp

    ones = np.ones(len(indices))
    return sp.csr_matrix((ones, indices, indptr), shape=(len(indptr) - 1, n_cols))


def presence_dot_numpy(indptr: np.ndarray, indices: np.ndarray, B: np.ndarray, out: np.ndarray) -> np.ndarray:
    out[:] = _pattern(indptr, indices, B.shape[0]) @ B.astype(out.dtype)
    return out


def presence_tdot_numpy(
    tindptr: np.ndarray,
    tindices: np.ndarray,
    G: np.ndarray,
    s: np.ndarray,
    lam: float,
    V: np.ndarray,
    out: np.ndarray,
    blocks: np.ndarray,
) -> float:
    out[:] = s[:, None] * (_pattern(tindptr, tindices, G.shape[0]) @ G)
    if lam == 0.0:
        return 0.0
    out += lam * V
    return float(np.sum(out * V))


def scale_rows_numpy(V: np.ndarray, s: np.ndarray, out: np.ndarray) -> np.ndarray:
    out[:] = s[:, None] * V
    return out


# ---------------------------------------------------------------------------- small problems
# A parallel kernel wakes the thread pool on every call: fine for millions of entries, but on a
# few thousand it is all overhead (and on a busy machine each wake-up can cost milliseconds).
# Small problems use these NumPy twins instead; tests check both agree.
def softmax_hess_factor_numpy(R: np.ndarray, P: np.ndarray, weights: np.ndarray) -> np.ndarray:
    s = np.sum(P * R, axis=1, keepdims=True)
    R[:] = weights[:, None] * P * (R - s)
    return R


def axpy_mnorm_numpy(s: np.ndarray, alpha: float, d: np.ndarray, M: np.ndarray) -> float:
    s += alpha * d
    return float(np.dot(s * M, s))


def residual_step_numpy(
    r: np.ndarray, alpha: float, Hd: np.ndarray, M: np.ndarray, z: np.ndarray
) -> tuple[float, float]:
    r -= alpha * Hd
    np.divide(r, M, out=z)
    return float(np.dot(r, z)), float(np.dot(r, r))


def direction_step_numpy(d: np.ndarray, z: np.ndarray, beta: float) -> np.ndarray:
    d *= beta
    d += z
    return d


def mdots_numpy(s: np.ndarray, d: np.ndarray, M: np.ndarray) -> tuple[float, float, float]:
    Ms = M * s
    return float(np.dot(Ms, d)), float(np.dot(Ms, s)), float(np.dot(d * M, d))


def vdot_numpy(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def add_scaled_numpy(out: np.ndarray, lam: float, V: np.ndarray) -> np.ndarray:
    out += lam * V
    return out


def to_float32_numpy(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    dst[:] = src
    return dst


def add_from32_numpy(out: np.ndarray, src32: np.ndarray, lam: float, V: np.ndarray) -> np.ndarray:
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
