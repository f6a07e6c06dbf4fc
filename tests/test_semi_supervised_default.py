"""``model.fit(X, y, X_unlabeled=U)`` is safe by default: lambda (the weight of the unlabelled
rows) is chosen by cross-validation on the labelled rows ("auto"), so unlabelled rows that do
not follow the labelled classes cannot pull the model far from its supervised fit."""

from __future__ import annotations

import numpy as np
import pytest

import nbayes
from nbayes.errors import InvalidParameterError
from nbayes.semi_supervised import EM


def _data(seed=0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(30), size=2)
    y = np.repeat([0, 1], 30)
    X = np.vstack([rng.multinomial(20, p[c]) for c in y])
    return X, y, rng


def test_default_is_lambda_by_cross_validation_as_the_wrapper_with_cv():
    X, y, rng = _data()
    U = rng.multinomial(20, np.ones(30) / 30, size=200)  # unlabelled rows of neither class
    m = nbayes.MultinomialNB(alpha=0.5).fit(X, y, X_unlabeled=U)
    w = EM(nbayes.MultinomialNB(alpha=0.5), unlabeled_weight="cv").fit(X, y, X_unlabeled=U)
    assert m.em_cv_scores_ is not None and m.unlabeled_weight_ == w.unlabeled_weight_
    np.testing.assert_allclose(m.predict_log_proba(X), w.predict_log_proba(X), rtol=1e-12, atol=1e-12)
    a = EM(nbayes.MultinomialNB(alpha=0.5), unlabeled_weight="auto").fit(X, y, X_unlabeled=U)
    assert a.unlabeled_weight_ == w.unlabeled_weight_ and a.em_cv_scores_ == w.em_cv_scores_


def test_auto_on_a_stream_is_the_basic_em():
    X, y, rng = _data(1)
    U = rng.multinomial(20, np.ones(30) / 30, size=50)
    streamed = nbayes.MultinomialNB().fit(iter([(X[:30], y[:30]), (X[30:], y[30:])]), X_unlabeled=U)
    basic = EM(nbayes.MultinomialNB(), unlabeled_weight=1.0).fit(X, y, X_unlabeled=U)
    assert streamed.unlabeled_weight_ == 1.0 and streamed.em_cv_scores_ is None
    np.testing.assert_allclose(streamed.predict_log_proba(X), basic.predict_log_proba(X), rtol=1e-9)


def test_text_cv_scores_held_out_documents_with_unseen_words():
    """The held-out fold's documents have words no counted document has: they weigh nothing
    (this crashed before: the fold's vocabulary and the model's differed)."""
    docs = ["apple banana cherry", "apple banana kiwi", "apple cherry mango", "banana apple lime",
            "zebra yak wolf", "zebra wolf fox", "yak wolf bear", "zebra yak lynx"]
    y = [0, 0, 0, 0, 1, 1, 1, 1]
    rest = ["apple banana", "zebra wolf", "cherry apple", "yak zebra"]
    m = nbayes.TextClassifier(alpha=0.1).fit(docs, y, X_unlabeled=rest)
    assert m.em_cv_scores_ is not None
    assert m.predict(["apple kiwi", "wolf lynx"]).tolist() == [0, 1]


def test_unknown_weight_names_the_choices():
    X, y, rng = _data()
    with pytest.raises(InvalidParameterError, match="'auto' or 'cv'"):
        EM(nbayes.MultinomialNB(), unlabeled_weight="always").fit(X, y, X_unlabeled=X)
