"""to_logistic(): every Naive Bayes model with a linear decision function is a logistic model
with the same probabilities (chapter 002 section 3.1, exercise 3; notes 004 section 1.1)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import nbayes
from nbayes.errors import DataError, InvalidParameterError


def data(seed: int, K: int, n: int = 80, d: int = 5):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    y[:K] = np.arange(K)  # every class present
    counts = rng.poisson(1.5, (n, d)).astype(float) + y[:, None] * (np.arange(d) % 2)
    real = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, d) + y[:, None]
    cats = np.array(rng.choice(["a", "b", "c", "d"], (n, 3)), dtype=object)
    return rng, y, counts, real, cats


def same(nb, lr, X):
    assert_allclose(lr.predict_proba(X), nb.predict_proba(X), rtol=0, atol=1e-9)
    assert_allclose(lr.predict_log_proba(X), nb.predict_log_proba(X), rtol=1e-9, atol=1e-9)
    top2 = np.sort(nb.predict_log_proba(X), axis=1)[:, -2:]
    clear = top2[:, 1] - top2[:, 0] > 1e-9  # exact ties may break either way after rounding
    assert np.array_equal(lr.predict(X)[clear], nb.predict(X)[clear])


@given(seed=st.integers(0, 10_000), K=st.integers(2, 5), alpha=st.floats(0.01, 5.0))
def test_count_models(seed, K, alpha):
    _, y, counts, _, _ = data(seed, K)
    for nb in (nbayes.MultinomialNB(alpha=alpha), nbayes.ComplementNB(alpha=alpha)):
        nb.fit(counts, y)
        lr = nb.to_logistic()
        same(nb, lr, counts)
        same(nb, lr, sp.csr_matrix(counts))
        assert lr.coef_.shape == ((1 if K == 2 else K), counts.shape[1])


@given(seed=st.integers(0, 10_000), K=st.integers(2, 4), t=st.sampled_from([0.0, 1.5, None]))
def test_bernoulli_carries_its_binarize(seed, K, t):
    _, y, counts, _, _ = data(seed, K)
    X = (counts > 1).astype(float) if t is None else counts
    nb = nbayes.BernoulliNB(binarize=t, alpha=0.7).fit(X, y)
    same(nb, nb.to_logistic(), X)


@given(seed=st.integers(0, 10_000), K=st.integers(2, 4), variance=st.sampled_from(["feature", "pooled"]))
def test_gaussian_with_class_free_variance(seed, K, variance):
    _, y, _, real, _ = data(seed, K)
    nb = nbayes.GaussianNB(variance=variance).fit(real, y)
    same(nb, nb.to_logistic(), real)


@given(seed=st.integers(0, 10_000), K=st.integers(2, 4), handle=st.sampled_from(["smooth", "ignore"]))
def test_categorical_through_one_hot(seed, K, handle):
    _, y, _, _, cats = data(seed, K)
    nb = nbayes.CategoricalNB(handle_unknown=handle).fit(cats, y)
    Xt = cats.copy()
    Xt[:5, 1] = "never seen"  # an unseen value takes the model's unseen term
    same(nb, nb.to_logistic(), Xt)


def test_quadratic_boundary_and_zero_probabilities_are_errors():
    _, y, counts, real, _ = data(0, 3)
    with pytest.raises(InvalidParameterError, match="quadratic"):
        nbayes.GaussianNB().fit(real, y).to_logistic()
    counts[y == 0, 0] = 0  # a word class 0 never uses: theta = 0 without smoothing
    with pytest.raises(InvalidParameterError, match="alpha > 0"):
        nbayes.MultinomialNB(alpha=0.0).fit(counts, y).to_logistic()


def test_missing_values_are_an_error_that_says_why():
    _, y, counts, real, cats = data(1, 2)
    real[3, 2] = np.nan
    lr = nbayes.GaussianNB(variance="feature").fit(real, y).to_logistic()
    with pytest.raises(DataError, match="row 3"):
        lr.predict(real)
    cats[4, 0] = None
    lr = nbayes.CategoricalNB().fit(cats, y).to_logistic()
    with pytest.raises(DataError, match="row 4.*cannot leave a feature out"):
        lr.predict(cats)
    X = counts.copy()
    X[2, 1] = np.nan
    lr = nbayes.BernoulliNB().fit(counts, y).to_logistic()
    with pytest.raises(DataError, match="row 2, column 1 is missing"):
        lr.predict(X)


def test_twin_saves_with_its_input_map(tmp_path):
    _, y, counts, _, cats = data(2, 3)
    for nb, X in ((nbayes.CategoricalNB(), cats), (nbayes.BernoulliNB(binarize=1.0), counts)):
        lr = nb.fit(X, y).to_logistic()
        lr.save(tmp_path / "twin.nbm")
        back = nbayes.load(tmp_path / "twin.nbm")
        assert_allclose(back.predict_proba(X), nb.predict_proba(X), atol=1e-9)


def test_twin_refits_to_the_discriminative_optimum():
    """init from the twin, then fit: the logistic optimum of the same data (the start only)."""
    _, y, counts, _, _ = data(3, 3)
    nb = nbayes.MultinomialNB().fit(counts, y)
    a = nbayes.LogisticRegression(init=nb, tol=1e-10).fit(counts, y)
    b = nbayes.LogisticRegression(tol=1e-10).fit(counts, y)
    assert_allclose(a.coef_, b.coef_, atol=1e-6)


def test_mixed_model_says_what_is_not_built():
    _, y, _, real, cats = data(4, 2)
    import pandas as pd

    frame = pd.DataFrame({"r": real[:, 0], "c": cats[:, 0]})
    with pytest.raises(InvalidParameterError, match="not built for the mixed NaiveBayes"):
        nbayes.NaiveBayes().fit(frame, y).to_logistic()
