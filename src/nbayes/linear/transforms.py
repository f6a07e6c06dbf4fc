"""Input transforms a logistic model carries when it comes from ``to_logistic()``.

A Bernoulli model scores ``x > binarize``, a categorical model scores one indicator per
(feature, value): the logistic twin takes the same raw input and applies the same map first
(CORRECTNESS.md), so both models answer the same rows with the same probabilities. A logistic
model cannot leave a missing feature out of a sum the way Naive Bayes does: NaN is an error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_X_numeric, encode_values
from ..errors import DataError
from .._tables import read_table


class Binarize:
    """x -> 1[x > threshold]; with threshold None the input must already be 0/1."""

    def __init__(self, threshold: float | None, n_features: int, model: str) -> None:
        self.threshold = threshold
        self.n_features = n_features
        self.model = model

    def transform(self, X: Any) -> Any:
        A, _ = check_X_numeric(X, allow_nan=True, n_features=self.n_features, model=self.model)
        _no_missing(A, self.model)
        t = self.threshold
        if sp.issparse(A):
            S: Any = A  # a scipy.sparse CSR matrix (SciPy is untyped)
            data = S.data if t is None else (S.data > t).astype(np.float64)
            out = sp.csr_matrix((data, S.indices.copy(), S.indptr.copy()), shape=S.shape)
            values = out.data
        else:
            out = A if t is None else (A > t).astype(np.float64)
            values = out
        if t is None and np.any((values != 0) & (values != 1)):
            raise DataError(
                "X: with binarize=None the features must be 0 or 1 (the Bernoulli model this "
                "logistic model came from scores 0/1 features)"
            )
        return out

    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        return {"type": "binarize", "threshold": self.threshold, "n_features": self.n_features}, {}


class OneHot:
    """Each column's value -> one indicator among [values..., unseen]: the rows of the
    categorical model's lookup tables. Unseen values take the model's unseen-value term."""

    def __init__(self, categories: list[np.ndarray], names: list[str] | None, model: str) -> None:
        self.categories = categories
        self.names = names
        self.model = model
        widths = np.array([len(v) + 1 for v in categories], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(widths)])

    @property
    def n_outputs(self) -> int:
        return int(self.offsets[-1])

    def transform(self, X: Any) -> sp.csr_matrix:

        T, _ = read_table(
            X, n_features=len(self.categories), feature_names=self.names, model=self.model
        )
        n = T.shape[0]
        cols = np.empty((n, len(self.categories)), dtype=np.int64)
        for j, vals in enumerate(self.categories):
            c = encode_values(T.column(j), vals)
            if np.any(c < 0):
                i = int(np.argmax(c < 0))
                name = self.names[j] if self.names else f"column {j}"
                raise DataError(
                    f"X: row {i}, {name} is missing; a logistic model cannot leave a feature out "
                    "(Naive Bayes can: predict with the Naive Bayes model for rows with gaps)"
                )
            cols[:, j] = self.offsets[j] + c
        data = np.ones(cols.size)
        indptr = np.arange(0, cols.size + 1, len(self.categories), dtype=np.int64)
        return sp.csr_matrix((data, cols.ravel(), indptr), shape=(n, self.n_outputs))

    def to_state(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        arrays = {f"categories/{j}": v for j, v in enumerate(self.categories)}
        return {"type": "onehot", "n_features": len(self.categories), "names": self.names}, arrays


def _no_missing(A: Any, model: str) -> None:
    data = A.data if sp.issparse(A) else A
    nan = np.isnan(data)
    if nan.any():
        if sp.issparse(A):
            k = int(np.argmax(nan))
            i, j = int(np.searchsorted(A.indptr, k, side="right") - 1), int(A.indices[k])
        else:
            i, j = (int(v) for v in np.argwhere(nan)[0])
        raise DataError(
            f"X: row {i}, column {j} is missing (NaN); a logistic model cannot leave a feature "
            "out (Naive Bayes can: predict with the Naive Bayes model for rows with gaps)"
        )


def transform_from_state(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> Any:
    kind = meta.get("type")
    if kind == "binarize":
        return Binarize(meta["threshold"], int(meta["n_features"]), "LogisticRegression")
    if kind == "onehot":
        cats = [arrays[f"categories/{j}"] for j in range(int(meta["n_features"]))]
        return OneHot(cats, meta.get("names"), "LogisticRegression")
    raise ValueError(f"unknown input transform {kind!r}")
