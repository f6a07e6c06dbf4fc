"""NBLR per label: label l's Naive Bayes log-count ratio from the documents with and without
it, an L2 logistic regression on the scaled term presence, the interpolation (Wang & Manning
2012, as ``TextClassifier(model="nblr")`` does for one class against the rest)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..stats.counts import per_class_sum
from ..text.nblr import fit_nblr


def fit_labels(X01: sp.csr_matrix, Y: sp.csr_matrix, w: np.ndarray | None, *, alpha: float, C: float,
               beta: float) -> tuple[np.ndarray, np.ndarray]:
    """(weights (V, L), intercepts (L,)): one binary NBLR per label column of ``Y``."""
    n, L = Y.shape
    Yw = Y if w is None else sp.diags(w) @ Y
    pos = per_class_sum(sp.csr_matrix(Yw), X01)  # (L, V) weighted documents holding each term
    ones = np.ones(n) if w is None else w
    total = np.asarray(X01.T @ ones).ravel()
    W = np.zeros((X01.shape[1], L))
    b = np.zeros(L)
    Yc = sp.csc_matrix(Y)
    for l in range(L):
        y = np.zeros(n, dtype=np.intp)
        y[Yc.indices[Yc.indptr[l]:Yc.indptr[l + 1]]] = 1
        if y.all() or not y.any():  # one side empty: the label is always / never there
            b[l] = np.inf if y.all() else -np.inf
            continue
        dcount = np.vstack([np.maximum(total - pos[l], 0.0), pos[l]])
        Wl, bl = fit_nblr(X01, dcount, y, w, alpha=alpha, C=C, beta=beta)
        W[:, l], b[l] = Wl[:, 1], bl[1]
    return W, b


def presence(X: sp.spmatrix) -> sp.csr_matrix:
    """Term presence (0/1) of a document-term count matrix."""
    X01 = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X01.eliminate_zeros()
    X01.data[:] = 1.0
    return X01
