"""NBLR (Wang & Manning 2012, NBSVM with a logistic loss): the log-count ratio scaling, the
logistic fit on the scaled presence features and the interpolation towards their mean."""

from __future__ import annotations

import numpy as np
from .._scipy import expit

from ..linear.logistic import minimise
from ..linear.loss import LogLoss, Presence


def keep_columns(rows: tuple[np.ndarray, np.ndarray], keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR (indptr, indices) restricted to the columns ``keep``, renumbered."""
    indptr, indices = rows
    ok = keep[indices]
    row_of = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    counts = np.bincount(row_of[ok], minlength=len(indptr) - 1)
    new = (np.cumsum(keep) - 1)[indices[ok]].astype(indices.dtype)
    return np.r_[0, np.cumsum(counts)].astype(np.int64), new


def fit_nblr(
    rows: tuple[np.ndarray, np.ndarray], dcount: np.ndarray, codes: np.ndarray, w: np.ndarray | None,
    *, alpha: float, C: float, beta: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(weights V x K, intercepts K) from the presence matrix's CSR arrays ``rows`` = (indptr,
    indices) as the tokenising kernel gives them (each document's distinct terms, sorted): the
    logistic fits run on that pattern itself, X = P diag(r) (:class:`nbayes.linear.loss.Presence`,
    its transpose made once for every class), with no SciPy matrix. Per class (one model for two classes) the ratio
    r = log(p / |p|_1) - log(q / |q|_1) of the class's and the other classes' smoothed document
    counts, an L2 logistic regression (``C``) on x * r, and ``w' = (1 - beta) mean|w| + beta w``
    with the intercept refitted by maximum likelihood for ``w'``."""
    K, V = dcount.shape
    indptr, indices = rows
    targets = [1] if K == 2 else list(range(K))
    W = np.zeros((V, K))
    b = np.zeros(K)
    ones = np.ones(len(codes)) if w is None else np.asarray(w, dtype=np.float64)
    pattern = Presence(indptr, indices, V) if V else None  # the transpose made once for every class
    total = dcount.sum(axis=0)
    for c in targets:
        yc = (codes == c).astype(np.int64)
        if pattern is None:  # no term (documents without words, or all pruned): the base rate alone
            b[c] = refit_bias(np.zeros(len(codes)), yc, w)
            continue
        p = dcount[c] + alpha
        q = total - dcount[c] + alpha
        r = (np.log(p) - np.log(p.sum())) - (np.log(q) - np.log(q.sum()))  # W&M eq. for r
        # L2 logistic regression on x * r (LogisticRegression(C=C)'s optimum, through its solver)
        loss = LogLoss(pattern.scaled(r), yc, 2, ones, C, True)
        coef_b = loss.split(minimise(loss, np.zeros(loss.size), stacklevel=4).theta)
        coef, bias = coef_b[0][:, 0].copy(), float(coef_b[1][0])
        if beta < 1.0:
            coef = (1.0 - beta) * np.mean(np.abs(coef)) + beta * coef
            bias = refit_bias(loss.design.dot(coef[:, None])[:, 0], yc, w)
        W[:, c] = r * pattern.original(coef)
        b[c] = bias
    return W, b


def refit_bias(z: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> float:
    """The maximum-likelihood intercept for fixed scores z: a 1-D convex problem, by Newton."""
    w = np.ones(len(z)) if w is None else w
    b = 0.0
    for _ in range(100):
        p = expit(z + b)
        g = float(np.sum(w * (p - y)))
        h = float(np.sum(w * p * (1 - p)))
        if h <= 0:
            break
        step = float(np.clip(g / h, -5.0, 5.0))  # damped: p(1-p) can be tiny far out
        b -= step
        if abs(step) < 1e-12 * max(1.0, abs(b)):
            break
    return b
