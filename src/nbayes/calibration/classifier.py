"""The calibrated classifier: a base model fitted on all rows and a map fitted on its
out-of-fold log-probabilities (or, with ``ensemble=True``, one fold model and map per split)."""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import numpy as np

from .._estimator import Classifier, rebuild
from .._math import logsumexp
from .._validation import (check_choice, check_sample_weight, check_y, classes_and_codes, encode_labels, n_rows,
                           reusable, show)
from ..errors import DataError, InvalidParameterError, ModelFileError, NotFittedError
from ..io.model_file import save_state
from ..model_selection import check_cv
from ..model_selection import LeaveOneOutSplits, out_of_fold
from . import _state
from ._base import METHODS, Calibrator, check_classes
from .explanation import CalibratedExplanation, explain_calibrated
from .isotonic import IsotonicCalibration
from .sigmoid import SigmoidCalibration
from .temperature import TemperatureScaling

__all__ = ["CALIBRATORS", "CalibratedClassifier", "calibrate"]

CALIBRATORS: dict[str, type[Calibrator]] = {
    "temperature": TemperatureScaling,
    "sigmoid": SigmoidCalibration,
    "isotonic": IsotonicCalibration,
}

#: the capabilities a calibrated model has when its base model has them (the others, such as
#: partial_fit, unlearn, merge or with_prior, would change the base model under a fitted map;
#: missing values: the base model marginalises them, but the map was fitted on complete rows)
PASSED_ON = frozenset({"explain", "text", "columns", "categories", "sparse", "sample_weight", "save"})


def _check_estimator(estimator: Any) -> None:
    if estimator is None or not hasattr(estimator, "fit"):
        raise InvalidParameterError(f"estimator: expected an nbayes classifier, got {estimator!r}")
    if not (hasattr(estimator, "predict_log_proba") or hasattr(estimator, "predict_proba")):
        raise InvalidParameterError(
            f"estimator: a {type(estimator).__name__} cannot produce probabilities "
            "(it has no predict_log_proba), so there is nothing to calibrate"
        )
    if isinstance(estimator, CalibratedClassifier):
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
    ``base_estimator_`` is still the model of all rows. It costs K fold models to store and
    evaluate. With ``ensemble=False`` (the default) ``estimators_`` and ``calibrators_`` are
    ``[base_estimator_]`` and ``[calibrator_]``.

    After ``fit``: ``n_splits_`` (the number of splits), ``oof_log_proba_`` (the out-of-fold
    scores the maps were fitted on) and ``oof_calibrated_log_proba_`` (each of those rows
    through the map fitted without it) measure the calibration on the training rows
    (:func:`nbayes.evaluate.training_calibration`); they are not saved.

    The calibrated model saves to one model file (``save``, :func:`nbayes.load`) and serves
    unchanged. ``explain`` returns a :class:`CalibratedExplanation` that says what its terms
    add up to: the calibrated log-odds where the map is affine in them, else the base model's
    (see :meth:`explain`). ``capabilities`` are ``calibrated`` and the base model's that a map
    keeps (``explain``, ``text``, ``columns``, ``sparse``, ``missing_values``, ``sample_weight``,
    ``save``).

    >>> import nbayes
    >>> X = [[3, 0], [2, 1], [4, 0], [3, 1], [0, 3], [1, 2], [0, 4], [1, 3]] * 3
    >>> y = ["a", "a", "a", "a", "b", "b", "b", "b"] * 3
    >>> cal = CalibratedClassifier(nbayes.MultinomialNB(), cv=3).fit(X, y)
    >>> cal.predict([[2, 2]]).tolist() == cal.base_estimator_.predict([[2, 2]]).tolist()
    True
    >>> round(float(cal.predict_proba([[2, 2]]).sum()), 12)
    1.0
    >>> sorted(cal.capabilities)
    ['calibrated', 'explain', 'sample_weight', 'save', 'sparse']
    """

    #: a model file of this class nests other models' states (io.load passes its builder)
    _state_nests_models: ClassVar[bool] = True

    def __init__(self, estimator: Any, *, method: str = "temperature", cv: Any = 5, ensemble: bool = False) -> None:
        self.estimator = estimator
        self.method = method
        self.cv = cv
        self.ensemble = ensemble

    @property
    def capabilities(self) -> frozenset[str]:
        """The base model's capabilities that a calibrated model keeps (:data:`PASSED_ON`), and
        ``calibrated``."""
        base = self.__dict__.get("base_estimator_", self.estimator)
        return (frozenset(getattr(base, "capabilities", frozenset())) & PASSED_ON) | {"calibrated"}

    # ------------------------------------------------------------------ training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "CalibratedClassifier":
        """Fit the base model on all rows and the calibrator on its out-of-fold
        log-probabilities. Returns self; a failure leaves the model unchanged."""
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
        check_classes(base, classes, "the base model")
        if not ensemble:
            cal = CALIBRATORS[self.method]().fit(oof, codes, w)
            after = cal.transform(oof)
            self._set(base, cal)
        else:
            fold_models = [engine.fold_model(i) for i in range(len(splits))]
            maps = []
            after = np.empty_like(oof)
            for i, ((_, test), m) in enumerate(zip(splits, fold_models)):
                check_classes(m, classes, f"the model of split {i}")
                maps.append(CALIBRATORS[self.method]().fit(oof[test], codes[test], None if w is None else w[test]))
                after[test] = maps[-1].transform(oof[test])
            self._set(base, None, fold_models, maps)
        self.n_splits_ = len(splits)
        self.oof_log_proba_ = oof  # the out-of-fold scores the map was fitted on (before it)
        self.oof_calibrated_log_proba_ = after  # and through the map fitted without each row
        return self

    def _set(self, base: Any, calibrator: Calibrator | None, estimators: list[Any] | None = None,
             calibrators: list[Any] | None = None) -> None:
        """One map on the base model (``calibrator``), or an ensemble (``calibrator`` None)."""
        for name in ("n_splits_", "oof_log_proba_", "oof_calibrated_log_proba_"):
            self.__dict__.pop(name, None)  # a refit's, or a loaded model's: none
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
        self.check_fitted()
        if self.calibrator_ is None:
            return self._ensemble_log_proba(X)
        return self.calibrator_.transform(_log_proba_of(self.base_estimator_, X))

    def log_proba_before_after(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(the base model's log-probabilities, the calibrated ones) of X, from one pass of the
        base model (an ensemble: the base model's, then the fold models' average)."""
        self.check_fitted()
        L = _log_proba_of(self.base_estimator_, X)
        if self.calibrator_ is None:
            return L, self._ensemble_log_proba(X)
        return L, self.calibrator_.transform(L)

    def _ensemble_log_proba(self, X: Any) -> np.ndarray:
        X = reusable(X)  # each fold model reads X: an iterator of documents is read once, here
        C = np.stack([c.transform(_log_proba_of(m, X)) for m, c in zip(self.estimators_, self.calibrators_)])
        result: np.ndarray = logsumexp(C, axis=0) - np.log(len(self.calibrators_))
        return result

    @property
    def prediction_prior(self) -> np.ndarray | None:
        """The base model's class prior (the map was fitted to posteriors under it): the start of
        ``estimate_prior``."""
        self.check_fitted()
        prior: np.ndarray | None = self.base_estimator_.prediction_prior
        return prior

    def predict(self, X: Any) -> np.ndarray:
        """The class of highest calibrated probability (temperature: the base model's class)."""
        self.check_fitted()
        result: np.ndarray = self.classes_[self.predict_index_proba(X)[0]]
        return result

    def predict_index_proba(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(index of the predicted class in ``classes_``, calibrated probabilities): one pass of the
        base model (:meth:`nbayes.Classifier.predict_index_proba`)."""
        self.check_fitted()
        if self.calibrator_ is None:  # ensemble: the argmax of the averaged probabilities
            C = self._ensemble_log_proba(X)
            return np.argmax(C, axis=1), np.exp(C)
        L = _log_proba_of(self.base_estimator_, X)
        C = self.calibrator_.transform(L)
        best = np.argmax(L if self.calibrator_.method == "temperature" else C, axis=1)
        return best, np.exp(C)

    def explain(self, X: Any) -> CalibratedExplanation:
        """The base model's explanation of X, made to add up to the calibrated model where the
        map allows it, labelled either way (:class:`CalibratedExplanation`):

        - temperature scaling with ``eps_ == 0`` (one map): the calibrated log-probabilities
          are ``softmax(joint / T)``, so the base terms divided by T (``scale = 1 / T``) add up
          to calibrated joint scores (table models: ``explanation.joint()``, whose
          log-softmax is ``predict_log_proba``) or to the calibrated log-odds of the predicted
          class against the runner-up (text models: ``sum(contributions) + baseline``);
        - sigmoid, two classes (one map), when every row's base log-odds lies inside the
          fitted range (``clip_``): the calibrated log-odds are ``a s + b``, so the terms
          times ``a`` and the baseline shifted by ``b`` add up to them;
        - otherwise (isotonic, a step-linear map; sigmoid over more classes, normalised
          one-vs-rest; temperature with ``eps_ > 0``, which mixes in the uniform distribution;
          a clipped row; ensembles, which average probabilities of several models): the
          calibrated probabilities are not a sum of per-feature terms. ``calibrated`` is then
          False and ``explanation`` is the base model's own, whose terms add up to the base
          model's joint log-probability (text: its log-odds), not to the calibrated ones.

        ``sums_to`` says which of these holds. Raises InvalidParameterError when the base model
        has no ``explain``."""
        self.check_fitted()
        return explain_calibrated(self, X)

    # ------------------------------------------------------------------ model files
    def save(self, path: Any) -> None:
        """Write the model (base and map) to one model file; :func:`nbayes.load` reads it."""
        self.check_fitted()
        save_state(path, self.to_state(), rebuild(self))

    def to_state(self) -> dict[str, Any]:
        """The base model's state nested under ``base/`` (arrays) and ``meta["base"]`` (kind,
        params, meta); one map's arrays under ``calibrator/``. An ensemble adds its fold models
        under ``fold/<i>/`` and ``meta["folds"][i]``, and its maps under ``calibrator/<i>/``."""
        self.check_fitted()
        return _state.to_state(self)

    @classmethod
    def from_state(cls, state: dict[str, Any], build: Callable[[dict[str, Any]], Any] | None = None) -> "CalibratedClassifier":
        """The model of a verified state. ``build`` makes a nested model (the base, the fold
        models) from its own state: :func:`nbayes.load` passes its registry's builder, so this
        module needs no import of ``nbayes.io.load`` (which imports it)."""
        if build is None:
            raise ModelFileError("a calibrated model's file nests other models' states: read it with nbayes.load")
        return _state.from_state(cls, state, build, CALIBRATORS)

    # ------------------------------------------------------------------ scikit-learn
    # the base class's plain class attributes become properties here (the base estimator's
    # value), which typing calls an incompatible override
    @property
    def _string_input(self) -> bool:  # type: ignore[override]
        return bool(getattr(self.estimator, "_string_input", False))

    @property
    def _accepts_sparse(self) -> bool:  # type: ignore[override]
        return bool(getattr(self.estimator, "_accepts_sparse", False))


def calibrate(
    model: Any, X: Any, y: Any, *, method: str = "temperature", sample_weight: Any = None
) -> CalibratedClassifier:
    """Calibrate an already fitted ``model`` on held-out rows (X, y) it was not trained on: the
    map is fitted on its log-probabilities there; the model itself is used as is (not copied,
    not refitted). Returns a :class:`CalibratedClassifier` ready to predict and save."""
    check_choice("method", method, METHODS)
    _check_estimator(model)
    if getattr(model, "classes_", None) is None:
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
