"""``save``'s check without a second fitted model: a Naive Bayes model read back from the bytes
``save`` is about to write takes the saved model's parameters when its statistics, classes and
settings are the saved model's bit for bit (estimation is a pure function of them, so it would
give the same value). Every check ``load`` runs still runs: the statistics' own checks (shapes
against the classes and features, cross-statistic invariants) before this, and the checks of
the parameters were made when the saved model estimated them."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._estimator import SAVING
from ..io.model_file import encode_params

__all__ = ["saved_twin"]

#: elements compared at once (the comparison's scratch memory stays small for big arrays)
_BLOCK = 1 << 22


def saved_twin(model: Any, stats: Any, classes: np.ndarray, n_features: int) -> Any:
    """The parameters (a ``Params`` value or the dict of derived attributes) of the model being
    saved whose statistics, classes, features and settings equal these; None when no model
    is being saved or none equals them (the caller then estimates)."""
    have = None
    for source in SAVING.get():
        if type(source) is not type(model) or "stats_" not in source.__dict__:
            continue
        if int(source.n_features_in_) != int(n_features) or not _same(source.classes_, classes):
            continue
        if not _same_settings(source, model):
            continue
        have = stats.to_arrays() if have is None else have
        if not _same_arrays(source.stats_.to_arrays(), have):
            continue
        keys = source.__dict__.get("_derived_keys", ())
        if "params_" in keys:
            return source.__dict__["params_"]
        if keys:
            return {k: source.__dict__[k] for k in keys}
    return None


def _same_settings(a: Any, b: Any) -> bool:
    """Both models' hyperparameters, as the model file encodes them, equal (nested models'
    by their own)."""
    return _same_value(encode_params(a.get_params()), encode_params(b.get_params()))


def _same_value(x: Any, y: Any) -> bool:
    if hasattr(x, "get_params") and not isinstance(x, type):
        return type(x) is type(y) and _same_settings(x, y)
    if isinstance(x, np.ndarray | np.generic) or isinstance(y, np.ndarray | np.generic):
        return _same(x, y)
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_same_value(x[k], y[k]) for k in x)
    if isinstance(x, list | tuple):
        return type(x) is type(y) and len(x) == len(y) and all(_same_value(u, v) for u, v in zip(x, y))
    if isinstance(x, float) and isinstance(y, float) and x != x and y != y:
        return True  # both NaN
    try:
        return type(x) is type(y) and bool(x == y)
    except (TypeError, ValueError):  # pragma: no cover - values without a plain equality
        return False


def _same_arrays(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)


def _same(a: Any, b: Any) -> bool:
    """Bit for bit: same dtype and shape, same bytes (labels: same values of the same types)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind not in "biufc":
        return [(type(x), x) for x in a.ravel().tolist()] == [(type(x), x) for x in b.ravel().tolist()]
    fa = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    fb = np.ascontiguousarray(b).reshape(-1).view(np.uint8)
    return all(np.array_equal(fa[i:i + _BLOCK], fb[i:i + _BLOCK]) for i in range(0, len(fa), _BLOCK))
