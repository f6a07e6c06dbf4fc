"""Columns of values of any kind: reading tables, and mapping values to category codes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import feature_count_message, is_missing, sorted_unique
from ..errors import DataError, FeatureMismatchError


@dataclass
class Table:
    """A validated 2-D input: a numeric ``matrix`` (NaN = missing) or per-column ``columns``."""

    matrix: np.ndarray | None
    columns: list[np.ndarray] | None
    shape: tuple[int, int]

    def column(self, j: int) -> np.ndarray:
        return self.matrix[:, j] if self.matrix is not None else self.columns[j]  # type: ignore[index]


def read_table(
    X: Any,
    *,
    n_features: int | None = None,
    feature_names: list[str] | None = None,
    who: str = "X",
    model: str = "this model",
) -> tuple[Table, list[str] | None]:
    """Any 2-D input (numpy, lists, pandas / polars / pyarrow tables) as a :class:`Table`."""
    mod = type(X).__module__.split(".")[0]
    names: list[str] | None = None
    if mod in ("pandas", "polars", "pyarrow") and hasattr(X, "columns"):
        raw_names = list(X.columns) if mod != "pyarrow" else list(X.column_names)
        names = [str(c) for c in raw_names] if all(isinstance(c, str) for c in raw_names) else None
        cols = [frame_column(X, c) for c in raw_names]
        n = len(cols[0]) if cols else 0
        table = Table(None, cols, (n, len(cols)))
    else:
        if hasattr(X, "toarray"):
            raise DataError(f"{who}: sparse input is not supported by this model; pass a dense array")
        if isinstance(X, list | tuple):
            A = np.empty((len(X), len(X[0]) if len(X) and hasattr(X[0], "__len__") else 0), dtype=object)
            try:
                A[...] = X if len(X) else A
            except ValueError:
                A = np.asarray(X, dtype=object)
        else:
            A = np.asarray(X)
        if A.ndim != 2:
            raise DataError(
                f"{who}: expected a 2-D array (rows x features), got {A.ndim}-D of shape {A.shape}. "
                "Reshape your data: X.reshape(-1, 1) for a single feature, X.reshape(1, -1) for a row"
            )
        if A.dtype.kind == "c":
            raise DataError(f"{who}: Complex data not supported")
        if A.dtype.kind in "iuf":
            table = Table(np.ascontiguousarray(A), None, A.shape)
        elif A.dtype.kind == "b":
            table = Table(np.ascontiguousarray(A, dtype=np.int64), None, A.shape)
        else:
            table = Table(None, [A[:, j] for j in range(A.shape[1])], A.shape)
    n, d = table.shape
    if n == 0:
        raise DataError(f"{who}: 0 sample(s) (shape={table.shape}) while a minimum of 1 is required.")
    if d == 0:
        raise DataError(f"{who}: 0 feature(s) (shape={table.shape}) while a minimum of 1 is required.")
    if n_features is not None and d != n_features:
        raise FeatureMismatchError(feature_count_message(who, d, n_features, model))
    if feature_names is not None and names is not None and names != list(feature_names):
        raise FeatureMismatchError(
            f"{who}: columns {names} differ from those seen at fit {list(feature_names)}"
        )
    return table, names


def frame_column(X: Any, name: Any) -> np.ndarray:
    """One column of a pandas / polars / pyarrow table as numpy: numbers as float64 with NaN
    for nulls (integers without nulls stay int64), everything else as objects with None."""
    mod = type(X).__module__.split(".")[0]
    if mod == "pyarrow":
        values = X.column(name).to_pylist()
        return _from_list(values)
    if mod == "polars":
        s = X.get_column(name)
        if s.dtype.is_numeric():
            if s.null_count() == 0 and s.dtype.is_integer():
                return s.to_numpy().astype(np.int64)
            return s.cast(float).to_numpy()
        return _from_list(s.to_list())
    s = X[name]
    kind = getattr(s.dtype, "kind", "O")
    if kind in "iu" and not s.hasnans:
        return s.to_numpy(dtype=np.int64)
    if kind in "iuf" or str(s.dtype) in ("Int64", "Int32", "Float64", "Float32", "Int8", "Int16"):
        return s.to_numpy(dtype=np.float64, na_value=np.nan)
    return _from_list(s.tolist())


def _from_list(values: list[Any]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    out[missing_mask(out)] = None
    return out


def missing_mask(col: np.ndarray) -> np.ndarray:
    """True where the entry is missing (NaN, None, pandas.NA, NaT)."""
    if col.dtype.kind == "f":
        return np.isnan(col)
    if col.dtype.kind == "O":
        try:  # vectorised: None, and NaN (the one value unequal to itself)
            with np.errstate(invalid="ignore"):
                mask = np.asarray(np.equal(col, None), dtype=bool) | np.asarray(
                    np.not_equal(col, col), dtype=bool
                )
            return mask
        except (TypeError, ValueError):  # pandas.NA and friends refuse to be compared
            return np.fromiter((is_missing(v) for v in col), dtype=bool, count=len(col))
    return np.zeros(len(col), dtype=bool)


def distinct(col: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values in canonical order, code of each entry, missing mask) of one column."""
    miss = missing_mask(col)
    present = col[~miss] if miss.any() else col
    if present.dtype.kind == "O":
        try:  # one type of comparable values (the usual column of strings): sort in C
            if len({type(v) for v in present[:1000].tolist()}) != 1:
                raise TypeError
            values, codes_p = np.unique(present, return_inverse=True)
        except TypeError:
            values = sorted_unique(present)
            codes_p = encode(present, values)
    else:
        values, codes_p = np.unique(present, return_inverse=True)
    codes = np.full(len(col), -1, dtype=np.intp)
    codes[~miss] = codes_p
    return values, codes, miss


def encode(col: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Code of each entry in ``values``: its index, -1 for missing, len(values) for unseen."""
    J = len(values)
    if col.dtype.kind in "iufb" and values.dtype.kind in "iufb":
        codes = np.searchsorted(values, col).astype(np.intp)
        hit = np.zeros(len(col), dtype=bool)
        inside = codes < J
        hit[inside] = values[codes[inside]] == col[inside]
        codes[~hit] = J
        if col.dtype.kind == "f":
            codes[np.isnan(col)] = -1
        return codes
    if col.dtype.kind in "US" and values.dtype.kind in "US":
        codes = np.searchsorted(values, col).astype(np.intp)
        inside = codes < J
        hit = np.zeros(len(col), dtype=bool)
        hit[inside] = values[codes[inside]] == col[inside]
        codes[~hit] = J
        return codes
    if values.dtype.kind == "O" and J and len({type(v) for v in values.tolist()}) == 1:
        miss = missing_mask(col)
        present = col[~miss]
        try:  # sorted values of one type: binary search in C, then confirm each hit
            pos = np.searchsorted(values, present).astype(np.intp)
            inside = pos < J
            hit = np.zeros(len(present), dtype=bool)
            hit[inside] = np.asarray(values[pos[inside]] == present[inside], dtype=bool)
            out = np.full(len(col), -1, dtype=np.intp)
            out[~miss] = np.where(hit, pos, J)
            return out
        except TypeError:
            pass
    index = {_key(v): k for k, v in enumerate(values.tolist())}
    out = np.empty(len(col), dtype=np.intp)
    for i, v in enumerate(col.tolist()):
        out[i] = -1 if is_missing(v) else index.get(_key(v), J)
    return out


def _key(v: Any) -> tuple[str, Any]:
    # bool is an int in Python (True == 1): keep boolean values apart from numbers
    return ("b", v) if isinstance(v, bool | np.bool_) else ("v", v)
