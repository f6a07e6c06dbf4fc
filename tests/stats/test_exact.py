"""Issue #27: learning a batch then unlearning it returns the statistics bit for bit, under
adversarial magnitudes (stats.exact), and the model saves a file that loads."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes


def _same(a, b) -> None:
    ka, kb = a.stats_.to_arrays(), b.stats_.to_arrays()
    assert sorted(ka) == sorted(kb)
    for k in ka:
        assert np.asarray(ka[k]).tobytes() == np.asarray(kb[k]).tobytes(), k


def _round_trip(model, X, y, w, Xb, yb, wb, tmp_path):
    model.fit(X, y, sample_weight=w)
    before = copy.deepcopy(model)
    model.partial_fit(Xb, yb, sample_weight=wb)
    model.save(tmp_path / "mid.nbm")
    nbayes.load(tmp_path / "mid.nbm")
    model.unlearn(Xb, yb, sample_weight=wb)
    _same(model, before)
    np.testing.assert_array_equal(model.predict_proba(X), before.predict_proba(X))
    model.save(tmp_path / "m.nbm")
    _same(nbayes.load(tmp_path / "m.nbm"), before)


def test_a_huge_weight_learned_and_unlearned_keeps_the_class(tmp_path):
    X = np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]])
    y = np.array([0, 1, 0])
    _round_trip(nbayes.MultinomialNB(), X, y, [430.0, 1.0, 0.3], X[:1], y[:1], [1e17], tmp_path)


def test_a_gaussian_outlier_learned_and_unlearned_leaves_the_variance(tmp_path):
    rng = np.random.default_rng(0)
    X = 40 + 10 * rng.normal(size=(40, 2))
    y = rng.integers(0, 2, 40)
    _round_trip(nbayes.GaussianNB(), X, y, None, np.array([[1.7e12, 40.0]]), [0], None, tmp_path)


def test_a_fractional_text_weight_learned_and_unlearned(tmp_path):
    docs = ["oil tanker ship", "grain wheat", "oil price", "wheat harvest ship"]
    _round_trip(nbayes.TextClassifier(), docs, [0, 1, 0, 1], [0.1, 0.7, 0.2, 0.3],
                ["oil ship grain"], [1], [0.1], tmp_path)


MAGNITUDES = st.sampled_from([1e-300, 1e-150, 1e-20, 0.1, 0.3, 1 / 3, 1.0, 7.0, 1e12, 1e17, 1e150, 1e300])


@settings(max_examples=40, deadline=None)
@given(w=st.lists(MAGNITUDES, min_size=4, max_size=4), wb=st.lists(MAGNITUDES, min_size=2, max_size=2),
       kind=st.sampled_from(["multinomial", "bernoulli", "categorical", "gaussian", "complement"]))
def test_learn_then_unlearn_is_never_learned_or_a_clean_refusal(w, wb, kind, tmp_path_factory):
    X = np.array([[1.0, 2.0], [3.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    # (values already seen: a categorical value set does not shrink on unlearn, issue #27 open)
    Xb = np.array([[3.0, 1.0], [1.0, 2.0]]) if kind != "gaussian" else np.array([[1e12, 40.0], [41.0, -1e-3]])
    y, yb = np.array([0, 1, 0, 1]), np.array([0, 1])
    model = {"multinomial": nbayes.MultinomialNB, "bernoulli": nbayes.BernoulliNB, "gaussian": nbayes.GaussianNB,
             "categorical": nbayes.CategoricalNB, "complement": nbayes.ComplementNB}[kind]()
    try:
        model.fit(X, y, sample_weight=w)
    except nbayes.errors.NBayesError:
        return  # a clean refusal (e.g. weights whose sums overflow)
    before = copy.deepcopy(model)
    try:
        model.partial_fit(Xb, yb, sample_weight=wb)
    except nbayes.errors.NBayesError:
        _same(model, before)  # refused: unchanged
        return
    tmp = tmp_path_factory.mktemp("m")
    model.save(tmp / "m.nbm")
    nbayes.load(tmp / "m.nbm")
    model.unlearn(Xb, yb, sample_weight=wb)
    _same(model, before)
