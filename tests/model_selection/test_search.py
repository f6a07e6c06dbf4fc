"""SearchCV: scores equal GridSearchCV's; estimation-only settings are re-estimated, not recounted."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes.errors import InvalidParameterError, NotFittedError
from nbayes.model_selection import SearchCV

skm = pytest.importorskip("sklearn.model_selection")
sknb = pytest.importorskip("sklearn.naive_bayes")


def _assert_same_results(ours, theirs, names=None):
    a, b = ours.cv_results_, theirs.cv_results_
    assert len(a["params"]) == len(b["params"])
    for i in range(ours.n_splits_):
        assert_allclose(a[f"split{i}_test_score"], b[f"split{i}_test_score"], rtol=1e-9, atol=1e-12)
    assert_allclose(a["mean_test_score"], b["mean_test_score"], rtol=1e-9, atol=1e-12)
    assert np.array_equal(a["rank_test_score"], b["rank_test_score"])
    rename = names or {}
    assert [{rename.get(k, k): v for k, v in p.items()} for p in a["params"]] == b["params"]


def test_multinomial_grid_equals_gridsearchcv(rng):
    y = rng.integers(0, 3, 150)
    X = rng.poisson(1.0, (150, 8)).astype(float)
    X[:, :6] += np.eye(3)[y].repeat(2, axis=1)
    grid = {"alpha": [0.01, 0.1, 1.0, 3.0], "fit_prior": [True, False]}
    for scoring in (None, "neg_log_loss"):
        ours = SearchCV(nbayes.MultinomialNB(), grid, cv=5, scoring=scoring).fit(X, y)
        theirs = skm.GridSearchCV(sknb.MultinomialNB(), grid, cv=5, scoring=scoring).fit(X, y)
        _assert_same_results(ours, theirs)
        assert ours.best_params_ == theirs.best_params_
        assert ours.best_score_ == pytest.approx(theirs.best_score_, rel=1e-12)
        best = nbayes.MultinomialNB(**ours.best_params_).fit(X, y)
        assert_allclose(ours.best_estimator_.feature_log_prob_, best.feature_log_prob_, rtol=1e-12)
        assert_allclose(ours.predict_proba(X), best.predict_proba(X), rtol=1e-12)
        assert ours.score(X, y) == pytest.approx(theirs.score(X, y), rel=1e-12)  # the search's scorer


def test_gaussian_and_categorical_grids(rng):
    y = rng.integers(0, 2, 120)
    X = rng.normal(size=(120, 3)) + y[:, None]
    grid = {"var_smoothing": [1e-9, 1e-3, 1e-1, 1.0]}
    _assert_same_results(SearchCV(nbayes.GaussianNB(), grid, cv=4).fit(X, y),
                         skm.GridSearchCV(sknb.GaussianNB(), grid, cv=4).fit(X, y))
    Xc = (rng.integers(0, 3, (120, 4)) + y[:, None]) % 4
    grid = [{"alpha": [0.1, 1.0]}, {"alpha": [2.0], "fit_prior": [False]}]
    _assert_same_results(
        SearchCV(nbayes.CategoricalNB(min_categories=4), grid, cv=skm.KFold(3, shuffle=True, random_state=0)).fit(Xc, y),
        skm.GridSearchCV(sknb.CategoricalNB(min_categories=4), grid, cv=skm.KFold(3, shuffle=True, random_state=0)).fit(Xc, y),
    )


def test_bernoulli_binarize_counts_once_per_value(rng, monkeypatch):
    y = rng.integers(0, 2, 100)
    X = rng.random((100, 6)) + 0.3 * y[:, None]
    grid = {"binarize": [0.3, 0.6], "alpha": [0.1, 0.5, 1.0]}
    counted = []
    original = nbayes.BernoulliNB.count_statistics

    def spy(self, *args, **kwargs):
        counted.append(self.binarize)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(nbayes.BernoulliNB, "count_statistics", spy)
    ours = SearchCV(nbayes.BernoulliNB(), grid, cv=4).fit(X, y)
    theirs = skm.GridSearchCV(sknb.BernoulliNB(), grid, cv=4).fit(X, y)
    _assert_same_results(ours, theirs)
    # one count per held-out fold per binarize value, none per alpha
    assert sorted(counted) == [0.3] * 4 + [0.6] * 4


def test_text_grid_equals_pipeline_search():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(60)]
    y = rng.integers(0, 3, 90)
    docs = [" ".join(rng.choice(words[: 20 + 20 * c], 12)) for c in y]
    grid = {"alpha": [0.05, 0.5], "ngram_range": [(1, 1), (1, 2)], "min_df": [1, 2]}
    ours = SearchCV(nbayes.TextClassifier(), grid, cv=3).fit(docs, y)
    theirs = skm.GridSearchCV(
        make_pipeline(CountVectorizer(), sknb.MultinomialNB()),
        {"multinomialnb__alpha": grid["alpha"], "countvectorizer__ngram_range": grid["ngram_range"],
         "countvectorizer__min_df": grid["min_df"]}, cv=3,
    ).fit(docs, y)
    a, b = ours.cv_results_, theirs.cv_results_
    key = lambda p: (p["alpha"], p["min_df"], p["ngram_range"])  # noqa: E731
    keyb = lambda p: (p["multinomialnb__alpha"], p["countvectorizer__min_df"], p["countvectorizer__ngram_range"])  # noqa: E731
    ia = np.argsort([str(key(p)) for p in a["params"]])
    ib = np.argsort([str(keyb(p)) for p in b["params"]])
    assert_allclose(a["mean_test_score"][ia], b["mean_test_score"][ib], rtol=1e-12)
    assert ours.best_estimator_.predict(docs[:5]).tolist() == nbayes.TextClassifier(**ours.best_params_).fit(docs, y).predict(docs[:5]).tolist()


def test_table_and_errors(rng):
    y = rng.integers(0, 2, 60)
    X = rng.poisson(1.0, (60, 4)).astype(float)
    search = SearchCV(nbayes.MultinomialNB(), {"alpha": [0.1, 1.0, 10.0]}, cv=3)
    with pytest.raises(NotFittedError):
        search.predict(X)
    rows = search.fit(X, y).table()
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    assert {r["alpha"] for r in rows} == {0.1, 1.0, 10.0}
    with pytest.raises(InvalidParameterError, match="no hyperparameter 'alpah'"):
        SearchCV(nbayes.MultinomialNB(), {"alpah": [1.0]}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="alpha"):
        SearchCV(nbayes.MultinomialNB(), {"alpha": [-1.0]}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="must be a list"):
        SearchCV(nbayes.MultinomialNB(), {"alpha": 1.0}).fit(X, y)
    with pytest.raises(InvalidParameterError, match="refit"):
        SearchCV(nbayes.MultinomialNB(), {"alpha": [1.0]}, scoring=["accuracy", "neg_log_loss"]).fit(X, y)
    multi = SearchCV(nbayes.MultinomialNB(), {"alpha": [0.1, 1.0]}, scoring=["accuracy", "neg_log_loss"],
                     refit="neg_log_loss").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = skm.GridSearchCV(sknb.MultinomialNB(), {"alpha": [0.1, 1.0]}, scoring=["accuracy", "neg_log_loss"],
                                  refit="neg_log_loss").fit(X, y)
    for k in ("mean_test_accuracy", "mean_test_neg_log_loss", "rank_test_neg_log_loss"):
        assert_allclose(multi.cv_results_[k], theirs.cv_results_[k], rtol=1e-12)
    assert multi.best_params_ == theirs.best_params_


def test_logistic_regression_search_refits(rng):
    y = rng.integers(0, 2, 80)
    X = rng.normal(size=(80, 3)) + y[:, None]
    search = SearchCV(nbayes.LogisticRegression(), {"C": [0.1, 1.0]}, cv=3).fit(X, y)
    folds = list(skm.StratifiedKFold(3).split(X, y))
    for c, C in enumerate([0.1, 1.0]):
        for i, (tr, te) in enumerate(folds):
            want = nbayes.LogisticRegression(C=C).fit(X[tr], y[tr]).score(X[te], y[te])
            assert search.cv_results_[f"split{i}_test_score"][c] == pytest.approx(want, abs=1e-12)


def test_estimation_settings_equal_refits_per_fold(rng):
    """Settings with no scikit-learn twin (ddof, variance, m-estimates, class_alpha): each
    candidate's split score equals a fit of that candidate on the split's training rows."""
    y = rng.integers(0, 3, 120)
    Xg = rng.normal(size=(120, 3)) + y[:, None]
    Xc = (rng.integers(0, 3, (120, 4)) + y[:, None]) % 4
    cases = [
        (nbayes.GaussianNB(), {"ddof": [0, 1], "variance": ["class_feature", "feature", "pooled"]}, Xg),
        (nbayes.CategoricalNB(), {"m": [0.5, 4.0], "class_alpha": [0.0, 2.0]}, Xc),
    ]
    folds = list(skm.StratifiedKFold(4, shuffle=True, random_state=0).split(Xg, y))
    for model, grid, X in cases:
        search = SearchCV(model, grid, cv=folds, scoring="neg_log_loss").fit(X, y)
        for c, params in enumerate(search.cv_results_["params"]):
            for i, (tr, te) in enumerate(folds):
                ref = type(model)(**params).fit(X[tr], y[tr])
                want = -np.mean(-np.log(np.clip(ref.predict_proba(X[te])[np.arange(len(te)), y[te]], 1e-16, 1)))
                assert search.cv_results_[f"split{i}_test_score"][c] == pytest.approx(want, rel=1e-9)


def test_a_grid_over_text_models_routes_each_candidate_to_its_engine():
    """nblr is fitted per fold; the counting models share one count; results equal refits."""
    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(40)]
    y = rng.integers(0, 2, 80)
    docs = [" ".join(rng.choice(words[: 20 + 20 * c], 10)) for c in y]
    folds = list(skm.StratifiedKFold(3, shuffle=True, random_state=0).split(docs, y))
    search = SearchCV(nbayes.TextClassifier(), {"model": ["multinomial", "nblr", "bernoulli"], "alpha": [0.1, 1.0]},
                      cv=folds, scoring="neg_log_loss").fit(docs, y)
    for c, params in enumerate(search.cv_results_["params"]):
        for i, (tr, te) in enumerate(folds):
            ref = nbayes.TextClassifier(**params).fit([docs[j] for j in tr], y[tr])
            p = ref.predict_proba([docs[j] for j in te])[np.arange(len(te)), y[te]]
            want = np.mean(np.log(np.clip(p, np.finfo(float).eps, 1 - np.finfo(float).eps)))
            assert search.cv_results_[f"split{i}_test_score"][c] == pytest.approx(want, rel=1e-9), params


def test_text_folds_hold_class_term_pairs_and_let_each_split_go():
    """Issue #29: fold statistics as the (class, term) pairs seen, never dense classes x terms
    tables, and a search lets go of a split's statistics once every candidate has scored it."""
    import scipy.sparse as sp

    from nbayes.model_selection import StratifiedKFold
    from nbayes.model_selection._folds import folds_for

    rng = np.random.default_rng(1)
    words = [f"w{i}" for i in range(200)]
    y = rng.integers(0, 4, 120)
    docs = [" ".join(rng.choice(words[: 50 + 40 * c], 15)) for c in y]
    splits = list(StratifiedKFold(5).split(docs, y))
    engine = folds_for(nbayes.TextClassifier(ngram_range=(1, 2)), docs, y, splits, None, {})
    engine.reuse = True
    stats, _ = engine.train_stats(0)
    assert sp.issparse(stats.term_count) and sp.issparse(stats.doc_count)
    assert stats.term_count.nnz < 0.5 * np.prod(stats.term_count.shape)  # pairs seen, not every pair
    dense = nbayes.TextClassifier(ngram_range=(1, 2)).fit([docs[i] for i in splits[0][0]], y[splits[0][0]])
    lp, _, _ = engine.log_proba({}, 0)
    assert_allclose(lp, dense.predict_log_proba([docs[i] for i in splits[0][1]]), rtol=1e-10)
    engine.forget(0)
    assert 0 not in engine.__dict__.get("_train", {})
    search = SearchCV(nbayes.TextClassifier(), {"alpha": [0.1, 1.0], "ngram_range": [(1, 1), (1, 2)]}, cv=splits)
    search.fit(docs, y)
    refit = nbayes.TextClassifier(**search.best_params_).fit(docs, y)
    assert_allclose(search.best_estimator_.predict_log_proba(docs), refit.predict_log_proba(docs), rtol=1e-10)
