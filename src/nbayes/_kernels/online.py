"""Adding a small update to large per-class text counts in time proportional to the update
(``nbayes serve --learn``; :mod:`nbayes.text.online`).

The vocabulary is sorted, so an update's new terms are inserted among the old ones: ``ins``
(ascending, repeats allowed) holds, for each new term, the old term id it goes before
(``np.insert``'s convention). An old id ``j`` becomes ``j + #(ins <= j)``. Each kernel writes
new arrays (the served version is never written) in one pass over the old ones: a copy, the
work of ``np.insert`` plus a sorted merge, never a sort, a hash rebuild or a dense table.
The NumPy twins are in tests/text/test_online.py.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .text import _home, _key

__all__ = ["extend_slots", "merge_pairs", "merge_rows"]

_BIG = np.int64(2**62)


@njit(cache=True, nogil=True)
def merge_rows(indptr, indices, data, ins, up_ptr, up_cols, up_vals):  # pragma: no cover - compiled
    """A CSR matrix (rows x old terms) plus an update (CSR over the same rows, columns already
    in the new numbering, each row's columns ascending): (indptr, indices, data) over the new
    terms, for each update entry its position in the result (where its sum is), and each
    row's sum (added in column order, as ``np.bincount`` over the rows' entries adds them)."""
    K = len(indptr) - 1
    out_ptr = np.zeros(K + 1, dtype=np.int64)
    out_idx = np.empty(len(data) + len(up_vals), dtype=indices.dtype)
    out_val = np.empty(len(data) + len(up_vals))
    at = np.empty(len(up_vals), dtype=np.int64)
    sums = np.zeros(K)
    n_ins = len(ins)
    n = 0
    for r in range(K):
        a, ae = indptr[r], indptr[r + 1]
        b, be = up_ptr[r], up_ptr[r + 1]
        s = 0
        while a < ae or b < be:
            ja = _BIG
            if a < ae:
                j = np.int64(indices[a])
                while s < n_ins and ins[s] <= j:
                    s += 1
                ja = j + s
            jb = np.int64(up_cols[b]) if b < be else _BIG
            if ja < jb:
                out_idx[n] = ja
                out_val[n] = data[a]
                a += 1
            elif jb < ja:
                out_idx[n] = jb
                out_val[n] = up_vals[b]
                at[b] = n
                b += 1
            else:
                out_idx[n] = ja
                out_val[n] = data[a] + up_vals[b]
                at[b] = n
                a += 1
                b += 1
            sums[r] += out_val[n]
            n += 1
        out_ptr[r + 1] = n
    if n < len(out_val):  # some entries summed: exact lengths (the matrix keeps these arrays)
        return out_ptr, out_idx[:n].copy(), out_val[:n].copy(), at, sums
    return out_ptr, out_idx, out_val, at, sums


@njit(cache=True, nogil=True)
def merge_pairs(indptr, cls, delta, ins, up_terms, up_cls, up_delta):  # pragma: no cover - compiled
    """Per-term pairs (CSC: term t's pairs indptr[t]..indptr[t + 1], classes ascending) with the
    update's pairs (new term ids and classes ascending, in (term, class) order) put in: an
    update pair replaces the old pair of its (term, class) or is inserted. Returns the new
    (indptr, cls, delta) over the old terms plus the inserted ones."""
    V_old = len(indptr) - 1
    n_ins = len(ins)
    V_new = V_old + n_ins
    nb = len(up_terms)
    out_ptr = np.zeros(V_new + 1, dtype=np.int64)
    out_cls = np.empty(len(cls) + nb, dtype=np.int64)
    out_d = np.empty(len(cls) + nb)
    n = 0
    b = 0
    s = 0
    j = 0
    for t in range(V_new):
        if s < n_ins and ins[s] == j:  # an inserted term: no old pairs
            a = ae = 0
            s += 1
        else:
            a, ae = indptr[j], indptr[j + 1]
            j += 1
        while a < ae or (b < nb and up_terms[b] == t):
            ca = np.int64(cls[a]) if a < ae else _BIG
            cb = np.int64(up_cls[b]) if (b < nb and up_terms[b] == t) else _BIG
            if ca < cb:
                out_cls[n] = ca
                out_d[n] = delta[a]
                a += 1
            else:
                out_cls[n] = cb
                out_d[n] = up_delta[b]
                b += 1
                if ca == cb:
                    a += 1
            n += 1
        out_ptr[t + 1] = n
    if n < len(out_d):
        return out_ptr, out_cls[:n].copy(), out_d[:n].copy()
    return out_ptr, out_cls, out_d


@njit(cache=True, nogil=True)
def extend_slots(slots, n_old, ins, cps, start, length, fresh_ids):  # pragma: no cover - compiled
    """A copy of the hash table ``slots`` (over ``n_old`` terms, as :func:`.text.build` lays
    it out) with the old ids renumbered around the insertions ``ins`` and the new terms
    (``cps[start[i]:start[i] + length[i]]``, new ids ``fresh_ids``) added. The caller keeps
    the table at most half full."""
    new_id = np.empty(n_old, dtype=np.int64)
    s = 0
    n_ins = len(ins)
    for j in range(n_old):
        while s < n_ins and ins[s] <= j:
            s += 1
        new_id[j] = j + s
    out = np.empty_like(slots)
    for i in range(len(out) // 2):
        t = slots[2 * i + 1]
        out[2 * i] = slots[2 * i]
        out[2 * i + 1] = new_id[t] if t >= 0 else t
    mask = len(out) // 2 - 1
    for f in range(len(fresh_ids)):
        key, exact = _key(cps, start[f], start[f] + length[f])
        k = np.int64(key)
        i = _home(np.uint64(k), mask)
        while out[2 * i + 1] >= 0:
            i = (i + 1) & mask
        out[2 * i] = k
        out[2 * i + 1] = fresh_ids[f]
    return out
