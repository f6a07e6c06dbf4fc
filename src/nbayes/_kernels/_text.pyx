# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""The word kernels: tokenise and look up (or learn) terms in one pass (compiled; see text.py,
whose docstring describes the tables; twins in text_twin.py)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

from nbayes._kernels._murmur cimport Murmur, bucket
from nbayes._kernels._murmur cimport murmur3 as c_murmur3
from nbayes._kernels._pairs cimport PARTS_MAX, PairTable, add, full, pair_of, pair_table, slot_room
from nbayes._kernels._table cimport cp_t, find, home, term_key
from nbayes._kernels._words cimport (AHEAD, GAP, Table, Walk, find_ids, gram_find, gram_find_ids, gram_key, grams,
                                     next_token, pair_key, prefetch, table_of, walk_free, walk_of, walk_scratch, word)


cdef inline int64_t* _i64(int64_t[::1] a) noexcept:
    return &a[0] if a.shape[0] > 0 else NULL


cdef inline double* _f64(double[::1] a) noexcept:
    return &a[0] if a.shape[0] > 0 else NULL


def murmur3(const cp_t[::1] buf, Py_ssize_t s, Py_ssize_t e):
    """MurmurHash3 (x86, 32 bit, seed 0) of the UTF-8 bytes of code points buf[s:e], as a signed
    32-bit integer: scikit-learn's ``murmurhash3_32(token)``, the hash of its HashingVectorizer."""
    if not 0 <= s <= e <= buf.shape[0]:
        raise IndexError(f"murmur3: span {s}:{e} outside a buffer of {buf.shape[0]}")
    if s == e:
        return c_murmur3(<const cp_t*>NULL, 0, 0)
    return c_murmur3(&buf[0], s, e)


def count_new(const int64_t[::1] slots, const int64_t[::1] start, const int64_t[::1] length,
              const uint32_t[::1] cps, const int64_t[::1] o_keys, const int64_t[::1] o_start,
              const int64_t[::1] o_length, const uint32_t[::1] o_cps, Py_ssize_t o_n_terms):
    """How many of another learner's terms this table lacks (what a merge will add)."""
    cdef Py_ssize_t u, new = 0
    cdef int64_t key, s, slot
    cdef const uint32_t* oc = &o_cps[0] if o_cps.shape[0] > 0 else NULL
    cdef const int64_t* st = &start[0] if start.shape[0] > 0 else NULL
    cdef const int64_t* ln = &length[0] if length.shape[0] > 0 else NULL
    cdef const uint32_t* cp = &cps[0] if cps.shape[0] > 0 else NULL
    with nogil:
        for u in range(o_n_terms):
            key = o_keys[u]
            s = o_start[u]
            slot = find(oc, s, s + o_length[u], <uint64_t>key, key < 0, &slots[0], slots.shape[0], st, ln, cp)
            if slots[2 * slot + 1] < 0:
                new += 1
    return new


def merge_learned(tuple terms, int64_t n_terms, int64_t n_cps, int64_t K, tuple pairs, int64_t n_pairs,
                  double[::1] df, double[::1] tf, tuple other, Py_ssize_t o_n_terms, tuple o_pairs,
                  Py_ssize_t o_n_pairs, const double[::1] o_df, const double[::1] o_tf, int32_t[:, ::1] parts,
                  const int32_t[:, ::1] o_parts, int64_t[::1] where, Py_ssize_t q0):
    """Add what another learner counted (its term table ``other``, pair table ``o_pairs`` and
    per-term df / tf, over other documents) to this one's, as if this one had counted those
    documents too: a term is found by its code points, or by the ids of its prefix and last
    word when both learners know them (``parts``, ``o_parts``: see _words.gram_find_ids;
    empty: not kept), new ones are appended. The caller has reserved room for all of the
    other's terms and code points.

    ``q0`` -1: the terms only (``where[u]`` becomes this table's id of the other's term u),
    then returns 0, so the caller can let the other's term arrays go; else the other's pairs
    from ``q0`` on (``where`` as the first call left it), stopping before a pair that could
    overflow a hashed pair table, so the caller grows it by what the pairs need, not by all
    of the other's. Returns (n_terms, n_cps, n_pairs, the pair to resume from or -1 when
    done)."""
    cdef int64_t[::1] slots = terms[0], keys = terms[1], start = terms[2], length = terms[3], last = terms[5]
    cdef uint32_t[::1] cps = terms[4]
    cdef const int64_t[::1] o_keys = other[1], o_start = other[2], o_length = other[3]
    cdef const uint32_t[::1] o_cps = other[4]
    cdef const int64_t[::1] o_pkeys = o_pairs[1]
    cdef const double[::1] o_pcount = o_pairs[2], o_pcdf = o_pairs[3]
    cdef PairTable P = pair_table(pairs[0], pairs[1], pairs[2], pairs[3], pairs[4])
    cdef Py_ssize_t n_parts = parts.shape[0]
    cdef int32_t* pp = &parts[0, 0] if n_parts > 0 else NULL
    cdef bint has_parts = n_parts > 0
    cdef bint by_ids = has_parts and o_parts.shape[0] > 0 and n_parts < PARTS_MAX
    cdef bint o_dense = len(o_pairs[0]) == 0
    cdef int64_t* S = &slots[0]
    cdef int64_t* st = _i64(start)
    cdef int64_t* ln = _i64(length)
    cdef uint32_t* cp = &cps[0] if cps.shape[0] > 0 else NULL
    cdef const uint32_t* oc = &o_cps[0] if o_cps.shape[0] > 0 else NULL
    cdef Py_ssize_t u, q, n_q, k, stop = -1
    cdef int64_t key, s, e, pre, word, slot, t, p
    cdef bint hashed = P.n_slots > 0
    if where.shape[0] < o_n_terms:
        raise ValueError(f"merge_learned: where holds {where.shape[0]} terms, the other learner {o_n_terms}")
    with nogil:
        for u in range(o_n_terms if q0 < 0 else 0):
            key = o_keys[u]
            s = o_start[u]
            e = s + o_length[u]
            pre = -1
            word = -1
            if by_ids and o_parts[u, 0] >= 0:  # its prefix and word come before it: already placed
                pre = where[o_parts[u, 0]]
                word = where[o_parts[u, 1]]
                slot = find_ids(oc, s, e, <uint64_t>key, key < 0, pre, word, S, slots.shape[0], st, ln, cp, pp, 4)
            else:
                slot = find(oc, s, e, <uint64_t>key, key < 0, S, slots.shape[0], st, ln, cp)
            t = S[2 * slot + 1]
            if t < 0:  # a term the other learner alone saw
                t = n_terms
                n_terms += 1
                S[2 * slot] = key
                S[2 * slot + 1] = t
                keys[t] = key
                st[t] = n_cps
                ln[t] = e - s
                last[t] = -1
                if has_parts:
                    pp[4 * t] = <int32_t>pre
                    pp[4 * t + 1] = <int32_t>word
                    pp[4 * t + 2] = -1
                for k in range(e - s):
                    cp[n_cps + k] = oc[s + k]
                n_cps += e - s
            df[t] += o_df[u]
            tf[t] += o_tf[u]
            where[u] = t
        n_q = o_n_terms * K if o_dense else o_n_pairs
        if q0 < 0:
            n_q = 0
            stop = 0
        for q in range(q0 if q0 > 0 else 0, n_q):
            key = q if o_dense else o_pkeys[q]
            if o_dense and o_pcount[q] == 0 and o_pcdf[q] == 0:
                continue  # a pair the other learner never saw
            if hashed and full(&P, n_pairs, n_terms, 1, K):
                stop = q
                break
            p, n_pairs = pair_of(where[key // K], key % K, K, &P, n_pairs, pp, n_parts)
            P.count[p] += o_pcount[q]
            P.cdf[p] += o_pcdf[q]
    return n_terms, n_cps, n_pairs, stop


cdef inline void _rehash(int64_t* slots, Py_ssize_t n_slots, const int64_t* keys, Py_ssize_t n_terms) noexcept nogil:
    cdef int64_t mask = n_slots // 2 - 1, i
    cdef Py_ssize_t t
    for t in range(n_terms):
        i = home(<uint64_t>keys[t], mask)
        while slots[2 * i + 1] >= 0:
            i = (i + 1) & mask
        slots[2 * i] = keys[t]
        slots[2 * i + 1] = t


def rehash(int64_t[::1] slots, const int64_t[::1] keys, Py_ssize_t n_terms):
    """Re-insert terms 0..n_terms-1 into a larger, empty table."""
    if n_terms == 0:
        return
    with nogil:
        _rehash(&slots[0], slots.shape[0], &keys[0], n_terms)


def rehash_pairs(int64_t[::1] slots, const int64_t[::1] keys, Py_ssize_t n_pairs, int64_t K,
                 const int32_t[:, ::1] parts):
    """Re-insert pairs 0..n_pairs-1 (keys t * K + c) into a larger, empty pair table, but for
    the first pair of each term, kept in its row of ``parts`` (_pairs.pair_of). Returns the
    number of pairs put in the slots."""
    cdef int64_t mask = slots.shape[0] // 2 - 1, i, key, t
    cdef Py_ssize_t p, used = 0
    cdef bint has_parts = parts.shape[0] > 0
    with nogil:
        for p in range(n_pairs):
            key = keys[p]
            t = key // K
            if has_parts and parts[t, 2] == key % K and parts[t, 3] == p:
                continue
            i = home(<uint64_t>key, mask)
            while slots[2 * i + 1] >= 0:
                i = (i + 1) & mask
            slots[2 * i] = key
            slots[2 * i + 1] = p
            used += 1
    return used


def build(const cp_t[::1] cps, const int64_t[::1] start, const int64_t[::1] length, int64_t[::1] slots,
          int64_t[::1] keys):
    """A table over a given vocabulary: term t is cps[start[t]:start[t] + length[t]]."""
    cdef Py_ssize_t t, n = start.shape[0]
    cdef uint64_t key
    cdef bint exact
    cdef const cp_t* c = &cps[0] if cps.shape[0] > 0 else NULL
    if n == 0:
        return
    with nogil:
        for t in range(n):
            key, exact = term_key(c, start[t], start[t] + length[t])
            keys[t] = <int64_t>key
        _rehash(&slots[0], slots.shape[0], &keys[0], n)


cdef inline (int64_t, int64_t) _insert(const cp_t* buf, const int64_t* ring, Py_ssize_t hi, Py_ssize_t ntok,
                                       Py_ssize_t n, int64_t slot, uint64_t key, int64_t* slots, int64_t* keys,
                                       int64_t* start, int64_t* length, uint32_t* cps, int64_t n_terms,
                                       int64_t n_cps, int64_t* last) noexcept nogil:
    """Add the n-gram ending at kept token ntok - 1 as a new term in the empty ``slot``:
    (its id, n_cps)."""
    cdef int64_t t = n_terms
    cdef Py_ssize_t m, q, r
    slots[2 * slot] = <int64_t>key
    slots[2 * slot + 1] = t
    keys[t] = <int64_t>key
    start[t] = n_cps
    for m in range(n):
        q = (ntok - n + m) % hi
        if m > 0:
            cps[n_cps] = 32
            n_cps += 1
        for r in range(ring[2 * q], ring[2 * q + 1]):
            cps[n_cps] = buf[r]
            n_cps += 1
    length[t] = n_cps - start[t]
    last[t] = -1
    return t, n_cps


def learn_counts(const cp_t[::1] buf, const int64_t[::1] bounds, Py_ssize_t doc0, const int64_t[:] codes,
                 const double[:] w, bint has_w, const uint8_t[::1] is_word, Py_ssize_t lo_n, Py_ssize_t hi_n,
                 tuple stop, tuple terms, int64_t n_terms, int64_t n_cps, int64_t K, tuple pairs, int64_t n_pairs,
                 double[::1] df, double[::1] tf, parts=None):
    """Tokenise documents doc0.., drop stop words, form the word n-grams lo_n..hi_n of what is
    left (scikit-learn's order of operations) and count, per term t (new terms are added to the
    table ``terms = (slots, keys, start, length, cps, last)``) and class c of the K, on the pair
    (t, c) of the pair table ``pairs`` (see _pairs.add): the weighted occurrences and the
    weighted documents containing t; and df[t] / tf[t] the unweighted documents containing t /
    occurrences. ``last`` holds, per term, the last document that counted it. ``parts`` (terms
    x 4, int32, kept by the learner; None: none kept): per n-gram its prefix and last word ids,
    by which an n-gram is found when ``lo_n == 1`` and recorded for its new terms; per term its
    first pair (see _pairs.pair_of).

    Stops before a document that could overflow a table or array and returns
    (next document, n_terms, n_cps, n_pairs) so the caller can grow them and resume."""
    cdef int64_t[::1] slots = terms[0], keys = terms[1], start = terms[2], length = terms[3], last = terms[5]
    cdef uint32_t[::1] cps = terms[4]
    cdef int32_t[:, ::1] parts_mv = np.full((0, 4), -1, dtype=np.int32) if parts is None else parts
    cdef Table stop_table = table_of(stop)
    cdef Py_ssize_t n_stop = len(stop[1])
    cdef PairTable P = pair_table(pairs[0], pairs[1], pairs[2], pairs[3], pairs[4])
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1, n_slots = slots.shape[0], half = slot_room(slots.shape[0])
    cdef Py_ssize_t n_keys = keys.shape[0], cps_cap = cps.shape[0], n_parts = parts_mv.shape[0]
    cdef bint simple = hi_n == 1 and n_stop == 0
    cdef bint has_parts = n_parts > 0
    cdef bint by_ids = has_parts and lo_n == 1 and n_parts < PARTS_MAX  # ids < len(parts) fit in int32
    cdef Py_ssize_t span = 0, n, d, s0, e0, room, i, j, ntok, q0, p, total, h = hi_n if hi_n > 0 else 1
    cdef int64_t c, slot, t, pre, word
    cdef double wd
    cdef uint64_t key, key1
    cdef bint exact, exact1
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef const int64_t* B = &bounds[0]
    cdef const uint8_t* iw = &is_word[0]
    cdef int64_t* S = &slots[0]
    cdef int64_t* ky = _i64(keys)
    cdef int64_t* st = _i64(start)
    cdef int64_t* ln = _i64(length)
    cdef int64_t* ls = _i64(last)
    cdef uint32_t* cp = &cps[0] if cps_cap > 0 else NULL
    cdef int32_t* pp = &parts_mv[0, 0] if has_parts else NULL
    cdef double* dfp = _f64(df)
    cdef double* tfp = _f64(tf)
    cdef int64_t* ring
    cdef int64_t* tid
    cdef Py_ssize_t result = n_docs
    cdef int64_t mask = n_slots // 2 - 1, pmask = P.n_slots // 2 - 1
    cdef Py_ssize_t n0, n1, n2, n3, q
    cdef Py_ssize_t qi[AHEAD]
    cdef Py_ssize_t qj[AHEAD]
    cdef uint64_t qk[AHEAD]
    cdef bint qx[AHEAD]
    cdef int64_t qt[AHEAD]
    cdef int64_t qp[AHEAD]
    cdef Py_ssize_t ni, nj, total2 = 0, next_total2 = 0
    cdef uint64_t key2 = 0, next_key1 = 0, next_key2 = 0
    cdef bint exact2 = False, next_exact1 = False, next_exact2 = False, keyed, paired, kept
    cdef bint want_pairs = lo_n <= 2 <= hi_n
    for n in range(lo_n, hi_n + 1):
        span += 2 * n
    ring = <int64_t*>malloc((2 * h + h * h) * sizeof(int64_t))
    if ring == NULL:
        raise MemoryError()
    tid = ring + 2 * h
    with nogil:
        for d in range(doc0, n_docs):
            s0 = B[d]
            e0 = B[d + 1]
            room = ((e0 - s0) // 2 + 1) * (hi_n - lo_n + 1)
            if (n_terms + room > half or n_terms + room > n_keys or n_cps + span * (e0 - s0) > cps_cap
                    or (has_parts and n_terms + room > n_parts) or full(&P, n_pairs, n_terms, room, K)):
                result = d
                break
            c = codes[d]
            wd = w[d] if has_w else 1.0
            ntok = 0
            i, j = next_token(b, s0, e0, iw)
            if simple:  # single words, no stop list: in stages (see _words.pxd)
                n0 = n1 = n2 = n3 = 0
                while True:
                    if i < e0:  # its key; its home slot prefetched
                        q = n0 & (AHEAD - 1)
                        qi[q] = i
                        qj[q] = j
                        qk[q], qx[q] = term_key(b, i, j)
                        prefetch(&S[2 * home(qk[q], mask)])
                        n0 += 1
                        i, j = next_token(b, j, e0, iw)
                    if n1 < n0 and (i >= e0 or n0 - n1 > GAP):  # its term, added when new
                        q = n1 & (AHEAD - 1)
                        slot = find(b, qi[q], qj[q], qk[q], qx[q], S, n_slots, st, ln, cp)
                        t = S[2 * slot + 1]
                        if t < 0:
                            t = n_terms
                            n_terms += 1
                            S[2 * slot] = <int64_t>qk[q]
                            S[2 * slot + 1] = t
                            ky[t] = <int64_t>qk[q]
                            st[t] = n_cps
                            for p in range(qi[q], qj[q]):
                                cp[n_cps] = b[p]
                                n_cps += 1
                            ln[t] = qj[q] - qi[q]
                            ls[t] = -1
                            if has_parts:
                                pp[4 * t] = -1
                                pp[4 * t + 1] = -1
                                pp[4 * t + 2] = -1
                        qt[q] = t
                        if has_parts:
                            prefetch(&pp[4 * t])
                        prefetch(&ls[t])
                        if P.n_slots == 0:
                            prefetch(&P.count[t * K + c])
                            prefetch(&P.cdf[t * K + c])
                        else:
                            prefetch(&P.slots[2 * home(<uint64_t>(t * K + c), pmask)])
                        n1 += 1
                    if n2 < n1 and (i >= e0 or n1 - n2 > GAP):  # its pair (t, c), added when new
                        q = n2 & (AHEAD - 1)
                        qp[q], n_pairs = pair_of(qt[q], c, K, &P, n_pairs, pp, n_parts)
                        prefetch(&P.count[qp[q]])
                        prefetch(&P.cdf[qp[q]])
                        n2 += 1
                    if n3 < n2 and (i >= e0 or n2 - n3 > GAP):  # counted (_pairs.add)
                        q = n3 & (AHEAD - 1)
                        t = qt[q]
                        P.count[qp[q]] += wd
                        tfp[t] += 1.0
                        if ls[t] != d:
                            ls[t] = d
                            P.cdf[qp[q]] += wd
                            dfp[t] += 1.0
                        n3 += 1
                    if i >= e0 and n3 == n0:
                        break
            else:  # n-grams, stop words: the next token and bigram keyed a token ahead, their slots prefetched
                keyed = False
                paired = False
                while i < e0:
                    if keyed:
                        key1 = next_key1
                        exact1 = next_exact1
                    else:
                        key1, exact1 = term_key(b, i, j)
                    ni, nj = next_token(b, j, e0, iw)
                    if ni < e0:
                        next_key1, next_exact1 = term_key(b, ni, nj)
                        prefetch(&S[2 * home(next_key1, mask)])
                        if want_pairs:
                            next_key2, next_exact2, next_total2 = pair_key(b, i, j, ni, nj)
                            prefetch(&S[2 * home(next_key2, mask)])
                    kept = n_stop == 0 or stop_table.slots[2 * find(b, i, j, key1, exact1, stop_table.slots,
                                                                     stop_table.n_slots, stop_table.start,
                                                                     stop_table.length, stop_table.cps) + 1] < 0
                    if kept:
                        q0 = ntok % hi_n
                        ring[2 * q0] = i
                        ring[2 * q0 + 1] = j
                        ntok += 1
                        for n in range(lo_n, (hi_n if hi_n < ntok else ntok) + 1):
                            pre = -1
                            word = -1
                            if n == 1:
                                slot = find(b, i, j, key1, exact1, S, n_slots, st, ln, cp)
                                key = key1
                            else:
                                if n == 2 and paired:  # keyed a token ago
                                    key = key2
                                    exact = exact2
                                    total = total2
                                else:
                                    key, exact, total = gram_key(b, ring, hi_n, ntok - 1, n)
                                if by_ids:
                                    pre = tid[((ntok - 2) % hi_n) * h + n - 2]
                                    word = tid[q0 * h]
                                    slot = gram_find_ids(b, ring, hi_n, ntok - 1, n, key, exact, total, pre, word,
                                                         S, n_slots, st, ln, cp, pp, 4)
                                else:
                                    slot = gram_find(b, ring, hi_n, ntok - 1, n, key, exact, total, S, n_slots, st,
                                                     ln, cp)
                            t = S[2 * slot + 1]
                            if t < 0:
                                t, n_cps = _insert(b, ring, hi_n, ntok, n, slot, key, S, ky, st, ln, cp, n_terms,
                                                   n_cps, ls)
                                n_terms += 1
                                if has_parts:
                                    pp[4 * t] = <int32_t>pre
                                    pp[4 * t + 1] = <int32_t>word
                                    pp[4 * t + 2] = -1
                            tid[q0 * h + n - 1] = t
                            n_pairs = add(t, c, K, wd, d, &P, n_pairs, dfp, tfp, ls, pp, n_parts)
                    # the bigram keyed ahead is the next token's when this one is kept
                    keyed = ni < e0
                    paired = keyed and want_pairs and kept
                    key2 = next_key2
                    exact2 = next_exact2
                    total2 = next_total2
                    i = ni
                    j = nj
    free(ring)
    return result, n_terms, n_cps, n_pairs


def hash_counts(const cp_t[::1] buf, const int64_t[::1] bounds, const int64_t[:] codes, const double[:] w,
                bint has_w, const uint8_t[::1] is_word, Py_ssize_t lo_n, Py_ssize_t hi_n, tuple stop,
                int64_t n_features, double[:, :] counts, double[:, :] cdf, double[::1] df, double[::1] tf,
                int64_t[::1] last):
    """Hashing mode of :func:`learn_counts`: the term of an n-gram is its bucket; nothing grows.
    The tables are laid out class-major, counts[c, t], as the statistics keep them."""
    cdef Walk W = walk_of(lo_n, hi_n, stop, n_features, _NO_TABLE)
    cdef bint simple = hi_n == 1 and W.n_stop == 0
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1, d, e0, i, j, ntok, count, m, n0, n3
    cdef int64_t c, t
    cdef int64_t qt[AHEAD]
    cdef double wd
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef const int64_t* B = &bounds[0]
    cdef const uint8_t* iw = &is_word[0]
    cdef double* dfp = _f64(df)
    cdef double* tfp = _f64(tf)
    cdef int64_t* ls = _i64(last)
    walk_scratch(&W)
    with nogil:
        for d in range(n_docs):
            e0 = B[d + 1]
            c = codes[d]
            wd = w[d] if has_w else 1.0
            ntok = 0
            i, j = next_token(b, B[d], e0, iw)
            if simple:  # single words, no stop list: the bucket, its counts prefetched GAP tokens ahead
                n0 = n3 = 0
                while True:
                    if i < e0:
                        t = bucket(b, i, j, n_features)
                        qt[n0 & (AHEAD - 1)] = t
                        prefetch(&counts[c, t])
                        prefetch(&cdf[c, t])
                        prefetch(&tfp[t])
                        prefetch(&ls[t])
                        prefetch(&dfp[t])
                        n0 += 1
                        i, j = next_token(b, j, e0, iw)
                    if n3 < n0 and (i >= e0 or n0 - n3 > GAP):
                        t = qt[n3 & (AHEAD - 1)]
                        counts[c, t] += wd
                        tfp[t] += 1.0
                        if ls[t] != d:
                            ls[t] = d
                            cdf[c, t] += wd
                            dfp[t] += 1.0
                        n3 += 1
                    if i >= e0 and n3 == n0:
                        break
            while not simple and i < e0:
                count = grams(b, i, j, &ntok, &W)
                for m in range(count):
                    t = W.found[m]
                    counts[c, t] += wd
                    tfp[t] += 1.0
                    if ls[t] != d:
                        ls[t] = d
                        cdf[c, t] += wd
                        dfp[t] += 1.0
                i, j = next_token(b, j, e0, iw)
        walk_free(&W)


#: hashing mode's term table: none (the walker reads only its stop table and n_features)
_NONE_I = np.zeros(0, dtype=np.int64)
_NO_TABLE = (np.full(2, -1, dtype=np.int64), _NONE_I, _NONE_I, _NONE_I, np.zeros(0, dtype=np.uint32), _NONE_I,
             np.full((0, 2), -1, dtype=np.int32), False)


def term_ids(const cp_t[::1] buf, const int64_t[::1] bounds, const uint8_t[::1] is_word, Py_ssize_t lo_n,
             Py_ssize_t hi_n, tuple stop, int64_t n_features, tuple terms):
    """Every term occurrence as (document, term or -1, start, end within the document), in
    order of the last token of each n-gram, shorter n-grams first: counted in a first pass
    (tokens kept), listed in a second."""
    cdef Walk W = walk_of(lo_n, hi_n, stop, n_features, terms)
    cdef bint simple = hi_n == 1 and W.n_stop == 0
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1, d, e0, i, j, ntok, count, k, n_out = 0, more
    cdef uint64_t key
    cdef bint exact
    cdef int64_t first
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef const int64_t* B = &bounds[0]
    cdef const uint8_t* iw = &is_word[0]
    with nogil:
        for d in range(n_docs):
            e0 = B[d + 1]
            ntok = 0
            i, j = next_token(b, B[d], e0, iw)
            while i < e0:
                if W.n_stop > 0:
                    key, exact = term_key(b, i, j)
                    if W.stop.slots[2 * find(b, i, j, key, exact, W.stop.slots, W.stop.n_slots, W.stop.start,
                                             W.stop.length, W.stop.cps) + 1] >= 0:
                        i, j = next_token(b, j, e0, iw)
                        continue
                ntok += 1
                more = (hi_n if hi_n < ntok else ntok) - lo_n + 1
                if more > 0:
                    n_out += more
                i, j = next_token(b, j, e0, iw)
    out_array = np.empty((n_out, 4), dtype=np.int64)
    cdef int64_t[:, ::1] out = out_array
    if n_out == 0:
        return out_array
    walk_scratch(&W)
    n_out = 0
    with nogil:
        for d in range(n_docs):
            e0 = B[d + 1]
            ntok = 0
            i, j = next_token(b, B[d], e0, iw)
            while i < e0:
                if simple:
                    out[n_out, 0] = d
                    out[n_out, 1] = word(b, i, j, n_features, &W.terms)
                    out[n_out, 2] = i - B[d]
                    out[n_out, 3] = j - B[d]
                    n_out += 1
                else:
                    count = grams(b, i, j, &ntok, &W)
                    for k in range(count):
                        first = W.ring[2 * ((ntok - lo_n - k) % hi_n)]
                        out[n_out, 0] = d
                        out[n_out, 1] = W.found[k]
                        out[n_out, 2] = first - B[d]
                        out[n_out, 3] = j - B[d]
                        n_out += 1
                i, j = next_token(b, j, e0, iw)
        walk_free(&W)
    return out_array


# ------------------------------------------------------------------ for the tests (test_gram_parts)

def gram_key_of(const cp_t[::1] buf, const int64_t[:, ::1] ring, Py_ssize_t hi, Py_ssize_t last, Py_ssize_t n):
    """_words.gram_key of the n-gram of kept tokens last-n+1..last: (key, exact, total)."""
    cdef uint64_t key
    cdef bint exact
    cdef Py_ssize_t total
    key, exact, total = gram_key(&buf[0], &ring[0, 0], hi, last, n)
    return np.uint64(key), bool(exact), total


def gram_find_ids_of(const cp_t[::1] buf, const int64_t[:, ::1] ring, Py_ssize_t hi, Py_ssize_t last, Py_ssize_t n,
                     uint64_t key, bint exact, Py_ssize_t total, int64_t pre, int64_t word,
                     const int64_t[::1] slots, const int64_t[::1] start, const int64_t[::1] length,
                     const uint32_t[::1] cps, const int32_t[:, ::1] parts):
    """_words.gram_find_ids: the slot holding the n-gram, or the empty one where it would go."""
    return gram_find_ids(&buf[0], &ring[0, 0], hi, last, n, key, exact, total, pre, word, &slots[0],
                         slots.shape[0], &start[0], &length[0], &cps[0], &parts[0, 0], parts.shape[1])
