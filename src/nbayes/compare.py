"""Ng & Jordan's experiment: learning curves of Naive Bayes and logistic regression.

Chapter 002 (section 4) sums up Ng & Jordan (2002): Naive Bayes, the generative model, needs
on the order of log n training examples to approach its asymptotic error (n features), logistic
regression, its discriminative counterpart, on the order of n; when the Naive Bayes assumptions
fail, logistic regression's asymptotic error is the lower one. So Naive Bayes tends to win on
small training sets and logistic regression on large ones. :func:`compare` measures both
learning curves on one dataset and returns a :class:`Comparison`.

Protocol: a fixed test set is held out once (stratified by class, ``test_size`` of the rows);
the other rows are the training pool. For each training size m and each repeat, m rows are
drawn from the pool (stratified: the classes in proportion, each at least once when m allows),
both models are fitted on that same draw, and their test error and log-loss are recorded. A
draw that misses a class is skipped for both models (logistic regression cannot learn a class
it has not seen), and counted. The same ``random_state`` gives the same draws, so the same
table.

Logistic regression needs numbers: with ``lr_preprocess="auto"`` a table with string /
categorical columns or missing values is one-hot encoded, mean-imputed and standardised for the
logistic regression side, each step fitted on the training draw only (Naive Bayes gets the
table as it is). ``"always"`` encodes every dense input that way (numbers standardised too),
``"never"`` hands X to logistic regression as it is (for a pipeline that does its own encoding).

    >>> import nbayes
    >>> result = nbayes.compare(X, y, repeats=10)         # doctest: +SKIP
    >>> result.crossover    # LR's mean error is below NB's from this size on  # doctest: +SKIP
    120
    >>> result.plot("curves.png"); result.to_html("curves.html")  # doctest: +SKIP
"""

from __future__ import annotations

import base64
import copy
import html
import io
import json
import math
import numbers
import sys
import types
from pathlib import Path
from typing import Any, Iterable, NamedTuple

import numpy as np
import scipy.sparse as sp

from ._validation import (
    check_choice,
    check_number,
    check_y,
    classes_and_codes,
    encode_labels,
    is_missing,
    show,
    take_rows,
)
from .errors import DataError, InvalidParameterError, MissingDependencyError

__all__ = ["compare", "Comparison", "Row", "MissingDependencyError"]

#: log-loss clips probabilities to [EPS, 1] (an impossible true class would cost infinity)
EPS = 1e-15

#: how many points the default grid of training sizes has (before removing duplicates)
GRID_POINTS = 12

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


class _LRInput:
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
        from .naive_bayes._columns import distinct, read_table

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
    return np.divide(total, count, out=np.zeros(A.shape[1]), where=count > 0)


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


# ----------------------------------------------------------------------------- sampling
def _largest_remainder(total: int, weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Integers proportional to ``weights`` summing to ``total`` (ties broken at random)."""
    w = np.asarray(weights, dtype=float)
    if total <= 0 or w.sum() <= 0:
        return np.zeros(len(w), dtype=np.int64)
    share = total * w / w.sum()
    base = np.floor(share).astype(np.int64)
    left = total - int(base.sum())
    if left > 0:
        order = np.lexsort((rng.random(len(w)), -(share - base)))
        base[order[:left]] += 1
    return base


def _split(
    codes: np.ndarray, K: int, test_size: float, stratify: bool, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(test rows, training pool rows). Stratified: each class in proportion, with at least
    one row in the pool (and one in the test set when it has two or more)."""
    n = len(codes)
    n_test = math.ceil(test_size * n)
    if not stratify:
        perm = rng.permutation(n)
        return np.sort(perm[:n_test]), np.sort(perm[n_test:])
    by_class = [rng.permutation(np.flatnonzero(codes == k)) for k in range(K)]
    counts = np.array([len(r) for r in by_class])
    alloc = _largest_remainder(n_test, counts, rng)
    alloc = np.minimum(np.maximum(alloc, (counts >= 2).astype(np.int64)), counts - 1)
    test = np.concatenate([r[:t] for r, t in zip(by_class, alloc)])
    pool = np.concatenate([r[t:] for r, t in zip(by_class, alloc)])
    return np.sort(test), np.sort(pool)


def _draw(
    m: int, pool: np.ndarray, pool_by_class: list[np.ndarray], stratify: bool, rng: np.random.Generator
) -> np.ndarray:
    """m distinct rows of the pool, in random order. Stratified when m is at least the number
    of classes: one row of each class, the other m - K in proportion to the class sizes."""
    K = len(pool_by_class)
    if not stratify or m < K:
        return rng.choice(pool, size=m, replace=False)
    counts = np.array([len(r) for r in pool_by_class])
    alloc = 1 + _largest_remainder(m - K, counts - 1, rng)
    rows = np.concatenate([rng.choice(r, size=k, replace=False) for r, k in zip(pool_by_class, alloc)])
    return rows[rng.permutation(m)]


def default_sizes(n_pool: int, n_classes: int, points: int = GRID_POINTS) -> np.ndarray:
    """A geometric grid of training sizes from 2 rows per class to the whole pool.

    >>> default_sizes(700, 2).tolist()
    [4, 6, 10, 16, 26, 42, 67, 107, 171, 274, 438, 700]
    """
    lo = min(2 * n_classes, n_pool)
    grid = np.round(np.geomspace(lo, n_pool, points)).astype(np.int64)
    return np.unique(np.clip(grid, lo, n_pool))


def _check_sizes(sizes: Any, n_pool: int, n: int, n_test: int) -> np.ndarray:
    if isinstance(sizes, str | bytes) or not hasattr(sizes, "__iter__"):
        raise InvalidParameterError(
            f"parameter 'sizes' must be a sequence of training sizes (integers), got {sizes!r}"
        )
    values = list(sizes)
    if not values:
        raise InvalidParameterError("parameter 'sizes' is empty; give at least one training size")
    for v in values:
        if not isinstance(v, numbers.Integral) or isinstance(v, bool | np.bool_):
            raise InvalidParameterError(
                f"parameter 'sizes' must hold integers (numbers of training rows), got {show(v)}"
            )
        if v < 1:
            raise InvalidParameterError(f"parameter 'sizes': {show(v)} is not a positive number of rows")
        if v > n_pool:
            raise InvalidParameterError(
                f"parameter 'sizes': {show(v)} is larger than the training pool of {n_pool} rows "
                f"({n} rows minus the {n_test} held out by test_size); the largest possible size "
                f"is {n_pool}"
            )
    return np.unique(np.asarray(values, dtype=np.int64))


# ----------------------------------------------------------------------------- metrics
def _wrong(pred: Any, y_true: np.ndarray) -> np.ndarray:
    """1.0 where the prediction is not the true label, else 0.0."""
    pred = np.asarray(pred, dtype=object).ravel()
    return np.asarray(pred != np.asarray(y_true, dtype=object), dtype=float)


def _paired_se(nb_wrong: np.ndarray, lr_wrong: np.ndarray) -> float:
    """Standard error of (LR error - NB error) on one test set, paired by test row."""
    d = lr_wrong - nb_wrong
    return float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")


def _log_loss(model: Any, X_test: Any, codes_test: np.ndarray, classes: np.ndarray) -> float:
    """Mean -log P(true class | x); a class the model does not know has probability 0 (clipped
    to EPS). NaN when the model has no ``predict_proba``."""
    if not hasattr(model, "predict_proba"):
        return float("nan")
    proba = np.asarray(model.predict_proba(X_test), dtype=float)
    known = np.asarray(getattr(model, "classes_", classes))
    pos, unknown = encode_labels(known.astype(object) if classes.dtype.kind == "O" else known, classes)
    column = np.full(len(classes), -1, dtype=np.intp)
    column[pos[~unknown]] = np.flatnonzero(~unknown)
    c = column[codes_test]
    p = np.where(c >= 0, proba[np.arange(len(c)), np.maximum(c, 0)], 0.0)
    return float(-np.mean(np.log(np.clip(p, EPS, 1.0))))


def _fresh(model: Any) -> Any:
    """An independent copy to fit (the caller's object is never fitted)."""
    return copy.deepcopy(model)


def _check_model(name: str, model: Any) -> None:
    if not (callable(getattr(model, "fit", None)) and callable(getattr(model, "predict", None))):
        raise InvalidParameterError(
            f"parameter {name!r} must be a classifier with fit(X, y) and predict(X), "
            f"got {type(model).__name__}"
        )


def _rng(random_state: Any) -> np.random.Generator:
    ok = random_state is None or isinstance(random_state, np.random.Generator) or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0
    )
    if not ok:
        raise InvalidParameterError(
            "parameter 'random_state' must be None, a non-negative integer or a "
            f"numpy.random.Generator, got {random_state!r}"
        )
    return np.random.default_rng(random_state)


# ----------------------------------------------------------------------------- compare
def compare(
    X: Any,
    y: Any,
    *,
    nb: Any = None,
    lr: Any = None,
    sizes: Iterable[int] | None = None,
    repeats: int = 10,
    test_size: float = 0.3,
    random_state: Any = 0,
    stratify: bool = True,
    lr_preprocess: str = "auto",
) -> "Comparison":
    """Learning curves of a Naive Bayes model and a logistic regression on (X, y).

    ``nb`` defaults to ``nbayes.NaiveBayes()`` and ``lr`` to ``nbayes.LogisticRegression()``;
    any classifier with ``fit``/``predict`` (and ``predict_proba``, for the log-loss) will do,
    and neither object is modified (each draw fits a copy). ``sizes``: the training sizes, at
    most the pool (the rows left after the test set); default: a geometric grid of about 12
    sizes from 2 rows per class to the whole pool. ``repeats`` draws per size; ``test_size``
    the fraction of rows held out once (0 < test_size < 1); ``random_state`` an integer, None
    or a ``numpy.random.Generator``; ``stratify`` stratifies the test set and the draws by class.
    ``lr_preprocess`` ("auto", "always", "never") says how X is made numeric for logistic
    regression; see the module's documentation.
    """
    check_number("repeats", repeats, low=1, integer=True)
    check_number("test_size", test_size, low=0.0, low_open=True, high=1.0)
    if test_size >= 1:
        raise InvalidParameterError(
            f"parameter 'test_size' must be < 1 (the fraction of rows held out), got {test_size!r}"
        )
    check_choice("stratify", stratify, (True, False))
    check_choice("lr_preprocess", lr_preprocess, LR_PREPROCESS)
    rng = _rng(random_state)
    if nb is None:
        from .naive_bayes.mixed import NaiveBayes

        nb = NaiveBayes()
    if lr is None:
        from .linear import LogisticRegression

        lr = LogisticRegression()
    _check_model("nb", nb)
    _check_model("lr", lr)

    X = _as_input(X)
    n = _n_rows(X)
    y = check_y(y, n)
    classes, codes = classes_and_codes(y)
    K = len(classes)
    if K < 2:
        only = f" (every row is {show(classes[0])})" if K else ""
        raise DataError(f"y: {K} class(es){only}; comparing classifiers needs at least 2 classes")
    lr_input = _LRInput(X, lr_preprocess)

    test, pool = _split(codes, K, float(test_size), bool(stratify), rng)
    if len(test) == 0 or len(pool) == 0:
        raise DataError(
            f"test_size={test_size!r} on {n} rows leaves {len(test)} test row(s) and "
            f"{len(pool)} training row(s); both must be at least 1"
        )
    pool_by_class = [pool[codes[pool] == k] for k in range(K)]
    n_pool = len(pool)
    grid = default_sizes(n_pool, K) if sizes is None else _check_sizes(sizes, n_pool, n, len(test))

    X_test, y_test, codes_test = take_rows(X, test), y[test], codes[test]
    lr_test = lr_input.fixed_test(test)
    shape = (len(grid), int(repeats))
    nb_error, lr_error = np.full(shape, np.nan), np.full(shape, np.nan)
    nb_loss, lr_loss = np.full(shape, np.nan), np.full(shape, np.nan)
    diff_se = np.full(shape, np.nan)
    for i, m in enumerate(grid.tolist()):
        for r in range(int(repeats)):
            rows = _draw(m, pool, pool_by_class, bool(stratify), rng)
            if len(np.unique(codes[rows])) < K:
                continue  # a class is missing: logistic regression cannot learn it; skipped
            y_rows = y[rows]
            where = f"on a training draw of {m} rows (repeat {r})"
            try:
                model = _fresh(nb).fit(take_rows(X, rows), y_rows)
                nb_wrong = _wrong(model.predict(X_test), y_test)
                nb_error[i, r] = nb_wrong.mean()
                nb_loss[i, r] = _log_loss(model, X_test, codes_test, classes)
            except Exception as exc:
                exc.add_note(f"while fitting or evaluating nb={nb!r} {where}")
                raise
            try:
                A, B = lr_input.train_test(rows, test, lr_test)
                model = _fresh(lr).fit(A, y_rows)
                lr_wrong = _wrong(model.predict(B), y_test)
                lr_error[i, r] = lr_wrong.mean()
                lr_loss[i, r] = _log_loss(model, B, codes_test, classes)
            except Exception as exc:
                exc.add_note(f"while fitting or evaluating lr={lr!r} {where}")
                raise
            diff_se[i, r] = _paired_se(nb_wrong, lr_wrong)
    info = {
        "n_rows": n,
        "n_features": _n_features(X),
        "classes": [_plain(c) for c in classes],
        "n_pool": n_pool,
        "n_test": len(test),
        "test_size": float(test_size),
        "repeats": int(repeats),
        "random_state": random_state if isinstance(random_state, int | None) else repr(random_state),
        "stratify": bool(stratify),
        "nb": repr(nb),
        "lr": repr(lr),
        "lr_input": lr_input.describe(),
    }
    return Comparison(grid, nb_error, lr_error, nb_loss, lr_loss, error_diff_se=diff_se, info=info)


def _n_features(X: Any) -> int | None:
    shape = getattr(X, "shape", None)
    return int(shape[1]) if shape is not None and len(shape) == 2 else None


def _plain(v: Any) -> Any:
    """A label as a JSON-friendly Python value."""
    v = v.item() if isinstance(v, np.generic) else v
    return v if isinstance(v, str | int | float | bool) or v is None else str(v)


# ----------------------------------------------------------------------------- results
class Row(NamedTuple):
    """One training size of a :class:`Comparison` table (errors are fractions in [0, 1];
    ``_std`` is the standard deviation over the draws, ddof=1; ``n_repeats`` counts the draws
    both models were fitted on, ``skipped`` the draws that missed a class)."""

    size: int
    nb_error_mean: float
    nb_error_std: float
    lr_error_mean: float
    lr_error_std: float
    n_repeats: int
    skipped: int
    nb_log_loss_mean: float
    lr_log_loss_mean: float


def _mean_std(a: np.ndarray) -> tuple[float, float]:
    a = a[~np.isnan(a)]
    if len(a) == 0:
        return float("nan"), float("nan")
    return float(a.mean()), float(a.std(ddof=1)) if len(a) > 1 else 0.0


def crossover_size(sizes: Iterable[int], nb_error: Iterable[float], lr_error: Iterable[float]) -> int | None:
    """The smallest size from which logistic regression's mean error stays strictly below
    Naive Bayes' at every larger size (sizes where either is missing are ignored), or None.

    >>> crossover_size([10, 20, 40, 80], [0.20, 0.18, 0.17, 0.17], [0.30, 0.19, 0.16, 0.15])
    40
    >>> crossover_size([10, 20], [0.2, 0.1], [0.1, 0.2]) is None
    True
    """
    s = np.asarray(list(sizes), dtype=np.int64)
    a = np.asarray(list(nb_error), dtype=float)
    b = np.asarray(list(lr_error), dtype=float)
    ok = ~np.isnan(a) & ~np.isnan(b)
    s, a, b = s[ok], a[ok], b[ok]
    if len(s) == 0 or not b[-1] < a[-1]:
        return None
    not_below = np.flatnonzero(~(b < a))
    return int(s[not_below[-1] + 1 if len(not_below) else 0])


#: the per-draw arrays of a Comparison, in constructor order
_DRAWS = ("nb_error", "lr_error", "nb_log_loss", "lr_log_loss", "error_diff_se")


class Comparison:
    """The result of :func:`compare`: per training size and draw, each model's test error and
    log-loss (arrays of shape (n_sizes, repeats), NaN for a skipped draw), the standard error of
    the difference of the two errors paired by test row (``error_diff_se``: how much of a gap
    the test set can resolve), and ``info`` about the run (rows, classes, pool and test sizes,
    the models, how LR's input was encoded)."""

    def __init__(
        self,
        sizes: Iterable[int],
        nb_error: Any,
        lr_error: Any,
        nb_log_loss: Any = None,
        lr_log_loss: Any = None,
        error_diff_se: Any = None,
        *,
        info: dict[str, Any] | None = None,
    ) -> None:
        self.sizes = np.asarray(list(sizes), dtype=np.int64)
        self.nb_error = np.atleast_2d(np.asarray(nb_error, dtype=float))
        self.lr_error = np.atleast_2d(np.asarray(lr_error, dtype=float))
        shape = self.nb_error.shape
        self.nb_log_loss = np.full(shape, np.nan) if nb_log_loss is None else np.asarray(nb_log_loss, dtype=float)
        self.lr_log_loss = np.full(shape, np.nan) if lr_log_loss is None else np.asarray(lr_log_loss, dtype=float)
        self.error_diff_se = (
            np.full(shape, np.nan) if error_diff_se is None else np.asarray(error_diff_se, dtype=float)
        )
        for name in _DRAWS[1:]:
            if getattr(self, name).shape != shape:
                raise DataError(f"Comparison: {name} has shape {getattr(self, name).shape}, nb_error {shape}")
        if shape[0] != len(self.sizes):
            raise DataError(f"Comparison: {len(self.sizes)} sizes but nb_error has {shape[0]} rows")
        self.info = dict(info or {})

    # ------------------------------------------------------------------ summaries
    @property
    def table(self) -> list[Row]:
        """One :class:`Row` per training size, smallest first."""
        rows = []
        for i, m in enumerate(self.sizes.tolist()):
            used = ~(np.isnan(self.nb_error[i]) | np.isnan(self.lr_error[i]))
            nb_mean, nb_std = _mean_std(self.nb_error[i])
            lr_mean, lr_std = _mean_std(self.lr_error[i])
            rows.append(
                Row(
                    size=int(m),
                    nb_error_mean=nb_mean,
                    nb_error_std=nb_std,
                    lr_error_mean=lr_mean,
                    lr_error_std=lr_std,
                    n_repeats=int(used.sum()),
                    skipped=int((~used).sum()),
                    nb_log_loss_mean=_mean_std(self.nb_log_loss[i])[0],
                    lr_log_loss_mean=_mean_std(self.lr_log_loss[i])[0],
                )
            )
        return rows

    @property
    def crossover(self) -> int | None:
        """The smallest training size from which LR's mean error stays below NB's, or None."""
        t = self.table
        return crossover_size(
            [r.size for r in t], [r.nb_error_mean for r in t], [r.lr_error_mean for r in t]
        )

    def __repr__(self) -> str:
        return (
            f"Comparison(sizes={self.sizes.tolist()}, repeats={self.nb_error.shape[1]}, "
            f"crossover={self.crossover})"
        )

    # ------------------------------------------------------------------ export
    def to_dict(self) -> dict[str, Any]:
        """Plain Python (JSON-ready: NaN becomes None): info, table, crossover and every draw."""
        return {
            "info": self.info,
            "sizes": self.sizes.tolist(),
            "crossover": self.crossover,
            "table": [{k: _json_number(v) for k, v in r._asdict().items()} for r in self.table],
            "draws": {
                name: [[_json_number(v) for v in row] for row in getattr(self, name).tolist()]
                for name in _DRAWS
            },
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Comparison":
        """The inverse of :meth:`to_dict`."""
        draws = {k: np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=float)
                 for k, rows in d["draws"].items()}
        return cls(d["sizes"], **draws, info=d.get("info"))

    def to_json(self, path: str | Path | None = None, *, indent: int = 2) -> str:
        """:meth:`to_dict` as JSON text; also written to ``path`` when given."""
        text = json.dumps(self.to_dict(), indent=indent, allow_nan=False)
        if path is not None:
            Path(path).write_text(text + "\n", encoding="utf-8")
        return text

    def to_markdown(self, *, digits: int = 1) -> str:
        """The table in Markdown (errors in %, mean ± standard deviation over the draws) and a
        line naming the crossover."""
        lines = [
            "| training rows m | NB error % | LR error % | NB log-loss | LR log-loss | draws |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for r in self.table:
            draws = str(r.n_repeats) + (f" ({r.skipped} skipped)" if r.skipped else "")
            lines.append(
                f"| {r.size} | {_pct(r.nb_error_mean, r.nb_error_std, digits)} | "
                f"{_pct(r.lr_error_mean, r.lr_error_std, digits)} | {_num(r.nb_log_loss_mean)} | "
                f"{_num(r.lr_log_loss_mean)} | {draws} |"
            )
        return "\n".join(lines) + "\n\n" + self._crossover_text() + "\n"

    def _crossover_text(self) -> str:
        c = self.crossover
        if c is None:
            return "Crossover: none (logistic regression's mean error is not below Naive Bayes' at the largest size)."
        if c == int(self.sizes[0]):
            return f"Crossover: logistic regression's mean error is below Naive Bayes' at every size (from m = {c})."
        return f"Crossover: logistic regression's mean error is below Naive Bayes' from m = {c} on."

    # ------------------------------------------------------------------ figures
    def _figure(self, title: str | None) -> Any:
        try:
            from matplotlib.figure import Figure
        except ImportError:
            raise MissingDependencyError(
                "Comparison.plot needs matplotlib, an optional dependency: pip install 'nbayes[plot]'"
            ) from None
        t = self.table
        m = np.array([r.size for r in t], dtype=float)
        fig = Figure(figsize=(6.4, 4.2), layout="constrained")
        ax = fig.subplots()
        for label, mean, std, color, marker in (
            ("Naive Bayes", [r.nb_error_mean for r in t], [r.nb_error_std for r in t], "tab:blue", "o"),
            ("logistic regression", [r.lr_error_mean for r in t], [r.lr_error_std for r in t], "tab:orange", "s"),
        ):
            mean, std = 100 * np.array(mean), 100 * np.array(std)
            ax.plot(m, mean, marker=marker, color=color, label=label, linewidth=1.6, markersize=4)
            ax.fill_between(m, mean - std, mean + std, color=color, alpha=0.15, linewidth=0)
        c = self.crossover
        if c is not None:
            ax.axvline(c, color="0.4", linestyle=":", linewidth=1.2, label=f"crossover m = {c}")
        if len(m) > 1 and m.min() > 0:
            from matplotlib.ticker import ScalarFormatter

            ax.set_xscale("log")
            plain = ScalarFormatter()
            plain.set_scientific(False)
            ax.xaxis.set_major_formatter(plain)
        ax.set_xlabel("training rows m (log scale)")
        ax.set_ylabel("test error % (mean ± sd over draws)")
        n_test = self.info.get("n_test")
        ax.set_title(title or "Naive Bayes vs logistic regression" + (f" ({n_test} test rows)" if n_test else ""))
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(frameon=False)
        return fig

    def plot(self, path: str | Path, *, title: str | None = None, dpi: int = 110) -> Path:
        """Write the two learning curves (mean test error ± sd against m, log scale, crossover
        marked) as a PNG to ``path``; needs matplotlib (``pip install 'nbayes[plot]'``)."""
        path = Path(path)
        self._figure(title).savefig(path, format="png", dpi=dpi)
        return path

    def to_html(self, path: str | Path, *, title: str | None = None, figure: bool | None = None) -> Path:
        """Write one self-contained HTML page (no external request): the figure as an inlined
        PNG, the table, the crossover and the run's settings. ``figure=None`` includes the figure
        when matplotlib is installed (else a note), True requires it, False leaves it out."""
        path = Path(path)
        heading = title or "Naive Bayes vs logistic regression: learning curves"
        img = ""
        if figure is None or figure:
            try:
                buf = io.BytesIO()
                self._figure(title).savefig(buf, format="png", dpi=110)
                data = base64.b64encode(buf.getvalue()).decode("ascii")
                img = f'<img alt="learning curves" src="data:image/png;base64,{data}">'
            except MissingDependencyError:
                if figure:
                    raise
                img = "<p><em>Figure left out: matplotlib is not installed (pip install 'nbayes[plot]').</em></p>"
        head = ["training rows m", "NB error %", "LR error %", "NB log-loss", "LR log-loss", "draws"]
        body = []
        for r in self.table:
            cells = [
                str(r.size), _pct(r.nb_error_mean, r.nb_error_std, 1), _pct(r.lr_error_mean, r.lr_error_std, 1),
                _num(r.nb_log_loss_mean), _num(r.lr_log_loss_mean),
                str(r.n_repeats) + (f" ({r.skipped} skipped)" if r.skipped else ""),
            ]
            body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        settings = "".join(
            f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>" for k, v in self.info.items()
        )
        page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(heading)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 52em; color: #222; }}
table {{ border-collapse: collapse; margin: 1em 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }}
th {{ background: #f4f4f4; }}
img {{ max-width: 100%; }}
</style>
</head>
<body>
<h1>{html.escape(heading)}</h1>
{img}
<p>{html.escape(self._crossover_text())}</p>
<table>
<thead><tr>{"".join(f"<th>{html.escape(h)}</th>" for h in head)}</tr></thead>
<tbody>
{chr(10).join(body)}
</tbody>
</table>
<h2>Settings</h2>
<table>{settings}</table>
</body>
</html>
"""
        path.write_text(page, encoding="utf-8")
        return path


def _json_number(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _pct(mean: float, std: float, digits: int) -> str:
    if math.isnan(mean):
        return "–"
    return f"{100 * mean:.{digits}f} ± {100 * std:.{digits}f}"


def _num(v: float) -> str:
    return "–" if math.isnan(v) else f"{v:.3f}"


class _CallableModule(types.ModuleType):
    """``import nbayes.compare`` makes ``nbayes.compare`` this module (Python binds a loaded
    submodule on its package), shadowing the function of the same name; calling the module
    calls the function, so ``nbayes.compare(X, y)`` works whatever was imported first."""

    def __call__(self, *args: Any, **kwargs: Any) -> Comparison:
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
