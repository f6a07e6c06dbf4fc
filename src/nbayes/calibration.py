"""Probability calibration: Naive Bayes posteriors are over-confident; a one-dimensional map
fitted on out-of-fold scores repairs them.

:class:`CalibratedClassifier` fits the model once on all the data and a calibrator on the
out-of-fold log-probabilities of :func:`nbayes.model_selection.cross_val_predict` (for Naive
Bayes computed from the statistics, without refitting per fold). Three maps, each of the
log-probabilities ``L`` (so ``-inf``, a zero probability from ``alpha=0``, never becomes NaN):

- ``"temperature"`` (the default): ``softmax(L / T)``, one scalar ``T > 0`` minimising the
  log-loss; it keeps every row's most probable class, so accuracy is unchanged.
- ``"sigmoid"`` (Platt): ``sigmoid(a s + b)`` of the log-odds ``s`` (binary: of ``classes_[1]``;
  more classes: of each class against the rest, then normalised), Platt's smoothed targets.
- ``"isotonic"``: a non-decreasing step-linear map of each class's log-odds, then normalised.

>>> import numpy as np, nbayes
>>> from nbayes.calibration import TemperatureScaling
>>> L = np.log([[0.99, 0.01], [0.98, 0.02], [0.03, 0.97], [0.97, 0.03]])  # too sure
>>> ts = TemperatureScaling(eps=0).fit(L, np.array([0, 0, 1, 1]))
>>> round(ts.temperature_, 3)   # T > 1 softens: softmax(log p / T)
3.151
>>> np.exp(ts.transform(L)).round(3)[:, 1].tolist()  # the argmax of every row is kept
[0.189, 0.225, 0.751, 0.249]
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ._estimator import Classifier
from ._validation import check_choice, check_sample_weight, check_y, classes_and_codes, encode_labels, n_rows, show
from .errors import DataError, InvalidParameterError, NotFittedError

__all__ = [
    "CalibratedClassifier",
    "IsotonicCalibration",
    "SigmoidCalibration",
    "TemperatureScaling",
    "calibrate",
]

METHODS = ("temperature", "sigmoid", "isotonic")


# ---------------------------------------------------------------------------- log-space helpers
def _lse(L: np.ndarray, axis: int = 1) -> np.ndarray:
    """log sum exp along ``axis``; a slice of only -inf gives -inf (no warning)."""
    m = np.max(L, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(L - safe), axis=axis, keepdims=True)) + safe
    return np.squeeze(np.where(np.isneginf(m), -np.inf, out), axis=axis)


def _normalise(Z: np.ndarray) -> np.ndarray:
    """Rows of log-scores to log-probabilities (rows whose maximum is finite)."""
    return Z - _lse(Z)[:, None]


def _softplus(z: np.ndarray) -> np.ndarray:
    """log(1 + e^z), exact for large |z|."""
    return np.logaddexp(0.0, z)


def _log_odds(L: np.ndarray) -> np.ndarray:
    """Per class, log p_k - log(1 - p_k) = L_k - logsumexp_{j != k} L_j, from normalised
    log-probabilities without forming 1 - p (which rounds to 0 for a confident row): the other
    classes are summed directly. Binary problems give one column, the log-odds of class 1."""
    n, K = L.shape
    if K == 2:
        with np.errstate(invalid="ignore"):
            s = L[:, 1] - L[:, 0]
        return s[:, None]
    rows = np.arange(n)
    top = np.argmax(L, axis=1)
    m = L[rows, top][:, None]
    with np.errstate(divide="ignore"):
        E = np.exp(L - m)  # the top class is 1, so S - E_k >= 1 for every other k: no cancellation
        others = m + np.log(E.sum(axis=1, keepdims=True) - E)
    rest = L.copy()
    rest[rows, top] = -np.inf
    others[rows, top] = _lse(rest)
    with np.errstate(invalid="ignore"):
        return L - others  # rows are normalised: L_k and others_k are never both -inf


def _check_scores(L: Any, codes: Any, sample_weight: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    L = np.asarray(L, dtype=np.float64)
    if L.ndim != 2 or L.shape[1] < 2:
        raise DataError(f"log_proba: expected a matrix (rows x classes, at least 2), got shape {L.shape}")
    if np.isnan(L).any() or np.isposinf(L).any():
        i, j = (int(v) for v in np.argwhere(np.isnan(L) | np.isposinf(L))[0])
        raise DataError(f"log_proba: row {i}, column {j} is {show(L[i, j])}; log-probabilities are <= 0 or -inf")
    if np.isneginf(L.max(axis=1)).any():
        i = int(np.argmax(np.isneginf(L.max(axis=1))))
        raise DataError(f"log_proba: row {i} gives every class probability 0")
    codes = np.asarray(codes)
    if codes.shape != (L.shape[0],) or codes.dtype.kind not in "iu":
        raise DataError(f"y: expected {L.shape[0]} integer class positions, got {codes.dtype} of shape {codes.shape}")
    if len(codes) and (codes.min() < 0 or codes.max() >= L.shape[1]):
        raise DataError(f"y: class positions lie in 0..{L.shape[1] - 1}")
    w = check_sample_weight(sample_weight, L.shape[0])
    w = np.ones(L.shape[0]) if w is None else w
    if w.sum() <= 0:
        raise DataError("sample_weight: the weights sum to zero; nothing to calibrate on")
    return _normalise(L), codes.astype(np.intp), w


# ---------------------------------------------------------------------------- the three maps
class _Calibrator:
    """A fitted map from log-probabilities (n, K) to calibrated log-probabilities (n, K)."""

    method: ClassVar[str] = ""

    def fit(self, log_proba: Any, y: Any, sample_weight: Any = None) -> "_Calibrator":
        raise NotImplementedError

    def transform(self, log_proba: Any) -> np.ndarray:
        raise NotImplementedError

    def to_arrays(self) -> dict[str, np.ndarray]:
        raise NotImplementedError

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_classes: int) -> "_Calibrator":
        raise NotImplementedError

    def _checked(self, log_proba: Any) -> np.ndarray:
        if not hasattr(self, "n_classes_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")
        L = np.asarray(log_proba, dtype=np.float64)
        if L.ndim != 2 or L.shape[1] != self.n_classes_:
            raise DataError(f"log_proba: expected {self.n_classes_} columns, got shape {L.shape}")
        return L


class TemperatureScaling(_Calibrator):
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
    GRID = (0.0, 1e-300, 1e-100, 1e-50, 1e-30, 1e-24, 1e-20, 1e-16, 1e-12, 1e-9, 1e-6, 1e-4, 1e-3, 1e-2)

    def __init__(self, eps: Any = "auto") -> None:
        self.eps = eps

    def fit(self, log_proba: Any, y: Any, sample_weight: Any = None) -> "TemperatureScaling":
        L, codes, w = _check_scores(log_proba, y, sample_weight)
        if isinstance(self.eps, str):
            check_choice("eps", self.eps, ("auto",))
            grid = self.GRID
        else:
            from ._validation import check_number

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


class SigmoidCalibration(_Calibrator):
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
            if fn <= f:
                break
            size *= 0.5
        else:
            break
        done = abs(f - fn) <= 4 * np.finfo(float).eps * max(abs(f), 1.0) and np.max(np.abs(size * step)) < 1e-10
        theta, f = new, fn
        if done or np.max(np.abs(g)) <= 1e-13 * max(float(w.sum()), 1.0):
            break
    return float(theta[0] / c), float(theta[1]), c


class IsotonicCalibration(_Calibrator):
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
            return np.log(P) - np.log(P.sum(axis=1, keepdims=True))

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
        vals, wts, sizes = [], [], []
        for v, u in zip(y.tolist(), w.tolist()):
            vals.append(v), wts.append(u), sizes.append(1)
            while len(vals) > 1 and vals[-2] > vals[-1]:
                u2, u1 = wts.pop(), wts.pop()
                v2, v1 = vals.pop(), vals.pop()
                n2, n1 = sizes.pop(), sizes.pop()
                vals.append((v1 * u1 + v2 * u2) / (u1 + u2)), wts.append(u1 + u2), sizes.append(n1 + n2)
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


CALIBRATORS: dict[str, type[_Calibrator]] = {
    "temperature": TemperatureScaling,
    "sigmoid": SigmoidCalibration,
    "isotonic": IsotonicCalibration,
}


# ---------------------------------------------------------------------------- the estimator
def _check_estimator(estimator: Any) -> None:
    if estimator is None or not hasattr(estimator, "fit"):
        raise InvalidParameterError(f"estimator: expected an nbayes classifier, got {estimator!r}")
    if not (hasattr(estimator, "predict_log_proba") or hasattr(estimator, "predict_proba")):
        raise InvalidParameterError(
            f"estimator: a {type(estimator).__name__} cannot produce probabilities "
            "(it has no predict_log_proba), so there is nothing to calibrate"
        )
    if type(estimator).__name__ == "CalibratedClassifier":
        raise InvalidParameterError("estimator: this model is calibrated already; calibrate its base_estimator_")


def _n_folds(cv: Any) -> int | None:
    if isinstance(cv, bool) or cv is None:
        raise InvalidParameterError(f"cv: expected a number of folds >= 2, a splitter or (train, test) pairs, got {cv!r}")
    if isinstance(cv, int | np.integer):
        if cv < 2:
            raise InvalidParameterError(f"cv: a number of folds must be >= 2, got {cv}")
        return int(cv)
    n = getattr(cv, "n_splits", None)
    return int(n) if isinstance(n, int | np.integer) else None


def _log_proba_of(model: Any, X: Any) -> np.ndarray:
    if hasattr(model, "predict_log_proba"):
        return np.asarray(model.predict_log_proba(X), dtype=np.float64)
    with np.errstate(divide="ignore"):  # a model with probabilities only: log once, here
        return np.log(np.asarray(model.predict_proba(X), dtype=np.float64))


class CalibratedClassifier(Classifier):
    """A classifier whose probabilities are calibrated on out-of-fold scores.

    ``fit(X, y)`` fits ``estimator`` (any nbayes classifier: Naive Bayes models including
    ``TextClassifier`` on texts and ``NaiveBayes`` on frames, ``GaussianBayes``,
    ``LogisticRegression``) once on all rows, gets its out-of-fold log-probabilities from
    :func:`nbayes.model_selection.cross_val_predict` with ``cv`` (Naive Bayes: from the
    statistics, without a refit per fold; other models are refitted per fold) and fits the
    calibration map on them (``calibrator_``). Predictions are the base model's
    log-probabilities passed through the map. ``method="temperature"`` keeps every prediction
    (and so the accuracy) of the base model; ``"sigmoid"`` and ``"isotonic"`` may change some.

    ``ensemble=True`` is scikit-learn's default design (``CalibratedClassifierCV(ensemble=True)``):
    for each split i, the fold model ``estimators_[i]`` (trained on the split's training rows;
    for Naive Bayes taken from the fold statistics, no refit) and a map ``calibrators_[i]``
    fitted on its log-probabilities of the split's held-out rows; ``predict_proba`` is the mean
    over i of ``calibrators_[i]`` applied to ``estimators_[i]`` (probabilities averaged, as
    scikit-learn does; ``predict_log_proba`` its log, by log-sum-exp; ``predict`` its argmax,
    so even temperature scaling may change predictions). ``calibrator_`` is then None, and
    ``base_estimator_`` is still the model of all rows (``explain`` uses it). It costs K fold
    models to store and evaluate. With ``ensemble=False`` (the default) ``estimators_`` and
    ``calibrators_`` are ``[base_estimator_]`` and ``[calibrator_]``.

    The calibrated model saves to one model file (``save``, :func:`nbayes.load`) and serves
    unchanged; ``explain`` explains the base model (for temperature scaling its log-odds are
    the calibrated ones times T).

    >>> import nbayes
    >>> X = [[3, 0], [2, 1], [4, 0], [3, 1], [0, 3], [1, 2], [0, 4], [1, 3]] * 3
    >>> y = ["a", "a", "a", "a", "b", "b", "b", "b"] * 3
    >>> cal = CalibratedClassifier(nbayes.MultinomialNB(), cv=3).fit(X, y)
    >>> cal.predict([[2, 2]]).tolist() == cal.base_estimator_.predict([[2, 2]]).tolist()
    True
    >>> round(float(cal.predict_proba([[2, 2]]).sum()), 12)
    1.0
    """

    _capabilities = frozenset({"sample_weight", "save"})

    def __init__(self, estimator: Any, *, method: str = "temperature", cv: Any = 5, ensemble: bool = False) -> None:
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.ensemble = ensemble

    # ------------------------------------------------------------------ training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "CalibratedClassifier":
        """Fit the base model on all rows and the calibrator on its out-of-fold
        log-probabilities. Returns self; a failure leaves the model unchanged."""
        from .model_selection import check_cv
        from .model_selection._split import LeaveOneOutSplits
        from .model_selection._validate import out_of_fold

        check_choice("method", self.method, METHODS)
        if not isinstance(self.ensemble, bool | np.bool_):
            raise InvalidParameterError(f"ensemble: expected True or False, got {self.ensemble!r}")
        _check_estimator(self.estimator)
        folds = _n_folds(self.cv)
        n = n_rows(X)
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        classes, codes = classes_and_codes(y)
        if len(classes) < 2:
            raise DataError(f"y holds one class ({show(classes[0]) if len(classes) else 'none'}); calibration needs two or more")
        if folds is not None:
            counts = np.bincount(codes, minlength=len(classes))
            k = int(np.argmin(counts))
            if counts[k] < folds:
                raise DataError(
                    f"cv={folds}: class {show(classes[k])} has {counts[k]} rows, fewer than the {folds} "
                    f"folds; every fold's training part must hold every class (use cv <= {counts[k]}, "
                    "or drop the class)"
                )
        splits = check_cv(self.cv, X, y)
        for i, (train, _) in enumerate(splits):
            seen = np.bincount(codes[train], minlength=len(classes))
            if (seen == 0).any():
                k = int(np.argmax(seen == 0))
                raise DataError(
                    f"cv: the training part of split {i} has no row of class {show(classes[k])}; "
                    "a fold model must know every class to be calibrated (use stratified folds, or fewer)"
                )
        ensemble = bool(self.ensemble)
        if ensemble and isinstance(splits, LeaveOneOutSplits):
            raise InvalidParameterError("ensemble=True with leave-one-out would keep one model per row; use K folds")
        # out-of-fold scores from the fold statistics, and the model of all rows from the same
        # counts (nbayes.model_selection): the data is read and counted once
        oof, engine = out_of_fold(self.estimator, X, y, splits, w, keep_models=ensemble)
        if oof.shape != (n, len(classes)) or np.isnan(oof).any():
            raise DataError(f"cross_val_predict returned shape {oof.shape} (or NaN), expected ({n}, {len(classes)})")
        base = engine.model({}, None)
        _check_classes(base, classes, "the base model")
        if not ensemble:
            self._set(base, CALIBRATORS[self.method]().fit(oof, codes, w))
        else:
            fold_models = [engine.fold_model(i) for i in range(len(splits))]
            maps = []
            for i, ((_, test), m) in enumerate(zip(splits, fold_models)):
                _check_classes(m, classes, f"the model of split {i}")
                maps.append(CALIBRATORS[self.method]().fit(oof[test], codes[test], None if w is None else w[test]))
            self._set(base, None, fold_models, maps)
        self.oof_log_proba_ = oof  # the out-of-fold scores the map was fitted on (before it)
        return self

    def _set(self, base: Any, calibrator: _Calibrator | None, estimators: list | None = None,
             calibrators: list | None = None) -> None:
        """One map on the base model (``calibrator``), or an ensemble (``calibrator`` None)."""
        self.base_estimator_ = base
        self.calibrator_ = calibrator
        self.estimators_ = [base] if calibrator is not None else list(estimators or [])
        self.calibrators_ = [calibrator] if calibrator is not None else list(calibrators or [])
        self.classes_ = base.classes_
        for name in ("n_features_in_", "feature_names_in_"):
            value = getattr(base, name, None)
            if value is not None:
                setattr(self, name, value)
            else:
                self.__dict__.pop(name, None)

    # ------------------------------------------------------------------ inference
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Calibrated log P(y = c | x): the base model's log-probabilities through the map
        (ensemble: the log of the mean over the fold models of their calibrated probabilities,
        by log-sum-exp)."""
        self._check_fitted()
        if self.calibrator_ is None:
            return self._ensemble_log_proba(X)
        return self.calibrator_.transform(_log_proba_of(self.base_estimator_, X))

    def _ensemble_log_proba(self, X: Any) -> np.ndarray:
        C = np.stack([c.transform(_log_proba_of(m, X)) for m, c in zip(self.estimators_, self.calibrators_)])
        return _lse(C, axis=0) - np.log(len(self.calibrators_))

    def predict(self, X: Any) -> np.ndarray:
        """The class of highest calibrated probability (temperature: the base model's class)."""
        return self.classes_[self._predict_index_proba(X)[0]]

    def _predict_index_proba(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(index of the predicted class, calibrated probabilities), one pass of the base model."""
        self._check_fitted()
        if self.calibrator_ is None:  # ensemble: the argmax of the averaged probabilities
            C = self._ensemble_log_proba(X)
            return np.argmax(C, axis=1), np.exp(C)
        L = _log_proba_of(self.base_estimator_, X)
        C = self.calibrator_.transform(L)
        best = np.argmax(L if self.calibrator_.method == "temperature" else C, axis=1)
        return best, np.exp(C)

    def explain(self, X: Any) -> Any:
        """The base model's explanation (uncalibrated log-odds; see the class notes)."""
        self._check_fitted()
        return self.base_estimator_.explain(X)

    # ------------------------------------------------------------------ model files
    def save(self, path: Any) -> None:
        """Write the model (base and map) to one model file; :func:`nbayes.load` reads it."""
        from .io.model_file import save_state

        self._check_fitted()
        save_state(path, self._state())

    def _state(self) -> dict[str, Any]:
        """The base model's state nested under ``base/`` (arrays) and ``meta["base"]`` (kind,
        params, meta); one map's arrays under ``calibrator/``. An ensemble adds its fold models
        under ``fold/<i>/`` and ``meta["folds"][i]``, and its maps under ``calibrator/<i>/``."""
        base = _state_of(self.base_estimator_)
        arrays = {f"base/{k}": v for k, v in base["arrays"].items()}
        params = {
            "method": self.calibrators_[0].method,
            "cv": int(self.cv) if isinstance(self.cv, int | np.integer) and not isinstance(self.cv, bool) else None,
        }
        meta = {
            "base": {"kind": base["kind"], "params": base["params"], "meta": base["meta"]},
            "n_classes": len(self.classes_),
            "n_features_in": getattr(self, "n_features_in_", None),
            "feature_names": self._names(),
            "n_samples_seen": base["meta"].get("n_samples_seen"),
        }
        if self.calibrator_ is not None:
            arrays.update({f"calibrator/{k}": v for k, v in self.calibrator_.to_arrays().items()})
        else:
            params["ensemble"] = True
            meta["folds"] = []
            for i, (m, c) in enumerate(zip(self.estimators_, self.calibrators_)):
                fold = _state_of(m)
                arrays.update({f"fold/{i}/{k}": v for k, v in fold["arrays"].items()})
                arrays.update({f"calibrator/{i}/{k}": v for k, v in c.to_arrays().items()})
                meta["folds"].append({"kind": fold["kind"], "params": fold["params"], "meta": fold["meta"]})
        return {"kind": type(self).__name__, "params": params, "meta": meta, "arrays": arrays}

    @classmethod
    def _from_state(cls, state: dict[str, Any]) -> "CalibratedClassifier":
        from .io.load import _registry

        params, meta, arrays = state["params"], state["meta"], state["arrays"]
        method = params["method"]
        if method not in CALIBRATORS:
            raise ValueError(f"unknown calibration method {method!r}")
        def nested(inner: dict[str, Any], prefix: str) -> Any:
            kind = inner["kind"]
            inner_cls = _registry().get(kind)
            if inner_cls is None or inner_cls is cls:
                raise ValueError(f"unknown base model kind {kind!r}")
            return inner_cls._from_state({
                "kind": kind, "params": inner["params"], "meta": inner["meta"],
                "arrays": {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)},
            })

        def calibrator(prefix: str) -> _Calibrator:
            return CALIBRATORS[method].from_arrays({k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}, K)

        base = nested(meta["base"], "base/")
        K = len(base.classes_)
        ensemble = bool(params.get("ensemble", False))
        model = cls(type(base)(**base.get_params()), method=method, cv=5 if params.get("cv") is None else int(params["cv"]),
                    ensemble=ensemble)
        if not ensemble:
            model._set(base, calibrator("calibrator/"))
            return model
        folds = meta["folds"]
        if not isinstance(folds, list) or not folds:
            raise ValueError("an ensemble file lists no fold models")
        models = [nested(f, f"fold/{i}/") for i, f in enumerate(folds)]
        for i, m in enumerate(models):
            _check_classes(m, np.asarray(base.classes_), f"fold model {i}")
        model._set(base, None, models, [calibrator(f"calibrator/{i}/") for i in range(len(models))])
        return model

    # ------------------------------------------------------------------ scikit-learn
    @property
    def _string_input(self) -> bool:  # type: ignore[override]
        return bool(getattr(self.estimator, "_string_input", False))

    @property
    def _accepts_sparse(self) -> bool:  # type: ignore[override]
        return bool(getattr(self.estimator, "_accepts_sparse", False))


def _check_classes(model: Any, classes: np.ndarray, what: str) -> None:
    got, unknown = encode_labels(np.asarray(model.classes_), classes)
    if unknown.any() or len(model.classes_) != len(classes) or np.any(got != np.arange(len(classes))):
        raise DataError(f"{what}: its classes_ differ from the sorted labels of y")


def _state_of(model: Any) -> dict[str, Any]:
    if not hasattr(model, "_state"):
        raise InvalidParameterError(f"a {type(model).__name__} cannot be written to a model file")
    return model._state()


def calibrate(
    model: Any, X: Any, y: Any, *, method: str = "temperature", sample_weight: Any = None
) -> CalibratedClassifier:
    """Calibrate an already fitted ``model`` on held-out rows (X, y) it was not trained on: the
    map is fitted on its log-probabilities there; the model itself is used as is (not copied,
    not refitted). Returns a :class:`CalibratedClassifier` ready to predict and save."""
    check_choice("method", method, METHODS)
    _check_estimator(model)
    if not hasattr(model, "classes_"):
        raise NotFittedError(f"calibrate: this {type(model).__name__} is not fitted; fit it first (or use CalibratedClassifier)")
    L = _log_proba_of(model, X)
    y = check_y(y, L.shape[0])
    codes, unknown = encode_labels(y, np.asarray(model.classes_))
    if unknown.any():
        i = int(np.argmax(unknown))
        raise DataError(f"y: row {i} has label {show(y[i])}, a class the model does not know")
    cal = CALIBRATORS[method]().fit(L, codes, sample_weight)
    out = CalibratedClassifier(model, method=method)
    out._set(model, cal)
    return out
