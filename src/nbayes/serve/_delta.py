"""An update's statistics (a *delta*) and their arithmetic on the learning path.

- :func:`count` turns a request into a :class:`Delta` with the model's own hooks
  (``prepare_input``, ``count_statistics``) over the update's own classes: O(update), run by
  the request (outside the writer), since counting depends on the model's settings only.
- :func:`total` sums the deltas of a group (small statistics: the updates' terms only).
- :func:`apply` makes the next version: the model's statistics plus the delta, in new arrays
  (copy-on-write: the served version is never written). A multinomial text model over pairs
  is updated in time proportional to the delta (:func:`nbayes.text.online.add_counts`: the
  CSR counts, the pairs' weights, the term table merged, untouched arrays shared or copied,
  nothing densified nor re-estimated whole); the generic path is the statistics' own
  ``embed`` + ``+`` then one estimation.
- :class:`~nbayes.stats.text_sums.TextReplay` sums many records' text statistics at start
  (vectorised; the arithmetic lives in :mod:`nbayes.stats`).
- :func:`peak` bounds a delta's numbers: the writer defers building a version for updates whose
  sum with the model stays far from float64's range (docs/serve.md, "Visibility").
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_sample_weight, check_y, encode_labels, sorted_unique, union_labels
from ..stats.text import TextStats
from ..stats.text_exact import whole_bound
from ..stats.text_sums import TextReplay as TextReplay, add_at as add_at, dense as dense  # (the sums: stats)
from ..text.online import add_counts, built


@dataclass
class Delta:
    """The statistics of an update over its own ``classes``; ``labels`` (for messages)."""

    stats: Any
    classes: np.ndarray
    rows: int
    weight: float
    labels: np.ndarray | None = None
    #: (the log's numbering, its number of each of ``stats.terms``) once the delta is written in
    #: a log record: deltas numbered alike are summed by number (:func:`total`)
    numbered: tuple[Any, np.ndarray] | None = field(default=None, repr=False, compare=False)


def as_labels(y: list[Any]) -> np.ndarray:
    """JSON labels as an array; labels of mixed JSON types stay Python objects."""
    if len({type(v) for v in y}) > 1:
        out = np.empty(len(y), dtype=object)
        out[:] = y
        return out
    return np.asarray(y)


def count(model: Any, X: Any, y: list[Any], w: list[float] | None) -> Delta:
    """The statistics of the rows (X, y, w) with the settings of ``model``."""
    Xv, _ = model.prepare_input(X, fitting=False)
    n = int(Xv.shape[0])
    labels = check_y(as_labels(y), n)
    weights = check_sample_weight(w, n)
    classes = sorted_unique(labels)  # a record holds the classes it touches, not K rows of zeros
    codes, _ = encode_labels(labels, classes)
    stats = model.count_statistics(Xv, codes, len(classes), weights)
    return Delta(stats, classes, n, float(n if weights is None else weights.sum()), labels)


def total(deltas: list[Delta], words: Any = None) -> Delta:
    """One delta holding the sum of ``deltas``. ``words``: the numbering of the log being
    written (``LogTerms``), by which deltas already written in it are summed (no dictionary
    look-up per term)."""
    if len(deltas) == 1:
        return deltas[0]
    if all(plain_text(d.stats) for d in deltas):  # one vocabulary by dictionary, sorted once
        classes = deltas[0].classes
        for d in deltas[1:]:  # every class first: no regrowth of the accumulator's rows per new class
            classes = union_labels(classes, d.classes) if len(d.classes) else classes
        by_number = _by_number(deltas, words)
        if by_number is not None:
            distinct, slots = by_number
            acc = TextReplay(classes, len(distinct))
            acc.define([words.words[k] for k in distinct.tolist()], by_name=False)
            for d, tid in zip(deltas, slots):
                s = d.stats
                acc.add_counts(d.classes, tid, s.class_count, dense(s.term_count), dense(s.doc_count), s.df, s.tf,
                               s.n_docs)
        else:
            # room for every term up front (their count bounds the distinct ones) within 2^17 terms
            acc = TextReplay(classes, min(sum(len(d.stats.terms) for d in deltas), 1 << 17))
            for d in deltas:
                acc.add(d.classes, d.stats)
        if acc.bound is not None:  # (else a float sum could have rounded: the exact sums below)
            return Delta(acc.result(), acc.classes, sum(d.rows for d in deltas), sum(d.weight for d in deltas))
    classes, stats = summed(deltas)
    return Delta(stats, classes, sum(d.rows for d in deltas), sum(d.weight for d in deltas))


def _by_number(deltas: list[Delta], words: Any) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """(the log numbers the deltas' terms hold, sorted; per delta its terms' places among them)
    when every delta was written in the log ``words`` numbers and all those numbers are
    committed; else None (summed by dictionary)."""
    if words is None or not all(d.numbered is not None and d.numbered[0] is words for d in deltas):
        return None
    numbers = [d.numbered[1] for d in deltas]  # type: ignore[index]
    every = np.concatenate(numbers)
    if not len(every) or int(every.max()) >= len(words.words):
        return None
    distinct, at = np.unique(every, return_inverse=True)
    cuts = np.cumsum([len(n) for n in numbers])[:-1]
    return distinct, np.split(at.astype(np.intp), cuts)


def summed(deltas: list[Any], extra: int = 0) -> tuple[np.ndarray, Any]:
    """(the union of the deltas' classes, the sum of their statistics over it): each delta's
    class rows embedded at its classes' places, then ``extra`` rows its statistics carry after
    them (the all-rows row of a label-set update) at the end."""
    classes = deltas[0].classes
    for d in deltas[1:]:
        classes = union_labels(classes, d.classes)
    K = len(classes)
    stats = None
    for d in deltas:
        pos, _ = encode_labels(d.classes, classes) if len(d.classes) else (np.zeros(0, dtype=np.intp), None)
        s = d.stats.embed(np.r_[pos, np.arange(K, K + extra)].astype(np.intp), K + extra)
        stats = s if stats is None else stats + s
    return classes, stats


def plain_text(s: Any) -> bool:
    """Text statistics over a vocabulary of words (not hashing buckets), without tf-idf sums,
    whose counts add exactly in float64 (whole numbers, or on one grid: ``whole_bound``); others
    (fractional weights) keep their own arrays with their tails and add exactly (issue #27)."""
    return (isinstance(s, TextStats) and s.weighted is None and s.terms.dtype == object
            and whole_bound(s) is not None)


def added(model: Any, d: Delta) -> tuple[Any, np.ndarray]:
    """(the statistics of ``model`` plus ``d``, their classes): new arrays, ``model`` untouched."""
    classes = model.classes_
    allc = union_labels(classes, d.classes) if len(d.classes) else classes
    base = model.stats_
    if len(allc) != len(classes):
        pos, _ = encode_labels(classes, allc)
        base = base.embed(pos, len(allc))
    dpos, _ = encode_labels(d.classes, allc)
    return base + d.stats.embed(dpos, len(allc)), allc


def apply(model: Any, d: Delta) -> Any:
    """The next version: a copy of ``model`` whose statistics are its own plus ``d``'s. A text
    model over pairs takes :func:`nbayes.text.online.add_counts` (time proportional to the
    update); otherwise the statistics' own ``embed`` + ``+``, then one estimation."""
    if plain_text(d.stats):
        new = add_counts(model, d.stats, d.classes)
        if new is not None:
            return new
    stats, classes = added(model, d)
    new = copy.copy(model)
    new.set_statistics(stats, classes, model.n_features_in_, model.input_feature_names())
    return built(new)


def apply_all(model: Any, deltas: list[Delta], words: Any = None) -> tuple[Any, Delta]:
    """(the next version: ``model`` plus every one of ``deltas``, their sum as one delta): the
    deltas summed over their own terms (:func:`total`, O(their size)), then :func:`apply`."""
    d = total(deltas, words)
    return apply(model, d), d


def peak(stats: Any) -> float:
    """The largest magnitude among the numbers of ``stats`` (counts, sums, the tf-idf sums):
    ``inf`` if one is not finite. O(their size)."""
    if isinstance(stats, TextStats):
        arrays: list[Any] = [stats.class_count, stats.term_count, stats.doc_count, stats.df, stats.tf,
                             np.asarray(float(stats.n_docs))]
        if stats.weighted is not None:
            arrays.extend(stats.weighted[1:])
    else:
        arrays = list(stats.to_arrays().values())
    top = 0.0
    for a in arrays:
        a = a.data if sp.issparse(a) else np.asarray(a)
        if a.size == 0 or a.dtype.kind not in "fiub":
            continue
        m = float(np.max(np.abs(a.astype(np.float64, copy=False))))
        if not math.isfinite(m):
            return math.inf
        top = max(top, m)
    return top


def model_peak(model: Any) -> float:
    """:func:`peak` of ``model``'s statistics (inf where it has none to read)."""
    stats = getattr(model, "stats_", None)
    if stats is None:
        return math.inf
    try:
        return peak(stats)
    except (AttributeError, NotImplementedError, TypeError, ValueError):
        return math.inf


def known(d: Delta, classes: np.ndarray) -> bool:
    """Whether every class (label) ``d`` names is one of ``classes``."""
    return not len(d.classes) or not encode_labels(d.classes, classes)[1].any()
