"""Character n-grams (analyzer="char" / "char_wb"): scikit-learn's tokens, vocabulary, counts,
hashed buckets and Naive Bayes probabilities, on real messages and on awkward text."""

from __future__ import annotations

import gzip
import itertools
import json
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from sklearn.naive_bayes import BernoulliNB, MultinomialNB
from sklearn.pipeline import make_pipeline

import nbayes
from nbayes.errors import InvalidParameterError, MergeError
from nbayes.text import Vectorizer
from nbayes.text.explain import char_grams

ANALYZERS = ("char", "char_wb")
RANGES = ((1, 1), (2, 4), (3, 5))

# what real text rarely shows at once: accents and case (one and two code point lower forms),
# runs of spaces, tabs and newlines, lone whitespace characters, Unicode spaces, empty and
# blank documents, one-letter words, CJK, astral characters, NUL inside a document
AWKWARD = [
    "", " ", "\t\n  \r", "a", "ab", "A  B", "x\ty z", "Hello   World\t\tand\nnew\n\nlines ",
    "Ça va? Élan ÜBER straße café", "İstanbul İİ", "ΟΔΟΣ Σς", "日本語 テキスト\u3000全角", "😀x 😀😀  y",
    "nbsp\xa0here\x85next\x1cfs", "nul\x00inside  it", "  leading and trailing  ", "ﬁ ligature ǅ",
]


def _read(path, n):
    with gzip.open(path, "rt") as f:
        rows = [json.loads(line) for line in itertools.islice(f, n)]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


@pytest.fixture(scope="module")
def corpus(shared_data):
    """300 SMS spam messages, 200 20 Newsgroups posts (headers included) and the awkward texts."""
    sms, y_sms = _read(shared_data / "sms_spam" / "all.jsonl.gz", 300)
    news, y_news = _read(shared_data / "20newsgroups" / "train.jsonl.gz", 200)
    return sms + news + AWKWARD


@pytest.fixture(scope="module")
def sms(shared_data):
    return _read(shared_data / "sms_spam" / "all.jsonl.gz", 1200)


@pytest.mark.parametrize("analyzer", ANALYZERS)
@pytest.mark.parametrize("ngram_range", RANGES)
def test_vocabulary_and_counts_equal_count_vectorizer(corpus, analyzer, ngram_range):
    ref = CountVectorizer(analyzer=analyzer, ngram_range=ngram_range)
    X = ref.fit_transform(corpus)
    ours = Vectorizer(analyzer=analyzer, ngram_range=ngram_range)
    Y = ours.fit_transform(corpus)
    assert_array_equal(ours.get_feature_names_out(), ref.get_feature_names_out())
    assert Y.shape == X.shape and (Y != X).nnz == 0
    # a model's transform: the same matrix, the vocabulary learned by counting per class
    clf = nbayes.TextClassifier(analyzer=analyzer, ngram_range=ngram_range).fit(corpus, np.arange(len(corpus)) % 3)
    assert clf.vocabulary_ == ref.vocabulary_
    assert (clf.transform(corpus) != X).nnz == 0


@pytest.mark.parametrize("analyzer", ANALYZERS)
@pytest.mark.parametrize("ngram_range", RANGES)
def test_buckets_equal_hashing_vectorizer(corpus, analyzer, ngram_range):
    for n_features in (2**20, 7):
        ref = HashingVectorizer(analyzer=analyzer, ngram_range=ngram_range, n_features=n_features,
                                alternate_sign=False, norm=None).transform(corpus)
        ours = Vectorizer(analyzer=analyzer, ngram_range=ngram_range, n_features=n_features).fit_transform(corpus)
        assert ours.shape == ref.shape and (ours != ref).nnz == 0


@pytest.mark.parametrize("analyzer", ANALYZERS)
def test_case_kept_and_tfidf_equal(corpus, analyzer):
    ref = CountVectorizer(analyzer=analyzer, ngram_range=(2, 3), lowercase=False)
    ours = Vectorizer(analyzer=analyzer, ngram_range=(2, 3), lowercase=False)
    assert (ours.fit_transform(corpus) != ref.fit_transform(corpus)).nnz == 0
    assert_array_equal(ours.get_feature_names_out(), ref.get_feature_names_out())
    ref = TfidfVectorizer(analyzer=analyzer, ngram_range=(1, 3), sublinear_tf=True, min_df=2)
    ours = Vectorizer(analyzer=analyzer, ngram_range=(1, 3), sublinear_tf=True, min_df=2, tfidf=True)
    assert_allclose(ours.fit_transform(corpus).toarray(), ref.fit_transform(corpus).toarray(), rtol=1e-12, atol=1e-15)


TEXTS = st.lists(
    st.lists(st.one_of(st.sampled_from(["the", "Ab", "ΟΔΟΣ", "İi", "naïve", "東京", "😀x", "\t", "\n\n", " ", ""]),
                       st.text(max_size=6)), max_size=8).map(" ".join),
    min_size=1, max_size=4,
)


@given(TEXTS)
def test_random_unicode_equals_scikit_learn(texts):
    for analyzer, ngram_range in itertools.product(ANALYZERS, ((1, 2), (2, 5))):
        ref = CountVectorizer(analyzer=analyzer, ngram_range=ngram_range)
        analyse = ref.build_analyzer()
        for t in texts:  # the Python twin of the kernels: scikit-learn's grams, in order
            assert char_grams(t.lower(), analyzer, *ngram_range) == analyse(t)
        if not any(analyse(t) for t in texts):
            continue  # an empty vocabulary: both refuse (tested elsewhere)
        X = ref.fit_transform(texts)
        ours = Vectorizer(analyzer=analyzer, ngram_range=ngram_range)
        assert (ours.fit_transform(texts) != X).nnz == 0
        assert_array_equal(ours.get_feature_names_out(), ref.get_feature_names_out())
        hashed = HashingVectorizer(analyzer=analyzer, ngram_range=ngram_range, n_features=64,
                                   alternate_sign=False, norm=None).transform(texts)
        assert (Vectorizer(analyzer=analyzer, ngram_range=ngram_range, n_features=64).fit_transform(texts)
                != hashed).nnz == 0


def test_probabilities_equal_scikit_learn_pipeline(sms):
    docs, y = sms
    train, test = slice(0, 900), slice(900, None)
    clf = nbayes.TextClassifier(analyzer="char_wb", ngram_range=(2, 4)).fit(docs[train], y[train])
    ref = make_pipeline(CountVectorizer(analyzer="char_wb", ngram_range=(2, 4)), MultinomialNB())
    ref.fit(docs[train], y[train])
    assert_allclose(clf.predict_proba(docs[test] + AWKWARD), ref.predict_proba(docs[test] + AWKWARD),
                    rtol=1e-10, atol=1e-12)
    assert (clf.predict(docs[test]) == y[test]).mean() > 0.95
    # presence models and hashing score from the same kernels
    bern = nbayes.TextClassifier(model="bernoulli", analyzer="char", ngram_range=(1, 3), alpha=0.5)
    ref = make_pipeline(CountVectorizer(analyzer="char", ngram_range=(1, 3), binary=True), BernoulliNB(alpha=0.5))
    assert_allclose(bern.fit(docs[train], y[train]).predict_proba(docs[test]),
                    ref.fit(docs[train], y[train]).predict_proba(docs[test]), rtol=1e-9, atol=1e-12)
    hashed = nbayes.TextClassifier(analyzer="char_wb", ngram_range=(2, 4), n_features=2**18, alpha=0.1)
    ref = make_pipeline(HashingVectorizer(analyzer="char_wb", ngram_range=(2, 4), n_features=2**18,
                                          alternate_sign=False, norm=None), MultinomialNB(alpha=0.1))
    assert_allclose(hashed.fit(docs[train], y[train]).predict_proba(docs[test]),
                    ref.fit(docs[train], y[train]).predict_proba(docs[test]), rtol=1e-9, atol=1e-12)
    nblr = nbayes.TextClassifier(model="nblr", analyzer="char_wb", ngram_range=(2, 4)).fit(docs[train], y[train])
    assert (nblr.predict(docs[test]) == y[test]).mean() > 0.95


@pytest.mark.parametrize("analyzer", ANALYZERS)
def test_partial_fit_merge_unlearn_and_file(sms, tmp_path, analyzer):
    docs, y = sms
    docs, y = docs[:400] + AWKWARD, np.concatenate([y[:400], ["ham"] * len(AWKWARD)])
    make = lambda: nbayes.TextClassifier(analyzer=analyzer, ngram_range=(2, 4), alpha=0.3)  # noqa: E731
    full = make().fit(docs, y)
    expected = full.predict_proba(docs)
    streamed = make()
    for start in range(0, len(docs), 150):
        streamed.partial_fit(docs[start:start + 150], y[start:start + 150], classes=["ham", "spam"])
    assert_allclose(streamed.predict_proba(docs), expected, rtol=1e-12)
    merged = make().fit(docs[:200], y[:200]).merge(make().fit(docs[200:], y[200:]))
    assert_allclose(merged.predict_proba(docs), expected, rtol=1e-12)
    assert_allclose(full.unlearn(docs[200:], y[200:]).predict_proba(docs),
                    make().fit(docs[:200], y[:200]).predict_proba(docs), rtol=1e-10)
    full = make().fit(docs, y)
    path = tmp_path / "chars.nbayes"
    full.save(path)
    back = nbayes.load(path)
    assert back.analyzer == analyzer
    assert_allclose(back.predict_proba(docs), expected, rtol=1e-12)
    assert back.explain(docs[3]).tokens == full.explain(docs[3]).tokens
    with pytest.raises(MergeError, match="analyzer"):
        full.merge(nbayes.TextClassifier(ngram_range=(2, 4), alpha=0.3).fit(docs, y))


@pytest.mark.parametrize("analyzer", ANALYZERS)
@pytest.mark.parametrize("n_features", [None, 4096])
def test_explain_shows_the_grams(sms, analyzer, n_features):
    docs, y = sms
    clf = nbayes.TextClassifier(analyzer=analyzer, ngram_range=(2, 4), n_features=n_features).fit(docs[:500], y[:500])
    text = "FREE  Entry\tnow!! Çà  txt"
    e = clf.explain(text)
    assert e.tokens == CountVectorizer(analyzer=analyzer, ngram_range=(2, 4)).build_analyzer()(text)
    joint = clf.predict_joint_log_proba([text])[0]
    a, b = list(clf.classes_).index(e.predicted), list(clf.classes_).index(e.runner_up)
    assert_allclose(e.contributions.sum() + e.baseline, joint[a] - joint[b], rtol=1e-10)
    for token, (s, t) in zip(e.tokens, e.spans):  # a span: the text the gram stands for
        shown = re.sub(r"\s\s+", " ", text[s:t].lower())
        assert (token if analyzer == "char" else token.strip(" ")) == shown


@pytest.mark.parametrize("analyzer", ANALYZERS)
def test_cross_validation_equals_pipeline(sms, analyzer):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.model_selection import cross_val_predict as sk_cross_val_predict

    from nbayes.model_selection import cross_val_predict

    docs, y = sms
    docs, y = docs[:600], y[:600]
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = cross_val_predict(nbayes.TextClassifier(analyzer=analyzer, ngram_range=(2, 3), alpha=0.2), docs, y, cv=cv,
                             method="predict_proba")
    ref = make_pipeline(CountVectorizer(analyzer=analyzer, ngram_range=(2, 3)), MultinomialNB(alpha=0.2))
    assert_allclose(ours, sk_cross_val_predict(ref, docs, y, cv=cv, method="predict_proba"), rtol=1e-8, atol=1e-10)


def test_parameters_checked():
    docs, y = ["ab cd", "ef gh"], ["a", "b"]
    with pytest.raises(InvalidParameterError, match="analyzer"):
        nbayes.TextClassifier(analyzer="chars").fit(docs, y)
    with pytest.raises(InvalidParameterError, match="stop_words"):
        nbayes.TextClassifier(analyzer="char_wb", stop_words="english").fit(docs, y)
    with pytest.raises(InvalidParameterError, match="stop_words"):
        Vectorizer(analyzer="char", stop_words=["ab"]).fit(docs)
    with pytest.raises(InvalidParameterError, match="ngram_range"):
        Vectorizer(analyzer="char", ngram_range=(3, 2)).fit(docs)


@pytest.mark.parametrize("analyzer", ANALYZERS)
def test_tables_grow_mid_batch(analyzer):
    """Long documents of many distinct grams: the learner stops before the one that could
    overflow its tables, grows them and resumes (unlike a short batch, which fits at once)."""
    rng = np.random.default_rng(3)
    alphabet = np.array(list("abcdefghijklmnopqrstuvwxyzéü日 \t\n"))
    docs = ["short one", *("".join(rng.choice(alphabet, size=n)) for n in (30_000, 5, 60_000)), ""]
    ref = CountVectorizer(analyzer=analyzer, ngram_range=(1, 4))
    ours = Vectorizer(analyzer=analyzer, ngram_range=(1, 4))
    assert (ours.fit_transform(docs) != ref.fit_transform(docs)).nnz == 0
    assert_array_equal(ours.get_feature_names_out(), ref.get_feature_names_out())


def test_em_with_unlabelled_documents(sms):
    docs, y = sms
    clf = nbayes.TextClassifier(analyzer="char_wb", ngram_range=(2, 4), alpha=0.1)
    clf.fit(docs[:60], y[:60], X_unlabeled=docs[60:600])
    assert clf.n_iter_ >= 1
    assert (clf.predict(docs[600:]) == y[600:]).mean() > 0.85


def test_search_over_analyzers_equals_grid_search(sms):
    """The analyzer shapes the statistics: a search counts once per analyzer, and its scores
    are scikit-learn's GridSearchCV scores over the same pipelines (accuracy: scikit-learn's
    log-loss clips probabilities at machine epsilon, nbayes' uses the exact log-probability,
    and char n-grams on long messages go below it)."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from nbayes.model_selection import SearchCV

    docs, y = sms
    docs, y = docs[:500], y[:500]
    cv = StratifiedKFold(3, shuffle=True, random_state=2)
    grid = {"analyzer": ["word", "char", "char_wb"], "alpha": [0.01, 1.0]}
    ours = SearchCV(nbayes.TextClassifier(ngram_range=(1, 3)), grid, cv=cv, scoring="accuracy").fit(docs, y)
    ref = GridSearchCV(make_pipeline(CountVectorizer(ngram_range=(1, 3)), MultinomialNB()),
                       {"countvectorizer__analyzer": grid["analyzer"], "multinomialnb__alpha": grid["alpha"]},
                       cv=cv, scoring="accuracy").fit(docs, y)
    order = [(p["analyzer"], p["alpha"]) for p in ours.cv_results_["params"]]
    theirs = {(p["countvectorizer__analyzer"], p["multinomialnb__alpha"]): s
              for p, s in zip(ref.cv_results_["params"], ref.cv_results_["mean_test_score"])}
    assert_allclose(ours.cv_results_["mean_test_score"], [theirs[k] for k in order], rtol=1e-12)
    assert ours.best_score_ == pytest.approx(ref.best_score_, abs=1e-12)
    assert ours.best_estimator_.analyzer == ours.best_params_["analyzer"]
