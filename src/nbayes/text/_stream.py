"""A stream of text chunks counted in O(chunk) each, owned by the caller: ``model.stream()``.

``partial_fit`` is final after each call (new statistics and parameters, the published ones never
written). A long stream of chunks can instead go through a :class:`TextStream`, which the caller
makes, feeds and finishes (``nbayes train`` reads a file this way, and ``fit`` over an iterator of
chunks): a chunk whose labels the working model already knows (counts, not a learned tf-idf) is
not turned into statistics of its own and added, which would cost a union of vocabularies, an
ordering of the chunk's terms and their Python strings per chunk:

- hashing mode adds its counts into per-bucket arrays the stream owns (copies of the working
  model's, made when the stream first counts);
- vocabulary mode counts into one term table kept across the chunks (a ``_Learner``: the terms'
  code points and the (class, term) pairs seen, so its memory grows with the distinct terms and
  pairs, never with the length of the stream).

Nothing of this is in a model: ``finish()`` (or a chunk the open table cannot take, such as one
bringing a new class) makes the table's statistics once (sorted terms, CSR counts), adds them to
those before it and estimates once. The result equals ``partial_fit`` over the same chunks.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_documents, check_sample_weight, check_y, encode_labels
from ..naive_bayes import ChunkStream
from ..stats.text import TextStats
from ..stats.text_exact import add_bounds, plain_bound, set_whole_bound, whole_bound
from .vocab import TermTable, _Learner, count_hashed_into, learn_into, learned_terms

__all__ = ["TextStream", "known_chunk"]

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


def known_chunk(model: Any, X: Any, y: Any, sample_weight: Any) -> tuple[Any, np.ndarray, np.ndarray | None] | None:
    """(documents, class codes, weights) of a chunk for the fitted ``model`` (its settings
    checked first), or None when the chunk brings a class the model has not seen (the caller
    then takes the general path, which grows the classes)."""
    model.check_params()
    docs, _ = model.prepare_input(X, fitting=False)
    n = docs.shape[0]
    codes, unknown = encode_labels(check_y(y, n), model.classes_)
    return None if unknown.any() else (docs, codes, check_sample_weight(sample_weight, n))


def _same_labels(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label arrays hold the same labels."""
    if len(a) != len(b):
        return False
    _, unknown = encode_labels(a, b)
    return not unknown.any()


@dataclasses.dataclass
class _Hashed:
    """Hashing mode's open counts: copies of the working statistics' arrays, counted into."""

    class_count: np.ndarray
    term_count: np.ndarray
    doc_count: np.ndarray
    df: np.ndarray
    tf: np.ndarray
    n_docs: float
    bound: Any  # (of the counts: nbayes.stats.text_exact)


class TextStream(ChunkStream):
    """:class:`~nbayes.text.TextClassifier`'s stream of chunks (``model.stream()``): each
    ``add`` costs the chunk's counting; ``finish()`` makes the statistics and estimates once.

    >>> from nbayes import TextClassifier
    >>> m = TextClassifier()
    >>> s = m.stream()
    >>> for texts, labels in [(["cheap pills", "noon meeting"], ["spam", "ham"]), (["cheap offer"], ["spam"])]:
    ...     _ = s.add(texts, labels)
    >>> s.finish().predict(["cheap lunch"]).tolist()
    ['spam']
    """

    def __init__(self, model: Any, *, fresh: bool = False) -> None:
        super().__init__(model, fresh=fresh)
        #: the open counts: (a learner, its class counts, its documents) or hashing's arrays
        self._open: tuple[_Learner, np.ndarray, float] | _Hashed | None = None

    def add(self, X: Any, y: Any = None, classes: Any = None, sample_weight: Any = None) -> TextStream:
        self._check_open()
        work = self.work
        if y is not None and self._counts_in_place(classes):
            check_documents(X)  # before list(X): a number or None is refused, a dict not read as keys
            if not hasattr(X, "__len__"):
                X = list(X)  # read a one-shot iterable once, whichever path takes it
            if not len(X) or self._count(X, y, sample_weight):
                return self
        self.close()  # what is open joins the statistics before the general path adds the chunk
        work.partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        return self

    def _counts_in_place(self, classes: Any) -> bool:
        """Counts (no learned idf), fitted, the same classes: the chunk is counted in place."""
        w = self.work
        d = w.__dict__
        return (
            not w.tfidf and "stats_" in d and "classes_" in d and w.model != "nblr"
            and (classes is None or _same_labels(np.asarray(list(classes), dtype=object), w.classes_))
        )

    def _count(self, X: Any, y: Any, sample_weight: Any) -> bool:
        """Count the chunk into the open table (or arrays). False when the chunk brings a class
        the working model has not seen (the general path takes it)."""
        work = self.work
        chunk = known_chunk(work, X, y, sample_weight)
        if chunk is None:
            return False
        docs, codes, w = chunk
        n = docs.shape[0]
        K = len(work.classes_)
        cc = np.bincount(codes, weights=w, minlength=K).astype(np.float64)
        # counted in place only while every float sum stays exact (counts on one grid, whole
        # numbers or halves, below 2**53 of it); else the general path counts the chunk exactly
        # and adds it exactly (nbayes.stats.text_exact)
        opened = self._open
        held = (opened[0].bound if isinstance(opened, tuple) else opened.bound if isinstance(opened, _Hashed)
                else whole_bound(work.stats_))
        how = work._how()
        total = add_bounds(held, plain_bound(w, 4 * (len(docs.buf) + n + 1) * (how.hi - how.lo + 1)))
        if total is None:
            return False
        if work.n_features is not None:
            h = opened
            if h is None:
                s = work.stats_
                if not all(isinstance(a, np.ndarray) for a in (s.term_count, s.doc_count)):
                    return False
                h = _Hashed(s.class_count.copy(), s.term_count.copy(), s.doc_count.copy(), s.df.copy(),
                            s.tf.copy(), float(s.n_docs), held)
            assert isinstance(h, _Hashed)
            count_hashed_into(docs.buf, docs.bounds, docs.table, codes, w, how, h.term_count, h.doc_count,
                              h.df, h.tf)
            h.class_count += cc
            h.n_docs += n
            h.bound = total
            self._open = h
        else:
            learner, seen, docs_seen = opened if isinstance(opened, tuple) else (None, np.zeros(K), 0.0)
            learner = learn_into(learner, docs.buf, docs.bounds, docs.table, codes, w, K, how)
            learner.bound = total
            self._open = (learner, seen + cc, docs_seen + n)
        return True

    def close(self) -> None:
        """The open counts added to the working model's statistics, which are estimated once."""
        opened, work = self._open, self.work
        if opened is None:
            return
        before: TextStats = work.stats_
        if isinstance(opened, _Hashed):
            stats = dataclasses.replace(before, class_count=opened.class_count, term_count=opened.term_count,
                                        doc_count=opened.doc_count, df=opened.df, tf=opened.tf, n_docs=opened.n_docs)
            set_whole_bound(stats, opened.bound)
        else:
            learner, cc, n = opened
            if _absorb(learner, before):
                # the statistics before the table are in it now: one set of statistics made,
                # no union of two vocabularies and its copies of every count
                cc, n, joined = before.class_count + cc, before.n_docs + n, True
            else:
                joined = False
            terms, counts, dcounts, df, tf, table = learned_terms(learner, len(cc), work._how(), lazy=True)
            learned = TextStats(terms, cc, counts, dcounts, df, tf, n, table)
            stats = learned if joined else before + learned
        work.set_statistics(stats, work.classes_, work.n_features_in_, work.input_feature_names())
        self._open = None  # (a failure above leaves the working model as it was)
