"""Label shift: estimate the class prior of unlabelled documents, then adapt (docs/label-shift.md).

``model.estimate_prior(X_unlabeled)`` (every classifier) runs Saerens et al.'s EM on the model's
posteriors. The accurate way first calibrates them on held-out training rows, as Alexandari,
Kundaje & Shrikumar (2020) show: :class:`ShiftCalibration` fits bias-corrected temperature
scaling (BCTS: ``softmax(beta log(p + eps) + b)``, one ``beta > 0`` and one bias per class) to the
out-of-fold log-posteriors of :func:`nbayes.model_selection.cross_val_predict`, which Naive Bayes
computes from the fold statistics without refitting, and keeps their confusion matrix for BBSE.

>>> import numpy as np, nbayes
>>> from nbayes.shift import ShiftCalibration
>>> X = [[3, 0], [2, 1], [4, 1], [0, 3], [1, 2], [0, 4], [3, 1], [1, 3]]
>>> y = list("aaabbbab")
>>> model = nbayes.MultinomialNB().fit(X, y)
>>> cal = ShiftCalibration(cv=2).fit(model, X, y)
>>> est = model.estimate_prior([[3, 0], [4, 0], [2, 0], [0, 3]], calibration=cal, random_state=0)
>>> bool(est["a"] > 0.5), est.method
(True, 'em')
>>> model.with_prior(est).class_log_prior_.argmax()   # adapted: "a" is now the likelier class
np.int64(0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import minimize

from ._math import logsumexp
from ._prior_shift import METHODS, PriorEstimate, bbse_prior, em_prior, lr_test
from ._validation import check_sample_weight, check_y, encode_labels
from .calibration import TemperatureScaling
from .errors import DataError, InvalidParameterError
from .model_selection import cross_val_predict

__all__ = ["METHODS", "PriorEstimate", "ShiftCalibration", "bbse_prior", "em_prior", "estimate_prior", "lr_test"]


class ShiftCalibration:
    """Bias-corrected temperature scaling of a model's out-of-fold posteriors, fitted for
    label-shift estimation (Alexandari et al. 2020), and their held-out confusion matrix (for
    BBSE, Lipton et al. 2018).

    ``fit(model, X, y)``: ``X, y`` the rows the model was trained on; ``cv`` folds (as
    :func:`~nbayes.model_selection.cross_val_predict`). Fitted: ``beta`` (1 / temperature),
    ``bias`` (per class), ``eps`` (the uniform share mixed in, as
    :class:`~nbayes.calibration.TemperatureScaling` picks it), ``source_prior`` (the training
    rows' class shares, which the calibrated posteriors average to), ``confusion`` (``[i, j] =
    P(yhat = i | y = j)`` of the calibrated out-of-fold predictions), ``classes``.
    """

    def __init__(self, *, cv: Any = 5) -> None:
        self.cv = cv

    def fit(self, model: Any, X: Any, y: Any, sample_weight: Any = None) -> "ShiftCalibration":
        """Fit on the rows ``X, y`` that ``model`` was trained on (``sample_weight`` as they
        were weighted): out-of-fold posteriors, then BCTS on them, then their confusion matrix.
        Returns self."""
        model.check_fitted()
        classes = np.asarray(model.classes_)
        L = np.asarray(cross_val_predict(model, X, y, cv=self.cv, method="predict_log_proba",
                                         sample_weight=sample_weight), dtype=np.float64)
        yy = check_y(y, len(L))
        codes, unknown = encode_labels(yy, classes)
        if unknown.any():
            i = int(np.argmax(unknown))
            raise DataError(f"y: row {i} has label {yy[i]!r}, a class the model does not know")
        w = check_sample_weight(sample_weight, len(L))
        w = np.ones(len(L)) if w is None else np.asarray(w, dtype=np.float64)
        if L.shape[1] != len(classes):
            raise DataError(f"y holds {L.shape[1]} classes, the model {len(classes)}; fit the calibration "
                            "on the rows the model was trained on")
        self.eps = float(TemperatureScaling().fit(L, codes, w).eps_)
        self.beta, self.bias = _fit_bcts(_smooth(L, self.eps), codes, w)
        counts = np.bincount(codes, weights=w, minlength=len(classes))
        self.source_prior = counts / counts.sum()
        calibrated = self.transform(L)
        pred = np.argmax(calibrated, axis=1)
        joint = np.zeros((len(classes), len(classes)))
        np.add.at(joint, (pred, codes), w)
        self.confusion = joint / np.maximum(counts, 1e-300)[None, :]
        self.classes = classes
        self.model_prior = model.prediction_prior
        return self

    def transform(self, log_proba: np.ndarray) -> np.ndarray:
        """``log softmax(beta log(p + eps) + bias)`` of log-posteriors (rows x classes)."""
        Z = self.beta * _smooth(np.asarray(log_proba, dtype=np.float64), self.eps) + self.bias
        out: np.ndarray = Z - logsumexp(Z, axis=1, keepdims=True)
        return out

    def apply(self, model: Any, log_proba: np.ndarray) -> np.ndarray:
        """The calibrated log-posteriors of ``model``'s ``log_proba``. A model adapted since the
        fit (``with_prior``) is first brought back to the prior it had then, exactly (Bayes' rule)."""
        if not hasattr(self, "beta"):
            raise InvalidParameterError("this ShiftCalibration is not fitted yet; call fit(model, X, y) first")
        classes = np.asarray(model.classes_)
        if len(classes) != len(self.classes) or not np.all(classes == self.classes):
            raise InvalidParameterError(
                f"calibration: fitted for the classes {self.classes.tolist()!r}, the model has {classes.tolist()!r}"
            )
        now = model.prediction_prior
        if now is not None and self.model_prior is not None and not np.allclose(now, self.model_prior, rtol=1e-12, atol=0):
            with np.errstate(divide="ignore"):
                shift = np.log(self.model_prior) - np.log(now)
            Z = log_proba + np.where(np.isfinite(shift), shift, -np.inf)
            log_proba = Z - logsumexp(Z, axis=1, keepdims=True)
        return self.transform(log_proba)


def estimate_prior(model: Any, X_unlabeled: Any, X: Any = None, y: Any = None, *, cv: Any = 5,
                   **options: Any) -> PriorEstimate:
    """``model.estimate_prior(X_unlabeled, ...)``, calibrated on the training rows ``X, y`` when
    they are given (a :class:`ShiftCalibration` with ``cv`` folds)."""
    if (X is None) != (y is None):
        raise InvalidParameterError("estimate_prior: give both X and y (the training rows), or neither")
    cal = None if X is None else ShiftCalibration(cv=cv).fit(model, X, y)
    result: PriorEstimate = model.estimate_prior(X_unlabeled, calibration=cal, **options)
    return result


def _smooth(L: np.ndarray, eps: float) -> np.ndarray:
    """log(p + eps), exactly (-inf becomes log eps)."""
    return L if eps == 0 else np.logaddexp(L, np.log(eps))


def _fit_bcts(L: np.ndarray, codes: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    """(beta, bias) minimising the weighted log-loss of softmax(beta L + bias): convex in
    (beta, bias) jointly (the scores are linear in them); L-BFGS-B with beta >= 1e-6. At the
    optimum the calibrated posteriors average to the class shares (the bias's gradient is zero)."""
    d = L - L.max(axis=1, keepdims=True)
    dy = d[np.arange(len(codes)), codes]
    ok = np.isfinite(dy) & (w > 0)
    d, dy, c, w = d[ok], dy[ok], codes[ok], w[ok]
    d0 = np.where(np.isfinite(d), d, 0.0)
    K = L.shape[1]
    Y = np.zeros((len(c), K))
    Y[np.arange(len(c)), c] = 1.0
    W = float(w.sum())

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        beta, b = theta[0], theta[1:]
        Z = beta * d + b
        lse = logsumexp(Z, axis=1)
        q = np.exp(Z - lse[:, None])
        value = float(np.sum(w * (lse - beta * dy - b[c]))) / W
        g_beta = float(np.sum(w * (np.einsum("ij,ij->i", q, d0) - dy))) / W
        g_b = (w[:, None] * (q - Y)).sum(axis=0) / W
        return value, np.concatenate([[g_beta], g_b])

    theta0 = np.concatenate([[1.0], np.zeros(K)])
    res = minimize(loss, theta0, jac=True, method="L-BFGS-B",
                   bounds=[(1e-6, None)] + [(None, None)] * K, options={"maxiter": 1000, "gtol": 1e-9})
    b = res.x[1:] - res.x[1:].mean()
    return float(res.x[0]), b
