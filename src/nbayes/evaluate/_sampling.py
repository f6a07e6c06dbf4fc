"""The draws of :func:`nbayes.compare`: the held-out test set, the training draws per size
(stratified by class), the default grid of sizes and the random generator."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from .._validation import show
from ..errors import InvalidParameterError

#: how many points the default grid of training sizes has (before removing duplicates)
GRID_POINTS = 12


# ----------------------------------------------------------------------------- sampling
def _largest_remainder(total: int, weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Integers proportional to ``weights`` summing to ``total`` (ties broken at random)."""
    w = np.asarray(weights, dtype=float)
    if total <= 0 or w.sum() <= 0:
        return np.zeros(len(w), dtype=np.int64)
    share = total * w / w.sum()
    base: np.ndarray = np.floor(share).astype(np.int64)
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
        if int(v) < 1:
            raise InvalidParameterError(f"parameter 'sizes': {show(v)} is not a positive number of rows")
        if int(v) > n_pool:
            raise InvalidParameterError(
                f"parameter 'sizes': {show(v)} is larger than the training pool of {n_pool} rows "
                f"({n} rows minus the {n_test} held out by test_size); the largest possible size "
                f"is {n_pool}"
            )
    return np.unique(np.asarray(values, dtype=np.int64))


def _rng(random_state: Any) -> np.random.Generator:
    ok = random_state is None or isinstance(random_state, np.random.Generator) or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and int(random_state) >= 0
    )
    if not ok:
        raise InvalidParameterError(
            "parameter 'random_state' must be None, a non-negative integer or a "
            f"numpy.random.Generator, got {random_state!r}"
        )
    return np.random.default_rng(random_state)
