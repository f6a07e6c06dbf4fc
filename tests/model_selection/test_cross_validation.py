"""cross_validate / cross_val_predict from fold statistics equal scikit-learn's refits."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

import nbayes
from nbayes.errors import DataError, InvalidParameterError
from nbayes.model_selection import (
    KFold,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
    cross_validate,
)

skm = pytest.importorskip("sklearn.model_selection")
sknb = pytest.importorskip("sklearn.naive_bayes")

TOL = dict(rtol=1e-9, atol=1e-12)


def _counts(rng, n=160, d=10, K=3):
    y = rng.integers(0, K, n)
    X = rng.poisson(1.0, (n, d)).astype(float)
    X[:, :K] += 2.0 * np.eye(K)[y]
    return X, y


def _binary(rng, n=160, d=10):
    y = rng.integers(0, 2, n)
    X = (rng.random((n, d)) < np.where(y[:, None] == 1, 0.6, 0.3)).astype(float)
    return X, y


def _categories(rng, n=160, d=5):
    y = rng.integers(0, 3, n)
    X = (rng.integers(0, 4, (n, d)) + y[:, None]) % 5
    return X, y


def _gauss(rng, n=160, d=4):
    y = rng.integers(0, 2, n)
    return rng.normal(size=(n, d)) + 0.8 * y[:, None], y


CASES = [
    ("multinomial", _counts, lambda: nbayes.MultinomialNB(alpha=0.5), lambda: sknb.MultinomialNB(alpha=0.5)),
    ("complement", _counts, lambda: nbayes.ComplementNB(alpha=0.3, norm=True), lambda: sknb.ComplementNB(alpha=0.3, norm=True)),
    ("bernoulli", _binary, lambda: nbayes.BernoulliNB(alpha=0.7), lambda: sknb.BernoulliNB(alpha=0.7)),
    ("categorical", _categories, lambda: nbayes.CategoricalNB(alpha=0.5, min_categories=5), lambda: sknb.CategoricalNB(alpha=0.5, min_categories=5)),
    ("gaussian", _gauss, lambda: nbayes.GaussianNB(), lambda: sknb.GaussianNB()),
]

SPLITTERS = [
    ("int", lambda: 5, False),
    ("kfold-shuffled", lambda: skm.KFold(4, shuffle=True, random_state=1), False),
    ("stratified-shuffled", lambda: skm.StratifiedKFold(3, shuffle=True, random_state=2), False),
    ("group", lambda: skm.GroupKFold(4), True),
    ("stratified-group", lambda: skm.StratifiedGroupKFold(3), True),
    ("leave-one-group-out", lambda: skm.LeaveOneGroupOut(), True),
]


@pytest.mark.parametrize("name,data,ours,theirs", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("sname,splitter,grouped", SPLITTERS, ids=[s[0] for s in SPLITTERS])
def test_cross_val_predict_equals_sklearn(rng, name, data, ours, theirs, sname, splitter, grouped):
    X, y = data(rng)
    groups = rng.integers(0, 8, len(y)) if grouped else None
    w = rng.random(len(y)) + 0.1
    for weights in (None, w):
        a = cross_val_predict(ours(), X, y, cv=splitter(), groups=groups, method="predict_proba", sample_weight=weights)
        params = None if weights is None else {"sample_weight": weights}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = skm.cross_val_predict(theirs(), X, y, cv=splitter(), groups=groups, method="predict_proba", params=params)
        assert_allclose(a, b, **TOL)
    a = cross_val_predict(ours(), X, y, cv=splitter(), groups=groups, method="predict_proba")
    pred = cross_val_predict(ours(), X, y, cv=splitter(), groups=groups)
    assert np.array_equal(pred, np.unique(y)[np.argmax(a, axis=1)])
    lp = cross_val_predict(ours(), X, y, cv=splitter(), groups=groups, method="predict_log_proba")
    assert_allclose(np.exp(lp), cross_val_predict(ours(), X, y, cv=splitter(), groups=groups, method="predict_proba"), **TOL)


SCORING = ["accuracy", "balanced_accuracy", "neg_log_loss", "neg_brier_score", "roc_auc_ovr", "f1_macro",
           "f1_micro", "f1_weighted", "precision_macro", "recall_weighted"]


@pytest.mark.parametrize("name,data,ours,theirs", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize(
    "splitter",
    [lambda: skm.ShuffleSplit(4, test_size=0.3, random_state=0), lambda: skm.TimeSeriesSplit(4),
     lambda: skm.RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0), lambda: 4],
    ids=["shuffle-split", "time-series", "repeated", "int"],
)
def test_cross_validate_scores_equal_sklearn(rng, name, data, ours, theirs, splitter):
    X, y = data(rng)
    a = cross_validate(ours(), X, y, cv=splitter(), scoring=SCORING, return_train_score=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = skm.cross_validate(theirs(), X, y, cv=splitter(), scoring=SCORING, return_train_score=True)
    for s in SCORING:
        assert_allclose(a[f"test_{s}"], b[f"test_{s}"], err_msg=s, **TOL)
        assert_allclose(a[f"train_{s}"], b[f"train_{s}"], err_msg=s, **TOL)
    assert set(a) == set(b)


def test_binary_scorers_and_single_score(rng):
    X, y = _binary(rng)
    for s in ("roc_auc", "neg_brier_score", "neg_log_loss", None):
        a = cross_val_score(nbayes.BernoulliNB(), X, y, cv=5, scoring=s)
        b = skm.cross_val_score(sknb.BernoulliNB(), X, y, cv=5, scoring=s)
        assert_allclose(a, b, **TOL)


def test_callable_scorer_and_estimators(rng):
    X, y = _counts(rng)
    from sklearn.metrics import make_scorer, matthews_corrcoef

    scorer = make_scorer(matthews_corrcoef)
    a = cross_validate(nbayes.MultinomialNB(), X, y, cv=4, scoring=scorer, return_estimator=True, return_indices=True)
    b = skm.cross_validate(sknb.MultinomialNB(), X, y, cv=4, scoring=scorer, return_estimator=True)
    assert_allclose(a["test_score"], b["test_score"], **TOL)
    for mine, theirs, train in zip(a["estimator"], b["estimator"], a["indices"]["train"]):
        assert_allclose(mine.feature_log_prob_, theirs.feature_log_prob_, **TOL)
        assert_allclose(mine.class_count_, np.bincount(y[train]))


def test_our_splitters_equal_sklearns(rng):
    X, y = _counts(rng, n=103)
    pairs = [
        (StratifiedKFold(5), skm.StratifiedKFold(5)),
        (StratifiedKFold(4, shuffle=True, random_state=3), skm.StratifiedKFold(4, shuffle=True, random_state=3)),
        (KFold(7), skm.KFold(7)),
        (KFold(6, shuffle=True, random_state=0), skm.KFold(6, shuffle=True, random_state=0)),
    ]
    for ours, theirs in pairs:
        got, want = list(ours.split(X, y)), list(theirs.split(X, y))
        assert len(got) == len(want)
        for (a, b), (c, d) in zip(got, want):
            assert np.array_equal(a, c) and np.array_equal(b, d)


def test_mixed_frame_equals_refit_per_fold(rng):
    pd = pytest.importorskip("pandas")
    n = 150
    y = rng.choice(["a", "b", "c"], n)
    frame = pd.DataFrame({
        "height": rng.normal(size=n) + (y == "a"),
        "colour": rng.choice(["red", "green", "blue"], n),
        "flag": rng.random(n) < np.where(y == "b", 0.7, 0.2),
    })
    frame.loc[rng.random(n) < 0.1, "height"] = np.nan
    folds = list(skm.StratifiedKFold(5, shuffle=True, random_state=0).split(frame, y))
    got = cross_val_predict(nbayes.NaiveBayes(), frame, y, cv=folds, method="predict_proba")
    for train, test in folds:
        model = nbayes.NaiveBayes().fit(frame.iloc[train], y[train])
        assert_allclose(got[test], model.predict_proba(frame.iloc[test]), **TOL)


def test_a_class_missing_from_a_training_fold(rng):
    X, y = _counts(rng, n=60)
    y[:2] = 7  # class 7 has two rows, both in the first fold
    folds = [(np.arange(10, 60), np.arange(10)), (np.arange(10), np.arange(10, 60))]
    a = cross_val_predict(nbayes.MultinomialNB(), X, y, cv=folds, method="predict_proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = skm.cross_val_predict(sknb.MultinomialNB(), X, y, cv=folds, method="predict_proba")
    assert_allclose(a, b, **TOL)
    assert np.all(a[:10, -1] == 0.0)
    lp = cross_val_predict(nbayes.MultinomialNB(), X, y, cv=folds, method="predict_log_proba")
    assert np.all(np.isneginf(lp[:10, -1]))


def test_logistic_regression_refits_per_fold(rng):
    X, y = _gauss(rng)
    folds = list(skm.StratifiedKFold(4).split(X, y))
    got = cross_val_predict(nbayes.LogisticRegression(C=0.5), X, y, cv=folds, method="predict_proba")
    for train, test in folds:
        assert_allclose(got[test], nbayes.LogisticRegression(C=0.5).fit(X[train], y[train]).predict_proba(X[test]), **TOL)


@given(
    n=st.integers(12, 60),
    k=st.integers(2, 5),
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["multinomial", "bernoulli", "categorical", "gaussian"]),
)
def test_law_fold_model_is_the_model_of_its_training_rows(n, k, seed, kind):
    """total - fold = fit on the rest, for random data, weights and folds"""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    w = rng.integers(0, 4, n).astype(float)
    w[:2] = 1.0
    model = {
        "multinomial": (nbayes.MultinomialNB(alpha=0.3), rng.poisson(1.5, (n, 4)).astype(float)),
        "bernoulli": (nbayes.BernoulliNB(), (rng.random((n, 4)) < 0.4).astype(float)),
        "categorical": (nbayes.CategoricalNB(), rng.integers(0, 3, (n, 3))),
        "gaussian": (nbayes.GaussianNB(), rng.normal(size=(n, 3))),
    }[kind]
    est, X = model
    folds = list(KFold(min(k, n), shuffle=True, random_state=seed).split(X, y))
    got = cross_val_predict(est, X, y, cv=folds, method="predict_log_proba", sample_weight=w)
    for train, test in folds:
        if w[train].sum() == 0 or len(np.unique(y[train][w[train] > 0])) < 1:
            continue
        ref = type(est)(**est.get_params()).fit(X[train], y[train], sample_weight=w[train])
        want = np.full((len(test), 2), -np.inf)
        want[:, np.searchsorted([0, 1], ref.classes_)] = ref.predict_log_proba(X[test])
        assert_allclose(np.exp(got[test]), np.exp(want), rtol=1e-8, atol=1e-10)


def test_bad_input_is_a_clear_error(rng):
    X, y = _counts(rng, n=40)
    with pytest.raises(DataError, match="exactly once"):
        cross_val_predict(nbayes.MultinomialNB(), X, y, cv=skm.ShuffleSplit(3, random_state=0))
    with pytest.raises(DataError, match="empty test fold"):
        cross_validate(nbayes.MultinomialNB(), X, y, cv=[(np.arange(40), np.array([], dtype=int))])
    with pytest.raises(DataError, match="rows 0..39"):
        cross_validate(nbayes.MultinomialNB(), X, y, cv=[(np.arange(30), np.arange(30, 45))])
    with pytest.raises(InvalidParameterError, match="unknown scorer 'acuracy'"):
        cross_validate(nbayes.MultinomialNB(), X, y, scoring="acuracy")
    with pytest.raises(InvalidParameterError, match="method"):
        cross_val_predict(nbayes.MultinomialNB(), X, y, method="decision_function")
    with pytest.raises(DataError, match="n_splits=50"):
        cross_validate(nbayes.MultinomialNB(), X, y, cv=50)
    with pytest.raises(InvalidParameterError, match="n_splits"):
        StratifiedKFold(1)
    with pytest.raises(DataError, match="row 3"):
        Xbad = X.copy()
        Xbad[3, 2] = -1.0
        cross_validate(nbayes.MultinomialNB(), Xbad, y)


LOO_MODELS = [
    ("categorical", lambda: nbayes.CategoricalNB()),
    ("categorical-m", lambda: nbayes.CategoricalNB(m=2.0, class_alpha=1.0)),
    ("categorical-ignore", lambda: nbayes.CategoricalNB(alpha=0.3, min_categories=7, handle_unknown="ignore", fit_prior=False)),
    ("bernoulli", lambda: nbayes.BernoulliNB(alpha=0.4)),
    ("bernoulli-binarize", lambda: nbayes.BernoulliNB(binarize=0.5, class_prior=[0.2, 0.3, 0.5])),
]


@pytest.mark.parametrize("name,make", LOO_MODELS, ids=[m[0] for m in LOO_MODELS])
def test_leave_one_out_closed_form_equals_n_refits(rng, monkeypatch, name, make):
    from nbayes.model_selection import _validate

    n = 90
    y = rng.integers(0, 3, n)
    if name.startswith("categorical"):
        X = ((rng.integers(0, 4, (n, 5)) + y[:, None]) % 5).astype(object)
        X[0, 0] = "only-here"  # a value of one row: leaving it out shrinks the value set
        X[5, 1] = None  # missing: left out of the product
    else:
        X = (rng.random((n, 8)) < np.where(y[:, None] == 1, 0.6, 0.3)).astype(float)
        if "binarize" in name:
            X = X * rng.random((n, 8)) * 2
    w = rng.integers(1, 4, n).astype(float)
    fast = cross_val_predict(make(), X, y, cv="loo", method="predict_log_proba", sample_weight=w)
    monkeypatch.setattr(_validate, "loo_folds", lambda *a, **k: None)  # the generic engine
    slow = cross_val_predict(make(), X, y, cv="loo", method="predict_log_proba", sample_weight=w)
    assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)
    for i in (0, 5, 17):  # and a real refit without the row
        keep = np.delete(np.arange(n), i)
        ref = make().fit(X[keep], y[keep], sample_weight=w[keep])
        assert_allclose(fast[i], ref.predict_log_proba(X[i : i + 1])[0], rtol=1e-10, atol=1e-12)
    scores = cross_validate(make(), X, y, cv=skm.LeaveOneOut(), scoring="neg_log_loss", sample_weight=w)["test_score"]
    assert_allclose(-scores, -np.log(np.clip(np.exp(fast[np.arange(n), np.searchsorted(np.unique(y), y)]),
                                             np.finfo(float).eps, 1 - np.finfo(float).eps)), rtol=1e-10)


def test_leave_one_out_equals_sklearn_and_falls_back_exactly(rng):
    n = 40
    y = rng.integers(0, 2, n)
    X = (rng.random((n, 6)) < 0.4).astype(float)
    a = cross_val_predict(nbayes.BernoulliNB(), X, y, cv=skm.LeaveOneOut(), method="predict_proba")
    b = skm.cross_val_predict(sknb.BernoulliNB(), X, y, cv=skm.LeaveOneOut(), method="predict_proba")
    assert_allclose(a, b, **TOL)
    y[0] = 2  # a class of one row: its own left-out model does not know it (generic engine)
    a = cross_val_predict(nbayes.BernoulliNB(), X, y, cv="loo", method="predict_proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = skm.cross_val_predict(sknb.BernoulliNB(), X, y, cv=skm.LeaveOneOut(), method="predict_proba")
    assert_allclose(a, b, **TOL)
