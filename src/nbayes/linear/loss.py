"""The L2-penalised log-loss of logistic regression, its gradient and Hessian-vector products.

Objective (CORRECTNESS.md, scikit-learn's parametrisation; the MAP estimate under a Gaussian
prior W ~ N(0, C I) of chapter 002 section 3.3):

    f(W, b) = sum_i w_i loss(y_i, x_i W + b) + ||W||^2 / (2 C)      (intercept b not penalised)

with the binary loss log(1 + e^z) - y z (eqs. 16-17, one coefficient vector) or, for K > 2
classes, the symmetric softmax loss logsumexp(z) - z_y (eqs. 27-28 with every class's vector
kept and penalised). Parameters travel as one flat vector theta = [W.ravel(), b] with W stored
d x K (K = 1 for binary problems).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._kernels.linear import (
    PARALLEL_MIN,
    TWINS,
    add_from32,
    add_scaled,
    binary_loss,
    csr_dense,
    even_blocks,
    frequency_order,
    presence_dot,
    presence_tdot,
    scale_rows,
    softmax_hess_factor,
    softmax_loss,
    to_float32,
    transpose_pattern,
    vdot,
)


class Design:
    """The data matrix with its two products: ``X @ B`` and ``X.T @ G``.

    Sparse input keeps a row-major copy of the transpose so that both products are the
    row-parallel kernel; dense input uses BLAS.
    """

    #: the data (a scipy.sparse CSR matrix or a C-ordered float64 array; SciPy is untyped)
    X: Any
    #: sparse data: the transpose, row-major
    XT: Any
    #: (X * X).T, made on first use (sparse or dense, as X)
    _sqT: Any
    #: dense data in single precision, made on first use
    _dense32: np.ndarray

    def __init__(self, X: Any) -> None:
        self.sparse = sp.issparse(X)
        self.n, self.d = X.shape
        if self.sparse:
            X = sp.csr_matrix(X, dtype=np.float64)
            X.sort_indices()
            self.X = X
            self.XT = X.T.tocsr()
        else:
            self.X = np.ascontiguousarray(X, dtype=np.float64)
        size = self.X.nnz if self.sparse else self.n * self.d
        self.compiled = size >= PARALLEL_MIN

    def run(self, kernel: Any, *args: Any) -> Any:
        """The compiled parallel kernel on large data, its NumPy twin on small data."""
        if self.compiled:
            return kernel(*args)
        return TWINS[kernel](*args)

    def dot(self, B: np.ndarray) -> np.ndarray:
        """X @ B for B of shape (d, K)."""
        if not self.sparse:
            dense: np.ndarray = self.X @ B
            return dense
        out = np.empty((self.n, B.shape[1]))
        X = self.X
        XB: np.ndarray = self.run(csr_dense, X.indptr, X.indices, X.data, np.ascontiguousarray(B), out)
        return XB

    def tdot(self, G: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out = X.T @ G for G of shape (n, K); out is (d, K), C-ordered."""
        if not self.sparse:
            np.dot(self.X.T, G, out=out)
            return out
        XT = self.XT
        XTG: np.ndarray = self.run(csr_dense, XT.indptr, XT.indices, XT.data, np.ascontiguousarray(G), out)
        return XTG

    def grad_tdot(self, G: np.ndarray, lam: float, V: np.ndarray, out: np.ndarray) -> None:
        """out = X.T @ G + lam V (out and V of shape (d, K)): the gradient's data part."""
        self.tdot(G, out)
        self.run(add_scaled, out.reshape(-1), lam, V.reshape(-1))

    def hess_back(self, R: np.ndarray, lam: float, V: np.ndarray, out: np.ndarray) -> float | None:
        """out = X.T @ R + lam V (flat, d K) with the data product in single precision: the
        second half of a Hessian-vector product. Returns sum(out * V) when the same pass
        gives it, else None (here: None)."""
        self.run(add_from32, out, self.hess_tdot(R), lam, V.reshape(-1))
        return None

    def hess_products(self, V: np.ndarray) -> np.ndarray:
        """X @ V in single precision, for Hessian-vector products (below)."""
        V32 = self.run(to_float32, V.reshape(-1), np.empty(V.size, dtype=np.float32)).reshape(V.shape)
        XV: np.ndarray
        if not self.sparse:
            XV = self._X32() @ V32
            return XV
        X = self.X
        out = np.empty((self.n, V.shape[1]), dtype=np.float32)
        XV = self.run(csr_dense, X.indptr, X.indices, self._data32("X"), V32, out)
        return XV

    def hess_tdot(self, R: np.ndarray) -> np.ndarray:
        """X.T @ R in single precision (flat float32 result)."""
        R32 = np.ascontiguousarray(R, dtype=np.float32)
        XTR: np.ndarray
        if not self.sparse:
            XTR = (self._X32().T @ R32).reshape(-1)
            return XTR
        XT = self.XT
        out = np.empty((self.d, R.shape[1]), dtype=np.float32)
        XTR = self.run(csr_dense, XT.indptr, XT.indices, self._data32("XT"), R32, out).reshape(-1)
        return XTR

    def _data32(self, which: str) -> np.ndarray:
        key = "_data32_" + which
        if not hasattr(self, key):
            setattr(self, key, getattr(self, which).data.astype(np.float32))
        data32: np.ndarray = getattr(self, key)
        return data32

    def _X32(self) -> np.ndarray:
        if not hasattr(self, "_dense32"):
            self._dense32 = self.X.astype(np.float32)
        return self._dense32

    def sq_tdot(self, D: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out = (X * X).T @ D: the diagonal of X^T diag(D) X, per column of D."""
        if not hasattr(self, "_sqT"):
            if self.sparse:
                sqT = self.XT.copy()
                with np.errstate(over="ignore"):  # checked by the solver
                    sqT.data **= 2
                self._sqT = sqT
            else:
                with np.errstate(over="ignore"):  # checked by the solver
                    self._sqT = np.ascontiguousarray((self.X * self.X).T)
        if not self.sparse:
            np.dot(self._sqT, D, out=out)
            return out
        S = self._sqT
        SD: np.ndarray = self.run(csr_dense, S.indptr, S.indices, S.data, np.ascontiguousarray(D), out)
        return SD


class LogLoss:
    """f, its gradient and Hessian-vector products, for one data set.

    ``value_grad(theta)`` remembers the curvature at theta; ``hessp(v)`` and ``diag_hessian()``
    use the last one remembered (``curvature``/``set_curvature`` let a solver go back to an
    earlier point without recomputing it).
    """

    def __init__(
        self,
        design: "Design | ScaledPresence",
        codes: np.ndarray,
        n_classes: int,
        weights: np.ndarray,
        C: float,
        fit_intercept: bool,
    ) -> None:
        self.design = design
        self.K = 1 if n_classes == 2 else n_classes
        self.codes = np.ascontiguousarray(codes, dtype=np.int64)
        self.y = self.codes.astype(np.float64)  # binary target: 1 for classes_[1]
        self.weights = np.ascontiguousarray(weights, dtype=np.float64)
        self.lam = 1.0 / C
        self.fit_intercept = fit_intercept
        self.nW = design.d * self.K
        self.size = self.nW + (self.K if fit_intercept else 0)
        self._curv: np.ndarray | None = None  # P (n x K), or w sigma (1 - sigma) (n,) if binary

    @property
    def curvature(self) -> np.ndarray | None:
        return self._curv

    def set_curvature(self, curv: np.ndarray | None) -> None:
        self._curv = curv

    def _last_curvature(self) -> np.ndarray:
        # hessp and diag_hessian use the curvature remembered by value_grad (always called first)
        assert self._curv is not None, "value_grad must be called before hessp / diag_hessian"
        return self._curv

    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        W = theta[: self.nW].reshape(self.design.d, self.K)
        b = theta[self.nW :] if self.fit_intercept else np.zeros(self.K)
        return W, b

    def join(self, W: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.empty(self.size)
        out[: self.nW] = W.ravel()
        if self.fit_intercept:
            out[self.nW :] = b
        return out

    def _scores(self, theta: np.ndarray) -> np.ndarray:
        W, b = self.split(theta)
        Z = self.design.dot(W)
        if self.fit_intercept:
            Z += b
        return Z

    def _back(self, G: np.ndarray, V: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        """X^T G + lam V (and the intercept part sum_i G_i) into one flat vector."""
        if out is None:
            out = np.empty(self.size)
        self.design.grad_tdot(np.ascontiguousarray(G), self.lam, V, out[: self.nW].reshape(self.design.d, self.K))
        if self.fit_intercept:
            out[self.nW :] = G.sum(axis=0)
        return out

    def value_grad(self, theta: np.ndarray, out: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """f(theta) and its gradient; remembers the curvature at theta."""
        W, _ = self.split(theta)
        Z = self._scores(theta)
        if self.K == 1:
            z = np.ascontiguousarray(Z[:, 0])
            curv = np.empty_like(z)
            loss = self.design.run(binary_loss, z, self.y, self.weights, curv)
            G = z[:, None]
        else:
            curv = np.empty_like(Z)
            loss = self.design.run(softmax_loss, Z, self.codes, self.weights, curv)
            G = Z
        self._curv = curv
        Wf = theta[: self.nW]
        f = loss + 0.5 * self.lam * self.design.run(vdot, Wf, Wf)
        return f, self._back(G, W, out)

    def hessp(self, v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """H v at the last point of ``value_grad`` (see :meth:`hessp_dot`)."""
        return self.hessp_dot(v, out)[0]

    def hessp_dot(self, v: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, float]:
        """(H v, v'H v) at the last point of ``value_grad``, H v = X^T D X v + v / C (the
        curvature v'H v for conjugate gradients, from the same pass where the data allows).

        The analytic product (no finite differences); its two data products run in single
        precision, which halves their memory traffic. Only the conjugate-gradient steps use it:
        the objective and gradient, which decide the steps and the stopping test, stay float64,
        so the optimum reached is the same.
        """
        V, c = self.split(v)
        R = self.design.hess_products(V).astype(np.float64, copy=False)
        if self.fit_intercept:
            R += c
        curv = self._last_curvature()
        if self.K == 1:
            R *= curv[:, None]
        else:
            self.design.run(softmax_hess_factor, R, curv, self.weights)
        if out is None:
            out = np.empty(self.size)
        vHv = self.design.hess_back(R, self.lam, V, out[: self.nW])
        if vHv is None:
            vHv = self.design.run(vdot, v[: self.nW], out[: self.nW])
        if self.fit_intercept:
            out[self.nW :] = R.sum(axis=0)
            vHv += float(np.dot(c, out[self.nW :]))
        return out, float(vHv)

    def diag_hessian(self) -> np.ndarray:
        """A diagonal approximation of the Hessian at the last point (for preconditioned CG):
        sum_i D_i x_ij^2 + 1/C per coefficient, sum_i D_i per intercept, with D_i the row's
        curvature (w p (1 - p) per class for the softmax: the Hessian's block diagonal)."""
        curv = self._last_curvature()
        if self.K == 1:
            D = curv[:, None]
        else:
            D = self.weights[:, None] * curv * (1.0 - curv)
        out = np.empty(self.size)
        self.design.sq_tdot(D, out[: self.nW].reshape(self.design.d, self.K))
        out[: self.nW] += self.lam
        if self.fit_intercept:
            out[self.nW :] = D.sum(axis=0)
        return out


class Presence:
    """The pattern of a 0/1 matrix P (n x d): its CSR index arrays and, made once, those of its
    transpose. :meth:`scaled` gives the data X = P diag(s) of each column scaling ``s`` (the
    NB-weighted logistic regression fits one model per class on the same documents).

    The columns are renumbered, most frequent first and the rare ones in order of first
    appearance (``order[k]`` is the original column of column k; coefficients come out in
    this order, :meth:`original` puts them back): X B then reads B's hot rows from a few
    cache lines and each document's rare terms from consecutive ones, where the vocabulary's
    alphabetical order scatters both over megabytes."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, n_cols: int, reorder: bool = True) -> None:
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        indices = np.ascontiguousarray(indices)
        self.n, self.d = len(indptr) - 1, int(n_cols)
        if reorder:
            new = frequency_order(indices, self.d)
            self.order = np.empty(self.d, dtype=np.int64)
            self.order[new] = np.arange(self.d)
            self.tindptr, self.tindices = transpose_pattern(indptr, new[indices].astype(indices.dtype), self.d)
            self.indptr, self.indices = transpose_pattern(self.tindptr, self.tindices, self.n)  # rows sorted
        else:
            self.order = np.arange(self.d)
            self.indptr, self.indices = indptr, indices
            self.tindptr, self.tindices = transpose_pattern(indptr, indices, self.d)
        #: column ranges of about equal entries, for the threads of the transposed products
        self.tblocks = even_blocks(self.tindptr, 64)

    def scaled(self, s: np.ndarray) -> "ScaledPresence":
        """The data X = P diag(s) for ``s`` over the original columns."""
        return ScaledPresence(self, np.asarray(s)[self.order])

    def original(self, W: np.ndarray) -> np.ndarray:
        """Rows of ``W`` (one per column, in this pattern's order) in the original order."""
        out = np.empty_like(W)
        out[self.order] = W
        return out


class ScaledPresence:
    """:class:`Design`'s products for X = P diag(s) with P a 0/1 pattern (:class:`Presence`):
    X B = P (s B) and X^T G = s P^T G, from P's index arrays alone (no data array: a third of a
    float64 CSR product's memory traffic). The gradient's and the Hessian's backward products
    add the penalty's lam V in the same pass."""

    sparse = True

    def __init__(self, pattern: Presence, s: np.ndarray) -> None:
        self.P = pattern
        self.s = np.ascontiguousarray(s, dtype=np.float64)
        self.n, self.d = pattern.n, pattern.d
        self.compiled = len(pattern.indices) >= PARALLEL_MIN
        self._s2 = self.s * self.s

    def run(self, kernel: Any, *args: Any) -> Any:
        if self.compiled:
            return kernel(*args)
        return TWINS[kernel](*args)

    def dot(self, B: np.ndarray) -> np.ndarray:
        """X @ B for B of shape (d, K)."""
        sB = self.run(scale_rows, B, self.s, np.empty(B.shape))
        out: np.ndarray = self.run(presence_dot, self.P.indptr, self.P.indices, sB, np.empty((self.n, B.shape[1])))
        return out

    def tdot(self, G: np.ndarray, out: np.ndarray) -> np.ndarray:
        self.grad_tdot(G, 0.0, out, out)
        return out

    def grad_tdot(self, G: np.ndarray, lam: float, V: np.ndarray, out: np.ndarray) -> None:
        self.run(presence_tdot, self.P.tindptr, self.P.tindices, np.ascontiguousarray(G), self.s, lam, V, out,
                 self.P.tblocks)

    def hess_products(self, V: np.ndarray) -> np.ndarray:
        """X @ V with V rounded to single precision (half the memory read at random), summed
        in float64."""
        sV = self.run(scale_rows, V, self.s, np.empty(V.shape, dtype=np.float32))
        out: np.ndarray = self.run(presence_dot, self.P.indptr, self.P.indices, sV, np.empty((self.n, V.shape[1])))
        return out

    def hess_back(self, R: np.ndarray, lam: float, V: np.ndarray, out: np.ndarray) -> float | None:
        """out = X.T @ R + lam V (flat) in one pass, which also sums out * V (returned)."""
        total: float = self.run(presence_tdot, self.P.tindptr, self.P.tindices, np.ascontiguousarray(R), self.s, lam,
                                V.reshape(self.d, -1), out.reshape(self.d, -1), self.P.tblocks)
        return total

    def sq_tdot(self, D: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out = (X * X).T @ D."""
        self.run(presence_tdot, self.P.tindptr, self.P.tindices, np.ascontiguousarray(D), self._s2, 0.0, out, out,
                 self.P.tblocks)
        return out
