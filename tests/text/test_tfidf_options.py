"""tf-idf options of TextClassifier and Vectorizer beyond the counts: ``use_idf=False`` (tf and the
unit L2 length of each document, no idf) and ``binary=True`` (tf 1 for a term a document holds),
as scikit-learn's ``TfidfVectorizer(use_idf=..., binary=...)``; Rennie et al. (2003)'s length
normalisation without idf weights for complement NB."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.naive_bayes import ComplementNB, MultinomialNB

import nbayes
from nbayes.errors import InvalidParameterError, MergeError
from nbayes.model_selection import SearchCV
from nbayes.text import Vectorizer

DOCS = [
    "cheap cheap cheap pills now", "cheap offers, buy now now", "meeting at noon about the budget",
    "lunch meeting at noon", "the cat and the dog sat", "a naïve cat sat in Zürich; the CAT sat!",
    "budget budget review meeting", "pills and offers for the cat", "", "x y z",
]
LABELS = ["spam", "spam", "ham", "ham", "pets", "pets", "ham", "spam", "ham", "pets"]
TEST = ["cheap lunch pills", "a naïve cat", "", "budget offers offers offers"]
SETTINGS = [
    dict(use_idf=False), dict(use_idf=False, sublinear_tf=True), dict(binary=True),
    dict(binary=True, use_idf=False), dict(binary=True, use_idf=False, ngram_range=(1, 2)),
    dict(binary=True, smooth_idf=False, min_df=2),
]


def _closed_form(docs, vocab, idf, binary, sublinear):
    """tf (1, or 1 + ln tf) times idf, scaled to unit L2 length: the rows written out."""
    col = {t: j for j, t in enumerate(vocab)}
    X = np.zeros((len(docs), len(vocab)))
    for i, d in enumerate(docs):
        for t in d:
            if t in col:
                X[i, col[t]] += 1.0
    if binary:
        tf = np.where(X > 0, 1.0, 0.0)
    else:
        tf = np.where(X > 0, 1.0 + np.log(np.maximum(X, 1.0)), 0.0) if sublinear else X
    W = tf * idf
    n = np.linalg.norm(W, axis=1, keepdims=True)
    return W / np.where(n > 0, n, 1.0)


def test_rows_equal_the_closed_form():
    docs = [["a", "a", "b"], ["b", "c", "c", "c"], ["d"]]
    texts = [" ".join(w + w for w in d) for d in docs]  # two-letter tokens: aa aa bb ...
    for binary, use_idf, sublinear in [(True, False, False), (False, False, True), (True, True, False)]:
        v = Vectorizer(tfidf=True, binary=binary, use_idf=use_idf, sublinear_tf=sublinear).fit(texts)
        vocab = [t[0] for t in v.get_feature_names_out()]
        df = np.array([sum(t in d for d in docs) for t in vocab])
        idf = np.log(4.0 / (1.0 + df)) + 1.0 if use_idf else np.ones(len(vocab))
        assert_allclose(v.transform(texts).toarray(), _closed_form(docs, vocab, idf, binary, sublinear), rtol=1e-12)


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
def test_vectorizer_equals_tfidf_vectorizer(settings):
    ours = Vectorizer(tfidf=True, **settings).fit(DOCS)
    theirs = TfidfVectorizer(**settings).fit(DOCS)
    assert ours.get_feature_names_out().tolist() == theirs.get_feature_names_out().tolist()
    assert_allclose(ours.transform(TEST + DOCS).toarray(), theirs.transform(TEST + DOCS).toarray(),
                    rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("settings", SETTINGS, ids=str)
@pytest.mark.parametrize("model,ref", [("complement", ComplementNB), ("multinomial", MultinomialNB)])
@pytest.mark.parametrize("norm", [False, True])
def test_classifier_equals_pipeline_and_survives_a_file(tmp_path, settings, model, ref, norm):
    if norm and model == "multinomial":
        pytest.skip("norm is complement NB's")
    extra = {"norm": True} if norm else {}
    clf = nbayes.TextClassifier(model=model, alpha=0.1, tfidf=True, **extra, **settings).fit(DOCS, LABELS)
    tv = TfidfVectorizer(**settings)
    sk = ref(alpha=0.1, **extra).fit(tv.fit_transform(DOCS), LABELS)
    assert_allclose(clf.predict_joint_log_proba(TEST), sk.predict_joint_log_proba(tv.transform(TEST)),
                    rtol=1e-9, atol=1e-12)
    assert_allclose(clf.predict_proba(DOCS), sk.predict_proba(tv.transform(DOCS)), rtol=1e-9, atol=1e-12)
    clf.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    assert back.get_params()["use_idf"] == settings.get("use_idf", True)
    assert back.get_params()["binary"] == settings.get("binary", False)
    assert_array_equal(back.predict_proba(TEST), clf.predict_proba(TEST))
    # explanations add up to the log-odds of the winner against the runner-up
    for text in TEST[:2] + ["cheap cheap cheap offers"]:
        e = clf.explain(text)
        jll = np.sort(clf.predict_joint_log_proba([text])[0])
        assert_allclose(sum(e.contributions) + e.baseline, jll[-1] - jll[-2], rtol=1e-9, atol=1e-9)


def test_search_re_estimates_each_setting():
    """SearchCV's cached tf-idf sums are keyed by every setting that shapes them."""
    grid = {"tfidf": [True], "model": ["complement", "multinomial"], "use_idf": [True, False],
            "binary": [True, False], "sublinear_tf": [True, False]}
    docs, y = DOCS * 3, np.array(LABELS * 3)
    splits = [(np.arange(0, 20), np.arange(20, 30)), (np.arange(10, 30), np.arange(0, 10))]
    res = SearchCV(nbayes.TextClassifier(alpha=0.2), grid, cv=splits, refit=False,
                   scoring="neg_log_loss").fit(docs, y).cv_results_
    for params, score in zip(res["params"], res["mean_test_score"]):
        each = []
        for fit, test in splits:
            m = nbayes.TextClassifier(alpha=0.2, **params).fit([docs[i] for i in fit], y[fit])
            p = m.predict_proba([docs[i] for i in test])
            idx = np.searchsorted(m.classes_, y[test])
            each.append(np.mean(np.log(p[np.arange(len(test)), idx])))
        assert_allclose(score, np.mean(each), rtol=1e-9, err_msg=str(params))
    assert len({round(s, 9) for s in res["mean_test_score"]}) > 8  # the settings do differ
    # refit from the total statistics: the model a fit of that setting gives
    best = SearchCV(nbayes.TextClassifier(alpha=0.2), {"tfidf": [True], "binary": [True], "use_idf": [False],
                                                      "model": ["complement"], "norm": [True]}, cv=splits).fit(docs, y)
    direct = nbayes.TextClassifier(alpha=0.2, **best.best_params_).fit(docs, y)
    assert_allclose(best.best_estimator_.predict_proba(TEST), direct.predict_proba(TEST), rtol=1e-12)


def test_use_idf_is_checked_and_streams_through_a_frozen_idf_of_ones():
    with pytest.raises(InvalidParameterError, match="use_idf"):
        nbayes.TextClassifier(tfidf=True, use_idf="no").fit(DOCS, LABELS)
    fitted = nbayes.TextClassifier(tfidf=True, use_idf=False, model="complement").fit(DOCS, LABELS)
    assert set(fitted.idf_.values()) == {1.0}
    with pytest.raises(InvalidParameterError, match="use_idf=False"):
        nbayes.TextClassifier(tfidf=True, use_idf=False, idf=fitted.idf_).fit(DOCS, LABELS)
    with pytest.raises(InvalidParameterError, match="do not add up"):
        fitted.partial_fit(DOCS, LABELS)
    # the same model, streamed: a frozen idf of ones
    streamed = nbayes.TextClassifier(tfidf=True, idf=fitted.idf_, model="complement")
    streamed.partial_fit(DOCS[:5], LABELS[:5], classes=sorted(set(LABELS))).partial_fit(DOCS[5:], LABELS[5:])
    assert_allclose(streamed.predict_proba(TEST), fitted.predict_proba(TEST), rtol=1e-12)


def test_merge_refuses_binary_against_counts():
    idf = nbayes.TextClassifier(tfidf=True).fit(DOCS, LABELS).idf_
    a = nbayes.TextClassifier(tfidf=True, idf=idf, binary=True).fit(DOCS[:5], LABELS[:5])
    b = nbayes.TextClassifier(tfidf=True, idf=idf).fit(DOCS[5:], LABELS[5:])
    with pytest.raises(MergeError, match="binary"):
        a.merge(b)
    c = nbayes.TextClassifier(tfidf=True, idf=idf, binary=True).fit(DOCS[5:], LABELS[5:])
    whole = nbayes.TextClassifier(tfidf=True, idf=idf, binary=True).fit(DOCS, LABELS)
    assert_allclose(a.merge(c).predict_proba(TEST), whole.predict_proba(TEST), rtol=1e-12)


def test_tfidf_still_refuses_hashing():
    with pytest.raises(InvalidParameterError, match="vocabulary mode"):
        nbayes.TextClassifier(tfidf=True, n_features=64).fit(DOCS, LABELS)
