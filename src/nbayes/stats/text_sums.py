"""Text statistics summed in place: many updates over one growing vocabulary (the learning
service replays its log with :class:`TextReplay`), counts added at class and term positions
(:func:`add_at`), per-class counts densified (:func:`dense`). With ``TextStats.__add__`` /
``embed`` / ``subtract`` (:mod:`nbayes.stats.text`), the text statistics' arithmetic, written once."""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np

from .._scipy import sparse as sp
from .._validation import encode_labels, union_labels
from .text import TextStats
from .text_exact import Bound, add_bounds, counts_bound

__all__ = ["TextReplay", "add_at", "dense"]


def add_at(into: tuple[np.ndarray, ...], cpos: np.ndarray, tpos: np.ndarray, add: tuple[Any, ...]) -> None:
    """In place: text counts ``add`` = (class_count, term_count, doc_count, df, tf) onto
    ``into``'s, their classes at rows ``cpos`` and terms at columns ``tpos``."""
    cc, tc, dc, df, tf = into
    cc[cpos] += add[0]
    rows = np.ix_(cpos, tpos)
    tc[rows] += dense(add[1])
    dc[rows] += dense(add[2])
    df[tpos] += add[3]
    tf[tpos] += add[4]


def dense(a: Any, copy: bool = False) -> np.ndarray:
    """Per-class counts as a dense array (the service adds updates in place into its copy; the
    model's statistics may hold them as CSR pairs)."""
    if sp.issparse(a):
        return np.asarray(a.toarray(), dtype=np.float64)
    return np.array(a, dtype=np.float64) if copy else a


class TextReplay:
    """The sum of many text updates over one growing vocabulary numbered in order of first
    sight (as the log numbers its terms): the counts are added in place, so n updates cost
    O(their size), not a merge of sorted vocabularies each. Updates come as statistics over
    their own terms (:meth:`add`: a dictionary look-up per term) or, replaying a log, as counts
    over term numbers the log defined in order (:meth:`define`, :meth:`add_counts`)."""

    def __init__(self, classes: np.ndarray, terms: int = 0) -> None:
        """``terms``: how many distinct terms to make room for first (it grows by doubling)."""
        self.classes = classes
        self.ids: dict[str, int] = {}
        self.words: list[str] = []
        cap = max(1024, int(terms))
        self.tc, self.dc = np.zeros((len(classes), cap)), np.zeros((len(classes), cap))
        self.df, self.tf = np.zeros(cap), np.zeros(cap)
        self.cc = np.zeros(len(classes))
        self.n_docs = 0.0
        #: the bound of the counts summed while their float sums are exact (stats.text_exact);
        #: None once a sum could have rounded: the caller then sums the updates exactly instead
        self.bound: Bound | None = (0.0, 0)

    def define(self, words: list[str], by_name: bool = True) -> None:
        """Number ``words`` (new) next, in order; ``by_name=False``: no dictionary of them (the
        counts then come by number only, :meth:`add_counts`)."""
        n = len(self.words)
        if by_name:
            self.ids.update(zip(words, range(n, n + len(words))))
        self.words.extend(words)

    def numbers(self, terms: np.ndarray) -> np.ndarray:
        """The numbers of the distinct ``terms`` (an object array), numbering the new ones next."""
        tid = np.fromiter(map(self.ids.get, terms.tolist(), repeat(-1)), dtype=np.intp, count=len(terms))  # a C loop
        fresh = np.flatnonzero(tid < 0)
        if len(fresh):  # distinct: numbered in order, with no loop in Python
            n = len(self.words)
            self.define(terms[fresh].tolist())
            tid[fresh] = np.arange(n, n + len(fresh))
        return tid

    def add(self, classes: np.ndarray, s: TextStats) -> None:
        """Add the statistics ``s`` (over their own sorted terms) of the classes ``classes``."""
        self.add_counts(classes, self.numbers(s.terms), s.class_count, dense(s.term_count), dense(s.doc_count),
                        s.df, s.tf, s.n_docs)

    def add_counts(self, classes: np.ndarray, tid: np.ndarray, cc: np.ndarray, tc: np.ndarray, dc: np.ndarray,
                   df: np.ndarray, tf: np.ndarray, n_docs: float) -> None:
        """Add counts over the (distinct) term numbers ``tid`` of the classes ``classes``."""
        allc = union_labels(self.classes, classes)
        if len(allc) != len(self.classes):
            pos, _ = encode_labels(self.classes, allc)
            self.tc, self.dc = (_rows(a, pos, len(allc)) for a in (self.tc, self.dc))
            self.cc = _rows(self.cc[:, None], pos, len(allc))[:, 0]
            self.classes = allc
        cpos, _ = encode_labels(classes, self.classes)
        if len(self.words) > self.tc.shape[1]:
            cap = max(2 * self.tc.shape[1], len(self.words))
            self.tc, self.dc = (_cols(a, cap) for a in (self.tc, self.dc))
            self.df, self.tf = (_cols(a[None], cap)[0] for a in (self.df, self.tf))
        self.bound = add_bounds(self.bound, counts_bound(cc, tc, dc))
        add_at((self.cc, self.tc, self.dc, self.df, self.tf), cpos, tid, (cc, tc, dc, df, tf))
        self.n_docs += n_docs

    def result(self) -> TextStats:
        """The sum, over the terms seen (sorted; a term defined but never counted is left out)."""
        n = len(self.words)
        terms = np.empty(n, dtype=object)
        terms[:] = self.words
        order = np.array(sorted(range(n), key=self.words.__getitem__), dtype=np.intp)
        order = order[self.tf[order] > 0] if n and not (self.tf[:n] > 0).all() else order
        return TextStats(terms[order], self.cc, self.tc[:, order], self.dc[:, order], self.df[order],
                         self.tf[order], self.n_docs)


def _rows(a: np.ndarray, pos: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros((n, a.shape[1]))
    out[pos] = a
    return out


def _cols(a: np.ndarray, cap: int) -> np.ndarray:
    out = np.zeros((a.shape[0], cap))
    out[:, : a.shape[1]] = a
    return out
