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

The log-loss of each draw is :func:`nbayes.metrics.log_loss` of the model's probabilities on
the test rows (one core, :func:`nbayes._math.log_loss_of_true_class`: probabilities clipped to
[eps, 1 - eps], eps = 2.2e-16, as scikit-learn), so the table and ``nbayes.metrics`` give the
same number for the same model.

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

import copy
import time
from typing import Any, Callable, Iterable

import numpy as np

from .._math import log_loss_of_true_class
from .._progress import progress
from .._validation import check_choice, check_number, check_y, classes_and_codes, encode_labels, show, take_rows
from ..errors import DataError, InvalidParameterError
from ..linear import LogisticRegression
from ..naive_bayes.mixed import NaiveBayes
from ._lr_input import LR_PREPROCESS, _as_input, LRInput, _n_rows
from ._sampling import _check_sizes, _draw, _rng, _split, default_sizes
from .comparison import Comparison

#: ``LRInput`` (X as logistic regression needs it) and ``default_sizes`` (the grid of training
#: sizes) are public here and at their old path, ``nbayes.compare``
__all__ = ["LRInput", "compare", "default_sizes", "true_class_proba"]


# ----------------------------------------------------------------------------- metrics
def _wrong(pred: Any, y_true: np.ndarray) -> np.ndarray:
    """1.0 where the prediction is not the true label, else 0.0."""
    pred = np.asarray(pred, dtype=object).ravel()
    return np.asarray(pred != np.asarray(y_true, dtype=object), dtype=float)


def _paired_se(nb_wrong: np.ndarray, lr_wrong: np.ndarray) -> float:
    """Standard error of (LR error - NB error) on one test set, paired by test row."""
    d = lr_wrong - nb_wrong
    return float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")


def true_class_proba(model: Any, X_test: Any, codes_test: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """The model's probability of each test row's true class (``codes_test`` index
    ``classes``); 0 for a class the model does not know (its ``classes_`` lack it)."""
    proba = np.asarray(model.predict_proba(X_test), dtype=np.float64)
    known = np.asarray(getattr(model, "classes_", classes))
    pos, unknown = encode_labels(known.astype(object) if classes.dtype.kind == "O" else known, classes)
    column = np.full(len(classes), -1, dtype=np.intp)
    column[pos[~unknown]] = np.flatnonzero(~unknown)
    c = column[codes_test]
    return np.where(c >= 0, proba[np.arange(len(c)), np.maximum(c, 0)], 0.0)


def _log_loss(model: Any, X_test: Any, codes_test: np.ndarray, classes: np.ndarray) -> float:
    """Mean -log P(true class | x) by the one log-loss core (a class the model does not know
    has probability 0, clipped to eps). NaN when the model has no ``predict_proba``."""
    if not hasattr(model, "predict_proba"):
        return float("nan")
    return log_loss_of_true_class(true_class_proba(model, X_test, codes_test, classes))


def _fresh(model: Any) -> Any:
    """An independent copy to fit (the caller's object is never fitted)."""
    return copy.deepcopy(model)


def _check_model(name: str, model: Any) -> None:
    if not (callable(getattr(model, "fit", None)) and callable(getattr(model, "predict", None))):
        raise InvalidParameterError(
            f"parameter {name!r} must be a classifier with fit(X, y) and predict(X), "
            f"got {type(model).__name__}"
        )


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
    budget: float | None = None,
    verbose: Any = False,
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

    ``budget`` (seconds, or None): the run is planned to end within about that time. A first
    draw at each size, smallest first, measures what a draw costs; a size whose draw would not
    fit in half the budget is left out (with every larger one), and the repeats are as many as
    the rest of the budget allows, at most ``repeats`` (at least 1). The draws are then made one
    repeat at a time over every size, so they differ from a run without a budget. ``info``
    says what was chosen (``budget``, ``repeats``, ``sizes_left_out``). ``verbose=True``: a
    progress bar with the time left on stderr, when it is a terminal.
    """
    check_number("repeats", repeats, low=1, integer=True)
    if budget is not None:
        check_number("budget", budget, low=0.0, low_open=True)
    check_number("test_size", test_size, low=0.0, low_open=True, high=1.0)
    if test_size >= 1:
        raise InvalidParameterError(
            f"parameter 'test_size' must be < 1 (the fraction of rows held out), got {test_size!r}"
        )
    check_choice("stratify", stratify, (True, False))
    check_choice("lr_preprocess", lr_preprocess, LR_PREPROCESS)
    rng = _rng(random_state)
    if nb is None:
        nb = NaiveBayes()
    if lr is None:
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
    lr_input = LRInput(X, lr_preprocess)

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

    def draw(i: int, r: int) -> None:
        m = int(grid[i])
        rows = _draw(m, pool, pool_by_class, bool(stratify), rng)
        if len(np.unique(codes[rows])) < K:
            return  # a class is missing: logistic regression cannot learn it; skipped
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

    plan: dict[str, Any] = {}
    if budget is None:
        with progress(len(grid) * int(repeats), "compare: draws", verbose, unit="draws") as advance:
            for i in range(len(grid)):
                for r in range(int(repeats)):
                    draw(i, r)
                    advance()
    else:
        kept, chosen = _within_budget(draw, grid, int(repeats), float(budget), verbose)
        left_out = [int(m) for m in grid[kept:]]
        grid = grid[:kept]
        nb_error, lr_error, nb_loss, lr_loss, diff_se = (
            a[:kept, :chosen] for a in (nb_error, lr_error, nb_loss, lr_loss, diff_se))
        repeats = chosen
        plan = {"budget": float(budget), "sizes_left_out": left_out}
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
        **plan,
    }
    return Comparison(grid, nb_error, lr_error, nb_loss, lr_loss, error_diff_se=diff_se, info=info)


def _within_budget(draw: Callable[[int, int], None], grid: np.ndarray, repeats: int, budget: float,
                   verbose: Any) -> tuple[int, int]:
    """Make the draws of :func:`compare` within about ``budget`` seconds: returns (the number
    of sizes kept, the repeats made). First one draw per size, smallest first, while the next
    (its cost extrapolated from the last, in proportion to the size) fits in half the budget;
    then more repeats over the kept sizes while a whole repeat (at its last measured cost) fits
    in what is left. The bar advances by each draw's measured cost, so its estimate of the time
    left is the plan's."""
    cost = np.zeros(len(grid))
    start = time.perf_counter()
    with progress(budget, "compare: first draw per size", verbose, percent=True) as advance:
        kept = 0
        for i in range(len(grid)):
            spent = time.perf_counter() - start
            if i > 0:
                guess = cost[i - 1] * max(1.0, grid[i] / grid[i - 1])
                if spent + guess > budget / 2:
                    break
            t0 = time.perf_counter()
            draw(i, 0)
            cost[i] = time.perf_counter() - t0
            kept = i + 1
            advance(cost[i])
        chosen = 1
        while chosen < repeats:  # costs as last measured (the very first draw also paid for warming up)
            one_repeat = float(cost[:kept].sum())
            spent = time.perf_counter() - start
            if spent + one_repeat > budget:
                break
            left = min(repeats - chosen, int((budget - spent) // max(one_repeat, 1e-9)))
            advance(0, total=spent + left * one_repeat, what=f"compare: draw {chosen + 1} of up to {chosen + left} per size")
            for i in range(kept):
                t0 = time.perf_counter()
                draw(i, chosen)
                cost[i] = time.perf_counter() - t0
                advance(cost[i])
            chosen += 1
    return kept, chosen


def _n_features(X: Any) -> int | None:
    shape = getattr(X, "shape", None)
    return int(shape[1]) if shape is not None and len(shape) == 2 else None


def _plain(v: Any) -> Any:
    """A label as a JSON-friendly Python value."""
    v = v.item() if isinstance(v, np.generic) else v
    return v if isinstance(v, str | int | float | bool) or v is None else str(v)
