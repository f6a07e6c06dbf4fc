"""One counting pass gives every label's binary model exactly: against the base model fitted per
label on binary targets, and against scikit-learn's OneVsRestClassifier."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal

import nbayes
from nbayes import MultiLabel

TABULAR = [
    nbayes.MultinomialNB(alpha=0.5), nbayes.BernoulliNB(alpha=0.7), nbayes.ComplementNB(),
    nbayes.CategoricalNB(), nbayes.GaussianNB(), nbayes.MultinomialNB(fit_prior=False),
]
TEXT = [
    nbayes.TextClassifier(), nbayes.TextClassifier(model="bernoulli", alpha=0.3),
    nbayes.TextClassifier(model="complement"), nbayes.TextClassifier(binary=True, ngram_range=(1, 2)),
    nbayes.TextClassifier(n_features=64), nbayes.TextClassifier(min_df=2),
]


def clone(m):
    return type(m)(**m.get_params())


def per_label(base, X, Y, w=None):
    kw = {} if w is None else {"sample_weight": w}
    return np.column_stack([clone(base).fit(X, Y[:, l], **kw).predict_proba(X)[:, 1] for l in range(Y.shape[1])])


@pytest.mark.parametrize("base", TABULAR, ids=lambda m: repr(m))
@pytest.mark.parametrize("threshold", [0.5, "micro"])
def test_tabular_equals_per_label_fits(base, counts, threshold):
    X, Y = counts
    ml = MultiLabel(clone(base), threshold=threshold, cv=3).fit(X, Y)
    assert_allclose(ml.predict_proba(X), per_label(base, X, Y), rtol=1e-10, atol=1e-12)
    for l, m in enumerate(ml.estimators_):
        assert_allclose(m.predict_proba(X)[:, 1], ml.predict_proba(X)[:, l], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("base", TEXT, ids=lambda m: repr(m))
def test_text_equals_per_label_fits(base, texts):
    docs, tags = texts
    ml = MultiLabel(clone(base), cv=3).fit(docs, tags)
    Y = ml.predict(docs) * 0
    for i, t in enumerate(tags):
        for lab in t:
            Y[i, ml.classes_.tolist().index(lab)] = 1
    probe = docs + ["corn oil", "unknown words only", ""]
    assert_allclose(ml.predict_proba(probe), per_label(base, docs, Y) if False else np.column_stack(
        [clone(base).fit(docs, Y[:, l]).predict_proba(probe)[:, 1] for l in range(Y.shape[1])]), rtol=1e-10, atol=1e-12)


def test_sample_weight_equals_per_label_fits(counts):
    X, Y = counts
    w = np.random.RandomState(1).uniform(0.1, 3.0, len(X))
    ml = MultiLabel(nbayes.MultinomialNB(alpha=0.3), threshold=0.5).fit(X, Y, sample_weight=w)
    assert_allclose(ml.predict_proba(X), per_label(nbayes.MultinomialNB(alpha=0.3), X, Y, w), rtol=1e-10, atol=1e-12)


def test_same_as_sklearn_one_vs_rest(counts):
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.naive_bayes import MultinomialNB

    X, Y = counts
    sk = OneVsRestClassifier(MultinomialNB(alpha=0.5)).fit(X, Y)
    ml = MultiLabel(nbayes.MultinomialNB(alpha=0.5), threshold=0.5, empty="keep").fit(X, Y)
    assert_allclose(ml.predict_proba(X), sk.predict_proba(X), rtol=1e-10, atol=1e-12)
    assert_array_equal(ml.predict(X), sk.predict(X))
    assert ml.predict(X).dtype.kind == "i"
    assert_array_equal(ml.classes_, np.arange(4))


def test_label_lists_dense_and_sparse_indicators_agree(counts):
    X, Y = counts
    names = np.array(["a", "b", "c", "d"])
    lists = [names[np.flatnonzero(r)].tolist() for r in Y]
    p = [MultiLabel(nbayes.MultinomialNB(), threshold=0.5).fit(X, y).predict_proba(X)
         for y in (Y, sp.csr_matrix(Y), Y.astype(bool), lists)]
    for q in p[1:]:
        assert_allclose(q, p[0], rtol=0, atol=0)
    ml = MultiLabel(nbayes.MultinomialNB(), threshold=0.5).fit(X, lists)
    assert ml.classes_.tolist() == ["a", "b", "c", "d"]
    assert ml.predict_labels(X) == [names[np.flatnonzero(r)].tolist() for r in ml.predict(X)]


def test_a_label_named_twice_in_a_row_is_one_label(texts):
    docs, tags = texts
    twice = [t + t[:1] for t in tags]
    a = MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, tags)
    b = MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, twice)
    assert_allclose(a.predict_proba(docs), b.predict_proba(docs), rtol=0, atol=0)


def test_top_k_and_empty_rows(counts):
    X, Y = counts
    ml = MultiLabel(nbayes.MultinomialNB(), top_k=2).fit(X, Y)
    assert (ml.predict(X).sum(axis=1) == 2).all()
    P = ml.predict_proba(X)
    top = np.sort(np.argsort(-P, axis=1, kind="stable")[:, :2], axis=1)
    assert_array_equal(np.sort(np.nonzero(ml.predict(X))[1].reshape(-1, 2), axis=1), top)
    keep = MultiLabel(nbayes.MultinomialNB(), threshold=0.99, empty="keep").fit(X, Y)
    top1 = MultiLabel(nbayes.MultinomialNB(), threshold=0.99, empty="top1").fit(X, Y)
    assert (keep.predict(X).sum(axis=1) == 0).any()
    assert (top1.predict(X).sum(axis=1) >= 1).all()
    auto = MultiLabel(nbayes.MultinomialNB(), threshold=0.99).fit(X, Y)  # no empty training row: top1
    assert_array_equal(auto.predict(X), top1.predict(X))


def test_explain_per_label(texts):
    docs, tags = texts
    ml = MultiLabel(nbayes.TextClassifier()).fit(docs, tags)
    e = ml.explain("corn and wheat", label="corn")
    ref = nbayes.TextClassifier().fit(docs, [int("corn" in t) for t in tags]).explain("corn and wheat")
    assert e.tokens == ref.tokens
    assert_allclose(np.asarray(e.contributions), np.asarray(ref.contributions), rtol=1e-10)
    assert set(ml.explain("corn and wheat")) == set(ml.classes_.tolist())
    tab = MultiLabel(nbayes.MultinomialNB(), threshold=0.5).fit(np.eye(4) + 1, [[0], [1], [0, 1], [1]])
    assert_allclose(tab.explain(np.eye(4), label=1).joint(), tab.estimator_for(1).predict_joint_log_proba(np.eye(4)))
    assert set(tab.top_features(2)) == {0, 1}


def test_nblr_equals_per_label_fits_and_restores_the_threads(texts):
    """Each label's NBLR is TextClassifier(model="nblr") fitted on that label alone (solved on
    one thread, whatever the caller's setting, which is restored)."""
    from nbayes._kernels import threads

    docs, tags = texts
    before = threads()
    base = nbayes.TextClassifier(model="nblr", C=2.0)
    ml = MultiLabel(base, threshold=0.5).fit(docs, tags)
    assert threads() == before
    Y = np.array([[int(c in t) for c in ml.classes_] for t in tags])
    assert_allclose(ml.predict_proba(docs), per_label(base, docs, Y), rtol=1e-6, atol=1e-8)


def test_nblr_fold_fits_start_warm_and_thresholds_help(texts):
    """Tuned NBLR thresholds come from fold fits started at the full fit's coefficients: the
    out-of-fold scores equal cold fold fits (to the solver's tolerance)."""
    from nbayes.multilabel import read_labels
    from nbayes.multilabel._nblr import fit_labels, out_of_fold, presence

    docs, tags = texts
    Y, _ = read_labels(tags, len(docs))
    X01 = presence(nbayes.TextClassifier().fit(docs, np.zeros(len(docs), int)).transform(docs))
    opts = {"alpha": 1.0, "C": 1.0, "beta": 0.25}
    _, _, raw = fit_labels(X01, Y, None, **opts)
    train = np.arange(8)
    Ww, bw, _ = fit_labels(X01[train], Y[train], None, start=raw, **opts)
    Wc, bc, _ = fit_labels(X01[train], Y[train], None, **opts)
    assert_allclose(X01 @ Ww + bw, X01 @ Wc + bc, rtol=1e-3, atol=1e-3)
    # the fold fits (looser tolerance FOLD_TOL: they only place thresholds) near tight cold fits
    splits = [(np.arange(4, 12), np.arange(4)), (np.r_[0:4, 8:12], np.arange(4, 8)), (np.arange(8), np.arange(8, 12))]
    oof = out_of_fold(X01, Y, None, splits, raw, 1.0, 1.0, 0.25)
    for train, test in splits:
        Wt, bt, _ = fit_labels(X01[train], Y[train], None, tol=1e-8, **opts)
        assert_allclose(oof[test], X01[test] @ Wt + bt, rtol=1e-2, atol=1e-2)
    ml = MultiLabel(nbayes.TextClassifier(model="nblr"), cv=3).fit(docs, tags)
    assert ml.thresholds_.shape == (len(ml.classes_),) and np.all(np.isfinite(ml.thresholds_))


@pytest.mark.parametrize("threshold", [0.5, "micro"])
def test_mixed_columns_naive_bayes_equals_per_label_fits_and_learns_saves_merges(tmp_path, threshold):
    """NaiveBayes over mixed columns (the CLI's table model): the per-label models keep the
    column kinds read from the input, through fit, partial_fit, save / load and merge."""
    pl = pytest.importorskip("polars")
    rng = np.random.RandomState(5)
    n = 40
    X = pl.DataFrame({"age": rng.normal(40, 10, n).round(1), "colour": rng.choice(["red", "blue", "green"], n),
                      "smoker": rng.rand(n) < 0.4})
    Y = (rng.rand(n, 3) < 0.4).astype(int)
    Y[Y.sum(1) == 0, 0] = 1
    ml = MultiLabel(nbayes.NaiveBayes(), threshold=threshold, cv=3).fit(X, Y)
    assert_allclose(ml.predict_proba(X), per_label(nbayes.NaiveBayes(), X, Y), rtol=1e-10, atol=1e-12)
    ml.save(tmp_path / "m.nbm")
    loaded = nbayes.load(tmp_path / "m.nbm")
    assert_allclose(loaded.predict_proba(X), ml.predict_proba(X), rtol=0, atol=1e-14)
    loaded.partial_fit(X[:10], Y[:10])
    assert_allclose(loaded.predict_proba(X), per_label(nbayes.NaiveBayes(), pl.concat([X, X[:10]]),
                                                       np.vstack([Y, Y[:10]]))[:n], rtol=1e-10, atol=1e-12)
    merged = ml.merge(MultiLabel(nbayes.NaiveBayes(), threshold=threshold, cv=3).fit(X[:10], Y[:10]))
    assert_allclose(merged.predict_proba(X), loaded.predict_proba(X), rtol=1e-10, atol=1e-12)
