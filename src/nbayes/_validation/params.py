"""Checks on hyperparameters: numbers, choices, per-feature vectors, probability vectors."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidParameterError
from .common import show
from .labels import encode_labels, label_array


def check_number(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    integer: bool = False,
    allow_none: bool = False,
) -> None:
    """Raise InvalidParameterError unless ``value`` is a real number in the given range."""
    if value is None and allow_none:
        return
    ok_type = isinstance(value, numbers.Integral if integer else numbers.Real) and not isinstance(
        value, bool
    )
    if not ok_type:
        kind = "an integer" if integer else "a real number"
        raise InvalidParameterError(
            f"parameter {name!r} must be {kind}, got {value!r} ({type(value).__name__})"
        )
    if np.isnan(value):
        raise InvalidParameterError(f"parameter {name!r} must not be NaN")
    if low is not None and (value < low or (low_open and value == low)):
        bound = f"> {low}" if low_open else f">= {low}"
        raise InvalidParameterError(f"parameter {name!r} must be {bound}, got {value!r}")
    if high is not None and value > high:
        raise InvalidParameterError(f"parameter {name!r} must be <= {high}, got {value!r}")


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> None:
    """Raise InvalidParameterError unless ``value`` is one of ``choices``."""
    if not any(value is c or (type(value) is type(c) and value == c) for c in choices):
        raise InvalidParameterError(
            f"parameter {name!r} must be one of {', '.join(map(repr, choices))}; got {value!r}"
        )


def check_vector_param(
    name: str, value: Any, length: int, *, low: float = 0.0, low_open: bool = False
) -> np.ndarray:
    """A per-class or per-feature vector hyperparameter (``class_prior``, array ``alpha``)."""
    arr = np.asarray(value, dtype=float) if not isinstance(value, str) else None
    if arr is None or arr.ndim != 1 or arr.shape[0] != length:
        raise InvalidParameterError(
            f"parameter {name!r} must be a number or a 1-D array of length {length}, got {value!r}"
        )
    bad = ~np.isfinite(arr) | (arr < low) | ((arr == low) if low_open else False)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise InvalidParameterError(
            f"parameter {name!r}: entry {i} is {arr[i]!r}; expected a finite value "
            f"{'>' if low_open else '>='} {low}"
        )
    return arr


def check_probability_vector(
    name: str, value: Any, classes: Sequence[Any] | np.ndarray, *, sums_to_one: bool = False,
    of: str = "classes",
) -> np.ndarray:
    """A probability per class (``class_prior``, ``priors``, ``with_prior``, the m-estimate's
    ``p``) as a float array in ``classes`` order: a sequence in that order, or a mapping from
    label to probability naming every class. Finite, non-negative, with a positive sum (equal
    to 1 when ``sums_to_one``).

    >>> check_probability_vector("class_prior", {"spam": 0.1, "ham": 0.9}, ["ham", "spam"]).tolist()
    [0.9, 0.1]
    """
    labels = np.asarray(classes) if not isinstance(classes, np.ndarray) else classes
    K = len(labels)
    what = {"classes": "class ", "categories": "category "}.get(of, "")
    if isinstance(value, Mapping):
        keys = label_array(list(value.keys())) if value else np.empty(0, dtype=object)
        pos, unknown = encode_labels(keys, labels)
        if unknown.any():
            extra = keys[np.argmax(unknown)]
            raise InvalidParameterError(
                f"parameter {name!r} names {what}{show(extra)}, which is not "
                + (f"a class of this model (classes: {labels.tolist()!r})" if of == "classes"
                   else f"among the {of} {labels.tolist()!r}")
            )
        vec = np.full(K, np.nan)
        for k, v in zip(pos.tolist(), value.values()):
            vec[k] = _probability(name, v, labels[k], of)
        if np.isnan(vec).any():
            absent = labels[np.isnan(vec)].tolist()
            raise InvalidParameterError(
                f"parameter {name!r} gives no probability for the {of} {absent!r}; name every one"
            )
    else:
        if isinstance(value, str | bytes) or np.ndim(value) != 1:
            raise InvalidParameterError(
                f"parameter {name!r} must be a sequence of {K} probabilities in the order of the {of} "
                f"{labels.tolist()!r} or a mapping from each to its probability, got {value!r}"
            )
        items = list(value)
        if len(items) != K:
            raise InvalidParameterError(
                f"parameter {name!r} has {len(items)} entries for {K} {of} {labels.tolist()!r}"
            )
        vec = np.array([_probability(name, v, labels[k], of) for k, v in enumerate(items)], dtype=float)
    total = float(vec.sum())
    if not total > 0 or not np.isfinite(total):
        raise InvalidParameterError(
            f"parameter {name!r} must have a positive, finite sum; got {vec.tolist()!r}"
        )
    if sums_to_one and not np.isclose(total, 1.0, rtol=0, atol=1e-9):
        raise InvalidParameterError(f"parameter {name!r} must sum to 1, got {total!r}")
    return vec


def _probability(name: str, v: Any, label: Any, of: str) -> float:
    what = {"classes": "class ", "categories": "category "}.get(of, "")
    if isinstance(v, bool | np.bool_) or not isinstance(v, numbers.Real):
        raise InvalidParameterError(
            f"parameter {name!r}: {what}{show(label)} has {v!r}; expected a probability (a number >= 0)"
        )
    f = float(v)
    if not np.isfinite(f) or f < 0:
        raise InvalidParameterError(
            f"parameter {name!r}: {what}{show(label)} has {show(v)}; expected a finite probability >= 0"
        )
    return f
