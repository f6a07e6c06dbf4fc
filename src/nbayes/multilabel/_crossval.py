"""K-fold cross-validation of a multi-label model: each fold's model is fitted on the other
folds alone (its thresholds chosen from out-of-fold statistics of those rows only: the held-out
fold's labels are never seen), then scored on the held-out fold by micro-F1, macro-F1 and
precision@1."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_number, check_sample_weight, encode_labels, n_rows, take_rows
from ..model_selection import KFold, check_cv
from ._labels import read_labels


def label_set_scores(Y: Any, D: Any, P: np.ndarray, w: np.ndarray | None = None) -> dict[str, float]:
    """Micro-F1, macro-F1 (over every column of ``Y``, a label without true or predicted rows
    counting 0) and precision@1 (the share of rows whose most probable label is true) of the
    predicted indicator ``D`` with probabilities ``P`` against the true indicator ``Y``."""
    T = (sp.csr_matrix(Y).toarray() > 0)
    Dd = (sp.csr_matrix(D).toarray() > 0) if sp.issparse(D) else np.asarray(D) > 0
    wv = np.ones(T.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    tp = wv @ (T & Dd)
    fp = wv @ (~T & Dd)
    fn = wv @ (T & ~Dd)
    denom = 2 * tp + fp + fn
    f1 = np.where(denom > 0, 2 * tp / np.where(denom > 0, denom, 1.0), 0.0)
    total = float(2 * tp.sum() + fp.sum() + fn.sum())
    hit = T[np.arange(T.shape[0]), np.argmax(P, axis=1)] if T.shape[0] and T.shape[1] else np.zeros(0, dtype=bool)
    return {
        "micro_f1": float(2 * tp.sum() / total) if total > 0 else 0.0,
        "macro_f1": float(f1.mean()) if len(f1) else 0.0,
        "precision_at_1": float(wv @ hit / wv.sum()) if T.shape[0] else 0.0,
    }


def _splits(cv: Any, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        check_number("cv", cv, low=2, integer=True)
        cv = KFold(int(cv), shuffle=True, random_state=0)
    return list(check_cv(cv, np.empty((n, 0)), None))


def cross_validate_labels(model: Any, X: Any, y: Any, *, cv: Any = 5, sample_weight: Any = None) -> dict[str, Any]:
    """Per fold and on average, the micro-F1, macro-F1 and precision@1 of ``model`` (an unfitted
    :class:`~nbayes.MultiLabel`) fitted on the other folds and scored on the held-out one.

    ``cv``: a number of folds (shuffled, seed 0), a splitter or a list of (train, test) index
    pairs. Each fold's fit is an ordinary ``fit`` on its training rows: one counting pass, and
    thresholds from that pass's own out-of-fold statistics (the held-out fold takes no part). A
    label missing from a fold's training rows is never predicted there and counts in the
    held-out fold's macro-F1 as 0 if the fold holds it. Returns ``{"folds": [...], "mean":
    {...}, "labels": [...]}``."""
    n = n_rows(X)
    Y, labels = read_labels(y, n, allow_empty=True)  # the model's own fit refuses empty rows if it must
    w = check_sample_weight(sample_weight, n)
    folds = []
    for k, (train, test) in enumerate(_splits(cv, n)):
        m = type(model)(**model.get_params())
        m.estimator = type(model.estimator)(**model.estimator.get_params())
        m.fit(take_rows(X, train), Y[train] if _indicator(y) else _rows(y, train),
              None if w is None else w[train])
        D_fold, P_fold, _ = m.predict_with_thresholds(take_rows(X, test))
        pos, _ = encode_labels(np.asarray(m.classes_), labels)
        D = np.zeros((len(test), len(labels)))
        P = np.zeros((len(test), len(labels)))
        D[:, pos], P[:, pos] = D_fold, P_fold
        scores = label_set_scores(Y[test], D, P, None if w is None else w[test])
        folds.append({"fold": k, "rows": int(len(test)), "train_rows": int(len(train)), **scores})
    mean = {k: float(np.mean([f[k] for f in folds])) for k in ("micro_f1", "macro_f1", "precision_at_1")}
    return {"folds": folds, "mean": mean, "labels": labels.tolist()}


def _indicator(y: Any) -> bool:
    return sp.issparse(y) or (isinstance(y, np.ndarray) and y.ndim == 2 and y.dtype.kind in "biuf")


def _rows(y: Any, idx: np.ndarray) -> list[Any]:
    seq = y.tolist() if hasattr(y, "tolist") and not isinstance(y, list) else list(y)
    return [seq[i] for i in idx.tolist()]
