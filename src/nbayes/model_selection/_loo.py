"""Leave-one-out in closed form for categorical and Bernoulli Naive Bayes: one count of all
rows, then for each row the joint log-likelihood under the model without it, from the totals
(only that row's class and values change). Cost: one pass plus one prediction per row, where
refitting would cost n fits. Equal to n refits (tests hold it to the generic engine and to
scikit-learn's ``LeaveOneOut``).

The closed forms cover the usual settings; anything else (declared ``categories`` or ``p``,
zero smoothing, missing values in Bernoulli input, non-binary input without ``binarize``) takes
the generic engine, which is exact too, at one estimation per row; so does a single row that
would empty its class (the model without it does not know the class), the others keeping the
closed form."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import encode_values, missing_mask
from ..naive_bayes import BernoulliNB, CategoricalNB
from ..naive_bayes.discrete import check_alpha
from ._folds import StatsFolds, normalize
from ._split import Splits


def loo_folds(model: Any, X: Any, y: Any, splits: Splits, sample_weight: Any) -> "LooFolds | None":
    if type(model) not in (BernoulliNB, CategoricalNB):
        return None
    t0 = time.perf_counter()
    engine = StatsFolds(model, X, y, splits, sample_weight, {})
    w = np.ones(engine.n) if engine.w is None else engine.w
    cc = engine.total.class_count
    own = cc[engine.codes] - w
    # rows the closed forms leave to the generic engine: the last row of a class (the model
    # without it does not know the class)
    special = own <= 1e-9 * cc[engine.codes]
    if special.mean() > 0.5:
        return None
    full = engine.model({}, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(model, CategoricalNB):
            loglik = _categorical(full, engine.Xv, engine.codes, w)
        else:
            loglik = _bernoulli(full, engine.Xv, engine.codes, w)
        if loglik is None:
            return None
        jll = loglik + _priors(full, cc, engine.codes, w)
    jll[special] = 0.0  # replaced below
    lp = normalize(jll, full.prior_fallback)
    for i in np.flatnonzero(special):
        lp[i] = engine.log_proba({}, int(i))[0][0]
    return LooFolds(engine, lp, time.perf_counter() - t0)


class LooFolds:
    """The leave-one-out predictions, served split by split as the engines do."""

    def __init__(self, engine: StatsFolds, lp: np.ndarray, seconds: float) -> None:
        self.engine = engine
        self.lp = lp
        self.per_row = seconds / max(engine.n, 1)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def log_proba(self, params: dict[str, Any], i: int) -> Any:
        if params:
            return self.engine.log_proba(params, i)
        return self.lp[i : i + 1], self.per_row, 0.0  # split i holds out row i


def _priors(full: Any, cc: np.ndarray, codes: np.ndarray, w: np.ndarray) -> np.ndarray:
    """log P(y = k) per row under the model without that row (n x K)."""
    n, K = len(codes), len(cc)
    if full.class_prior is not None or not full.fit_prior:
        return np.broadcast_to(full.class_log_prior_, (n, K))
    counts = np.tile(cc + float(full.class_alpha), (n, 1))
    counts[np.arange(n), codes] -= w
    with np.errstate(divide="ignore"):
        result: np.ndarray = np.log(counts) - np.log(counts.sum(axis=1, keepdims=True))
        return result


def _categorical(full: Any, T: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    if full.categories is not None or full.p is not None:
        return None
    if full.m is None:
        a = float(full.alpha) if full.force_alpha else max(float(full.alpha), 1e-10)
        if a <= 0:
            return None
    elif float(full.m) <= 0:
        return None
    n, K = len(codes), len(full.classes_)
    rows = np.arange(n)
    own = np.zeros((n, K), dtype=bool)
    own[rows, codes] = True
    ws = np.where(own, w[:, None], 0.0)  # the weight row i takes away from class k
    min_cat = full.estimation_settings(T.shape[1]).min_categories
    out = np.zeros((n, K))
    for j, (vals, cnt) in enumerate(zip(full.categories_, full.category_count_)):
        col = T.column(j)
        miss = missing_mask(col)
        v = encode_values(col, vals)
        seen = ~miss
        new = seen & (v >= len(vals))  # a value of zero-weight rows only: unseen by both models
        v = np.where(seen & ~new, v, 0)
        total = cnt.sum(axis=0)[v]
        gone = seen & ~new & (total - w <= 1e-12 * total)  # the value occurs in this row only
        J = np.maximum(len(vals) - gone, min_cat[j]).astype(np.float64)[:, None]
        N = cnt.sum(axis=1)[None, :] - np.where(seen[:, None], ws, 0.0)
        nv = cnt[:, v].T - ws
        if full.m is None:
            num, den, unseen_num = nv + a, N + a * J, np.full_like(N, a)
        else:
            m = float(full.m)
            num, den, unseen_num = nv + m / J, N + m, np.broadcast_to(m / J, N.shape)
        empty = den <= 0
        safe = np.where(empty, 1.0, den)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = np.log(np.maximum(num, 0.0)) - np.log(safe)
            if full.handle_unknown == "smooth":
                unseen = np.log(unseen_num) - np.log(safe)
            else:
                unseen = np.zeros_like(term)
        term = np.where((gone | new)[:, None], unseen, term)
        term = np.where(empty, -np.log(np.maximum(J, 1.0)), term)
        out += np.where(seen[:, None], term, 0.0)
    return out


def _bernoulli(full: Any, Xb: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    if Xb.missing is not None:
        return None
    X = Xb.X
    data = X.data if sp.issparse(X) else X
    if not np.all((data == 0) | (data == 1)):
        return None
    V = X.shape[1]
    a = np.broadcast_to(np.asarray(check_alpha(full.alpha, V, full.force_alpha), dtype=np.float64), (V,))
    if np.any(a <= 0):
        return None
    log_p, log_q = full.feature_log_prob_, full.params_.log_absent
    out = np.asarray(X @ (log_p - log_q).T) + log_q.sum(axis=1)
    d, N = full.stats_.feature_count, full.stats_.class_count
    pairs = np.stack([codes.astype(np.float64), w], axis=1)
    keys, which = np.unique(pairs, axis=0, return_inverse=True)
    which = np.asarray(which).ravel()
    for g, (c, wc) in enumerate(keys):
        c = int(c)
        rows = np.flatnonzero(which == g)
        D = N[c] - wc + 2 * a
        present = np.log(np.maximum(d[c] - wc, 0.0) + a)  # x = 1: the row's own 1 taken away
        absent = np.log(np.maximum(N[c] - wc - d[c], 0.0) + a)  # x = 0
        own = np.asarray(X[rows] @ (present - absent)).ravel() + absent.sum() - np.log(D).sum()
        out[rows, c] = own
    result: np.ndarray | None = out
    return result
