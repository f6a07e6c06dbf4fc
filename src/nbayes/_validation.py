"""The boundary: every check on hyperparameters and data happens here, once.

Inner code (statistics, estimation, kernels) trusts what comes out of these functions.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .errors import DataError, FeatureMismatchError, InvalidParameterError

__all__ = [
    "check_number",
    "check_choice",
    "check_X_numeric",
    "check_y",
    "check_sample_weight",
    "sorted_unique",
    "is_missing",
    "first_bad",
]

_BLOCK = 1 << 16  # rows per block when scanning large arrays (keeps temporaries small)


# ----------------------------------------------------------------------------- parameters
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


# ----------------------------------------------------------------------------- helpers
def is_missing(value: Any) -> bool:
    """True for the nulls nbayes treats as missing: None, NaN, pandas.NA, NaT."""
    if value is None:
        return True
    if isinstance(value, float | np.floating):
        return bool(value != value)
    tname = type(value).__name__
    if tname in ("NAType", "NaTType"):
        return True
    if isinstance(value, np.datetime64 | np.timedelta64):
        return bool(np.isnat(value))
    return False


def _sort_key(v: Any) -> tuple[int, Any]:
    # Canonical order for mixed label sets: numbers (bools first), then strings, then the rest.
    if isinstance(v, bool | np.bool_):
        return (0, int(v))
    if isinstance(v, numbers.Real):
        return (1, float(v))
    if isinstance(v, str):
        return (2, v)
    return (3, repr(v))


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values; a canonical order also for mixed-type object arrays."""
    if values.dtype.kind != "O":
        return np.unique(values)
    vals = values.tolist()
    if any(issubclass(t, bool | np.bool_) for t in set(map(type, vals))):
        # True == 1 in Python: booleans are kept apart from numbers by the typed key
        seen = list({_label_key(v): v for v in vals}.values())
    else:
        seen = list(set(vals))
    try:
        ordered = sorted(seen)
        # bool and int compare equal (True == 1): refuse that ambiguity by the typed key
        if len({type(v) for v in ordered}) > 1:
            raise TypeError
    except TypeError:
        ordered = sorted(seen, key=_sort_key)
    out = np.empty(len(ordered), dtype=object)
    out[:] = ordered
    return out


def show(v: Any) -> str:
    """A value as a user wrote it: 3.5, 'red', None (not np.float64(3.5))."""
    return repr(v.item() if isinstance(v, np.generic) else v)


def first_bad(mask: np.ndarray) -> tuple[int, ...]:
    """Index of the first True entry of ``mask`` (row-major)."""
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(mask)), mask.shape))


def _col_name(j: int, names: Sequence[str] | None) -> str:
    return f"column {names[j]!r}" if names is not None else f"column {j}"


# ----------------------------------------------------------------------------- X
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
    """
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
    n, d = A.shape
    if n == 0:
        raise DataError(f"{who}: 0 sample(s) (shape={A.shape}) while a minimum of 1 is required.")
    if d == 0:
        raise DataError(f"{who}: 0 feature(s) (shape={A.shape}) while a minimum of 1 is required.")
    if n_features is not None and d != n_features:
        raise FeatureMismatchError(feature_count_message(who, d, n_features, model))
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


# ----------------------------------------------------------------------------- y, weights
def label_array(y: Any) -> np.ndarray:
    """Labels as a 1-D numpy array (from lists, numpy, pandas / polars / pyarrow), unchecked
    beyond their shape; missing labels stay (see :func:`check_y`).

    Labels keep their Python types: a list mixing types (``[1, "a"]``, ``[True, 2]``) becomes an
    object array, never strings or numbers by numpy's promotion (``True`` is not ``1``, ``1``
    is not ``"1"``).

    >>> label_array([1, "a"]).tolist(), label_array([True, 1]).tolist()
    ([1, 'a'], [True, 1])
    """
    if y is None:
        raise DataError("y: this classifier requires y to be passed, but the target y is None")
    if sp.issparse(y):
        raise DataError("y: expected a 1-D sequence of class labels, got a sparse matrix")
    if isinstance(y, list | tuple) and _mixed_types(y):
        out = np.empty(len(y), dtype=object)
        out[:] = list(y)
        return out
    mod = type(y).__module__.split(".")[0]
    if mod in ("pandas", "polars", "pyarrow"):
        y = y.to_numpy() if hasattr(y, "to_numpy") else np.asarray(y)
        if y.dtype.kind == "O" or str(y.dtype).startswith("string"):
            y = np.asarray(y, dtype=object)
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise DataError(f"y: expected a 1-D sequence of class labels, got shape {arr.shape}")
    return arr


def _mixed_types(values: Sequence[Any]) -> bool:
    """Whether numpy's promotion would change some of these labels (mixed str / bool / number,
    or other objects)."""
    kinds = set()
    for t in set(map(type, values)):
        if issubclass(t, bool | np.bool_):
            kinds.add("bool")
        elif issubclass(t, str | np.str_):
            kinds.add("str")
        elif issubclass(t, numbers.Integral):
            kinds.add("int")
        elif issubclass(t, numbers.Real):
            kinds.add("real")
        else:
            kinds.add("other")
    return len(kinds - {"real"} if kinds <= {"int", "real"} else kinds) > 1 or "other" in kinds


def check_y(y: Any, n: int) -> np.ndarray:
    """Validate class labels: 1-D, length n, no missing label, not continuous numbers."""
    labels = label_array(y)
    if labels.shape[0] != n:
        raise DataError(f"y has {labels.shape[0]} labels but X has {n} rows; they must match")
    kind = labels.dtype.kind
    if kind == "f":
        bad = ~np.isfinite(labels)
        if bad.any():
            i = int(np.argmax(bad))
            raise DataError(f"y: row {i} has label {show(labels[i])}; labels must not be missing or infinite")
        if np.any(labels != np.round(labels)):
            raise DataError(
                "y: Unknown label type: continuous; a classifier needs discrete class labels "
                "(integers or strings), not real-valued targets"
            )
    elif kind == "O":
        for i, v in enumerate(labels):
            if is_missing(v):
                raise DataError(f"y: row {i} has a missing label ({v!r}); every row needs a class")
            if isinstance(v, float) and v != round(v):
                raise DataError("y: Unknown label type: continuous; expected discrete class labels")
    elif kind == "c":
        raise DataError("y: Unknown label type: complex numbers are not class labels")
    elif kind not in "iubUS":
        raise DataError(f"y: Unknown label type: dtype {labels.dtype} cannot hold class labels")
    return labels


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


def classes_and_codes(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct labels and each row's index among them (one pass for small ints)."""
    if y.dtype.kind in "iu" and len(y):
        lo, hi = int(y.min()), int(y.max())
        if hi - lo <= 1 << 20:
            idx = y if lo == 0 else y - lo  # no temporary in the common case
            present = np.bincount(idx, minlength=hi - lo + 1) > 0
            lookup = (np.cumsum(present) - 1).astype(np.int32)  # half the memory of intp codes
            return (np.flatnonzero(present) + lo).astype(y.dtype), lookup[idx]
    if y.dtype.kind != "O":
        classes, codes = np.unique(y, return_inverse=True)
        return classes, codes.astype(np.intp)
    classes = sorted_unique(y)
    return classes, encode_labels(y, classes)[0]


def encode_labels(y: np.ndarray, classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Map labels to positions in ``classes``; return (codes, mask of labels not in classes)."""
    codes = encode_values(y, classes)
    unknown = (codes < 0) | (codes >= len(classes))
    return np.where(unknown, 0, codes), unknown


def missing_mask(col: np.ndarray) -> np.ndarray:
    """True where the entry is missing (NaN, None, pandas.NA, NaT)."""
    if col.dtype.kind == "f":
        nan: np.ndarray = np.isnan(col)
        return nan
    if col.dtype.kind == "O":
        try:  # vectorised: None, and NaN (the one value unequal to itself)
            with np.errstate(invalid="ignore"):
                # numpy's stubs refuse None as an operand; an object array compares with it
                # element by element
                is_none = np.equal(col, None)  # type: ignore[call-overload]
                mask = np.asarray(is_none, dtype=np.bool_) | np.asarray(
                    np.not_equal(col, col), dtype=np.bool_
                )
            return mask
        except (TypeError, ValueError):  # pandas.NA and friends refuse to be compared
            return np.fromiter((is_missing(v) for v in col), dtype=bool, count=len(col))
    return np.zeros(len(col), dtype=bool)


def encode_values(col: np.ndarray, values: np.ndarray) -> np.ndarray:
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
    index = {_label_key(v): k for k, v in enumerate(values.tolist())}
    out = np.empty(len(col), dtype=np.intp)
    for i, v in enumerate(col.tolist()):
        out[i] = -1 if is_missing(v) else index.get(_label_key(v), J)
    return out


def _label_key(v: Any) -> tuple[str, Any]:
    # True == 1 in Python: keep boolean values apart from numbers
    return ("b", v) if isinstance(v, bool | np.bool_) else ("v", v)


def union_labels(a: np.ndarray, b: Iterable[Any]) -> np.ndarray:
    """Sorted union of two label arrays (the order ``fit`` would give)."""
    b = np.asarray(b)
    if a.dtype.kind != "O" and b.dtype.kind != "O" and (a.dtype.kind in "iufb") == (b.dtype.kind in "iufb"):
        return np.unique(np.concatenate([a, b]))
    both = np.empty(len(a) + len(b), dtype=object)
    both[: len(a)] = a.tolist()
    both[len(a) :] = b.tolist()
    return sorted_unique(both)


def n_rows(X: Any) -> int:
    """The number of rows of any input the models take (arrays, sparse matrices, frames, lists)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    if hasattr(X, "num_rows"):  # pyarrow
        return int(X.num_rows)
    try:
        return len(X)
    except TypeError:
        raise DataError(f"X: expected rows (an array, a table or a list), got {type(X).__name__}") from None


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
