"""Issue #27, text models: a batch's statistics are the exact weighted sums of its documents
(value and tail, nbayes.stats.text_exact), so learning and unlearning give them back bit for bit
whatever the weights, in whatever batches the documents come and go."""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.stats.text_exact import add_bounds, class_sums, group_sums, plain_bound, whole_bound

MAGNITUDES = [1e-300, 1e-150, 1e-20, 0.1, 0.3, 1 / 3, 1.0, 7.0, 1e12, 1e17, 1e150, 1e300]
DOCS = ["oil tanker ship oil", "grain wheat", "oil price ship", "wheat harvest ship", "tanker grain price",
        "harvest wheat wheat", "ship oil", "price grain oil tanker"]
Y = [0, 1, 0, 1, 0, 1, 0, 1]
FROZEN = {w: 1.0 + 0.25 * i for i, w in enumerate(sorted(set(" ".join(DOCS).split())))}
SETTINGS = {
    "vocabulary": dict(),
    "presence": dict(binary=True),
    "bernoulli": dict(model="bernoulli"),
    "hashing": dict(n_features=16),
    "bigrams": dict(ngram_range=(1, 2)),
    "char": dict(analyzer="char_wb", ngram_range=(2, 3)),
    "char-hashing": dict(analyzer="char", ngram_range=(1, 2), n_features=32),
    "tfidf-frozen": dict(tfidf=True, idf=FROZEN),
}


def _arrays(model) -> dict[str, bytes]:
    return {k: np.asarray(v).tobytes() for k, v in model.stats_.to_arrays().items()}


def _exact(expansion: list[np.ndarray], i: int) -> Fraction:
    return sum((Fraction(float(np.asarray(c).ravel()[i])) for c in expansion), Fraction(0))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.sampled_from(MAGNITUDES + [-0.1, 2.5, 5e-324]), min_size=1, max_size=40),
       keys=st.data())
def test_group_sums_are_the_exact_sums_in_canonical_form(values, keys):
    k = np.array(keys.draw(st.lists(st.integers(0, 4), min_size=len(values), max_size=len(values))))
    got_keys, comps = group_sums(k, [np.array(values)])
    assert got_keys.tolist() == sorted(set(k.tolist()))
    for i, key in enumerate(got_keys.tolist()):
        want = sum((Fraction(v) for v, kk in zip(values, k.tolist()) if kk == key), Fraction(0))
        assert _exact(comps, i) == want
        assert float(comps[0][i]) == float(want)  # the leading part: the float nearest the exact sum


def test_class_sums_of_products_are_exact():
    import scipy.sparse as sp
    X = sp.csr_matrix(np.array([[3.0, 0.0, 1.0], [2.0, 5.0, 0.0], [1.0, 1.0, 7.0]]))
    w = np.array([0.1, 1e-300, 1 / 3])
    value, tail = class_sums(X, np.array([0, 0, 1]), 2, w, dense=True)
    for c, rows in ((0, [0, 1]), (1, [2])):
        for j in range(3):
            want = sum((Fraction(float(w[r])) * Fraction(float(X[r, j])) for r in rows), Fraction(0))
            assert _exact([value, *tail], c * 3 + j) == want


def test_bounds_say_when_float_sums_are_exact():
    assert plain_bound(None, 10) == (10.0 * (1 + 2.0**-50), 0)
    assert plain_bound(np.array([0.5, 1.5]), 10) is not None  # halves: on a grid of 2**-1
    assert plain_bound(np.array([0.1]), 10) is None
    assert plain_bound(np.array([1e17]), 1) is None  # past 2**53
    assert add_bounds((2.0**52, 0), (2.0**52, 0)) is None
    assert add_bounds((1.0, 60), (1.0, 0)) is None  # 2**-60 steps beside 1: not on one 53-bit grid


@pytest.mark.parametrize("name", SETTINGS)
def test_whole_weights_count_on_the_fast_path_as_the_exact_one(name):
    """The kernels' float sums (whole weights) and the exact recount (a weight of 0.5 somewhere
    turned into 0.75, then scaled back) agree: the exact path counts what the kernels count."""
    w = np.arange(1, len(DOCS) + 1, dtype=float)
    fast = nbayes.TextClassifier(**SETTINGS[name]).fit(DOCS, Y, sample_weight=w)
    assert whole_bound(fast.stats_) is not None or name == "tfidf-frozen"
    slow = nbayes.TextClassifier(**SETTINGS[name]).fit(DOCS, Y, sample_weight=w * 0.1)
    a, b = fast.stats_, slow.stats_
    dense = [(m.toarray() if hasattr(m, "toarray") else m) for m in (a.term_count, b.term_count, a.doc_count,
                                                                        b.doc_count)]
    np.testing.assert_allclose(dense[0] * 0.1, dense[1], rtol=1e-15)
    np.testing.assert_allclose(dense[2] * 0.1, dense[3], rtol=1e-15)
    np.testing.assert_array_equal(a.df, b.df)


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(SETTINGS)), w=st.lists(st.sampled_from(MAGNITUDES), min_size=8, max_size=8),
       split=st.lists(st.booleans(), min_size=8, max_size=8))
def test_unlearning_documents_in_other_batches_gives_the_fit_of_the_rest(name, w, split):
    """fit(A and B) then unlearn B one document at a time is fit(A), bit for bit: the statistics
    are the exact sums of the documents held, not of the batches they came in."""
    keep = [i for i in range(8) if not split[i]] + [0, 1]  # both classes stay
    gone = [i for i in range(8) if split[i] and i > 1]
    est = nbayes.TextClassifier(**SETTINGS[name])
    try:
        want = copy.deepcopy(est).fit([DOCS[i] for i in keep], [Y[i] for i in keep],
                                      sample_weight=[w[i] for i in keep])
        model = copy.deepcopy(est).fit([DOCS[i] for i in keep + gone], [Y[i] for i in keep + gone],
                                       sample_weight=[w[i] for i in keep + gone])
    except nbayes.errors.NBayesError:
        return  # a clean refusal: sums past float64's range
    for i in reversed(gone):
        model.unlearn([DOCS[i]], [Y[i]], sample_weight=[w[i]])
    assert _arrays(model) == _arrays(want)


@pytest.mark.parametrize("name", SETTINGS)
def test_a_stream_of_fractional_chunks_is_exact(name, tmp_path):
    """partial_fit chunks (the in-place path for whole weights, the exact one otherwise), then
    unlearn them in reverse: the first fit's statistics, bit for bit; the file loads each time."""
    est = nbayes.TextClassifier(**SETTINGS[name])
    model = est.fit(DOCS[:4], Y[:4], sample_weight=[1.0, 2.0, 3.0, 4.0])
    before = _arrays(model)
    chunks = [(DOCS[4:6], Y[4:6], [1.0, 1.0]), (DOCS[6:7], Y[6:7], [0.1]), (DOCS[7:], Y[7:], [1 / 3]),
              (DOCS[:2], Y[:2], [2.0, 5.0])]
    for X, y, cw in chunks:
        model.partial_fit(X, y, sample_weight=cw)
        model.save(tmp_path / "m.nbm")
        nbayes.load(tmp_path / "m.nbm")
    for X, y, cw in reversed(chunks):
        model.unlearn(X, y, sample_weight=cw)
    assert _arrays(model) == before


def test_frozen_tfidf_sums_are_the_exact_weighted_sums_of_each_documents_vector():
    """The rule (docs/architecture.md): each document's tf-idf vector is computed from it alone
    (counts, the frozen idf, unit L2 norm); the per-class sums of weight times vector are exact."""
    w = np.array([0.1, 1 / 3, 7.0, 1e-20, 0.3, 1e12, 2.5, 1.0])
    model = nbayes.TextClassifier(tfidf=True, idf=FROZEN).fit(DOCS, Y, sample_weight=w)
    idf = model._fitted_idf()
    rows = model.tfidf_rows(model.transform(DOCS).astype(float), idf).toarray()
    for d in range(len(DOCS)):  # each row: one document's vector, the same alone as in the batch
        alone = model.tfidf_rows(model.transform([DOCS[d]]).astype(float), idf).toarray()[0]
        assert alone.tobytes() == rows[d].tobytes()
    sums = model.stats_.weighted[2]
    tail = model.stats_.exact.get("tfidf_sums", [])
    for c in (0, 1):
        for j in range(sums.shape[1]):
            want = sum((Fraction(float(w[d])) * Fraction(float(rows[d, j])) for d in range(len(DOCS)) if Y[d] == c),
                       Fraction(0))
            assert _exact([sums, *tail], c * sums.shape[1] + j) == want
