"""Model selection from statistics: cross-validation, out-of-fold predictions and a
hyperparameter search that count the data once (see docs/model-selection.md)."""

from ._folds import folds_for, take
from ._search import SearchCV
from ._split import KFold, StratifiedKFold, check_cv
from ._validate import cross_val_predict, cross_val_score, cross_validate

__all__ = ["KFold", "SearchCV", "StratifiedKFold", "check_cv", "cross_val_predict", "cross_val_score", "cross_validate", "folds_for", "take"]
