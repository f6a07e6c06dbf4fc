"""Leave-one-out in closed form for categorical and Bernoulli Naive Bayes (capability
``leave_one_out``): from the model of all rows, each training row's joint log-likelihood under
the model of the statistics without that row (only that row's class and values change), for
every row at once. Each term is the family's own estimate (the same equations as ``estimate``)
at the counts less the row's weight; :mod:`nbayes.model_selection` serves leave-one-out from it
at one pass plus one prediction per row, where refitting would cost n fits.

The closed forms cover the usual settings; anything else (declared ``categories`` or ``p``,
zero smoothing, missing values in Bernoulli input, non-binary input without ``binarize``) is
None: the caller takes its generic engine, which is exact too. A row that is the last of its
class is the caller's to leave to that engine (the model without it does not know the class)."""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import encode_values, missing_mask
from .discrete import check_alpha


def joint(model: Any, loglik: np.ndarray | None, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """The joint log-likelihood: ``loglik`` plus each row's class log prior without the row."""
    if loglik is None:
        return None
    out: np.ndarray = loglik + _priors(model, model.stats_.class_count, codes, w)
    return out


def _priors(full: Any, cc: np.ndarray, codes: np.ndarray, w: np.ndarray) -> np.ndarray:
    """log P(y = k) per row under the model without that row (n x K): chapter 002 eq. 9 smoothed
    by ``class_alpha``, the row's weight taken from its class."""
    n, K = len(codes), len(cc)
    if full.class_prior is not None or not full.fit_prior:
        return np.broadcast_to(full.class_log_prior_, (n, K))
    counts = np.tile(cc + float(full.class_alpha), (n, 1))
    counts[np.arange(n), codes] -= w
    with np.errstate(divide="ignore"):
        result: np.ndarray = np.log(counts) - np.log(counts.sum(axis=1, keepdims=True))
        return result


def categorical(full: Any, T: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """log P(x_i | y = k) under the model without row i (n x K): theta_cjv = (n_cjv + alpha) /
    (n_cj + alpha J_j) (chapter 002 eq. 7) or the m-estimate, the row's counts taken away."""
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


def bernoulli(full: Any, Xb: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """log P(x_i | y = k) under the model without row i (n x K): p_cj = (n_cj + alpha) / (N_cj +
    2 alpha) (notes 001, eq. 3 smoothed), the row's presences and weight taken from its class."""
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


class LeaveOneOut:
    """The ``leave_one_out`` capability of a family with a closed form (its ``_loo_loglik``:
    :func:`bernoulli` or :func:`categorical`)."""

    def _loo_loglik(self, Xv: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
        raise NotImplementedError  # pragma: no cover - each family's closed form

    def leave_one_out_joint(self, Xv: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
        """Capability ``leave_one_out``: for this model fitted on the rows ``Xv``
        (``prepare_input``) of classes ``codes`` (indices into ``classes_``) and weights ``w``,
        each row's joint log-likelihood log P(x_i, y = k) (n_rows, n_classes) under the model
        of the statistics without row i, in closed form; None where these settings or rows have
        none (refit instead). A row that is the last of its class is not answered exactly."""
        self.check_fitted()  # type: ignore[attr-defined]  # (BaseNB's, beside this in the model's bases)
        with np.errstate(divide="ignore", invalid="ignore"):
            return joint(self, self._loo_loglik(Xv, codes, w), codes, w)
