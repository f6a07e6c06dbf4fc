# cython: language_level=3
# The (class, term) pair table the text learners count on, and the scoring of a term's weights
# held as pairs: shared by the word and character kernels (inlined where cimported).
#
# A pair table is (slots, keys, count, cdf): pair (t, c) has key t * K + c, found through the
# open-addressing ``slots`` (slots[2 i] a key, slots[2 i + 1] a pair index, -1 empty; probed
# from _table.home) and holds count[p] (weighted occurrences) and cdf[p] (weighted documents).
# A dense table has no slots: pair (t, c) is at t * K + c. A learner's ``parts`` (terms x 4,
# int32) keeps in columns 2, 3 each term's first pair, its class and index (see pair_of), and
# only the other pairs go in the slots: ``used`` (one int64, kept by the caller) counts them,
# the slots holding at most SLOT_LOAD of them (len(slots) * 3 // 8).

from libc.stdint cimport int32_t, int64_t, uint64_t

from nbayes._kernels._table cimport home


cdef struct PairTable:
    int64_t* slots      # NULL / n_slots 0: a dense table
    Py_ssize_t n_slots  # len(slots)
    int64_t* keys
    Py_ssize_t n_keys
    double* count
    Py_ssize_t n_count
    double* cdf
    int64_t* used       # the pairs in the slots (updated in place)


#: parts are int32: pair indices from here on are not kept there
cdef enum:
    PARTS_MAX = 2147483647


cdef inline Py_ssize_t slot_room(Py_ssize_t n_slots) noexcept nogil:
    """How many keys a hash table of ``n_slots`` int64 (key, value) entries holds: its slots
    filled to 3/4 at most (text.py's learners size theirs so, vocab._table_size)."""
    return n_slots * 3 // 8


cdef inline PairTable pair_table(int64_t[::1] slots, int64_t[::1] keys, double[::1] count, double[::1] cdf,
                                 int64_t[::1] used):
    """The pointers of the pair table ``(slots, keys, count, cdf, used)`` (the caller keeps the
    arrays; ``used`` one int64, the pairs in the slots)."""
    cdef PairTable P
    P.used = &used[0]
    P.slots = &slots[0] if slots.shape[0] > 0 else NULL
    P.n_slots = slots.shape[0]
    P.keys = &keys[0] if keys.shape[0] > 0 else NULL
    P.n_keys = keys.shape[0]
    P.count = &count[0] if count.shape[0] > 0 else NULL
    P.n_count = count.shape[0]
    P.cdf = &cdf[0] if cdf.shape[0] > 0 else NULL
    return P


cdef inline bint full(const PairTable* P, int64_t n_pairs, int64_t n_terms, int64_t more, int64_t K) noexcept nogil:
    """Whether ``more`` terms and pairs could overflow the pair table: a hashed one by its
    slots and keys, a dense one (pair (t, c) at t * K + c) by its rows."""
    if P.n_slots == 0:
        return (n_terms + more) * K > P.n_count
    return P.used[0] + more > slot_room(P.n_slots) or n_pairs + more > P.n_keys


cdef inline (int64_t, int64_t) pair(int64_t key, PairTable* P, int64_t n_pairs) noexcept nogil:
    """The index of the pair ``key`` (term * K + class), added when new: (index, number of
    pairs). A dense table holds pair ``key`` at ``key``."""
    cdef int64_t mask, i, p
    if P.n_slots == 0:
        return key, n_pairs
    mask = P.n_slots // 2 - 1
    i = home(<uint64_t>key, mask)
    while True:
        p = P.slots[2 * i + 1]
        if p < 0:
            P.slots[2 * i] = key
            P.slots[2 * i + 1] = n_pairs
            P.keys[n_pairs] = key
            P.used[0] += 1
            return n_pairs, n_pairs + 1
        if P.slots[2 * i] == key:
            return p, n_pairs
        i = (i + 1) & mask


cdef inline (int64_t, int64_t) pair_of(int64_t t, int64_t c, int64_t K, PairTable* P, int64_t n_pairs,
                                       int32_t* parts, Py_ssize_t n_parts) noexcept nogil:
    """:func:`pair` for the pair (t, c), t's first pair kept in its row of ``parts`` (columns
    2, 3: its class and index, -1 before it has one) and never put in the slots: most terms
    (the n-grams) occur in one class, and their pairs are then found in the row the n-gram's
    lookup has just read, without a probe of the pair slots. Every other pair is in the slots.
    ``n_parts`` 0: all pairs in the slots."""
    cdef int32_t first
    if P.n_slots > 0 and n_parts > 0:
        first = parts[4 * t + 2]
        if first == c:
            return <int64_t>parts[4 * t + 3], n_pairs
        if first < 0 and n_pairs < PARTS_MAX:
            parts[4 * t + 2] = <int32_t>c
            parts[4 * t + 3] = <int32_t>n_pairs
            P.keys[n_pairs] = t * K + c
            return n_pairs, n_pairs + 1
    return pair(t * K + c, P, n_pairs)


cdef inline int64_t add(int64_t t, int64_t c, int64_t K, double wd, int64_t d, PairTable* P, int64_t n_pairs,
                        double* df, double* tf, int64_t* last, int32_t* parts, Py_ssize_t n_parts) noexcept nogil:
    """Count an occurrence of term t in document d of class c on the pair (t, c), found or
    added in the pair table (the counts grow with the pairs seen, not classes x terms; t's
    first pair in ``parts``, see :func:`pair_of`). Returns the number of pairs."""
    cdef int64_t p
    p, n_pairs = pair_of(t, c, K, P, n_pairs, parts, n_parts)
    P.count[p] += wd
    tf[t] += 1.0
    if last[t] != d:
        last[t] = d
        P.cdf[p] += wd
        df[t] += 1.0
    return n_pairs


cdef inline int64_t add_term(double* out_row, int64_t t, const int64_t* indptr, const int64_t* cls,
                             const double* delta, const int64_t* row, Py_ssize_t n_row, const double* rows,
                             Py_ssize_t K) noexcept nogil:
    """Add term t's weights to ``out_row`` (a document's K scores): its full row
    ``rows[row[t]]`` (K values, base included) when it has one, in one contiguous pass; else
    its corrections on the pairs it holds (indptr[t]..indptr[t + 1], class cls[p], delta[p]).
    Returns 1 when the caller still owes the term its base weights (the second case), else 0.
    ``n_row`` 0 means a dense table, term t's row being ``rows[t]``."""
    cdef int64_t r = row[t] if n_row > 0 else t
    cdef Py_ssize_t c
    cdef int64_t p
    cdef const double* src
    if r >= 0:
        src = rows + r * K
        for c in range(K):
            out_row[c] += src[c]
        return 0
    for p in range(indptr[t], indptr[t + 1]):
        out_row[cls[p]] += delta[p]
    return 1
