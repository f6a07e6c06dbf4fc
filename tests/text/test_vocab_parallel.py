"""Counting on several threads: one learner per range of documents, merged, gives exactly what
one learner over all the documents gives (terms, per-class counts, df, tf, the lookup table)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes._kernels import text_twin, threads
from nbayes.text import vocab
from nbayes.text._buffer import to_buffer, to_char_buffer
from nbayes.text.vocab import Tokens, learn_terms

WORDS = ["the", "cat", "sat", "on", "a", "mat", "chat", "éclair", "naïve", "Straße", "数据", "x", "déjà-vu",
         "supercalifragilistic", "supercalifragilistiC", "ab", "ba"]

docs_st = st.lists(
    st.lists(st.sampled_from(WORDS), max_size=25).map(" ".join), min_size=2, max_size=30,
)


def _learn(docs: list[str], labels: list[int], w: Any, how: Tokens, parallel: bool, pair_bytes: int = 56) -> tuple:
    """learn_terms on one learner or split over two; ``pair_bytes`` 0: pairs always in a table of
    the pairs seen, 10**9: always dense rows of K counts per term, 56: chosen by memory."""
    to = to_char_buffer if how.analyzer != "word" else to_buffer
    buf, bounds, table = to(docs)
    saved = vocab._PARALLEL_CHARS, vocab._PAIR_BYTES
    vocab._PARALLEL_CHARS = 0 if parallel else 1 << 62
    vocab._PAIR_BYTES = pair_bytes
    try:
        return learn_terms(buf, bounds, table, np.asarray(labels), w, 3, how)
    finally:
        vocab._PARALLEL_CHARS, vocab._PAIR_BYTES = saved


@pytest.fixture(autouse=True)
def _two_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The parallel path splits over threads(): make it split even on a one-core runner."""
    monkeypatch.setattr(vocab, "threads", lambda: max(2, threads()))


@settings(max_examples=60, deadline=None)
@given(docs=docs_st, data=st.data(),
       how=st.sampled_from([((1, 1), "word"), ((1, 2), "word"), ((2, 3), "word"), ((2, 4), "char"),
                            ((1, 3), "char_wb")]),
       weighted=st.booleans(), stop=st.booleans(), pair_bytes=st.sampled_from([0, 56, 10**9]))
def test_threads_count_as_one_learner(docs: list[str], data: st.DataObject, how: tuple, weighted: bool,
                                      stop: bool, pair_bytes: int) -> None:
    labels = data.draw(st.lists(st.integers(0, 2), min_size=len(docs), max_size=len(docs)))
    w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=len(docs),
                                    max_size=len(docs)))) if weighted else None
    tokens = Tokens(ngram_range=how[0], analyzer=how[1], stop_words=["on", "a"] if stop and how[1] == "word" else None)
    one = _learn(docs, labels, w, tokens, parallel=False, pair_bytes=0)  # the table of pairs seen
    split = _learn(docs, labels, w, tokens, parallel=True, pair_bytes=pair_bytes)
    assert list(split[0]) == list(one[0])
    for a, b in zip(split[1:3], one[1:3]):
        np.testing.assert_allclose(a.toarray(), b.toarray(), rtol=1e-15, atol=0)
    np.testing.assert_array_equal(split[3], one[3])
    np.testing.assert_array_equal(split[4], one[4])
    # the merged learner's lookup table finds every term at its sorted id
    to = to_char_buffer if tokens.analyzer != "word" else to_buffer
    buf, bounds, table = to(docs)
    found = split[5].tokens(buf, bounds, table)
    expected = one[5].tokens(buf, bounds, table)
    np.testing.assert_array_equal(found, expected)


def test_large_batch_splits_and_agrees() -> None:
    """Above the size threshold, with the real threshold: several MB of text, two learners."""
    rng = np.random.default_rng(0)
    vocab_words = np.array([f"w{i}" for i in range(20000)])
    docs = [" ".join(vocab_words[rng.zipf(1.3, size=400) % 20000]) for _ in range(1500)]
    labels = rng.integers(0, 3, size=len(docs))
    buf, bounds, table = to_buffer(docs)
    assert bounds[-1] >= vocab._PARALLEL_CHARS
    split = learn_terms(buf, bounds, table, labels, None, 3, Tokens())
    saved = vocab._PARALLEL_CHARS
    vocab._PARALLEL_CHARS = 1 << 62
    try:
        one = learn_terms(buf, bounds, table, labels, None, 3, Tokens())
    finally:
        vocab._PARALLEL_CHARS = saved
    assert list(split[0]) == list(one[0])
    assert (split[1] != one[1]).nnz == 0 and (split[2] != one[2]).nnz == 0
    np.testing.assert_array_equal(split[3], one[3])


@pytest.mark.parametrize("ngram_range,stop", [((1, 2), ()), ((1, 3), ("w1", "w7")), ((2, 3), ())])
@pytest.mark.parametrize("parallel", [False, True])
def test_counts_through_table_growth_equal_the_twin(ngram_range: tuple[int, int], stop: tuple, parallel: bool) -> None:
    """Tens of thousands of distinct n-grams: the term and pair tables grow (rehashing the
    pairs, a term's first pair kept beside its parts rather than in the slots) and n-grams are
    found by their parts' ids; the counts equal the plain-Python twin's."""
    rng = np.random.default_rng(1)
    words = np.array([f"w{i}" for i in range(3000)] + ["longerwordnumber%d" % i for i in range(500)])
    docs = [" ".join(words[rng.integers(0, len(words), size=60)]) for _ in range(700)]
    labels = rng.integers(0, 3, size=len(docs))
    tokens = Tokens(ngram_range=ngram_range, stop_words=list(stop) or None)
    terms, counts, dcounts, df, tf, _ = _learn(docs, list(labels), None, tokens, parallel=parallel)
    t_terms, t_counts, t_cdf, t_df, t_tf = text_twin.count_terms(docs, list(labels), None, 3, ngram_range, stop, 0)
    assert list(terms) == t_terms and len(terms) > 30000
    np.testing.assert_array_equal(counts.toarray(), t_counts.T)
    np.testing.assert_array_equal(dcounts.toarray(), t_cdf.T)
    np.testing.assert_array_equal(df, t_df)
    np.testing.assert_array_equal(tf, t_tf)
