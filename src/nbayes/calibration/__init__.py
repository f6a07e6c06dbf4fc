"""Probability calibration: Naive Bayes posteriors are over-confident; a one-dimensional map
fitted on out-of-fold scores repairs them.

:class:`CalibratedClassifier` fits the model once on all the data and a calibrator on the
out-of-fold log-probabilities of :func:`nbayes.model_selection.cross_val_predict` (for Naive
Bayes computed from the statistics, without refitting per fold). Three maps, each of the
log-probabilities ``L`` (so ``-inf``, a zero probability from ``alpha=0``, never becomes NaN):

- ``"temperature"`` (the default): ``softmax(L / T)``, one scalar ``T > 0`` minimising the
  log-loss; it keeps every row's most probable class, so accuracy is unchanged
  (:mod:`~nbayes.calibration.temperature`).
- ``"sigmoid"`` (Platt): ``sigmoid(a s + b)`` of the log-odds ``s`` (binary: of ``classes_[1]``;
  more classes: of each class against the rest, then normalised)
  (:mod:`~nbayes.calibration.sigmoid`).
- ``"isotonic"``: a non-decreasing step-linear map of each class's log-odds, then normalised
  (:mod:`~nbayes.calibration.isotonic`).

The package: ``_base`` (what the maps share), one module per map, ``classifier``
(:class:`CalibratedClassifier`, :func:`calibrate`), ``explanation`` (what a calibrated model's
explanation adds up to) and ``_state`` (the model file).

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

import math
from typing import Any

from ._base import METHODS, Calibrator
from .classifier import CALIBRATORS, CalibratedClassifier, calibrate
from .explanation import CalibratedExplanation
from .isotonic import IsotonicCalibration
from .sigmoid import SigmoidCalibration
from .temperature import TemperatureScaling

__all__ = [
    "CALIBRATORS",
    "METHODS",
    "CalibratedClassifier",
    "CalibratedExplanation",
    "Calibrator",
    "IsotonicCalibration",
    "SigmoidCalibration",
    "TemperatureScaling",
    "calibrate",
    "describe",
]


def _number(v: float) -> Any:
    """A float as JSON can hold it: inf and NaN as the strings "Infinity", "-Infinity", "NaN"."""
    v = float(v)
    if math.isfinite(v):
        return v
    return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")


def describe(model: CalibratedClassifier) -> dict[str, Any]:
    """A calibrated model's map as plain Python (JSON-ready), for ``nbayes info``, the
    service's ``/v1/model`` and the evaluation reports: ``method``, ``base_model`` (the base
    model's class name), and ``temperature`` and ``eps`` (temperature), ``slope`` and
    ``intercept`` per map (sigmoid), ``breakpoints`` per map (isotonic), or ``ensemble`` (the
    number of fold models and maps).

    >>> import nbayes
    >>> X, y = [[3, 0], [0, 3]] * 6, ["a", "b"] * 6
    >>> info = describe(CalibratedClassifier(nbayes.MultinomialNB(), method="sigmoid", cv=3).fit(X, y))
    >>> sorted(info)
    ['base_model', 'intercept', 'method', 'slope']
    """
    model.check_fitted()
    cal = model.calibrator_
    base = type(model.base_estimator_).__name__
    if cal is None:  # an ensemble: one fold model and one map per split, probabilities averaged
        return {"method": model.calibrators_[0].method, "base_model": base, "ensemble": len(model.calibrators_)}
    out: dict[str, Any] = {"method": cal.method, "base_model": base}
    if cal.method == "temperature":
        out.update(temperature=_number(cal.temperature_), eps=_number(cal.eps_))
    elif cal.method == "sigmoid":
        out.update(slope=[_number(v) for v in cal.coef_], intercept=[_number(v) for v in cal.intercept_])
    else:
        out["breakpoints"] = [int(len(x)) for x in cal.thresholds_]
    return out
