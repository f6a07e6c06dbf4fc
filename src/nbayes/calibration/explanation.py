"""Explanations of a calibrated model, labelled with what their terms add up to.

A calibration map is a function of the base model's log-probabilities. Where it is affine in
the log-odds (temperature scaling without the uniform mixture, ``eps_ == 0``; Platt scaling of
two classes inside its fitted range) the base model's additive terms, scaled (and the baseline
shifted), add up exactly to the calibrated quantity. Where it is not (isotonic, a step-linear
map; sigmoid over more classes, normalised one-vs-rest; ``eps_ > 0``; clipped rows; ensembles),
no per-feature sum equals the calibrated probabilities, and the base model's explanation is
returned unchanged, labelled as uncalibrated.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from .classifier import CalibratedClassifier

__all__ = ["CalibratedExplanation", "explain_calibrated"]

#: what the terms add up to, by (form of the explanation, calibrated or not)
SUMS_TO = {
    ("table", True): "calibrated joint scores: explanation.joint() (contributions summed over features plus "
                     "intercept), whose log-softmax over the classes is the model's predict_log_proba",
    ("text", True): "the calibrated log-odds of the predicted class against the runner-up: "
                    "sum(contributions) + baseline = log P(predicted | x) - log P(runner_up | x) of the calibrated model",
    ("table", False): "the base model's (uncalibrated) joint log-probability: explanation.joint() = "
                      "base_estimator_.predict_joint_log_proba(X); the calibration map is not additive here",
    ("text", False): "the base model's (uncalibrated) log-odds of its predicted class against its runner-up: "
                     "sum(contributions) + baseline; the calibration map is not additive here",
    ("other", False): "what the base model's explanation documents (uncalibrated); the calibration map is not "
                      "additive here",
}


@dataclasses.dataclass(frozen=True)
class CalibratedExplanation:
    """A calibrated model's explanation and what its terms add up to.

    ``explanation``: of the base model's type (``Explanation`` for table models: per row,
    class and feature; ``TokenExplanation`` for text: per token of one document). ``calibrated``:
    True when its terms were scaled (``scale``) and its baseline / intercept shifted (``shift``,
    added to the log-odds) so that they add up to the calibrated model's numbers; False when it
    is the base model's explanation unchanged (``scale`` 1, ``shift`` 0). ``sums_to`` says what
    the terms add up to, exactly (up to floating-point rounding). ``method``: the map's.

    Attributes of ``explanation`` (``contributions``, ``joint()``, ``tokens``, ...) are reachable
    on this object too."""

    explanation: Any
    calibrated: bool
    method: str
    scale: float
    shift: float
    sums_to: str

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "explanation":
            raise AttributeError(name)
        return getattr(self.explanation, name)


def _form(e: Any) -> str:
    contributions = getattr(e, "contributions", None)
    if contributions is None:
        return "other"
    if hasattr(e, "intercept") and np.ndim(contributions) == 3:
        return "table"
    if hasattr(e, "baseline") and hasattr(e, "predicted") and hasattr(e, "runner_up"):
        return "text"
    return "other"


def _affine(model: "CalibratedClassifier", L: np.ndarray) -> tuple[float, float] | None:
    """(a, b) with calibrated log-odds = a * base log-odds + b for every pair of classes and
    every row of L (the base log-probabilities), when the map is that; else None. For
    temperature scaling b is 0 and the pair is any; for Platt scaling of two classes the pair
    is (classes_[1], classes_[0])."""
    cal = model.calibrator_
    if cal is None:  # an ensemble averages the probabilities of several models
        return None
    if cal.method == "temperature":
        return (1.0 / float(cal.temperature_), 0.0) if float(cal.eps_) == 0.0 else None
    if cal.method == "sigmoid" and len(model.classes_) == 2:
        with np.errstate(invalid="ignore"):
            s = L[:, 1] - L[:, 0]
        if not (np.isfinite(s).all() and np.all(np.abs(s) <= cal.clip_[0])):
            return None  # a clipped row: the map is constant there, not affine
        return float(cal.coef_[0]), float(cal.intercept_[0])
    return None  # isotonic (step-linear), sigmoid one-vs-rest (normalised)


def explain_calibrated(model: "CalibratedClassifier", X: Any) -> CalibratedExplanation:
    """:meth:`CalibratedClassifier.explain` (the model is fitted)."""
    base = model.base_estimator_
    if "explain" not in getattr(base, "capabilities", frozenset()) or not hasattr(base, "explain"):
        raise InvalidParameterError(
            f"explain: the base model, a {type(base).__name__} with these settings, has no additive "
            "explanation (its capabilities lack 'explain'), so neither has its calibrated model"
        )
    e = base.explain(X)
    form = _form(e)
    method = str(model.calibrators_[0].method)
    if form == "other":
        return CalibratedExplanation(e, False, method, 1.0, 0.0, SUMS_TO[form, False])
    rows = [X] if isinstance(X, str | bytes) else X  # a text model explains one document
    L = np.asarray(base.predict_log_proba(rows), dtype=np.float64)
    ab = _affine(model, L)
    if ab is None:
        return CalibratedExplanation(e, False, method, 1.0, 0.0, SUMS_TO[form, False])
    a, b = ab
    if form == "table":
        intercept = np.asarray(e.intercept, dtype=np.float64) * a
        if b:
            intercept = intercept.copy()
            intercept[1] += b  # two classes: the log-odds of classes_[1] gain b
        scaled = dataclasses.replace(e, contributions=np.asarray(e.contributions, dtype=np.float64) * a,
                                     intercept=intercept)
        return CalibratedExplanation(scaled, True, method, a, b, SUMS_TO[form, True])
    # text: the terms add up to log-odds(predicted vs runner-up) = sign * log-odds(classes_[1])
    sign = 1.0 if _same(e.predicted, model.classes_[1]) else -1.0
    contributions = np.asarray(e.contributions, dtype=np.float64) * a
    baseline = float(e.baseline) * a + sign * b
    predicted, runner_up = e.predicted, e.runner_up
    if float(np.sum(contributions)) + baseline < 0:  # the map turned the order: the calibrated model predicts the other
        contributions, baseline = -contributions, -baseline
        predicted, runner_up = runner_up, predicted
    scaled = dataclasses.replace(e, contributions=contributions, baseline=baseline, predicted=predicted,
                                 runner_up=runner_up)
    return CalibratedExplanation(scaled, True, method, a, b, SUMS_TO[form, True])


def _same(label: Any, other: Any) -> bool:
    label = label.item() if isinstance(label, np.generic) else label
    other = other.item() if isinstance(other, np.generic) else other
    return type(label) is type(other) and label == other or (
        isinstance(label, int | float) and isinstance(other, int | float)
        and not isinstance(label, bool) and not isinstance(other, bool) and label == other
    )
