"""An exact term table over the text kernels: learn terms and counts, look terms up."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .._scipy import sparse as sp
from .._kernels import give_back_freed_memory, threads
from .._kernels.text import count_new, merge_learned, rehash, rehash_pairs
from .._kernels.text_parts import NO_PARTS, renumbered_parts
from .._kernels.text_pairs import presence_rows, score
from .._kernels.text_sort import dense_pair_counts, dense_pair_fill, pair_csr, renumber_slots, sort_order
from ..stats.terms import CodeTerms, object_array
from ._pairs import Pairs as Pairs  # (re-exported: imported from here)
from ._terms import (  # (TermTable, Tokens, Kernels: re-exported, imported from here)
    CHAR_KERNELS as CHAR_KERNELS, WORD_KERNELS as WORD_KERNELS, Kernels as Kernels, KernelTerms as KernelTerms,
    StopTable as StopTable, TermTable as TermTable, Tokens as Tokens, _NO_PARTS, _NONE_I, _NONE_U, _pow2, _room,
    _table_size,
)

#: bytes a (term, class) pair takes in a learner's pair table per unit of capacity (two
#: slots of key and index, the key, two counts); a term's row of K dense counts takes 16 K
_PAIR_BYTES = 56
#: the pair slots of a learner spent into another (see _Learner.spend)
_SPENT_SLOTS = np.full(4, -1, dtype=np.int64)


class _Learner:
    """A growing term table with per-term counts, filled by the counting kernel."""

    def __init__(self, n_classes: int, chars: int, grams: int = 1) -> None:
        # sized from the input so that the kernel rarely stops to grow the tables (each growth
        # writes a new table and rehashes): on 20 Newsgroups a new word per 170 code points, a
        # new unigram or bigram per 19, about 2 (unigrams) / 1.5 (n-grams) pairs per term;
        # growth beyond is by doubling
        est = chars * grams**3 // 128
        terms = max(1 << 12, min(est, 1 << 21))
        pairs = max(1 << 12, min(2 * est if grams == 1 else est, 1 << 21))
        cap, pcap = _pow2(terms), _pow2(pairs)
        self.n_classes = max(n_classes, 1)
        # the hash slots are filled to 3/4 at most (_table_size); the per-term and per-pair
        # arrays are given memory as they fill, so their capacity is a power of two
        self.slots = np.full(_table_size(terms), -1, dtype=np.int64)
        # the per-term arrays take memory as terms are added (np.zeros and np.empty map fresh
        # pages, given memory when first written): a kernel writes a new term's row in full
        self.keys, self.start, self.length = (np.zeros(cap, dtype=np.int64) for _ in range(3))
        self.last = np.empty(cap, dtype=np.int64)
        # per word n-gram the ids of its prefix and last word (-1: a single word, or unknown),
        # by which the counting kernel and the merge confirm a match without its code points;
        # per term the class and index of its first pair (-1: none yet), not in the pair slots;
        # int32, 16 bytes a term (the kernels keep no id or pair index there beyond 2**31 - 1)
        self.parts = np.empty((cap, 4), dtype=np.int32)
        self.df, self.tf = np.zeros(cap), np.zeros(cap)
        self.cps = np.zeros(max(1024, min(chars * grams**3 // 12, 1 << 28)), dtype=np.uint32)
        # the (term, class) pairs seen, in their own table: memory grows with the pairs, never
        # with classes x terms (1,000 classes and a million terms fit)
        # only the pairs beyond each term's first (kept in its parts, _pairs.pxd) go in the
        # slots: about one a term with single words, one every other term with n-grams
        self.pslots = np.full(_table_size(pairs // 2), -1, dtype=np.int64)
        self.pused = np.zeros(1, dtype=np.int64)  # the pairs in the slots (the kernels count them)
        self.pkeys = np.zeros(pcap, dtype=np.int64)
        self.pcount, self.pcdf = np.zeros(pcap), np.zeros(pcap)
        self.n_terms = self.n_cps = self.n_pairs = 0
        self.spent = False  # (see spend)
        #: the bound of the counts held while float sums of them are exact (stats.text_exact); None: unknown
        self.bound: tuple[float, int] | None = None
        if cap * self.n_classes * 16 <= pcap * _PAIR_BYTES:
            self._to_dense(cap)

    def reserve(self, terms: int, chars: int, pairs: int | None = None) -> None:
        """Room for ``terms`` more terms of ``chars`` more code points, and ``pairs`` more
        (term, class) pairs (default: as many as terms)."""
        if self.n_cps + chars > len(self.cps):
            self.cps = _grow(self.cps, max(2 * len(self.cps), self.n_cps + chars))
        need = self.n_terms + terms
        if need > len(self.keys):
            cap = max(2 * len(self.keys), _pow2(need + 1))
            for name in ("keys", "start", "length", "df", "tf", "last", "parts"):  # one at a time: the old one goes first
                setattr(self, name, _grow(getattr(self, name), cap))
        room = _room(self.slots)
        if need > room:
            self.slots = _NONE_I  # (given up before the new table is made)
            self.slots = np.full(_table_size(max(need, 2 * room)), -1, dtype=np.int64)
            rehash(self.slots, self.keys, self.n_terms)
        K, rows = self.n_classes, self.n_terms + terms
        if self.dense:
            if rows * K > len(self.pcount):
                size = max(2 * len(self.pcount), _pow2(rows) * K)
                self.pcount = _grow(self.pcount, size)
                self.pcdf = _grow(self.pcdf, size)
            return
        more = terms if pairs is None else pairs
        need, slotted, room = self.n_pairs + more, int(self.pused[0]) + more, _room(self.pslots)
        if need > len(self.pkeys) or slotted > room:
            cap = max(2 * len(self.pkeys), _pow2(need + 1)) if need > len(self.pkeys) else len(self.pkeys)
            if _pow2(rows) * K * 16 <= cap * _PAIR_BYTES:
                self._to_dense(_pow2(rows))  # rows of K counts per term take less than the grown pair table
                return
            if need > len(self.pkeys):
                for name in ("pkeys", "pcount", "pcdf"):
                    setattr(self, name, _grow(getattr(self, name), cap))
            if slotted > room:
                self.pslots = _NONE_I
                self.pslots = np.full(_table_size(max(slotted, 2 * room)), -1, dtype=np.int64)
                self.pused[0] = rehash_pairs(self.pslots, self.pkeys, self.n_pairs, K, self.parts)

    def _holds_terms(self, n: int) -> bool:
        """Whether the term table (and dense rows) have room for ``n`` terms without growing."""
        return n <= len(self.keys) and n <= _room(self.slots) and not (
            self.dense and n * self.n_classes > len(self.pcount))

    @property
    def dense(self) -> bool:
        """Whether the pairs are rows of K counts per term (pair (t, c) at t * K + c) rather
        than a table of the pairs seen: chosen when it takes less memory, as when most terms
        occur in a good part of the classes (a long stream over a bounded vocabulary)."""
        return len(self.pslots) == 0

    def _to_dense(self, rows: int) -> None:
        # np.zeros takes no memory until written; each table is given up as soon as it is read
        # (the slots first, unread), so the peak holds one more array rather than two tables
        n, size, keys = self.n_pairs, rows * self.n_classes, self.pkeys[: self.n_pairs]
        count, cdf = np.zeros(size), np.zeros(size)
        self.pslots = self.pkeys = _NONE_I
        count[keys] = self.pcount[:n]
        self.pcount = count
        cdf[keys] = self.pcdf[:n]
        self.pcdf = cdf

    def pairs_seen(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(keys t * K + c, counts, document counts) of the pairs counted, in any order."""
        if not self.dense:
            n = self.n_pairs
            return self.pkeys[:n], self.pcount[:n], self.pcdf[:n]
        size = self.n_terms * self.n_classes
        keys = np.flatnonzero((self.pcount[:size] != 0) | (self.pcdf[:size] != 0))
        return keys, self.pcount[keys], self.pcdf[keys]

    def learn(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray, codes: np.ndarray,
              w: np.ndarray | None, how: Tokens) -> "_Learner":
        has_w = w is not None
        wv = w if has_w else np.empty(0)
        n_docs = len(bounds) - 1
        doc = 0
        # documents are numbered from 0 in every batch: forget which one last held each term
        # (a learner kept across the chunks of a stream would otherwise miss a document)
        self.last[: self.n_terms] = -1
        while True:
            terms = (self.slots, self.keys, self.start, self.length, self.cps, self.last)
            pairs = (self.pslots, self.pkeys, self.pcount, self.pcdf, self.pused)
            doc, self.n_terms, self.n_cps, self.n_pairs = how.kernels.learn_counts(
                buf, bounds, doc, codes, wv, has_w, table, *how.args(), terms, self.n_terms, self.n_cps,
                self.n_classes, pairs, self.n_pairs, self.df, self.tf, self.parts,
            )
            if doc >= n_docs:
                return self
            self.reserve(*how.room(int(bounds[doc + 1] - bounds[doc])))

    def spend(self) -> None:
        """Give up what :meth:`absorb` never reads of this learner (its term and pair slots,
        the last document per term), before another learner absorbs it."""
        self.slots = self.last = _NONE_I
        if not self.dense:
            self.pslots = _SPENT_SLOTS  # (not empty: an empty pair table means dense rows)
        self.spent = True

    def absorb(self, other: "_Learner") -> "_Learner":
        """Add what ``other`` counted over other documents, as if this learner had counted them."""
        new = other.n_terms
        if not self._holds_terms(self.n_terms + new):
            # room for the other's new terms only (most of its terms are usually this one's too),
            # rather than growing for all of them
            new = count_new(self.slots, self.start, self.length, self.cps, other.keys, other.start, other.length,
                            other.cps, other.n_terms)
        # room for the terms and code points; the pairs' room is made as the merge needs it
        self.reserve(new, other.n_cps, 0)
        where, q, terms_only = np.empty(other.n_terms, dtype=np.int64), -1, True
        while True:
            self.n_terms, self.n_cps, self.n_pairs, q = merge_learned(
                (self.slots, self.keys, self.start, self.length, self.cps, self.last), self.n_terms, self.n_cps,
                self.n_classes, (self.pslots, self.pkeys, self.pcount, self.pcdf, self.pused), self.n_pairs, self.df,
                self.tf, (other.slots, other.keys, other.start, other.length, other.cps, other.last), other.n_terms,
                (other.pslots, other.pkeys, other.pcount, other.pcdf), other.n_pairs, other.df, other.tf,
                self.parts, getattr(other, "parts", _NO_PARTS), where, q,
            )
            if q < 0:
                break
            if terms_only:  # the terms merged (q is 0): a spent learner's term arrays are read no more
                terms_only = False
                if getattr(other, "spent", False):
                    other.keys, other.start, other.length, other.cps = _NONE_I, _NONE_I, _NONE_I, _NONE_U
                    other.parts, other.df, other.tf = _NO_PARTS, np.zeros(0), np.zeros(0)
            else:
                self.reserve(0, 0, 1)  # (a pair table grows by doubling)
        return self


#: code points of input below which counting stays on one thread (a second learner and the
#: merge of its table cost more than they save on small batches)
_PARALLEL_CHARS = 1 << 21


def learn_into(learner: _Learner | None, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray,
               codes: np.ndarray, w: np.ndarray | None, n_classes: int, how: Tokens) -> _Learner:
    """``learner`` (a new one when None) having also counted these documents: with several
    threads, one learner per range of documents (split by code points), each counting on its
    own thread (the kernel releases the GIL), then merged in order into the first."""
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    grams = how.hi - how.lo + 1
    n_docs = len(bounds) - 1
    T = min(threads(), n_docs)
    if T <= 1 or bounds[-1] - bounds[0] < _PARALLEL_CHARS:
        main = _Learner(n_classes, len(buf), grams) if learner is None else learner
        return main.learn(buf, bounds, table, codes, w, how)
    cuts = np.unique(np.searchsorted(bounds, np.linspace(bounds[0], bounds[-1], T + 1)[1:-1]))
    cuts = np.concatenate([[0], cuts[(cuts > 0) & (cuts < n_docs)], [n_docs]])

    def part(k: int) -> _Learner:
        d0, d1 = int(cuts[k]), int(cuts[k + 1])
        # the first learner absorbs the others: sized for all the input, it need not grow then
        chars = int(bounds[-1] - bounds[0]) if k == 0 else int(bounds[d1] - bounds[d0])
        into = learner if k == 0 and learner is not None else _Learner(n_classes, chars, grams)
        return into.learn(
            buf, bounds[d0 : d1 + 1], table, codes[d0:d1], None if w is None else w[d0:d1], how)

    with ThreadPoolExecutor(len(cuts) - 1) as pool:
        learners = list(pool.map(part, range(len(cuts) - 1)))
    main = learners[0]
    while len(learners) > 1:
        other = learners.pop(1)
        other.spend()
        main.absorb(other)
        del other  # each learner's memory given back once merged, not at the end
        give_back_freed_memory()
    return main


def learn_terms(
    buf: np.ndarray, bounds: np.ndarray, table: np.ndarray, codes: np.ndarray, w: np.ndarray | None,
    n_classes: int, how: Tokens, lazy: bool = False,
) -> tuple[Any, sp.csr_matrix, sp.csr_matrix, np.ndarray, np.ndarray, TermTable]:
    """Count a batch of documents from scratch, over the vocabulary they contain.

    Returns (terms sorted, term counts K x V, document counts K x V (CSR: the (class, term)
    pairs seen), df V, tf V, their term table): weighted occurrences and weighted documents
    containing the term per class; unweighted documents containing it and unweighted
    occurrences over the batch. The terms are an object array of str, or with ``lazy`` a
    :class:`~nbayes.stats.terms.CodeTerms` (strings made only if read).
    """
    give_back_freed_memory()  # (what making the buffer freed: the learners' tables come on top)
    main = learn_into(None, buf, bounds, table, codes, w, n_classes, how)
    out = learned_terms(main, n_classes, how, keep=False, lazy=lazy)
    del main
    give_back_freed_memory()  # the spent learner's
    return out


def learned_terms(
    main: _Learner, n_classes: int, how: Tokens, keep: bool = True, lazy: bool = False,
) -> tuple[Any, sp.csr_matrix, sp.csr_matrix, np.ndarray, np.ndarray, TermTable]:
    """What ``main`` counted, as :func:`learn_terms` returns it. ``keep=False``: the learner is
    spent, its table becomes the model's (renumbered in place) and each of its other arrays is
    let go as soon as it is read, so that the peak holds little more than the model."""
    n_terms, K, dense = main.n_terms, max(n_classes, 1), main.dense
    pkeys, pcount, pcdf = main.pairs_seen() if not dense else (_NONE_I, main.pcount, main.pcdf)
    if not keep:  # what the model never reads goes first
        main.keys = main.last = main.pslots = _NONE_I
    cps = main.cps[: main.n_cps]
    if not keep and len(main.cps) > main.n_cps and main.cps.flags.owndata:
        main.cps.resize(main.n_cps, refcheck=False)  # the buffer's unused end given back, not copied
        cps = main.cps
    elif 2 * main.n_cps < len(main.cps):  # the model keeps the code points: not a mostly empty buffer
        cps = cps.copy()
    start, length = main.start[:n_terms], main.length[:n_terms]
    order = sort_order(cps, start, length, threads())  # code point order, as scikit-learn's vocabulary
    start, length = start[order], length[order]
    df, tf = main.df[order], main.tf[order]
    if not keep:
        main.start = main.length = _NONE_I
        main.df = main.tf = np.zeros(0)
    vocab = CodeTerms(cps, start, length)
    # the learner's table, renumbered to sorted ids, serves predictions when every term is kept
    rank = np.empty(n_terms, dtype=np.int64)
    rank[order] = np.arange(n_terms)
    slots = main.slots if not keep else main.slots.copy()
    renumber_slots(slots, rank)
    learned = TermTable.from_parts(vocab, slots, start, length, cps, how)
    if learned.grams_by_ids() and len(main.parts) >= n_terms:
        # the n-grams' parts as counting found them, renumbered: the first lookup builds none
        parts = np.empty((n_terms, 2), dtype=np.int32)
        learned.set_parts(parts, renumbered_parts(main.parts, order, rank, start, length, cps, parts))
    if not keep:
        main.parts = _NO_PARTS
    if dense:  # rows of K counts: read in term order, no list of pairs in between
        indptr = dense_pair_counts(pcount, pcdf, order, K)
        n = int(indptr[-1])
        small = max(n_terms, n) < 2**31 - 1
        indices = np.empty(n, dtype=np.int32 if small else np.int64)
        tcd, dcd = np.empty(n), np.empty(n)
        dense_pair_fill(pcount, pcdf, order, K, indptr, indices, tcd, dcd)
    else:
        n = len(pkeys)
        small = max(n_terms, n) < 2**31 - 1
        indptr = np.zeros(K + 1, dtype=np.int64)
        indices = np.empty(n, dtype=np.int32 if small else np.int64)
        tcd, dcd = np.empty(n), np.empty(n)
        # CSR over classes straight from the distinct pairs: no COO conversion, sort or summing
        pair_csr(pkeys, pcount, pcdf, rank, K, indptr, indices, tcd, dcd)
    del pkeys, pcount, pcdf, order
    if not keep:
        main.pkeys, main.pcount, main.pcdf = _NONE_I, np.zeros(0), np.zeros(0)
    indptr = indptr[: n_classes + 1].astype(np.int32 if small else np.int64)
    shape = (n_classes, n_terms)
    if (tcd == 0).any() or (dcd == 0).any():
        # pairs whose documents all weighed 0: dropping them rewrites each matrix's index
        # arrays in place, so each has its own
        tc = _drop_zeros(sp.csr_matrix((tcd, indices.copy(), indptr.copy()), shape=shape))
        dc = _drop_zeros(sp.csr_matrix((dcd, indices, indptr), shape=shape))
    else:
        # one pattern (a pair is counted with its document): the two share their index arrays,
        # read-only (as an online update's, nbayes.text.online), so an in-place change fails loudly
        indices.flags.writeable = indptr.flags.writeable = False
        tc = _sorted(sp.csr_matrix((tcd, indices, indptr), shape=shape))
        dc = _sorted(sp.csr_matrix((dcd, indices, indptr), shape=shape))
    return vocab if lazy else vocab.strings(), tc, dc, df, tf, learned


def _drop_zeros(m: sp.csr_matrix) -> sp.csr_matrix:
    """m without stored zeros (pairs whose documents all weighed 0), canonical."""
    m.eliminate_zeros()
    return _sorted(m)


def _sorted(m: sp.csr_matrix) -> sp.csr_matrix:
    m.has_sorted_indices = True  # built in (class, term) order, each pair once
    return m


_objects = object_array


def _grow(a: np.ndarray, n: int, fill: float = 0) -> np.ndarray:
    # np.zeros takes fresh zeroed pages from the OS (nothing is written until used); np.full
    # would write every byte of tables that reach hundreds of MB with bigrams
    shape = (n,) + a.shape[1:]
    out = np.zeros(shape, dtype=a.dtype) if fill == 0 else np.full(shape, fill, dtype=a.dtype)
    out[: len(a)] = a
    return out


class HashedTerms:
    """Hashing mode: a term's column is its bucket, murmur3(term) mod ``n_features``, the term
    being a word or a word n-gram "w1 w2" once the stop words are dropped (as scikit-learn's
    ``HashingVectorizer``); same interface as :class:`TermTable`, no vocabulary."""

    def __init__(self, n_features: int, tokens: Tokens | None = None) -> None:
        self.n_features = int(n_features)
        self.how = tokens if tokens is not None else Tokens()

    def __len__(self) -> int:
        return self.n_features

    def score(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray, weights: np.ndarray,
              binary: bool) -> np.ndarray:
        w = np.ascontiguousarray(weights, dtype=np.float64)
        scores: np.ndarray = self.how.kernels.score(buf, bounds, table, *self.how.args(), self.n_features, _no_table(_NONE_I), w,
                                 binary, threads())
        return scores

    def presence(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows: tuple[np.ndarray, np.ndarray] = self.how.kernels.presence_rows(buf, bounds, table, *self.how.args(), self.n_features,
                                                            _no_table(_NONE_I), self.n_features)
        return rows

    def tokens(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray) -> np.ndarray:
        found: np.ndarray = self.how.kernels.term_ids(buf, bounds, table, *self.how.args(), self.n_features, _no_table(_NONE_I))
        return found


#: a term table of either mode (the same interface)
AnyTerms = TermTable | HashedTerms


def _no_table(last: np.ndarray) -> KernelTerms:
    """Hashing mode's stand-in for a term table: nothing but ``last`` (per bucket) is used."""
    return (np.full(2, -1, dtype=np.int64), _NONE_I, _NONE_I, _NONE_I, _NONE_U, last, NO_PARTS, False)


def hash_terms(
    buf: np.ndarray, bounds: np.ndarray, table: np.ndarray, codes: np.ndarray, w: np.ndarray | None,
    n_classes: int, n_features: int, how: Tokens | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`learn_terms` in hashing mode: the terms are the bucket numbers 0..n_features-1,
    and memory does not grow with the corpus."""
    how = how if how is not None else Tokens()
    K = n_classes
    counts, cdf = np.zeros((K, n_features)), np.zeros((K, n_features))
    df, tf = np.zeros(n_features), np.zeros(n_features)
    count_hashed_into(buf, bounds, table, codes, w, how, counts, cdf, df, tf)
    return np.arange(n_features, dtype=np.int64), counts, cdf, df, tf


def count_hashed_into(buf: np.ndarray, bounds: np.ndarray, table: np.ndarray, codes: np.ndarray,
                      w: np.ndarray | None, how: Tokens, counts: np.ndarray, cdf: np.ndarray,
                      df: np.ndarray, tf: np.ndarray) -> None:
    """Add a batch's hashed counts to class-major tables (K x n_features) in place."""
    n_features = counts.shape[1]
    has_w = w is not None
    how.kernels.hash_counts(buf, bounds, np.ascontiguousarray(codes, dtype=np.int64), w if has_w else np.empty(0), has_w,
                table, *how.args(), n_features, counts, cdf, df, tf, np.full(n_features, -1, dtype=np.int64))
