"""TextClassifier cross-validation from one document-term count equals scikit-learn pipelines."""

from __future__ import annotations

import gzip
import json
from importlib import resources

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes._scipy import sparse as sp
from nbayes.model_selection import SearchCV, cross_val_predict, cross_validate

skm = pytest.importorskip("sklearn.model_selection")
sknb = pytest.importorskip("sklearn.naive_bayes")
sktext = pytest.importorskip("sklearn.feature_extraction.text")
from sklearn.pipeline import make_pipeline  # noqa: E402


@pytest.fixture(scope="module")
def sms():
    """UCI SMS spam, shipped with the package: 5,574 messages."""
    raw = resources.files("nbayes").joinpath("data", "sms_spam.jsonl.gz").read_bytes()
    rows = [json.loads(line) for line in gzip.decompress(raw).decode("utf-8").splitlines() if line]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


CONFIGS = [
    (dict(alpha=0.5), lambda: (sktext.CountVectorizer(), sknb.MultinomialNB(alpha=0.5))),
    (dict(model="complement", alpha=0.3, min_df=2, max_df=0.5),
     lambda: (sktext.CountVectorizer(min_df=2, max_df=0.5), sknb.ComplementNB(alpha=0.3))),
    (dict(model="bernoulli", alpha=0.1, ngram_range=(1, 2)),
     lambda: (sktext.CountVectorizer(binary=True, ngram_range=(1, 2)), sknb.BernoulliNB(alpha=0.1))),
    (dict(binary=True, stop_words="english", alpha=0.2),
     lambda: (sktext.CountVectorizer(binary=True, stop_words="english"), sknb.MultinomialNB(alpha=0.2))),
    (dict(tfidf=True, sublinear_tf=True, alpha=0.05, ngram_range=(1, 2)),
     lambda: (sktext.TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2)), sknb.MultinomialNB(alpha=0.05))),
    (dict(tfidf=True, model="complement", smooth_idf=False, min_df=3, alpha=0.1),
     lambda: (sktext.TfidfVectorizer(smooth_idf=False, min_df=3), sknb.ComplementNB(alpha=0.1))),
]


@pytest.mark.parametrize("params,pipeline", CONFIGS, ids=lambda p: str(p) if isinstance(p, dict) else "")
def test_text_cross_val_predict_equals_pipeline(sms, params, pipeline):
    docs, y = sms
    docs, y = docs[:2500], y[:2500]
    cv = skm.StratifiedKFold(4, shuffle=True, random_state=0)
    ours = cross_val_predict(nbayes.TextClassifier(**params), docs, y, cv=cv, method="predict_proba")
    theirs = skm.cross_val_predict(make_pipeline(*pipeline()), docs, y, cv=cv, method="predict_proba")
    assert_allclose(ours, theirs, rtol=1e-8, atol=1e-10)


def test_text_weights_hashing_and_max_features_equal_refits(sms):
    """Settings scikit-learn's pipelines spell differently: against our own model refitted on
    each fold (max_features breaks ties between equally frequent terms alphabetically, where
    scikit-learn's unstable sort leaves them in no promised order)."""
    docs, y = sms
    docs, y = docs[:1500], y[:1500]
    w = np.random.default_rng(0).random(len(y)) + 0.5
    folds = list(skm.StratifiedKFold(4, shuffle=True, random_state=1).split(docs, y))
    for params in (dict(max_features=500, alpha=0.3), dict(n_features=2**12, alpha=0.2), dict(model="bernoulli")):
        got = cross_val_predict(nbayes.TextClassifier(**params), docs, y, cv=folds, method="predict_proba", sample_weight=w)
        for train, test in folds:
            model = nbayes.TextClassifier(**params).fit([docs[i] for i in train], y[train], sample_weight=w[train])
            assert_allclose(got[test], model.predict_proba([docs[i] for i in test]), rtol=1e-8, atol=1e-10)


def test_text_scores_and_fold_estimators(sms):
    docs, y = sms
    docs, y = docs[:1000], y[:1000]
    res = cross_validate(nbayes.TextClassifier(alpha=0.1), docs, y, cv=3, scoring=["accuracy", "neg_log_loss"],
                         return_estimator=True, return_indices=True)
    want = skm.cross_validate(make_pipeline(sktext.CountVectorizer(), sknb.MultinomialNB(alpha=0.1)), docs, y, cv=3,
                              scoring=["accuracy", "neg_log_loss"])
    for k in ("test_accuracy", "test_neg_log_loss"):
        assert_allclose(res[k], want[k], rtol=1e-10)
    for i, (est, test) in enumerate(zip(res["estimator"], res["indices"]["test"])):
        assert est.score([docs[j] for j in test], y[test]) == pytest.approx(res["test_accuracy"][i], abs=1e-12)


def test_nblr_is_refitted_per_fold(sms):
    docs, y = sms
    docs, y = docs[:600], y[:600]
    folds = list(skm.StratifiedKFold(3).split(docs, y))
    got = cross_val_predict(nbayes.TextClassifier(model="nblr"), docs, y, cv=folds, method="predict_proba")
    for train, test in folds:
        model = nbayes.TextClassifier(model="nblr").fit([docs[i] for i in train], y[train])
        assert_allclose(got[test], model.predict_proba([docs[i] for i in test]), rtol=1e-10)


def test_sparse_scores_read_only_the_terms_a_fold_holds():
    """``linear`` (X @ W.T for the count models) reads only the columns sparse X holds: the same
    bits as the whole product, without a copy of W (issue #29: the bigram search's peak)."""
    from nbayes.naive_bayes.discrete import linear, safe_linear

    rng = np.random.default_rng(3)
    X = sp.random(40, 5000, density=0.002, format="csr", random_state=4) * 7
    W = np.log(rng.random((6, 5000)))
    np.testing.assert_array_equal(linear(X, W), np.asarray(X @ W.T))
    W[2, X.indices[0]] = -np.inf  # alpha = 0: a zero probability counts only where x > 0
    expected = np.asarray(X @ np.where(np.isfinite(W), W, 0.0).T)
    expected[np.asarray(X @ (~np.isfinite(W)).astype(float).T) > 0] = -np.inf
    np.testing.assert_array_equal(safe_linear(X, W), expected)


def test_text_search_peak_memory_is_about_two_class_term_tables():
    """A search over a TextClassifier holds, at its peak, about two dense classes x terms tables
    (a fold's counts and its log-probabilities), not a third copy for the sparse product or the
    counts kept beside the parameters (issue #29 item 6)."""
    import tracemalloc

    rng = np.random.default_rng(0)
    K, V, n = 200, 10000, 2000
    words = np.array([f"w{i}" for i in range(V)])
    docs = [" ".join(words[rng.integers(0, V, 30)]) for _ in range(n)]
    y = np.arange(n) % K
    tracemalloc.start()
    try:
        SearchCV(nbayes.TextClassifier(), {"alpha": [0.1, 1.0]}, cv=5).fit(docs, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3.9 * K * V * 8  # 4.4 tables before
