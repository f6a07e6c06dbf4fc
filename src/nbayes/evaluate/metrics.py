"""Measures of probabilistic predictions: log-loss, the Brier score, the expected calibration
error, and the reliability curve and diagram. No scikit-learn at run time; ``log_loss`` and
``brier_score`` equal scikit-learn's ``log_loss`` and ``brier_score_loss``.

:func:`classification_measures` gathers the measures of a set of predictions (accuracy,
macro-F1, per-class precision / recall / F1, the confusion matrix, the log-loss), as
``nbayes evaluate`` prints them.

Every function takes the true labels ``y_true`` and a matrix ``proba`` of probabilities whose
columns are ``classes`` (default: the sorted distinct labels of ``y_true``, as scikit-learn's
label binariser orders them; pass ``model.classes_`` when a class may be absent from ``y_true``).

>>> from nbayes.metrics import brier_score, expected_calibration_error, log_loss
>>> y = ["ham", "spam", "spam", "ham"]
>>> P = [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.5, 0.5]]
>>> round(log_loss(y, P), 6)   # -(log .9 + log .8 + log .4 + log .5) / 4
0.484485
>>> round(brier_score(y, P), 6)  # binary: mean of (1[spam] - p_spam)^2
0.165
>>> # top label: confidence .5 (right) in [0, .5]; .9, .8 (right) and .6 (wrong) in (.5, 1]
>>> round(expected_calibration_error(y, P, n_bins=2), 6)  # 1/4 |1 - .5| + 3/4 |2/3 - .7667|
0.2
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from .._math import log_loss_of_true_class
from .._validation import check_number, check_sample_weight, check_y, encode_labels, show, sorted_unique
from ..errors import DataError, MissingDependencyError

__all__ = [
    "ReliabilityCurve",
    "brier_score",
    "classification_measures",
    "expected_calibration_error",
    "log_loss",
    "reliability_curve",
    "reliability_diagram",
]


# ---------------------------------------------------------------------------- the boundary
def _inputs(
    y_true: Any, proba: Any, classes: Any, sample_weight: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(codes of y_true in classes, probabilities (n, K) float64, classes, weights)."""
    P = np.asarray(proba, dtype=np.float64)
    if P.ndim == 1:
        P = np.column_stack([1.0 - P, P])  # the positive class's probability, as scikit-learn
    if P.ndim != 2:
        raise DataError(f"proba: expected a matrix (rows x classes) of probabilities, got shape {P.shape}")
    y = check_y(y_true, P.shape[0])
    if classes is None:
        classes = sorted_unique(y)
        if len(classes) == 1 and P.shape[1] == 2:
            raise DataError(
                f"y_true holds one class ({show(classes[0])}) but proba has 2 columns; pass "
                "classes= (e.g. model.classes_) to say which column is which"
            )
    else:
        classes = np.asarray(classes)
    if len(classes) != P.shape[1]:
        raise DataError(
            f"proba has {P.shape[1]} columns but there are {len(classes)} classes "
            f"{list(classes)[:10]!r}; pass classes= with one label per column"
        )
    codes, unknown = encode_labels(y, classes)
    if unknown.any():
        i = int(np.argmax(unknown))
        raise DataError(f"y_true: row {i} has label {show(y[i])}, which is not one of the classes {list(classes)!r}")
    bad = ~np.isfinite(P) | (P < 0) | (P > 1)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise DataError(f"proba: row {i}, column {j} is {show(P[i, j])}; probabilities lie in [0, 1]")
    w = check_sample_weight(sample_weight, P.shape[0])
    if P.shape[0] == 0:
        raise DataError("y_true is empty: no rows to measure")
    return codes.astype(np.intp), P, classes, w


def _mean(values: np.ndarray, w: np.ndarray | None) -> float:
    if w is None:
        return float(np.mean(values))
    total = float(w.sum())
    if total <= 0:
        raise DataError("sample_weight: the weights sum to zero")
    return float(np.sum(values * w) / total)


# ---------------------------------------------------------------------------- proper scores
def log_loss(y_true: Any, proba: Any, *, classes: Any = None, sample_weight: Any = None) -> float:
    """Mean negative log-likelihood of the true class, -mean log p(y_i | x_i) (natural log).

    Probabilities are clipped to [eps, 1 - eps], eps the float64 machine epsilon (2.2e-16,
    ``nbayes._math.LOG_LOSS_EPS``), as scikit-learn's ``log_loss`` does, so a zero probability
    for the true class costs about 36 rather than infinity. ``proba`` may be one column (the
    probability of ``classes[1]``). :func:`nbayes.compare` and the scorer ``neg_log_loss`` use
    the same core, so they give the same number for the same model.

    >>> round(log_loss(["a", "b", "a"], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], classes=["a", "b"]), 4)
    0.2798
    """
    codes, P, _, w = _inputs(y_true, proba, classes, sample_weight)
    return log_loss_of(codes, P, w)


def log_loss_of(codes: np.ndarray, P: np.ndarray, w: np.ndarray | None = None) -> float:
    """:func:`log_loss` of checked inputs: class codes and an (n, K) probability matrix."""
    return true_class_log_loss(P[np.arange(len(codes)), codes], w)


def true_class_log_loss(p: np.ndarray, w: np.ndarray | None = None) -> float:
    """-mean log p of the true classes' probabilities ``p``, clipped to [eps, 1 - eps]
    (:func:`nbayes._math.log_loss_of_true_class`, the one log-loss core)."""
    if w is not None and float(np.sum(w)) <= 0:
        raise DataError("sample_weight: the weights sum to zero")
    return log_loss_of_true_class(p, w)


def brier_score(y_true: Any, proba: Any, *, classes: Any = None, sample_weight: Any = None) -> float:
    """Mean squared distance between the probability vector and the one-hot true class,
    sum_k (p_ik - 1[y_i = k])^2, averaged over rows: it lies in [0, 2].

    With two classes it is halved, which gives the usual binary Brier score mean (p_i - y_i)^2
    of the positive class's probability, in [0, 1]. This is scikit-learn's ``brier_score_loss``
    (its ``scale_by_half="auto"``) for two classes and more.

    >>> round(brier_score(["a", "b", "a"], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]], classes=["a", "b"]), 4)
    0.07
    """
    codes, P, _, w = _inputs(y_true, proba, classes, sample_weight)
    return brier_score_of(codes, P, w)


def brier_score_of(codes: np.ndarray, P: np.ndarray, w: np.ndarray | None = None) -> float:
    """:func:`brier_score` of checked inputs: class codes and an (n, K) probability matrix."""
    D = P.copy()
    D[np.arange(len(codes)), codes] -= 1.0
    s = _mean(np.einsum("ij,ij->i", D, D), w)
    return 0.5 * s if P.shape[1] <= 2 else s


# ---------------------------------------------------------------------------- calibration
class ReliabilityCurve(NamedTuple):
    """Per non-empty bin: mean predicted probability (``confidence``), observed frequency
    (``accuracy``: of the top label being right, or of the ``positive`` class), the bin's
    share of the weight (``weight``, summing to 1) and its row count (``count``)."""

    confidence: np.ndarray
    accuracy: np.ndarray
    weight: np.ndarray
    # the public field's name shadows tuple.count (a method), which typing reports; kept as is
    count: np.ndarray  # type: ignore[assignment]


def _binned(conf: np.ndarray, hit: np.ndarray, w: np.ndarray | None, n_bins: int) -> ReliabilityCurve:
    """Bins of equal width on [0, 1], closed on the right: ((b-1)/B, b/B], the first [0, 1/B]
    (scikit-learn's ``calibration_curve`` with strategy="uniform" bins the same way)."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.searchsorted(edges[1:-1], conf, side="left")
    ww = np.ones(len(conf)) if w is None else w
    total = np.bincount(ids, weights=ww, minlength=n_bins)
    count = np.bincount(ids, minlength=n_bins)
    s_conf = np.bincount(ids, weights=ww * conf, minlength=n_bins)
    s_hit = np.bincount(ids, weights=ww * hit, minlength=n_bins)
    keep = total > 0
    mass = float(total.sum())
    if mass <= 0:
        raise DataError("sample_weight: the weights sum to zero")
    return ReliabilityCurve(
        s_conf[keep] / total[keep], s_hit[keep] / total[keep], total[keep] / mass, count[keep]
    )


def reliability_curve(
    y_true: Any,
    proba: Any,
    *,
    classes: Any = None,
    n_bins: int = 10,
    positive: Any = None,
    sample_weight: Any = None,
) -> ReliabilityCurve:
    """The reliability curve over ``n_bins`` equal-width bins of [0, 1] (empty bins left out).

    By default of the top label: each row's highest probability (its confidence) against
    whether that class (the first of tied ones) is the true one. With ``positive=label``: the
    probability of that class against its observed frequency, which equals scikit-learn's
    ``calibration_curve(y == label, p, n_bins=n_bins)`` for binary problems."""
    check_number("n_bins", n_bins, low=1, integer=True)
    codes, P, classes, w = _inputs(y_true, proba, classes, sample_weight)
    if positive is None:
        top = np.argmax(P, axis=1)
        conf = P[np.arange(len(top)), top]
        hit = (top == codes).astype(np.float64)
    else:
        pos, unknown = encode_labels(np.asarray([positive], dtype=object), classes)
        if unknown[0]:
            raise DataError(f"positive={positive!r} is not one of the classes {list(classes)!r}")
        conf = P[:, int(pos[0])]
        hit = (codes == int(pos[0])).astype(np.float64)
    return _binned(conf, hit, w, int(n_bins))


def expected_calibration_error(
    y_true: Any, proba: Any, *, classes: Any = None, n_bins: int = 15, sample_weight: Any = None
) -> float:
    """Top-label expected calibration error: sum over bins of the bin's share of rows times
    |accuracy - mean confidence| in it, with ``n_bins`` equal-width bins of [0, 1] (Guo et al.
    2017, who use 15). 0 for a calibrated model; it depends on the binning, so compare values
    computed with the same ``n_bins``.

    >>> y, p = ["a", "b", "a"], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]
    >>> round(expected_calibration_error(y, p, classes=["a", "b"]), 4)   # (|1 - .9| + |1 - .8| + |1 - .6|) / 3
    0.2333
    """
    c = reliability_curve(y_true, proba, classes=classes, n_bins=n_bins, sample_weight=sample_weight)
    return float(np.sum(c.weight * np.abs(c.accuracy - c.confidence)))


# ---------------------------------------------------------------------------- the figure
def reliability_diagram(
    y_true: Any,
    probas: Mapping[str, Any],
    *,
    classes: Any = None,
    n_bins: int = 15,
    positive: Any = None,
    path: Any = None,
    title: str | None = None,
    dpi: int = 110,
) -> bytes:
    """A reliability diagram as PNG bytes (written to ``path`` too, if given): one curve per
    entry of ``probas`` (name -> probability matrix over the same rows), the diagonal of perfect
    calibration, and below it the share of rows per confidence bin. Each curve's label carries
    its ECE. Needs matplotlib (``pip install 'nbayes[plot]'``)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingDependencyError(
            "reliability_diagram needs matplotlib, an optional dependency: pip install 'nbayes[plot]'"
        ) from None
    if not probas:
        raise DataError("probas: give at least one name -> probability matrix")
    fig = Figure(figsize=(6.0, 6.4), layout="constrained")
    ax, hist = fig.subplots(2, 1, height_ratios=[3, 1], sharex=True)
    ax.plot([0, 1], [0, 1], color="0.5", linestyle=":", linewidth=1.2, label="perfectly calibrated")
    width = 1.0 / (len(probas) + 1) / n_bins
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    for k, (name, P) in enumerate(probas.items()):
        c = reliability_curve(y_true, P, classes=classes, n_bins=n_bins, positive=positive)
        ece = float(np.sum(c.weight * np.abs(c.accuracy - c.confidence)))
        line = ax.plot(c.confidence, c.accuracy, marker="o", markersize=4, linewidth=1.6,
                       label=f"{name} (ECE {ece:.3f})")[0]
        ids = np.searchsorted(edges[1:-1], c.confidence, side="left")
        hist.bar(edges[ids] + (k + 0.5) * width, c.weight, width=width, color=line.get_color(), alpha=0.8)
    what = "top-label confidence" if positive is None else f"predicted P({positive})"
    ax.set_ylabel("observed accuracy" if positive is None else f"observed frequency of {positive}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title(title or "Reliability diagram")
    ax.grid(True, alpha=0.3)
    ax.legend(frameon=False, loc="upper left")
    hist.set_xlabel(f"{what} ({n_bins} equal-width bins)")
    hist.set_ylabel("share of rows")
    hist.set_yscale("log")
    hist.grid(True, alpha=0.3)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    data = buf.getvalue()
    if path is not None:
        Path(path).write_bytes(data)
    return data


# ---------------------------------------------------------------------------- all at once
def classification_measures(y: Any, pred: Any, proba: Any, classes: Any) -> dict[str, Any]:
    """Measures of the predictions ``pred`` (and the probabilities ``proba``, columns =
    ``classes``, or None) against the true labels ``y``, as plain Python (JSON-ready): rows,
    accuracy, macro-F1 (over the classes present in ``y``), labels (the model's classes in its
    order, then labels it never saw, sorted by their text), the confusion matrix (rows: true,
    columns: predicted), per-class precision / recall / F1 / support, and with ``proba`` the
    log-loss (:func:`log_loss`) over the rows whose label the model knows and the number of rows
    it does not (``unknown_labels``). Labels the model never saw count as errors.

    >>> m = classification_measures(["a", "b", "b"], ["a", "b", "a"], None, ["a", "b"])
    >>> m["accuracy"], m["confusion_matrix"]
    (0.6666666666666666, [[1, 0], [1, 1]])
    """
    y = np.asarray(y, dtype=object) if not isinstance(y, np.ndarray) else y
    classes = np.asarray(classes)
    labels = union_terms(classes, y)
    index = {_key(v): i for i, v in enumerate(labels)}
    yi = np.array([index[_key(v)] for v in y], dtype=np.intp)
    pi = np.array([index.get(_key(v), -1) for v in pred], dtype=np.intp)
    if len(pi) != len(yi):
        raise DataError(f"pred: {len(pi)} predictions for {len(yi)} labels")
    if (pi < 0).any():
        i = int(np.argmax(pi < 0))
        raise DataError(f"pred: row {i} predicts {show(pred[i])}, which is not one of the classes")
    K = len(labels)
    cm = np.zeros((K, K), dtype=np.int64)
    np.add.at(cm, (yi, pi), 1)
    tp = np.diag(cm).astype(float)
    support = cm.sum(axis=1)
    predicted = cm.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(predicted > 0, tp / np.maximum(predicted, 1), 0.0)
        recall = np.where(support > 0, tp / np.maximum(support, 1), 0.0)
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
        known = np.array([_key(v) in col for v in y], dtype=bool)
        if known.any():
            idx = np.array([col[_key(v)] for v, k in zip(y, known) if k], dtype=np.intp)
            out["log_loss"] = log_loss_of(idx, np.asarray(proba, dtype=np.float64)[known])
        out["unknown_labels"] = int((~known).sum())
    return out


def union_terms(classes: np.ndarray, y: np.ndarray) -> list[Any]:
    """The model's classes in its order, then labels it never saw (sorted by their text)."""
    known = {_key(v) for v in classes}
    extra: dict[Any, Any] = {}
    for v in y:
        if _key(v) not in known:
            extra.setdefault(_key(v), _plain(v))
    return [_plain(v) for v in classes] + sorted(extra.values(), key=str)


def label_key(v: Any) -> tuple[str, Any]:
    """A label as a dictionary key that keeps its type: ``True`` is not ``1``, ``1`` is not
    ``"1"``; ``1`` and ``1.0`` (and their NumPy forms) are the same number."""
    return _key(v)


def _key(v: Any) -> tuple[str, Any]:
    v = _plain(v)
    return (type(v).__name__ if isinstance(v, bool) or not isinstance(v, int | float) else "num", v)


def _plain(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v
