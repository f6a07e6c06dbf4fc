"""Parallel kernels called from many threads at once give the serial results (CORRECTNESS.md)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.testing import assert_array_equal

import nbayes


def test_eight_threads_predict_like_one(rng):
    X = rng.standard_normal((20_000, 12))
    y = rng.integers(0, 4, len(X))
    X[rng.random(X.shape) < 0.05] = np.nan
    model = nbayes.GaussianNB().fit(X, y)
    parts = np.array_split(X, 16)
    serial = [model.predict_proba(p) for p in parts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(model.predict_proba, parts))
    for a, b in zip(serial, threaded):
        assert_array_equal(a, b)


def test_eight_threads_fit_like_one(rng):
    Xs = [rng.integers(0, 7, (5_000, 6)) for _ in range(8)]
    ys = [rng.integers(0, 3, 5_000) for _ in range(8)]
    serial = [nbayes.CategoricalNB().fit(X, y).category_count_ for X, y in zip(Xs, ys)]

    def fit(i):
        return nbayes.CategoricalNB().fit(Xs[i], ys[i]).category_count_

    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(fit, range(8)))
    for a, b in zip(serial, threaded):
        for x, z in zip(a, b):
            assert_array_equal(x, z)
