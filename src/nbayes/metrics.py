"""``nbayes.metrics``: the measures of probabilistic predictions. They live in
:mod:`nbayes.evaluate.metrics`; this module keeps the public path working.

>>> import nbayes.metrics, nbayes.evaluate.metrics
>>> nbayes.metrics.log_loss is nbayes.evaluate.metrics.log_loss
True
"""

from __future__ import annotations

from .evaluate.metrics import (
    ReliabilityCurve,
    brier_score,
    brier_score_of as brier_score_of,  # (``as``: re-exported, for the scorers of nbayes.model_selection)
    classification_measures,
    expected_calibration_error,
    log_loss,
    log_loss_of as log_loss_of,
    reliability_curve,
    reliability_diagram,
    true_class_log_loss as true_class_log_loss,
)

__all__ = [
    "ReliabilityCurve",
    "brier_score",
    "classification_measures",
    "expected_calibration_error",
    "log_loss",
    "reliability_curve",
    "reliability_diagram",
]
