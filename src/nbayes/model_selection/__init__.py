"""Model selection from statistics: cross-validation, out-of-fold predictions and a
hyperparameter search that count the data once (see docs/model-selection.md).

For the layers that build on it (calibration): :func:`out_of_fold` (each row's
log-probabilities from the model of the split that holds it out, and the fold engine that made
them) and :class:`LeaveOneOutSplits` (the n leave-one-out splits, made on demand; what
:func:`check_cv` returns for ``cv="loo"``)."""

from ._folds import folds_for, take
from ._search import SearchCV
from ._split import KFold, LeaveOneOutSplits, StratifiedKFold, check_cv
from ._validate import cross_val_predict, cross_val_score, cross_validate, out_of_fold

__all__ = ["KFold", "LeaveOneOutSplits", "SearchCV", "StratifiedKFold", "check_cv", "cross_val_predict",
           "cross_val_score", "cross_validate", "folds_for", "out_of_fold", "take"]
