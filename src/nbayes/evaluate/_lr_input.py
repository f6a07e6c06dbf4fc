"""X as logistic regression needs it in :func:`nbayes.compare`: numbers only, no missing value
(one-hot encoding, mean imputation and standardisation fitted on each training draw)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import is_missing, take_rows
from ..errors import DataError
from .._tables import distinct, read_table

#: how ``lr_preprocess`` may make X numeric
LR_PREPROCESS = ("auto", "always", "never")


# ----------------------------------------------------------------------------- rows of X
def _as_input(X: Any) -> Any:
    """Lists become an object array (mixed columns keep their types); the rest stays as is."""
    if isinstance(X, list | tuple):
        n = len(X)
        d = len(X[0]) if n and hasattr(X[0], "__len__") else 0
        A = np.empty((n, d), dtype=object)
        try:
            A[...] = X if n else A
        except ValueError:
            raise DataError("X: rows of different lengths; expected a 2-D table") from None
        return A
    return X


def _module(X: Any) -> str:
    return type(X).__module__.split(".")[0]


def _n_rows(X: Any) -> int:
    if sp.issparse(X) or isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise DataError(
                f"X: expected a 2-D array (rows x features), got a {X.ndim}-D array of shape "
                f"{X.shape}. Reshape your data: X.reshape(-1, 1) for a single feature"
            )
        return int(X.shape[0])
    if _module(X) == "pyarrow":
        return int(X.num_rows)
    try:
        return len(X)
    except TypeError:
        raise DataError(f"X: expected a 2-D table of rows, got {type(X).__name__}") from None


# ----------------------------------------------------------------------------- LR input
def _numeric_column(col: np.ndarray) -> np.ndarray | None:
    """The column as float64 (NaN = missing) if every present value is a number, else None."""
    if col.dtype.kind in "iufb":
        return col.astype(np.float64)
    out = np.empty(len(col))
    for i, v in enumerate(col.tolist()):
        if is_missing(v):
            out[i] = np.nan
        elif isinstance(v, numbers.Real) and not isinstance(v, str):
            out[i] = float(v)
        else:
            return None
    return out


class LRInput:
    """X as logistic regression needs it: numbers only, no missing value.

    ``kind`` is ``"raw"`` (X as given: sparse input, or ``lr_preprocess="never"``),
    ``"matrix"`` (a float matrix of complete numeric columns, used as is) or ``"encode"``: per
    training draw, categorical columns are one-hot encoded on the categories seen in the draw
    (missing: NaN in all of the column's indicators; unseen at test time: all zeros), then
    every column is mean-imputed and standardised with the draw's means and standard
    deviations (a constant column is only centred).
    """

    def __init__(self, X: Any, mode: str) -> None:
        self.kind = "raw"
        self.X = X
        if sp.issparse(X):
            self.X = sp.csr_matrix(X, dtype=np.float64)
            return
        if mode == "never":
            return
        table, names = read_table(X)
        self.names = names or [str(j) for j in range(table.shape[1])]
        self.numeric: list[tuple[int, np.ndarray]] = []
        self.categorical: list[tuple[int, np.ndarray, np.ndarray]] = []
        for j in range(table.shape[1]):
            col = table.column(j)
            num = _numeric_column(col)
            if num is not None:
                if np.isinf(num).any():
                    i = int(np.argmax(np.isinf(num)))
                    raise DataError(f"X: row {i}, column {self.names[j]!r} holds inf; expected a finite number")
                self.numeric.append((j, num))
                continue
            values, codes, _ = distinct(col)
            self.categorical.append((j, values, codes))
        complete = not any(np.isnan(num).any() for _, num in self.numeric)
        if mode == "auto" and not self.categorical and complete:
            self.kind = "matrix"
            self.X = np.column_stack([num for _, num in self.numeric])
        else:
            self.kind = "encode"

    def describe(self) -> str:
        """What logistic regression is given, in words (the report's line)."""
        if self.kind == "raw":
            return "X as given"
        if self.kind == "matrix":
            return "the numeric columns as given"
        return (
            f"{len(self.numeric)} numeric column(s) and {len(self.categorical)} one-hot encoded "
            "categorical column(s), mean-imputed and standardised on each training draw"
        )

    def fixed_test(self, test: np.ndarray) -> Any:
        """The test matrix when it does not depend on the draw, else None."""
        return None if self.kind == "encode" else take_rows(self.X, test)

    def train_test(self, rows: np.ndarray, test: np.ndarray, test_fixed: Any) -> tuple[Any, Any]:
        """(the training rows' matrix, the test rows' matrix) of one draw, encoded with the
        training rows' categories, means and standard deviations."""
        if self.kind != "encode":
            return take_rows(self.X, rows), test_fixed
        blocks_train, blocks_test = [], []
        for _, num in self.numeric:
            blocks_train.append(num[rows, None])
            blocks_test.append(num[test, None])
        for _, values, codes in self.categorical:
            a, b = _one_hot(codes, len(values), rows, test)
            blocks_train.append(a)
            blocks_test.append(b)
        A = np.hstack(blocks_train)
        B = np.hstack(blocks_test)
        mean = _nanmean(A)
        A = np.where(np.isnan(A), mean, A)
        B = np.where(np.isnan(B), mean, B)
        std = A.std(axis=0)
        std[std <= 1e-12 * np.maximum(1.0, np.abs(mean))] = 1.0
        return (A - mean) / std, (B - mean) / std


def _nanmean(A: np.ndarray) -> np.ndarray:
    """Column means over the present values; 0 for a column with none (no warning)."""
    present = ~np.isnan(A)
    count = present.sum(axis=0)
    total = np.where(present, A, 0.0).sum(axis=0)
    means: np.ndarray = np.divide(total, count, out=np.zeros(A.shape[1]), where=count > 0)
    return means


def _one_hot(codes: np.ndarray, J: int, rows: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indicators of the categories present in the draw ``rows``, for the draw and the test
    rows; a missing value (code -1) is NaN in every indicator, to be imputed."""
    seen = np.zeros(J + 1, dtype=bool)
    c = codes[rows]
    seen[c[c >= 0]] = True
    seen[J] = False
    local = np.full(J + 1, -1, dtype=np.intp)
    local[seen] = np.arange(int(seen.sum()))
    k = int(seen.sum())
    out = []
    for idx in (rows, test):
        cc = codes[idx]
        M = np.zeros((len(idx), k))
        pos = np.where(cc >= 0, local[np.where(cc >= 0, cc, J)], -1)
        hit = pos >= 0
        M[np.flatnonzero(hit), pos[hit]] = 1.0
        M[cc < 0] = np.nan
        out.append(M)
    return out[0], out[1]
