"""Checks on data: feature matrices (arrays, frames, sparse), sample weights, rows."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..errors import DataError, FeatureMismatchError
from .common import _col_name, first_bad, is_missing, show
from .kinds import check_rows, check_table, describe

_BLOCK = 1 << 16  # rows per block when scanning large arrays (keeps temporaries small)


def frame_names(X: Any, who: str = "X") -> list[Any]:
    """The column labels of a pandas / polars / pyarrow table, checked unique (a frame with two
    columns named alike cannot be read by name)."""
    mod = type(X).__module__.split(".")[0]
    raw = list(X.column_names) if mod == "pyarrow" else list(X.columns)
    seen: set[Any] = set()
    for c in raw:
        key = (type(c).__name__, str(c))
        if key in seen:
            raise DataError(f"{who}: two columns are named {c!r}; column names must be unique")
        seen.add(key)
    return raw


def check_flat(values: Sequence[Any], column: str, who: str = "X") -> None:
    """Raise DataError when a column holds nested values (lists, dicts, arrays, structs)."""
    for i, v in enumerate(values):
        if isinstance(v, list | tuple | dict | set | np.ndarray):
            raise DataError(
                f"{who}: column {column!r}, row {i} holds a {type(v).__name__} ({v!r:.60}); "
                "nbayes reads flat values (numbers, strings, booleans): flatten or drop the column"
            )


def _frame_columns(X: Any) -> list[str] | None:
    cols = getattr(X, "columns", None)
    if cols is None:
        return None
    if type(X).__module__.split(".")[0] in ("pandas", "polars", "pyarrow"):
        cols = frame_names(X)
    names = [str(c) for c in cols]
    return names if all(isinstance(c, str) for c in cols) else None


def _frame_to_float(X: Any, names: list[str] | None) -> np.ndarray:
    """pandas / polars / pyarrow table of numbers to a float64 array (nulls to NaN)."""
    mod = type(X).__module__.split(".")[0]
    if mod == "pandas":
        import pandas as pd

        cols = []
        for j, name in enumerate(X.columns):
            s = X[name]
            if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype.kind in "OUSMm":
                if s.dtype.kind == "O":
                    try:
                        cols.append(s.astype("Float64").to_numpy(dtype=float, na_value=np.nan))
                        continue
                    except (TypeError, ValueError):
                        pass
                raise DataError(
                    f"X: {_col_name(j, names)} has dtype {s.dtype}; this model expects numbers "
                    "(use nbayes.NaiveBayes for mixed columns)"
                )
            cols.append(s.to_numpy(dtype=float, na_value=np.nan))
        return np.column_stack(cols) if cols else np.empty((len(X), 0))
    if mod == "polars":
        import polars as pl

        for j, (name, dt) in enumerate(X.schema.items()):
            if not (dt.is_numeric() or dt == pl.Boolean):
                raise DataError(f"X: {_col_name(j, names)} has dtype {dt}; expected numbers")
        floats: np.ndarray = X.cast(pl.Float64).to_numpy()
        return floats
    if mod == "pyarrow":
        return np.column_stack(
            [np.asarray(c.to_numpy(zero_copy_only=False), dtype=float) for c in X.columns]
        )
    return np.asarray(X)


def check_X_numeric(
    X: Any,
    *,
    allow_nan: bool,
    allow_sparse: bool = True,
    nonnegative: bool = False,
    check_finite: bool = True,
    n_features: int | None = None,
    feature_names: Sequence[str] | None = None,
    who: str = "X",
    model: str = "this model",
) -> tuple[np.ndarray | sp.csr_matrix, list[str] | None]:
    """Validate a numeric 2-D input once; return (float64 array or CSR matrix, column names).

    ``check_finite=False`` leaves the inf/NaN scan to a kernel that fuses it into its own pass.
    A wrong kind of input (a mapping, a set, a lone value, an iterator, a 1-D Series, ragged
    rows) is refused first (:func:`~nbayes._validation.kinds.check_table`).
    """
    check_table(X, who)
    names = _frame_columns(X)
    if sp.issparse(X):
        if not allow_sparse:
            raise DataError(f"{who}: sparse input is not supported by this model; pass a dense array")
        if X.ndim != 2:
            raise DataError(f"{who}: expected a 2-D matrix, got {X.ndim}-D")
        if X.dtype.kind == "c":
            raise DataError(f"{who}: Complex data not supported; expected real numbers")
        A = sp.csr_matrix(X, dtype=np.float64)
        data = A.data
    else:
        if names is not None or type(X).__module__.split(".")[0] in ("pandas", "polars", "pyarrow"):
            X = _frame_to_float(X, names)
        try:
            A = np.asarray(X)
        except Exception as exc:  # ragged lists and the like
            raise DataError(f"{who}: could not be read as a 2-D array of numbers ({exc})") from None
        if A.dtype.kind == "c":
            raise DataError(f"{who}: Complex data not supported; expected real numbers")
        if A.ndim != 2:
            raise DataError(
                f"{who}: expected a 2-D array (rows x features), got a {A.ndim}-D array of "
                f"shape {A.shape}. Reshape your data: X.reshape(-1, 1) for a single feature, "
                "X.reshape(1, -1) for a single row"
            )
        if A.dtype.kind in "OUS":
            A = _object_to_float(A, names, who)
        elif A.dtype.kind not in "fiub":
            raise DataError(f"{who}: dtype {A.dtype} is not numeric; expected numbers")
        if A.dtype != np.float64 or not A.flags.c_contiguous:
            A = np.ascontiguousarray(A, dtype=np.float64)
        data = None
    check_shape(who, A.shape, n_features, model)
    if feature_names is not None and names is not None and list(names) != list(feature_names):
        raise FeatureMismatchError(
            f"{who}: column names {names[:5]}... differ from those seen at fit "
            f"{list(feature_names)[:5]}...; pass the columns in the fitted order"
        )
    if check_finite or nonnegative:
        _scan(A, data, allow_nan=allow_nan, nonnegative=nonnegative, names=names, who=who)
    return A, names


def _object_to_float(A: np.ndarray, names: list[str] | None, who: str) -> np.ndarray:
    out = np.empty(A.shape, dtype=np.float64)
    for (i, j), v in np.ndenumerate(A):
        if is_missing(v):
            out[i, j] = np.nan
            continue
        try:
            out[i, j] = float(v)
        except (TypeError, ValueError):
            raise DataError(
                f"{who}: row {i}, {_col_name(j, names)} holds {show(v)}; expected a number"
            ) from None
    return out


def _scan(
    A: Any,
    data: np.ndarray | None,
    *,
    allow_nan: bool,
    nonnegative: bool,
    names: Sequence[str] | None,
    who: str,
) -> None:
    """Find inf (always an error), NaN (an error unless allowed) and negatives, block by block."""
    blocks: Iterable[tuple[int, np.ndarray]]
    if data is not None:  # CSR: scan stored values only
        blocks = [(0, data)]
    else:
        blocks = ((s, A[s : s + _BLOCK]) for s in range(0, A.shape[0], _BLOCK))
    for start, blk in blocks:
        bad = np.isinf(blk) if allow_nan else ~np.isfinite(blk)
        problem = "NaN or infinity" if not allow_nan else "infinity"
        if nonnegative and not bad.any():
            with np.errstate(invalid="ignore"):
                bad = blk < 0
            problem = "Negative values in data"
        if bad.any():
            if data is not None:
                k = int(np.argmax(bad))
                i = int(np.searchsorted(A.indptr, k, side="right") - 1)
                j = int(A.indices[k])
                v = data[k]
            else:
                i, j = first_bad(bad)
                v = blk[i, j]
                i += start
            expected = "a finite number" if not nonnegative else "a finite number >= 0"
            if allow_nan:
                expected += " or NaN for a missing value"
            raise DataError(
                f"{who}: {problem}: row {i}, {_col_name(j, names)} holds {show(v)}; expected {expected}"
            )


def check_shape(who: str, shape: tuple[int, int], n_features: int | None, model: str) -> None:
    """At least one row and one column, and ``n_features`` columns when the model knows how
    many it takes."""
    n, d = shape
    if n == 0:
        raise DataError(f"{who}: 0 sample(s) (shape={shape}) while a minimum of 1 is required.")
    if d == 0:
        raise DataError(f"{who}: 0 feature(s) (shape={shape}) while a minimum of 1 is required.")
    if n_features is not None and d != n_features:
        raise FeatureMismatchError(feature_count_message(who, d, n_features, model))


def feature_count_message(who: str, got: int, expected: int, model: str) -> str:
    return f"{who} has {got} features, but {model} is expecting {expected} features as input"


def check_sample_weight(sample_weight: Any, n: int) -> np.ndarray | None:
    """None stays None (kernels take it as all ones); otherwise float64, finite, >= 0."""
    if sample_weight is None:
        return None
    w = None
    if not isinstance(sample_weight, str | bytes | dict):
        raw = np.asarray(sample_weight)
        if raw.dtype.kind not in "biuf" and raw.dtype.kind != "O":
            raise DataError(f"sample_weight: expected numbers, got an array of {raw.dtype}")
        try:
            w = raw.astype(float)
        except (TypeError, ValueError):
            bad = next(v for v in raw.ravel().tolist() if not isinstance(v, numbers.Real))
            raise DataError(f"sample_weight: expected numbers, got {show(bad)}") from None
    if w is not None and w.ndim == 0:
        w = np.full(n, float(w))
    if w is None or w.ndim != 1 or w.shape[0] != n:
        shape = None if w is None else w.shape
        raise DataError(f"sample_weight: expected a 1-D array of {n} weights, got shape {shape}")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise DataError(f"sample_weight: entry {i} is {show(w[i])}; weights must be finite and >= 0")
    return np.ascontiguousarray(w)


def n_rows(X: Any) -> int:
    """The number of rows of any input the models take (arrays, sparse matrices, frames, lists);
    an input that holds no rows (None, a lone value, a mapping, a set, an iterator) is refused
    (:func:`~nbayes._validation.kinds.check_rows`)."""
    check_rows(X)
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    if hasattr(X, "num_rows"):  # pyarrow
        return int(X.num_rows)
    try:
        return len(X)
    except TypeError:
        raise DataError(f"X: expected rows (an array, a table or a list), got {describe(X)}") from None


def take_rows(X: Any, rows: np.ndarray) -> Any:
    """The given rows of X, in X's own type (numpy, SciPy sparse, pandas, polars, pyarrow, lists)."""
    mod = type(X).__module__.split(".")[0]
    if sp.issparse(X):
        return X.tocsr()[rows]
    if mod == "pandas":
        return X.iloc[rows]
    if mod == "polars":
        return X[np.asarray(rows).tolist()] if hasattr(X, "columns") else X.gather(rows)
    if mod == "pyarrow":
        return X.take(rows)
    if isinstance(X, np.ndarray):
        return X[rows]
    if isinstance(X, list | tuple):
        return [X[i] for i in np.asarray(rows).tolist()]
    return np.asarray(X)[rows]
