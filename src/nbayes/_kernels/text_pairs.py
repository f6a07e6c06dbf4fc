"""Scoring text with parameters held as (class, term) pairs: a weight per class for every term
(the smoothing of a term the class never saw) plus a correction on the pairs seen.

With Naive Bayes' smoothed estimates the weight of a term a class never held is the same for
every such term: log(alpha) - log(class total) for the multinomial model, one Bernoulli weight
per class. So log P(d | c) = (known terms of d) * base[c] + sum over the pairs (t, c) seen of
count(t in d) * delta[t, c]: no classes x vocabulary table is needed.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from . import threads
from .text import _grams, _next_token, _word, append_index, found_terms, gram_scratch, lean, rows_on_threads

__all__ = ["add_term", "dense_layout", "presence_rows", "score", "score_pairs"]


@njit(cache=True, nogil=True, inline="always")
def add_term(out, d, t, indptr, cls, delta, row, rows):  # pragma: no cover - compiled
    """Add term t's weights to out[d]: its full row ``rows[row[t]]`` (base included) when it
    has one, in one contiguous pass; else its corrections on the pairs it holds. Returns 1
    when the caller still owes the term its base weights (the second case), else 0. An empty
    ``row`` means a dense table, term t's row being ``rows[t]`` (no lookup to miss the cache)."""
    r = row[t] if len(row) > 0 else t
    if r >= 0:
        for c in range(rows.shape[1]):
            out[d, c] += rows[r, c]
        return 0
    for p in range(indptr[t], indptr[t + 1]):
        out[d, cls[p]] += delta[p]
    return 1


def dense_layout(weights: np.ndarray) -> tuple[np.ndarray, ...]:
    """A terms x classes table of weights as :func:`score_pairs` takes weights: every term has
    its full row (``rows = weights``; ``row`` empty, meaning ``row[t] = t``), no pairs, no
    base. Scoring a dense table is the same pass as scoring pairs whose terms all have rows."""
    V, K = weights.shape
    none = np.zeros(0, dtype=np.int64)
    return (np.zeros(V + 1, dtype=np.int64), none, np.zeros(0), np.zeros(K), none, weights)


def score(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, weights, binary, T):
    """out[d, c] = sum over the known terms of document d of weights[t, c] (each distinct term
    once when ``binary``); unknown terms are skipped. No document-term matrix is built."""
    return score_pairs(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, *dense_layout(weights), binary, T)


def score_pairs(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, indptr, cls, delta, base, row, rows,
                binary, T):
    """out[d, c] = sum over the known term occurrences t of document d (each distinct term once
    when ``binary``) of base[c] + delta[p] for the pair p = (t, c) if seen. The pairs of term t
    are p = indptr[t]..indptr[t + 1], class cls[p]; a term most classes hold has its full
    weights in ``rows[row[t]]`` instead (see :func:`add_term`). Unknown terms are skipped.

    ``T`` ranges of documents are scored on Python threads. Single words without a stop list
    take a lean kernel (:func:`_score_words`), quick to compile: the first ``nbayes demo``
    does not wait for the n-gram machinery."""
    n_docs, V = len(bounds) - 1, len(indptr) - 1
    out = np.zeros((n_docs, len(base)))
    # the last document per term, read only when ``binary``: else not V of scratch per call (a
    # served request of one SMS spent a tenth of its time filling it)
    if hi_n == 1 and len(stop[1]) == 0:
        return rows_on_threads(_score_words, (buf, bounds, is_word, n_features, terms, indptr, cls, delta, base, row,
                                              rows, binary, out), n_docs, T,
                               lambda: (np.full(V if binary else 1, -1, dtype=np.int64),))
    return rows_on_threads(_score_grams, (buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, indptr, cls,
                                          delta, base, row, rows, binary, out), n_docs, T,
                           lambda: (np.full(V if binary else 1, -1, dtype=np.int64), *gram_scratch(hi_n)))


@lean
def _score_words(d0, d1, buf, bounds, is_word, n_features, terms, indptr, cls, delta, base, row, rows, binary, out,
                 last):  # pragma: no cover - compiled
    """Rows ``d0:d1`` of :func:`score_pairs` for single words and no stop list."""
    for d in range(d0, d1):
        e0 = bounds[d + 1]
        known = 0
        i, j = _next_token(buf, bounds[d], e0, is_word)
        while i < e0:
            t = _word(buf, i, j, n_features, terms)
            if t >= 0 and (not binary or last[t] != d):
                if binary:
                    last[t] = d
                known += add_term(out, d, t, indptr, cls, delta, row, rows)
            i, j = _next_token(buf, j, e0, is_word)
        for c in range(len(base)):
            out[d, c] += known * base[c]


@lean
def _score_grams(d0, d1, buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, indptr, cls, delta, base, row, rows,
                 binary, out, last, ring, states, found):  # pragma: no cover - compiled
    """Rows ``d0:d1`` of :func:`score_pairs` in general: word n-grams, stop words."""
    for d in range(d0, d1):
        e0 = bounds[d + 1]
        ntok = 0
        known = 0
        i, j = _next_token(buf, bounds[d], e0, is_word)
        while i < e0:
            ntok, count = _grams(buf, i, j, ntok, ring, states, lo_n, hi_n, stop, n_features, terms, found)
            for m in range(count):
                t = found[m]
                if t >= 0 and (not binary or last[t] != d):
                    if binary:
                        last[t] = d
                    known += add_term(out, d, t, indptr, cls, delta, row, rows)
            i, j = _next_token(buf, j, e0, is_word)
        for c in range(len(base)):
            out[d, c] += known * base[c]


#: code points of input below which the presence rows are found on one thread
_PARALLEL_CHARS = 1 << 20


def presence_rows(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, n_terms):
    """The presence matrix's CSR arrays straight from tokenising: per document its distinct
    known terms, sorted (indptr, indices); no (document, term) list to sort or sum. Ranges of
    documents of about equal size (in code points) are tokenised on the machine's threads
    (the kernel releases the GIL), then joined."""
    n_docs = len(bounds) - 1
    T = min(threads(), n_docs)
    args = (buf, is_word, lo_n, hi_n, stop, n_features, terms, n_terms)
    if T <= 1 or bounds[-1] - bounds[0] < _PARALLEL_CHARS:
        return _presence_block(buf, bounds, *args[1:])
    cuts = np.searchsorted(bounds, np.linspace(bounds[0], bounds[-1], T + 1)[1:-1])
    cuts = np.unique(np.concatenate([[0], cuts[(cuts > 0) & (cuts < n_docs)], [n_docs]]))
    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        parts = list(pool.map(lambda k: _presence_block(buf, bounds[cuts[k]: cuts[k + 1] + 1], *args[1:]),
                              range(len(cuts) - 1)))
    indptr = np.empty(n_docs + 1, dtype=np.int64)
    indptr[0] = 0
    at = 0
    for k, (ip, _) in enumerate(parts):
        indptr[cuts[k] + 1: cuts[k + 1] + 1] = ip[1:] + at
        at += ip[-1]
    return indptr, np.concatenate([ind for _, ind in parts])


@njit(cache=True, nogil=True)
def _presence_block(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, n_terms):  # pragma: no cover
    """:func:`presence_rows` of the documents ``bounds`` delimits, on the calling thread."""
    n_docs = len(bounds) - 1
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    indices = np.empty(max(1024, (bounds[n_docs] - bounds[0]) // 4), dtype=np.int32)
    last = np.full(n_terms, -1, dtype=np.int64)
    ring = np.zeros((hi_n, 2), dtype=np.int64)
    states = np.zeros((hi_n, 4), dtype=np.uint64)
    found = np.empty(2 * hi_n, dtype=np.int64)
    simple = hi_n == 1 and len(stop[1]) == 0
    n = 0
    for d in range(n_docs):
        row = n
        e0 = bounds[d + 1]
        ntok = 0
        i, j = _next_token(buf, bounds[d], e0, is_word)
        while i < e0:
            ntok, count = found_terms(buf, i, j, ntok, ring, states, lo_n, hi_n, stop, n_features, terms, found, simple)
            for m in range(count):
                t = found[m]
                if t >= 0 and last[t] != d:
                    last[t] = d
                    indices = append_index(indices, n, t)
                    n += 1
            i, j = _next_token(buf, j, e0, is_word)
        indices[row:n].sort()
        indptr[d + 1] = n
    return indptr, indices[:n].copy()
