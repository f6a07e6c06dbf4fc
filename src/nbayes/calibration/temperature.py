"""Temperature scaling: ``softmax(log(p + eps) / T)``, one ``T > 0`` for every class and row."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_choice, check_number
from ._base import Calibrator, _check_scores, _normalise


class TemperatureScaling(Calibrator):
    """``softmax(log(p + eps) / T)``: the posterior mixed with a little of the uniform
    distribution (``eps``), then one temperature ``T > 0`` for every class and row. Both keep
    each row's ordering of the classes, hence its most probable class and the accuracy.

    ``T``: the log-loss is convex in ``beta = 1 / T``; its derivative, the weighted sum over rows
    of E_q[d] - d_y (``d = log(p + eps) - max``, ``q = softmax(beta d)``), increases with beta,
    so the optimum is its root: safeguarded Newton steps (the second derivative is the variance
    of d under q) inside a bracket on log(beta) in [-30, 30] (a bound is taken when the root
    lies beyond it: T -> 0 for scores that separate the classes perfectly).

    ``eps``: ``"auto"`` (the default) picks it from a grid (0, and 1e-2 down to 1e-300) by the
    log-loss of the calibration rows; ``0`` is plain temperature scaling of the log-probabilities;
    ``1e-12`` is scikit-learn's (it takes ``log(p + 1e-12)`` of ``predict_proba``). Naive Bayes
    log-odds grow with the length of a document, so a few long, confidently wrong documents
    dominate the log-loss of plain temperature scaling and force a high T on every row; the
    uniform component bounds what one row can cost and lets T fit the rest (20 Newsgroups:
    test log-loss 1.25 with eps = 0, 1.00 with the chosen 1e-20, 1.01 with scikit-learn's 1e-12).

    A class with probability 0 (``-inf``) gets eps; with ``eps = 0`` it stays 0, and rows whose
    true class has probability 0 cost infinity at every T, so they are left out of the fit
    (``n_impossible_`` counts them)."""

    method = "temperature"
    BOUND = 30.0
    GRID: tuple[float, ...] = (0.0, 1e-300, 1e-100, 1e-50, 1e-30, 1e-24, 1e-20, 1e-16, 1e-12, 1e-9, 1e-6, 1e-4, 1e-3, 1e-2)

    def __init__(self, eps: Any = "auto") -> None:
        self.eps = eps

    def fit(self, log_proba: Any, y: Any, sample_weight: Any = None) -> "TemperatureScaling":
        L, codes, w = _check_scores(log_proba, y, sample_weight)
        if isinstance(self.eps, str):
            check_choice("eps", self.eps, ("auto",))
            grid = self.GRID
        else:
            check_number("eps", self.eps, low=0.0)
            grid = (float(self.eps),)
        best: tuple[float, float, float, int] | None = None
        t = 0.0
        for eps in grid:
            t, loss, impossible = _fit_beta(_smooth(L, eps), codes, w, t, self.BOUND)
            if best is None or loss < best[0]:
                best = (loss, eps, t, impossible)
        assert best is not None
        self.log_loss_, self.eps_, self.n_impossible_ = best[0], best[1], best[3]
        self.temperature_ = float(np.exp(-best[2]))
        self.n_classes_ = int(L.shape[1])
        return self

    def transform(self, log_proba: Any) -> np.ndarray:
        L = _smooth(self._checked(log_proba), self.eps_)
        d = L - L.max(axis=1, keepdims=True)
        return _normalise(d / self.temperature_)

    def to_arrays(self) -> dict[str, np.ndarray]:
        return {"temperature": np.array([self.temperature_]), "eps": np.array([self.eps_])}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_classes: int) -> "TemperatureScaling":
        T = float(np.asarray(arrays["temperature"]).reshape(-1)[0])
        eps = float(np.asarray(arrays["eps"]).reshape(-1)[0])
        if not (np.isfinite(T) and T > 0 and np.isfinite(eps) and 0 <= eps < 1):
            raise ValueError(f"temperature {T!r} / eps {eps!r} out of range")
        out = cls(eps=eps)
        out.temperature_, out.eps_, out.n_classes_, out.n_impossible_ = T, eps, n_classes, 0
        return out


def _smooth(L: np.ndarray, eps: float) -> np.ndarray:
    """log(p + eps), exactly (-inf becomes log eps)."""
    return L if eps == 0 else np.logaddexp(L, np.log(eps))


def _fit_beta(L: np.ndarray, codes: np.ndarray, w: np.ndarray, t0: float, bound: float) -> tuple[float, float, int]:
    """(log beta, mean log-loss at it, rows left out) for softmax(beta L)."""
    d = L - L.max(axis=1, keepdims=True)
    dy = d[np.arange(len(codes)), codes]
    ok = np.isfinite(dy) & (w > 0)
    if not ok.all():
        d, dy, w = d[ok], dy[ok], w[ok]
    W = float(w.sum())
    if W <= 0:
        return 0.0, np.inf, int((~ok).sum())
    finite = np.isfinite(d)
    mask = None if finite.all() else finite.astype(np.float64)
    d0 = d if mask is None else np.where(finite, d, 0.0)
    d2 = d0 * d0
    buf = np.empty_like(d0)

    def moments(t: float) -> tuple[float, float, float]:
        """(loss, slope, curvature) in beta = e^t, per unit weight."""
        beta = float(np.exp(t))
        # e^-700 in place of smaller terms (each row's largest is 1): subnormal results of exp
        # are slow, and change the sums by less than 1e-300
        np.multiply(d0, beta, out=buf)
        np.maximum(buf, -700.0, out=buf)
        np.exp(buf, out=buf)
        if mask is not None:
            np.multiply(buf, mask, out=buf)
        z = buf.sum(axis=1)
        m1 = np.einsum("ij,ij->i", buf, d0) / z
        m2 = np.einsum("ij,ij->i", buf, d2) / z
        # weighted sums without BLAS: a dot product waking BLAS threads on a busy machine can
        # cost milliseconds
        loss = float(np.sum(w * (np.log(z) - beta * dy))) / W
        return loss, float(np.sum(w * (m1 - dy))) / W, float(np.sum(w * np.maximum(m2 - m1 * m1, 0.0))) / W

    lo, hi = -bound, bound
    t = min(max(t0, lo), hi)
    loss, g, h = moments(t)
    for _ in range(200):
        if g > 0:
            hi = t
        elif g < 0:
            lo = t
        else:
            break
        step = -g / (h * np.exp(t)) if h > 0 else -np.sign(g) * np.inf  # Newton in log beta
        if abs(step) <= 1e-12 * max(1.0, abs(t)):
            break
        new = t + step
        if not (lo < new < hi):  # outside the bracket: expand it, or bisect it
            if g < 0 and hi == bound:
                new = min(t + 2.0, hi)
            elif g > 0 and lo == -bound:
                new = max(t - 2.0, lo)
            else:
                new = 0.5 * (lo + hi)
        if abs(new - t) <= 1e-12 * max(1.0, abs(t)):
            break
        t = new
        loss, g, h = moments(t)
        if (t >= bound and g <= 0) or (t <= -bound and g >= 0):
            break
    return t, loss, int((~ok).sum())
