"""Estimation that never hands on inf/NaN parameters silently (CORRECTNESS: "weights and
magnitudes").

Sums of weights and of squares are formed so that a uniform weight or a uniform rescaling of a
feature changes nothing until float64 overflows (the Chan update divides before it multiplies,
``stats.moments``). Past that point, these checks turn the overflow into one clear error naming
the column (or ``sample_weight``), instead of numpy's RuntimeWarning and a model that predicts NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import show
from ..errors import DataError

#: derived parameters that may hold -inf by design (alpha=0 MLE: a zero probability is -inf in
#: log space); +inf and NaN are never valid in any of them
_HINT = "the sums of values or weights pass float64's largest number, about 1.8e308"


def estimate_checked(
    model: Any, stats: Any, n_features: int, names: Any = None
) -> Any:
    """``model.estimate_parameters(stats, n_features)``, refusing statistics or parameters that
    overflowed. Raises DataError naming the column or the weights; numpy's floating-point
    warnings from the overflow never reach the caller."""
    if names is None:
        _check_finite_stats(model, stats, n_features, names)
    try:
        # estimation raises no floating-point warning on data within range (an MLE's log 0 is
        # guarded where it is meant): one here is an overflow
        with np.errstate(all="raise"):
            derived: Any = model.estimate_parameters(stats, n_features)
    except FloatingPointError:
        with np.errstate(all="ignore"):  # once more, quietly, to find the column
            derived = model.estimate_parameters(stats, n_features)
        for key, value in _named(derived).items():
            _check_finite_parameter(model, key, value, n_features, names)
        raise DataError(
            f"X: {type(model).__name__}'s parameters overflow ({_HINT}); rescale the data or the weights"
        ) from None
    for key, value in _named(derived).items():
        _check_finite_parameter(model, key, value, n_features, names)
    return derived


def _named(derived: Any) -> dict[str, Any]:
    """The parameters by attribute name: a dict, or a Params value's ``attributes()``."""
    return derived if isinstance(derived, dict) else derived.attributes()


def _check_finite_stats(model: Any, stats: Any, n_features: int, names: Any) -> None:
    if hasattr(stats, "numeric_arrays"):  # the numbers alone: no vocabulary encoded (TextStats)
        arrays = stats.numeric_arrays()
    else:
        arrays = stats.to_arrays() if hasattr(stats, "to_arrays") else {}
    for key, arr in arrays.items():
        a = np.asarray(arr)
        if a.dtype.kind != "f" or a.size == 0:
            continue
        bad = ~np.isfinite(a)
        if bad.any():
            raise DataError(_message(model, key.removeprefix("stats/"), a, bad, n_features, names))


def _check_finite_parameter(model: Any, key: str, value: Any, n_features: int, names: Any) -> None:
    items = value if isinstance(value, list | tuple) else [value]
    for item in items:
        if not isinstance(item, np.ndarray) or item.dtype.kind != "f" or item.size == 0:
            continue
        bad = np.isnan(item) | (item == np.inf)
        if bad.any():
            raise DataError(_message(model, key, item, bad, n_features, names))


def _message(model: Any, what: str, a: np.ndarray, bad: np.ndarray, n_features: int, names: Any) -> str:
    name = type(model).__name__
    if what.startswith("class_"):  # class_count, class_log_prior_, ...: sums of the weights
        return (
            f"sample_weight: {name}'s class weights overflow ({_HINT}); "
            "rescale the weights (a uniform factor changes nothing)"
        )
    # a per-feature array names its column; pairs (text counts) and the like say what overflowed
    j = int(np.argwhere(bad)[0][-1]) if a.ndim and a.shape[-1] == n_features and not what.startswith("pairs/") else None
    if j is None:
        return f"X: {name}'s {what} overflows ({_HINT}); rescale the data or the weights"
    col = show(names[j]) if names is not None and j < len(names) else str(j)
    return (
        f"X: column {col}: {name}'s {what} overflows ({_HINT}); rescale the column "
        "or the weights"
    )
