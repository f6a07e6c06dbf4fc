"""What no corpus could produce, in text statistics: the checks of a model file's text arrays
beyond its checksum (issue #27 item 4). Each names the array and what was expected.

Shapes: one class weight per class, classes x terms counts, one df / tf per term, tf-idf arrays
over the kept terms. Within a class: a document holding a term weighs at most the class, and
counts the term at least once (``doc_count <= term_count``). Over the corpus (unweighted): df, tf
and n_docs whole numbers, ``df <= n_docs``, ``df <= tf``, a term occurring only in a document
that holds it (``tf > 0`` needs ``df > 0``), and no weighted count for a term no document holds.
tf-idf: each document's vector has unit norm, so a (class, term) sum is at most the weight of
the class's documents holding the term. Tails (stats.exact): the canonical expansion, each part
below half a unit in the last place of the one before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._scipy import sparse as sp
from ..errors import StatisticsError
from .checks import REL_TOL, check_array, check_at_most, check_class_count
from .terms import CodeTerms
from .text_arrays import csr, values_at

__all__ = ["check_text"]


def check_text(stats: Any, n_classes: int | None = None) -> None:
    """Raise StatisticsError unless a corpus could have produced the text statistics ``stats``."""
    cc = check_class_count(stats.class_count, n_classes)
    V = stats.n_terms
    for name in ("term_count", "doc_count"):
        m = getattr(stats, name)
        if m.ndim != 2 or m.shape != (len(cc), V):
            raise StatisticsError(f"statistics {name!r}: expected shape {(len(cc), V)} (classes x terms), got {m.shape}")
    tc, dc = csr(stats.term_count), csr(stats.doc_count)
    for name, m in (("term_count", tc), ("doc_count", dc)):
        _check_pairs(name, m)
    rows = np.repeat(np.arange(len(cc)), np.diff(dc.indptr))
    _at_most_pairs("doc_count", dc.data, "its class's weight (class_count)", cc[rows], rows, dc.indices)
    # a document holding the term counts it at least once, with the same weight
    _at_most_pairs("doc_count", dc.data, "term_count (a document holding the term counts it)", values_at(tc, dc),
                   rows, dc.indices)
    df = _whole("df", check_array("df", stats.df, (V,)))
    tf = _whole("tf", check_array("tf", stats.tf, (V,)))
    n_docs = _whole("n_docs", check_array("n_docs", np.asarray(stats.n_docs, dtype=float), ()))
    check_at_most("df", df, "n_docs", n_docs)
    check_at_most("df", df, "tf", tf)
    bad = np.flatnonzero((tf > 0) & (df == 0))
    if len(bad):
        raise StatisticsError(f"statistics 'df': entry [{int(bad[0])}] is 0 but tf is {tf[bad[0]]!r}; expected "
                              "a term that occurs to be held by a document (df >= 1)")
    held = np.zeros(V, dtype=bool)
    held[tc.indices[tc.data > 0]] = True
    bad = np.flatnonzero(held & (df == 0))
    if len(bad):
        raise StatisticsError(f"statistics 'term_count': term {int(bad[0])} has weighted counts but df is 0; "
                              "expected no count for a term no document holds")
    _check_terms(stats, V)
    if stats.weighted is not None:
        _check_tfidf(stats.weighted, cc, dc, V)
    for name, tail in stats.exact.items():
        _check_tail(name, getattr(stats, name, None) if name != "tfidf_sums" else stats.weighted[2], tail)


def _whole(name: str, a: np.ndarray) -> np.ndarray:
    """Unweighted counts are whole numbers."""
    bad = np.flatnonzero(np.ravel(a) != np.floor(np.ravel(a)))
    if len(bad):
        raise StatisticsError(f"statistics {name!r}: entry [{int(bad[0])}] is {np.ravel(a)[bad[0]]!r}; expected a "
                              "whole number (documents or occurrences, unweighted)")
    return a


def _check_pairs(name: str, m: sp.csr_matrix) -> None:
    """Stored counts finite and >= 0; a StatisticsError names the [class, term] entry."""
    bad = ~np.isfinite(m.data) | (m.data < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(m.indptr, i, side="right") - 1)
        raise StatisticsError(
            f"statistics {name!r}: entry {[row, int(m.indices[i])]} is {m.data[i]!r}; "
            "expected finite and >= 0 (a count or weight)"
        )


def _at_most_pairs(name: str, part: np.ndarray, whole_name: str, whole: np.ndarray, rows: np.ndarray,
                   cols: np.ndarray) -> None:
    excess = part > whole * (1 + REL_TOL) + REL_TOL
    if excess.any():
        i = int(np.flatnonzero(excess)[0])
        raise StatisticsError(f"statistics {name!r}: entry {[int(rows[i]), int(cols[i])]} is {part[i]!r}, more "
                              f"than {whole_name} ({whole[i]!r}), which it is a part of")


def _check_terms(stats: Any, V: int) -> None:
    """The vocabulary sorted, each term once (hashing buckets: 0..n-1)."""
    vocab = stats.vocab
    if isinstance(vocab, CodeTerms) and vocab._strings is None:  # checked on the code points
        i, same = vocab.first_unsorted()
        if i >= 0:
            raise StatisticsError(f"statistics 'terms': the vocabulary {'repeats a term' if same else 'is not sorted'}"
                                  f" (term {i}); expected sorted distinct terms")
        return
    terms = stats.terms
    if terms.dtype.kind in "iu":
        if V and not bool(np.all(np.diff(terms) > 0)):
            raise StatisticsError("statistics 'terms': the buckets are not increasing; expected sorted distinct buckets")
        return
    listed = terms.tolist()
    for i, (x, y) in enumerate(zip(listed[:-1], listed[1:])):
        if x >= y:
            raise StatisticsError(f"statistics 'terms': the vocabulary {'repeats a term' if x == y else 'is not sorted'}"
                                  f" (term {i + 1}); expected sorted distinct terms")


def _check_tfidf(weighted: tuple[Any, Any, Any], cc: np.ndarray, dc: sp.csr_matrix, V: int) -> None:
    """A tf-idf model's (kept terms, idf, per-class sums of the documents' unit vectors)."""
    keep = np.asarray(weighted[0])
    if keep.dtype != bool or keep.shape != (V,):
        raise StatisticsError(f"statistics 'tfidf_keep': expected one True/False per term, shape ({V},), got "
                              f"{keep.dtype} {keep.shape}")
    k = int(keep.sum())
    check_array("idf", weighted[1], (k,))
    sums = check_array("tfidf_sums", weighted[2], (len(cc), k))
    # a document's tf-idf value of a term is at most 1 (unit norm) and only where it holds it
    held = dc[:, np.flatnonzero(keep)].toarray()
    check_at_most("tfidf_sums", sums, "the weight of the class's documents holding the term (doc_count)", held)


def _check_tail(name: str, value: Any, tail: list[Any]) -> None:
    """Each tail part (stats/exact/<name>) lies below half a unit in the last place of the part
    before it (a canonical expansion), with the value's shape and pattern."""
    prev = value
    for k, t in enumerate(tail):
        if sp.issparse(prev) or sp.issparse(t):
            a = csr(prev)
            p, q = values_at(a, csr(t)), csr(t).data
        else:
            p, q = np.ravel(np.asarray(prev, dtype=float)), np.ravel(np.asarray(t, dtype=float))
            if p.shape != q.shape:
                raise StatisticsError(f"statistics 'exact/{name}': part {k + 1} has {q.size} entries, the value {p.size}")
        bad = ~np.isfinite(q) | (np.abs(q) > np.spacing(np.abs(p)) / 2)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise StatisticsError(f"statistics 'exact/{name}': part {k + 1} entry {i} is {q[i]!r} beside {p[i]!r}; "
                                  "expected less than half a unit in the last place of the part before it")
        prev = t
