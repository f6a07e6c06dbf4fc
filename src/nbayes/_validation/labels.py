"""Labels and categorical values: typed arrays of labels, their sorted classes, codes and unions."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..errors import DataError
from .common import is_missing, show


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
        if set(map(type, labels)) <= {str}:  # strings only: nothing to check
            return labels
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
