"""``LogisticRegression(init="nb")``: the logistic weights of the Naive Bayes model of the same
data, in closed form from its statistics (chapter 002 section 3.1: a Naive Bayes model with a
linear boundary is a logistic model with particular weights).

Non-negative X: the multinomial model with Laplace smoothing, W_cj = log theta_cj,
b_c = log P(c). Otherwise the Gaussian model with one variance per feature (MLE, floored at
1e-9 x the largest variance, as ``GaussianNB(variance="feature")``), W_cj = mu_cj / s_j^2,
b_c = log P(c) - sum_j mu_cj^2 / (2 s_j^2). These are exactly
``MultinomialNB().fit(X, y).to_logistic()`` and ``GaussianNB(variance="feature")...`` (pinned
by tests/linear/test_logistic.py), computed here from :mod:`nbayes.stats` so that the logistic
model needs no Naive Bayes class.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..stats import CountStats, MomentStats


def nb_start(X: Any, codes: np.ndarray, n_classes: int, sample_weight: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(coef (K' x d), intercept (K',)) of the Naive Bayes model's logistic twin: one vector
    (class 1 against class 0) for two classes, else K vectors centred over the classes."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if (values.min() if values.size else 0.0) >= 0:
        s = CountStats.of(X, codes, n_classes, sample_weight)
        theta = s.feature_count + 1.0
        W = np.log(theta) - np.log(theta.sum(axis=1, keepdims=True))
        b = np.log(s.class_count) - np.log(s.class_count.sum())
    else:
        dense = X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        m = MomentStats.of(dense, codes, n_classes, sample_weight)
        w_all, _, m2_all = m.pooled()
        largest = float(np.max(m2_all / np.where(w_all > 0, w_all, 1.0))) if dense.shape[1] else 0.0
        num, den = m.m2.sum(axis=0), m.weight.sum(axis=0)
        var = num / np.where(den > 0, den, 1.0) + 1e-9 * (largest if largest > 0 else 1.0)
        W = m.mean / var
        b = np.log(m.class_count) - np.log(m.class_count.sum()) - 0.5 * np.sum(m.mean * W, axis=1)
    if n_classes == 2:
        return (W[1] - W[0])[None, :], np.array([b[1] - b[0]])
    return W - W.mean(axis=0), b - b.mean()
