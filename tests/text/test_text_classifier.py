"""TextClassifier: scikit-learn's tokens and counts, exact statistics laws, bad input."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB

import nbayes
from nbayes.errors import DataError, UnlearnError

DOCS = [
    "The naïve cat sat in Zürich; the CAT sat!",
    "Ελληνικά λόγια και ΟΔΟΣ, русский текст тоже",
    "İstanbul 東京 and Tokyo_2020 x y zz",
    "cheap pills, cheap offers, buy now",
    "meeting at noon about the budget",
    "",
    "a b c",  # no token of two characters
    "dog\x00cat with a NUL inside",
]
LABELS = ["a", "b", "b", "spam", "ham", "ham", "spam", "a"]


def sk_matrix(docs, **kw):
    cv = CountVectorizer(**kw)
    return cv, cv.fit_transform(docs)


def test_tokens_and_counts_equal_count_vectorizer():
    clf = nbayes.TextClassifier().fit(DOCS, LABELS)
    cv, X = sk_matrix(DOCS)
    assert clf._terms.tolist() == cv.get_feature_names_out().tolist()
    assert (clf.transform(DOCS) != X).nnz == 0


@given(st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=8))
def test_random_unicode_tokenises_as_scikit_learn(texts):
    cv = CountVectorizer()
    try:
        X = cv.fit_transform(texts)
    except ValueError:  # scikit-learn: empty vocabulary; a model without terms is valid here
        clf = nbayes.TextClassifier().fit(texts, [0] * len(texts))
        assert clf.vocabulary_ == {} and clf.transform(texts).shape == (len(texts), 0)
        with pytest.raises(DataError, match="no terms remain"):
            nbayes.text.Vectorizer().fit(texts)
        return
    clf = nbayes.TextClassifier().fit(texts, [0] * len(texts))
    assert clf._terms.tolist() == cv.get_feature_names_out().tolist()
    assert (clf.transform(texts) != X).nnz == 0


@pytest.mark.parametrize(
    "kw",
    [{"min_df": 2}, {"max_df": 0.5}, {"min_df": 0.1, "max_df": 5}, {"max_features": 5}],
)
def test_document_frequency_limits_match(kw):
    docs = DOCS * 2 + ["cat cat cat dog", "dog meeting cheap"]
    labels = LABELS * 2 + ["a", "ham"]
    clf = nbayes.TextClassifier(**kw).fit(docs, labels)
    cv, X = sk_matrix(docs, **kw)
    assert clf._terms.tolist() == cv.get_feature_names_out().tolist()
    ref = MultinomialNB().fit(X, labels)
    assert_allclose(clf.predict_proba(docs), ref.predict_proba(cv.transform(docs)), rtol=1e-9)


@pytest.mark.parametrize(
    "model,ref,binary",
    [
        ("multinomial", MultinomialNB(alpha=0.3), False),
        ("multinomial", MultinomialNB(alpha=0.3), True),
        ("complement", ComplementNB(alpha=0.3), False),
        ("bernoulli", BernoulliNB(alpha=0.3), True),
    ],
)
def test_models_equal_scikit_learn_pipelines(model, ref, binary):
    clf = nbayes.TextClassifier(model=model, alpha=0.3, binary=binary).fit(DOCS, LABELS)
    cv, X = sk_matrix(DOCS, binary=binary)
    ref.fit(X, LABELS)
    assert_allclose(clf.predict_joint_log_proba(DOCS), ref.predict_joint_log_proba(X), rtol=1e-9)
    assert_array_equal(clf.predict(DOCS), ref.predict(X))


def test_mle_alpha_zero_takes_the_exact_path():
    clf = nbayes.TextClassifier(alpha=0.0).fit(DOCS, LABELS)
    cv, X = sk_matrix(DOCS)
    jll = clf.predict_joint_log_proba(["cheap cat"])
    assert np.isneginf(jll).any() and not np.isnan(jll).any()
    proba = clf.predict_proba(DOCS)
    assert not np.isnan(proba).any()
    assert_allclose(proba.sum(axis=1), 1.0)


def test_partial_fit_merge_unlearn_are_exact():
    classes = sorted(set(LABELS))
    full = nbayes.TextClassifier().fit(DOCS, LABELS)
    grown = nbayes.TextClassifier()
    for lo, hi in [(0, 3), (3, 4), (4, 8)]:
        grown.partial_fit(DOCS[lo:hi], LABELS[lo:hi], classes=classes)
    assert_allclose(grown.predict_joint_log_proba(DOCS), full.predict_joint_log_proba(DOCS), rtol=1e-12)
    a = nbayes.TextClassifier().partial_fit(DOCS[:4], LABELS[:4], classes=classes)
    b = nbayes.TextClassifier().partial_fit(DOCS[4:], LABELS[4:], classes=classes)
    assert_allclose(a.merge(b).predict_joint_log_proba(DOCS), full.predict_joint_log_proba(DOCS), rtol=1e-12)
    forgot = nbayes.TextClassifier().partial_fit(DOCS, LABELS, classes=classes).unlearn(DOCS[4:], LABELS[4:])
    # terms only the forgotten documents had are gone, as in a model never trained on them
    assert forgot._terms.tolist() == a._terms.tolist()
    assert_allclose(forgot.predict_joint_log_proba(DOCS), a.predict_joint_log_proba(DOCS), rtol=1e-12)
    with pytest.raises(UnlearnError):
        forgot.unlearn(DOCS[4:], LABELS[4:])


def test_save_load(tmp_path):
    clf = nbayes.TextClassifier(model="complement", min_df=1).fit(DOCS, LABELS)
    clf.save(tmp_path / "t.nbm")
    back = nbayes.load(tmp_path / "t.nbm")
    assert isinstance(back, nbayes.TextClassifier)
    assert_array_equal(back.predict_proba(DOCS), clf.predict_proba(DOCS))


def test_explain_tokens_add_up():
    clf = nbayes.TextClassifier(alpha=0.5).fit(DOCS, LABELS)
    text = "Cheap cat offers at noon, cheap!"
    e = clf.explain(text)
    assert e.tokens == ["cheap", "cat", "offers", "at", "noon", "cheap"]
    assert [text.lower()[s:t] for s, t in e.spans] == e.tokens
    joint = clf.predict_joint_log_proba([text])[0]
    ia = clf.classes_.tolist().index(e.predicted)
    ib = clf.classes_.tolist().index(e.runner_up)
    assert_allclose(e.contributions.sum() + e.baseline, joint[ia] - joint[ib], rtol=1e-12)
    assert e.predicted == clf.predict([text])[0]


def test_inputs_bytes_empty_and_errors():
    clf = nbayes.TextClassifier().fit(DOCS, LABELS)
    prior = np.exp(clf.class_log_prior_)
    assert_allclose(clf.predict_proba([""])[0], prior / prior.sum(), rtol=1e-12)
    assert clf.predict([b"cheap \xff\xfe pills"]).tolist() == clf.predict(["cheap \ufffd\ufffd pills"]).tolist()
    with pytest.raises(DataError, match="item 1 is a int"):
        clf.predict(["fine", 3])
    with pytest.raises(DataError, match="no documents"):
        clf.predict([])
    with pytest.raises(DataError, match="single string"):
        clf.predict("just one string")
    with pytest.raises(DataError, match="labels but X has"):
        nbayes.TextClassifier().fit(DOCS, LABELS[:-1])
    before = clf.predict_joint_log_proba(DOCS)
    with pytest.raises(DataError):
        clf.partial_fit(["ok", None], ["a", "b"])
    assert_array_equal(clf.predict_joint_log_proba(DOCS), before)


def _load(path):
    with gzip.open(path, "rt") as f:
        rows = [json.loads(line) for line in f]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


@pytest.mark.slow
def test_twenty_newsgroups_equals_scikit_learn(shared_data):
    """Same vocabulary, same counts on all of 20 Newsgroups; same accuracy (80.4%)."""
    Xtr, ytr = _load(shared_data / "20newsgroups" / "train.jsonl.gz")
    Xte, yte = _load(shared_data / "20newsgroups" / "test.jsonl.gz")
    clf = nbayes.TextClassifier(alpha=0.01).fit(Xtr, ytr)
    cv = CountVectorizer()
    A = cv.fit_transform(Xtr)
    assert clf._terms.tolist() == cv.get_feature_names_out().tolist()
    assert (clf.transform(Xtr) != A).nnz == 0
    B = cv.transform(Xte)
    assert (clf.transform(Xte) != B).nnz == 0
    ref = MultinomialNB(alpha=0.01).fit(A, ytr)
    ours = clf.predict(Xte)
    assert_array_equal(ours, ref.predict(B))
    acc = float(np.mean(ours == yte))
    assert abs(acc - 0.8039) < 5e-4
    assert_allclose(clf.predict_proba(Xte[:300]), ref.predict_proba(B[:300]), rtol=1e-6, atol=1e-9)


def test_murmur3_matches_scikit_learn():
    from sklearn.utils import murmurhash3_32

    from nbayes._kernels.text import murmur3

    for word in ["the", "naïve", "zürich", "東京", "😀x", "ab", "abcd", "abcde", "x" * 37, "ελληνικά"]:
        cps = np.frombuffer(word.encode("utf-32-le"), np.uint32)
        assert murmur3(cps, 0, len(cps)) == murmurhash3_32(word, 0)


def test_hashing_mode_equals_hashing_vectorizer():
    from sklearn.feature_extraction.text import HashingVectorizer

    hv = HashingVectorizer(n_features=64, alternate_sign=False, norm=None)
    X = hv.transform(DOCS)
    clf = nbayes.TextClassifier(n_features=64, alpha=0.5).fit(DOCS, LABELS)
    assert (clf.transform(DOCS) != X).nnz == 0
    assert clf._keep.all()  # every bucket is a column, as in HashingVectorizer
    ref = MultinomialNB(alpha=0.5).fit(X, LABELS)
    assert_allclose(clf.predict_joint_log_proba(DOCS), ref.predict_joint_log_proba(X), rtol=1e-9)
    classes = sorted(set(LABELS))
    a = nbayes.TextClassifier(n_features=64).partial_fit(DOCS[:3], LABELS[:3], classes=classes)
    b = nbayes.TextClassifier(n_features=64).partial_fit(DOCS[3:], LABELS[3:], classes=classes)
    full = nbayes.TextClassifier(n_features=64).fit(DOCS, LABELS)
    assert_allclose(a.merge(b).predict_joint_log_proba(DOCS), full.predict_joint_log_proba(DOCS), rtol=1e-12)
    with pytest.raises(nbayes.errors.MergeError, match="n_features"):
        a.merge(nbayes.TextClassifier(n_features=32).fit(DOCS, LABELS))
    top = full.top_features(2)
    assert all(name.startswith("#") for entries in top.values() for name, _ in entries)
    e = full.explain("cheap cat")
    assert e.tokens == ["cheap", "cat"]


def test_hashing_mode_save_load(tmp_path):
    clf = nbayes.TextClassifier(n_features=128, model="bernoulli").fit(DOCS, LABELS)
    clf.save(tmp_path / "h.nbm")
    assert_array_equal(nbayes.load(tmp_path / "h.nbm").predict_proba(DOCS), clf.predict_proba(DOCS))


@pytest.mark.parametrize(
    "kw",
    [
        {"ngram_range": (1, 2)},
        {"ngram_range": (2, 3)},
        {"stop_words": "english"},
        {"stop_words": "english", "ngram_range": (1, 3)},
        {"stop_words": ["cat", "the"], "ngram_range": (1, 2), "min_df": 2},
    ],
)
def test_ngrams_and_stop_words_equal_count_vectorizer(kw):
    docs = DOCS + ["the cat and the dog", "cheap pills cheap pills now", "Ελληνικά λόγια again"]
    labels = LABELS + ["a", "spam", "b"]
    clf = nbayes.TextClassifier(**kw).fit(docs, labels)
    cv, X = sk_matrix(docs, **kw)
    assert clf._terms.tolist() == cv.get_feature_names_out().tolist()
    assert (clf.transform(docs) != X).nnz == 0
    ref = MultinomialNB().fit(X, labels)
    assert_allclose(clf.predict_joint_log_proba(docs), ref.predict_joint_log_proba(X), rtol=1e-9)


@given(st.lists(st.text(alphabet="ab cΣσςİi", min_size=0, max_size=30), min_size=1, max_size=6))
def test_random_bigrams_as_scikit_learn(texts):
    cv = CountVectorizer(ngram_range=(1, 2))
    try:
        X = cv.fit_transform(texts)
    except ValueError:
        return
    clf = nbayes.TextClassifier(ngram_range=(1, 2)).fit(texts, [0] * len(texts))
    assert clf._terms.tolist() == cv.get_feature_names_out().tolist()
    assert (clf.transform(texts) != X).nnz == 0


def test_ngram_settings_are_checked():
    with pytest.raises(nbayes.errors.InvalidParameterError, match="ngram_range"):
        nbayes.TextClassifier(ngram_range=(2, 1)).fit(DOCS, LABELS)
    with pytest.raises(nbayes.errors.InvalidParameterError, match="stop_words"):
        nbayes.TextClassifier(stop_words="french").fit(DOCS, LABELS)
    for n_features in (None, 16):  # vocabulary and hashing mode
        clf = nbayes.TextClassifier(ngram_range=(1, 2), n_features=n_features).fit(DOCS, LABELS)
        e = clf.explain("cheap pills now")
        assert e.tokens == ["cheap", "pills", "cheap pills", "now", "pills now"]


@pytest.mark.parametrize("sublinear", [False, True])
@pytest.mark.parametrize("model,ref", [("complement", ComplementNB(alpha=0.1)), ("multinomial", MultinomialNB(alpha=0.1))])
def test_tfidf_equals_tfidf_vectorizer(tmp_path, sublinear, model, ref):
    from sklearn.feature_extraction.text import TfidfVectorizer

    docs = DOCS + ["cheap cheap cheap pills", "noon meeting about lunch", "the cat and the dog"]
    labels = LABELS + ["spam", "ham", "a"]
    clf = nbayes.TextClassifier(model=model, alpha=0.1, tfidf=True, sublinear_tf=sublinear, min_df=1).fit(docs, labels)
    tv = TfidfVectorizer(sublinear_tf=sublinear)
    X = tv.fit_transform(docs)
    ref.fit(X, labels)
    assert_allclose(clf.predict_joint_log_proba(docs), ref.predict_joint_log_proba(X), rtol=1e-9)
    test = ["cheap lunch", "a naïve cat", ""]
    assert_allclose(clf.predict_proba(test), ref.predict_proba(tv.transform(test)), rtol=1e-9, atol=1e-12)
    clf.save(tmp_path / "t.nbm")
    assert_array_equal(nbayes.load(tmp_path / "t.nbm").predict_proba(test), clf.predict_proba(test))
    with pytest.raises(nbayes.errors.InvalidParameterError, match="do not add up"):
        clf.partial_fit(docs, labels)
    with pytest.raises(nbayes.errors.MergeError, match="tf-idf"):
        clf.merge(clf)
    with pytest.raises(nbayes.errors.InvalidParameterError, match="tfidf=True weighs counts"):
        nbayes.TextClassifier(model="bernoulli", tfidf=True).fit(docs, labels)


@pytest.mark.slow
def test_twenty_newsgroups_tfidf_complement(shared_data):
    """TfidfVectorizer(sublinear_tf=True) + ComplementNB(alpha=0.1): the same predictions (83.9%)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    Xtr, ytr = _load(shared_data / "20newsgroups" / "train.jsonl.gz")
    Xte, yte = _load(shared_data / "20newsgroups" / "test.jsonl.gz")
    clf = nbayes.TextClassifier(model="complement", alpha=0.1, tfidf=True, sublinear_tf=True).fit(Xtr, ytr)
    tv = TfidfVectorizer(sublinear_tf=True)
    ref = ComplementNB(alpha=0.1).fit(tv.fit_transform(Xtr), ytr)
    ours = clf.predict(Xte)
    assert np.mean(ours == ref.predict(tv.transform(Xte))) > 0.9995
    assert abs(np.mean(ours == yte) - 0.839) < 2e-3


def test_explain_spans_index_the_text_as_given():
    """'İ' lower-cases to two code points: spans still point into the original text."""
    import nbayes

    clf = nbayes.TextClassifier().fit(["İstanbul cheap offer", "lunch at noon"], ["spam", "ham"])
    text = "İİ İstanbul cheap"
    e = clf.explain(text)
    assert [text[s:t].lower() for s, t in e.spans] == e.tokens


def test_pyarrow_string_arrays_are_documents():
    """An Array or ChunkedArray of strings (a column of a pyarrow table) is a list of documents."""
    pa = pytest.importorskip("pyarrow")
    texts = ["cheap pills now", "meeting at noon", "cheap offer", "lunch meeting"]
    y = ["spam", "ham", "spam", "ham"]
    want = nbayes.TextClassifier().fit(texts, y)
    got = nbayes.TextClassifier().fit(pa.array(texts), y)
    np.testing.assert_array_equal(got.predict_proba(pa.chunked_array([texts[:2], texts[2:]])), want.predict_proba(texts))


def test_failed_hashing_partial_fit_leaves_the_model_unchanged():
    """A chunk that estimation refuses (a third class under a 2-class prior) changes nothing,
    in hashing mode as in vocabulary mode (every state change is checked before it is made)."""
    for n_features in (None, 1024):
        m = nbayes.TextClassifier(n_features=n_features, class_prior=[0.5, 0.5]).fit(["aa bb", "cc dd"], ["x", "y"])
        before = m.predict_proba(["aa cc"])
        with pytest.raises(nbayes.errors.NBayesError):
            m.partial_fit(["ee ff"], ["z"])
        assert m.classes_.tolist() == ["x", "y"]
        assert_array_equal(m.predict_proba(["aa cc"]), before)


def test_with_prior_copy_does_not_follow_the_original_learning():
    """with_prior's copy holds its own statistics: the original's in-place hashing partial_fit
    leaves it as it was."""
    m = nbayes.TextClassifier(n_features=1024).fit(["aa bb", "cc dd"], ["x", "y"])
    copy = m.with_prior([0.2, 0.8])
    before = copy.predict_proba(["aa cc"])
    m.partial_fit(["aa aa"] * 5, ["y"] * 5)
    assert_array_equal(copy.class_count_, [1.0, 1.0])
    assert_array_equal(copy.predict_proba(["aa cc"]), before)


def test_refit_drops_the_last_fit_s_parameters():
    m = nbayes.EM(nbayes.MultinomialNB(), n_components=2).fit(np.eye(4) * 3, [0, 0, 1, 1]).estimator_
    assert hasattr(m, "component_log_weight_")
    m.fit(np.eye(4) * 3, [0, 0, 1, 1])  # a plain fit makes the ordinary model
    assert not hasattr(m, "component_log_weight_") and m.n_components_.tolist() == [1, 1]
