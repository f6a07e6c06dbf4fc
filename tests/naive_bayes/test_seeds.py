"""The seeds' worked examples, reproduced exactly."""

from __future__ import annotations

import csv
import math
from fractions import Fraction

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import nbayes


def test_playtennis_mle(shared_data):
    """Slides 000: P(yes) prod P(a|yes) = .0053 and P(no) prod P(a|no) = .0206 -> No."""
    with open(shared_data / "playtennis.csv") as f:
        rows = list(csv.reader(f))[1:]
    X = [r[1:5] for r in rows]
    y = [r[5] for r in rows]
    model = nbayes.CategoricalNB(alpha=0).fit(X, y)
    day = [["Sunny", "Cool", "High", "Strong"]]
    yes = Fraction(9, 14) * Fraction(2, 9) * Fraction(3, 9) * Fraction(3, 9) * Fraction(3, 9)
    no = Fraction(5, 14) * Fraction(3, 5) * Fraction(1, 5) * Fraction(4, 5) * Fraction(3, 5)
    joint = np.exp(model.predict_joint_log_proba(day)[0])
    assert model.classes_.tolist() == ["No", "Yes"]
    assert_allclose(joint, [float(no), float(yes)], rtol=1e-12)
    assert round(joint[0], 4) == 0.0206 and round(joint[1], 4) == 0.0053
    assert model.predict(day).tolist() == ["No"]
    assert_allclose(model.predict_proba(day)[0], [float(no / (no + yes)), float(yes / (no + yes))], rtol=1e-12)


# notes 001: f1 f2 f3 | y
TABLE = np.array(
    [[1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0], [1, 0, 0, 1], [1, 0, 1, 1], [0, 1, 0, 0]]
)


def test_bernoulli_table_mle_and_the_all_ones_pitfall():
    X, y = TABLE[:, :3].astype(float), TABLE[:, 3]
    model = nbayes.BernoulliNB(alpha=0).fit(X, y)
    # p_j^y = #(f_j = 1, y) / #y: class 0 has 3 rows, class 1 has 4
    assert_allclose(np.exp(model.feature_log_prob_), [[1 / 3, 2 / 3, 1 / 3], [3 / 4, 1 / 4, 2 / 4]], rtol=1e-12)
    # make feature 0 equal to 1 in every row of class 1: p = 1, so x_0 = 0 is impossible there
    X1 = X.copy()
    X1[y == 1, 0] = 1
    m1 = nbayes.BernoulliNB(alpha=0).fit(X1, y)
    assert m1.feature_log_prob_[1, 0] == 0.0
    jll = m1.predict_joint_log_proba([[0, 1, 0]])
    assert jll[0, 1] == -np.inf and np.isfinite(jll[0, 0])
    assert_array_equal(m1.predict_proba([[0, 1, 0]]), [[1.0, 0.0]])
    # all zeros in every row of a class: x = 1 impossible there
    X0 = X.copy()
    X0[y == 0, 2] = 0
    m0 = nbayes.BernoulliNB(alpha=0).fit(X0, y)
    assert m0.predict_joint_log_proba([[1, 0, 1]])[0, 0] == -np.inf


def test_laplace_equals_adding_all_ones_and_all_zeros_rows():
    """The notes' fix: add x=[1..1] and x=[0..0] to each class = alpha 1."""
    X, y = TABLE[:, :3].astype(float), TABLE[:, 3]
    extra_X = np.array([[1, 1, 1], [1, 1, 1], [0, 0, 0], [0, 0, 0]], dtype=float)
    extra_y = np.array([0, 1, 0, 1])
    augmented = nbayes.BernoulliNB(alpha=0).fit(np.vstack([X, extra_X]), np.concatenate([y, extra_y]))
    laplace = nbayes.BernoulliNB(alpha=1).fit(X, y)
    assert_allclose(laplace.feature_log_prob_, augmented.feature_log_prob_, rtol=1e-12)
    grid = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], dtype=float)
    # the class priors differ (the augmentation adds 2 rows per class), so compare likelihoods
    assert_allclose(
        laplace.predict_joint_log_proba(grid) - laplace.class_log_prior_,
        augmented.predict_joint_log_proba(grid) - augmented.class_log_prior_,
        rtol=1e-12,
    )


@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("variance", ["class_feature", "feature", "class", "pooled"])
def test_gaussian_variance_options(rng, variance, ddof):
    y = np.repeat([0, 1, 2], [30, 50, 20])
    X = rng.normal(y[:, None] * 2.0, 1.0 + y[:, None], (100, 4))
    model = nbayes.GaussianNB(variance=variance, ddof=ddof, var_smoothing=0.0).fit(X, y)
    mu = np.array([X[y == c].mean(axis=0) for c in range(3)])  # eq. 13
    ss = np.array([((X[y == c] - mu[c]) ** 2).sum(axis=0) for c in range(3)])
    n = np.array([[np.sum(y == c)] * 4 for c in range(3)], dtype=float)
    if variance == "class_feature":  # eq. 14 (ddof 0), eq. 15 (ddof 1)
        expected = ss / (n - ddof)
    elif variance == "feature":
        expected = np.broadcast_to(ss.sum(0) / (n - ddof).sum(0), ss.shape)
    elif variance == "class":
        expected = np.broadcast_to((ss.sum(1) / (n - ddof).sum(1))[:, None], ss.shape)
    else:
        expected = np.full(ss.shape, ss.sum() / (n - ddof).sum())
    assert_allclose(model.theta_, mu, rtol=1e-12)
    assert_allclose(model.var_, expected, rtol=1e-12)


def test_map_mean(rng):
    y = np.repeat([0, 1], [4, 40])
    X = rng.normal(y[:, None] * 3.0, 1.0, (44, 2))
    kappa = 5.0
    model = nbayes.GaussianNB(mean_prior_strength=kappa, mean_prior=[1.0, -1.0]).fit(X, y)
    for c in (0, 1):
        W = np.sum(y == c)
        expected = (kappa * np.array([1.0, -1.0]) + W * X[y == c].mean(axis=0)) / (kappa + W)
        assert_allclose(model.theta_[c], expected, rtol=1e-12)
    default = nbayes.GaussianNB(mean_prior_strength=kappa).fit(X, y)
    mu0 = X.mean(axis=0)
    assert_allclose(default.theta_[0], (kappa * mu0 + 4 * X[y == 0].mean(axis=0)) / (kappa + 4), rtol=1e-12)


def test_m_estimate_closed_form():
    X = np.array([["a"], ["a"], ["b"], ["c"], ["a"]], dtype=object)
    y = [0, 0, 0, 1, 1]
    m = 4.0
    model = nbayes.CategoricalNB(m=m).fit(X, y)
    # (n_c + m p) / (n + m), p = 1/3 uniform over the 3 seen values
    expected = np.log([[(2 + m / 3) / (3 + m), (1 + m / 3) / (3 + m), (0 + m / 3) / (3 + m)],
                       [(1 + m / 3) / (2 + m), (0 + m / 3) / (2 + m), (1 + m / 3) / (2 + m)]])
    assert_allclose(model.feature_log_prob_[0], expected, rtol=1e-12)
    given_p = nbayes.CategoricalNB(m=m, p=[[0.5, 0.3, 0.2]], categories=[["a", "b", "c"]]).fit(X, y)
    assert_allclose(np.exp(given_p.feature_log_prob_[0][0]), [(2 + 2.0) / 7, (1 + 1.2) / 7, 0.8 / 7], rtol=1e-12)
    as_mapping = nbayes.CategoricalNB(m=m, p=[{"c": 0.2, "a": 0.5, "b": 0.3}], categories=[["a", "b", "c"]])
    assert_allclose(as_mapping.fit(X, y).feature_log_prob_[0], given_p.feature_log_prob_[0], rtol=1e-15)


@pytest.mark.parametrize(
    "p, message",
    [
        ([[0.5, 0.3, 0.3]], "must sum to 1, got 1.1"),
        ([[0.5, 0.6, -0.1]], "category 'c' has -0.1"),
        ([[np.nan, 0.5, 0.5]], "category 'a' has nan"),
        ([[np.inf, 0.0, 0.0]], "category 'a' has inf"),
        ([[0.5, 0.5]], "has 2 entries for 3 categories"),
        ([{"a": 0.5, "q": 0.5}], "names category 'q', which is not among the categories"),
        ([{"a": 1.0}], "gives no probability for the categories ['b', 'c']"),
        ([[0.5, 0.5, 0.0], None], "has 2 entries; expected one per feature (1"),
        ("abc", "must be a list with one entry per feature"),
    ],
)
def test_m_estimate_prior_is_a_checked_probability_vector(p, message):
    """CORRECTNESS "probability vectors": the m-estimate's p is finite, non-negative and sums to
    1; it is checked once and never renormalised."""
    X = np.array([["a"], ["b"], ["c"], ["a"]], dtype=object)
    with pytest.raises(nbayes.errors.InvalidParameterError) as err:
        nbayes.CategoricalNB(m=2.0, p=p, categories=[["a", "b", "c"]]).fit(X, [0, 1, 0, 1])
    assert message in str(err.value)


def test_long_document_does_not_underflow(rng):
    """A 200,000-token document: every product of probabilities underflows, the logs do not."""
    V = 50
    X = rng.poisson(3, (40, V)).astype(float)
    y = rng.integers(0, 2, 40)
    model = nbayes.MultinomialNB().fit(X, y)
    doc = np.bincount(rng.integers(0, V, 200_000), minlength=V).astype(float)[None, :]
    joint = model.predict_joint_log_proba(doc)[0]
    theta = np.exp(model.feature_log_prob_)
    expected = [
        math.fsum([math.log(p) * c for p, c in zip(theta[k], doc[0])]) + model.class_log_prior_[k]
        for k in range(2)
    ]
    assert_allclose(joint, expected, rtol=1e-12)
    assert np.all(np.isfinite(joint)) and joint.max() < -400_000  # far below float underflow
    proba = model.predict_proba(doc)
    assert np.isfinite(proba).all() and abs(proba.sum() - 1) < 1e-12


def test_gaussian_far_from_the_origin():
    """A feature offset by 1e6 and classes 1e6 apart: direct (x - mu)^2, no cancellation."""
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 50)
    X = np.column_stack([1e6 + rng.normal(0, 1, 100), y * 1e6 + rng.normal(0, 1, 100)])
    model = nbayes.GaussianNB().fit(X, y)
    Xt = X[::7] + 0.25
    direct = np.log(model.class_prior_)[None, :] + np.sum(
        -0.5 * np.log(2 * np.pi * model.var_)[None] - (Xt[:, None, :] - model.theta_[None]) ** 2 / (2 * model.var_[None]),
        axis=2,
    )
    assert_allclose(model.predict_joint_log_proba(Xt), direct, rtol=1e-12)
