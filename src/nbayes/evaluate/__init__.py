"""Evaluation: measures of predictions, Ng & Jordan's learning curves, and reports.

- :mod:`nbayes.evaluate.metrics`: log-loss, Brier score, expected calibration error, the
  reliability curve and diagram, and :func:`classification_measures` (accuracy, macro-F1,
  per-class precision / recall, confusion matrix) (also ``nbayes.metrics``);
- :mod:`nbayes.evaluate.learning_curves` and :mod:`nbayes.evaluate.comparison`:
  :func:`compare` (Naive Bayes against logistic regression over training sizes) and its result
  :class:`Comparison` (also ``nbayes.compare``);
- :mod:`nbayes.evaluate.reports`: calibration measured before and after a map
  (:func:`calibration_scores`, :func:`calibration_of_model`, :func:`cross_validated_calibration`,
  :func:`training_calibration`), the reliability data, the console table and the
  self-contained HTML report (:func:`write_report`), as ``nbayes evaluate`` shows them.
- :mod:`nbayes.evaluate.figures`: the reports' figures (learning curves, confusion matrix,
  reliability diagram) as inline SVG written by nbayes, so the core install draws them all.

Every log-loss here is one core (:func:`nbayes._math.log_loss_of_true_class`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

# ``name as name``: an explicit re-export (mypy's strict mode exports no other import; the
# computed ``__all__`` below is beyond its reading)
from .metrics import (
    ReliabilityCurve as ReliabilityCurve,
    brier_score as brier_score,
    classification_measures as classification_measures,
    expected_calibration_error as expected_calibration_error,
    log_loss as log_loss,
    reliability_curve as reliability_curve,
    reliability_diagram as reliability_diagram,
)

# The measures load with the package; the learning curves and the reports on first use: they
# import the models and nbayes.calibration, which (through nbayes.model_selection's scorers)
# use the measures, so importing them here would make ``import nbayes.metrics`` load every model.
_LAZY = {
    "Comparison": "comparison",
    "Row": "comparison",
    "crossover_size": "comparison",
    "compare": "learning_curves",
    "N_BINS": "reports",
    "CalibrationCurves": "reports",
    "calibration_of_model": "reports",
    "calibration_scores": "reports",
    "calibration_table": "reports",
    "cross_validated_calibration": "reports",
    "training_calibration": "reports",
    "uncalibrated_curves": "reports",
    "write_report": "reports",
}

__all__ = sorted([
    "ReliabilityCurve",
    "brier_score",
    "classification_measures",
    "expected_calibration_error",
    "log_loss",
    "reliability_curve",
    "reliability_diagram",
    *_LAZY,
])

if TYPE_CHECKING:  # pragma: no cover
    from .comparison import Comparison as Comparison
    from .comparison import Row as Row
    from .comparison import crossover_size as crossover_size
    from .learning_curves import compare as compare
    from .reports import (
        N_BINS as N_BINS,
        CalibrationCurves as CalibrationCurves,
        calibration_of_model as calibration_of_model,
        calibration_scores as calibration_scores,
        calibration_table as calibration_table,
        cross_validated_calibration as cross_validated_calibration,
        training_calibration as training_calibration,
        uncalibrated_curves as uncalibrated_curves,
        write_report as write_report,
    )


__getattr__, __dir__ = exports(__name__, {name: f".{where}" for name, where in _LAZY.items()}, eager=__all__)
