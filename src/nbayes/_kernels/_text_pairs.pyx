# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Scoring word text with parameters held as (class, term) pairs, and the presence rows of
documents (compiled; see text_pairs.py)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport qsort

from nbayes._kernels._pairs cimport add_term
from nbayes._kernels._murmur cimport bucket
from nbayes._kernels._table cimport cp_t, home, term_key
from nbayes._kernels._words cimport (AHEAD, GAP, Walk, grams, look_ahead, next_token, prefetch, prefetch_span, step,
                                     table_find, unkeyed, walk_free, walk_of, walk_scratch, word)


def score_rows(Py_ssize_t d0, Py_ssize_t d1, const cp_t[::1] buf, const int64_t[::1] bounds,
               const uint8_t[::1] is_word, Py_ssize_t lo_n, Py_ssize_t hi_n, tuple stop, int64_t n_features,
               tuple terms, const int64_t[::1] indptr, const int64_t[::1] cls, const double[::1] delta,
               const double[::1] base, const int64_t[::1] row, const double[:, ::1] rows, bint binary,
               double[:, ::1] out, int64_t[::1] last):
    """Rows ``d0:d1`` of text_pairs.score_pairs: out[d, c] += the weights of the known term
    occurrences of document d (each distinct term once when ``binary``, ``last[t]`` the last
    document that held t), then the base weights they owe."""
    cdef Walk W = walk_of(lo_n, hi_n, stop, n_features, terms)
    cdef bint simple = hi_n == 1 and W.n_stop == 0
    cdef Py_ssize_t K = out.shape[1], d, e0, i, j, ntok, count, m, c
    cdef int64_t t, known, mask = W.terms.n_slots // 2 - 1
    cdef Py_ssize_t n0, n1, n2, n3, q, ni, nj, before
    cdef bint ahead = n_features == 0
    cdef Py_ssize_t qi[AHEAD]
    cdef Py_ssize_t qj[AHEAD]
    cdef uint64_t qk[AHEAD]
    cdef bint qx[AHEAD]
    cdef int64_t qt[AHEAD]
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef const int64_t* B = &bounds[0]
    cdef const uint8_t* iw = &is_word[0]
    cdef const int64_t* ip = &indptr[0]
    cdef const int64_t* cl = &cls[0] if cls.shape[0] > 0 else NULL
    cdef const double* dl = &delta[0] if delta.shape[0] > 0 else NULL
    cdef const double* bs = &base[0] if base.shape[0] > 0 else NULL
    cdef const int64_t* rw = &row[0] if row.shape[0] > 0 else NULL
    cdef Py_ssize_t n_row = row.shape[0]
    cdef const double* rs = &rows[0, 0] if rows.shape[0] > 0 else NULL
    cdef int64_t* ls = &last[0]
    cdef double* o
    if d1 <= d0:
        return
    if base.shape[0] != K or (rows.shape[0] > 0 and rows.shape[1] != K):
        raise ValueError(f"score_rows: {base.shape[0]} base weights, rows of {rows.shape[1]}, for {K} classes")
    walk_scratch(&W)
    with nogil:
        for d in range(d0, d1):
            o = &out[d, 0]
            e0 = B[d + 1]
            ntok = 0
            known = 0
            i, j = next_token(b, B[d], e0, iw)
            if simple:  # in stages (see _words.pxd): key, slot -> term, its row -> weights, add
                n0 = n1 = n2 = n3 = 0
                while True:
                    if i < e0:
                        q = n0 & (AHEAD - 1)
                        if n_features > 0:
                            qt[q] = bucket(b, i, j, n_features)
                        else:
                            qi[q] = i
                            qj[q] = j
                            qk[q], qx[q] = term_key(b, i, j)
                            prefetch(&W.terms.slots[2 * home(qk[q], mask)])
                        n0 += 1
                        i, j = next_token(b, j, e0, iw)
                    if n1 < n0 and (i >= e0 or n0 - n1 > GAP):
                        q = n1 & (AHEAD - 1)
                        if n_features == 0:
                            qt[q] = W.terms.slots[2 * table_find(b, qi[q], qj[q], qk[q], qx[q], &W.terms) + 1]
                        t = qt[q]
                        if t >= 0:
                            if binary:
                                prefetch(&ls[t])
                            if n_row > 0:
                                prefetch(&rw[t])
                                prefetch(&ip[t])
                            else:
                                prefetch_span(rs + t * K, K * sizeof(double))
                        n1 += 1
                    if n2 < n1 and (i >= e0 or n1 - n2 > GAP):
                        q = n2 & (AHEAD - 1)
                        t = qt[q]
                        if t >= 0 and n_row > 0:
                            if rw[t] >= 0:
                                prefetch_span(rs + rw[t] * K, K * sizeof(double))
                            elif ip[t] < ip[t + 1]:
                                prefetch(&cl[ip[t]])
                                prefetch(&dl[ip[t]])
                        n2 += 1
                    if n3 < n2 and (i >= e0 or n2 - n3 > GAP):
                        t = qt[n3 & (AHEAD - 1)]
                        if t >= 0 and (not binary or ls[t] != d):
                            if binary:
                                ls[t] = d
                            known += add_term(o, t, ip, cl, dl, rw, n_row, rs, K)
                        n3 += 1
                    if i >= e0 and n3 == n0:
                        break
            else:
                unkeyed(&W)
                while i < e0:
                    ni, nj = next_token(b, j, e0, iw)
                    if ahead and ni < e0:
                        look_ahead(b, i, j, ni, nj, &W)
                    before = ntok
                    count = grams(b, i, j, &ntok, &W)
                    for m in range(count):
                        t = W.found[m]
                        if t >= 0 and (not binary or ls[t] != d):
                            if binary:
                                ls[t] = d
                            known += add_term(o, t, ip, cl, dl, rw, n_row, rs, K)
                    if ahead and ni < e0:
                        step(&W, ntok > before)
                    i = ni
                    j = nj
            for c in range(K):
                o[c] += known * bs[c]
        walk_free(&W)


cdef int _compare(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef inline void _sort(int32_t* a, Py_ssize_t n) noexcept nogil:
    """Sort a[0:n] ascending (insertion sort for the short rows most documents have)."""
    cdef Py_ssize_t k, m
    cdef int32_t v
    if n > 32:
        qsort(a, n, sizeof(int32_t), _compare)
        return
    for k in range(1, n):
        v = a[k]
        m = k - 1
        while m >= 0 and a[m] > v:
            a[m + 1] = a[m]
            m -= 1
        a[m + 1] = v


def presence_block(const cp_t[::1] buf, const int64_t[::1] bounds, const uint8_t[::1] is_word, Py_ssize_t lo_n,
                   Py_ssize_t hi_n, tuple stop, int64_t n_features, tuple terms, Py_ssize_t n_terms):
    """text_pairs.presence_rows of the documents ``bounds`` delimits, on the calling thread:
    (indptr, indices), per document its distinct known terms, sorted. ``indices`` grows (the
    GIL taken) before a document that could overflow it."""
    cdef Walk W = walk_of(lo_n, hi_n, stop, n_features, terms)
    cdef bint simple = hi_n == 1 and W.n_stop == 0
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1, d, e0, i, j, ntok, count, m, n = 0, r, room, cap, n0, n1, n3, q
    cdef Py_ssize_t ni, nj, before
    cdef bint ahead = n_features == 0
    cdef int64_t t, mask = W.terms.n_slots // 2 - 1
    cdef Py_ssize_t qi[AHEAD]
    cdef Py_ssize_t qj[AHEAD]
    cdef uint64_t qk[AHEAD]
    cdef bint qx[AHEAD]
    cdef int64_t qt[AHEAD]
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef const int64_t* B = &bounds[0]
    cdef const uint8_t* iw = &is_word[0]
    indptr_array = np.zeros(n_docs + 1, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_array
    indices_array = np.empty(max(1024, (B[n_docs] - B[0]) // 4), dtype=np.int32)
    cdef int32_t[::1] indices = indices_array
    cdef int32_t* ix = &indices[0]
    last_array = np.full(max(n_terms, 1), -1, dtype=np.int64)
    cdef int64_t[::1] last_mv = last_array
    cdef int64_t* ls = &last_mv[0]
    cap = indices.shape[0]
    walk_scratch(&W)
    try:
        with nogil:
            for d in range(n_docs):
                r = n
                e0 = B[d + 1]
                # at most a term per n-gram of a token (2 code points or more) of this document
                room = ((e0 - B[d]) // 2 + 1) * (1 if simple else hi_n - lo_n + 1)
                if n + room > cap:
                    with gil:
                        cap = max(2 * cap, n + room)
                        grown = np.empty(cap, dtype=np.int32)
                        grown[:n] = indices_array[:n]
                        indices_array = grown
                        indices = indices_array
                        ix = &indices[0]
                ntok = 0
                i, j = next_token(b, B[d], e0, iw)
                if simple:  # in stages (see _words.pxd): key, slot -> term, added
                    n0 = n1 = n3 = 0
                    while True:
                        if i < e0:
                            q = n0 & (AHEAD - 1)
                            if n_features > 0:
                                qt[q] = bucket(b, i, j, n_features)
                                prefetch(&ls[qt[q]])
                            else:
                                qi[q] = i
                                qj[q] = j
                                qk[q], qx[q] = term_key(b, i, j)
                                prefetch(&W.terms.slots[2 * home(qk[q], mask)])
                            n0 += 1
                            i, j = next_token(b, j, e0, iw)
                        if n1 < n0 and (i >= e0 or n0 - n1 > GAP):
                            q = n1 & (AHEAD - 1)
                            if n_features == 0:
                                qt[q] = W.terms.slots[2 * table_find(b, qi[q], qj[q], qk[q], qx[q], &W.terms) + 1]
                                if qt[q] >= 0:
                                    prefetch(&ls[qt[q]])
                            n1 += 1
                        if n3 < n1 and (i >= e0 or n1 - n3 > GAP):
                            t = qt[n3 & (AHEAD - 1)]
                            if t >= 0 and ls[t] != d:
                                ls[t] = d
                                ix[n] = <int32_t>t
                                n += 1
                            n3 += 1
                        if i >= e0 and n3 == n0:
                            break
                unkeyed(&W)
                while not simple and i < e0:
                    ni, nj = next_token(b, j, e0, iw)
                    if ahead and ni < e0:
                        look_ahead(b, i, j, ni, nj, &W)
                    before = ntok
                    count = grams(b, i, j, &ntok, &W)
                    for m in range(count):
                        t = W.found[m]
                        if t >= 0 and ls[t] != d:
                            ls[t] = d
                            ix[n] = <int32_t>t
                            n += 1
                    if ahead and ni < e0:
                        step(&W, ntok > before)
                    i = ni
                    j = nj
                _sort(ix + r, n - r)
                indptr[d + 1] = n
    finally:
        walk_free(&W)
    return indptr_array, indices_array[:n].copy()
