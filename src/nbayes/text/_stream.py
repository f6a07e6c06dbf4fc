"""Streams of ``partial_fit`` chunks counted in place, the statistics made once when read.

A chunk whose labels the model already knows (counts, not a learned tf-idf) is not turned
into statistics of its own and added to the model's, which would cost a union of
vocabularies, an ordering of the chunk's terms and their Python strings per chunk:

- hashing mode adds its counts straight into the model's dense per-bucket statistics;
- vocabulary mode counts into one term table kept across the chunks (a ``_Learner``: the
  terms' code points and the (class, term) pairs seen, so its memory grows with the distinct
  terms and pairs, never with the length of the stream). ``stats_`` leaves the model while
  the table is open; the first read of ``stats_`` or of any parameter makes the table's
  statistics (sorted terms, CSR counts) once and adds them to those of the first chunk.

Either way the parameters are estimated again on their next use, so a stream of chunks costs
its counting, and ``partial_fit`` over the chunks equals ``fit`` on all of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_sample_weight, check_y, encode_labels
from ..naive_bayes.params import ESTIMATING
from ..stats.text import TextStats
from ..stats.text_exact import add_bounds, plain_bound, set_whole_bound, whole_bound
from ._estimate import _DENSE
from .vocab import TermTable, _Learner, count_hashed_into, learn_into, learned_terms

#: the model's attribute holding an open table: (learner, class counts, documents), or the
#: table's statistics while they are added to those before it
_OPEN = "_stream"
#: the statistics of the chunks before the table was opened
_BEFORE = "_stream_before"
#: a pair table given as keys alone (no slots)
_NO_SLOTS = np.full(2, -1, dtype=np.int64)


def _absorb(learner: _Learner, stats: TextStats) -> bool:
    """Count ``stats`` (of other documents, same classes) into ``learner`` as if it had counted
    their documents: their terms found or added by code points, their (class, term) counts
    added to its pairs. False (``learner`` unchanged) when ``stats`` hold no term table or
    tf-idf sums: the caller adds the two sets of statistics instead."""
    table = stats.table
    if not isinstance(table, TermTable) or stats.weighted is not None or len(table) != stats.n_terms:
        return False
    K, V = learner.n_classes, stats.n_terms
    keys = np.empty(V, dtype=np.int64)
    ids = table.slots[1::2]
    used = ids >= 0
    keys[ids[used]] = table.slots[0::2][used]
    pair_keys, counts, dcounts = [], [], []
    for i, m in enumerate((stats.term_count, stats.doc_count)):
        m = sp.coo_matrix(m)  # (class, term) -> pairs t * K + c; each matrix's pairs on their own
        pair_keys.append(m.col.astype(np.int64) * K + m.row)
        vals, none = m.data.astype(np.float64), np.zeros(m.nnz)
        counts.append(vals if i == 0 else none)
        dcounts.append(none if i == 0 else vals)
    pkeys, pcount, pcdf = np.concatenate(pair_keys), np.concatenate(counts), np.concatenate(dcounts)
    # the statistics as a learner that counted them, absorbed as a thread's learner is
    other = _Learner.__new__(_Learner)
    other.n_classes, other.n_terms, other.n_cps = K, V, len(table.cps)
    other.slots, other.keys, other.start, other.length, other.cps = table.slots, keys, table.start, table.length, table.cps
    other.last = np.full(V, -1, dtype=np.int64)
    other.pslots, other.pkeys, other.pcount, other.pcdf, other.n_pairs = _NO_SLOTS, pkeys, pcount, pcdf, len(pkeys)
    other.df = np.ascontiguousarray(stats.df, dtype=np.float64)
    other.tf = np.ascontiguousarray(stats.tf, dtype=np.float64)
    learner.absorb(other)
    return True


def _same_labels(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label arrays hold the same labels."""
    if len(a) != len(b):
        return False
    _, unknown = encode_labels(a, b)
    return not unknown.any()


class StreamCounting:
    """Mixin of :class:`~nbayes.text.TextClassifier`: the in-place path of ``partial_fit``."""

    def _accumulates(self: Any, classes: Any) -> bool:
        """Counts (no learned idf), fitted, the same classes: count the chunk in place."""
        d = self.__dict__
        return (
            not self.tfidf
            and ("stats_" in d or _OPEN in d)
            and "classes_" in d
            and (classes is None or _same_labels(np.asarray(list(classes), dtype=object), self.classes_))
        )

    def _accumulate(self: Any, X: Any, y: Any, sample_weight: Any) -> bool:
        """Count the chunk into the model (no per-chunk statistics, no re-estimation until the
        parameters are next used). False when the chunk brings a class the model has not seen
        (the general path handles it)."""
        self.check_params()
        docs, _ = self.prepare_input(X, fitting=False)
        n = docs.shape[0]
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        codes, unknown = encode_labels(y, self.classes_)
        if unknown.any():
            return False
        K = len(self.classes_)
        cc = np.bincount(codes, weights=w, minlength=K).astype(np.float64)
        d = self.__dict__
        # in place only while every float sum stays exact (counts on one grid, whole numbers or
        # halves, below 2**53 of it); else the general path counts the chunk exactly and adds it
        # exactly (nbayes.stats.text_exact)
        held = d[_OPEN][0].bound if isinstance(d.get(_OPEN), tuple) else whole_bound(self.stats_)
        bound = plain_bound(w, 4 * (len(docs.buf) + n + 1) * (self._how().hi - self._how().lo + 1))
        total = add_bounds(held, bound)
        if total is None:
            return False
        if self.n_features is not None:
            s = self.stats_  # (an open table of vocabulary mode, before set_params changed the mode, closes)
            set_whole_bound(s, total)
            count_hashed_into(docs.buf, docs.bounds, docs.table, codes, w, self._how(), s.term_count, s.doc_count,
                              s.df, s.tf)
            s.class_count += cc
            s.n_docs += n
        else:
            learner, seen, docs_seen = d.get(_OPEN) or (None, np.zeros(K), 0.0)
            learner = learn_into(learner, docs.buf, docs.bounds, docs.table, codes, w, K, self._how())
            learner.bound = total
            if _OPEN not in d:
                d[_BEFORE] = d.pop("stats_")
            d[_OPEN] = (learner, seen + cc, docs_seen + n)
        self._defer_estimation()
        return True

    def _close_stream(self: Any) -> None:
        """The open table's statistics added to those before it: ``stats_`` again."""
        d = self.__dict__
        if isinstance(d[_OPEN], tuple):
            learner, cc, n = d[_OPEN]
            before = d[_BEFORE]
            if before is not None and _absorb(learner, before):
                # the statistics before the table are in it now: one set of statistics made,
                # no union of two vocabularies and its copies of every count
                d[_OPEN] = (learner, before.class_count + cc, before.n_docs + n)
                d[_BEFORE] = before = None
                learner, cc, n = d[_OPEN]
            terms, counts, dcounts, df, tf, table = learned_terms(learner, len(cc), self._how(), lazy=True)
            # the table's statistics replace the table (its memory is free for the sum); the
            # table stays intact until here, so a failure above leaves the stream open
            d[_OPEN] = TextStats(terms, cc, counts, dcounts, df, tf, n, table)
            del learner
        before = d[_BEFORE]
        self.stats_ = d[_OPEN] if before is None else before + d[_OPEN]  # (which drops the table)

    def _drop_stream(self: Any) -> None:
        """Forget an open table (new statistics are set: a fit, an update, or its own closing)."""
        self.__dict__.pop(_OPEN, None)
        self.__dict__.pop(_BEFORE, None)

    def __setattr__(self: Any, name: str, value: Any) -> None:
        # new statistics (fit, set_statistics, an online update) replace whatever an open table
        # held: kept, it would be added to them when next read
        if name == "stats_":
            self._drop_stream()
        super().__setattr__(name, value)

    def __getattr__(self: Any, name: str) -> Any:
        d = self.__dict__
        # the statistics or a parameter estimated from them (not any name probed by getattr)
        if _OPEN in d and (name == "stats_" or name in d.get("_derived_keys", ()) or name in _DENSE):
            with ESTIMATING:  # threads predicting at once: one closes it, the others wait
                if _OPEN in d:  # (another thread may have closed it meanwhile)
                    self._close_stream()
            if name in d:
                return d[name]
        return super().__getattr__(name)  # type: ignore[misc]  # the next class's in the MRO

