# cython: language_level=3
# The word kernels' tokeniser and n-gram walker (text.py's _next_token, _word, _grams and the
# n-gram keys and probes), shared by _text.pyx and _text_pairs.pyx: inlined where cimported.
#
# A token is a maximal run of word characters (``is_word``) at least two long: scikit-learn's
# ``(?u)\b\w\w+\b``. An n-gram is its words joined by one space; its key is the key
# _table.term_key gives that string, computed from the words' spans (``ring``) without building
# it. Hashing mode (n_features > 0) hashes it as scikit-learn hashes the string, from running
# MurmurHash3 states. Everything takes pointers (see _table.pxd).

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free

from nbayes._kernels._murmur cimport Murmur, bucket, feed, finish, to_bucket
from nbayes._kernels._table cimport FNV_OFFSET, FNV_PRIME, LOW63, TOP, cp_t, find, home, same_points, term_key


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define NBAYES_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define NBAYES_PREFETCH(p) ((void)(p))
    #endif
    """
    void prefetch "NBAYES_PREFETCH"(const void* p) noexcept nogil


# The simple loops (single words, no stop list) look a token up in stages a few tokens apart,
# each stage prefetching what the next one reads (its home slot, then its row of counts or
# weights), so that the cache misses of several tokens overlap: up to AHEAD tokens in flight,
# GAP tokens between two stages. Every stage takes the tokens in order: same results.
cdef enum:
    AHEAD = 16
    GAP = 2


cdef inline void prefetch_span(const void* p, Py_ssize_t nbytes) noexcept nogil:
    """Prefetch the cache lines of ``nbytes`` from ``p``."""
    cdef const char* c = <const char*>p
    cdef Py_ssize_t k = 0
    while k < nbytes:
        prefetch(c + k)
        k += 64
    prefetch(c + nbytes - 1)


# A term table as lookups read it (text.py's ``terms`` tuple, or the stop words'): slots, the
# terms' code points, and per word n-gram the ids of its prefix and last word (``parts``,
# ``n_parts`` rows of ``parts_cols`` int32; 0 rows: none kept); ``complete``: every term holding
# a space has its parts (text_parts.py).
cdef struct Table:
    const int64_t* slots
    Py_ssize_t n_slots
    const int64_t* start
    const int64_t* length
    const uint32_t* cps
    const int32_t* parts
    Py_ssize_t n_parts
    Py_ssize_t parts_cols
    bint complete


# The n-gram walker's settings and scratch (one per thread): the stop-word table (``n_stop`` 0:
# none), the term table (vocabulary mode, ``n_features`` 0) and per kept token q (mod hi_n) its
# span ring[2 q], ring[2 q + 1] and the running hash of the words from it on (hashing mode);
# ``found`` (2 hi_n) the terms this token ends, then the previous token's.
cdef struct Walk:
    Py_ssize_t lo_n
    Py_ssize_t hi_n
    int64_t n_features
    Table stop
    Py_ssize_t n_stop
    Table terms
    bint by_ids
    int64_t* ring
    Murmur* states
    int64_t* found
    # keys made ahead (see look_ahead): this token's (``keyed``), and the bigram of the kept
    # token before it and it (``paired``); then the next token's
    bint keyed
    uint64_t key1
    bint exact1
    bint paired
    uint64_t key2
    bint exact2
    Py_ssize_t total2
    uint64_t next_key1
    bint next_exact1
    bint next_paired
    uint64_t next_key2
    bint next_exact2
    Py_ssize_t next_total2


cdef inline (Py_ssize_t, Py_ssize_t) next_token(const cp_t* buf, Py_ssize_t i, Py_ssize_t e,
                                                const uint8_t* is_word) noexcept nogil:
    """The next token at or after i before e: (start, end), or (e, e) when there is none."""
    cdef Py_ssize_t j
    while i < e:
        if is_word[buf[i]] == 0:
            i += 1
            continue
        j = i + 1
        while j < e and is_word[buf[j]] != 0:
            j += 1
        if j - i >= 2:
            return i, j
        i = j
    return e, e


cdef inline int64_t find_ids(const uint32_t* buf, Py_ssize_t s, Py_ssize_t e, uint64_t key, bint exact,
                             int64_t pre, int64_t word, const int64_t* slots, Py_ssize_t n_slots,
                             const int64_t* start, const int64_t* length, const uint32_t* cps,
                             const int32_t* parts, Py_ssize_t cols) noexcept nogil:
    """_table.find for an n-gram whose prefix and last word are terms ``pre`` and ``word``: a
    matching key is confirmed by its parts (row t of ``parts``, ``cols`` wide) when known, else
    by the code points."""
    cdef int64_t mask = n_slots // 2 - 1
    cdef int64_t i = home(key, mask)
    cdef int64_t ik = <int64_t>key
    cdef int64_t t, a
    while True:
        t = slots[2 * i + 1]
        if t < 0:
            return i
        if slots[2 * i] == ik:
            if exact:
                return i
            a = parts[cols * t]
            if a >= 0:
                if a == pre and parts[cols * t + 1] == word:
                    return i
            elif length[t] == e - s and same_points(buf, s, e, cps, start[t]):
                return i
        i = (i + 1) & mask


cdef inline (uint64_t, bint, Py_ssize_t) gram_key(const cp_t* buf, const int64_t* ring, Py_ssize_t hi,
                                                   Py_ssize_t last, Py_ssize_t n) noexcept nogil:
    """term_key of the n-gram of kept tokens last-n+1..last (spans in ``ring``, mod hi) joined by
    spaces, and its length: the key term_key gives the stored string "w1 w2"."""
    cdef Py_ssize_t total = n - 1, m, q, p, pos
    cdef uint64_t k, c, h
    cdef bint short
    for m in range(n):
        q = (last - n + 1 + m) % hi
        total += ring[2 * q + 1] - ring[2 * q]
    if total <= 7:
        k = (<uint64_t>total) << 56
        short = True
        pos = 0
        for m in range(n):
            q = (last - n + 1 + m) % hi
            if m > 0:
                k |= (<uint64_t>32) << (8 * pos)
                pos += 1
            for p in range(ring[2 * q], ring[2 * q + 1]):
                c = buf[p]
                if c > 255:
                    short = False
                k |= (c & 255) << (8 * pos)
                pos += 1
        if short:
            return k | TOP, True, total
    h = FNV_OFFSET
    for m in range(n):
        q = (last - n + 1 + m) % hi
        if m > 0:
            h = (h ^ 32) * FNV_PRIME
        for p in range(ring[2 * q], ring[2 * q + 1]):
            h = (h ^ <uint64_t>buf[p]) * FNV_PRIME
    return h & LOW63, False, total


cdef inline (uint64_t, bint, Py_ssize_t) pair_key(const cp_t* buf, Py_ssize_t i1, Py_ssize_t j1, Py_ssize_t i2,
                                                   Py_ssize_t j2) noexcept nogil:
    """gram_key of the bigram of the tokens buf[i1:j1] and buf[i2:j2] (their spans, no ring)."""
    cdef Py_ssize_t total = 1 + (j1 - i1) + (j2 - i2), p, pos
    cdef uint64_t k, c, h
    cdef bint short
    if total <= 7:
        k = (<uint64_t>total) << 56
        short = True
        pos = 0
        for p in range(i1, j1):
            c = buf[p]
            if c > 255:
                short = False
            k |= (c & 255) << (8 * pos)
            pos += 1
        k |= (<uint64_t>32) << (8 * pos)
        pos += 1
        for p in range(i2, j2):
            c = buf[p]
            if c > 255:
                short = False
            k |= (c & 255) << (8 * pos)
            pos += 1
        if short:
            return k | TOP, True, total
    h = FNV_OFFSET
    for p in range(i1, j1):
        h = (h ^ <uint64_t>buf[p]) * FNV_PRIME
    h = (h ^ 32) * FNV_PRIME
    for p in range(i2, j2):
        h = (h ^ <uint64_t>buf[p]) * FNV_PRIME
    return h & LOW63, False, total


cdef inline bint gram_same(const cp_t* buf, const int64_t* ring, Py_ssize_t hi, Py_ssize_t last, Py_ssize_t n,
                           const uint32_t* cps, int64_t p) noexcept nogil:
    """Whether the code points from cps[p] on are the n-gram of kept tokens last-n+1..last joined
    by spaces (the caller has checked the length)."""
    cdef Py_ssize_t m, q, r
    for m in range(n):
        q = (last - n + 1 + m) % hi
        if m > 0:
            if cps[p] != 32:
                return False
            p += 1
        for r in range(ring[2 * q], ring[2 * q + 1]):
            if cps[p] != buf[r]:
                return False
            p += 1
    return True


cdef inline int64_t gram_find(const cp_t* buf, const int64_t* ring, Py_ssize_t hi, Py_ssize_t last, Py_ssize_t n,
                              uint64_t key, bint exact, Py_ssize_t total, const int64_t* slots, Py_ssize_t n_slots,
                              const int64_t* start, const int64_t* length, const uint32_t* cps) noexcept nogil:
    """_table.find for an n-gram: the slot holding it, or the empty slot where it would go."""
    cdef int64_t mask = n_slots // 2 - 1
    cdef int64_t i = home(key, mask)
    cdef int64_t ik = <int64_t>key
    cdef int64_t t
    while True:
        t = slots[2 * i + 1]
        if t < 0:
            return i
        if slots[2 * i] == ik and (exact or length[t] == total):
            if exact or gram_same(buf, ring, hi, last, n, cps, start[t]):
                return i
        i = (i + 1) & mask


cdef inline int64_t gram_find_ids(const cp_t* buf, const int64_t* ring, Py_ssize_t hi, Py_ssize_t last,
                                  Py_ssize_t n, uint64_t key, bint exact, Py_ssize_t total, int64_t pre,
                                  int64_t word, const int64_t* slots, Py_ssize_t n_slots, const int64_t* start,
                                  const int64_t* length, const uint32_t* cps, const int32_t* parts,
                                  Py_ssize_t cols) noexcept nogil:
    """gram_find with every shorter n-gram a term (``lo_n == 1``): a matching key is confirmed
    by the ids of its prefix and last word (``parts[cols * t]``, one read) rather than by its
    code points; a term whose parts are unknown (-1) by its code points."""
    cdef int64_t mask = n_slots // 2 - 1
    cdef int64_t i = home(key, mask)
    cdef int64_t ik = <int64_t>key
    cdef int64_t t, a
    while True:
        t = slots[2 * i + 1]
        if t < 0:
            return i
        if slots[2 * i] == ik:
            if exact:
                return i
            a = parts[cols * t]
            if a >= 0:
                if a == pre and parts[cols * t + 1] == word:
                    return i
            elif length[t] == total and gram_same(buf, ring, hi, last, n, cps, start[t]):
                return i
        i = (i + 1) & mask


cdef inline int64_t table_find(const cp_t* buf, Py_ssize_t s, Py_ssize_t e, uint64_t key, bint exact,
                               const Table* T) noexcept nogil:
    """_table.find in the table ``T``: the slot of the term buf[s:e] or the empty one."""
    return find(buf, s, e, key, exact, T.slots, T.n_slots, T.start, T.length, T.cps)


cdef inline int64_t word(const cp_t* buf, Py_ssize_t i, Py_ssize_t j, int64_t n_features,
                         const Table* T) noexcept nogil:
    """The term of the single word buf[i:j] (unigrams, no stop words): its bucket (hashing
    mode), or its id (-1 when unknown)."""
    cdef uint64_t key
    cdef bint exact
    if n_features > 0:
        return bucket(buf, i, j, n_features)
    key, exact = term_key(buf, i, j)
    return T.slots[2 * table_find(buf, i, j, key, exact, T) + 1]


cdef inline Py_ssize_t grams(const cp_t* buf, Py_ssize_t i, Py_ssize_t j, Py_ssize_t* ntok,
                             Walk* W) noexcept nogil:
    """Take the token buf[i:j] (unless a stop word: scikit-learn drops those before forming
    n-grams) and put the terms of the n-grams lo_n..hi_n it ends in W.found[0:count], longest
    last, as :func:`word` would for each; ``ntok``: the kept tokens so far in the document.
    With the table's parts (W.by_ids) an n-gram is confirmed by its prefix's id (the previous
    token's terms, W.found[hi_n:]) and its last word's; in a complete table one whose prefix
    or word is no term is none (no key, no probe). Returns count."""
    cdef Py_ssize_t hi_n = W.hi_n, t, q, s, r, n, count, m, p, total
    cdef int64_t slot
    cdef uint64_t key1 = 0, key
    cdef bint exact1 = True, exact
    cdef int64_t* found = W.found
    cdef Murmur* st
    if W.keyed:
        key1 = W.key1
        exact1 = W.exact1
    elif W.n_features == 0 or W.n_stop > 0:
        key1, exact1 = term_key(buf, i, j)
    if W.n_stop > 0 and W.stop.slots[2 * table_find(buf, i, j, key1, exact1, &W.stop) + 1] >= 0:
        return 0
    t = ntok[0]  # this token's index among the kept tokens
    q = t % hi_n
    W.ring[2 * q] = i
    W.ring[2 * q + 1] = j
    ntok[0] = t + 1
    if W.n_features > 0:
        # extend the n-grams that started on the previous hi_n - 1 tokens by " " + this word
        for s in range(t - hi_n + 1 if t - hi_n + 1 > 0 else 0, t):
            st = &W.states[s % hi_n]
            feed(st, 32)
            for p in range(i, j):
                feed(st, buf[p])
        # this word starts a new one (its slot held token t - hi_n, too far back to matter now)
        st = &W.states[q]
        st.h = 0
        st.k = 0
        st.nb = 0
        st.total = 0
        for p in range(i, j):
            feed(st, buf[p])
    count = 0
    for n in range(W.lo_n, (hi_n if hi_n < t + 1 else t + 1) + 1):
        if W.n_features > 0:
            r = (t - n + 1) % hi_n
            found[count] = to_bucket(finish(&W.states[r]), W.n_features)
        else:
            if n == 1:
                slot = table_find(buf, i, j, key1, exact1, &W.terms)
            elif W.by_ids and W.terms.complete and (found[hi_n + n - 2] < 0 or found[0] < 0):
                found[count] = -1
                count += 1
                continue
            else:
                if n == 2 and W.paired:
                    key = W.key2
                    exact = W.exact2
                    total = W.total2
                else:
                    key, exact, total = gram_key(buf, W.ring, hi_n, t, n)
                if W.by_ids:
                    slot = gram_find_ids(buf, W.ring, hi_n, t, n, key, exact, total, found[hi_n + n - 2], found[0],
                                         W.terms.slots, W.terms.n_slots, W.terms.start, W.terms.length, W.terms.cps,
                                         W.terms.parts, W.terms.parts_cols)
                else:
                    slot = gram_find(buf, W.ring, hi_n, t, n, key, exact, total, W.terms.slots, W.terms.n_slots,
                                     W.terms.start, W.terms.length, W.terms.cps)
            found[count] = W.terms.slots[2 * slot + 1]
        count += 1
    if W.by_ids:  # this token's n-grams are the next one's prefixes
        for m in range(count):
            found[hi_n + m] = found[m]
    return count


cdef inline Table table_of(tuple terms) except *:
    """The pointers of a term table ``(slots, keys, start, length, cps, last, parts, complete)``
    (lookups read slots, start, length, cps, parts, complete) or of the stop words' ``(slots,
    start, length, cps)``: the caller keeps the tuple (so the arrays) alive."""
    cdef bint stop = len(terms) == 4
    cdef const int64_t[::1] slots = terms[0]
    cdef const int64_t[::1] start = terms[1 if stop else 2]
    cdef const int64_t[::1] length = terms[2 if stop else 3]
    cdef const uint32_t[::1] cps = terms[3 if stop else 4]
    cdef const int32_t[:, ::1] parts
    cdef Table T
    T.slots = &slots[0]
    T.n_slots = slots.shape[0]
    T.start = &start[0] if start.shape[0] > 0 else NULL
    T.length = &length[0] if length.shape[0] > 0 else NULL
    T.cps = &cps[0] if cps.shape[0] > 0 else NULL
    T.parts = NULL
    T.n_parts = 0
    T.parts_cols = 0
    T.complete = False
    if not stop:
        parts = terms[6]
        T.n_parts = parts.shape[0]
        T.parts_cols = parts.shape[1]
        T.parts = &parts[0, 0] if parts.shape[0] > 0 else NULL
        T.complete = bool(terms[7])
    return T


cdef inline Walk walk_of(Py_ssize_t lo_n, Py_ssize_t hi_n, tuple stop, int64_t n_features, tuple terms) except *:
    """The walker over this table and stop list (its scratch: see :func:`walk_scratch`)."""
    cdef Walk W
    W.lo_n = lo_n
    W.hi_n = hi_n
    W.n_features = n_features
    W.stop = table_of(stop)
    W.n_stop = len(stop[1])
    W.terms = table_of(terms)
    # with every shorter n-gram a term and the table's parts known (lo_n == 1, see
    # text_parts.gram_parts), an n-gram is confirmed by its prefix's and last word's ids
    W.by_ids = n_features == 0 and lo_n == 1 and hi_n > 1 and W.terms.n_parts > 0
    W.ring = NULL
    W.states = NULL
    W.found = NULL
    W.keyed = False
    W.paired = False
    W.next_paired = False
    return W


cdef inline int walk_scratch(Walk* W) except -1:
    """Allocate the walker's scratch (free with :func:`walk_free`)."""
    cdef Py_ssize_t h = W.hi_n if W.hi_n > 0 else 1
    W.ring = <int64_t*>calloc(2 * h, sizeof(int64_t))
    W.states = <Murmur*>calloc(h, sizeof(Murmur))
    W.found = <int64_t*>calloc(2 * h, sizeof(int64_t))
    if W.ring == NULL or W.states == NULL or W.found == NULL:
        walk_free(W)
        raise MemoryError()
    return 0


cdef inline void walk_free(Walk* W) noexcept nogil:
    free(W.ring)
    free(W.states)
    free(W.found)
    W.ring = NULL
    W.states = NULL
    W.found = NULL


cdef inline void look_ahead(const cp_t* buf, Py_ssize_t i, Py_ssize_t j, Py_ssize_t ni, Py_ssize_t nj,
                            Walk* W) noexcept nogil:
    """Vocabulary mode, while at the token buf[i:j]: key the next one, buf[ni:nj] (ni < end),
    and the bigram of the two, and prefetch their home slots, so that the walker finds them
    there a token later (:func:`step` hands the keys over; a bigram key serves when this
    token is kept, the bigram being then the next token's)."""
    cdef int64_t mask = W.terms.n_slots // 2 - 1
    W.next_key1, W.next_exact1 = term_key(buf, ni, nj)
    prefetch(&W.terms.slots[2 * home(W.next_key1, mask)])
    W.next_paired = W.lo_n <= 2 <= W.hi_n
    if W.next_paired:
        W.next_key2, W.next_exact2, W.next_total2 = pair_key(buf, i, j, ni, nj)
        prefetch(&W.terms.slots[2 * home(W.next_key2, mask)])


cdef inline void step(Walk* W, bint kept) noexcept nogil:
    """Move to the next token, keyed by :func:`look_ahead` (``kept``: whether the walker kept
    the token just taken)."""
    W.keyed = True
    W.key1 = W.next_key1
    W.exact1 = W.next_exact1
    W.paired = W.next_paired and kept
    W.key2 = W.next_key2
    W.exact2 = W.next_exact2
    W.total2 = W.next_total2


cdef inline void unkeyed(Walk* W) noexcept nogil:
    """No keys made ahead (a document's first token)."""
    W.keyed = False
    W.paired = False
