# cython: language_level=3
# The term table's keys and probes, shared by every text kernel (inlined where cimported).
#
# Terms live in an open-addressing table, slots[2 i] a key and slots[2 i + 1] a term id (-1:
# empty), len(slots) // 2 a power of two. A token of at most 7 Latin-1 characters is its own
# key (its bytes packed with its length, top bit set): equal keys are equal terms. A longer
# token's key is a 64-bit FNV-1a hash with the top bit clear, confirmed against the term's code
# points cps[start[t]:start[t] + length[t]], so no collision can ever merge two terms.
#
# Documents and queries arrive as code points, uint8 (Latin-1 text) or uint32 (``cp_t``); a
# table's own code points are uint32. Helpers take pointers: a memoryview argument is
# reference-counted (atomically) at every call, which the hot loops cannot afford.

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

ctypedef fused cp_t:
    uint8_t
    uint32_t

cdef enum:
    NO_TERM = -1

cdef extern from *:
    """
    #define NBAYES_FNV_OFFSET 14695981039346656037ULL
    #define NBAYES_FNV_PRIME 1099511628211ULL
    #define NBAYES_MIX 0x9E3779B97F4A7C15ULL
    #define NBAYES_TOP (1ULL << 63)
    #define NBAYES_LOW63 (~(1ULL << 63))
    """
    const uint64_t FNV_OFFSET "NBAYES_FNV_OFFSET"
    const uint64_t FNV_PRIME "NBAYES_FNV_PRIME"
    const uint64_t MIX "NBAYES_MIX"
    const uint64_t TOP "NBAYES_TOP"
    const uint64_t LOW63 "NBAYES_LOW63"


cdef inline (uint64_t, bint) term_key(const cp_t* buf, Py_ssize_t s, Py_ssize_t e) noexcept nogil:
    """The key of the term buf[s:e] and whether it is exact (the term itself, packed)."""
    cdef Py_ssize_t n = e - s, p
    cdef uint64_t k, c, h
    cdef bint short
    if n <= 7:
        k = (<uint64_t>n) << 56
        short = True
        for p in range(s, e):
            c = buf[p]
            if c > 255:
                short = False
                break
            k |= c << (8 * (p - s))
        if short:
            return k | TOP, True
    h = FNV_OFFSET
    for p in range(s, e):
        h = (h ^ <uint64_t>buf[p]) * FNV_PRIME
    return h & LOW63, False


cdef inline int64_t home(uint64_t key, int64_t mask) noexcept nogil:
    """The first slot probed for ``key`` (``mask``: the number of slots - 1)."""
    cdef uint64_t x = key * MIX
    return <int64_t>((x ^ (x >> 29)) & <uint64_t>mask)


cdef inline bint same_points(const cp_t* buf, Py_ssize_t s, Py_ssize_t e, const uint32_t* cps,
                             int64_t p) noexcept nogil:
    """Whether buf[s:e] equals the code points cps[p:p + e - s]."""
    cdef Py_ssize_t k
    for k in range(e - s):
        if cps[p + k] != buf[s + k]:
            return False
    return True


cdef inline int64_t find(const cp_t* buf, Py_ssize_t s, Py_ssize_t e, uint64_t key, bint exact,
                         const int64_t* slots, Py_ssize_t n_slots, const int64_t* start,
                         const int64_t* length, const uint32_t* cps) noexcept nogil:
    """The slot holding the term buf[s:e], or the empty slot where it would go (``n_slots``:
    len(slots), twice the number of slots)."""
    cdef int64_t mask = n_slots // 2 - 1
    cdef int64_t i = home(key, mask)
    cdef int64_t ik = <int64_t>key
    cdef int64_t t
    while True:
        t = slots[2 * i + 1]
        if t < 0:
            return i
        if slots[2 * i] == ik:
            if exact:
                return i
            if length[t] == e - s and same_points(buf, s, e, cps, start[t]):
                return i
        i = (i + 1) & mask
