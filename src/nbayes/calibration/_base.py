"""What the three calibration maps share: log-space helpers, the check of their inputs, and
the base class :class:`Calibrator` (a fitted map from log-probabilities to calibrated
log-probabilities, with arrays for the model file)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._math import log_normalize_rows, logsumexp
from .._validation import check_sample_weight, encode_labels, show
from .._estimator import FittedAttributes
from ..errors import DataError, NotFittedError

#: the calibration methods, in the order the docs list them
METHODS = ("temperature", "sigmoid", "isotonic")


def _normalise(Z: np.ndarray) -> np.ndarray:
    """Rows of log-scores to log-probabilities (rows whose maximum is finite)."""
    return log_normalize_rows(Z)


def _softplus(z: np.ndarray) -> np.ndarray:
    """log(1 + e^z), exact for large |z|."""
    result: np.ndarray = np.logaddexp(0.0, z)
    return result


def _log_odds(L: np.ndarray) -> np.ndarray:
    """Per class, log p_k - log(1 - p_k) = L_k - logsumexp_{j != k} L_j, from normalised
    log-probabilities without forming 1 - p (which rounds to 0 for a confident row): the other
    classes are summed directly. Binary problems give one column, the log-odds of class 1."""
    n, K = L.shape
    if K == 2:
        with np.errstate(invalid="ignore"):
            s = L[:, 1] - L[:, 0]
        result: np.ndarray = s[:, None]
        return result
    rows = np.arange(n)
    top = np.argmax(L, axis=1)
    m = L[rows, top][:, None]
    with np.errstate(divide="ignore"):
        E = np.exp(L - m)  # the top class is 1, so S - E_k >= 1 for every other k: no cancellation
        others = m + np.log(E.sum(axis=1, keepdims=True) - E)
    rest = L.copy()
    rest[rows, top] = -np.inf
    others[rows, top] = logsumexp(rest, axis=1)
    with np.errstate(invalid="ignore"):
        odds: np.ndarray = L - others  # rows are normalised: L_k and others_k are never both -inf
        return odds


def check_classes(model: Any, classes: np.ndarray, what: str) -> None:
    """A DataError unless ``model.classes_`` are exactly ``classes``, in that order."""
    got, unknown = encode_labels(np.asarray(model.classes_), classes)
    if unknown.any() or len(model.classes_) != len(classes) or np.any(got != np.arange(len(classes))):
        raise DataError(f"{what}: its classes_ differ from the sorted labels of y")


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


class Calibrator(FittedAttributes):
    """A fitted map from log-probabilities (n, K) to calibrated log-probabilities (n, K).
    ``n_classes_`` is set by ``fit``; before it, ``transform``, ``to_arrays`` and every fitted
    attribute raise NotFittedError."""

    method: ClassVar[str] = ""
    _fitted_marker: ClassVar[str] = "n_classes_"

    def fit(self, log_proba: Any, y: Any, sample_weight: Any = None) -> "Calibrator":
        """Fit the map on out-of-fold log-probabilities.

        Parameters
        ----------
        log_proba : array-like of shape (n_rows, n_classes)
            The model's log-probabilities of rows it was not trained on.
        y : array-like of shape (n_rows,)
            The true class of each row, as an index into the columns.
        sample_weight : array-like of shape (n_rows,), optional
            Row weights.

        Returns
        -------
        Calibrator
            ``self``, fitted.
        """
        raise NotImplementedError

    def transform(self, log_proba: Any) -> np.ndarray:
        """The calibrated log-probabilities of ``log_proba`` (n_rows, n_classes); rows sum to 1 in
        probability."""
        raise NotImplementedError

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The fitted map as named arrays, for a model file."""
        raise NotImplementedError

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], n_classes: int) -> "Calibrator":
        """The fitted map read back from ``to_arrays``'s arrays, for ``n_classes`` classes."""
        raise NotImplementedError

    def check_fitted(self) -> None:
        """Raise :class:`~nbayes.errors.NotFittedError` unless ``fit`` was called."""
        if "n_classes_" not in self.__dict__:
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    def _checked(self, log_proba: Any) -> np.ndarray:
        self.check_fitted()
        L = np.asarray(log_proba, dtype=np.float64)
        if L.ndim != 2 or L.shape[1] != self.n_classes_:
            raise DataError(f"log_proba: expected {self.n_classes_} columns, got shape {L.shape}")
        return L

