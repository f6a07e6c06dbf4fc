"""A multi-label model's decisions: which labels a row gets, and the probability each label had
to exceed for that row (what the service shows beside each label's probability)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from .._scipy import expit

from ._scores import length

if TYPE_CHECKING:  # pragma: no cover
    from ._model import MultiLabel


def decisions(model: "MultiLabel", X: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(the indicator matrix (n, L) of int 0/1, each label's log-odds (n, L), the log-odds each
    label had to exceed in each row (n, L), or None under ``top_k``).

    With thresholds on the log-odds per known term (tuned text models), a row's bar is the
    threshold times 1 + its number of known terms, so it differs from row to row."""
    nblr = "_nblr_weights" in model.__dict__
    if nblr:
        s, n_terms = model.decision_function(X), None
    else:
        s, n_terms = model._scores(X)
    if model.top_k is not None:
        k = min(int(model.top_k), s.shape[1])
        out = np.zeros(s.shape, dtype=np.int64)
        top = np.argsort(-s, axis=1, kind="stable")[:, :k]
        np.put_along_axis(out, top, 1, axis=1)
        return out, s, None
    bar = np.broadcast_to(model.thresholds_, s.shape)
    if model._per_term() and not nblr:
        n = length(model.__dict__["_predictor"], X) if n_terms is None else n_terms
        with np.errstate(over="ignore"):  # a bar beyond float64 (a threshold near 1e308) is +-inf
            bar = model.thresholds_ * n
        margin = s / n - model.thresholds_
    else:
        margin = s - model.thresholds_
    out = (margin > 0).astype(np.int64)
    empty = model.empty if model.empty != "auto" else ("keep" if model.__dict__["_empty_rows"] else "top1")
    if empty == "top1" and s.shape[1]:
        none = ~out.any(axis=1)
        out[np.nonzero(none)[0], np.argmax(margin[none], axis=1)] = 1
    return out, s, np.asarray(bar, dtype=np.float64)


def with_thresholds(model: "MultiLabel", X: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(the indicator matrix, P(label | x) (n, L), the probability each label had to exceed in
    each row (n, L), or None under ``top_k``): one pass over X."""
    out, s, bar = decisions(model, X)
    return out, np.asarray(expit(s)), None if bar is None else np.asarray(expit(bar))
