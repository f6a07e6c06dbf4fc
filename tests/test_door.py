"""The public door the layers above the models use (docs/architecture.md, issue 28):
``input_kind`` from the capabilities, ``predict_index_proba`` equal to ``predict`` and
``predict_proba`` bit for bit (what the service answers), and the logistic regression's
``explain`` adding up to its decision function."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes._estimator import INPUT_KINDS, input_kind_of


def _counts(rng, n=60, d=5):
    y = np.arange(n) % 3
    X = rng.poisson(np.where(y[:, None] == 0, 3.0, 1.0), (n, d)).astype(float)
    return X, y


MODELS = {
    "multinomial": lambda: nbayes.MultinomialNB(),
    "multinomial-alpha0": lambda: nbayes.MultinomialNB(alpha=0.0),
    "gaussian": lambda: nbayes.GaussianNB(),
    "bernoulli": lambda: nbayes.BernoulliNB(),
    "complement": lambda: nbayes.ComplementNB(),
    "logistic": lambda: nbayes.LogisticRegression(),
    "calibrated": lambda: nbayes.CalibratedClassifier(nbayes.MultinomialNB(), cv=3),
    "gaussian-bayes": lambda: nbayes.GaussianBayes(shrinkage="auto"),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_predict_index_proba_is_predict_and_predict_proba(name, rng=np.random.default_rng(0)):
    X, y = _counts(np.random.default_rng(0))
    m = MODELS[name]().fit(X, y)
    Xt = np.vstack([X[:20], np.zeros((1, X.shape[1])), 40 * np.eye(X.shape[1])])
    if name == "multinomial-alpha0":  # a row impossible under every class: answered by the prior
        Xt = np.vstack([Xt, np.full((1, X.shape[1]), 50.0)])
    index, proba = m.predict_index_proba(Xt)
    assert index.dtype == np.int64 and proba.shape == (len(Xt), len(m.classes_))
    assert np.array_equal(m.classes_[index], m.predict(Xt))
    assert np.array_equal(proba, m.predict_proba(Xt))  # bit for bit


def test_a_row_impossible_under_every_class_gets_the_prior():
    X = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 3.0], [0.0, 2.0]])
    m = nbayes.MultinomialNB(alpha=0.0).fit(X, ["a", "a", "b", "b", "b"])
    assert np.isneginf(m.predict_joint_log_proba([[1.0, 1.0]])).all()
    index, proba = m.predict_index_proba([[1.0, 1.0], [3.0, 0.0]])
    assert_allclose(proba[0], [0.4, 0.6], rtol=1e-15)
    assert m.classes_[index].tolist() == ["b", "a"] == m.predict([[1.0, 1.0], [3.0, 0.0]]).tolist()


def test_input_kind_follows_the_capabilities():
    assert set(INPUT_KINDS) == {"text", "table", "matrix"}
    assert input_kind_of(frozenset({"text", "columns"})) == "text"
    assert input_kind_of(frozenset({"categories"})) == input_kind_of(frozenset({"columns"})) == "table"
    assert input_kind_of(frozenset()) == "matrix"
    kinds = {
        "text": [nbayes.TextClassifier(), nbayes.TextClassifier(model="nblr"), nbayes.EM(nbayes.TextClassifier()),
                 nbayes.CalibratedClassifier(nbayes.TextClassifier()), nbayes.MultiLabel(nbayes.TextClassifier())],
        "table": [nbayes.NaiveBayes(), nbayes.CategoricalNB(), nbayes.CalibratedClassifier(nbayes.CategoricalNB())],
        "matrix": [nbayes.GaussianNB(), nbayes.MultinomialNB(), nbayes.LogisticRegression(), nbayes.GaussianBayes()],
    }
    for kind, models in kinds.items():
        for m in models:
            assert m.input_kind == kind, m


@pytest.mark.parametrize("K", [2, 3])
def test_logistic_explanation_adds_up_to_the_decision_function(K):
    rng = np.random.default_rng(K)
    X = rng.normal(size=(80, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int) + (X[:, 2] > 1 if K == 3 else 0)
    m = nbayes.LogisticRegression().fit(X, y)
    e = m.explain(X[:10])
    Z = m.decision_function(X[:10])
    scores = np.column_stack([np.zeros(10), Z]) if K == 2 else Z
    assert_allclose(e.joint(), scores, rtol=1e-12, atol=1e-12)
    for i in range(10):
        pred, runner, terms, base = e.log_odds(i)
        lp = m.predict_log_proba(X[i : i + 1])[0]
        a, b = list(m.classes_).index(pred), list(m.classes_).index(runner)
        assert pred == m.predict(X[i : i + 1])[0]
        assert_allclose(terms.sum() + base, lp[a] - lp[b], rtol=1e-9, atol=1e-12)


def test_multilabel_asks_capabilities_not_classes():
    with pytest.raises(nbayes.errors.InvalidParameterError, match="statistics"):
        nbayes.MultiLabel(nbayes.LogisticRegression()).fit([[1.0], [2.0]], [["a"], ["b"]])
    with pytest.raises(nbayes.errors.InvalidParameterError, match="single-label"):
        nbayes.MultiLabel(nbayes.MultiLabel(nbayes.MultinomialNB())).fit([[1.0], [2.0]], [["a"], ["b"]])
    assert "nb_logistic" in nbayes.TextClassifier(model="nblr").capabilities
    assert "per_class" not in nbayes.ComplementNB().capabilities
    assert "per_class" in nbayes.TextClassifier(model="bernoulli").capabilities


def test_a_splitter_whose_folds_leave_one_out_is_leave_one_out():
    """Read from the folds, not the splitter's class: scikit-learn's LeaveOneOut and KFold(n)
    are leave-one-out (the closed forms apply); n folds in another order are not."""
    from sklearn.model_selection import KFold as SkKFold
    from sklearn.model_selection import LeaveOneOut

    from nbayes.model_selection import LeaveOneOutSplits, check_cv

    X, y = np.zeros((6, 1)), np.array([0, 1] * 3)
    assert isinstance(check_cv(LeaveOneOut(), X, y), LeaveOneOutSplits)
    assert isinstance(check_cv(SkKFold(6), X, y), LeaveOneOutSplits)
    assert not isinstance(check_cv(SkKFold(6, shuffle=True, random_state=0), X, y), LeaveOneOutSplits)
    assert not isinstance(check_cv(SkKFold(3), X, y), LeaveOneOutSplits)
    X3 = np.arange(12.0).reshape(6, 2) % 3
    m = nbayes.CategoricalNB()
    assert_allclose(nbayes.model_selection.cross_val_predict(m, X3, y, cv=LeaveOneOut(), method="predict_proba"),
                    nbayes.model_selection.cross_val_predict(m, X3, y, cv="loo", method="predict_proba"), rtol=0, atol=0)
