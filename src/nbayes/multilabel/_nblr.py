"""NBLR per label: label l's Naive Bayes log-count ratio from the documents with and without
it, an L2 logistic regression on the scaled term presence, the interpolation (Wang & Manning
2012, as ``TextClassifier(model="nblr")`` does for one class against the rest).

The labels share one presence matrix. Each label's problem is small, so each is solved on one
thread: the solver's parallel kernels synchronise their threads on every vector operation, a
cost that dominates small problems (and explodes on a loaded machine: 10x to 30x here). Fits
of cross-validation folds start from the full fit's coefficients (warm), so they take a few
Newton steps each."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import numpy as np
from .._scipy import sparse as sp

from .._kernels import set_max_threads, threads
from ..linear import LogisticRegression
from ..stats.counts import per_class_sum
from ..text.nblr import refit_bias

#: the solver's tolerance for fold fits: their scores only place the thresholds (validated on a
#: held-out fifth of Reuters' training documents, docs/multilabel.md)
FOLD_TOL = 1e-3

#: per label: the logistic fit's coefficients on the scaled presence, and its intercept
Raw = tuple[np.ndarray, np.ndarray]


@contextmanager
def one_thread() -> Iterator[None]:
    """The parallel kernels started from the calling thread on that thread only (OpenMP's
    setting for this thread), restored after."""
    before = threads()
    set_max_threads(1)
    try:
        yield
    finally:
        set_max_threads(before)


def fit_labels(X01: sp.csr_matrix, Y: sp.csr_matrix, w: np.ndarray | None, alpha: float, C: float,
               beta: float, start: Raw | None = None, tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray, Raw]:
    """(weights (V, L), intercepts (L,), the raw logistic coefficients): one binary NBLR per
    label column of ``Y``; ``start``: raw coefficients to start each label's solver from;
    ``tol``: the solver's (LogisticRegression's default 1e-4)."""
    n, L = Y.shape
    V = X01.shape[1]
    Yw = Y if w is None else sp.diags(w) @ Y
    pos = per_class_sum(sp.csr_matrix(Yw), X01)  # (L, V) weighted documents holding each term
    ones = np.ones(n) if w is None else w
    total = np.asarray(X01.T @ ones).ravel()
    W = np.zeros((V, L))
    b = np.zeros(L)
    raw_coef, raw_b = np.zeros((V, L)), np.zeros(L)
    Yc = sp.csc_matrix(Y)
    with one_thread():
        for l in range(L):
            y = np.zeros(n, dtype=np.intp)
            y[Yc.indices[Yc.indptr[l]:Yc.indptr[l + 1]]] = 1
            if y.all() or not y.any():  # one side empty: the label is always / never there
                b[l] = np.inf if y.all() else -np.inf
                continue
            if V == 0:  # no term: the base rate alone
                b[l] = refit_bias(np.zeros(n), y, w)
                continue
            p = pos[l] + alpha
            q = np.maximum(total - pos[l], 0.0) + alpha
            r = (np.log(p) - np.log(p.sum())) - (np.log(q) - np.log(q.sum()))  # W&M's log-count ratio
            Xr = X01 @ sp.diags(r)
            lr = LogisticRegression(C=C, tol=tol, warm_start=start is not None)
            if start is not None and np.isfinite(start[1][l]):
                lr.set_coefficients(start[0][:, l:l + 1], start[1][l:l + 1], np.array([0, 1]), V, None)
            lr.fit(Xr, y, sample_weight=w)
            coef, bias = lr.coef_[0], float(lr.intercept_[0])
            raw_coef[:, l], raw_b[l] = coef, bias
            if beta < 1.0:
                coef = (1.0 - beta) * np.mean(np.abs(coef)) + beta * coef
                bias = refit_bias(np.asarray(Xr @ coef), y, w)
            W[:, l], b[l] = r * coef, bias
    return W, b, (raw_coef, raw_b)


def out_of_fold(X01: sp.csr_matrix, Y: sp.csr_matrix, w: np.ndarray | None,
                splits: list[tuple[np.ndarray, np.ndarray]], start: Raw, alpha: float, C: float,
                beta: float) -> np.ndarray:
    """Each row's per-label log-odds from the NBLR fits of its fold's training rows, each
    label's solver started from ``start`` (its fit on all rows)."""
    scores = np.zeros(Y.shape)
    for train, test in splits:
        W, b, _ = fit_labels(X01[train], Y[train], None if w is None else w[train], alpha, C, beta, start, FOLD_TOL)
        scores[test] = np.asarray(X01[test] @ W) + b
    return scores


def presence(X: sp.spmatrix) -> sp.csr_matrix:
    """Term presence (0/1) of a document-term count matrix."""
    X01 = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X01.eliminate_zeros()
    X01.data[:] = 1.0
    return X01
