"""TextClassifier(model="nblr"): Wang & Manning's NB-scaled logistic regression, by the book."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from scipy.special import expit

import nbayes
from nbayes.errors import InvalidParameterError, MergeError

WORDS = "good great fun fine bad awful boring dull plot movie actor scene".split()


def corpus(rng, n=120, K=2):
    y = rng.integers(0, K, n)
    docs = []
    for c in y:
        k = rng.integers(2, 9)
        bias = rng.random(k) < 0.6
        own = [WORDS[(4 * c + rng.integers(0, 4)) % 8] for _ in range(k)]
        other = [WORDS[rng.integers(0, len(WORDS))] for _ in range(k)]
        docs.append(" ".join(o if b else t for o, t, b in zip(own, other, bias)))
    return docs, np.array(["neg", "pos", "mid"])[y]


def test_binary_model_is_the_papers_recipe(rng):
    docs, y = corpus(rng)
    clf = nbayes.TextClassifier(model="nblr", C=0.5, nb_interpolation=0.25).fit(docs, y)
    vec = nbayes.text.Vectorizer(binary=True)
    X = vec.fit_transform(docs)
    assert list(vec.vocabulary_) == list(clf.vocabulary_)
    pos = y == "pos"
    p = np.asarray(X[pos].sum(axis=0)).ravel() + 1.0
    q = np.asarray(X[~pos].sum(axis=0)).ravel() + 1.0
    r = np.log(p / p.sum()) - np.log(q / q.sum())
    lr = nbayes.LogisticRegression(C=0.5).fit(X @ sp.diags(r), pos.astype(int))
    w = 0.75 * np.mean(np.abs(lr.coef_[0])) + 0.25 * lr.coef_[0]
    z = np.asarray(X @ sp.diags(r) @ w)
    # the refitted intercept is the maximum-likelihood one: the score's gradient is zero there
    b = clf._intercept[1] - clf._intercept[0]
    assert abs(np.sum(expit(z + b) - pos)) < 1e-8
    # the same optimum to the solver's tolerance (the model solves on the scaled presence
    # pattern, LogisticRegression on the CSR matrix: rounding steers their last steps apart)
    assert_allclose(clf.predict_proba(docs)[:, 1], expit(z + b), rtol=1e-7)
    assert clf.score(docs, y) > 0.8


def test_plain_logistic_on_scaled_features_when_beta_is_one(rng):
    docs, y = corpus(rng)
    clf = nbayes.TextClassifier(model="nblr", nb_interpolation=1.0).fit(docs, y)
    X = nbayes.text.Vectorizer(binary=True).fit_transform(docs)
    pos = y == "pos"
    p = np.asarray(X[pos].sum(axis=0)).ravel() + 1.0
    q = np.asarray(X[~pos].sum(axis=0)).ravel() + 1.0
    r = np.log(p / p.sum()) - np.log(q / q.sum())
    lr = nbayes.LogisticRegression().fit(X @ sp.diags(r), pos.astype(int))
    assert_allclose(clf.predict_proba(docs)[:, 1], lr.predict_proba(X @ sp.diags(r))[:, 1], rtol=1e-7)


def test_multiclass_explain_and_file(rng, tmp_path):
    docs, y = corpus(rng, K=3)
    clf = nbayes.TextClassifier(model="nblr", ngram_range=(1, 2)).fit(docs, y)
    proba = clf.predict_proba(docs)
    assert proba.shape == (len(docs), 3)
    assert_allclose(proba.sum(axis=1), 1.0)
    e = clf.explain(docs[0])
    jll = clf.predict_joint_log_proba([docs[0]])[0]
    ia = clf.classes_.tolist().index(e.predicted)
    ib = clf.classes_.tolist().index(e.runner_up)
    assert_allclose(e.contributions.sum() + e.baseline, jll[ia] - jll[ib], rtol=1e-9)
    clf.save(tmp_path / "nblr.nbm")
    back = nbayes.load(tmp_path / "nblr.nbm")
    assert_allclose(back.predict_proba(docs), proba, rtol=0, atol=0)


def test_not_a_sum_of_statistics(rng):
    docs, y = corpus(rng)
    clf = nbayes.TextClassifier(model="nblr").fit(docs, y)
    with pytest.raises(InvalidParameterError, match="partial_fit is not exact"):
        clf.partial_fit(docs, y)
    with pytest.raises(InvalidParameterError, match="unlearn"):
        clf.unlearn(docs[:3], y[:3])
    with pytest.raises(MergeError, match="merge"):
        clf.merge(clf)
    with pytest.raises(InvalidParameterError, match="tfidf"):
        nbayes.TextClassifier(model="nblr", tfidf=True).fit(docs, y)
    with pytest.raises(InvalidParameterError, match="'C'"):
        nbayes.TextClassifier(model="nblr", C=0).fit(docs, y)
    with pytest.raises(InvalidParameterError, match="nb_interpolation"):
        nbayes.TextClassifier(model="nblr", nb_interpolation=1.5).fit(docs, y)


@pytest.mark.parametrize("kw", [{}, {"ngram_range": (1, 2), "stop_words": "english"}, {"n_features": 64},
                                {"n_features": 64, "min_df": 3}])
def test_presence_rows_from_tokenising_equal_the_presence_matrix(rng, kw):
    from nbayes.text.nblr import keep_columns

    docs, y = corpus(rng)
    docs = docs + ["the plot and the actor", "", "unknown words only", "fun fun fun"]
    clf = nbayes.TextClassifier(model="nblr", **kw).fit(docs[:100], y[:100])
    d, _ = clf.prepare_input(docs, fitting=False)
    indptr, indices = clf._table.presence(d.buf, d.bounds, d.table)
    X = clf._counts(clf._table, d, True)
    if "min_df" in kw:
        indptr, indices = keep_columns((indptr, indices), clf._keep)
        X = X[:, clf._keep].tocsr()
        X.sort_indices()
    np.testing.assert_array_equal(indptr, X.indptr)
    np.testing.assert_array_equal(indices, X.indices)


@pytest.mark.parametrize("kw", [{}, {"ngram_range": (1, 2)}, {"n_features": 64}])
def test_presence_rows_on_threads_equal_one_thread(rng, monkeypatch, kw):
    """Ranges of documents tokenised on threads and joined: the same CSR arrays."""
    from nbayes._kernels import text_pairs

    docs, y = corpus(rng, n=300)
    docs = docs + ["", "unknown words only"] + docs[:5]
    clf = nbayes.TextClassifier(model="nblr", **kw).fit(docs[:200], y[:200])
    d, _ = clf.prepare_input(docs, fitting=False)
    one = clf._table.presence(d.buf, d.bounds, d.table)
    monkeypatch.setattr(text_pairs, "_PARALLEL_CHARS", 0)
    for T in (2, 3, 7):
        monkeypatch.setattr(text_pairs, "threads", lambda T=T: T)
        many = clf._table.presence(d.buf, d.bounds, d.table)
        np.testing.assert_array_equal(many[0], one[0])
        np.testing.assert_array_equal(many[1], one[1])
