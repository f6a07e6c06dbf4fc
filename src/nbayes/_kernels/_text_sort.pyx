# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Vocabularies in code point order, and (class, term) pairs laid out as CSR (compiled; the
orchestration and the NumPy paths are in text_sort.py)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from nbayes._kernels._table cimport cp_t

ctypedef fused out_t:
    uint8_t
    uint32_t

ctypedef fused idx_t:
    int32_t
    int64_t

cdef enum:
    TOP_BITS = 16  # text_sort._TOP: bits of the first key sorted by one counting pass
    DIGIT = 11  # pair_csr's radix digits


def join_terms(const cp_t[::1] cps, const int64_t[::1] start, const int64_t[::1] length, out_t[::1] out):
    """out = the terms cps[start[i]:start[i] + length[i]] in turn, a 0 between two."""
    cdef Py_ssize_t n = 0, i, k, s
    with nogil:
        for i in range(start.shape[0]):
            if i > 0:
                out[n] = 0
                n += 1
            s = start[i]
            for k in range(length[i]):
                out[n + k] = <out_t>cps[s + k]
            n += length[i]


def gather_terms(const cp_t[::1] cps, const int64_t[::1] start, const int64_t[::1] length, out_t[::1] out):
    """out = the terms cps[start[i]:start[i] + length[i]] in turn, end to end."""
    cdef Py_ssize_t n = 0, i, k, s
    with nogil:
        for i in range(start.shape[0]):
            s = start[i]
            for k in range(length[i]):
                out[n + k] = <out_t>cps[s + k]
            n += length[i]


def pair_csr(const int64_t[::1] keys, const double[::1] count, const double[::1] cdf, const int64_t[::1] rank,
             int64_t K, int64_t[::1] indptr, idx_t[::1] indices, double[::1] tc, double[::1] dc):
    """The distinct pairs keys[p] = t * K + c (counts count[p], cdf[p]) as CSR over classes with
    the terms' ranks rank[t] as columns, ascending: indptr (K + 1, zeros) gets the offsets and
    indices, tc, dc (one entry per pair) the columns and counts. A counting pass by class (K
    streams written in order), then each class's entries sorted by rank with radix passes of
    11 bits: no comparison sort, no list of pairs in between, scratch for one class only."""
    cdef Py_ssize_t P = keys.shape[0], p, c, i, q, a, b, n, d
    cdef int64_t key, t, big = 0
    cdef int shift, bits = 1
    cdef bint moved
    cdef int64_t r
    cdef int64_t cnt[(1 << DIGIT) + 1]
    cdef int64_t mask = (1 << DIGIT) - 1
    if K < 1:
        raise ValueError(f"K must be at least 1, got {K}")
    pos_array = np.empty(K, dtype=np.int64)
    cdef int64_t[::1] pos = pos_array
    with nogil:
        for p in range(P):
            indptr[keys[p] % K + 1] += 1
        for c in range(K):
            indptr[c + 1] += indptr[c]
        for c in range(K):
            pos[c] = indptr[c]
        for p in range(P):
            key = keys[p]
            t = key // K
            c = key - t * K
            i = pos[c]
            indices[i] = <idx_t>rank[t]
            tc[i] = count[p]
            dc[i] = cdf[p]
            pos[c] = i + 1
        for c in range(K):
            if indptr[c + 1] - indptr[c] > big:
                big = indptr[c + 1] - indptr[c]
    ti_array = np.empty(big, dtype=np.asarray(indices).dtype)
    tx_array = np.empty(big)
    ty_array = np.empty(big)
    cdef idx_t[::1] ti = ti_array
    cdef double[::1] tx = tx_array, ty = ty_array
    while (<int64_t>1 << bits) < rank.shape[0]:
        bits += 1
    with nogil:
        for c in range(K):
            a, b = indptr[c], indptr[c + 1]
            n = b - a
            moved = False  # the entries are in the scratch
            for shift in range(0, bits, 11):  # DIGIT
                for d in range((1 << DIGIT) + 1):
                    cnt[d] = 0
                for q in range(n):
                    if moved:
                        r = ti[q]
                    else:
                        r = indices[a + q]
                    cnt[((r >> shift) & mask) + 1] += 1
                for d in range(1 << DIGIT):
                    cnt[d + 1] += cnt[d]
                if moved:
                    for q in range(n):
                        r = ti[q]
                        d = (r >> shift) & mask
                        i = cnt[d]
                        cnt[d] = i + 1
                        indices[a + i] = <idx_t>r
                        tc[a + i] = tx[q]
                        dc[a + i] = ty[q]
                else:
                    for q in range(n):
                        r = indices[a + q]
                        d = (r >> shift) & mask
                        i = cnt[d]
                        cnt[d] = i + 1
                        ti[i] = <idx_t>r
                        tx[i] = tc[a + q]
                        ty[i] = dc[a + q]
                moved = not moved
            if moved and n > 0:
                memcpy(&indices[a], &ti[0], n * sizeof(idx_t))
                memcpy(&tc[a], &tx[0], n * sizeof(double))
                memcpy(&dc[a], &ty[0], n * sizeof(double))


def renumber_slots(int64_t[::1] slots, const int64_t[::1] rank):
    """A term table's slots (key, id pairs; id -1: empty) with each id t replaced by rank[t]."""
    cdef Py_ssize_t i
    cdef int64_t t
    with nogil:
        for i in range(1, slots.shape[0], 2):
            t = slots[i]
            if t >= 0:
                slots[i] = rank[t]


def first_unsorted(const cp_t[::1] cps, const int64_t[::1] start, const int64_t[::1] length):
    """(i, same): the first term i > 0 that is not after term i - 1 in code point order (a
    prefix first), and whether it equals it; (-1, False) when the terms strictly increase."""
    cdef Py_ssize_t i, j, a, b, na, nb, m
    cdef Py_ssize_t found = -1
    cdef bint same = False
    with nogil:
        for i in range(1, start.shape[0]):
            a, b = start[i - 1], start[i]
            na, nb = length[i - 1], length[i]
            m = na if na < nb else nb
            j = 0
            while j < m and cps[a + j] == cps[b + j]:
                j += 1
            if j < m:
                if cps[b + j] < cps[a + j]:
                    found = i
                    break
            elif nb <= na:
                found = i
                same = nb == na
                break
    return found, bool(same)


cdef inline void _held(const uint64_t* rc, const uint64_t* rd, int64_t* n, Py_ssize_t K) noexcept nogil:
    """n[c] += 1 where the row's count rc[c] or document count rd[c] (doubles, read as their
    bits) is not 0: x != 0.0 exactly when x's bits but the sign are not all 0 (-0.0 is 0, a NaN
    is not), and y != 0 is the top bit of y | -y. Integer operations without a branch, which
    the compiler vectorises with SSE2 (a comparison of doubles it would not)."""
    cdef Py_ssize_t c
    cdef uint64_t y
    for c in range(K):
        y = (rc[c] | rd[c]) << 1
        n[c] += <int64_t>((y | (0 - y)) >> 63)


def dense_pair_counts(const double[::1] count, const double[::1] cdf, const int64_t[::1] order, int64_t K):
    """indptr of the CSR over classes of the pairs held by dense rows (pair (t, c) at
    ``t * K + c``; held: a count or a document count not 0), terms taken in the order ``order``."""
    indptr_array = np.zeros(K + 1, dtype=np.int64)
    cdef int64_t[::1] indptr_v = indptr_array
    cdef int64_t* indptr = &indptr_v[0]
    cdef const uint64_t[::1] bits_c = np.asarray(count).view(np.uint64)
    cdef const uint64_t[::1] bits_d = np.asarray(cdf).view(np.uint64)
    cdef const uint64_t* pc = &bits_c[0] if bits_c.shape[0] else NULL
    cdef const uint64_t* pd = &bits_d[0] if bits_d.shape[0] else NULL
    cdef Py_ssize_t r, c
    with nogil:
        for r in range(order.shape[0]):
            _held(pc + order[r] * K, pd + order[r] * K, indptr + 1, K)
        for c in range(K):
            indptr[c + 1] += indptr[c]
    return indptr_array


def dense_pair_fill(const double[::1] count, const double[::1] cdf, const int64_t[::1] order, int64_t K,
                    const int64_t[::1] indptr, idx_t[::1] indices, double[::1] tc, double[::1] dc):
    """Fill the CSR of :func:`dense_pair_counts`: column (rank r of the term), count and
    document count of each pair, class by class, ranks ascending."""
    pos_array = np.asarray(indptr)[:K].copy()
    cdef int64_t[::1] pos_v = pos_array
    cdef int64_t* pos = &pos_v[0] if K else NULL
    cdef const double* pc = &count[0] if count.shape[0] else NULL
    cdef const double* pd = &cdf[0] if cdf.shape[0] else NULL
    cdef idx_t* pi = &indices[0] if indices.shape[0] else NULL
    cdef double* ptc = &tc[0] if tc.shape[0] else NULL
    cdef double* pdc = &dc[0] if dc.shape[0] else NULL
    cdef const double* rc
    cdef const double* rd
    cdef Py_ssize_t r, c
    cdef int64_t q
    with nogil:
        for r in range(order.shape[0]):
            rc = pc + order[r] * K
            rd = pd + order[r] * K
            for c in range(K):
                if rc[c] != 0 or rd[c] != 0:
                    q = pos[c]
                    pi[q] = <idx_t>r
                    ptc[q] = rc[c]
                    pdc[q] = rd[c]
                    pos[c] = q + 1


def split_terms(const cp_t[::1] cps, const int64_t[::1] start, const int64_t[::1] length, int bits, Py_ssize_t per,
                int shift):
    """(k1, k2, order, bounds): the code points 0..per-1 and per..2 per-1 of every term (each
    plus one, 0 past its end) packed ``bits`` apiece into uint64 keys k1, k2, the first in
    the highest bits (comparing keys compares those code points as Python compares str), laid
    out by one counting pass on the bits of k1 from ``shift`` up into 2 ** _TOP parts (offsets
    ``bounds``), each part's terms (``order``) in their order."""
    cdef Py_ssize_t n = start.shape[0], t, j, m, d, p
    cdef Py_ssize_t B = 1 << TOP_BITS
    cdef int64_t s
    cdef uint64_t x, y, c, e
    if not 0 < bits < 64 or not 0 <= shift < 64:
        raise ValueError(f"bits {bits} / shift {shift} out of range")
    k1_array = np.empty(n, dtype=np.uint64)
    k2_array = np.empty(n, dtype=np.uint64)
    bounds_array = np.zeros(B + 1, dtype=np.int64)
    pos_array = np.empty(B, dtype=np.int64)
    o1_array = np.empty(n, dtype=np.uint64)
    o2_array = np.empty(n, dtype=np.uint64)
    order_array = np.empty(n, dtype=np.int64)
    cdef uint64_t[::1] k1 = k1_array, k2 = k2_array, o1 = o1_array, o2 = o2_array
    cdef int64_t[::1] bounds = bounds_array, pos = pos_array, order = order_array
    with nogil:
        for t in range(n):
            s = start[t]
            m = length[t]
            x = 0
            y = 0
            for j in range(per):
                c = 0
                if j < m:
                    c = <uint64_t>cps[s + j] + 1
                x = (x << bits) | c
                e = 0
                if per + j < m:
                    e = <uint64_t>cps[s + per + j] + 1
                y = (y << bits) | e
            k1[t] = x
            k2[t] = y
        for t in range(n):
            bounds[<Py_ssize_t>(k1[t] >> shift) + 1] += 1
        for d in range(B):
            bounds[d + 1] += bounds[d]
        for d in range(B):
            pos[d] = bounds[d]
        for t in range(n):
            d = <Py_ssize_t>(k1[t] >> shift)
            p = pos[d]
            o1[p] = k1[t]
            o2[p] = k2[t]
            order[p] = t
            pos[d] = p + 1
    return o1_array, o2_array, order_array, bounds_array


cdef inline void _radix(uint64_t* k1, uint64_t* k2, int64_t* order, Py_ssize_t i, Py_ssize_t j, int low_bits,
                        uint64_t* t1, uint64_t* t2, int64_t* to) noexcept nogil:
    """Sort entries i..j-1 of (k1, k2, order) by the low ``low_bits`` of k1 (their higher bits
    are equal), stably: insertion for a few, else least significant digit first, 8 bits a
    pass, through the scratch (t1, t2, to)."""
    cdef Py_ssize_t n = j - i, a, b, q, d, p
    cdef uint64_t x, y
    cdef int64_t t, top
    cdef int shift
    cdef bint moved
    cdef int64_t count[257]
    if n <= 32:
        for a in range(i + 1, j):
            x, y, t = k1[a], k2[a], order[a]
            b = a - 1
            while b >= i and k1[b] > x:
                k1[b + 1] = k1[b]
                k2[b + 1] = k2[b]
                order[b + 1] = order[b]
                b -= 1
            k1[b + 1] = x
            k2[b + 1] = y
            order[b + 1] = t
        return
    moved = False  # the entries are in the scratch
    for shift in range(0, low_bits, 8):
        for d in range(257):
            count[d] = 0
        if moved:
            for q in range(n):
                count[((t1[q] >> shift) & 255) + 1] += 1
        else:
            for q in range(n):
                count[((k1[i + q] >> shift) & 255) + 1] += 1
        top = 0
        for d in range(257):
            if count[d] > top:
                top = count[d]
        if top == n:  # one digit for all: nothing moves
            continue
        for d in range(256):
            count[d + 1] += count[d]
        if moved:
            for q in range(n):
                x = t1[q]
                d = <Py_ssize_t>((x >> shift) & 255)
                p = count[d]
                count[d] = p + 1
                k1[i + p] = x
                k2[i + p] = t2[q]
                order[i + p] = to[q]
        else:
            for q in range(n):
                x = k1[i + q]
                d = <Py_ssize_t>((x >> shift) & 255)
                p = count[d]
                count[d] = p + 1
                t1[p] = x
                t2[p] = k2[i + q]
                to[p] = order[i + q]
        moved = not moved
    if moved:
        memcpy(&k1[i], t1, n * sizeof(uint64_t))
        memcpy(&k2[i], t2, n * sizeof(uint64_t))
        memcpy(&order[i], to, n * sizeof(int64_t))


def sort_parts(const cp_t[::1] cps, const int64_t[::1] start, const int64_t[::1] length, uint64_t[::1] k1,
               uint64_t[::1] k2, int64_t[::1] order, const int64_t[::1] bounds, Py_ssize_t p0, Py_ssize_t p1,
               int low_bits, int bits, Py_ssize_t per):
    """Finish the sort of parts p0..p1-1 (offsets ``bounds``) of (k1, k2, order), each on its
    own: by the rest of k1 (radix), then each run of equal k1 by k2 (the next per code
    points), then the runs still tied by the next per code points, and so on until none is
    (a run of copies of one term stays as it is). Releases the GIL: threads sort disjoint
    ranges of parts at once."""
    cdef Py_ssize_t big = 1, p, lo, hi, m, i, j, a, q, nxt, r, c, off, nt
    cdef int64_t s
    cdef uint64_t k, v
    cdef bint longer
    cdef int64_t* swap
    if not 0 < bits < 64 or not 0 <= low_bits <= 64:
        raise ValueError(f"bits {bits} / low_bits {low_bits} out of range")
    for p in range(p0, p1):
        if bounds[p + 1] - bounds[p] > big:
            big = bounds[p + 1] - bounds[p]
    t1_array = np.empty(big, dtype=np.uint64)
    t2_array = np.empty(big, dtype=np.uint64)
    to_array = np.empty(big, dtype=np.int64)
    # the runs of ties (pairs i, j), at most one per two entries of a part: sized once
    runs_array = np.empty(max(64, big + 2), dtype=np.int64)
    out_array = np.empty(max(64, big + 2), dtype=np.int64)
    cdef uint64_t[::1] t1 = t1_array, t2 = t2_array
    cdef int64_t[::1] to = to_array, runs_v = runs_array, out_v = out_array
    cdef int64_t* runs = &runs_v[0]
    cdef int64_t* out = &out_v[0]
    cdef uint64_t* pk1 = &k1[0] if k1.shape[0] else NULL
    cdef uint64_t* pk2 = &k2[0] if k2.shape[0] else NULL
    cdef int64_t* po = &order[0] if order.shape[0] else NULL
    with nogil:
        for p in range(p0, p1):
            lo, hi = bounds[p], bounds[p + 1]
            if hi - lo < 2:
                continue
            _radix(pk1, pk2, po, lo, hi, low_bits, &t1[0], &t2[0], &to[0])
            m = 0  # the runs of equal k1
            i = lo
            while i < hi:
                j = i + 1
                while j < hi and pk1[j] == pk1[i]:
                    j += 1
                if j - i > 1:
                    runs[2 * m] = i
                    runs[2 * m + 1] = j
                    m += 1
                i = j
            off = per
            while m > 0:
                nxt = 0
                for r in range(m):
                    i, j = runs[2 * r], runs[2 * r + 1]
                    longer = False
                    for q in range(i, j):
                        if length[po[q]] > off:
                            longer = True
                            break
                    if not longer:  # copies of one term
                        continue
                    if off > per:  # (k2 holds the first round's keys): the next code points
                        for q in range(i, j):
                            s = start[po[q]]
                            nt = length[po[q]]
                            k = 0
                            for c in range(off, off + per):
                                v = 0
                                if c < nt:
                                    v = <uint64_t>cps[s + c] + 1
                                k = (k << bits) | v
                            pk2[q] = k
                    _radix(pk2, pk1, po, i, j, 64, &t1[0], &t2[0], &to[0])  # (k1 equal over the run: carried along)
                    a = i
                    for q in range(i + 1, j + 1):
                        if q == j or pk2[q] != pk2[a]:
                            if q - a > 1:  # still tied
                                out[2 * nxt] = a
                                out[2 * nxt + 1] = q
                                nxt += 1
                            a = q
                swap = runs
                runs = out
                out = swap
                m = nxt
                off += per
