"""Evaluation measures (no scikit-learn at run time): accuracy, macro-F1, log-loss, per-class
precision and recall, the confusion matrix (folds: nbayes.model_selection)."""

from __future__ import annotations

from typing import Any

import numpy as np


def evaluate(y: np.ndarray, pred: np.ndarray, proba: np.ndarray | None, classes: np.ndarray) -> dict[str, Any]:
    """Measures of ``pred`` (and ``proba``, columns = ``classes``) against the true ``y``.

    Labels the model never saw count as errors; log-loss is over the rows whose label the model
    knows (:func:`nbayes.metrics.log_loss`: clipped to [eps, 1 - eps] as scikit-learn does)."""
    labels = _union(classes, y)
    index = {_key(v): i for i, v in enumerate(labels)}
    yi = np.array([index[_key(v)] for v in y])
    pi = np.array([index[_key(v)] for v in pred])
    L = len(labels)
    cm = np.zeros((L, L), dtype=np.int64)
    np.add.at(cm, (yi, pi), 1)
    tp = np.diag(cm).astype(float)
    support = cm.sum(axis=1)
    predicted = cm.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(predicted > 0, tp / predicted, 0.0)
        recall = np.where(support > 0, tp / support, 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    present = support > 0
    out: dict[str, Any] = {
        "rows": int(len(y)),
        "accuracy": float(tp.sum() / max(len(y), 1)),
        "macro_f1": float(f1[present].mean()) if present.any() else 0.0,
        "labels": [_plain(v) for v in labels],
        "confusion_matrix": cm.tolist(),
        "per_class": {
            str(_plain(v)): {
                "precision": float(precision[i]),
                "recall": float(recall[i]),
                "f1": float(f1[i]),
                "support": int(support[i]),
            }
            for i, v in enumerate(labels)
        },
    }
    if proba is not None:
        col = {_key(v): i for i, v in enumerate(classes)}
        known = np.array([_key(v) in col for v in y])
        if known.any():
            from ..metrics import log_loss_of

            idx = np.array([col[_key(v)] for v, k in zip(y, known) if k])
            out["log_loss"] = log_loss_of(idx, np.asarray(proba, dtype=np.float64)[known])
        out["unknown_labels"] = int((~known).sum())
    return out


def _union(classes: np.ndarray, y: np.ndarray) -> list[Any]:
    """The model's classes in its order, then labels it never saw (sorted by their text)."""
    known = {_key(v) for v in classes}
    extra: dict[Any, Any] = {}
    for v in y:
        if _key(v) not in known:
            extra.setdefault(_key(v), _plain(v))
    return [_plain(v) for v in classes] + sorted(extra.values(), key=str)


def _key(v: Any) -> Any:
    v = _plain(v)
    return (type(v).__name__ if not isinstance(v, int | float) else "num", v)


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
