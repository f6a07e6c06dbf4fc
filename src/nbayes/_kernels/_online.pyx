# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""A small update added to large per-class text counts and (class, term) pairs (compiled; see
online.py for the conventions: ``ins``, ``new_id``, ``key`` / ``known``)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from nbayes._kernels._table cimport home, term_key

ctypedef fused ptr_t:
    int32_t
    int64_t

ctypedef fused idx_t:
    int32_t
    int64_t

ctypedef fused num_t:
    int32_t
    int64_t
    float
    double


cdef inline object _flags(a):
    """A vector of booleans as bytes (0 / 1) a memoryview takes: NumPy's bool is not a buffer
    type Cython reads."""
    return np.ascontiguousarray(a, dtype=np.bool_).view(np.uint8)


cdef inline Py_ssize_t _lower_bound(const idx_t* a, Py_ssize_t lo, Py_ssize_t hi, int64_t v) noexcept nogil:
    """The first position in lo..hi of the sorted a[lo:hi] whose value is >= v (hi if none)."""
    cdef Py_ssize_t mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t _shift(const int64_t* ins, Py_ssize_t n_ins, int64_t j) noexcept nogil:
    """#(ins <= j): how far old id j moves (a binary search over the few insertions)."""
    cdef Py_ssize_t lo = 0, hi = n_ins, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if ins[mid] <= j:
            lo = mid + 1
        else:
            hi = mid
    return lo


def renumbered(Py_ssize_t n_old, const int64_t[::1] ins):
    """The new id of each old term once the terms ``ins`` are inserted."""
    new_id_array = np.empty(n_old, dtype=np.int64)
    cdef int64_t[::1] new_id = new_id_array
    cdef Py_ssize_t s = 0, j, n_ins = ins.shape[0]
    with nogil:
        for j in range(n_old):
            while s < n_ins and ins[s] <= j:
                s += 1
            new_id[j] = j + s
    return new_id_array


def update_entries(const double[:, ::1] A, const double[:, ::1] B, const int64_t[::1] cpos, const int64_t[::1] pos,
                   const int64_t[::1] key, known_array, Py_ssize_t K):
    """An update's nonzero counts ``A`` (its classes x its terms, dense; ``B`` beside it, the
    document counts) as entries over the model's ``K`` classes, in (class, term) order when
    ``cpos`` (each update class's row in the model) and ``pos`` (each update term's new id)
    ascend: (rows, cols = pos, key, known, A's values, B's values at the same places, CSR row
    pointers, whether B is nonzero exactly where A is)."""
    cdef const uint8_t[::1] known = _flags(known_array)
    cdef Py_ssize_t Kd = A.shape[0], T = A.shape[1], r, j, i, k, n = 0
    cdef int64_t c
    cdef bint a, same = True
    if B.shape[0] != Kd or B.shape[1] != T:
        raise ValueError("A and B differ in shape")
    with nogil:
        for r in range(Kd):
            for j in range(T):
                a = A[r, j] != 0.0
                if a != (B[r, j] != 0.0):
                    same = False
                if a:
                    n += 1
    rows_array = np.empty(n, dtype=np.int64)
    cols_array = np.empty(n, dtype=np.int64)
    keys_array = np.empty(n, dtype=np.int64)
    kn_array = np.empty(n, dtype=np.bool_)
    va_array = np.empty(n)
    vb_array = np.empty(n)
    ptr_array = np.zeros(K + 1, dtype=np.int64)
    cdef int64_t[::1] rows = rows_array, cols = cols_array, keys = keys_array, ptr = ptr_array
    cdef uint8_t[::1] kn = kn_array.view(np.uint8)
    cdef double[::1] va = va_array, vb = vb_array
    with nogil:
        i = 0
        for r in range(Kd):
            c = cpos[r]
            for j in range(T):
                if A[r, j] != 0.0:
                    rows[i] = c
                    cols[i] = pos[j]
                    keys[i] = key[j]
                    kn[i] = known[j] != 0
                    va[i] = A[r, j]
                    vb[i] = B[r, j]
                    ptr[c + 1] += 1
                    i += 1
        for k in range(K):
            ptr[k + 1] += ptr[k]
    return rows_array, cols_array, keys_array, kn_array, va_array, vb_array, ptr_array, bool(same)


cdef inline Py_ssize_t _run(const idx_t* indices, const double* data, const double* data2, Py_ssize_t a,
                            Py_ssize_t p, const int64_t* ins, Py_ssize_t n_ins, idx_t* out_idx, double* out_val,
                            double* out_val2, Py_ssize_t n) noexcept nogil:
    """Copy the old entries a..p (ascending term ids) to the output at n, their term ids
    renumbered: in runs of one shift, each run's end found by a binary search (``data2``,
    when not NULL, the values of a second matrix of the same pattern)."""
    cdef Py_ssize_t s, q, i
    if p <= a:
        return n
    memcpy(out_val + n, data + a, (p - a) * sizeof(double))
    if data2 != NULL:
        memcpy(out_val2 + n, data2 + a, (p - a) * sizeof(double))
    while a < p:
        s = _shift(ins, n_ins, indices[a])
        q = p
        if s < n_ins:  # the run ends at the first id >= ins[s]
            q = _lower_bound(indices, a, p, ins[s])
        for i in range(q - a):
            out_idx[n + i] = <idx_t>(indices[a + i] + s)
        n += q - a
        a = q
    return n


def merge_rows(const ptr_t[::1] indptr, const idx_t[::1] indices, const double[::1] data, const double[::1] data2,
               const int64_t[::1] ins, const int64_t[::1] up_ptr, const int64_t[::1] up_key, up_known_array,
               const int64_t[::1] up_cols, const double[::1] up_vals, const double[::1] up_vals2, int sums_of):
    """A CSR matrix (rows x old terms) plus an update (CSR over the same rows: ``up_cols`` the
    new term ids, ascending in each row, ``up_key`` / ``up_known`` where they go in the old
    order): (indptr, indices, data, data2) over the new terms, for each update entry its
    position in the result (where its sum is), and each row's sum of ``data`` (``sums_of`` 1)
    or ``data2`` (2), added in term order as ``np.bincount`` over the rows' entries adds them
    (0: no sums). ``data2`` / ``up_vals2``, when not empty, are the values of a second matrix
    and update with the same patterns (a text model's document counts beside its term counts:
    merged in the same pass, one index array for both); else the returned data2 is empty."""
    cdef const uint8_t[::1] up_known = _flags(up_known_array)
    cdef Py_ssize_t K = indptr.shape[0] - 1, nb = up_vals.shape[0], nd = data.shape[0]
    cdef bint two = data2.shape[0] > 0 or up_vals2.shape[0] > 0
    cdef Py_ssize_t n = 0, r, a, ae, row, b, lo, i, n_ins = ins.shape[0]
    cdef int64_t key
    cdef double t
    if data2.shape[0] not in (0, nd) or (two and data2.shape[0] != nd) or (two and up_vals2.shape[0] != nb):
        raise ValueError("data2 / up_vals2 do not match data / up_vals")
    if sums_of == 2 and not two and nd + nb > 0:
        raise ValueError("sums of data2 asked for without data2")
    if up_ptr.shape[0] < K + 1:
        raise ValueError("the update has fewer rows than the matrix")
    out_ptr_array = np.zeros(K + 1, dtype=np.int64)
    out_idx_array = np.empty(nd + nb, dtype=np.asarray(indices).dtype)
    out_val_array = np.empty(nd + nb)
    out_val2_array = np.empty(nd + nb if two else 0)
    at_array = np.empty(nb, dtype=np.int64)
    sums_array = np.zeros(K)
    cdef int64_t[::1] out_ptr = out_ptr_array, at = at_array
    cdef idx_t[::1] out_idx_v = out_idx_array
    cdef double[::1] out_val_v = out_val_array, out_val2_v = out_val2_array, sums = sums_array
    cdef idx_t* out_idx = &out_idx_v[0] if nd + nb else NULL
    cdef double* out_val = &out_val_v[0] if nd + nb else NULL
    cdef double* out_val2 = &out_val2_v[0] if two and nd + nb else NULL
    cdef double* vals = out_val if sums_of == 1 else out_val2
    cdef const idx_t* pidx = &indices[0] if nd else NULL
    cdef const double* pdata = &data[0] if nd else NULL
    cdef const double* pdata2 = &data2[0] if data2.shape[0] else NULL
    cdef const int64_t* pins = &ins[0] if n_ins else NULL
    with nogil:
        for r in range(K):
            a, ae = indptr[r], indptr[r + 1]
            row = n
            for b in range(up_ptr[r], up_ptr[r + 1]):
                key = up_key[b]
                lo = _lower_bound(pidx, a, ae, key)
                n = _run(pidx, pdata, pdata2, a, lo, pins, n_ins, out_idx, out_val, out_val2, n)
                a = lo
                out_idx[n] = <idx_t>up_cols[b]
                if up_known[b] and a < ae and pidx[a] == key:
                    out_val[n] = pdata[a] + up_vals[b]
                    if two:
                        out_val2[n] = pdata2[a] + up_vals2[b]
                    a += 1
                else:
                    out_val[n] = up_vals[b]
                    if two:
                        out_val2[n] = up_vals2[b]
                at[b] = n
                n += 1
            n = _run(pidx, pdata, pdata2, a, ae, pins, n_ins, out_idx, out_val, out_val2, n)
            out_ptr[r + 1] = n
            if sums_of:
                t = 0.0
                for i in range(row, n):
                    t += vals[i]
                sums[r] = t
    if n < nd + nb:  # some entries summed: exact lengths (the matrix keeps these arrays)
        return (out_ptr_array, out_idx_array[:n].copy(), out_val_array[:n].copy(), out_val2_array[:n].copy(),
                at_array, sums_array)
    return out_ptr_array, out_idx_array, out_val_array, out_val2_array, at_array, sums_array


def merge_pairs(const int64_t[::1] indptr, const int64_t[::1] cls, const double[::1] delta, const int64_t[::1] new_id,
                Py_ssize_t n_new, const int64_t[::1] up_terms, const int64_t[::1] up_key, up_known_array,
                const int64_t[::1] up_cls, const double[::1] up_delta):
    """Per-term pairs (CSC: term t's pairs indptr[t]..indptr[t + 1], classes ascending) with
    the update's pairs put in (``up_terms``: new term ids, in (term, class) order; ``up_key``
    / ``up_known`` as for :func:`merge_rows`): an update pair replaces the old pair of its
    (term, class) or is inserted. Returns (indptr, cls, delta) over the ``n_new`` terms."""
    cdef const uint8_t[::1] up_known = _flags(up_known_array)
    cdef Py_ssize_t V_old = indptr.shape[0] - 1, nb = up_terms.shape[0], j, b, t, a, n, m, p
    cdef int64_t key, lo
    cdef const int64_t* pcls = &cls[0] if cls.shape[0] else NULL
    cdef const double* pdelta = &delta[0] if delta.shape[0] else NULL
    cdef bint renumber = new_id.shape[0] > 0
    where_array = np.empty(nb, dtype=np.int64)  # each update pair's place among the old pairs
    same_array = np.zeros(nb, dtype=np.uint8)
    count_array = np.zeros(n_new, dtype=np.int64)
    out_ptr_array = np.zeros(n_new + 1, dtype=np.int64)
    cdef int64_t[::1] where = where_array, count = count_array, out_ptr = out_ptr_array
    cdef uint8_t[::1] same = same_array
    with nogil:
        for j in range(V_old):
            count[new_id[j] if renumber else j] = indptr[j + 1] - indptr[j]
        for b in range(nb):
            key = up_key[b]
            if up_known[b]:
                lo = _lower_bound(pcls, indptr[key], indptr[key + 1], up_cls[b])
                where[b] = lo
                same[b] = lo < indptr[key + 1] and pcls[lo] == up_cls[b]
            else:
                where[b] = indptr[key]
            if not same[b]:
                count[up_terms[b]] += 1
        for t in range(n_new):
            out_ptr[t + 1] = out_ptr[t] + count[t]
    out_cls_array = np.empty(out_ptr[n_new], dtype=np.int64)
    out_d_array = np.empty(out_ptr[n_new])
    cdef int64_t[::1] out_cls = out_cls_array
    cdef double[::1] out_d = out_d_array
    cdef int64_t* po_cls = &out_cls[0] if out_cls.shape[0] else NULL
    cdef double* po_d = &out_d[0] if out_d.shape[0] else NULL
    with nogil:
        a = 0
        n = 0
        for b in range(nb):
            p = where[b]
            m = p - a
            if m > 0:
                memcpy(po_cls + n, pcls + a, m * sizeof(int64_t))
                memcpy(po_d + n, pdelta + a, m * sizeof(double))
                n += m
            po_cls[n] = up_cls[b]
            po_d[n] = up_delta[b]
            n += 1
            a = p + 1 if same[b] else p
        m = cls.shape[0] - a
        if m > 0:
            memcpy(po_cls + n, pcls + a, m * sizeof(int64_t))
            memcpy(po_d + n, pdelta + a, m * sizeof(double))
    return out_ptr_array, out_cls_array, out_d_array


def extend_slots(const int64_t[::1] slots, const int64_t[::1] new_id, const uint32_t[::1] cps,
                 const int64_t[::1] start, const int64_t[::1] length, const int64_t[::1] fresh_ids):
    """A copy of the hash table ``slots`` (as :func:`.text.build` lays it out) with the old ids
    renumbered (``new_id``) and the new terms (``cps[start[i]:start[i] + length[i]]``, new ids
    ``fresh_ids``) added. The caller keeps the table at most half full."""
    out_array = np.empty_like(np.asarray(slots))
    cdef int64_t[::1] out = out_array
    cdef Py_ssize_t i, f
    cdef int64_t t, mask = out.shape[0] // 2 - 1, s
    cdef uint64_t key
    cdef bint exact
    cdef const uint32_t* pcps = &cps[0] if cps.shape[0] else NULL
    with nogil:
        for i in range(out.shape[0] // 2):
            t = slots[2 * i + 1]
            out[2 * i] = slots[2 * i]
            out[2 * i + 1] = new_id[t] if t >= 0 else t
        for f in range(fresh_ids.shape[0]):
            s = start[f]
            key, exact = term_key(pcps, s, s + length[f])
            i = home(key, mask)
            while out[2 * i + 1] >= 0:
                i = (i + 1) & mask
            out[2 * i] = <int64_t>key
            out[2 * i + 1] = fresh_ids[f]
    return out_array


cdef object _inserted(const num_t[::1] a, const int64_t[::1] ins, const num_t[::1] values, object out_array):
    cdef Py_ssize_t n = a.shape[0], k = ins.shape[0], i, src = 0, at
    cdef num_t[::1] out = out_array
    if k > values.shape[0]:
        raise ValueError("fewer values than insertions")
    with nogil:
        for i in range(k):
            at = ins[i]
            if at > src:
                memcpy(&out[src + i], &a[src], (at - src) * sizeof(num_t))
            out[at + i] = values[i]
            src = at
        if n > src:
            memcpy(&out[src + k], &a[src], (n - src) * sizeof(num_t))
    return out_array


def inserted(a, ins, values):
    """``np.insert(a, ins, values)`` for a numeric vector (runs copied between insertions;
    ``ins`` ascending)."""
    a = np.ascontiguousarray(a)
    dt = a.dtype
    ins = np.ascontiguousarray(ins, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=dt)
    out = np.empty(len(a) + len(ins), dtype=dt)
    if dt == np.float64:
        return _inserted[double](a, ins, values, out)
    if dt == np.int64:
        return _inserted[int64_t](a, ins, values, out)
    if dt == np.float32:
        return _inserted[float](a, ins, values, out)
    if dt == np.int32:
        return _inserted[int32_t](a, ins, values, out)
    return np.insert(a, ins, values)


def heavy_rows(const int64_t[::1] indptr, const int64_t[::1] cls, const double[::1] delta, const double[::1] base):
    """What ``Pairs.heavy`` computes (:mod:`nbayes.text.vocab`), in one pass without the GIL:
    (row per term or -1, rows) where the terms held by at least a quarter of the classes get a
    row of full weights, ``base[c] + delta[p]`` at their pairs' classes and ``base[c]`` elsewhere."""
    cdef Py_ssize_t V = indptr.shape[0] - 1, K = base.shape[0], t, p, n = 0
    cdef int64_t held, r, c
    row_array = np.full(V, -1, dtype=np.int64)
    cdef int64_t[::1] row = row_array
    with nogil:
        for t in range(V):
            held = indptr[t + 1] - indptr[t]
            if 4 * held >= K and held > 0:
                row[t] = n
                n += 1
    rows_array = np.empty((n, K))
    cdef double[:, ::1] rows = rows_array
    with nogil:
        for t in range(V):
            r = row[t]
            if r < 0:
                continue
            if K > 0:
                memcpy(&rows[r, 0], &base[0], K * sizeof(double))
            for p in range(indptr[t], indptr[t + 1]):
                c = cls[p]
                rows[r, c] = base[c] + delta[p]
    return row_array, rows_array
