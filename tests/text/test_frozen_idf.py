"""tf-idf with a frozen idf (``idf=``): the statistics add up, so streaming is exact."""

from __future__ import annotations

import gzip
import itertools
import json

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.naive_bayes import ComplementNB, MultinomialNB

import nbayes
from nbayes.errors import InvalidParameterError, MergeError, UnlearnError


@pytest.fixture(scope="module")
def news(shared_data):
    """360 training documents of 20 Newsgroups, and 60 more to predict."""
    with gzip.open(shared_data / "20newsgroups" / "train.jsonl.gz", "rt") as f:
        rows = [json.loads(line) for line in itertools.islice(f, 420)]
    texts, labels = [r["text"] for r in rows], np.array([r["label"] for r in rows])
    return texts[:360], labels[:360], texts[360:]


def sk_idf(tv: TfidfVectorizer) -> dict[str, float]:
    return dict(zip(tv.get_feature_names_out().tolist(), tv.idf_.tolist()))


@pytest.mark.parametrize("sublinear", [False, True])
@pytest.mark.parametrize("model,ref", [("multinomial", MultinomialNB), ("complement", ComplementNB)])
def test_partial_fit_with_frozen_idf_equals_fit_and_scikit_learn(news, sublinear, model, ref):
    docs, y, test = news
    classes = np.unique(y)
    # the idf of the first 100 documents, frozen; then every document streams in by chunks
    tv = TfidfVectorizer(sublinear_tf=sublinear, ngram_range=(1, 2), min_df=2).fit(docs[:100])
    kw = {"model": model, "alpha": 0.1, "tfidf": True, "sublinear_tf": sublinear, "ngram_range": (1, 2)}
    grown = nbayes.TextClassifier(idf=sk_idf(tv), **kw)
    for lo in range(0, 360, 120):
        grown.partial_fit(docs[lo : lo + 120], y[lo : lo + 120], classes=classes)
    full = nbayes.TextClassifier(idf=sk_idf(tv), **kw).fit(docs, y)
    assert_allclose(grown.predict_joint_log_proba(test), full.predict_joint_log_proba(test), rtol=1e-9)
    # each document is TfidfVectorizer's row under that idf (norm over the frozen terms only)
    theirs = ref(alpha=0.1).fit(tv.transform(docs), y)
    assert_allclose(full.predict_joint_log_proba(test), theirs.predict_joint_log_proba(tv.transform(test)), rtol=1e-9)
    assert_array_equal(grown.predict(test), theirs.predict(tv.transform(test)))
    assert grown.vocabulary_ == tv.vocabulary_
    assert grown.idf_ == sk_idf(tv)


def test_merge_unlearn_and_file(news, tmp_path):
    docs, y, test = news
    classes = np.unique(y)
    idf = nbayes.TextClassifier(tfidf=True).fit(docs[:150], y[:150]).idf_
    kw = {"model": "complement", "alpha": 0.3, "tfidf": True, "sublinear_tf": True, "idf": idf}
    full = nbayes.TextClassifier(**kw).fit(docs, y)
    a = nbayes.TextClassifier(**kw).partial_fit(docs[:200], y[:200], classes=classes)
    b = nbayes.TextClassifier(**kw).partial_fit(docs[200:], y[200:], classes=classes)
    assert_allclose(a.merge(b).predict_joint_log_proba(test), full.predict_joint_log_proba(test), rtol=1e-9)
    # unlearn undoes partial_fit
    undone = nbayes.TextClassifier(**kw).partial_fit(docs[:200], y[:200], classes=classes)
    undone.partial_fit(docs[200:], y[200:]).unlearn(docs[200:], y[200:])
    assert_allclose(undone.predict_joint_log_proba(test), a.predict_joint_log_proba(test), rtol=1e-9)
    assert_allclose(undone.stats_.weighted[2], a.stats_.weighted[2], rtol=1e-9, atol=1e-12)
    with pytest.raises(UnlearnError):
        undone.unlearn(docs[200:], y[200:])
    # the file keeps the frozen idf: the loaded model goes on streaming exactly
    a.save(tmp_path / "f.nbm")
    back = nbayes.load(tmp_path / "f.nbm")
    assert back.idf == idf and back.idf_ == idf
    assert_array_equal(back.predict_proba(test), a.predict_proba(test))
    back.partial_fit(docs[200:], y[200:])
    assert_allclose(back.predict_joint_log_proba(test), full.predict_joint_log_proba(test), rtol=1e-9)
    assert "idf=<idf of" in repr(back) and len(repr(back)) < 200


def test_learned_idf_can_be_frozen_in_place():
    docs = ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch meeting", "cheap lunch offer"]
    y = ["spam", "ham", "spam", "ham", "spam"]
    first = nbayes.TextClassifier(tfidf=True, alpha=0.5).fit(docs[:4], y[:4])
    frozen = nbayes.TextClassifier(tfidf=True, alpha=0.5, idf=first.idf_).fit(docs[:4], y[:4])
    assert_allclose(frozen.predict_joint_log_proba(docs), first.predict_joint_log_proba(docs), rtol=1e-12)
    # with the default term selection, the learned statistics already are the frozen ones
    first.set_params(idf=first.idf_).partial_fit(docs[4:], y[4:])
    frozen.partial_fit(docs[4:], y[4:])
    assert_allclose(first.predict_joint_log_proba(docs), frozen.predict_joint_log_proba(docs), rtol=1e-12)


def test_where_tfidf_is_still_not_exact():
    docs = ["cheap pills now", "meeting at noon", "cheap cheap offer", "lunch meeting"]
    y = ["spam", "ham", "spam", "ham"]
    learned = nbayes.TextClassifier(tfidf=True).fit(docs, y)
    with pytest.raises(InvalidParameterError, match="learned idf.*not exact.*idf=fitted.idf_"):
        learned.partial_fit(docs, y)
    with pytest.raises(InvalidParameterError, match="learned idf.*unlearn is not exact"):
        learned.unlearn(docs[:1], y[:1])
    frozen = nbayes.TextClassifier(tfidf=True, idf=learned.idf_).fit(docs, y)
    for a, b in [(learned, frozen), (frozen, learned)]:
        with pytest.raises(MergeError, match="learned idfs"):
            a.merge(b)
    other = nbayes.TextClassifier(tfidf=True, idf={"cheap": 1.0, "noon": 2.0}).fit(docs, y)
    with pytest.raises(MergeError, match="different frozen idfs"):
        frozen.merge(other)
    with pytest.raises(MergeError, match="sublinear_tf"):
        frozen.merge(nbayes.TextClassifier(tfidf=True, sublinear_tf=True, idf=learned.idf_).fit(docs, y))
    # the idf changed after fitting: the statistics were made with another one
    before = frozen.predict_joint_log_proba(docs)
    with pytest.raises(InvalidParameterError, match="another idf"):
        frozen.set_params(idf={"cheap": 1.0}).partial_fit(docs, y)
    assert_array_equal(frozen.predict_joint_log_proba(docs), before)
    bad = [
        ({"idf": learned.idf_}, "takes tfidf=True"),
        ({"tfidf": True, "idf": learned.idf_, "min_df": 2}, "leave them at their defaults"),
        ({"tfidf": True, "idf": [1.0, 2.0]}, "mapping"),
        ({"tfidf": True, "idf": {}}, "non-empty"),
        ({"tfidf": True, "idf": {"cheap": "1"}}, "finite numbers"),
        ({"tfidf": True, "idf": {"cheap": -1.0}}, "finite numbers"),
        ({"tfidf": True, "idf": {1: 1.0}}, "must be str"),
    ]
    for kw, message in bad:
        with pytest.raises(InvalidParameterError, match=message):
            nbayes.TextClassifier(**kw).fit(docs, y)


def test_refit_of_a_fitted_learned_idf_model():
    """A fitted tf-idf model fits again (its fitted idf once shadowed the method learning one:
    TypeError 'numpy.ndarray' object is not callable)."""
    from nbayes import TextClassifier

    docs, y = ["a b c", "b c d", "c d e", "a a b", "e e d", "a c"], [0, 1, 1, 0, 1, 0]
    other = ["a b", "d e", "a a", "e d d"], [0, 1, 0, 1]
    m = TextClassifier(tfidf=True).fit(docs, y)
    m.fit(*other)
    fresh = TextClassifier(tfidf=True).fit(*other)
    np.testing.assert_allclose(m.predict_joint_log_proba(docs), fresh.predict_joint_log_proba(docs), rtol=0, atol=0)
    assert m.idf_ == fresh.idf_
