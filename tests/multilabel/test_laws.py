"""partial_fit, merge and unlearn are the statistics' arithmetic: exact, as for the base model."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from numpy.testing import assert_allclose

import nbayes
from nbayes import MultiLabel
from nbayes.errors import MergeError, UnlearnError

LABELS = ["a", "b", "c"]


@st.composite
def data(draw):
    n = draw(st.integers(4, 14))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 4), min_size=3, max_size=3), min_size=n, max_size=n)))
    tags = draw(st.lists(st.lists(st.sampled_from(LABELS), min_size=1, max_size=3, unique=True), min_size=n, max_size=n))
    cut = draw(st.integers(1, n - 1))
    return X, tags, cut


def fresh():
    return MultiLabel(nbayes.MultinomialNB(alpha=0.7), threshold=0.5)


def same(a, b, X):
    assert a.classes_.tolist() == b.classes_.tolist()
    assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10, atol=1e-12)
    assert_allclose(a.stats_.feature_count, b.stats_.feature_count, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(data())
def test_partial_fit_over_chunks_equals_fit(d):
    X, tags, cut = d
    whole = fresh().fit(X, tags)
    chunked = fresh().partial_fit(X[:cut], tags[:cut]).partial_fit(X[cut:], tags[cut:])
    same(whole, chunked, X)


@settings(max_examples=25, deadline=None)
@given(data())
def test_merge_equals_fit_on_the_union(d):
    X, tags, cut = d
    merged = fresh().fit(X[:cut], tags[:cut]).merge(fresh().fit(X[cut:], tags[cut:]))
    same(fresh().fit(X, tags), merged, X)


@settings(max_examples=25, deadline=None)
@given(data())
def test_unlearn_equals_fit_without_the_rows(d):
    X, tags, cut = d
    model = fresh().fit(X, tags).unlearn(X[cut:], tags[cut:])
    rest = fresh().fit(X[:cut], tags[:cut])
    # a label only the forgotten rows carried stays, with no weight: never predicted
    P = model.predict_proba(X)
    for j, lab in enumerate(model.classes_.tolist()):
        if lab in rest.classes_.tolist():
            assert_allclose(P[:, j], rest.predict_proba(X)[:, rest.classes_.tolist().index(lab)], rtol=1e-9, atol=1e-12)
        else:
            assert (P[:, j] == 0).all()


def test_text_partial_fit_merge_unlearn(texts):
    docs, tags = texts
    base = nbayes.TextClassifier(alpha=0.5)
    whole = MultiLabel(base, threshold=0.5).fit(docs, tags)
    parts = MultiLabel(base, threshold=0.5).partial_fit(docs[:5], tags[:5]).partial_fit(docs[5:], tags[5:])
    merged = MultiLabel(base, threshold=0.5).fit(docs[:7], tags[:7]).merge(
        MultiLabel(base, threshold=0.5).fit(docs[7:], tags[7:]))
    for m in (parts, merged):
        assert_allclose(m.predict_proba(docs), whole.predict_proba(docs), rtol=1e-10, atol=1e-12)
    back = whole.unlearn(docs[7:], tags[7:])
    ref = MultiLabel(base, threshold=0.5).fit(docs[:7], tags[:7])
    cols = [back.classes_.tolist().index(c) for c in ref.classes_.tolist()]
    assert_allclose(back.predict_proba(docs[:7])[:, cols], ref.predict_proba(docs[:7]), rtol=1e-9, atol=1e-12)


def test_thresholds_are_kept_by_partial_fit_and_merge(texts):
    docs, tags = texts
    ml = MultiLabel(nbayes.TextClassifier(), cv=3).fit(docs, tags)
    th = dict(zip(ml.classes_.tolist(), ml.thresholds_))
    ml.partial_fit(["sugar beet crop"], [["sugar", "grain"]])
    got = dict(zip(ml.classes_.tolist(), ml.thresholds_))
    assert got["sugar"] == 0.0 and all(got[k] == v for k, v in th.items())


def test_unlearn_refuses_what_was_never_learned(texts):
    docs, tags = texts
    ml = MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, tags)
    before = ml.predict_proba(docs)
    with pytest.raises(UnlearnError, match="'sugar'"):
        ml.unlearn(["wheat harvest"], [["sugar"]])
    with pytest.raises(UnlearnError):
        ml.unlearn([docs[0]] * 3, [tags[0]] * 3)
    assert_allclose(ml.predict_proba(docs), before, rtol=0, atol=0)


def test_merge_refuses_other_models(texts):
    docs, tags = texts
    a = MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, tags)
    with pytest.raises(MergeError):
        a.merge(MultiLabel(nbayes.TextClassifier(ngram_range=(1, 2)), threshold=0.5).fit(docs, tags))
    with pytest.raises(MergeError):
        a.merge(nbayes.TextClassifier().fit(docs, [t[0] for t in tags]))
    nblr = MultiLabel(nbayes.TextClassifier(model="nblr"), threshold=0.5).fit(docs, tags)
    with pytest.raises(MergeError):
        nblr.merge(nblr)


# ---------------------------------------------------------------- over binned columns (issue #29)
pd = pytest.importorskip("pandas")
BINNED = [  # NaiveBayes with a binned and a categorical column; with binned columns alone (BinnedNB)
    lambda: nbayes.NaiveBayes(column_types={"g": "binned", "c": "categorical"}, bin_edges={"g": [1.5, 3.5]}),
    lambda: nbayes.NaiveBayes(column_types={"g": "binned", "h": "binned"}, bin_edges={"g": [1.5, 3.5], "h": [0.5]}),
]


@st.composite
def binned_data(draw):
    n = draw(st.integers(4, 14))
    g = draw(st.lists(st.floats(0, 5, allow_nan=False), min_size=n, max_size=n))
    h = draw(st.lists(st.sampled_from([0.0, 1.0, 7.0]), min_size=n, max_size=n))
    c = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n))
    tags = draw(st.lists(st.lists(st.sampled_from(LABELS), min_size=1, max_size=3, unique=True), min_size=n, max_size=n))
    return pd.DataFrame({"g": g, "h": h, "c": c}), tags, draw(st.integers(1, n - 1))


def _binned(base, X):
    cols = list(base().column_types)
    return X[cols]


@pytest.mark.parametrize("base", BINNED, ids=["mixed", "binned-only"])
@settings(max_examples=20, deadline=None)
@given(d=binned_data())
def test_binned_base_partial_fit_merge_unlearn_equal_fit(base, d):
    X, tags, cut = d
    X = _binned(base, X)

    def make():
        return MultiLabel(base(), threshold=0.5)

    whole = make().fit(X, tags)
    chunked = make().partial_fit(X[:cut], tags[:cut]).partial_fit(X[cut:], tags[cut:])
    merged = make().fit(X[:cut], tags[:cut]).merge(make().fit(X[cut:], tags[cut:]))
    for other in (chunked, merged):
        assert other.classes_.tolist() == whole.classes_.tolist()
        assert_allclose(other.predict_proba(X), whole.predict_proba(X), rtol=1e-10, atol=1e-12)
    back = make().fit(X, tags).partial_fit(X[:cut], tags[:cut]).unlearn(X[:cut], tags[:cut])
    assert_allclose(back.predict_proba(X), whole.predict_proba(X), rtol=1e-10, atol=1e-12)


def test_binned_base_is_per_label_binary_naive_bayes():
    """Label l's probability is the binary NaiveBayes of "l against the rest" on the same bins."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"g": rng.uniform(0, 5, 40).round(1), "c": rng.choice(["x", "y"], 40)})
    tags = [list(rng.choice(LABELS, rng.integers(1, 3), replace=False)) for _ in range(40)]
    m = MultiLabel(BINNED[0](), threshold=0.5).fit(X, tags)
    P = m.predict_proba(X)
    for j, lab in enumerate(m.classes_.tolist()):
        yes = np.array([lab in t for t in tags])
        ref = BINNED[0]().fit(X, yes)
        assert_allclose(P[:, j], ref.predict_proba(X)[:, ref.classes_.tolist().index(True)], rtol=1e-9, atol=1e-12)
