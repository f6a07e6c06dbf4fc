"""Oracle: every estimator equals its scikit-learn counterpart to 1e-9 where the models coincide."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import naive_bayes as skb

import nbayes

RTOL = 1e-9


def counts(rng, n=300, d=12, k=3):
    y = rng.integers(0, k, n)
    X = rng.poisson(1.0 + 0.5 * (np.arange(d)[None, :] % (y[:, None] + 1)), (n, d)).astype(float)
    return X, y


def same_predictions(ours, theirs, X):
    assert_allclose(ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=RTOL)
    assert_allclose(ours.predict_log_proba(X), theirs.predict_log_proba(X), rtol=RTOL, atol=1e-12)
    assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=RTOL, atol=1e-14)
    assert_array_equal(ours.predict(X), theirs.predict(X))
    assert ours.score(X, theirs.predict(X)) == 1.0


COUNT_CASES = [
    ("MultinomialNB", {}),
    ("MultinomialNB", {"alpha": 0.01}),
    ("MultinomialNB", {"alpha": 2.5, "fit_prior": False}),
    ("MultinomialNB", {"class_prior": [0.2, 0.3, 0.5]}),
    ("ComplementNB", {}),
    ("ComplementNB", {"norm": True, "alpha": 0.3}),
    ("BernoulliNB", {}),
    ("BernoulliNB", {"binarize": 1.5, "alpha": 0.5}),
    ("BernoulliNB", {"fit_prior": False}),
]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("name,params", COUNT_CASES)
def test_count_models(rng, name, params, sparse):
    X, y = counts(rng)
    w = rng.random(len(y)) * 2
    Xin = sp.csr_matrix(X) if sparse else X
    ours = getattr(nbayes, name)(**params).fit(Xin, y, sample_weight=w)
    theirs = getattr(skb, name)(**params).fit(Xin, y, sample_weight=w)
    assert_allclose(ours.class_count_, theirs.class_count_, rtol=RTOL)
    assert_allclose(ours.feature_count_, theirs.feature_count_, rtol=RTOL)
    assert_allclose(ours.feature_log_prob_, theirs.feature_log_prob_, rtol=RTOL)
    assert_allclose(ours.class_log_prior_, theirs.class_log_prior_, rtol=RTOL)
    same_predictions(ours, theirs, Xin)


def test_array_alpha_matches(rng):
    X, y = counts(rng)
    alpha = rng.random(X.shape[1]) + 0.1
    same_predictions(nbayes.MultinomialNB(alpha=alpha).fit(X, y), skb.MultinomialNB(alpha=alpha).fit(X, y), X)


def test_binarize_none_on_binary_data(rng):
    X = (rng.random((200, 8)) < 0.3).astype(float)
    y = rng.integers(0, 2, 200)
    same_predictions(
        nbayes.BernoulliNB(binarize=None).fit(X, y), skb.BernoulliNB(binarize=None).fit(X, y), X
    )


@pytest.mark.parametrize("priors", [None, [0.5, 0.2, 0.3]])
@pytest.mark.parametrize("var_smoothing", [1e-9, 1e-3])
def test_gaussian(rng, priors, var_smoothing):
    y = rng.integers(0, 3, 500)
    X = rng.normal(y[:, None] * 0.7, 1 + y[:, None], (500, 6))
    ours = nbayes.GaussianNB(priors=priors, var_smoothing=var_smoothing).fit(X, y)
    theirs = skb.GaussianNB(priors=priors, var_smoothing=var_smoothing).fit(X, y)
    assert_allclose(ours.theta_, theirs.theta_, rtol=RTOL)
    assert_allclose(ours.var_, theirs.var_, rtol=RTOL)
    assert_allclose(ours.epsilon_, theirs.epsilon_, rtol=RTOL)
    assert_allclose(ours.class_prior_, theirs.class_prior_, rtol=RTOL)
    same_predictions(ours, theirs, X)


def test_gaussian_weighted_moments(rng):
    """With weights, the moments equal scikit-learn's; its epsilon ignores the weights, so the
    comparison uses var_smoothing=0 (CORRECTNESS.md)."""
    y = rng.integers(0, 2, 400)
    X = rng.normal(y[:, None], 1.0, (400, 4))
    w = rng.random(400) * 3
    ours = nbayes.GaussianNB(var_smoothing=0.0).fit(X, y, sample_weight=w)
    theirs = skb.GaussianNB(var_smoothing=0.0).fit(X, y, sample_weight=w)
    assert_allclose(ours.theta_, theirs.theta_, rtol=RTOL)
    assert_allclose(ours.var_, theirs.var_, rtol=RTOL)
    same_predictions(ours, theirs, X)


@pytest.mark.parametrize("params", [{}, {"alpha": 0.5}, {"alpha": 3.0, "fit_prior": False}, {"min_categories": 9}])
def test_categorical_integer_codes(rng, params):
    n, d = 600, 5
    y = rng.integers(0, 3, n)
    X = (rng.integers(0, 6, (n, d)) + y[:, None]) % 7  # every value 0..6 present in each column
    ours = nbayes.CategoricalNB(**params).fit(X, y)
    theirs = skb.CategoricalNB(**params).fit(X, y)
    for a, b in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        if "min_categories" in params:  # nbayes keeps seen values; the rest only widen J
            b = b[:, : a.shape[1]]
        assert_allclose(a, b, rtol=RTOL)
    for a, b in zip(ours.category_count_, theirs.category_count_):
        assert_allclose(a, b[:, : a.shape[1]], rtol=RTOL)
    same_predictions(ours, theirs, X)


def test_categorical_weighted(rng):
    y = rng.integers(0, 2, 300)
    X = (rng.integers(0, 4, (300, 3)) + y[:, None]) % 5
    w = rng.random(300)
    same_predictions(
        nbayes.CategoricalNB().fit(X, y, sample_weight=w), skb.CategoricalNB().fit(X, y, sample_weight=w), X
    )


def test_partial_fit_matches_sklearn_for_counts(rng):
    X, y = counts(rng)
    ours, theirs = nbayes.MultinomialNB(), skb.MultinomialNB()
    for part in np.array_split(np.arange(len(y)), 4):
        ours.partial_fit(X[part], y[part], classes=[0, 1, 2])
        theirs.partial_fit(X[part], y[part], classes=[0, 1, 2])
    same_predictions(ours, theirs, X)


# ------------------------------------------------------------------ deliberate differences
def test_alpha_zero_is_exact_mle_without_nan(rng):
    X = np.array([[2, 0, 1], [3, 0, 0], [0, 4, 1]], dtype=float)
    y = [0, 0, 1]
    model = nbayes.MultinomialNB(alpha=0).fit(X, y)
    # closed form: class 0 counts (5, 0, 1) / 6; class 1 (0, 4, 1) / 5
    with np.errstate(divide="ignore"):
        expected = np.log(np.array([[5, 0, 1], [0, 4, 1]]) / np.array([[6], [5]]))
    assert_allclose(model.feature_log_prob_, expected, rtol=1e-15)
    jll = model.predict_joint_log_proba([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    assert jll[0, 1] == -np.inf and jll[1, 0] == -np.inf and np.all(jll[2] == -np.inf)
    proba = model.predict_proba([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    assert not np.isnan(proba).any()
    assert_allclose(proba[0], [1, 0])
    assert_allclose(proba[2], [2 / 3, 1 / 3])  # impossible under both: the class prior


def test_unseen_category_gets_the_smoothed_zero_count():
    X = np.array([[0], [1], [1], [2]])
    y = [0, 0, 1, 1]
    model = nbayes.CategoricalNB(alpha=1.0).fit(X, y)
    jll = model.predict_joint_log_proba([[7]])
    # log(alpha / (N_c + alpha J)) + log prior, J = 3 seen values
    assert_allclose(jll[0], np.log([1 / 5, 1 / 5]) + np.log([0.5, 0.5]), rtol=1e-12)
    with pytest.raises(IndexError):
        skb.CategoricalNB().fit(X, y).predict([[7]])  # the known complaint
    ignore = nbayes.CategoricalNB(handle_unknown="ignore").fit(X, y)
    assert_allclose(ignore.predict_joint_log_proba([[7]])[0], np.log([0.5, 0.5]), rtol=1e-12)
