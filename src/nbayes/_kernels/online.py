"""Adding a small update to large per-class text counts and (class, term) pairs without a
dense table, a sort or a re-estimation (``nbayes serve --learn``; :mod:`nbayes.text.online`).

The vocabulary is sorted, so an update's new terms are inserted among the old ones: ``ins``
(ascending, repeats allowed) holds, for each new term, the old term id it goes before
(``np.insert``'s convention). An old id ``j`` becomes ``new_id[j] = j + #(ins <= j)``
(:func:`renumbered`; an empty ``new_id`` when nothing is inserted). Each kernel writes new
arrays (the served version is never written): the old arrays copied in runs between the
update's entries (each found by a binary search), never a sort, a hash rebuild or a dense
table. An update entry names where it goes in the old order by ``key``: the old id of a term
the model holds (``known``), else its insertion point ``ins``.
The NumPy twins are in tests/text/test_online.py.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .text import _home, _key

__all__ = ["extend_slots", "heavy_rows", "inserted", "merge_pairs", "merge_rows", "renumbered", "update_entries"]


@njit(cache=True, nogil=True, inline="always")
def _lower_bound(a, lo, hi, v):  # pragma: no cover - compiled
    """The first position in lo..hi of the sorted a[lo:hi] whose value is >= v (hi if none)."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def renumbered(n_old, ins):  # pragma: no cover - compiled
    """The new id of each old term once the terms ``ins`` are inserted."""
    new_id = np.empty(n_old, dtype=np.int64)
    s = 0
    for j in range(n_old):
        while s < len(ins) and ins[s] <= j:
            s += 1
        new_id[j] = j + s
    return new_id


@njit(cache=True, nogil=True, inline="always")
def _shift(ins, j):  # pragma: no cover - compiled
    """#(ins <= j): how far old id j moves (a binary search over the few insertions)."""
    lo, hi = 0, len(ins)
    while lo < hi:
        mid = (lo + hi) >> 1
        if ins[mid] <= j:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True, inline="always")
def _run(indices, data, data2, a, p, ins, out_idx, out_val, out_val2, n):  # pragma: no cover - compiled
    """Copy the old entries a..p (ascending term ids) to the output at n, their term ids
    renumbered: in runs of one shift, each run's end found by a binary search (``data2``,
    when not empty, the values of a second matrix of the same pattern)."""
    out_val[n:n + p - a] = data[a:p]
    if len(data2):
        out_val2[n:n + p - a] = data2[a:p]
    while a < p:
        s = _shift(ins, indices[a])
        q = p
        if s < len(ins):  # the run ends at the first id >= ins[s]
            q = _lower_bound(indices, a, p, ins[s])
        for i in range(q - a):
            out_idx[n + i] = indices[a + i] + s
        n += q - a
        a = q
    return n


@njit(cache=True, nogil=True)
def update_entries(A, B, cpos, pos, key, known, K):  # pragma: no cover - compiled
    """An update's nonzero counts ``A`` (its classes x its terms, dense; ``B`` beside it, the
    document counts) as entries over the model's ``K`` classes, in (class, term) order when
    ``cpos`` (each update class's row in the model) and ``pos`` (each update term's new id)
    ascend: (rows, cols = pos, key, known, A's values, B's values at the same places, CSR row
    pointers, whether B is nonzero exactly where A is)."""
    Kd, T = A.shape
    n = 0
    same = True
    for r in range(Kd):
        for j in range(T):
            a = A[r, j] != 0.0
            if a != (B[r, j] != 0.0):
                same = False
            if a:
                n += 1
    rows = np.empty(n, dtype=np.int64)
    cols = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    kn = np.empty(n, dtype=np.bool_)
    va = np.empty(n)
    vb = np.empty(n)
    ptr = np.zeros(K + 1, dtype=np.int64)
    i = 0
    for r in range(Kd):
        c = cpos[r]
        for j in range(T):
            if A[r, j] != 0.0:
                rows[i] = c
                cols[i] = pos[j]
                keys[i] = key[j]
                kn[i] = known[j]
                va[i] = A[r, j]
                vb[i] = B[r, j]
                ptr[c + 1] += 1
                i += 1
    for k in range(K):
        ptr[k + 1] += ptr[k]
    return rows, cols, keys, kn, va, vb, ptr, same


@njit(cache=True, nogil=True)
def merge_rows(indptr, indices, data, data2, ins, up_ptr, up_key, up_known, up_cols, up_vals, up_vals2,
               sums_of):  # pragma: no cover - compiled
    """A CSR matrix (rows x old terms) plus an update (CSR over the same rows: ``up_cols`` the
    new term ids, ascending in each row, ``up_key`` / ``up_known`` where they go in the old
    order): (indptr, indices, data, data2) over the new terms, for each update entry its
    position in the result (where its sum is), and each row's sum of ``data`` (``sums_of`` 1)
    or ``data2`` (2), added in term order as ``np.bincount`` over the rows' entries adds them
    (0: no sums). ``data2`` / ``up_vals2``, when not empty, are the values of a second matrix
    and update with the same patterns (a text model's document counts beside its term counts:
    merged in the same pass, one index array for both); else the returned data2 is empty."""
    K = len(indptr) - 1
    nb = len(up_vals)
    two = len(data2) > 0 or len(up_vals2) > 0
    out_ptr = np.zeros(K + 1, dtype=np.int64)
    out_idx = np.empty(len(data) + nb, dtype=indices.dtype)
    out_val = np.empty(len(data) + nb)
    out_val2 = np.empty(len(data) + nb if two else 0)
    at = np.empty(nb, dtype=np.int64)
    sums = np.zeros(K)
    n = 0
    for r in range(K):
        a, ae = indptr[r], indptr[r + 1]
        row = n
        for b in range(up_ptr[r], up_ptr[r + 1]):
            key = up_key[b]
            lo = _lower_bound(indices, a, ae, key)
            n = _run(indices, data, data2, a, lo, ins, out_idx, out_val, out_val2, n)
            a = lo
            out_idx[n] = up_cols[b]
            if up_known[b] and a < ae and indices[a] == key:
                out_val[n] = data[a] + up_vals[b]
                if two:
                    out_val2[n] = data2[a] + up_vals2[b]
                a += 1
            else:
                out_val[n] = up_vals[b]
                if two:
                    out_val2[n] = up_vals2[b]
            at[b] = n
            n += 1
        n = _run(indices, data, data2, a, ae, ins, out_idx, out_val, out_val2, n)
        out_ptr[r + 1] = n
        if sums_of:
            vals = out_val if sums_of == 1 else out_val2
            t = 0.0
            for i in range(row, n):
                t += vals[i]
            sums[r] = t
    if n < len(out_val):  # some entries summed: exact lengths (the matrix keeps these arrays)
        return out_ptr, out_idx[:n].copy(), out_val[:n].copy(), out_val2[:n].copy(), at, sums
    return out_ptr, out_idx, out_val, out_val2, at, sums


@njit(cache=True, nogil=True)
def merge_pairs(indptr, cls, delta, new_id, n_new, up_terms, up_key, up_known, up_cls,
                up_delta):  # pragma: no cover - compiled
    """Per-term pairs (CSC: term t's pairs indptr[t]..indptr[t + 1], classes ascending) with
    the update's pairs put in (``up_terms``: new term ids, in (term, class) order; ``up_key``
    / ``up_known`` as for :func:`merge_rows`): an update pair replaces the old pair of its
    (term, class) or is inserted. Returns (indptr, cls, delta) over the ``n_new`` terms."""
    V_old = len(indptr) - 1
    nb = len(up_terms)
    where = np.empty(nb, dtype=np.int64)  # each update pair's place among the old pairs
    same = np.zeros(nb, dtype=np.bool_)
    count = np.zeros(n_new, dtype=np.int64)
    for j in range(V_old):
        count[new_id[j] if len(new_id) else j] = indptr[j + 1] - indptr[j]
    for b in range(nb):
        key = up_key[b]
        if up_known[b]:
            lo = _lower_bound(cls, indptr[key], indptr[key + 1], up_cls[b])
            where[b] = lo
            same[b] = lo < indptr[key + 1] and cls[lo] == up_cls[b]
        else:
            where[b] = indptr[key]
        if not same[b]:
            count[up_terms[b]] += 1
    out_ptr = np.zeros(n_new + 1, dtype=np.int64)
    for t in range(n_new):
        out_ptr[t + 1] = out_ptr[t] + count[t]
    out_cls = np.empty(out_ptr[n_new], dtype=np.int64)
    out_d = np.empty(out_ptr[n_new])
    a = 0
    n = 0
    for b in range(nb):
        p = where[b]
        m = p - a
        out_cls[n:n + m] = cls[a:p]
        out_d[n:n + m] = delta[a:p]
        n += m
        out_cls[n] = up_cls[b]
        out_d[n] = up_delta[b]
        n += 1
        a = p + 1 if same[b] else p
    m = len(cls) - a
    out_cls[n:n + m] = cls[a:]
    out_d[n:n + m] = delta[a:]
    return out_ptr, out_cls, out_d


@njit(cache=True, nogil=True)
def extend_slots(slots, new_id, cps, start, length, fresh_ids):  # pragma: no cover - compiled
    """A copy of the hash table ``slots`` (as :func:`.text.build` lays it out) with the old ids
    renumbered (``new_id``) and the new terms (``cps[start[i]:start[i] + length[i]]``, new ids
    ``fresh_ids``) added. The caller keeps the table at most half full."""
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


@njit(cache=True, nogil=True)
def inserted(a, ins, values):  # pragma: no cover - compiled
    """``np.insert(a, ins, values)`` for a numeric vector (runs copied between insertions)."""
    out = np.empty(len(a) + len(ins), dtype=a.dtype)
    src = 0
    for i in range(len(ins)):
        at = ins[i]
        out[src + i:at + i] = a[src:at]
        out[at + i] = values[i]
        src = at
    out[src + len(ins):] = a[src:]
    return out


@njit(cache=True, nogil=True)
def heavy_rows(indptr, cls, delta, base):  # pragma: no cover - compiled
    """What ``Pairs.heavy`` computes (:mod:`nbayes.text.vocab`), in one pass without the GIL:
    (row per term or -1, rows) where the terms held by at least a quarter of the classes get a
    row of full weights, ``base[c] + delta[p]`` at their pairs' classes and ``base[c]`` elsewhere."""
    V, K = len(indptr) - 1, len(base)
    row = np.full(V, -1, dtype=np.int64)
    n = 0
    for t in range(V):
        held = indptr[t + 1] - indptr[t]
        if 4 * held >= K and held > 0:
            row[t] = n
            n += 1
    rows = np.empty((n, K))
    for t in range(V):
        r = row[t]
        if r < 0:
            continue
        rows[r, :] = base
        for p in range(indptr[t], indptr[t + 1]):
            rows[r, cls[p]] = base[cls[p]] + delta[p]
    return row, rows
