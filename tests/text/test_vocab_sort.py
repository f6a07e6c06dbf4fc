"""The vocabulary's order and strings from code points (no Python str sorted on the hot path)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes._kernels import text_sort
from nbayes._kernels.text_sort import pair_csr, sort_order, term_strings
from nbayes.stats.text import union_terms


@pytest.fixture(autouse=True, params=["numpy", "python", "kernels"])
def small(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test three ways: a few terms sorted as padded rows by NumPy, by Python (rows too
    long to pad), and by the kernels (as many are)."""
    if request.param == "kernels":
        monkeypatch.setattr(text_sort, "_SMALL", 2)
    if request.param == "python":
        monkeypatch.setattr(text_sort, "_PADDED", 1)


def _laid_out(words: list[str], dtype: type = np.uint32) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cps = np.frombuffer("".join(words).encode("utf-32-le"), dtype=np.uint32).astype(dtype)
    length = np.array([len(w) for w in words], dtype=np.int64)
    start = np.zeros(len(words), dtype=np.int64)
    if len(words):
        start[1:] = np.cumsum(length)[:-1]
    return cps, start, length


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=30), unique=True, max_size=80))
def test_code_point_sort_is_pythons_sorted(words: list[str]) -> None:
    cps, start, length = _laid_out(words)
    order = sort_order(cps, start, length)
    assert [words[i] for i in order] == sorted(words)
    assert term_strings(cps, start[order], length[order]) == sorted(words)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab \xe9\xff", min_size=1, max_size=40), unique=True, max_size=200))
def test_long_shared_prefixes_latin1(words: list[str]) -> None:
    """Few letters: many terms tied over several keys (the refinement rounds); uint8 buffers."""
    cps, start, length = _laid_out(words, np.uint8)
    order = sort_order(cps, start, length)
    assert [words[i] for i in order] == sorted(words)
    assert term_strings(cps, start[order], length[order]) == sorted(words)


def test_prefix_sorts_first_and_wide_points() -> None:
    words = ["ab", "a", "abc", "a\U0001f600", "a\x00", "\U0010fffd", "b" * 100 + "a", "b" * 100]
    cps, start, length = _laid_out(words)
    order = sort_order(cps, start, length)
    assert [words[i] for i in order] == sorted(words)
    assert term_strings(cps, start[order], length[order]) == sorted(words)
    assert term_strings(cps[:0], start[:0], length[:0]) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="ab \xe9\u4e00\U0001f600\x00", min_size=1, max_size=12), unique=True, max_size=60),
       st.lists(st.text(alphabet="ab \xe9\u4e00\U0001f600", min_size=1, max_size=12), unique=True, max_size=60))
def test_union_terms_is_the_sorted_set_union(a: list[str], b: list[str]) -> None:
    """The merge path's union (code point sort, then each term once), NUL in terms included."""
    def arr(x: list[str]) -> np.ndarray:
        out = np.empty(len(x), dtype=object)
        out[:] = sorted(x)
        return out

    both = b + a[::2]  # terms shared by both sides
    want = sorted(set(a) | set(both))
    assert union_terms(arr(a), arr(list(set(both)))).tolist() == want
    assert union_terms(arr(list(set(both))), arr(a)).tolist() == want


def test_sort_order_keeps_equal_terms_adjacent() -> None:
    words = ["ab" * 50, "a", "ab" * 50, "b", "a"]
    cps, start, length = _laid_out(words)
    assert [words[i] for i in sort_order(cps, start, length)] == sorted(words)


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("alphabet", [list("ab c\xe9"), list("ab c") + ["\u4e00", "\U0001f600"]])
def test_many_terms_sorted_in_parts_on_threads(n_threads: int, alphabet: list[str]) -> None:
    """Enough terms for the parts sorted by radix passes and on threads; few letters so that
    many share long prefixes (ties over several keys); copies keep their order (stable)."""
    rng = np.random.default_rng(len(alphabet))
    letters = np.array(alphabet)
    words = ["".join(letters[rng.integers(0, len(letters), size=int(m))]) for m in rng.integers(1, 40, size=70_000)]
    words += words[::97]  # copies
    wide = max(map(ord, "".join(alphabet))) > 255
    cps, start, length = _laid_out(words, np.uint32 if wide else np.uint8)
    order = sort_order(cps, start, length, n_threads)
    assert order.tolist() == sorted(range(len(words)), key=words.__getitem__)


@pytest.mark.parametrize("n_terms, K", [(1, 1), (7, 3), (5000, 7)])
def test_pair_csr_lays_pairs_out_by_class_then_rank(n_terms: int, K: int) -> None:
    """(class, term) pairs from a learner's table (keys t * K + c, any order) to CSR over
    classes with the terms' sorted ranks as columns (more than 2 ** 11 terms: two radix passes)."""
    rng = np.random.default_rng(n_terms)
    keys = rng.permutation(n_terms * K)[: max(1, n_terms * K // 3)].astype(np.int64)
    count, cdf = rng.random(len(keys)), rng.random(len(keys))
    rank = rng.permutation(n_terms).astype(np.int64)
    indptr, indices = np.zeros(K + 1, dtype=np.int64), np.empty(len(keys), dtype=np.int32)
    tc, dc = np.empty(len(keys)), np.empty(len(keys))
    pair_csr(keys, count, cdf, rank, K, indptr, indices, tc, dc)
    cls, col = keys % K, rank[keys // K]
    want = np.lexsort((col, cls))
    np.testing.assert_array_equal(indptr, np.concatenate([[0], np.cumsum(np.bincount(cls, minlength=K))]))
    np.testing.assert_array_equal(indices, col[want])
    np.testing.assert_array_equal(tc, count[want])
    np.testing.assert_array_equal(dc, cdf[want])
