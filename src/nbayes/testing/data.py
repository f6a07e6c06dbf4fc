"""Seeded data to suit an estimator's input: counts, binary, categories, floats, frames, texts.

Every generator takes a ``seed`` and returns a :class:`Dataset` of three classes whose
features depend on the class (so the laws are tested on a model that has learned something).
:func:`dataset_for` picks the kind from what the estimator declares (``"text"``,
``"columns"``) or its public class; a new model names its kind with ``kind=``.

>>> from nbayes.testing.data import make_counts
>>> data = make_counts(seed=1, n_rows=12)
>>> data.kind, data.n_rows, data.n_features
('counts', 12, 6)
>>> sorted(set(data.y.tolist()))
[0, 1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import InvalidParameterError, MissingDependencyError

__all__ = [
    "KINDS",
    "WORDS",
    "Dataset",
    "complete_rows",
    "dataset_for",
    "input_kind",
    "make_binary",
    "make_categories",
    "make_counts",
    "make_frame",
    "make_real",
    "make_text",
]

#: the words of :func:`make_text`'s documents (a frozen idf for tf-idf models can be built on them)
WORDS: tuple[str, ...] = (
    "cheap", "pills", "offer", "win", "noon", "lunch", "meeting", "report", "ff", "budget",
    "free", "now", "team", "call", "project", "click",
)


@dataclass
class Dataset:
    """Rows ``X`` (an array, a pandas frame or a list of documents) with labels ``y``.

    ``rows`` and ``columns`` cut it the same way whatever the kind of ``X``."""

    X: Any
    y: np.ndarray
    kind: str
    seed: int = 0
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        """The number of rows (documents for text)."""
        return len(self.y)

    @property
    def n_features(self) -> int | None:
        """Columns of X (None for documents)."""
        return None if self.kind == "text" else int(self.X.shape[1])

    @property
    def classes(self) -> np.ndarray:
        """The distinct labels, sorted (as ``fit`` sorts them)."""
        return np.array(sorted(set(self.y.tolist())), dtype=self.y.dtype)

    def rows(self, idx: Any) -> "Dataset":
        """The rows ``idx`` (indices, a boolean mask or a slice), same kind."""
        pos = np.arange(self.n_rows)[idx]
        return Dataset(take_rows(self.X, pos), self.y[pos], self.kind, self.seed, self.info)

    def columns(self, order: Sequence[int] | np.ndarray) -> "Dataset":
        """The columns ``order`` (a permutation, or a subset), same rows."""
        return Dataset(take_columns(self.X, order), self.y, self.kind, self.seed, self.info)


def take_rows(X: Any, pos: np.ndarray) -> Any:
    """Rows ``pos`` of X, whatever its kind."""
    if hasattr(X, "iloc"):
        return X.iloc[pos].reset_index(drop=True)
    if isinstance(X, list):
        return [X[i] for i in pos]
    return X[pos]


def take_columns(X: Any, order: Sequence[int] | np.ndarray) -> Any:
    """Columns ``order`` of X (arrays and frames)."""
    if hasattr(X, "iloc"):
        return X.iloc[:, list(order)]
    return X[:, list(order)]


def complete_rows(data: Dataset) -> np.ndarray:
    """Indices of the rows without a missing value."""
    if data.kind == "text":
        return np.arange(data.n_rows)
    if hasattr(data.X, "isna"):
        return np.flatnonzero(~data.X.isna().to_numpy().any(axis=1))
    X = np.asarray(data.X, dtype=object)
    missing = np.array([[v is None or (isinstance(v, float) and v != v) for v in row] for row in X])
    return np.flatnonzero(~missing.any(axis=1)) if missing.size else np.arange(data.n_rows)


def _labels(rng: np.random.Generator, n: int) -> np.ndarray:
    """Three classes, each present at least 4 times when n >= 12."""
    y = rng.integers(0, 3, n)
    if n >= 12:
        y[:12] = np.tile([1, 1, 0, 2], 3)
        rng.shuffle(y[2:])  # rows 0 and 1 stay in class 1 (the text generator's term-less rows)
    return y


def _holes(rng: np.random.Generator, X: np.ndarray, missing: float, value: Any) -> np.ndarray:
    if missing > 0:
        X[rng.random(X.shape) < missing] = value
    return X


def make_counts(seed: int = 0, n_rows: int = 90, n_features: int = 6) -> Dataset:
    """Non-negative counts (floats holding integers), feature ``y mod d`` raised in class y."""
    rng = np.random.default_rng(seed)
    y = _labels(rng, n_rows)
    lam = 1.0 + 2.0 * (np.arange(n_features)[None, :] == (y % n_features)[:, None])
    return Dataset(rng.poisson(lam).astype(float), y, "counts", seed)


def make_binary(seed: int = 0, n_rows: int = 90, n_features: int = 6, missing: float = 0.0) -> Dataset:
    """0/1 features, more ones in higher classes; ``missing`` a fraction of NaN cells."""
    rng = np.random.default_rng(seed)
    y = _labels(rng, n_rows)
    X = (rng.random((n_rows, n_features)) < 0.2 + 0.2 * y[:, None]).astype(float)
    return Dataset(_holes(rng, X, missing, np.nan), y, "binary", seed)


def make_real(seed: int = 0, n_rows: int = 90, n_features: int = 4, missing: float = 0.0) -> Dataset:
    """Normal features, the mean and spread depending on the class."""
    rng = np.random.default_rng(seed)
    y = _labels(rng, n_rows)
    shift = np.linspace(1.0, -0.5, n_features)[None, :]
    X = rng.normal(y[:, None] * shift, 1.0 + 0.5 * y[:, None], (n_rows, n_features))
    return Dataset(_holes(rng, X, missing, np.nan), y, "real", seed)


def make_categories(seed: int = 0, n_rows: int = 90, missing: float = 0.0, strings: bool = True) -> Dataset:
    """Categorical features: strings, small integers and booleans in an object array
    (``strings=False``: small integer codes only, an int array)."""
    rng = np.random.default_rng(seed)
    y = _labels(rng, n_rows)
    if not strings:
        X = (rng.integers(0, 3, (n_rows, 4)) + y[:, None]) % 5
        return Dataset(X, y, "categories", seed)
    vals = np.array(["a", "b", "c", "d"], dtype=object)
    X = np.empty((n_rows, 4), dtype=object)
    X[:, 0] = vals[(y + rng.integers(0, 2, n_rows)) % 4]
    X[:, 1] = [int(v) for v in (rng.integers(0, 3, n_rows) + y) % 4]
    X[:, 2] = vals[rng.integers(0, 3, n_rows)]
    X[:, 3] = [bool(v) for v in rng.random(n_rows) < 0.3 + 0.2 * y]
    return Dataset(_holes(rng, X, missing, None), y, "categories", seed)


def make_frame(seed: int = 0, n_rows: int = 90, missing: float = 0.0) -> Dataset:
    """A pandas frame of mixed columns (two numeric, one string, one boolean), string labels."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - pandas is in the test extra
        raise MissingDependencyError("make_frame needs pandas: pip install 'nbayes[frames]'") from exc
    rng = np.random.default_rng(seed)
    y = _labels(rng, n_rows)
    df = pd.DataFrame({
        "x": rng.normal(y, 1.0),
        "c": pd.Series(np.array(["p", "q", "r"], dtype=object)[(y + rng.integers(0, 2, n_rows)) % 3], dtype=object),
        "b": rng.random(n_rows) < 0.3 + 0.2 * y,
        "z": rng.normal(-y, 2.0),
    })
    if missing > 0:
        df.loc[rng.random(n_rows) < missing, "x"] = np.nan
        df.loc[rng.random(n_rows) < missing, "c"] = None
    return Dataset(df, np.array(["no", "maybe", "yes"], dtype=object)[y], "frame", seed)


def make_text(seed: int = 0, n_rows: int = 90) -> Dataset:
    """Short documents over :data:`WORDS`, each class favouring its own words; the first two
    documents of the set have no term (``""``, one-letter words): a chunk of them is a valid
    chunk of a stream. Some repeat one word (``"ff ff ff ff"``), some hold a word no other
    document has; labels are strings."""
    rng = np.random.default_rng(seed)
    y = _labels(rng, n_rows)
    words = np.array(WORDS)
    docs: list[str] = []
    for i, c in enumerate(y):
        if i < 2:
            docs.append(["", "a b"][i])
            continue
        if i % 17 == 5:
            docs.append(" ".join(["ff"] * int(rng.integers(2, 5))))
            continue
        if i % 13 == 4:  # a word of its own: weights, unlearn and folds must drop it exactly
            docs.append(f"rare{i} " + " ".join(rng.choice(words, 2)))
            continue
        p = np.full(len(words), 1.0)
        p[c * 5 : c * 5 + 5] = 6.0
        n = int(rng.integers(1, 8))
        docs.append(" ".join(rng.choice(words, n, p=p / p.sum())).title() if i % 7 == 3 else
                    " ".join(rng.choice(words, n, p=p / p.sum())))
    return Dataset(docs, np.array(["ham", "spam", "eggs"], dtype=object)[y], "text", seed)


#: kind -> generator(seed, n_rows, missing)
KINDS: dict[str, Callable[..., Dataset]] = {
    "counts": lambda seed, n_rows, missing: make_counts(seed, n_rows),
    "binary": lambda seed, n_rows, missing: make_binary(seed, n_rows, missing=missing),
    "real": lambda seed, n_rows, missing: make_real(seed, n_rows, missing=missing),
    "categories": lambda seed, n_rows, missing: make_categories(seed, n_rows, missing=missing),
    "frame": lambda seed, n_rows, missing: make_frame(seed, n_rows, missing=missing),
    "text": lambda seed, n_rows, missing: make_text(seed, n_rows),
}


def input_kind(estimator: Any) -> str:
    """The kind of data an estimator takes, from its capabilities: ``"text"``, ``"frame"``
    (``columns``), ``"counts"``, ``"binary"``, ``"categories"``; a wrapper's from its
    ``estimator``; anything else ``"real"``."""
    caps: frozenset[str] = getattr(estimator, "capabilities", frozenset())
    if "text" in caps:
        return "text"
    if "columns" in caps:
        return "frame"
    inner = _wrapped(estimator)
    if inner is not None:
        return input_kind(inner)
    for kind in ("counts", "binary", "categories"):
        if kind in caps:
            return kind
    return "real"


def _wrapped(estimator: Any) -> Any:
    """The estimator a wrapper (a model with an ``estimator`` parameter) fits, or None."""
    get = getattr(estimator, "get_params", None)
    inner = get(deep=False).get("estimator") if get is not None else None
    return inner if hasattr(inner, "fit") else None


def dataset_for(
    estimator: Any, seed: int = 0, n_rows: int = 90, *, kind: str | None = None, missing: float = 0.0
) -> Dataset:
    """A seeded dataset that suits ``estimator`` (or of ``kind``, one of :data:`KINDS`)."""
    kind = kind or input_kind(estimator)
    if kind not in KINDS:
        raise InvalidParameterError(f"kind: expected one of {sorted(KINDS)}, got {kind!r}")
    return KINDS[kind](seed, n_rows, missing)
