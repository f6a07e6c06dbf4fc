"""The laws over every text configuration: a stream of chunks (empty ones included) equals one
fit, explanations add up to the joint log-probability, and unlearning equals never learning."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import nbayes
from nbayes import ComplementNB, TextClassifier

DOCS = [
    "cheap pills now", "cheap cheap offer", "buy pills online now", "Cheap offer, the best offer",
    "meeting at noon", "lunch meeting today", "the budget meeting notes", "noon lunch and budget",
    "goal match score", "match today the final", "score goal goal", "final whistle of the match",
]
LABELS = ["spam"] * 4 + ["ham"] * 4 + ["sport"] * 4
#: documents without a surviving term: empty, one-letter words, stop words only
NO_TERMS = ["", "a b c", "the of and", "   ,;  "]
PROBES = [
    "cheap meeting", "goal pills noon noon", "unknownword zzz", "", "Cheap CHEAP the offer offer",
    "the final match of the cheap lunch", "İstanbul naïve ΟΔΟΣ meeting",
]
_FROZEN = TextClassifier(tfidf=True).fit(DOCS + ["zz yy"], LABELS + ["ham"]).idf_

CONFIGS = {
    "multinomial": {},
    "complement": {"model": "complement"},
    "complement_norm": {"model": "complement", "norm": True},
    "bernoulli": {"model": "bernoulli"},
    "binary": {"binary": True},
    "no_fit_prior": {"fit_prior": False},
    "tfidf": {"tfidf": True},
    "tfidf_sublinear_complement": {"tfidf": True, "sublinear_tf": True, "model": "complement"},
    "tfidf_frozen": {"tfidf": True, "idf": _FROZEN},
    "tfidf_frozen_sublinear": {"tfidf": True, "idf": _FROZEN, "sublinear_tf": True, "model": "complement"},
    "tfidf_presence_no_idf": {"tfidf": True, "binary": True, "use_idf": False, "model": "complement", "norm": True},
    "tfidf_frozen_binary": {"tfidf": True, "idf": _FROZEN, "binary": True},
    "hashing": {"n_features": 64},
    "hashing_collisions": {"n_features": 5, "model": "bernoulli"},
    "hashing_bigrams_stop": {"n_features": 97, "ngram_range": (1, 2), "stop_words": "english"},
    "bigrams": {"ngram_range": (1, 2)},
    "bigrams_only_bernoulli": {"ngram_range": (2, 2), "model": "bernoulli"},
    "stop_english": {"stop_words": "english", "model": "complement"},
    "stop_list": {"stop_words": ["cheap", "meeting"]},
    "min_df": {"min_df": 2},
    "max_df": {"max_df": 0.15, "model": "bernoulli"},
    "max_features": {"max_features": 6},
    "hashing_pruned": {"n_features": 64, "min_df": 2},
    "case_kept": {"lowercase": False, "ngram_range": (1, 3)},
    "nblr": {"model": "nblr"},
    "nblr_bigrams": {"model": "nblr", "ngram_range": (1, 2)},
}


def configs_with(capability: str) -> list:
    return [pytest.param(kw, id=name) for name, kw in CONFIGS.items()
            if capability in TextClassifier(**kw).capabilities]


def aligned_proba(model: TextClassifier, docs: list[str], classes: list) -> np.ndarray:
    """predict_proba with columns in the order ``classes`` (0 for a class the model lacks)."""
    P = model.predict_proba(docs)
    out = np.zeros((len(docs), len(classes)))
    own = model.classes_.tolist()
    for k, c in enumerate(classes):
        if c in own:
            out[:, k] = P[:, own.index(c)]
    return out


# ---------------------------------------------------------------------------- streams
@pytest.mark.parametrize("kw", configs_with("partial_fit"))
def test_chunks_without_terms_stream_like_one_fit(kw):
    chunks = [
        (["", "a b"], ["spam", "ham"]),  # no term survives: a valid first chunk
        (NO_TERMS, ["ham"] * len(NO_TERMS)),  # only empty / stop words, one class
        (DOCS[:3], LABELS[:3]),  # one class
        (DOCS[3:8], LABELS[3:8]),
        (["the and of"], ["sport"]),  # brings a new class, without a term
        (DOCS[8:], LABELS[8:]),
    ]
    streamed = TextClassifier(**kw)
    for X, y in chunks:
        streamed.partial_fit(X, y)
    whole = TextClassifier(**kw).fit([d for X, _ in chunks for d in X], [c for _, y in chunks for c in y])
    assert_array_equal(streamed.classes_, whole.classes_)
    assert_allclose(streamed.predict_proba(PROBES), whole.predict_proba(PROBES), rtol=1e-12, atol=1e-12)
    assert_array_equal(streamed.predict(PROBES), whole.predict(PROBES))
    assert streamed.vocabulary_ == whole.vocabulary_


@pytest.mark.parametrize("kw", [pytest.param(kw, id=name) for name, kw in CONFIGS.items()])
def test_a_model_without_terms_predicts_by_its_prior(kw):
    docs, labels = ["", "a b c", "   ,;  ", "", "a", "x y"], ["spam", "ham", "spam", "ham", "spam", "spam"]
    model = TextClassifier(**kw).fit(docs, labels)
    if kw.get("n_features") and kw.get("model") == "bernoulli":
        # every bucket is a column (as HashingVectorizer): Bernoulli learned that all are absent,
        # which is a vocabulary, and a present bucket then says something about the class
        check_adds_up(model, "cheap pills unknown")
        return
    P = model.predict_proba(PROBES)
    assert_allclose(P, np.broadcast_to(P[0], P.shape), rtol=1e-12)  # nothing but the prior
    if kw in ({}, {"binary": True}):  # the fitted prior: class frequencies
        assert_allclose(P[0], [2 / 6, 4 / 6], rtol=1e-12)
    if "idf" not in kw and kw.get("n_features") is None:
        assert model.vocabulary_ == {}
    explained = model.explain("cheap pills unknown")
    assert_array_equal(explained.contributions, 0.0)  # no counts: every class weighs a term alike
    check_adds_up(model, "cheap pills unknown")
    # the stream goes on: words arrive
    if "partial_fit" in model.capabilities:
        model.partial_fit(DOCS, LABELS)
        whole = TextClassifier(**kw).fit(docs + DOCS, labels + LABELS)
        assert_allclose(model.predict_proba(PROBES), whole.predict_proba(PROBES), rtol=1e-12, atol=1e-12)


def test_the_issue_example_streams():
    clf = TextClassifier().partial_fit(["", "a b"], [0, 1])
    assert_allclose(clf.predict_proba(["anything here"]), [[0.5, 0.5]])
    clf.partial_fit(["cheap pills", "noon meeting"], [0, 1])
    whole = TextClassifier().fit(["", "a b", "cheap pills", "noon meeting"], [0, 1, 0, 1])
    assert_allclose(clf.predict_proba(PROBES), whole.predict_proba(PROBES), rtol=1e-12)


# ---------------------------------------------------------------------------- explanations
EXPLAINED = PROBES + ["ff ff ff ff", "cheap cheap cheap pills pills", "goal, goal! GOAL the match match"]


def check_adds_up(model: TextClassifier, text: str) -> None:
    e = model.explain(text)
    joint = model.predict_joint_log_proba([text])[0]
    order = np.argsort(-joint, kind="stable")
    a, b = order[0], order[1]
    assert e.predicted == model.classes_[a] and e.runner_up == model.classes_[b]
    assert e.predicted == model.predict([text])[0]
    assert len(e.tokens) == len(e.spans) == len(e.contributions)
    assert_allclose(e.contributions.sum() + e.baseline, joint[a] - joint[b], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kw", configs_with("explain"))
def test_explanations_add_up(kw):
    model = TextClassifier(**kw).fit(DOCS + ["ff gg", "ff ff hh"], LABELS + ["spam", "ham"])
    for text in EXPLAINED:
        check_adds_up(model, text)


@pytest.mark.parametrize("kw", [CONFIGS["tfidf"], CONFIGS["tfidf_frozen_sublinear"], CONFIGS["bigrams"],
                                CONFIGS["hashing_collisions"], CONFIGS["nblr_bigrams"]])
@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["cheap", "pills", "meeting", "noon", "goal", "the", "ff", "zz", "Ω", "ÄÖ"]),
                max_size=12), st.text(max_size=10))
def test_explanations_add_up_on_random_documents(kw, words, noise):
    model = _fitted(tuple(sorted((k, str(v)) for k, v in kw.items())), kw)
    check_adds_up(model, " ".join(words) + " " + noise)


_CACHE: dict = {}


def _fitted(key: tuple, kw: dict) -> TextClassifier:
    if key not in _CACHE:
        _CACHE[key] = TextClassifier(**kw).fit(DOCS + ["ff gg", "ff ff hh"], LABELS + ["spam", "ham"])
    return _CACHE[key]


def test_tfidf_issue_example_and_a_token_is_its_weighted_count_times_the_weight_difference():
    model = TextClassifier(tfidf=True).fit(["ff gg", "ff ff hh", "gg hh zz"], [0, 1, 1])
    e = model.explain("ff ff ff ff")
    joint = model.predict_joint_log_proba(["ff ff ff ff"])[0]
    assert_allclose(e.contributions.sum() + e.baseline, abs(joint[1] - joint[0]), rtol=1e-12)
    # the document's tf-idf vector is (1 on "ff"): each of the four carries a quarter
    w = model._weights[model.vocabulary_["ff"]]
    assert_allclose(e.contributions, np.full(4, abs(w[1] - w[0]) / 4) * np.sign(w[1] - w[0]) *
                    (1 if e.predicted == 1 else -1), rtol=1e-12)


def test_an_ngram_is_its_own_term_shown_as_counted():
    model = TextClassifier(ngram_range=(1, 2), stop_words="english").fit(
        ["cheap pills", "noon meeting", "cheap the pills"], ["spam", "ham", "spam"])
    text = "Cheap, the PILLS"
    e = model.explain(text)
    assert e.tokens == ["cheap", "pills", "cheap pills"]
    assert [text[s:t] for s, t in e.spans] == ["Cheap", "PILLS", "Cheap, the PILLS"]
    assert "cheap pills" in model.vocabulary_
    check_adds_up(model, text)


def test_presence_counts_a_term_once_and_repeats_weigh_nothing():
    model = TextClassifier(model="bernoulli").fit(DOCS, LABELS)
    e = model.explain("cheap cheap cheap")
    assert e.contributions[0] != 0 and e.contributions[1] == e.contributions[2] == 0


# ---------------------------------------------------------------------------- forgetting
A_IDX = [0, 1, 2, 4, 5, 6, 7]  # spam and ham; "budget", "notes" ... stay
HOLDERS = [3, 9]  # hold "best" / "final": with B = these, their terms appear nowhere else in A


@pytest.mark.parametrize("kw", configs_with("unlearn"))
@pytest.mark.parametrize("removed", ["a whole class", "unique terms", "mixed"])
def test_unlearning_equals_never_learning(kw, removed):
    docs = DOCS + ["unique zebra words", "xylophone quartz"]
    labels = LABELS + ["ham", "sport"]
    n = len(docs)
    if removed == "a whole class":
        B = [i for i in range(n) if labels[i] == "sport"]
    elif removed == "unique terms":
        B = HOLDERS + [n - 2, n - 1]
    else:
        B = [1, 5, 8, 9, 10, 11, n - 1]  # all of sport, and terms held nowhere else
    A = [i for i in range(n) if i not in B]
    full = TextClassifier(**kw).fit(docs, labels)
    forgot = full.unlearn([docs[i] for i in B], [labels[i] for i in B])
    never = TextClassifier(**kw).fit([docs[i] for i in A], [labels[i] for i in A])
    classes = forgot.classes_.tolist()
    probes = PROBES + ["zebra quartz xylophone", "final best whistle"]
    P = forgot.predict_proba(probes)
    assert_allclose(P, aligned_proba(never, probes, classes), rtol=1e-9, atol=1e-12)
    assert_array_equal(forgot.predict(probes), never.predict(probes))
    assert forgot.vocabulary_ == never.vocabulary_
    assert forgot.stats_.terms.tolist() == never.stats_.terms.tolist()  # a forgotten term is gone
    gone = [k for k, c in enumerate(classes) if c not in never.classes_.tolist()]
    assert (P[:, gone] == 0).all()
    assert (forgot.predict_joint_log_proba(probes)[:, gone] == -np.inf).all()
    for text in probes:  # still explained exactly, the gone class never the winner
        check_adds_up(forgot, text) if "explain" in forgot.capabilities else None


@pytest.mark.parametrize("kw", configs_with("partial_fit"))
def test_a_declared_class_never_seen_is_never_predicted(kw):
    model = TextClassifier(**kw).partial_fit(DOCS[:8], LABELS[:8], classes=["ham", "spam", "sport"])
    P = model.predict_proba(PROBES)
    assert (P[:, 2] == 0).all() and "sport" not in model.predict(PROBES).tolist()
    assert_allclose(P[:, :2], TextClassifier(**kw).fit(DOCS[:8], LABELS[:8]).predict_proba(PROBES), rtol=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("norm", [False, True])
@pytest.mark.parametrize("fit_prior", [True, False])
def test_complement_nb_forgets_a_class(rng, sparse, norm, fit_prior):
    X = rng.poisson(1.0, (60, 8)).astype(float)
    X[:, 7] = 0
    y = np.repeat([0, 1, 2], 20)
    X[y == 2, 7] = rng.poisson(3.0, 20) + 1  # column 7: held by class 2 alone
    conv = sp.csr_matrix if sparse else np.asarray
    kw = {"norm": norm, "fit_prior": fit_prior}
    for B in (y == 2, (y == 2) | (np.arange(60) % 7 == 0)):
        forgot = ComplementNB(**kw).fit(conv(X), y).unlearn(conv(X[B]), y[B])
        never = ComplementNB(**kw).fit(conv(X[~B]), y[~B])
        P = forgot.predict_proba(conv(X))
        assert (P[:, 2] == 0).all() and not (forgot.predict(conv(X)) == 2).any()
        assert_allclose(P[:, :2], never.predict_proba(conv(X)), rtol=1e-9, atol=1e-12)
        assert_allclose(forgot.explain(conv(X[:5])).joint(), forgot.predict_joint_log_proba(conv(X[:5])))


def test_complement_nb_declared_class_never_seen(rng):
    X = rng.poisson(1.0, (30, 5)).astype(float)
    y = np.repeat([0, 1], 15)
    model = ComplementNB().partial_fit(X, y, classes=[0, 1, 2])
    assert (model.predict_proba(X)[:, 2] == 0).all()
    assert_allclose(model.predict_proba(X)[:, :2], ComplementNB().fit(X, y).predict_proba(X), rtol=1e-12)


def test_the_issue_examples_forget():
    B = [i for i in range(len(LABELS)) if LABELS[i] == "sport"]
    model = TextClassifier(model="complement").fit(DOCS, LABELS)
    model.unlearn([DOCS[i] for i in B], [LABELS[i] for i in B])
    assert (model.predict_proba(PROBES)[:, model.classes_.tolist().index("sport")] == 0).all()
    assert "sport" not in model.predict(PROBES).tolist()
