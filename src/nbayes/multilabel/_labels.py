"""Label sets at the boundary: lists of labels per row, or an indicator matrix (dense or
SciPy sparse), read once into a sparse (n, L) indicator over a sorted label set."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import encode_labels, is_missing, label_array, show, sorted_unique, union_labels
from ..errors import DataError


def is_indicator(Y: Any) -> bool:
    """A 2-D numeric array or a SciPy sparse matrix: scikit-learn's indicator matrix."""
    if sp.issparse(Y):
        return True
    if isinstance(Y, np.ndarray):
        return Y.ndim == 2 and Y.dtype.kind in "biuf"
    return False


def read_labels(Y: Any, n: int, classes: np.ndarray | None = None,
                *, allow_empty: bool = False, grow: bool = True, who: str = "y",
                unknown_error: type[Exception] = DataError) -> tuple[sp.csr_matrix, np.ndarray]:
    """(indicator (n, L) CSR of 0/1 float, the labels of its columns). ``classes``: the labels
    known so far (an indicator matrix must then have one column per class); ``grow``: labels
    outside ``classes`` extend them (sorted union), else they are an error."""
    if Y is None:
        raise DataError(f"{who}: multi-label classification needs label sets (lists of labels per row, or an "
                        "indicator matrix), got None")
    if is_indicator(Y):
        M = sp.csr_matrix(Y, dtype=np.float64)
        if M.shape[0] != n:
            raise DataError(f"{who}: the indicator matrix has {M.shape[0]} rows but X has {n} rows; they must match")
        data = M.data
        if not np.all((data == 0) | (data == 1)):
            bad = M.data[(data != 0) & (data != 1)][0]
            raise DataError(f"{who}: an indicator matrix holds 0 and 1 only, got {show(bad)}")
        M.eliminate_zeros()
        labels = np.arange(M.shape[1]) if classes is None else classes
        if len(labels) != M.shape[1]:
            raise DataError(f"{who}: the indicator matrix has {M.shape[1]} columns but the model has "
                            f"{len(labels)} labels {labels.tolist()!r}; they must match")
        _check_empty(M, allow_empty, who)
        return M, labels
    rows = _rows(Y, who)
    if len(rows) != n:
        raise DataError(f"{who}: {len(rows)} label sets but X has {n} rows; they must match")
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    flat_list = [v for r in rows for v in r]
    for i, r in enumerate(rows):
        for v in r:
            if isinstance(v, Iterable | dict) and not isinstance(v, str | bytes):
                raise DataError(f"{who}: row {i} holds {show(v)}, a {type(v).__name__}, as a label; a label is one "
                                "value (a string, number or boolean), a row a list of them")
            if is_missing(v):
                raise DataError(f"{who}: row {i} holds a missing label ({show(v)}); labels must not be missing")
    flat = label_array(flat_list) if flat_list else np.empty(0, dtype=object)
    seen = sorted_unique(flat) if len(flat) else np.empty(0, dtype=object)
    if classes is None:
        labels = seen
    else:
        _, unknown = encode_labels(flat, classes) if len(flat) else (None, np.zeros(0, dtype=bool))
        if unknown.any() and not grow:
            k = int(np.argmax(unknown))
            row = int(np.searchsorted(np.cumsum(lengths), k, side="right"))
            raise unknown_error(f"{who}: row {row} has label {show(flat[k])}, which the model never learned "
                            f"(labels: {classes.tolist()!r})")
        labels = union_labels(classes, seen) if unknown.any() else classes
    codes, _ = encode_labels(flat, labels) if len(flat) else (np.zeros(0, dtype=np.intp), None)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    M = sp.csr_matrix((np.ones(len(codes)), np.asarray(codes, dtype=np.intp), indptr), shape=(n, len(labels)))
    M.sum_duplicates()  # a label named twice in a row is one label
    M.data[:] = 1.0
    _check_empty(M, allow_empty, who)
    return M, labels


def _rows(Y: Any, who: str) -> list[list[Any]]:
    """The label sets as lists; a row that is not a collection of labels is an error."""
    if isinstance(Y, str | bytes) or not isinstance(Y, Iterable):
        raise DataError(f"{who}: expected one collection of labels per row (or an indicator matrix), "
                        f"got {type(Y).__name__}")
    if isinstance(Y, np.ndarray) and Y.ndim == 2:  # a 2-D array of labels (not 0/1): row-wise lists
        return [list(r) for r in Y.tolist()]
    if hasattr(Y, "to_pylist"):  # pyarrow
        Y = Y.to_pylist()
    elif hasattr(Y, "to_list"):  # polars
        Y = Y.to_list()
    elif hasattr(Y, "tolist") and not isinstance(Y, np.ndarray):  # pandas
        Y = Y.tolist()
    out = []
    for i, r in enumerate(Y):
        if isinstance(r, str | bytes) or r is None or not isinstance(r, Iterable) or isinstance(r, dict):
            raise DataError(f"{who}: row {i} is {show(r)}; each row must be a list of labels "
                            "(a label set such as ['grain', 'wheat'])")
        out.append(list(r.tolist() if isinstance(r, np.ndarray) else r))
    return out


def _check_empty(M: sp.csr_matrix, allow_empty: bool, who: str) -> None:
    if allow_empty:
        return
    empty = np.diff(M.indptr) == 0
    if empty.any():
        i = int(np.argmax(empty))
        raise DataError(f"{who}: row {i} has no label ({int(empty.sum())} rows have none); every row needs at "
                        "least one label, or pass allow_empty=True to learn such rows as negatives of "
                        "every label")


def label_lists(M: Any, classes: np.ndarray) -> list[list[Any]]:
    """The label lists of an indicator matrix (rows in order, labels in ``classes`` order)."""
    M = sp.csr_matrix(M)
    labels = classes.tolist()
    return [[labels[j] for j in M.indices[M.indptr[i]:M.indptr[i + 1]]] for i in range(M.shape[0])]
