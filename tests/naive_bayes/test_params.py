"""Fitted parameters are values: ``params_ = estimate(stats_, settings)``, immutable, assigned
with the statistics; the fitted attributes are read-only views of them (issue #28 item 1)."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from nbayes import BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB, NaiveBayes
from nbayes.errors import DataError
from nbayes.naive_bayes import bernoulli, categorical, complement, gaussian, multinomial
from nbayes.naive_bayes.params import Params

RNG = np.random.default_rng(0)
COUNTS = RNG.integers(0, 5, size=(40, 6))
REALS = RNG.normal(size=(40, 4))
CATS = RNG.integers(0, 3, size=(40, 3))
Y = RNG.integers(0, 3, size=40)

CASES = [
    (MultinomialNB(alpha=0.5), COUNTS, multinomial.estimate, multinomial.MultinomialParams),
    (BernoulliNB(alpha=2.0, binarize=1.0), COUNTS, bernoulli.estimate, bernoulli.BernoulliParams),
    (ComplementNB(norm=True), COUNTS, complement.estimate, complement.ComplementParams),
    (GaussianNB(variance="pooled"), REALS, gaussian.estimate, gaussian.GaussianParams),
    (CategoricalNB(alpha=0.3, min_categories=4), CATS, categorical.estimate, categorical.CategoricalParams),
]
IDS = [type(c[0]).__name__ for c in CASES]


@pytest.mark.parametrize("model,X,estimate,kind", CASES, ids=IDS)
def test_params_are_the_pure_estimate_of_the_statistics(model, X, estimate, kind):
    m = copy.deepcopy(model).fit(X, Y)
    assert type(m.params_) is kind and isinstance(m.params_, Params)
    before = copy.deepcopy(m.__dict__)
    again = estimate(m.stats_, m.estimation_settings(m.n_features_in_))
    assert again == m.params_ and again is not m.params_
    assert m.__dict__.keys() == before.keys()  # estimation changed nothing on the model
    assert m.params_ == before["params_"]


@pytest.mark.parametrize("model,X,estimate,kind", CASES, ids=IDS)
def test_params_are_immutable_and_attributes_read_only(model, X, estimate, kind):
    m = copy.deepcopy(model).fit(X, Y)
    p = m.params_
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.class_log_prior = np.zeros(3)
    with pytest.raises(ValueError):
        p.class_log_prior[0] = 0.0
    name = "theta_" if isinstance(m, GaussianNB) else "feature_log_prob_"
    with pytest.raises(AttributeError):
        setattr(m, name, None)


@pytest.mark.parametrize("model,X,estimate,kind", CASES, ids=IDS)
def test_a_change_makes_a_new_value_and_leaves_the_old_one(model, X, estimate, kind):
    m = copy.deepcopy(model).fit(X[:20], Y[:20])
    old, snapshot = m.params_, copy.deepcopy(m.params_)
    m.partial_fit(X[20:], Y[20:])
    assert m.params_ is not old and old == snapshot  # a reader holding the old value keeps it
    full = copy.deepcopy(model).fit(X, Y)
    for f in dataclasses.fields(m.params_):
        a, b = getattr(m.params_, f.name), getattr(full.params_, f.name)
        if isinstance(a, np.ndarray):
            assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("model,X,estimate,kind", CASES, ids=IDS)
def test_a_failed_call_keeps_the_same_value(model, X, estimate, kind):
    m = copy.deepcopy(model).fit(X, Y)
    p, s = m.params_, m.stats_
    with pytest.raises(DataError):
        m.partial_fit(X[:3], Y[:3], sample_weight=[1.0, -1.0, 1.0])
    assert m.params_ is p and m.stats_ is s


def test_attributes_are_views_of_params_and_stats():
    m = MultinomialNB(alpha=1.0).fit(COUNTS, Y)
    assert m.feature_log_prob_ is m.params_.feature_log_prob
    assert m.feature_count_ is m.stats_.feature_count
    assert m.class_log_prior_ is m.params_.class_log_prior
    fc = m.feature_count_ + 1.0  # notes 004: (n_cj + alpha) / (n_c + alpha |V|)
    assert_allclose(m.feature_log_prob_, np.log(fc / fc.sum(axis=1, keepdims=True)), rtol=1e-13)


def test_gaussian_params_keep_float64_and_show_the_data_dtype():
    m = GaussianNB().fit(REALS.astype(np.float32), Y)
    assert m.params_.theta.dtype == np.float64 and m.theta_.dtype == np.float32
    assert m.params_.dtype == np.float32 and m.var_.dtype == np.float32
    assert_allclose(m.var_, (m.params_.var).astype(np.float32))
    m.partial_fit(REALS, Y)  # float64 data: the parameters become float64
    assert m.theta_.dtype == np.float64 and "_dtype" not in m.__dict__


def test_naive_bayes_params_compare_by_value():
    X = pd.DataFrame({"a": REALS[:, 0], "b": [str(v) for v in CATS[:, 0]]})
    m = NaiveBayes().fit(X, Y)
    assert copy.deepcopy(m.params_) == m.params_
    assert sorted(m.components_) == ["categorical", "gaussian"]
    other = NaiveBayes(alpha=3.0).fit(X, Y)
    assert other.params_ != m.params_
    assert_array_equal(m.class_log_prior_, m.params_.class_log_prior)
