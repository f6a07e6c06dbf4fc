"""The exact shortcuts of model selection and multi-label are chosen by what a model declares
(capabilities ``count_matrix``, ``fold_statistics``, ``leave_one_out``, ``per_class``,
``counts``), never by its class or a mode string (tests/architecture/test_door.py), and they
are still taken where they were: counted here by the calls to the slow paths."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes.model_selection import SearchCV, cross_val_predict
from nbayes.model_selection import _validate
from nbayes.model_selection._folds import RefitFolds, StatsFolds, TextFolds, engine_kind
from nbayes.multilabel import _linear, _textfolds

DOCS = ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch meeting today", "win a prize now",
        "see you at lunch", "free offer inside", "noon call about the meeting", "prize draw win", "call me at noon",
        "cheap prize offer", "meeting moved to lunch"]
Y = ["spam", "ham", "spam", "ham", "spam", "ham", "spam", "ham", "spam", "ham", "spam", "ham"]


@pytest.mark.parametrize("model, params, kind", [
    (nbayes.TextClassifier(), {}, TextFolds),
    (nbayes.TextClassifier(model="bernoulli", tfidf=False), {}, TextFolds),
    (nbayes.TextClassifier(tfidf=True), {}, TextFolds),
    (nbayes.TextClassifier(model="nblr"), {}, RefitFolds),
    (nbayes.TextClassifier(), {"model": "nblr"}, RefitFolds),
    (nbayes.TextClassifier(tfidf=True, idf={"a": 1.0}), {}, RefitFolds),
    (nbayes.TextClassifier(tfidf=True), {"idf": {"a": 1.0}}, RefitFolds),
    (nbayes.MultinomialNB(), {}, StatsFolds),
    (nbayes.CategoricalNB(), {}, StatsFolds),
    (nbayes.GaussianNB(), {"var_smoothing": 1e-3}, StatsFolds),
    (nbayes.NaiveBayes(), {}, StatsFolds),
    (nbayes.EM(nbayes.MultinomialNB(), n_components=2), {}, RefitFolds),
    (nbayes.LogisticRegression(), {}, RefitFolds),
    (nbayes.GaussianBayes(), {}, RefitFolds),
], ids=repr)
def test_the_engine_is_the_capabilities_choice(model, params, kind):
    assert engine_kind(model, params) is kind


def _count(monkeypatch, owner, name):
    calls = []
    original = getattr(owner, name)

    def counted(*a, **k):
        calls.append(1)
        return original(*a, **k)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_text_search_counts_once_and_never_refits(monkeypatch):
    """SearchCV over estimation settings of a text model: one count per split, each candidate
    re-estimated from it; no fit of a text model and no refitting engine."""
    fits = _count(monkeypatch, nbayes.TextClassifier, "fit")
    refits = _count(monkeypatch, RefitFolds, "model")
    estimated = _count(monkeypatch, TextFolds, "_estimated")
    search = SearchCV(nbayes.TextClassifier(), {"alpha": [0.1, 1.0], "model": ["multinomial", "bernoulli"]}, cv=3)
    search.fit(DOCS, Y)
    assert fits == [] and refits == []
    assert len(estimated) == 4 * 3  # every candidate on every split, from the counts
    best = nbayes.TextClassifier(**search.best_params_).fit(DOCS, Y)
    assert_allclose(search.best_estimator_.predict_log_proba(DOCS), best.predict_log_proba(DOCS), rtol=1e-10)


def test_a_statistics_search_re_estimates_and_never_refits(monkeypatch):
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 5, (60, 4)), rng.integers(0, 2, 60)
    fits = _count(monkeypatch, nbayes.MultinomialNB, "fit")
    refits = _count(monkeypatch, RefitFolds, "model")
    SearchCV(nbayes.MultinomialNB(), {"alpha": [0.1, 1.0, 3.0]}, cv=4).fit(X, y)
    assert fits == [] and refits == []


@pytest.mark.parametrize("make", [lambda: nbayes.BernoulliNB(), lambda: nbayes.CategoricalNB(alpha=0.5)],
                         ids=["bernoulli", "categorical"])
def test_leave_one_out_takes_the_closed_form(monkeypatch, make):
    """A model that declares ``leave_one_out`` is served by its closed form: the generic engine
    is asked for no row (every class keeps rows without any one of them), and the answers are
    the generic engine's."""
    rng = np.random.default_rng(1)
    n = 40
    y = rng.integers(0, 3, n)
    X = (rng.random((n, 6)) < np.where(y[:, None] == 1, 0.6, 0.3)).astype(float)
    assert "leave_one_out" in make().capabilities
    generic = _count(monkeypatch, StatsFolds, "log_proba")
    fast = cross_val_predict(make(), X, y, cv="loo", method="predict_log_proba")
    assert generic == []
    monkeypatch.setattr(_validate, "loo_folds", lambda *a, **k: None)
    slow = cross_val_predict(make(), X, y, cv="loo", method="predict_log_proba")
    assert len(generic) == n
    assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)


def test_leave_one_out_without_the_capability_is_the_generic_engine():
    X, y = np.eye(4).repeat(3, axis=0), np.arange(12) % 2
    assert "leave_one_out" not in nbayes.MultinomialNB().capabilities
    assert _validate.loo_folds(nbayes.MultinomialNB(), X, y, _folds_splits(12), None) is None


def _folds_splits(n):
    from nbayes.model_selection import check_cv

    return check_cv("loo", np.zeros((n, 1)), np.arange(n) % 2)


TAGS = [["spam", "offer"], ["ham"], ["spam", "offer"], ["ham", "lunch"], ["spam"], ["ham", "lunch"], ["spam", "offer"],
        ["ham"], ["spam"], ["ham"], ["spam", "offer"], ["ham", "lunch"]]


@pytest.mark.parametrize("base, path", [
    (nbayes.TextClassifier(alpha=0.3), "linear"),
    (nbayes.TextClassifier(binary=True), "linear"),
    (nbayes.TextClassifier(model="bernoulli"), "textfolds"),
    (nbayes.TextClassifier(min_df=2), "models"),
    (nbayes.TextClassifier(model="complement"), "models"),
], ids=repr)
def test_multilabel_text_takes_its_shortcut(monkeypatch, base, path):
    """Out-of-fold scores of a multi-label text model: multinomial by one linear table
    (_linear), Bernoulli by count models over the fold engine's matrix (_textfolds), others by
    the text models per fold."""
    linear = _count(monkeypatch, _linear, "fold_scores")
    textfolds = _count(monkeypatch, _textfolds, "fold_scores")
    models = _count(monkeypatch, nbayes.MultiLabel, "_models")
    nbayes.MultiLabel(base, cv=3, threshold="micro").fit(DOCS, TAGS)
    assert (bool(linear), bool(textfolds)) == (path == "linear", path == "textfolds")
    if path != "models":
        assert len(models) <= 1  # the final model only, no model per fold
    else:
        assert len(models) > 1


@pytest.mark.parametrize("model, linear", [
    (nbayes.TextClassifier(), True), (nbayes.TextClassifier(alpha=0.2, fit_prior=False), True),
    (nbayes.TextClassifier(model="bernoulli"), False), (nbayes.TextClassifier(model="complement"), False),
    (nbayes.TextClassifier(binary=True), False), (nbayes.TextClassifier(tfidf=True), False),
], ids=repr)
def test_the_active_pool_scores_a_text_multinomial_model_by_its_linear_form(model, linear):
    """nbayes.active's pool asks capabilities (count_matrix, per_class, its count model's
    counts), not the mode string, for the sparse-product path; its scores are the model's."""
    from nbayes.active import Pool

    model.fit(DOCS, Y)
    pool = Pool(model, ["cheap lunch now", "a word never seen", "meeting prize"])
    assert (pool.linear_parameters() is not None) == linear
    if linear:
        cols, flp, prior = pool.linear_parameters()
        assert_allclose(flp, model.feature_log_prob_)
