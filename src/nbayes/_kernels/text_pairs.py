"""Scoring text with parameters held as (class, term) pairs: a weight per class for every term
(the smoothing of a term the class never saw) plus a correction on the pairs seen.

With Naive Bayes' smoothed estimates the weight of a term a class never held is the same for
every such term: log(alpha) - log(class total) for the multinomial model, one Bernoulli weight
per class. So log P(d | c) = (known terms of d) * base[c] + sum over the pairs (t, c) seen of
count(t in d) * delta[t, c]: no classes x vocabulary table is needed.

The loops are compiled (:mod:`._text_pairs`: the word walker of ``_words.pxd``, a term's
weights added by ``add_term`` of ``_pairs.pxd``); this module splits the documents over threads.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TypeAlias

import numpy as np

from . import threads
from ._text_pairs import presence_block, score_rows
from .text import rows_on_threads

__all__ = ["Layout", "Table", "dense_layout", "presence_rows", "score", "score_pairs"]

#: a term table as the compiled lookups take it (text.vocab's ``KernelTerms`` or a stop-word
#: table): its arrays, and for the terms' table whether every term is a full one
Table: TypeAlias = "tuple[np.ndarray | bool, ...]"
#: weights as :func:`score_pairs` takes them: (indptr, cls, delta, base, row, rows)
Layout: TypeAlias = "tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]"


def dense_layout(weights: np.ndarray) -> Layout:
    """A terms x classes table of weights as :func:`score_pairs` takes weights: every term has
    its full row (``rows = weights``; ``row`` empty, meaning ``row[t] = t``), no pairs, no
    base. Scoring a dense table is the same pass as scoring pairs whose terms all have rows."""
    V, K = weights.shape
    none = np.zeros(0, dtype=np.int64)
    return (np.zeros(V + 1, dtype=np.int64), none, np.zeros(0), np.zeros(K), none, weights)


def score(buf: np.ndarray, bounds: np.ndarray, is_word: np.ndarray, lo_n: int, hi_n: int, stop: Table,
          n_features: int, terms: Table, weights: np.ndarray, binary: bool, T: int) -> np.ndarray:
    """out[d, c] = sum over the known terms of document d of weights[t, c] (each distinct term
    once when ``binary``); unknown terms are skipped. No document-term matrix is built."""
    return score_pairs(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, *dense_layout(weights), binary, T)


def score_pairs(buf: np.ndarray, bounds: np.ndarray, is_word: np.ndarray, lo_n: int, hi_n: int, stop: Table,
                n_features: int, terms: Table, indptr: np.ndarray, cls: np.ndarray, delta: np.ndarray,
                base: np.ndarray, row: np.ndarray, rows: np.ndarray, binary: bool, T: int) -> np.ndarray:
    """out[d, c] = sum over the known term occurrences t of document d (each distinct term once
    when ``binary``) of base[c] + delta[p] for the pair p = (t, c) if seen. The pairs of term t
    are p = indptr[t]..indptr[t + 1], class cls[p]; a term most classes hold has its full
    weights in ``rows[row[t]]`` instead (``add_term`` in _pairs.pxd). Unknown terms are
    skipped.

    ``T`` ranges of documents are scored on Python threads (the compiled loop releases the
    GIL), each document's sums made in the same order whatever the split."""
    n_docs, V = len(bounds) - 1, len(indptr) - 1
    out = np.zeros((n_docs, len(base)))
    # the last document per term, read only when ``binary``: else not V of scratch per call (a
    # served request of one SMS spent a tenth of its time filling it)
    return rows_on_threads(score_rows, (buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms, indptr, cls, delta,
                                        base, row, rows, binary, out), n_docs, T,
                           lambda: (np.full(V if binary else 1, -1, dtype=np.int64),))


#: code points of input below which the presence rows are found on one thread
_PARALLEL_CHARS = 1 << 20


def presence_rows(buf: np.ndarray, bounds: np.ndarray, is_word: np.ndarray, lo_n: int, hi_n: int, stop: Table,
                  n_features: int, terms: Table, n_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """The presence matrix's CSR arrays straight from tokenising: per document its distinct
    known terms, sorted (indptr, indices); no (document, term) list to sort or sum. Ranges of
    documents of about equal size (in code points) are tokenised on the machine's threads
    (the kernel releases the GIL), then joined."""
    n_docs = len(bounds) - 1
    T = min(threads(), n_docs)
    args = (buf, is_word, lo_n, hi_n, stop, n_features, terms, n_terms)
    if T <= 1 or bounds[-1] - bounds[0] < _PARALLEL_CHARS:
        return presence_block(buf, bounds, *args[1:])
    cuts = np.searchsorted(bounds, np.linspace(bounds[0], bounds[-1], T + 1)[1:-1])
    cuts = np.unique(np.concatenate([[0], cuts[(cuts > 0) & (cuts < n_docs)], [n_docs]]))
    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        parts = list(pool.map(lambda k: presence_block(buf, bounds[cuts[k]: cuts[k + 1] + 1], *args[1:]),
                              range(len(cuts) - 1)))
    indptr = np.empty(n_docs + 1, dtype=np.int64)
    indptr[0] = 0
    at = 0
    for k, (ip, _) in enumerate(parts):
        indptr[cuts[k] + 1: cuts[k + 1] + 1] = ip[1:] + at
        at += ip[-1]
    return indptr, np.concatenate([ind for _, ind in parts])
