"""Hashing mode with word n-grams and stop words: scikit-learn's HashingVectorizer, bucket for bucket."""

from __future__ import annotations

import gzip
import itertools
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.naive_bayes import MultinomialNB

import nbayes
from nbayes.text import Vectorizer

SETTINGS = [(ng, sw) for ng in [(1, 2), (2, 2), (1, 3)] for sw in [None, "english"]]


def reference(n_features, ngram_range, stop_words):
    return HashingVectorizer(
        n_features=n_features, ngram_range=ngram_range, stop_words=stop_words, alternate_sign=False, norm=None
    )


@pytest.fixture(scope="module")
def news(shared_data):
    """The first 500 training documents of 20 Newsgroups (headers included)."""
    with gzip.open(shared_data / "20newsgroups" / "train.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in itertools.islice(f, 500)]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


@pytest.mark.parametrize("ngram_range,stop_words", SETTINGS)
def test_twenty_newsgroups_buckets_equal_hashing_vectorizer(news, ngram_range, stop_words):
    docs, _ = news
    ref = reference(2**20, ngram_range, stop_words).transform(docs)
    ours = Vectorizer(n_features=2**20, ngram_range=ngram_range, stop_words=stop_words).fit_transform(docs)
    assert ours.shape == ref.shape
    assert (ours != ref).nnz == 0
    clf = nbayes.TextClassifier(n_features=2**20, ngram_range=ngram_range, stop_words=stop_words)
    assert (clf.fit(docs[:50], news[1][:50]).transform(docs) != ref).nnz == 0


# words, stop words and random Unicode (final sigma, dotted capital I, CJK, astral characters)
WORDS = st.one_of(
    st.sampled_from(["the", "and", "cat", "ΟΔΟΣ", "İi", "naïve", "東京", "😀x", "zz", "of", "Σς"]),
    st.text(max_size=8),
)
TEXTS = st.lists(st.lists(WORDS, max_size=12).map(" ".join), min_size=1, max_size=5)


@given(TEXTS)
def test_random_unicode_buckets_equal_hashing_vectorizer(texts):
    for (ngram_range, stop_words), n_features in itertools.product(SETTINGS, [2**18, 7]):
        ref = reference(n_features, ngram_range, stop_words).transform(texts)
        ours = Vectorizer(n_features=n_features, ngram_range=ngram_range, stop_words=stop_words).fit_transform(texts)
        assert (ours != ref).nnz == 0, (ngram_range, stop_words, n_features)


def test_classifier_predicts_as_scikit_learn_pipeline(news):
    docs, y = news
    kw = {"n_features": 2**18, "ngram_range": (1, 2), "stop_words": "english"}
    train, test, ytr = docs[:400], docs[400:], y[:400]
    clf = nbayes.TextClassifier(alpha=0.1, **kw).fit(train, ytr)
    hv = reference(kw["n_features"], kw["ngram_range"], kw["stop_words"])
    ref = MultinomialNB(alpha=0.1).fit(hv.transform(train), ytr)
    assert_array_equal(clf.predict(test), ref.predict(hv.transform(test)))
    assert_allclose(clf.predict_joint_log_proba(test), ref.predict_joint_log_proba(hv.transform(test)), rtol=1e-9)


def test_partial_fit_and_merge_equal_fit_with_bigrams(news, tmp_path):
    docs, y = news
    docs, y = docs[:300], y[:300]
    classes = np.unique(y)
    kw = {"n_features": 2**16, "ngram_range": (1, 2), "stop_words": "english"}
    full = nbayes.TextClassifier(**kw).fit(docs, y)
    grown = nbayes.TextClassifier(**kw)
    for lo in range(0, 300, 100):
        grown.partial_fit(docs[lo : lo + 100], y[lo : lo + 100], classes=classes)
    # counts are sums over documents: chunked, they are the same numbers
    assert_array_equal(grown.stats_.term_count, full.stats_.term_count)
    assert_array_equal(grown.stats_.df, full.stats_.df)
    assert_allclose(grown.predict_joint_log_proba(docs), full.predict_joint_log_proba(docs), rtol=1e-12)
    a = nbayes.TextClassifier(**kw).partial_fit(docs[:150], y[:150], classes=classes)
    b = nbayes.TextClassifier(**kw).partial_fit(docs[150:], y[150:], classes=classes)
    assert_allclose(a.merge(b).predict_joint_log_proba(docs), full.predict_joint_log_proba(docs), rtol=1e-12)
    # memory does not grow with the corpus: the statistics are n_features wide
    assert full.stats_.term_count.shape == (len(classes), 2**16)
    full.save(tmp_path / "h.nbm")
    back = nbayes.load(tmp_path / "h.nbm")
    assert_array_equal(back.predict_proba(docs[:50]), full.predict_proba(docs[:50]))


def test_explain_in_hashing_mode_names_the_ngrams():
    clf = nbayes.TextClassifier(n_features=64, ngram_range=(1, 3), stop_words="english")
    clf.fit(["cheap pills now", "the meeting at noon"], ["spam", "ham"])
    text = "The cheap, cheap pills!"
    e = clf.explain(text)
    # an n-gram is shown as the term counted (words joined by one space), its span covering it
    assert e.tokens == ["cheap", "cheap", "cheap cheap", "pills", "cheap pills", "cheap cheap pills"]
    assert [text[s:t] for s, t in e.spans] == ["cheap", "cheap", "cheap, cheap", "pills", "cheap pills",
                                               "cheap, cheap pills"]
    joint = clf.predict_joint_log_proba(["The cheap, cheap pills!"])[0]
    assert_allclose(e.contributions.sum() + e.baseline, joint.max() - joint.min(), rtol=1e-12)


def test_hashing_partial_fit_never_writes_published_statistics():
    """Each chunk makes new statistics and parameters (those published before are never
    written: a reader holding them keeps its numbers); a stream counts into arrays of its
    own. Both equal one fit on all documents."""
    import numpy as np

    import nbayes

    texts = ["cheap pills now", "lunch at noon", "cheap offer today", "noon meeting room"] * 30
    labels = ["spam", "ham", "spam", "ham"] * 30
    whole = nbayes.TextClassifier(n_features=2**12, ngram_range=(1, 2)).fit(texts, labels)
    model = nbayes.TextClassifier(n_features=2**12, ngram_range=(1, 2)).partial_fit(texts[:8], labels[:8])
    first, counts = model.params_, model.stats_.term_count.copy()
    stream = nbayes.TextClassifier(n_features=2**12, ngram_range=(1, 2)).partial_fit(texts[:8], labels[:8]).stream()
    for i in range(8, len(texts), 16):
        model.partial_fit(texts[i : i + 16], labels[i : i + 16])
        stream.add(texts[i : i + 16], labels[i : i + 16])
    np.testing.assert_array_equal(first.stats.term_count, counts)  # the first version's, untouched
    assert model.params_.stats is model.stats_
    np.testing.assert_allclose(model.predict_proba(texts), whole.predict_proba(texts), rtol=1e-12)
    np.testing.assert_allclose(stream.finish().predict_proba(texts), whole.predict_proba(texts), rtol=1e-12)
    np.testing.assert_allclose(model.feature_log_prob_, whole.feature_log_prob_, rtol=1e-12)
    grown = model.partial_fit(["a brand new class here"], ["other"])  # a new class: the general path
    assert grown.classes_.tolist() == ["ham", "other", "spam"]
