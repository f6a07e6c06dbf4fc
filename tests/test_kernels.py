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


# ----------------------------------------------------------------- character n-gram kernels
import re  # noqa: E402

from nbayes._kernels import text_chars  # noqa: E402
from nbayes.text._buffer import space_table, to_char_buffer  # noqa: E402

#: every code point Python's ``\s`` matches (the kernels' whitespace), as text
_SPACES = "".join(map(chr, np.flatnonzero(space_table(True))))
#: all of Unicode: astral planes, and lone surrogates (which hypothesis leaves out by itself)
_ANY = st.one_of(st.characters(codec=None), st.sampled_from("\ud800\udbff\udc00\udfff"))
_CHAR_TEXT = st.text(st.one_of(_ANY, st.sampled_from(_SPACES), st.sampled_from("ab ")), max_size=25)
_LATIN_TEXT = st.text(st.one_of(st.characters(max_codepoint=0xFF), st.sampled_from(_SPACES[:11])), max_size=25)
#: documents over all of Unicode, or Latin-1 only (a uint8 buffer: also run as uint32)
_CHAR_DOCS = st.one_of(st.lists(_CHAR_TEXT, min_size=1, max_size=5), st.lists(_LATIN_TEXT, min_size=1, max_size=5))


def _char_units(doc: str, wb: bool) -> list[list[tuple[str, int, int]]]:
    """Twin of the kernels' normalisation: per segment its characters as the analyzer sees
    them, each with the span of ``doc`` it stands for (``char``: one segment, a run of two or
    more whitespace characters one space spanning the run; ``char_wb``: per word, padded with
    a space each side that spans nothing)."""
    if not wb:
        return [[(" " if m.end() - m.start() >= 2 else m.group(), m.start(), m.end())
                 for m in re.finditer(r"\s+|\S", doc)]]
    return [[(" ", m.start(), m.start()), *((c, m.start() + i, m.start() + i + 1) for i, c in enumerate(m.group())),
             (" ", m.end(), m.end())] for m in re.finditer(r"\S+", doc)]


def _char_grams(doc: str, analyzer: str, lo: int, hi: int) -> list[tuple[str, int, int]]:
    """(gram, start, end) of the grams of ``doc`` in scikit-learn's order (checked against its
    analyzers), start:end the stretch of ``doc`` the gram stands for."""
    out = []
    for seg in _char_units(doc, analyzer == "char_wb"):
        L = len(seg)
        for n in range(lo, hi + 1):
            if analyzer == "char_wb" and n >= L:  # the padded word itself, once
                out.append(("".join(c for c, _, _ in seg), seg[0][1], seg[-1][2]))
                break
            out.extend(("".join(c for c, _, _ in seg[i : i + n]), seg[i][1], seg[i + n - 1][2]) for i in range(L - n + 1))
    return out


def _char_buffers(docs: list[str]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The documents' buffer as the library makes it (lower-casing off), and for a Latin-1
    (uint8) one the same code points as uint32 too: every kernel runs on both."""
    buf, bounds, table = to_char_buffer(docs, lowercase=False)
    out = [(buf, bounds, table)]
    if buf.dtype == np.uint8:
        out.append((buf.astype(np.uint32), bounds, space_table(True)))
    return out


def _tiny_learner(K: int):
    """A learner whose tables hold 8 terms: counting stops before the documents that could
    overflow them, the learner grows them and counting resumes."""
    from nbayes.text.vocab import _Learner

    L = _Learner(K, 1)
    L.slots = np.full(32, -1, dtype=np.int64)
    L.keys, L.start, L.length = (np.zeros(8, dtype=np.int64) for _ in range(3))
    L.last, L.parts = np.full(8, -1, dtype=np.int64), np.full((8, 4), -1, dtype=np.int32)
    L.df, L.tf, L.cps = np.zeros(8), np.zeros(8), np.zeros(16, dtype=np.uint32)
    L.pslots, L.pkeys, L.pcount, L.pcdf = np.full(32, -1, dtype=np.int64), np.zeros(8, dtype=np.int64), np.zeros(8), np.zeros(8)
    return L


@pytest.mark.parametrize("analyzer", ["char", "char_wb"])
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 3), (2, 5)])
@settings(max_examples=40, deadline=None)
@given(docs=_CHAR_DOCS, data=st.data())
def test_char_kernels_equal_scikit_learn_analyzers(analyzer, ngram_range, docs, data):
    """Grams (their order, their spans), weighted counts (a learner that grows mid batch too),
    lookups, presence rows and scores over a vocabulary: scikit-learn's char / char_wb
    analyzers and their Python twins, on uint8 and uint32 buffers."""
    from sklearn.feature_extraction.text import CountVectorizer

    from nbayes.text.vocab import learned_terms

    analyse = CountVectorizer(analyzer=analyzer, ngram_range=ngram_range, lowercase=False).build_analyzer()
    grams = [_char_grams(doc, analyzer, *ngram_range) for doc in docs]
    assert [[g for g, _, _ in gs] for gs in grams] == [analyse(doc) for doc in docs]  # the twin is scikit-learn's
    how = Tokens(ngram_range, None, analyzer)
    K = data.draw(st.sampled_from([2, 9]))  # 2: the learner's counts as dense rows, 9: as (term, class) pairs
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))), dtype=np.int64)
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    terms = sorted({g for gs in grams for g, _, _ in gs})
    col = {t: i for i, t in enumerate(terms)}
    V = len(terms)
    counts, cdf, df, tf = np.zeros((K, V)), np.zeros((K, V)), np.zeros(V), np.zeros(V)
    for d, gs in enumerate(grams):
        ids = [col[g] for g, _, _ in gs]
        for t in ids:
            counts[codes[d], t] += w[d]
            tf[t] += 1
        for t in set(ids):
            cdf[codes[d], t] += w[d]
            df[t] += 1
    vocab = terms[::2]  # the others unknown
    known = {t: i for i, t in enumerate(vocab)}
    Wt = np.random.default_rng(len(terms)).normal(size=(len(vocab), 3))
    for buf, bounds, table in _char_buffers(docs):
        for learner in (None, _tiny_learner(K)):
            if learner is None:
                got = learn_terms(buf, bounds, table, codes, w, K, how)
            else:
                got = learned_terms(learner.learn(buf, bounds, table, codes, w, how), K, how)
            assert got[0].tolist() == terms
            for a, b in zip((got[1].toarray(), got[2].toarray(), got[3], got[4]), (counts, cdf, df, tf)):
                assert_allclose(a, b, rtol=1e-12, atol=1e-12)
        lookup = TermTable(vocab, how)
        want = [(d, known.get(g, -1), s, e) for d, gs in enumerate(grams) for g, s, e in gs]
        assert_array_equal(lookup.tokens(buf, bounds, table), np.array(want, dtype=np.int64).reshape(-1, 4))
        indptr, indices = lookup.presence(buf, bounds, table)
        rows = [sorted({known[g] for g, _, _ in gs if g in known}) for gs in grams]
        assert_array_equal(indptr, np.r_[0, np.cumsum([len(r) for r in rows])])
        assert_array_equal(indices, [t for r in rows for t in r])
        for binary in (False, True):
            want = np.zeros((len(docs), 3))
            for d, gs in enumerate(grams):
                ids = [known[g] for g, _, _ in gs if g in known]
                for t in (sorted(set(ids)) if binary else ids):
                    want[d] += Wt[t]
            one = lookup.score(buf, bounds, table, Wt, binary)
            assert_allclose(one, want, rtol=1e-12, atol=1e-12)
            for T in (2, 3, 50):  # ranges of documents on threads: the same sums, bit for bit
                assert_array_equal(text_chars.score(buf, bounds, table, *how.args(), 0, lookup._terms(), Wt, binary, T),
                                   one)


@pytest.mark.parametrize("analyzer", ["char", "char_wb"])
@pytest.mark.parametrize("ngram_range", [(1, 1), (2, 4)])
@pytest.mark.parametrize("n_features", [7, 2**16])  # 7: many collisions
@settings(max_examples=40, deadline=None)
@given(docs=_CHAR_DOCS, data=st.data())
def test_char_kernels_hash_as_hashing_vectorizer(analyzer, ngram_range, n_features, docs, data):
    """Hashing mode: every gram's column, the weighted counts and presence rows are
    HashingVectorizer's (over UTF-8: no lone surrogates), on uint8 and uint32 buffers."""
    from sklearn.feature_extraction.text import HashingVectorizer

    docs = [d.encode("utf-8", errors="replace").decode("utf-8") for d in docs]
    ref = HashingVectorizer(analyzer=analyzer, ngram_range=ngram_range, n_features=n_features, lowercase=False,
                            alternate_sign=False, norm=None)
    X = ref.transform(docs).toarray()
    cols = [[text_twin.bucket(g, n_features) for g, _, _ in _char_grams(doc, analyzer, *ngram_range)] for doc in docs]
    assert_array_equal(X, [np.bincount(c, minlength=n_features) for c in cols])
    K = 3
    codes = np.array(data.draw(st.lists(st.integers(0, K - 1), min_size=len(docs), max_size=len(docs))), dtype=np.int64)
    w = np.array(data.draw(st.lists(st.floats(0.0, 3.0), min_size=len(docs), max_size=len(docs))))
    how = Tokens(ngram_range, None, analyzer)
    seen = (X > 0).astype(float)
    for buf, bounds, table in _char_buffers(docs):
        _, counts, cdf, df, tf = hash_terms(buf, bounds, table, codes, w, K, n_features, how)
        for c in range(K):
            assert_allclose(counts[c], (w[codes == c, None] * X[codes == c]).sum(axis=0), rtol=1e-12, atol=1e-12)
            assert_allclose(cdf[c], (w[codes == c, None] * seen[codes == c]).sum(axis=0), rtol=1e-12, atol=1e-12)
        assert_array_equal(df, seen.sum(axis=0))
        assert_array_equal(tf, X.sum(axis=0))
        lookup = HashedTerms(n_features, how)
        ids = lookup.tokens(buf, bounds, table)
        assert_array_equal(ids[:, 1], [t for c in cols for t in c])
        indptr, indices = lookup.presence(buf, bounds, table)
        assert_array_equal(indptr, np.r_[0, np.cumsum((X > 0).sum(axis=1))])
        assert_array_equal(indices, np.nonzero(X)[1])


def test_char_room_bounds_the_grams():
    """What a document may add (room) bounds its grams and their code points."""
    for analyzer in ("char", "char_wb"):
        for doc in ("", "a", "a b", "a  b\tc", "x" * 9, " a a a a "):
            for lo, hi in ((1, 1), (2, 4), (3, 7)):
                grams, cps = text_chars.room(len(doc), lo, hi, analyzer == "char_wb")
                found = _char_grams(doc, analyzer, lo, hi)
                assert len(found) <= grams and sum(len(g) for g, _, _ in found) <= cps
