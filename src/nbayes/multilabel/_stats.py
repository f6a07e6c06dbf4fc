"""Per-label statistics from one counting pass.

A multi-label model's statistics have L + 1 class rows: row l holds the rows carrying label l,
row L all rows. Label l's binary model "l against the rest" is (all - l, l): its negative row is
the total minus the positive one (the protocol's ``subtract``), so no label is counted twice
and nothing is refitted per label. Everything else (partial_fit, merge, unlearn, folds) is the
protocol's arithmetic on these L + 1 rows.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
from .._scipy import sparse as sp

from ..errors import InvalidParameterError, StatisticsError
from ..model_selection import take
from ..naive_bayes.mixed import MixedStats
from ..stats import BinnedStats, CategoricalStats, CountStats, MomentStats, TextStats
from ..stats.checks import REL_TOL
from ..stats.exact import concat_tails, tail_rows

#: the class axis of each statistics type (the fields indexed by class; the rest is per corpus)
_CLASS_FIELDS: dict[type, tuple[str, ...]] = {
    CountStats: ("class_count", "feature_count", "missing_count"),
    MomentStats: ("class_count", "weight", "mean", "m2"),
    TextStats: ("class_count", "term_count", "doc_count"),
}


def rows(stats: Any, idx: np.ndarray, keep_values: bool = False) -> Any:
    """The statistics of the class rows ``idx`` (in that order, repeats allowed); with
    ``keep_values``, categorical value sets stay whole through a later ``subtract`` (rows of
    one corpus subtracted from each other, whose value sets must stay aligned)."""
    if isinstance(stats, CategoricalStats):
        return CategoricalStats(stats.class_count[idx], [c.copy() for c in stats.categories],
                                [c[idx] for c in stats.counts], tail_rows(stats.exact, idx),
                                keep_values or stats.fixed)
    if isinstance(stats, BinnedStats):  # bin counts: categorical counts over fixed bins
        return BinnedStats(stats.class_count[idx], [e.copy() for e in stats.edges], [c[idx] for c in stats.counts],
                           tail_rows(stats.exact, idx))
    if isinstance(stats, MixedStats):
        return MixedStats(stats.class_count[idx], {k: rows(s, idx, keep_values) for k, s in stats.parts.items()})
    fields = _CLASS_FIELDS.get(type(stats))
    if fields is None:
        raise InvalidParameterError(
            f"multi-label needs statistics it can split per label; {type(stats).__name__} is not one of "
            "CountStats, CategoricalStats, BinnedStats, MomentStats, TextStats"
        )
    change: dict[str, Any] = {f: getattr(stats, f)[idx] for f in fields if getattr(stats, f) is not None}
    if isinstance(stats, TextStats) and stats.weighted is not None:
        keep, idf, sums = stats.weighted
        change["weighted"] = (keep, idf, sums[idx])
    change["exact"] = tail_rows(stats.exact, idx)
    return dataclasses.replace(stats, **change)


def with_corpus(stats: Any, ref: Any) -> Any:
    """Text statistics hold corpus-wide document frequencies beside the per-class counts: after
    arithmetic on class rows of one corpus, they are that corpus's (``ref``'s) again."""
    if not isinstance(stats, TextStats):
        return stats
    if len(stats.terms) != len(ref.terms):  # pragma: no cover - the rows come from ref's documents
        raise AssertionError("label statistics over another vocabulary than their corpus")
    return dataclasses.replace(stats, terms=ref.terms, df=ref.df, tf=ref.tf, n_docs=ref.n_docs)


def collapse(stats: Any) -> Any:
    """The statistics of all class rows together, as one class row."""
    if isinstance(stats, CategoricalStats):
        return CategoricalStats(stats.class_count.sum(keepdims=True), [c.copy() for c in stats.categories],
                                [c.sum(axis=0, keepdims=True) for c in stats.counts])
    if isinstance(stats, BinnedStats):
        return BinnedStats(stats.class_count.sum(keepdims=True), [e.copy() for e in stats.edges],
                           [c.sum(axis=0, keepdims=True) for c in stats.counts])
    fields = _CLASS_FIELDS.get(type(stats))
    if fields is None or isinstance(stats, MomentStats):  # moments add by Chan's update, not by sums
        out = rows(stats, np.array([0]))
        for k in range(1, len(stats.class_count)):
            out = out + rows(stats, np.array([k]))
        return with_corpus(out, stats)
    change: dict[str, Any] = {f: _sum_rows(getattr(stats, f)) for f in fields if getattr(stats, f) is not None}
    if isinstance(stats, TextStats) and stats.weighted is not None:
        keep, idf, sums = stats.weighted
        change["weighted"] = (keep, idf, sums.sum(axis=0, keepdims=True))
    change["exact"] = {}  # a batch's value: the plain sums, as every batch's (stats.exact)
    return dataclasses.replace(stats, **change)


def _stack(a: Any, b: Any) -> Any:
    """a's rows then b's: CSR pairs when either is (text statistics in vocabulary mode)."""
    if sp.issparse(a) or sp.issparse(b):
        return sp.vstack([sp.csr_matrix(a), sp.csr_matrix(b)], format="csr")
    return np.concatenate([a, b])


def _sum_rows(a: Any) -> Any:
    """The column sums as one row, in the array's own form (CSR pairs stay CSR)."""
    if sp.issparse(a):
        return sp.csr_matrix(a.sum(axis=0))
    return a.sum(axis=0, keepdims=True)


Count = Callable[[np.ndarray, np.ndarray, int], Any]


def counter_of(model: Any, Xv: Any, w: np.ndarray | None) -> Count:
    """``count(rows, codes, K)``: the statistics of rows of the prepared input ``Xv``, by the
    model's own ``count_statistics`` (the fold engines' ``count`` has the same signature)."""
    n = int(Xv.shape[0])

    def count(r: np.ndarray, codes: np.ndarray, K: int) -> Any:
        whole = len(r) == n and bool(np.all(r == np.arange(n)))
        return model.count_statistics(Xv if whole else take(Xv, r), codes, K, None if w is None else w[r])

    return count


def count_labels(count: Count, idx: np.ndarray, Y: sp.csr_matrix) -> Any:
    """The L + 1 rows of the rows ``idx`` whose label indicator is ``Y`` (row i of Y is row
    idx[i]): every row counted once under its first label (rows without one in an extra class),
    which sums to all rows; then each further (row, label) pair."""
    n, L = Y.shape
    Y = sp.csr_matrix(Y)
    Y.sort_indices()
    lengths = np.diff(Y.indptr)
    first = np.full(n, L, dtype=np.intp)
    has = lengths > 0
    first[has] = Y.indices[Y.indptr[:-1][has]]
    A = count(idx, first, L + 1)
    per = rows(A, np.arange(L))
    mask = np.ones(len(Y.indices), dtype=bool)
    mask[Y.indptr[:-1][has]] = False  # the first label of each row: counted above
    if mask.any():
        r = np.repeat(np.arange(n), lengths)[mask]
        per = per + count(idx[r], np.ascontiguousarray(Y.indices[mask], dtype=np.intp), L)
    S = concat(with_corpus(per, A), collapse(A))
    return with_corpus(S, A)


def concat(a: Any, b: Any) -> Any:
    """a's class rows, then b's (both over the same features and vocabulary)."""
    if isinstance(a, CategoricalStats):
        refs = (_refs(a), _refs(b))
        return CategoricalStats(np.concatenate([a.class_count, b.class_count]), [c.copy() for c in a.categories],
                                [np.concatenate([x, y]) for x, y in zip(a.counts, b.counts)],
                                concat_tails(a.exact, b.exact, *refs))
    if isinstance(a, BinnedStats):
        a.check_same_edges(b)
        refs = (_refs(a), _refs(b))
        return BinnedStats(np.concatenate([a.class_count, b.class_count]), [e.copy() for e in a.edges],
                           [np.concatenate([x, y]) for x, y in zip(a.counts, b.counts)],
                           concat_tails(a.exact, b.exact, *refs))
    if isinstance(a, MomentStats) and ("s1" in a.exact or "s1" in b.exact):
        a, b = a.with_sums(), b.with_sums()
    if isinstance(a, MixedStats):
        return MixedStats(np.concatenate([a.class_count, b.class_count]),
                          {k: concat(s, b.parts[k]) for k, s in a.parts.items()})
    fields = _CLASS_FIELDS[type(a)]
    change: dict[str, Any] = {f: _stack(getattr(a, f), getattr(b, f)) for f in fields if getattr(a, f) is not None}
    if isinstance(a, TextStats) and a.weighted is not None and b.weighted is not None:
        keep, idf, sums = a.weighted
        change["weighted"] = (keep, idf, np.concatenate([sums, b.weighted[2]]))
    if isinstance(a, CountStats) and (a.missing_count is None) != (b.missing_count is None):
        d = a.feature_count.shape
        change["missing_count"] = np.concatenate([
            np.zeros(d) if a.missing_count is None else a.missing_count,
            np.zeros(b.feature_count.shape) if b.missing_count is None else b.missing_count])
    change["exact"] = concat_tails(a.exact, b.exact, _refs(a), _refs(b))
    return dataclasses.replace(a, **change)


def _refs(s: Any) -> dict[str, Any]:
    """Each field a tail may belong to, by its name in ``exact``."""
    if isinstance(s, CategoricalStats | BinnedStats):
        return {"class_count": s.class_count} | {f"counts/{j}": c for j, c in enumerate(s.counts)}
    out = {f: getattr(s, f) for f in _CLASS_FIELDS[type(s)] if getattr(s, f) is not None}
    if isinstance(s, MomentStats):
        out |= {"s1": s.weight, "s2": s.weight}
    if isinstance(s, CountStats) and "missing_count" not in out:
        out["missing_count"] = s.feature_count
    return out


def stacked(S: Any, names: np.ndarray) -> Any:
    """2L class rows: row l the rows without label l (all rows minus l's: ``subtract``), row
    L + l label l's."""
    L = len(S.class_count) - 1
    pos = rows(S, np.arange(L))
    neg = rows(S, np.full(L, L), keep_values=True).subtract(pos, np.asarray(names, dtype=object))
    return with_corpus(concat(with_corpus(neg, S), pos), S)


def pair(T: Any, l: int) -> Any:
    """Label l's binary statistics (rows: without l, with l) from the stacked rows."""
    L = len(T.class_count) // 2
    return with_corpus(rows(T, np.array([l, L + l])), T)


def check_label_rows(S: Any, names: np.ndarray, error: type[Exception] = StatisticsError) -> None:
    """No label's rows hold more than all rows together, in the class weights and in every
    per-class array (a model file could claim it; an unlearn of rows under other label sets than
    they were learned with would leave it): ``error`` naming the label and the array."""
    for what, a in _class_arrays(S):
        L = a.shape[0] - 1
        if sp.issparse(a):
            P = sp.coo_matrix(sp.csr_matrix(a)[:L])
            tot = np.asarray(sp.csr_matrix(a)[L].todense(), dtype=np.float64).ravel()
            over = P.data > tot[P.col] * (1 + REL_TOL) + 1e-12
            if over.any():
                k = int(np.argmax(over))
                j, col, have, all_ = int(P.row[k]), int(P.col[k]), float(P.data[k]), float(tot[P.col[k]])
                _over(error, names, j, what, col, have, all_)
            continue
        a = np.asarray(a, dtype=np.float64)
        over_d = a[:L] > a[L:] * (1 + REL_TOL) + 1e-12
        if over_d.any():
            at = tuple(int(i) for i in np.argwhere(over_d)[0])
            _over(error, names, at[0], what, at[1] if len(at) > 1 else None, float(a[at]), float(a[(L, *at[1:])]))


def _over(error: type[Exception], names: np.ndarray, j: int, what: str, col: int | None, have: float,
          all_: float) -> None:
    where = "" if col is None else f" (column {col})"
    raise error(f"statistics: label {names[j]!r} has {what} {have:.17g}{where} but all rows together have "
                f"{all_:.17g}; a label's rows are a part of all rows")


def _class_arrays(S: Any) -> list[tuple[str, Any]]:
    """(name, array with the class axis first) of every per-class sum of weights in ``S``."""
    out: list[tuple[str, Any]] = [("weight", S.class_count)]
    if isinstance(S, MixedStats):
        for k, part in S.parts.items():
            out += [(f"{k}: {w}", a) for w, a in _class_arrays(part)[1:]]
    elif isinstance(S, CategoricalStats | BinnedStats):
        out += [(f"count of feature {j}", c) for j, c in enumerate(S.counts)]
    elif isinstance(S, CountStats):
        out += [("feature_count", S.feature_count)]
        if S.missing_count is not None:
            out.append(("missing_count", S.missing_count))
    elif isinstance(S, MomentStats):
        out += [("feature weight", S.weight)]
    elif isinstance(S, TextStats):
        out += [("term_count", S.term_count), ("doc_count", S.doc_count)]
    return out
