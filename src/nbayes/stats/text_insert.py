"""Text statistics plus a small update, over the united sorted vocabulary, in time proportional
to the update plus one copy of the arrays (the learning service's online path,
:func:`nbayes.text.online.add_counts`): the update's new terms inserted into the sorted
vocabulary, df / tf and the CSR per-class counts each by one merge pass
(:mod:`nbayes._kernels.online`). It equals ``stats.embed(...) + update`` bit for bit; the
parameters' update (the pairs' weights) is the text model's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels.online import inserted, merge_rows, renumbered, update_entries
from .._scipy import sparse as sp
from .text import TextStats
from .text_exact import add_bounds, set_whole_bound, whole_bound

__all__ = ["SortedSum", "add_sorted"]


@dataclass
class SortedSum:
    """:func:`add_sorted`'s result: ``stats`` the sum (no term table); ``ins`` the old ids the
    new terms go before, ``new_id`` each old id's new one, ``pos`` each update term's new id,
    ``known`` which update terms the statistics held; ``entries`` the update's (class, term)
    entries of the counts estimation reads (documents with ``presence``, else terms),
    ``values`` their summed counts and ``row_sums`` each class's sum of those counts, summed in
    term order (as the full estimation sums them)."""

    stats: TextStats
    ins: np.ndarray
    new_id: np.ndarray
    pos: np.ndarray
    known: np.ndarray
    entries: _Update
    values: np.ndarray
    row_sums: np.ndarray


def add_sorted(s: TextStats, d: TextStats, cpos: np.ndarray, ids: np.ndarray, presence: bool) -> SortedSum | None:
    """``s`` plus ``d`` (whose classes are ``s``'s rows ``cpos``, whose terms are ``s``'s ids
    ``ids``, -1 for a term ``s`` lacks); None when a sum overflows float64, or could round (counts
    not all whole numbers below 2**53: the caller's general path then sums them exactly)."""
    bound = add_bounds(whole_bound(s), whole_bound(d))
    if bound is None:
        return None  # float sums here could round: the exact sum of the general path
    K, V_old, bt = len(s.class_count), len(s.terms), s.terms
    dt = d.terms
    known = ids >= 0
    key = ids.astype(np.int64)
    pos = key.copy()
    if known.all():
        ins = new_id = np.zeros(0, dtype=np.int64)
        terms = bt
    else:
        fresh = dt[~known]  # sorted, as dt
        ins = np.searchsorted(bt, fresh).astype(np.int64)  # a binary search for the new terms only
        terms = np.insert(bt, ins, fresh)
        new_id = renumbered(V_old, ins)
        pos[known] = new_id[key[known]]
        pos[~known] = ins + np.arange(len(ins))
        key[~known] = ins
    V = len(terms)
    up_tc, up_dc = _updates(d.term_count, d.doc_count, cpos, pos, key, known, K)
    if up_tc.same_pattern(up_dc) and _shared_pattern(s.term_count, s.doc_count):
        # a term is in a class's documents iff it occurs there: one pass, one index array
        (tc, dc), tc_at, sums = up_tc.merged(s.term_count, ins, V, 2 if presence else 1, s.doc_count, up_dc)
        dc_at, tc_sums, dc_sums = tc_at, sums, sums
    else:
        (tc,), tc_at, tc_sums = up_tc.merged(s.term_count, ins, V, 0 if presence else 1)
        (dc,), dc_at, dc_sums = up_dc.merged(s.doc_count, ins, V, 1 if presence else 0)
    cc = s.class_count.copy()
    cc[cpos] += d.class_count
    zeros = np.zeros(len(ins))
    df, tf = inserted(s.df, ins, zeros), inserted(s.tf, ins, zeros)
    df[pos] += d.df
    tf[pos] += d.tf
    # class totals: each class's counts summed in term order, as the full estimation's bincount
    fc, up, f_at, sums = (dc, up_dc, dc_at, dc_sums) if presence else (tc, up_tc, tc_at, tc_sums)
    n = fc.data[f_at]
    if not (np.isfinite(n).all() and np.isfinite(sums).all() and np.isfinite(cc).all()
            and np.isfinite(df[pos]).all() and np.isfinite(tf[pos]).all()):
        return None
    stats = TextStats(terms, cc, tc, dc, df, tf, s.n_docs + d.n_docs, None)
    set_whole_bound(stats, bound)
    return SortedSum(stats, ins, new_id, pos, known, up, n, sums)


class _Update:
    """An update's nonzero counts as CSR over the model's K classes (entries in (class, new
    term) order): ``ptr``, ``cols`` (new term ids), ``vals``, ``rows``, and where each goes in
    the old order (``key``: the old id of a known term, else its insertion point; ``known``)."""

    def __init__(self, m: Any, cpos: np.ndarray, pos: np.ndarray, key: np.ndarray, known: np.ndarray, K: int) -> None:
        if sp.issparse(m):
            c = m.tocoo()
            r, j, v = c.row, c.col, c.data
        else:
            m = np.asarray(m, dtype=np.float64)
            r, j = np.nonzero(m)
            v = m[r, j]
        nz = v != 0
        r, j, v = cpos[r[nz]], j[nz], np.asarray(v[nz], dtype=np.float64)
        order = np.lexsort((pos[j], r))
        r, j = r[order], j[order]
        self.rows, self.cols, self.vals = r.astype(np.int64), pos[j], v[order]
        self.key, self.known = key[j], known[j]
        self.ptr = np.zeros(K + 1, dtype=np.int64)
        np.cumsum(np.bincount(r, minlength=K), out=self.ptr[1:])

    @classmethod
    def of(cls, rows: np.ndarray, cols: np.ndarray, key: np.ndarray, known: np.ndarray, vals: np.ndarray,
           ptr: np.ndarray) -> "_Update":
        """An update from its entries, already in (class, new term) order."""
        up = cls.__new__(cls)
        up.rows, up.cols, up.vals, up.key, up.known, up.ptr = rows, cols, vals, key, known, ptr
        return up

    def same_pattern(self, other: "_Update") -> bool:
        if self.rows is other.rows and self.cols is other.cols:
            return True
        return bool(np.array_equal(self.rows, other.rows) and np.array_equal(self.cols, other.cols))

    def merged(self, m: sp.csr_matrix, ins: np.ndarray, V: int, sums: int,
               m2: sp.csr_matrix | None = None, up2: "_Update | None" = None) -> tuple[list[sp.csr_matrix], np.ndarray, np.ndarray]:
        """``m`` (classes x old terms) plus this update: ([the sum over the V new terms], where
        each update entry's sum is in its data, the row sums of the first (``sums`` 1) or second
        (2) matrix). With ``m2`` (the same pattern as ``m``) and ``up2`` (the same pattern as
        this update): both sums, in one pass, sharing one index array."""
        it = np.int32 if max(V, m.nnz + len(self.vals)) < 2**31 - 1 else np.int64  # as scipy would choose
        none = np.zeros(0)
        indptr, indices, data, data2, at, row_sums = merge_rows(
            m.indptr, m.indices.astype(it, copy=False), m.data, none if m2 is None else m2.data, ins, self.ptr,
            self.key, self.known, self.cols, self.vals, none if up2 is None else up2.vals, sums)
        indptr = indptr.astype(it)
        if m2 is not None:  # shared by two matrices: an in-place change of one (none is made) would fail loudly
            indices.flags.writeable = indptr.flags.writeable = False
        out = []
        for values in (data, data2) if m2 is not None else (data,):
            matrix = sp.csr_matrix((values, indices, indptr), shape=(m.shape[0], V))
            matrix.has_canonical_format = True  # merged in order, each (class, term) once
            out.append(matrix)
        return out, at, row_sums


def _updates(tc: Any, dc: Any, cpos: np.ndarray, pos: np.ndarray, key: np.ndarray, known: np.ndarray,
             K: int) -> tuple[_Update, _Update]:
    """The update's term and document counts as :class:`_Update` s. When its classes and terms
    keep their order in the model (the update's classes are sorted, as its terms) and the two
    have one pattern (a term is in a class's documents iff it occurs there), both come from
    one compiled pass without the GIL, sharing their index arrays; else each is sorted here."""
    if (all(not sp.issparse(m) or m.has_canonical_format for m in (tc, dc))
            and bool((np.diff(cpos) > 0).all()) and bool((np.diff(pos) > 0).all())):
        A, B = (np.ascontiguousarray(m.toarray() if sp.issparse(m) else m, dtype=np.float64) for m in (tc, dc))
        if A.shape == B.shape == (len(cpos), len(pos)):
            rows, cols, keys, kn, va, vb, ptr, same = update_entries(A, B, cpos, pos, key, known, K)
            if same:
                return _Update.of(rows, cols, keys, kn, va, ptr), _Update.of(rows, cols, keys, kn, vb, ptr)
    return _Update(tc, cpos, pos, key, known, K), _Update(dc, cpos, pos, key, known, K)


def _shared_pattern(a: sp.csr_matrix, b: sp.csr_matrix) -> bool:
    """Whether two CSR matrices have the same pattern (the versions made here share one index
    array between the term and document counts: an identity check)."""
    if _same_memory(a.indices, b.indices) and _same_memory(a.indptr, b.indptr):
        return True
    return bool(a.nnz == b.nnz and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices))


def _same_memory(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two arrays are views of the same memory, laid out alike (so equal)."""
    return bool(x.dtype == y.dtype and x.shape == y.shape and x.strides == y.strides
                and x.__array_interface__["data"][0] == y.__array_interface__["data"][0])
