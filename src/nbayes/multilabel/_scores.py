"""Scores of a multi-label model: each label's log-odds from the stacked model (or the binary
models), the per-term divisor of text models, and the names of the statistics rows."""

from __future__ import annotations

from typing import Any

import numpy as np


def extended(labels: np.ndarray) -> np.ndarray:
    """The names of the L + 1 statistics rows: the labels, then "all rows"."""
    out = np.empty(len(labels) + 1, dtype=object)
    out[:-1] = labels.tolist()
    out[-1] = "(all rows)"
    return out


def difference(pos: np.ndarray, neg: np.ndarray, model: Any, which: Any) -> np.ndarray:
    """pos - neg; where both are -inf (no class explains the row: a zero likelihood), the prior
    log-odds, as the base models fall back to the prior (``prior_fallback``)."""
    d = pos - neg
    bad = np.isnan(d)
    if bad.any():
        lp = model.prior_fallback  # the normalised log prior
        prior = (lp[len(lp) // 2:] - lp[:len(lp) // 2])[which]
        d = np.where(bad, np.broadcast_to(prior, d.shape), d)
    return np.asarray(d)


def length(models: Any, X: Any) -> np.ndarray:
    """(n, 1): 1 + the number of a document's terms the model knows (the divisor of
    ``normalize="length"``)."""
    m = models[0] if isinstance(models, list) else models
    return 1.0 + np.asarray(m.transform(X).sum(axis=1), dtype=np.float64).reshape(-1, 1)


def same(a: Any, b: Any) -> bool:
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
    except (TypeError, ValueError):
        return bool(a == b)


def log_odds(models: Any, Xv: Any) -> np.ndarray:
    """Each label's log-odds of the prepared rows ``Xv``: from the binary models (a list) or the
    stacked model over 2L classes."""
    with np.errstate(invalid="ignore"):
        if isinstance(models, list):
            cols = []
            for m in models:
                j = m.joint_log_likelihood(Xv)
                cols.append(difference(j[:, 1], j[:, 0], m, 0))
            return np.column_stack(cols) if cols else np.zeros((int(Xv.shape[0]), 0))
        jll = models.joint_log_likelihood(Xv)
        L = jll.shape[1] // 2
        return difference(jll[:, L:], jll[:, :L], models, slice(None))
