"""Scores of held-out predictions, computed from the log-probabilities a fold model gives (no
second pass over the rows). Names and definitions are scikit-learn's scorers', so a score here
equals ``sklearn.model_selection.cross_validate(..., scoring=name)`` on the same folds."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable

import numpy as np

from ..errors import InvalidParameterError
from ..evaluate.metrics import brier_score_of, true_class_log_loss


def _pred(lp: np.ndarray) -> np.ndarray:
    result: np.ndarray = np.argmax(lp, axis=1)
    return result


def _confusion(y: np.ndarray, pred: np.ndarray, K: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cm = np.bincount(y * K + pred, minlength=K * K).reshape(K, K).astype(np.float64)
    tp = np.diag(cm)
    return tp, cm.sum(axis=1), cm.sum(axis=0)


def accuracy(y: np.ndarray, lp: np.ndarray) -> float:
    return float(np.mean(_pred(lp) == y))


def balanced_accuracy(y: np.ndarray, lp: np.ndarray) -> float:
    tp, support, _ = _confusion(y, _pred(lp), lp.shape[1])
    seen = support > 0
    return float(np.mean(tp[seen] / support[seen]))


def _prf(y: np.ndarray, lp: np.ndarray, average: str, what: str) -> float:
    K = lp.shape[1]
    pred = _pred(lp)
    tp, support, predicted = _confusion(y, pred, K)
    labels = (support > 0) | (predicted > 0)  # scikit-learn: the labels of y_true and y_pred
    if average == "micro":
        return float(tp.sum() / len(y))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, tp / predicted, 0.0)
        recall = np.where(support > 0, tp / support, 0.0)
        denom = 2 * tp + (predicted - tp) + (support - tp)
        f1 = np.where(denom > 0, 2 * tp / denom, 0.0)
    value = {"precision": precision, "recall": recall, "f1": f1}[what][labels]
    if average == "macro":
        return float(np.mean(value))
    weights = support[labels]
    return float(np.sum(value * weights) / weights.sum()) if weights.sum() > 0 else 0.0


def neg_log_loss(y: np.ndarray, lp: np.ndarray) -> float:
    return -true_class_log_loss(np.exp(lp[np.arange(len(y)), y]))


def neg_brier_score(y: np.ndarray, lp: np.ndarray) -> float:
    """scikit-learn's ``neg_brier_score`` (``brier_score_loss``, halved for two classes)."""
    return -brier_score_of(y, np.exp(lp))


def _auc(scores: np.ndarray, positive: np.ndarray) -> float:
    from scipy.stats import rankdata

    n_pos = int(positive.sum())
    n_neg = len(positive) - n_pos
    if n_pos == 0 or n_neg == 0:
        raise InvalidParameterError(
            "roc_auc: a held-out fold holds only one class, so the area under the ROC curve is not "
            "defined; use stratified folds or another scoring"
        )
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def roc_auc(y: np.ndarray, lp: np.ndarray) -> float:
    if lp.shape[1] != 2:
        raise InvalidParameterError("scoring='roc_auc' is for two classes; use 'roc_auc_ovr' for more")
    return _auc(np.exp(lp[:, 1]), y == 1)


def roc_auc_ovr(y: np.ndarray, lp: np.ndarray) -> float:
    if lp.shape[1] == 2:
        return roc_auc(y, lp)
    P = np.exp(lp)
    return float(np.mean([_auc(P[:, k], y == k) for k in range(lp.shape[1])]))


SCORERS: dict[str, Callable[[np.ndarray, np.ndarray], float]] = {
    "accuracy": accuracy,
    "balanced_accuracy": balanced_accuracy,
    "neg_log_loss": neg_log_loss,
    "neg_brier_score": neg_brier_score,
    "roc_auc": roc_auc,
    "roc_auc_ovr": roc_auc_ovr,
    **{
        f"{what}_{avg}": partial(_prf, average=avg, what=what)
        for what in ("f1", "precision", "recall")
        for avg in ("macro", "micro", "weighted")
    },
}


def check_scoring(scoring: Any) -> dict[str, Any]:
    """``scoring`` (None = accuracy, a name, a callable ``f(estimator, X, y)``, a list of names,
    or a dict name -> scorer) as a dict name -> scorer."""
    if scoring is None:
        return {"score": "accuracy"}
    if isinstance(scoring, str) or callable(scoring):
        return {"score": _one(scoring)}
    if isinstance(scoring, dict):
        return {str(k): _one(v) for k, v in scoring.items()}
    if isinstance(scoring, list | tuple | set):
        if not scoring:
            raise InvalidParameterError("scoring: an empty list of scorers")
        for s in scoring:
            if not isinstance(s, str):
                raise InvalidParameterError(
                    f"scoring: a list holds scorer names; got {s!r} (name callables in a dict: "
                    "{'name': scorer})"
                )
        if len(set(scoring)) != len(scoring):
            raise InvalidParameterError(f"scoring: {list(scoring)!r} names a scorer twice")
        return {s: _one(s) for s in scoring}
    raise InvalidParameterError(f"scoring must be a name, a callable, a list or a dict; got {type(scoring).__name__}")


def _one(s: Any) -> Any:
    if callable(s):
        return s
    if not isinstance(s, str) or s not in SCORERS:
        raise InvalidParameterError(
            f"scoring: unknown scorer {s!r}; expected a callable (estimator, X, y) -> float or one of "
            + ", ".join(sorted(SCORERS))
        )
    return s
