"""Per-label decision thresholds on log-odds, chosen from out-of-fold scores to maximise the
macro-F1 (each label its own best F1) or the micro-F1 (coordinate ascent over labels)."""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp


def _cuts(S: np.ndarray, Yd: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per label: the thresholds between its distinct scores (highest first; the first predicts
    nothing) and the true / false positives each predicts (positive: score > threshold). One
    sort of every label's scores at once."""
    St = np.ascontiguousarray(S.T)
    order = np.argsort(-St, axis=1, kind="stable")
    ss = np.take_along_axis(St, order, axis=1)
    yy = np.take_along_axis(np.ascontiguousarray(Yd.T), order, axis=1)
    L, n = ss.shape
    last = np.ones((L, n), dtype=bool)  # the last row of each run of equal scores
    last[:, :-1] = ss[:, 1:] != ss[:, :-1]
    below = np.full((L, n), -np.inf)
    below[:, :-1] = ss[:, 1:]
    with np.errstate(invalid="ignore"):
        mid = (ss + below) / 2  # inf + -inf: NaN, replaced below
    mids = np.select(
        [np.isfinite(mid), np.isneginf(ss), np.isposinf(ss) & np.isneginf(below), np.isposinf(ss)],
        [mid, -np.inf, 0.0, below + 1.0],
        default=ss - 1.0,  # the lowest finite score: just below it
    )
    ctp = np.cumsum(yy, axis=1)
    out = []
    for l in range(L):
        idx = np.flatnonzero(last[l])
        first = ss[l, 0] + 1.0 if n and np.isfinite(ss[l, 0]) else np.inf
        tp = np.r_[0.0, ctp[l, idx]]
        k = np.r_[0.0, (idx + 1).astype(np.float64)]
        out.append((np.r_[first, mids[l, idx]], tp, k - tp))
    return out


def f1_thresholds(S: np.ndarray, Y: sp.csr_matrix, average: str) -> np.ndarray:
    """Per-label thresholds on the scores ``S`` (n, L) for the indicator ``Y`` maximising the
    ``average`` ("macro" or "micro") F1 of ``S > threshold``; a label whose best F1 is 0 keeps
    the default threshold 0 (probability 1/2). Never below the F1 of the default thresholds."""
    n, L = S.shape
    Yd = np.asarray(Y.todense(), dtype=np.float64) if sp.issparse(Y) else np.asarray(Y, dtype=np.float64)
    P = Yd.sum(axis=0)
    cuts = _cuts(S, Yd)
    thr = np.zeros(L)
    for l, (t, tp, fp) in enumerate(cuts):
        f1 = 2 * tp / np.maximum(2 * tp + fp + (P[l] - tp), 1e-300)
        best = int(np.argmax(f1))
        if f1[best] > _f1_at(S[:, l], Yd[:, l], 0.0):
            thr[l] = t[best]
    if average == "macro":
        return thr
    default = np.zeros(L)
    start = thr if _micro(S, Yd, thr) >= _micro(S, Yd, default) else default
    return _ascend(S, Yd, P, cuts, start)


def _f1_at(s: np.ndarray, y: np.ndarray, t: float) -> float:
    pred = s > t
    tp = float(np.sum(pred * y))
    d = float(np.sum(pred) + np.sum(y))
    return 2 * tp / d if d > 0 else 0.0


def _micro(S: np.ndarray, Yd: np.ndarray, thr: np.ndarray) -> float:
    pred = S > thr
    tp = float(np.sum(pred * Yd))
    d = float(pred.sum() + Yd.sum())
    return 2 * tp / d if d > 0 else 0.0


def _ascend(S: np.ndarray, Yd: np.ndarray, P: np.ndarray, cuts: list[Any], thr: np.ndarray) -> np.ndarray:
    """Coordinate ascent on the micro-F1 = 2 TP / (2 TP + FP + FN): each label in turn takes the
    cut best for the sum over all labels, the others fixed; stops when a sweep changes nothing."""
    thr = thr.copy()
    pred = S > thr
    tp_l = (pred * Yd).sum(axis=0)
    fp_l = pred.sum(axis=0) - tp_l
    for _ in range(10):
        changed = False
        for l, (t, tp, fp) in enumerate(cuts):
            TP = tp_l.sum() - tp_l[l]
            FP = fp_l.sum() - fp_l[l]
            FN = (P.sum() - tp_l.sum()) - (P[l] - tp_l[l])
            num = 2 * (TP + tp)
            f = num / np.maximum(num + FP + fp + FN + (P[l] - tp), 1e-300)
            cur = 2 * (TP + tp_l[l]) / max(2 * (TP + tp_l[l]) + FP + fp_l[l] + FN + (P[l] - tp_l[l]), 1e-300)
            best = int(np.argmax(f))
            if f[best] > cur + 1e-12:
                thr[l], tp_l[l], fp_l[l] = t[best], tp[best], fp[best]
                changed = True
        if not changed:
            break
    return thr
