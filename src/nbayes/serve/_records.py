"""Update log record bodies: writing a delta (:class:`LogTerms`) and reading records back
(:func:`read_deltas`, :func:`replay`).

A text update over a vocabulary of words names its terms by number: the log numbers terms in
order of first appearance, a record lists the words it is the first to use (``text/new_terms``,
numbered next, in order) and its terms by number (``text/term_ids``), then its counts over them
(``stats/*``, as ``TextStats.to_arrays`` without ``stats/terms``). So a word is written once
per log, and replaying a log adds counts by number with no string work beyond the
vocabulary's. Other statistics (table models, hashing buckets, tf-idf sums) are written whole
(``stats.to_arrays()``). A new log (after a snapshot) numbers from 0 again: records copied into
it are written again with its numbering.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

import numpy as np

from ..errors import ModelFileError
from ..stats.text import TextStats
from . import _codec, _delta
from . import _labelsets as labelsets
from ._delta import Delta
from ._labelsets import LabelSetDelta

_TEXT = ("stats/class_count", "stats/term_count", "stats/doc_count", "stats/df", "stats/tf", "stats/n_docs")


class LogTerms:
    """The term numbers of the log being written. :meth:`body` numbers new words tentatively;
    :meth:`commit` keeps them once their records are on disk, :meth:`discard` drops them."""

    def __init__(self, words: list[str] | tuple[str, ...] = ()) -> None:
        self.ids: dict[str, int] = dict(zip(words, range(len(words))))
        self.words: list[str] = list(words)  # by number (committed ones)
        self.pending: dict[str, int] = {}

    def body(self, d: Delta) -> bytes:
        """The record body of ``d``."""
        if isinstance(d, LabelSetDelta):  # a multi-label update: its statistics whole (:mod:`._labelsets`)
            return labelsets.body(d)
        s = d.stats
        if not _delta.plain_text(s):
            return _codec.encode(d.classes, s.to_arrays())
        ids, pending = self.ids, self.pending
        terms = s.terms.tolist()
        numbers = np.fromiter(map(ids.get, terms, repeat(-1)), dtype=np.int64, count=len(terms))  # a C loop
        new: list[str] = []
        for j in np.flatnonzero(numbers < 0).tolist():
            t = terms[j]
            k = pending.get(t)
            if k is None:
                k = pending[t] = len(ids) + len(pending)
                new.append(t)
            numbers[j] = k
        fresh = np.empty(len(new), dtype=object)
        fresh[:] = new
        d.numbered = (self, numbers)
        arrays = {"text/new_terms": fresh, "text/term_ids": numbers.astype(np.uint32)}
        arrays.update({"stats/class_count": np.asarray(s.class_count, dtype=np.float64),
                       "stats/term_count": _delta.dense(s.term_count), "stats/doc_count": _delta.dense(s.doc_count),
                       "stats/df": np.asarray(s.df, dtype=np.float64), "stats/tf": np.asarray(s.tf, dtype=np.float64),
                       "stats/n_docs": np.asarray(float(s.n_docs))})
        return _codec.encode(d.classes, arrays)

    def commit(self) -> None:
        self.ids.update(self.pending)
        self.words.extend(self.pending)  # numbered in order of insertion
        self.pending = {}

    def discard(self) -> None:
        self.pending = {}


def _stats(model: Any, arrays: dict[str, np.ndarray], where: str) -> Any:
    try:
        return type(model).statistics_from_arrays(arrays, model.n_features_in_)
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise ModelFileError(f"{where}: the statistics do not fit this model ({type(exc).__name__}: {exc})") from None


def _numbers(arrays: dict[str, np.ndarray], known: int, where: str) -> tuple[list[str], np.ndarray]:
    """(the words a text record numbers next, its term numbers), checked against the ``known``."""
    new = [str(t) for t in arrays["text/new_terms"].tolist()]
    tid = arrays["text/term_ids"].astype(np.intp)
    if len(tid) and (tid.min() < 0 or tid.max() >= known + len(new)):
        raise ModelFileError(f"{where}: a record names a term the log never defined (the log is damaged)")
    return new, tid


def read_deltas(model: Any, bodies: list[Any], where: str = "an update log record") -> list[Delta]:
    """The deltas of a log's record bodies, in order (each record read with the words the
    records before it numbered)."""
    if labelsets.applies(model):
        return labelsets.read_deltas(model, bodies, where)
    words: list[str] = []
    out = []
    for body in bodies:
        classes, arrays = _codec.decode(body, where)
        labels = _delta.as_labels(classes)
        if "text/term_ids" in arrays:
            new, tid = _numbers(arrays, len(words), where)
            words.extend(new)
            terms = np.empty(len(tid), dtype=object)
            terms[:] = [words[i] for i in tid.tolist()]
            cc, tc, dc, df, tf = (np.asarray(arrays[k]) for k in _TEXT[:5])
            stats = TextStats(terms, cc, tc, dc, df, tf, float(arrays["stats/n_docs"]))
        else:
            stats = _stats(model, arrays, where)
        out.append(Delta(stats, labels, 0, 0.0))
    return out


def replay(model: Any, bodies: list[Any], skip: int, where: str) -> tuple[Any, list[str]]:
    """(``model`` plus the updates of the record ``bodies`` but the first ``skip``, the words
    the log numbered). The updates are summed first (text counts added by term number into one
    vocabulary, :class:`._delta.TextReplay`; other statistics in a balanced tree of sums),
    then added to the model and estimated once."""
    if labelsets.applies(model):  # label sets: records hold whole statistics, no term numbers
        return labelsets.replay(model, bodies, skip, where), []
    text: _delta.TextReplay | None = None
    tree = _Sum()
    words: list[str] = []
    counted = False
    for i, body in enumerate(bodies):
        classes, arrays = _codec.decode(body, where)
        labels = _delta.as_labels(classes)
        if "text/term_ids" in arrays:
            if text is None:
                text = _delta.TextReplay(labels[:0])  # the classes of the records counted
            new, tid = _numbers(arrays, len(text.words), where)
            text.define(new)  # numbered even where the counts are skipped: later records use them
            if i >= skip:
                tc, dc, df, tf = (np.asarray(arrays[k]) for k in _TEXT[1:5])
                k, n = len(labels), len(tid)
                if tc.shape != (k, n) or dc.shape != (k, n) or df.shape != (n,) or tf.shape != (n,):
                    raise ModelFileError(f"{where}: a record's counts do not match its terms and classes")
                counted = True
                text.add_counts(labels, tid, np.asarray(arrays["stats/class_count"]), tc, dc, df, tf,
                                float(arrays["stats/n_docs"]))
        elif i >= skip:
            tree.add(Delta(_stats(model, arrays, where), labels, 0, 0.0))
    if text is not None:
        words = text.words
        if counted and text.bound is None:  # a float sum could have rounded: every update summed exactly
            tree = _Sum()
            for d in read_deltas(model, bodies, where)[skip:]:
                tree.add(d)
        elif counted:
            tree.add(Delta(text.result(), text.classes, 0, 0.0))
    if not tree.stack:
        return model, words
    return _delta.apply(model, tree.result()), words


class _Sum:
    """The sum of many deltas in a balanced tree (a binary counter: at most log2(n) partial
    sums alive), so n records cost O(size x log n), not n sums into the largest. Counts add
    exactly; other statistics agree to rounding."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, Delta]] = []

    def add(self, d: Delta) -> None:
        level = 0
        while self.stack and self.stack[-1][0] == level:
            d = _delta.total([self.stack.pop()[1], d])
            level += 1
        self.stack.append((level, d))

    def result(self) -> Delta:
        out = self.stack[-1][1]
        for _, m in reversed(self.stack[:-1]):
            out = _delta.total([m, out])
        return out
