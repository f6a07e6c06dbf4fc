"""Platt scaling: ``sigmoid(a s + b)`` of the log-odds ``s`` (one-vs-rest for more classes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import Calibrator, _check_scores, _log_odds, _normalise, _softplus


class SigmoidCalibration(Calibrator):
    """Platt scaling of the log-odds s: P = sigmoid(a s + b), fitted by Newton's method on the
    cross-entropy with Platt's smoothed targets (N+ + 1) / (N+ + 2) and 1 / (N- + 2), as
    scikit-learn does. Binary problems have one (a, b) on the log-odds of ``classes_[1]``; K > 2
    classes one per class on its log-odds against the rest, and the K probabilities are then
    normalised (one-vs-rest, as ``CalibratedClassifierCV``). scikit-learn feeds Naive Bayes'
    *probabilities* to the sigmoid (it has no decision function); the log-odds are the scale on
    which Platt's model is linear.

    Scores are clipped to [-c, c], c the largest finite |s| seen in the fit (``clip_``), so an
    infinite log-odds (``alpha=0``) gets the calibrated probability of the most extreme finite
    one, and the map stays monotone."""

    method = "sigmoid"

    def fit(self, log_proba: Any, y: Any, sample_weight: Any = None) -> "SigmoidCalibration":
        L, codes, w = _check_scores(log_proba, y, sample_weight)
        S = _log_odds(L)
        K = L.shape[1]
        a, b, c = np.empty(S.shape[1]), np.empty(S.shape[1]), np.empty(S.shape[1])
        for k in range(S.shape[1]):
            pos = codes == (1 if K == 2 else k)
            a[k], b[k], c[k] = _platt(S[:, k], pos, w)
        self.coef_, self.intercept_, self.clip_ = a, b, c
        self.n_classes_ = int(K)
        return self

    def transform(self, log_proba: Any) -> np.ndarray:
        L = self._checked(log_proba)
        S = np.clip(_log_odds(_normalise(L)), -self.clip_, self.clip_)
        Z = S * self.coef_ + self.intercept_
        if self.n_classes_ == 2:
            return np.column_stack([-_softplus(Z[:, 0]), -_softplus(-Z[:, 0])])
        return _normalise(-_softplus(-Z))

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"coef": self.coef_, "intercept": self.intercept_, "clip": self.clip_}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_classes: int) -> "SigmoidCalibration":
        m = 1 if n_classes == 2 else n_classes
        out = cls()
        for name in ("coef", "intercept", "clip"):
            v = np.asarray(arrays[name], dtype=np.float64)
            if v.shape != (m,) or not np.isfinite(v).all():
                raise ValueError(f"sigmoid {name}: expected {m} finite numbers, got shape {v.shape}")
            setattr(out, name + "_", v)
        out.n_classes_ = n_classes
        return out


def _platt(s: np.ndarray, pos: np.ndarray, w: np.ndarray) -> tuple[float, float, float]:
    """(a, b, c) minimising the weighted cross-entropy of sigmoid(a s + b) with Platt's targets,
    s clipped to [-c, c]."""
    fin = np.isfinite(s)
    c = float(np.max(np.abs(s[fin]))) if fin.any() else 1.0
    c = c if c > 0 else 1.0
    x = np.clip(s, -c, c) / c  # in [-1, 1]: the problem is well scaled
    n1, n0 = float(w[pos].sum()), float(w[~pos].sum())
    t = np.where(pos, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))
    # sums written out (no BLAS: see _fit_beta); z = A x + B
    def loss(theta: np.ndarray) -> float:
        z = theta[0] * x + theta[1]
        return float(np.sum(w * (_softplus(z) - t * z)))

    theta = np.array([0.0, np.log((n1 + 1.0) / (n0 + 1.0))])
    f = loss(theta)
    for _ in range(200):
        z = theta[0] * x + theta[1]
        p = np.exp(-_softplus(-z))
        r, v = w * (p - t), w * p * (1.0 - p)
        g = np.array([np.sum(r * x), np.sum(r)])
        vx = v * x
        H = np.array([[np.sum(vx * x), np.sum(vx)], [np.sum(vx), np.sum(v)]])
        step = np.linalg.lstsq(H, -g, rcond=None)[0]
        if not np.all(np.isfinite(step)):
            break
        size = 1.0
        while size > 1e-12:
            new = theta + size * step
            fn = loss(new)
            # near the optimum the loss is flat to rounding (a Newton step of 1e-9 changes it by
            # 1e-18): a full step that does not raise it beyond rounding is taken, so the fit
            # converges to rounding and scores a few ulps apart (fold statistics summed exactly,
            # a model fitted on the rows) give the same map, not one 1e-9 apart
            if fn <= f or (size == 1.0 and fn - f <= 4 * np.finfo(float).eps * max(abs(f), 1.0)):
                break
            size *= 0.5
        else:
            break
        done = abs(f - fn) <= 4 * np.finfo(float).eps * max(abs(f), 1.0) and np.max(np.abs(size * step)) < 1e-10
        theta, f = new, fn
        if done or np.max(np.abs(g)) <= 1e-13 * max(float(w.sum()), 1.0):
            break
    return float(theta[0] / c), float(theta[1]), c
