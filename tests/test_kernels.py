"""Each compiled kernel against its NumPy twin."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from nbayes._kernels import run, threads
from nbayes._kernels import categorical as kc
from nbayes._kernels import gaussian as kg
from nbayes._kernels import normalize as kn


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("n", [1, 7, 513, 5000])  # below, at and above one block of rows
def test_moments(rng, n, weighted):
    K, d = 4, 6
    X = rng.normal(3.0, 2.0, (n, d))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, K - 1, n)  # class K-1 never appears
    w = rng.random(n) * 2 if weighted else None
    cc, W, mu, m2, bad = run(kg.moments, X, y, w if weighted else np.empty(0), weighted, K, threads())
    ref = kg.moments_numpy(X, y, w, K)
    assert bad == -1
    for got, want in zip((cc, W, mu, m2), ref):
        assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_moments_flags_infinity(rng):
    X = rng.normal(size=(2000, 3))
    X[1234, 2] = -np.inf
    *_, bad = run(kg.moments, X, np.zeros(2000, dtype=np.intp), np.empty(0), False, 1, threads())
    assert bad == 1234


def test_joint_log_likelihood(rng):
    X = rng.normal(size=(3000, 5))
    X[rng.random(X.shape) < 0.1] = np.nan
    mu, var = rng.normal(size=(3, 5)), rng.random((3, 5)) + 0.1
    prec, lognorm, icpt = 0.5 / var, -0.5 * np.log(2 * np.pi * var), np.log([0.2, 0.3, 0.5])
    out, bad = run(kg.joint_log_likelihood, X, mu, prec, lognorm, icpt, threads())
    assert bad == -1
    assert_allclose(out, kg.joint_log_likelihood_numpy(X, mu, prec, lognorm, icpt), rtol=1e-12)
    X[17, 1] = np.inf
    assert run(kg.joint_log_likelihood, X, mu, prec, lognorm, icpt, threads())[1] == 17


def test_log_normalize(rng):
    jll = rng.normal(-500, 50, (1000, 4))
    jll[3] = -np.inf
    jll[5, :2] = -np.inf
    fallback = np.log([0.1, 0.2, 0.3, 0.4])
    want = kn.log_normalize_numpy(jll.copy(), fallback)
    got = run(kn.log_normalize, jll.copy(), fallback)
    assert_allclose(got, want, rtol=1e-12)
    assert_array_equal(got[3], fallback)
    assert not np.isnan(got).any()


def test_answer_rows_equals_predict_and_log_normalize(rng):
    """The served answer's one pass: log_normalize's values to the bit, predict's class (the
    prior's class on a row impossible under every class), the first row that overflowed."""
    jll = rng.normal(-500, 50, (300, 4))
    jll[3] = -np.inf
    jll[5, :2] = -np.inf
    jll[7, 1:] = jll[7, 0]  # ties: the first, as argmax
    fallback = np.log([0.1, 0.4, 0.3, 0.2])
    best, got, bad = kn.answer_rows(jll.copy(), fallback, int(np.argmax(fallback)))
    assert_array_equal(got, run(kn.log_normalize, jll.copy(), fallback))
    want = np.argmax(jll, axis=1)
    want[3] = 1
    assert_array_equal(best, want)
    assert bad == -1
    for row, value in ((11, np.nan), (9, np.inf)):
        jll[row, 2] = value
    assert kn.answer_rows(jll.copy(), fallback, 1)[2] == 9
    jll[9, 2] = 0.0
    assert kn.answer_rows(jll.copy(), fallback, 1)[2] == 11


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float64])
def test_count_values(rng, dtype):
    n, d, K = 4000, 5, 3
    X = rng.integers(-3, 9, (n, d)).astype(dtype)
    if dtype == np.float64:
        X[rng.random(X.shape) < 0.1] = np.nan
    y = rng.integers(0, K, n)
    w = rng.random(n)
    lo, hi, whole = run(kc.value_range, X, threads())
    assert whole.all()
    assert_array_equal(lo, np.nanmin(X.astype(float), axis=0))
    assert_array_equal(hi, np.nanmax(X.astype(float), axis=0))
    width = (hi - lo + 1).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(K * width)]).astype(np.int64)
    got = run(kc.count_values, X, y, w, True, K, lo, offsets, width, threads())
    assert_allclose(got, kc.count_values_numpy(X, y, w, K, lo, offsets, width), rtol=1e-12)


def test_value_range_spots_fractions(rng):
    X = rng.integers(0, 5, (100, 2)).astype(float)
    X[50, 1] = 2.5
    assert run(kc.value_range, X, threads())[2].tolist() == [True, False]


def test_linear_kernels_equal_their_numpy_twins(rng):
    """Small problems run the NumPy twins, large ones the compiled kernels: same numbers."""
    import scipy.sparse as sp

    from nbayes._kernels import linear as k

    X = sp.random(50, 30, density=0.2, format="csr", random_state=1)
    B = rng.normal(size=(30, 4))
    a, b = np.empty((50, 4)), np.empty((50, 4))
    np.testing.assert_allclose(
        k.csr_dense(X.indptr, X.indices, X.data, B, a), k.csr_dense_numpy(X.indptr, X.indices, X.data, B, b)
    )
    Z = rng.normal(size=(50, 4)) * 30
    codes = rng.integers(0, 4, 50).astype(np.int64)
    w = rng.uniform(0, 2, 50)
    Z1, Z2, P1, P2 = Z.copy(), Z.copy(), np.empty_like(Z), np.empty_like(Z)
    np.testing.assert_allclose(k.softmax_loss(Z1, codes, w, P1), k.softmax_loss_numpy(Z2, codes, w, P2))
    np.testing.assert_allclose(Z1, Z2, atol=1e-12)
    np.testing.assert_allclose(P1, P2, atol=1e-12)
    R1, R2 = Z.copy(), Z.copy()
    np.testing.assert_allclose(k.softmax_hess_factor(R1, P1, w), k.softmax_hess_factor_numpy(R2, P1, w))
    z = rng.normal(size=50) * 40
    y = (codes % 2).astype(float)
    z1, z2, d1, d2 = z.copy(), z.copy(), np.empty(50), np.empty(50)
    np.testing.assert_allclose(k.binary_loss(z1, y, w, d1), k.binary_loss_numpy(z2, y, w, d2))
    np.testing.assert_allclose(z1, z2, atol=1e-12)
    np.testing.assert_allclose(d1, d2, atol=1e-12)
    s, d, M, r = (rng.normal(size=40) for _ in range(4))
    M = np.abs(M) + 0.5
    s1, s2 = s.copy(), s.copy()
    np.testing.assert_allclose(k.axpy_mnorm(s1, 0.3, d, M), k.axpy_mnorm_numpy(s2, 0.3, d, M))
    np.testing.assert_allclose(s1, s2)
    r1, r2, q1, q2 = r.copy(), r.copy(), np.empty(40), np.empty(40)
    np.testing.assert_allclose(k.residual_step(r1, 0.7, d, M, q1), k.residual_step_numpy(r2, 0.7, d, M, q2))
    np.testing.assert_allclose(q1, q2)
    np.testing.assert_allclose(k.direction_step(s.copy(), d, 0.2), k.direction_step_numpy(s.copy(), d, 0.2))
    np.testing.assert_allclose(k.mdots(s, d, M), k.mdots_numpy(s, d, M))
    np.testing.assert_allclose(k.add_scaled(s.copy(), 0.1, d), k.add_scaled_numpy(s.copy(), 0.1, d))
    np.testing.assert_allclose(k.vdot(s, d), k.vdot_numpy(s, d))
    f1, f2 = np.empty(40, np.float32), np.empty(40, np.float32)
    np.testing.assert_array_equal(k.to_float32(s, f1), k.to_float32_numpy(s, f2))
    np.testing.assert_allclose(k.add_from32(s.copy(), f1, 0.5, d), k.add_from32_numpy(s.copy(), f1, 0.5, d))


# ---------------------------------------------------------------------------- text kernels
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from nbayes._kernels import text_twin  # noqa: E402
from nbayes._kernels.text import murmur3  # noqa: E402
from nbayes.text._buffer import to_buffer  # noqa: E402
from nbayes.text.vocab import HashedTerms, Pairs, TermTable, Tokens, hash_terms, learn_terms  # noqa: E402

_WORDS = ["cheap", "pills", "the", "of", "naïve", "ΟΔΟΣ", "東京", "zürich", "ab", "x", "İstanbul", "straße"]
_DOCS = st.lists(
    st.one_of(st.text(max_size=30), st.lists(st.sampled_from(_WORDS), max_size=8).map(" ".join)),
    min_size=1, max_size=6,
)
_MODES = [((1, 1), ()), ((1, 2), ()), ((2, 3), ("the", "of")), ((1, 3), ("the", "cheap"))]


@pytest.mark.parametrize("ngram_range, stop", _MODES)
@pytest.mark.parametrize("n_features", [0, 7, 2**16])  # 0: vocabulary mode; 7: many collisions
@settings(max_examples=30, deadline=None)
@given(docs=_DOCS, data=st.data())
def test_text_kernels_equal_their_twins(ngram_range, stop, n_features, docs, data):
    how = Tokens(ngram_range, list(stop))
    buf, bounds, table = to_buffer(docs)
    lowered = [d.lower() for d in docs]
    K = 3
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))))
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    # counting (with growth of the learner's tables in vocabulary mode)
    if n_features:
        terms, counts, cdf, df, tf = hash_terms(buf, bounds, table, codes, w, K, n_features, how)
        terms = terms.tolist()
    else:
        terms, counts, cdf, df, tf, _ = learn_terms(buf, bounds, table, codes, w, K, how)
        terms = terms.tolist()
    twin = text_twin.count_terms(lowered, codes.tolist(), w.tolist(), K, ngram_range, stop, n_features)
    assert terms == twin[0]
    for got, want in zip((counts.T, cdf.T, df, tf), twin[1:]):
        got = got.toarray() if hasattr(got, "toarray") else got  # vocabulary mode: the pairs seen (CSR)
        assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # looking up: over a vocabulary of part of the terms (the rest unknown), or the buckets
    vocab = sorted(terms[::2]) if not n_features else None
    lookup = HashedTerms(n_features, how) if n_features else TermTable(vocab, how)
    ids = text_twin.term_ids(lowered, ngram_range, stop, {t: i for i, t in enumerate(vocab or [])}, n_features)
    assert_array_equal(lookup.tokens(buf, bounds, table), ids)
    W = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))).normal(size=(len(lookup), 2))
    for binary in (False, True):
        want = text_twin.score(lowered, ngram_range, stop, {t: i for i, t in enumerate(vocab or [])},
                               n_features, W, binary)
        assert_allclose(lookup.score(buf, bounds, table, W, binary), want, rtol=1e-12, atol=1e-12)
        if not n_features:  # weights as (class, term) pairs over a per-class base: the same sums
            # 9 classes, each pair held with probability 0.3: terms held by 3 or more classes
            # score by their full row, the others by their pairs (Pairs.heavy)
            gen = np.random.default_rng(len(terms))
            seen = gen.random((len(lookup), 9)) < 0.3
            base = gen.normal(size=9)
            rows, cls = np.nonzero(seen)
            pairs = Pairs(np.r_[0, np.cumsum(seen.sum(axis=1))].astype(np.int64), cls.astype(np.int64),
                          gen.normal(size=len(rows)), base)
            want = text_twin.score(lowered, ngram_range, stop, {t: i for i, t in enumerate(vocab or [])},
                                   n_features, pairs.dense(), binary)
            assert_allclose(lookup.score_pairs(buf, bounds, table, pairs, binary), want, rtol=1e-12, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_murmur3_equals_its_twin_and_scikit_learn(text):
    from sklearn.utils import murmurhash3_32

    buf, bounds, _ = to_buffer([text], lowercase=False)
    assert murmur3(buf, 0, len(buf)) == text_twin.murmur3(text) == murmurhash3_32(text, positive=False)


def test_text_score_on_threads_equals_one_thread(monkeypatch):
    """``score`` (through ``score_pairs``) splits the documents over Python threads (its compiled loop releases the GIL):
    each document's sums are made in the same order, so the result is the same bit for bit."""
    import nbayes._kernels.text as kt
    from nbayes._kernels.text_pairs import score

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    docs = [" ".join(rng.choice(words, rng.integers(1, 40))) for _ in range(700)]
    buf, bounds, table = to_buffer(docs)
    for lookup in (TermTable(words[::2], Tokens((1, 1), [])), HashedTerms(2**10, Tokens((1, 2), ["w1"]))):
        W = rng.normal(size=(len(lookup), 3))
        for binary in (False, True):
            monkeypatch.setattr(kt, "_MIN_THREAD_DOCS", 10**9)
            one = lookup.score(buf, bounds, table, W, binary)
            monkeypatch.setattr(kt, "_MIN_THREAD_DOCS", 1)
            assert_array_equal(lookup.score(buf, bounds, table, W, binary), one)
            for T in (2, 3, 700):  # more threads than cores, one document each
                w = np.ascontiguousarray(W)
                assert_array_equal(score(buf, bounds, table, *lookup_args(lookup), w, binary, T), one)


def lookup_args(lookup):
    """The kernel arguments between the word table and the weights (as vocab.py passes them)."""
    if isinstance(lookup, HashedTerms):
        from nbayes.text.vocab import _NONE_I, _no_table

        return (*lookup.how.args(), lookup.n_features, _no_table(_NONE_I))
    return (*lookup._how().args(), 0, lookup._terms())


# ------------------------------------------------ word kernels against scikit-learn, all of Unicode
# Characters from the whole code point range (non-BMP included), with the ones the token pattern
# turns on over-represented: combining marks (\w in Python's re? Mn is not), digits of several
# scripts, underscores, letters outside the BMP, separators and punctuation.
_EDGE = ["_", "0", "٣", "٤", "\u0301", "\u0300", "\u200d", "\u00a0", " ", "\n", "-", "'", ".", "\x00", "ß", "İ",
         "ǅ", "ﬁ", "𝔘", "𝟘", "𐐀", "😀", "中", "é", "ÿ", "\u00b5", "\u00aa", "\u2160", "\u3007"]
_ANY = st.characters(min_codepoint=0, max_codepoint=0x10FFFF)  # (surrogates excluded)
_UNICODE_DOCS = st.lists(st.text(st.one_of(_ANY, st.sampled_from(_EDGE)), max_size=40), min_size=1, max_size=5)
_LATIN1_DOCS = st.lists(st.text(st.one_of(st.characters(max_codepoint=255), st.sampled_from(["_", "5", "ÿ", "µ", " "])),
                                max_size=40), min_size=1, max_size=5)


def _sklearn_tokens(doc):
    from sklearn.feature_extraction.text import CountVectorizer

    return CountVectorizer(lowercase=False).build_tokenizer()(doc)


@pytest.mark.parametrize("latin1", [True, False])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_word_tokens_equal_scikit_learn_over_all_of_unicode(latin1, data):
    """The tokeniser (spans of term_ids, uint8 and uint32 buffers) finds exactly scikit-learn's
    ``(?u)\\b\\w\\w+\\b`` tokens, and hashes each as ``murmurhash3_32`` does."""
    from sklearn.utils import murmurhash3_32

    from nbayes._kernels.text import term_ids

    docs = data.draw(_LATIN1_DOCS if latin1 else _UNICODE_DOCS)
    buf, bounds, table = to_buffer(docs, lowercase=False)
    if latin1:
        assert buf.dtype == np.uint8
    elif buf.dtype == np.uint8:
        buf = buf.astype(np.uint32)  # (the wide buffer and table, for text that happens to fit in one byte)
        from nbayes.text._buffer import word_table

        table = word_table(True)
    n_features = 2**18
    how = Tokens()
    got = term_ids(buf, bounds, table, *how.args(), n_features, _lookup_table(None))
    want = [(d, t) for d, doc in enumerate(docs) for t in _sklearn_tokens(doc)]
    assert [(d, docs[d][s:e]) for d, _, s, e in got.tolist()] == want
    for (d, col, s, e), (_, token) in zip(got.tolist(), want):
        h = murmurhash3_32(token, positive=False)
        assert murmur3(buf, int(bounds[d] + s), int(bounds[d] + e)) == h
        assert col == (abs(h) if h != -(2**31) else 2**31 - 1 - (n_features - 1)) % n_features


def _lookup_table(vocab):
    from nbayes.text.vocab import _NONE_I, _no_table

    return _no_table(_NONE_I) if vocab is None else vocab._terms()


_STOP = ["the", "of", "ab", "naïve", "東京"]
_MIXED_DOCS = st.lists(
    st.one_of(st.text(st.one_of(_ANY, st.sampled_from(_EDGE)), max_size=25),
              st.lists(st.sampled_from(_WORDS + _STOP + ["Ab", "THE", "x_1", "𝔘𝔘"]), max_size=10).map(" ".join)),
    min_size=1, max_size=6,
)


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 3), (1, 3)])
@pytest.mark.parametrize("stop", [(), tuple(_STOP)])
@settings(max_examples=25, deadline=None)
@given(docs=_MIXED_DOCS)
def test_word_ngrams_equal_count_and_hashing_vectorizers(ngram_range, stop, docs):
    """Counting (learn_counts) finds CountVectorizer's vocabulary and counts, n-grams formed after
    the stop words are dropped; hashing mode (hash_counts, term_ids, presence rows) gives
    HashingVectorizer's columns."""
    import warnings

    import scipy.sparse as sp
    from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer

    how = Tokens(ngram_range, list(stop))
    buf, bounds, table = to_buffer(docs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn on stop words the lower-casing changes
        cv = CountVectorizer(ngram_range=ngram_range, stop_words=list(stop) or None)
        try:
            X = cv.fit_transform(docs)
            vocab = cv.get_feature_names_out().tolist()
        except ValueError:  # no term at all
            X, vocab = sp.csr_matrix((len(docs), 0)), []
        H = HashingVectorizer(n_features=2**10, ngram_range=ngram_range, stop_words=list(stop) or None,
                              alternate_sign=False, norm=None).transform(docs)
    codes = np.zeros(len(docs), dtype=np.int64)
    terms, counts, _, _, _, learned = learn_terms(buf, bounds, table, codes, None, 1, how)
    assert terms.tolist() == vocab
    occurrences = np.zeros((len(docs), len(vocab)))
    for d, t, _, _ in learned.tokens(buf, bounds, table).tolist():
        occurrences[d, t] += 1
    assert_array_equal(occurrences, X.toarray())
    assert_array_equal(counts.toarray()[0], np.asarray(X.sum(axis=0)).ravel())
    hashed = HashedTerms(2**10, how)
    cols = np.zeros((len(docs), 2**10))
    for d, t, _, _ in hashed.tokens(buf, bounds, table).tolist():
        cols[d, t] += 1
    assert_array_equal(cols, H.toarray())
    _, hcounts, _, _, _ = hash_terms(buf, bounds, table, codes, None, 1, 2**10, how)
    assert_array_equal(hcounts[0], np.asarray(H.sum(axis=0)).ravel())
    for lookup, M in ((learned, X), (hashed, H)):
        indptr, indices = lookup.presence(buf, bounds, table)
        present = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=M.shape)
        assert_array_equal(present.toarray(), (M.toarray() > 0).astype(float))


@pytest.mark.parametrize("ngram_range, stop", _MODES)
@settings(max_examples=25, deadline=None)
@given(docs=_DOCS, data=st.data())
def test_learn_counts_resumed_and_merged_equal_the_twin(ngram_range, stop, docs, data):
    """learn_counts from tiny tables (it stops before each document that could overflow them and
    resumes once they grew), over two learners merged (merge_learned, count_new), weighted:
    the twin's counts."""
    from nbayes.text import vocab as v

    how = Tokens(ngram_range, list(stop))
    buf, bounds, table = to_buffer(docs)
    K = 4
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))))
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    cut = data.draw(st.integers(0, len(docs)))

    def tiny() -> v._Learner:
        learner = v._Learner(K, 0, ngram_range[1] - ngram_range[0] + 1)
        learner.slots = np.full(8, -1, dtype=np.int64)  # room for 2 terms: a stop on nearly every document
        for name in ("keys", "start", "length", "df", "tf"):
            setattr(learner, name, getattr(learner, name)[:2].copy())
        learner.last, learner.parts, learner.cps = learner.last[:2].copy(), learner.parts[:2].copy(), learner.cps[:4].copy()
        return learner

    a = tiny().learn(buf, bounds[: cut + 1], table, codes[:cut], w[:cut], how)
    b = tiny().learn(buf, bounds[cut:], table, codes[cut:], w[cut:], how)
    main = a.absorb(b)
    terms, counts, cdf, df, tf, _ = v.learned_terms(main, K, how)
    twin = text_twin.count_terms([d.lower() for d in docs], codes.tolist(), w.tolist(), K, ngram_range, stop, 0)
    assert terms.tolist() == twin[0]
    for got, want in zip((counts.T.toarray(), cdf.T.toarray(), df, tf), twin[1:]):
        assert_allclose(got, want, rtol=1e-12, atol=1e-12)
