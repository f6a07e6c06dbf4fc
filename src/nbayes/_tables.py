"""Columns of values of any kind: reading tables, and mapping values to category codes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._validation import encode_values as encode
from ._validation import check_flat, check_shape, check_table, frame_names, missing_mask, sorted_unique
from .errors import DataError, FeatureMismatchError


@dataclass
class Table:
    """A validated 2-D input: a numeric ``matrix`` (NaN = missing) or per-column ``columns``."""

    matrix: np.ndarray | None
    columns: list[np.ndarray] | None
    shape: tuple[int, int]

    def column(self, j: int) -> np.ndarray:
        if self.matrix is not None:
            return self.matrix[:, j]
        assert self.columns is not None  # a Table holds a matrix or its columns
        return self.columns[j]


def read_table(
    X: Any,
    *,
    n_features: int | None = None,
    feature_names: list[str] | None = None,
    who: str = "X",
    model: str = "this model",
) -> tuple[Table, list[str] | None]:
    """Any 2-D input (numpy, lists, pandas / polars / pyarrow tables) as a :class:`Table`; any
    other kind of input is refused first (:func:`~nbayes._validation.kinds.check_table`)."""
    check_table(X, who)
    mod = type(X).__module__.split(".")[0]
    names: list[str] | None = None
    if mod in ("pandas", "polars", "pyarrow") and hasattr(X, "columns"):
        raw_names = frame_names(X, who)
        names = [str(c) for c in raw_names] if all(isinstance(c, str) for c in raw_names) else None
        cols = [frame_column(X, c, who) for c in raw_names]
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
    check_shape(who, table.shape, n_features, model)
    if feature_names is not None and names is not None and names != list(feature_names):
        raise FeatureMismatchError(
            f"{who}: columns {names} differ from those seen at fit {list(feature_names)}"
        )
    return table, names


def frame_column(X: Any, name: Any, who: str = "X") -> np.ndarray:
    """One column of a pandas / polars / pyarrow table as numpy: numbers as float64 with NaN
    for nulls (integers without nulls stay int64), everything else as objects with None.
    Nested values (lists, structs, dicts) are a DataError naming the column."""
    out: np.ndarray  # the frames are untyped (Any): their numpy result is declared here
    mod = type(X).__module__.split(".")[0]
    if mod == "pyarrow":
        col = X.column(name)
        if col.type.num_fields or str(col.type).startswith(("list", "large_list", "map", "struct")):
            raise DataError(f"{who}: column {name!r} has nested type {col.type}; nbayes reads flat values")
        return _from_list(col.to_pylist(), name, who)
    if mod == "polars":
        s = X.get_column(name)
        if s.dtype.is_nested():
            raise DataError(f"{who}: column {name!r} has nested type {s.dtype}; nbayes reads flat values")
        if s.dtype.is_numeric():
            if s.null_count() == 0 and s.dtype.is_integer():
                out = s.to_numpy().astype(np.int64)
            else:
                out = s.cast(float).to_numpy()
            return out
        return _from_list(s.to_list(), name, who)
    s = X[name]
    kind = getattr(s.dtype, "kind", "O")
    if kind in "iu" and not s.hasnans:
        out = s.to_numpy(dtype=np.int64)
        return out
    if kind in "iuf" or str(s.dtype) in ("Int64", "Int32", "Float64", "Float32", "Int8", "Int16"):
        out = s.to_numpy(dtype=np.float64, na_value=np.nan)
        return out
    return _from_list(s.tolist(), name, who)


def _from_list(values: list[Any], name: Any, who: str) -> np.ndarray:
    check_flat(values, name, who)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    out[missing_mask(out)] = None
    return out


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
