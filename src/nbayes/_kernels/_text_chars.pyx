# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Character n-gram kernels (compiled; see text_chars.py): scikit-learn's ``analyzer="char"``
and ``"char_wb"`` grams counted, hashed, scored and listed in one pass over the code point
buffer. Arithmetic here never meets a negative operand of ``%`` or ``//``."""

import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from nbayes._kernels._murmur cimport bucket
from nbayes._kernels._omp cimport omp_get_max_threads, omp_get_thread_num
from nbayes._kernels._pairs cimport PairTable, add, add_term, full, pair_table, slot_room
from nbayes._kernels._table cimport cp_t, find, term_key


cdef struct Terms:
    # a term table's arrays as the lookups read them (see _table.pxd)
    const int64_t* slots
    Py_ssize_t n_slots
    const int64_t* start
    const int64_t* length
    const uint32_t* cps


cdef struct Grams:
    # what every pass over the grams shares: the whitespace table and the analyzer
    const uint8_t* is_space
    int64_t lo
    int64_t hi
    bint wb
    int64_t n_features  # > 0: hashing mode, a gram's term is its bucket


cdef struct Weights:
    # the weights score_pairs adds up (see _pairs.add_term) and its output
    const int64_t* indptr
    const int64_t* cls
    const double* delta
    const double* base
    const int64_t* row
    Py_ssize_t n_row
    const double* rows
    Py_ssize_t K
    double* out
    bint binary


cdef Terms _terms(tuple terms):
    """The pointers of the term table ``terms`` (slots, _, start, length, cps, ...): the caller
    keeps the arrays (as the tuple)."""
    cdef const int64_t[::1] slots = terms[0]
    cdef const int64_t[::1] start = terms[2]
    cdef const int64_t[::1] length = terms[3]
    cdef const uint32_t[::1] cps = terms[4]
    cdef Terms T
    T.slots = &slots[0] if slots.shape[0] > 0 else NULL
    T.n_slots = slots.shape[0]
    T.start = &start[0] if start.shape[0] > 0 else NULL
    T.length = &length[0] if length.shape[0] > 0 else NULL
    T.cps = &cps[0] if cps.shape[0] > 0 else NULL
    return T


cdef Grams _grams(const uint8_t[::1] is_space, int64_t lo_n, int64_t hi_n, bint wb, int64_t n_features):
    """The settings every pass over the grams shares (the caller keeps ``is_space``)."""
    cdef Grams G
    G.is_space = &is_space[0]
    G.lo = lo_n
    G.hi = hi_n
    G.wb = wb
    G.n_features = n_features
    return G


cdef inline (int64_t, int64_t) _room(int64_t chars, int64_t lo, int64_t hi, bint wb) noexcept nogil:
    cdef int64_t width = 2 * chars + 2 if wb else chars
    cdef int64_t grams = 0, cps = 0, n
    for n in range(lo, hi + 1):
        grams += width
        cps += width * n
    return grams, cps


def room(int64_t chars, int64_t lo, int64_t hi, bint wb):
    """(terms, code points) a document of ``chars`` code points can add at most: per n, one
    gram per position of the text (``char``) or of its padded words (``char_wb``: a word and
    its two spaces, at most 2 chars + 2 in all). The learner reserves this much before
    :func:`learn_counts` resumes on a document."""
    return _room(chars, lo, hi, wb)


cdef inline Py_ssize_t _normalise(const cp_t* buf, int64_t s0, int64_t e0, const uint8_t* is_space, bint wb,
                                  cp_t* norm, int64_t* ps, int64_t* pe, int64_t* seg) noexcept nogil:
    """Write document buf[s0:e0] into ``norm`` as the analyzer sees it (see text_chars.py) and
    its segments' bounds into ``seg``; ``ps[k]:pe[k]`` is the span of the document (offsets from
    s0) that norm[k] stands for, written only when ``ps`` is not NULL (a collapsed whitespace
    run: the whole run; a padding space: the empty span at its word's edge). Returns the number
    of segments."""
    cdef Py_ssize_t n = 0, n_seg = 0
    cdef int64_t p, q
    cdef cp_t c
    cdef bint spans = ps != NULL
    if not wb:
        p = s0
        while p < e0:
            c = buf[p]
            if is_space[c] != 0:
                q = p + 1
                while q < e0 and is_space[buf[q]] != 0:
                    q += 1
                norm[n] = 32 if q - p >= 2 else c
                if spans:
                    ps[n] = p - s0
                    pe[n] = q - s0
                n += 1
                p = q
            else:
                norm[n] = c
                if spans:
                    ps[n] = p - s0
                    pe[n] = p + 1 - s0
                n += 1
                p += 1
        seg[0] = 0
        seg[1] = n
        return 1
    seg[0] = 0
    p = s0
    while p < e0:
        if is_space[buf[p]] != 0:
            p += 1
            continue
        q = p
        norm[n] = 32
        if spans:
            ps[n] = p - s0
            pe[n] = p - s0
        n += 1
        while q < e0 and is_space[buf[q]] == 0:
            norm[n] = buf[q]
            if spans:
                ps[n] = q - s0
                pe[n] = q + 1 - s0
            n += 1
            q += 1
        norm[n] = 32
        if spans:
            ps[n] = q - s0
            pe[n] = q - s0
        n += 1
        n_seg += 1
        seg[n_seg] = n
        p = q
    return n_seg


# The grams of a normalised document, in scikit-learn's order, are walked by the same loops in
# every kernel (a gram is norm[s:s + m]):
#
#     for g in range(n_seg):
#         a = seg[g]; L = seg[g + 1] - a
#         for n in range(lo, hi + 1):
#             m, stop = _width(L, n, wb, a)
#             if m < 0: break
#             for s in range(a, stop): ...gram norm[s:s + m]...
#             if wb and n >= L: break
#
# ``char``: per n up to the segment's length, every offset; ``char_wb``: once n reaches the
# padded word's length, the padded word itself once and no longer n.

cdef inline (Py_ssize_t, Py_ssize_t) _width(Py_ssize_t L, int64_t n, bint wb, Py_ssize_t a) noexcept nogil:
    """(length, end of the starts) of the grams of length ``n`` of a segment of length ``L``
    starting at ``a``; length -1: none, nor for any longer n."""
    if wb and n >= L:
        return L, a + 1
    if n > L:
        return -1, a
    return <Py_ssize_t>n, a + L - <Py_ssize_t>n + 1


cdef inline int64_t _lookup(const cp_t* norm, Py_ssize_t s, Py_ssize_t e, const Grams* G,
                            const Terms* tt) noexcept nogil:
    """The term of the gram norm[s:e]: its bucket, or its id (-1 when unknown)."""
    cdef uint64_t key
    cdef bint exact
    if G.n_features > 0:
        return bucket(norm, s, e, G.n_features)
    key, exact = term_key(norm, s, e)
    return tt.slots[2 * find(norm, s, e, key, exact, tt.slots, tt.n_slots, tt.start, tt.length, tt.cps) + 1]


cdef int64_t _longest(const int64_t[::1] bounds, Py_ssize_t d0, Py_ssize_t d1):
    cdef int64_t longest = 0
    cdef Py_ssize_t d
    for d in range(d0, d1):
        if bounds[d + 1] - bounds[d] > longest:
            longest = bounds[d + 1] - bounds[d]
    return longest


cdef object _dtype(const cp_t[::1] buf):
    """The dtype of scratch holding the code points of ``buf`` (its own)."""
    return np.uint8 if sizeof(cp_t) == 1 else np.uint32


def learn_counts(const cp_t[::1] buf, const int64_t[::1] bounds, int64_t doc0, const int64_t[::1] codes,
                 const double[::1] w, bint has_w, const uint8_t[::1] is_space, int64_t lo_n, int64_t hi_n, bint wb,
                 tuple terms, int64_t n_terms, int64_t n_cps, int64_t K, tuple pairs, int64_t n_pairs,
                 double[::1] df, double[::1] tf, int32_t[:, ::1] parts):
    """:func:`nbayes._kernels.text.learn_counts` for character n-grams: count every gram of
    documents doc0.. per (term, class) pair, adding new terms to the table ``terms`` (slots,
    keys, start, length, cps, last). Stops before a document that could overflow a table (see
    :func:`room`) and returns (next document, n_terms, n_cps, n_pairs). ``parts``: per term its
    first pair (see :func:`nbayes._kernels.text._pair_of`; the gram columns unused)."""
    cdef int64_t[::1] slots_v = terms[0]
    cdef int64_t[::1] keys_v = terms[1]
    cdef int64_t[::1] start_v = terms[2]
    cdef int64_t[::1] length_v = terms[3]
    cdef uint32_t[::1] cps_v = terms[4]
    cdef int64_t[::1] last_v = terms[5]
    cdef PairTable P = pair_table(pairs[0], pairs[1], pairs[2], pairs[3], pairs[4])
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1
    cdef int64_t half = slot_room(slots_v.shape[0])
    cdef Py_ssize_t n_keys = keys_v.shape[0], cap_cps = cps_v.shape[0], n_parts = parts.shape[0]
    cdef int64_t longest = _longest(bounds, doc0, n_docs) if doc0 < n_docs else 0
    norm_a = np.empty(2 * longest + 2, dtype=_dtype(buf))
    seg_a = np.zeros(longest + 2, dtype=np.int64)
    cdef cp_t[::1] norm_v = norm_a
    cdef int64_t[::1] seg_v = seg_a
    cdef cp_t* norm = &norm_v[0]
    cdef int64_t* seg = &seg_v[0]
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef int64_t* slots = &slots_v[0]
    cdef int64_t* keys = &keys_v[0] if n_keys > 0 else NULL
    cdef int64_t* start = &start_v[0] if start_v.shape[0] > 0 else NULL
    cdef int64_t* length = &length_v[0] if length_v.shape[0] > 0 else NULL
    cdef uint32_t* cps = &cps_v[0] if cap_cps > 0 else NULL
    cdef int64_t* last = &last_v[0] if last_v.shape[0] > 0 else NULL
    cdef int32_t* pp = &parts[0, 0] if n_parts > 0 else NULL
    cdef double* dfp = &df[0] if df.shape[0] > 0 else NULL
    cdef double* tfp = &tf[0] if tf.shape[0] > 0 else NULL
    cdef const uint8_t* space = &is_space[0]
    cdef Py_ssize_t n_slots = slots_v.shape[0], d, n_seg, g, a, L, s, stop, m, k
    cdef int64_t s0, e0, grams, chars, c, t, n
    cdef double wd
    cdef uint64_t key
    cdef bint exact
    cdef int64_t slot
    cdef Py_ssize_t nxt = n_docs
    with nogil:
        for d in range(doc0, n_docs):
            s0 = bounds[d]
            e0 = bounds[d + 1]
            grams, chars = _room(e0 - s0, lo_n, hi_n, wb)
            if (n_terms + grams > half or n_terms + grams > n_keys or n_cps + chars > cap_cps
                    or full(&P, n_pairs, n_terms, grams, K)):
                nxt = d
                break
            c = codes[d]
            wd = w[d] if has_w else 1.0
            n_seg = _normalise(b, s0, e0, space, wb, norm, NULL, NULL, seg)
            for g in range(n_seg):
                a = seg[g]
                L = seg[g + 1] - a
                for n in range(lo_n, hi_n + 1):
                    m, stop = _width(L, n, wb, a)
                    if m < 0:
                        break
                    for s in range(a, stop):
                        key, exact = term_key(norm, s, s + m)
                        slot = find(norm, s, s + m, key, exact, slots, n_slots, start, length, cps)
                        t = slots[2 * slot + 1]
                        if t < 0:  # a new term in the empty slot
                            t = n_terms
                            slots[2 * slot] = <int64_t>key
                            slots[2 * slot + 1] = t
                            keys[t] = <int64_t>key
                            start[t] = n_cps
                            for k in range(s, s + m):
                                cps[n_cps] = norm[k]
                                n_cps += 1
                            length[t] = m
                            last[t] = -1
                            n_terms += 1
                            if n_parts > 0:  # a character n-gram has no parts; no first pair yet
                                pp[4 * t] = -1
                                pp[4 * t + 1] = -1
                                pp[4 * t + 2] = -1
                        n_pairs = add(t, c, K, wd, d, &P, n_pairs, dfp, tfp, last, pp, n_parts)
                    if wb and n >= L:
                        break
    return nxt, n_terms, n_cps, n_pairs


def hash_counts(const cp_t[::1] buf, const int64_t[::1] bounds, const int64_t[::1] codes, const double[::1] w,
                bint has_w, const uint8_t[::1] is_space, int64_t lo_n, int64_t hi_n, bint wb, int64_t n_features,
                double[:, :] counts, double[:, :] cdf, double[:] df, double[:] tf, int64_t[:] last):
    """Hashing mode of :func:`learn_counts`: a gram's term is its bucket; class-major tables."""
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1
    cdef int64_t longest = _longest(bounds, 0, n_docs)
    norm_a = np.empty(2 * longest + 2, dtype=_dtype(buf))
    seg_a = np.zeros(longest + 2, dtype=np.int64)
    cdef cp_t[::1] norm_v = norm_a
    cdef int64_t[::1] seg_v = seg_a
    cdef cp_t* norm = &norm_v[0]
    cdef int64_t* seg = &seg_v[0]
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef const uint8_t* space = &is_space[0]
    cdef Py_ssize_t d, n_seg, g, a, L, s, stop, m
    cdef int64_t c, t, n
    cdef double wd
    with nogil:
        for d in range(n_docs):
            c = codes[d]
            wd = w[d] if has_w else 1.0
            n_seg = _normalise(b, bounds[d], bounds[d + 1], space, wb, norm, NULL, NULL, seg)
            for g in range(n_seg):
                a = seg[g]
                L = seg[g + 1] - a
                for n in range(lo_n, hi_n + 1):
                    m, stop = _width(L, n, wb, a)
                    if m < 0:
                        break
                    for s in range(a, stop):
                        t = bucket(norm, s, s + m, n_features)
                        counts[c, t] += wd
                        tf[t] += 1.0
                        if last[t] != d:
                            last[t] = d
                            cdf[c, t] += wd
                            df[t] += 1.0
                    if wb and n >= L:
                        break


cdef void _score_rows(Py_ssize_t d0, Py_ssize_t d1, const cp_t* buf, const int64_t* bounds, const Grams* G,
                      const Terms* tt, const Weights* W, cp_t* norm, int64_t* seg, int64_t* last) noexcept nogil:
    """Rows d0:d1 of :func:`score_pairs`, with this thread's scratch (``last``: per term the
    last document that held it, read only when binary)."""
    cdef Py_ssize_t d, n_seg, g, a, L, s, stop, m, c
    cdef int64_t t, n, known
    cdef double* out_row
    for d in range(d0, d1):
        out_row = W.out + d * W.K
        known = 0
        n_seg = _normalise(buf, bounds[d], bounds[d + 1], G.is_space, G.wb, norm, NULL, NULL, seg)
        for g in range(n_seg):
            a = seg[g]
            L = seg[g + 1] - a
            for n in range(G.lo, G.hi + 1):
                m, stop = _width(L, n, G.wb, a)
                if m < 0:
                    break
                for s in range(a, stop):
                    t = _lookup(norm, s, s + m, G, tt)
                    if t >= 0 and (not W.binary or last[t] != d):
                        if W.binary:
                            last[t] = d
                        known += add_term(out_row, t, W.indptr, W.cls, W.delta, W.row, W.n_row, W.rows, W.K)
                if G.wb and n >= L:
                    break
        for c in range(W.K):
            out_row[c] += known * W.base[c]


def score_pairs(const cp_t[::1] buf, const int64_t[::1] bounds, const uint8_t[::1] is_space, int64_t lo_n,
                int64_t hi_n, bint wb, int64_t n_features, tuple terms, const int64_t[::1] indptr,
                const int64_t[::1] cls, const double[::1] delta, const double[::1] base, const int64_t[::1] row,
                rows_a, bint binary, int64_t T):
    """:func:`nbayes._kernels.text_pairs.score_pairs` for character n-grams: out[d, c] = the sum
    over the known gram occurrences t of document d (each distinct one once when ``binary``) of
    base[c] + delta[p] for the pair p = (t, c) if held, or the full row rows[row[t]]. ``T``
    ranges of documents are scored on OpenMP threads (at most OpenMP's thread count)."""
    cdef const double[:, ::1] rows = np.ascontiguousarray(rows_a, dtype=np.float64)
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1, K = base.shape[0], V = indptr.shape[0] - 1
    out_a = np.zeros((n_docs, K))
    if n_docs <= 0:
        return out_a
    cdef double[:, ::1] out = out_a
    if T < 1:
        T = 1
    cdef Py_ssize_t per = (n_docs + T - 1) // T
    cdef Py_ssize_t ranges = (n_docs + per - 1) // per
    cdef int nth = <int>min(ranges, <Py_ssize_t>omp_get_max_threads())
    cdef Py_ssize_t longest = _longest(bounds, 0, n_docs)
    cdef Py_ssize_t size = 2 * longest + 2, seg_size = longest + 2, n_last = V if binary and V > 0 else 1
    # per thread its scratch, made here: nothing is allocated in the parallel loop
    norm_a = np.empty(nth * size, dtype=_dtype(buf))
    seg_a = np.zeros(nth * seg_size, dtype=np.int64)
    last_a = np.full(nth * n_last, -1, dtype=np.int64)
    cdef cp_t[::1] norm_v = norm_a
    cdef int64_t[::1] seg_v = seg_a
    cdef int64_t[::1] last_v = last_a
    cdef cp_t* norm = &norm_v[0]
    cdef int64_t* seg = &seg_v[0]
    cdef int64_t* last = &last_v[0]
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef Terms tt = _terms(terms)
    cdef Grams G = _grams(is_space, lo_n, hi_n, wb, n_features)
    cdef Weights W
    W.indptr = &indptr[0]
    W.cls = &cls[0] if cls.shape[0] > 0 else NULL
    W.delta = &delta[0] if delta.shape[0] > 0 else NULL
    W.base = &base[0] if K > 0 else NULL
    W.row = &row[0] if row.shape[0] > 0 else NULL
    W.n_row = row.shape[0]
    W.rows = &rows[0, 0] if rows.shape[0] > 0 and rows.shape[1] > 0 else NULL
    W.K = K
    W.out = &out[0, 0] if K > 0 else NULL
    W.binary = binary
    cdef Py_ssize_t th, k, d0, d1
    if K == 0:
        return out_a
    if nth <= 1:  # one range after another on this thread: no thread team to start
        with nogil:
            _score_rows(0, n_docs, b, &bounds[0], &G, &tt, &W, norm, seg, last)
        return out_a
    for th in prange(ranges, nogil=True, schedule="static", num_threads=nth):
        k = omp_get_thread_num()
        d0 = th * per
        d1 = min(n_docs, d0 + per)
        _score_rows(d0, d1, b, &bounds[0], &G, &tt, &W, norm + k * size, seg + k * seg_size, last + k * n_last)
    return out_a


cdef inline void _sort(int32_t* a, Py_ssize_t n) noexcept nogil:
    """Sort a[:n] ascending (quicksort, median of three, insertion sort below 16; the smaller
    side recursed, the larger looped)."""
    cdef Py_ssize_t i, j, lo = 0, hi = n - 1, mid
    cdef int32_t x, p
    while hi - lo >= 16:
        mid = lo + (hi - lo) // 2
        if a[mid] < a[lo]:
            a[mid], a[lo] = a[lo], a[mid]
        if a[hi] < a[lo]:
            a[hi], a[lo] = a[lo], a[hi]
        if a[hi] < a[mid]:
            a[hi], a[mid] = a[mid], a[hi]
        p = a[mid]
        i = lo
        j = hi
        while i <= j:
            while a[i] < p:
                i += 1
            while a[j] > p:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if j - lo < hi - i:
            _sort(a + lo, j - lo + 1)
            lo = i
        else:
            _sort(a + i, hi - i + 1)
            hi = j
    for i in range(lo + 1, hi + 1):
        x = a[i]
        j = i - 1
        while j >= lo and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


def presence_rows(const cp_t[::1] buf, const int64_t[::1] bounds, const uint8_t[::1] is_space, int64_t lo_n,
                  int64_t hi_n, bint wb, int64_t n_features, tuple terms, int64_t n_terms):
    """:func:`nbayes._kernels.text_pairs.presence_rows` for character n-grams: per document its
    distinct known grams, sorted, as CSR (indptr, indices)."""
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1
    indptr_a = np.zeros(n_docs + 1, dtype=np.int64)
    indices_a = np.empty(max(1024, bounds[n_docs] - bounds[0]), dtype=np.int32)
    last_a = np.full(max(n_terms, 1), -1, dtype=np.int64)
    cdef int64_t longest = _longest(bounds, 0, n_docs)
    norm_a = np.empty(2 * longest + 2, dtype=_dtype(buf))
    seg_a = np.zeros(longest + 2, dtype=np.int64)
    cdef int64_t[::1] indptr = indptr_a
    cdef int32_t[::1] indices = indices_a
    cdef int64_t[::1] last_v = last_a
    cdef cp_t[::1] norm_v = norm_a
    cdef int64_t[::1] seg_v = seg_a
    cdef cp_t* norm = &norm_v[0]
    cdef int64_t* seg = &seg_v[0]
    cdef int64_t* last = &last_v[0]
    cdef int32_t* ind = &indices[0]
    cdef Py_ssize_t cap = indices.shape[0]
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef Terms tt = _terms(terms)
    cdef Grams G = _grams(is_space, lo_n, hi_n, wb, n_features)
    cdef Py_ssize_t d, n_seg, g, a, L, s, stop, mw, m = 0, r
    cdef int64_t t, n, most
    with nogil:
        for d in range(n_docs):
            r = m
            # the most this document can add: as many as it has grams, or as there are terms
            most = min(_room(bounds[d + 1] - bounds[d], lo_n, hi_n, wb)[0], n_terms)
            if m + most > cap:
                with gil:
                    cap = max(2 * cap, m + most)
                    grown = np.empty(cap, dtype=np.int32)
                    grown[:m] = indices_a[:m]
                    indices_a = grown
                    indices = indices_a
                    ind = &indices[0]
            n_seg = _normalise(b, bounds[d], bounds[d + 1], G.is_space, wb, norm, NULL, NULL, seg)
            for g in range(n_seg):
                a = seg[g]
                L = seg[g + 1] - a
                for n in range(lo_n, hi_n + 1):
                    mw, stop = _width(L, n, wb, a)
                    if mw < 0:
                        break
                    for s in range(a, stop):
                        t = _lookup(norm, s, s + mw, &G, &tt)
                        if t >= 0 and last[t] != d:
                            last[t] = d
                            ind[m] = <int32_t>t
                            m += 1
                    if wb and n >= L:
                        break
            _sort(ind + r, m - r)
            indptr[d + 1] = m
    return indptr_a, indices_a[:m].copy()


def term_ids(const cp_t[::1] buf, const int64_t[::1] bounds, const uint8_t[::1] is_space, int64_t lo_n,
             int64_t hi_n, bint wb, int64_t n_features, tuple terms):
    """Every gram occurrence as (document, term or -1, start, end within the document), in
    scikit-learn's order; start:end is the stretch of the document the gram covers (a
    collapsed whitespace run whole; a padding space adds nothing)."""
    cdef Py_ssize_t n_docs = bounds.shape[0] - 1
    out_a = np.empty((1024, 4), dtype=np.int64)
    cdef int64_t longest = _longest(bounds, 0, n_docs)
    cdef Py_ssize_t size = 2 * longest + 2
    norm_a = np.empty(size, dtype=_dtype(buf))
    ps_a = np.empty(size, dtype=np.int64)
    pe_a = np.empty(size, dtype=np.int64)
    seg_a = np.zeros(longest + 2, dtype=np.int64)
    cdef int64_t[:, ::1] out = out_a
    cdef cp_t[::1] norm_v = norm_a
    cdef int64_t[::1] ps_v = ps_a
    cdef int64_t[::1] pe_v = pe_a
    cdef int64_t[::1] seg_v = seg_a
    cdef cp_t* norm = &norm_v[0]
    cdef int64_t* ps = &ps_v[0]
    cdef int64_t* pe = &pe_v[0]
    cdef int64_t* seg = &seg_v[0]
    cdef int64_t* o = &out[0, 0]
    cdef Py_ssize_t cap = out.shape[0]
    cdef const cp_t* b = &buf[0] if buf.shape[0] > 0 else NULL
    cdef Terms tt = _terms(terms)
    cdef Grams G = _grams(is_space, lo_n, hi_n, wb, n_features)
    cdef Py_ssize_t d, n_seg, g, a, L, s, stop, mw, m = 0
    cdef int64_t n, most
    with nogil:
        for d in range(n_docs):
            most = _room(bounds[d + 1] - bounds[d], lo_n, hi_n, wb)[0]  # at least its grams
            if m + most > cap:
                with gil:
                    cap = max(2 * cap, m + most)
                    grown = np.empty((cap, 4), dtype=np.int64)
                    grown[:m] = out_a[:m]
                    out_a = grown
                    out = out_a
                    o = &out[0, 0]
            n_seg = _normalise(b, bounds[d], bounds[d + 1], G.is_space, wb, norm, ps, pe, seg)
            for g in range(n_seg):
                a = seg[g]
                L = seg[g + 1] - a
                for n in range(lo_n, hi_n + 1):
                    mw, stop = _width(L, n, wb, a)
                    if mw < 0:
                        break
                    for s in range(a, stop):
                        o[4 * m] = d
                        o[4 * m + 1] = _lookup(norm, s, s + mw, &G, &tt)
                        o[4 * m + 2] = ps[s]
                        o[4 * m + 3] = pe[s + mw - 1]
                        m += 1
                    if wb and n >= L:
                        break
    return out_a[:m]
