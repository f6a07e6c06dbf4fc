"""Text statistics in proportion to the (class, term) pairs seen: the protocol on CSR counts
equals the dense arithmetic, predictions do not change, files of format 1 still load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import nbayes
from nbayes import TextClassifier
from nbayes.errors import StatisticsError, UnlearnError
from nbayes.io.model_file import read_header
from nbayes.stats.text import TextStats
from nbayes.text.vocab import Pairs

FIXTURES = Path(__file__).resolve().parents[1] / "io" / "fixtures"
WORDS = [f"w{i}" for i in range(40)] + ["x", "ab", "zz", "éé", "日本"]


def _corpus(seed: int, n: int, K: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    docs = [" ".join(rng.choice(WORDS, rng.integers(0, 12))) for _ in range(n)]
    return docs, rng.integers(0, K, n), rng.random(n) + 0.1


def _stats(docs: list[str], codes: np.ndarray, K: int, w: np.ndarray | None, **kw) -> TextStats:
    m = TextClassifier(**kw)
    d, _ = m.prepare_input(docs, fitting=True)
    return m.count_statistics(d, codes, K, w)


def _dense(s: TextStats) -> TextStats:
    return TextStats(s.terms, s.class_count, s.term_count.toarray(), s.doc_count.toarray(), s.df, s.tf, s.n_docs)


def _same(a: TextStats, b: TextStats) -> None:
    assert a.terms.tolist() == b.terms.tolist()
    for name in ("class_count", "term_count", "doc_count", "df", "tf"):
        x, y = getattr(a, name), getattr(b, name)
        x = x.toarray() if sp.issparse(x) else x
        y = y.toarray() if sp.issparse(y) else y
        assert_allclose(x, y, rtol=1e-12, atol=1e-12, err_msg=name)
    assert a.n_docs == b.n_docs


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n1=st.integers(1, 25), n2=st.integers(1, 25), K=st.integers(1, 4),
       weighted=st.booleans(), ngram=st.sampled_from([(1, 1), (1, 2)]))
def test_sparse_protocol_equals_the_dense_arithmetic(seed, n1, n2, K, weighted, ngram):
    docs, codes, w = _corpus(seed, n1 + n2, K)
    w = w if weighted else None
    part = lambda sl: _stats(docs[sl], codes[sl], K, None if w is None else w[sl], ngram_range=ngram)  # noqa: E731
    a, b, whole = part(slice(0, n1)), part(slice(n1, None)), part(slice(None))
    assert a.sparse and whole.sparse
    assert whole.term_count.nnz == np.count_nonzero(whole.term_count.toarray())  # only the pairs seen
    _same(a + b, whole)
    _same(a + b, _dense(a) + _dense(b))
    _same(_dense(a) + b, whole)  # mixed: dense and CSR
    _same(whole.subtract(b, np.arange(K)), _dense(whole).subtract(_dense(b), np.arange(K)))
    _same(whole.subtract(b, np.arange(K)).without_absent_terms(), a.without_absent_terms())
    pos = np.arange(K) * 2 + 1
    _same(whole.embed(pos, 2 * K + 1), _dense(whole).embed(pos, 2 * K + 1))
    _same(TextStats.from_arrays(whole.to_arrays()), whole)
    whole.check(n_classes=K)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40), K=st.integers(2, 12),
       kw=st.sampled_from([{}, {"model": "bernoulli"}, {"model": "complement"}, {"binary": True},
                           {"ngram_range": (1, 2), "min_df": 2}, {"max_features": 5},
                           {"analyzer": "char_wb", "ngram_range": (2, 3)}]))
def test_predictions_equal_the_dense_reference(seed, n, K, kw):
    """Up to 12 classes: terms held by a quarter of the classes or more score by their full
    row, the others by their pairs (Pairs.heavy); both against the dense reference."""
    docs, codes, w = _corpus(seed, n, K)
    y = np.array(list("abcdefghijkl"))[codes]
    model = TextClassifier(alpha=0.3, **kw).fit(docs, y, sample_weight=w)
    test = docs[: n // 2] + ["w1 w2 unknown", ""]
    assert_allclose(model.predict_joint_log_proba(test), _dense_reference(model, test), rtol=1e-12, atol=1e-12)
    dense = TextClassifier(alpha=0.3, **kw)  # statistics given dense: the same parameters
    dense.set_statistics(_dense(model.stats_), model.classes_, 1, None)
    assert_array_equal(dense.predict_joint_log_proba(test), model.predict_joint_log_proba(test))


def _dense_reference(model: TextClassifier, texts: list[str]) -> np.ndarray:
    """The joint log-likelihood by the dense Naive Bayes model on the document-term matrix."""
    X = model.transform(texts)
    if model._presence:
        X.data[:] = 1.0
    const = model.inner_._log_absent.sum(axis=1) if model.model == "bernoulli" else 0.0
    return np.asarray(X @ model._weights) + const + model._intercept


def test_memory_follows_the_pairs_seen_not_classes_times_terms():
    # 1,000 classes, each with its own 150 terms and 20 shared ones: 150,020 terms, 170,000
    # pairs. A dense classes x terms table of counts would be 1.2 GB each (counting, the
    # statistics and the parameters each held two or more)
    import tracemalloc

    K, per = 1000, 150
    docs = [" ".join([f"t{c}x{j}" for j in range(per)] + [f"s{j}" for j in range(20)]) for c in range(K)]
    y = np.arange(K)
    tracemalloc.start()
    try:
        model = TextClassifier().fit(docs, y)
        predicted = model.predict(docs[:5])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    s = model.stats_
    V, pairs = len(s.terms), K * (per + 20)
    assert V == K * per + 20 and s.term_count.nnz == pairs and s.doc_count.nnz == pairs
    assert s.nbytes < 40 * (pairs + V + K)
    assert peak < 400e6  # counting, estimating, predicting: in proportion to the pairs
    assert predicted.tolist() == [0, 1, 2, 3, 4]


def test_subtracting_more_than_learned_names_the_class_and_term_counts():
    docs, codes, w = _corpus(3, 20, 3)
    s = _stats(docs, codes, 3, w)
    with pytest.raises(UnlearnError, match="of class 'b'|of class 'a'|of class 'c'"):
        s.subtract(_stats(docs, codes, 3, w * 2), np.array(["a", "b", "c"]))
    tc = s.term_count.copy()
    tc.data[tc.indptr[1] : tc.indptr[2]] *= 2  # class 'b' with twice its term counts
    more = TextStats(s.terms, s.class_count, tc, s.doc_count, s.df, s.tf, s.n_docs)
    with pytest.raises(UnlearnError, match="more term counts of class 'b'"):
        s.subtract(more, np.array(["a", "b", "c"]))


def test_check_names_the_bad_pair():
    s = _stats(["ab cd", "cd ef"], np.array([0, 1]), 2, None)
    s.term_count.data[1] = -1.0
    with pytest.raises(StatisticsError, match=r"'term_count': entry \[\d, \d\]"):
        s.check()
    s = _stats(["ab cd", "cd ef"], np.array([0, 1]), 2, None)
    s.doc_count.data[0] = 5.0
    with pytest.raises(StatisticsError, match="doc_count.*more than its class's weight"):
        s.check()


@pytest.mark.parametrize("name", ["multinomial", "bernoulli", "hashing"])
def test_format_1_files_still_load_and_predict_the_same(tmp_path, name):
    path = FIXTURES / f"text_v1_{name}.nbm"
    assert read_header(path)["format_version"] == 1
    expected = json.loads((FIXTURES / "text_v1_expected.json").read_text())[name]
    model = nbayes.load(path)
    assert model.classes_.tolist() == expected["classes"]
    assert_allclose(model.predict_log_proba(expected["test"]), expected["log_proba"], rtol=1e-12, atol=1e-12)
    model.save(tmp_path / "m.nbm")  # written again: format 2, the pairs only
    header = read_header(tmp_path / "m.nbm")
    assert header["format_version"] == 2 and "stats/term_count" not in header["arrays"]
    again = nbayes.load(tmp_path / "m.nbm")
    assert_allclose(again.predict_log_proba(expected["test"]), expected["log_proba"], rtol=1e-12, atol=1e-12)
    assert_array_equal(again.stats_.terms, model.stats_.terms)


def test_whole_counts_are_stored_as_small_integers(tmp_path):
    model = TextClassifier().fit(["cheap pills now", "meeting at noon", "cheap offer"], ["s", "h", "s"])
    model.save(tmp_path / "m.nbm")
    arrays = read_header(tmp_path / "m.nbm")["arrays"]
    assert arrays["stats/pairs/term_count"]["dtype"] == "|u1"
    weighted = TextClassifier().fit(["cheap pills", "noon"], ["s", "h"], sample_weight=[0.5, 2.0])
    weighted.save(tmp_path / "w.nbm")
    assert read_header(tmp_path / "w.nbm")["arrays"]["stats/pairs/term_count"]["dtype"] == "<f8"
    back = nbayes.load(tmp_path / "w.nbm")
    assert_allclose(back.stats_.term_count.toarray(), weighted.stats_.term_count.toarray())


@pytest.mark.parametrize("kw", [{}, {"model": "bernoulli"}, {"binary": True, "ngram_range": (1, 2)}, {"min_df": 2}])
def test_scoring_needs_no_classes_times_terms_table(kw):
    docs, codes, w = _corpus(11, 60, 3)
    model = TextClassifier(alpha=0.2, **kw).fit(docs, codes, sample_weight=w)
    jll = model.predict_joint_log_proba(docs)
    assert model._pairs is not None and model._pairs.delta.shape == (model.stats_.term_count[:, model._keep].nnz
                                                                     if not kw.get("model") and not kw.get("binary")
                                                                     else model.stats_.doc_count[:, model._keep].nnz,)
    assert "_weights" not in model.__dict__ and "inner_" not in model.__dict__  # fit + predict: pairs only
    assert_allclose(jll, _dense_reference(model, docs), rtol=1e-12, atol=1e-12)
    # the dense parameters, asked for, are the dense estimate's exactly
    assert_array_equal(model.feature_log_prob_, model.inner_.feature_log_prob_)
    assert_allclose(model._pairs.dense(), model._weights, rtol=1e-12, atol=1e-12)
    model.partial_fit(["w1 w2 w3"], [1])  # estimated again: pairs again
    assert model._pairs is not None and "_weights" not in model.__dict__


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 10_000), V=st.integers(0, 30), K=st.integers(1, 13))
def test_heavy_rows_are_the_dense_rows_of_the_terms_most_classes_hold(seed, V, K):
    rng = np.random.default_rng(seed)
    held = rng.random((V, K)) < rng.random()
    term, cls = np.nonzero(held)
    indptr = np.zeros(V + 1, dtype=np.int64)
    np.cumsum(held.sum(axis=1), out=indptr[1:])
    pairs = Pairs(indptr, cls, rng.normal(size=len(cls)), rng.normal(size=K))
    row, rows = pairs.heavy()
    picked = np.flatnonzero(4 * held.sum(axis=1) >= K)
    picked = picked[held[picked].any(axis=1)]
    assert_array_equal(np.flatnonzero(row >= 0), picked)
    assert_array_equal(rows, pairs.dense()[picked])
    assert rows.size <= 4 * len(cls)  # never more than 4 times the pairs' memory
