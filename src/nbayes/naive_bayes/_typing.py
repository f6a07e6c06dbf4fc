"""How :class:`~nbayes.naive_bayes.mixed.NaiveBayes` types a column from its dtype or values
when ``column_types`` does not say."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import is_missing


def _pandas_kind(s: Any) -> str:
    import pandas as pd

    dt = s.dtype
    if pd.api.types.is_bool_dtype(dt):
        return "bernoulli"
    if pd.api.types.is_numeric_dtype(dt) and not isinstance(dt, pd.CategoricalDtype):
        return "gaussian"
    if dt == object:
        return _values_kind(s.to_numpy(dtype=object))
    if isinstance(dt, pd.CategoricalDtype):
        return "categorical"
    return _strings_kind(s.head(SAMPLE).tolist())


def _polars_kind(dt: Any) -> str:
    import polars as pl

    if dt == pl.Boolean:
        return "bernoulli"
    return "gaussian" if dt.is_numeric() else "categorical"


def _arrow_kind(t: Any) -> str:
    import pyarrow as pa

    if pa.types.is_boolean(t):
        return "bernoulli"
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        return "gaussian"
    return "categorical"


def _values_kind(col: np.ndarray) -> str:
    """Type of an object column from its non-missing values."""
    vals = [v for v in col.tolist() if not is_missing(v)]
    if vals and all(isinstance(v, bool | np.bool_) for v in vals):
        return "bernoulli"
    if vals and all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool) for v in vals):
        return "gaussian"
    return _strings_kind(vals[:SAMPLE])


#: how many values the typing of a string column looks at
SAMPLE = 1000


def _strings_kind(values: list[Any]) -> str:
    """Text (a bag of words) for long, varied strings; categorical otherwise. Long and varied:
    on average 20 characters or more, most values with a space, and at least half distinct."""
    vals = [v for v in values if isinstance(v, str)]
    if len(vals) < 2:
        return "categorical"
    long = sum(len(v) for v in vals) / len(vals) >= 20
    spaced = sum(" " in v.strip() for v in vals) >= 0.5 * len(vals)
    varied = len(set(vals)) >= 0.5 * len(vals)
    return "text" if long and spaced and varied else "categorical"
