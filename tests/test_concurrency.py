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


def test_eight_threads_fit_and_predict_text_like_one(rng, monkeypatch):
    """The text kernels run on Python threads with per-thread scratch (counting splits the
    documents over two learners, scoring over row ranges): eight callers at once, each of
    which splits again, give the serial results bit for bit."""
    from nbayes._kernels import text as kernels
    from nbayes.text import vocab

    monkeypatch.setattr(vocab, "_PARALLEL_CHARS", 0)  # the two-learner path on every batch
    monkeypatch.setattr(kernels, "_MIN_THREAD_DOCS", 1)  # and scoring split however few the rows
    words = np.array([f"w{i}" for i in range(400)] + ["naïve", "日本", "x"])
    docs = [" ".join(rng.choice(words, rng.integers(1, 60))) for _ in range(800)]
    y = rng.integers(0, 5, len(docs))
    settings = [{}, {"ngram_range": (1, 2)}, {"n_features": 2**12}, {"analyzer": "char_wb", "ngram_range": (2, 3)},
                {"model": "complement", "tfidf": True}]
    parts = [docs[i::8] for i in range(8)]

    def run(kw):
        model = nbayes.TextClassifier(alpha=0.1, **kw).fit(docs, y)
        return [model.predict_joint_log_proba(p) for p in parts]

    serial = [run(kw) for kw in settings]
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(run, settings * 2))
    for i, got in enumerate(threaded):
        for a, b in zip(serial[i % len(settings)], got):
            assert_array_equal(a, b)
