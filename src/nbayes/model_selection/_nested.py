"""Searching a composite estimator (a scikit-learn ``Pipeline``): its nested hyperparameters
(``vec__ngram_range``, ``nb__alpha``) set as scikit-learn's ``set_params`` sets them.

The fold engines build a candidate as ``type(model)(**model.get_params(), **candidate)``, which
a ``Pipeline`` cannot take (its constructor has ``steps``, not ``vec``). :class:`Nested` is the
composite seen that way: its constructor takes the composite and the candidate's values, and
fits a clone of the composite with them set. The user's object is never modified.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..errors import InvalidParameterError

__all__ = ["Nested", "is_composite", "nested_params"]


def nested_params(model: Any) -> dict[str, Any]:
    """Every hyperparameter of ``model`` by its scikit-learn name (``step__param`` for a
    composite's parts)."""
    try:
        return dict(model.get_params(deep=True))
    except TypeError:  # a get_params without ``deep``
        return dict(model.get_params())


def is_composite(model: Any) -> bool:
    """Whether ``model`` has nested hyperparameters (``a__b``) that its constructor does not
    take: a scikit-learn Pipeline, a ColumnTransformer inside one, a meta-estimator."""
    return hasattr(model, "set_params") and any("__" in k for k in nested_params(model))


def _clone(model: Any) -> Any:
    try:
        from sklearn.base import clone
    except ImportError:  # pragma: no cover - a composite with get_params(deep=True) is scikit-learn's
        return copy.deepcopy(model)
    return clone(model)


class Nested:
    """``estimator`` (unfitted, not modified) with ``params`` set on a clone of it by
    ``set_params``; fits and predicts as that clone, which is ``estimator_`` once fitted."""

    def __init__(self, estimator: Any, **params: Any) -> None:
        self.estimator = estimator
        self.params = params

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {"estimator": self.estimator, **self.params}

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "Nested":
        model = _clone(self.estimator).set_params(**self.params)
        if sample_weight is not None:
            raise InvalidParameterError(
                f"sample_weight: a {type(self.estimator).__name__} routes weights to its steps "
                "(such as nb__sample_weight); search it without sample_weight"
            )
        self.estimator_ = model.fit(X, y)
        self.classes_ = np.asarray(self.estimator_.classes_)
        return self

    def predict(self, X: Any) -> Any:
        return self.estimator_.predict(X)

    def predict_proba(self, X: Any) -> Any:
        return self.estimator_.predict_proba(X)

    def predict_log_proba(self, X: Any) -> Any:
        return self.estimator_.predict_log_proba(X)

    def score(self, X: Any, y: Any) -> float:
        return float(self.estimator_.score(X, y))
