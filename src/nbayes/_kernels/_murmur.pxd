# cython: language_level=3
# MurmurHash3 (x86, 32 bit, seed 0) over code points fed as UTF-8 bytes, as a running state, and
# scikit-learn's bucket of a hash: the term -> column map of its HashingVectorizer (twin:
# text_twin.murmur3 / bucket). Inlined where cimported.

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from nbayes._kernels._table cimport cp_t


cdef struct Murmur:
    uint32_t h      # the hash so far
    uint32_t k      # pending bytes
    int nb          # how many
    int64_t total   # bytes so far


cdef inline uint32_t _rotl32(uint32_t x, int r) noexcept nogil:
    return (x << r) | (x >> (32 - r))


cdef inline uint32_t _block(uint32_t h, uint32_t k) noexcept nogil:
    k = k * 0xCC9E2D51u
    k = _rotl32(k, 15)
    k = k * 0x1B873593u
    h ^= k
    h = _rotl32(h, 13)
    return h * 5u + 0xE6546B64u


cdef inline void feed(Murmur* m, uint64_t cp) noexcept nogil:
    """Feed the UTF-8 bytes of code point ``cp`` to the running hash ``m``."""
    cdef int n, q
    cdef uint32_t byte, b0
    if cp < 0x80:
        n = 1
        b0 = <uint32_t>cp
    elif cp < 0x800:
        n = 2
        b0 = <uint32_t>(0xC0 | (cp >> 6))
    elif cp < 0x10000:
        n = 3
        b0 = <uint32_t>(0xE0 | (cp >> 12))
    else:
        n = 4
        b0 = <uint32_t>(0xF0 | (cp >> 18))
    for q in range(n):
        if q == 0:
            byte = b0
        else:
            byte = <uint32_t>(0x80 | ((cp >> (6 * (n - 1 - q))) & 0x3F))
        m.k |= byte << (8 * m.nb)
        m.nb += 1
        m.total += 1
        if m.nb == 4:
            m.h = _block(m.h, m.k)
            m.k = 0
            m.nb = 0


cdef inline int64_t finish(const Murmur* m) noexcept nogil:
    """The hash of the bytes fed so far, as a signed 32-bit integer."""
    cdef uint32_t h = m.h, k = m.k
    if m.nb > 0:
        k = k * 0xCC9E2D51u
        k = _rotl32(k, 15)
        k = k * 0x1B873593u
        h ^= k
    h ^= <uint32_t>m.total
    h ^= h >> 16
    h = h * 0x85EBCA6Bu
    h ^= h >> 13
    h = h * 0xC2B2AE35u
    h ^= h >> 16
    return <int64_t>(<int32_t>h)


cdef inline int64_t murmur3(const cp_t* buf, Py_ssize_t s, Py_ssize_t e) noexcept nogil:
    """MurmurHash3 of the UTF-8 bytes of code points buf[s:e], as a signed 32-bit integer:
    scikit-learn's ``murmurhash3_32(token)``."""
    cdef Murmur m
    cdef Py_ssize_t p
    m.h = 0
    m.k = 0
    m.nb = 0
    m.total = 0
    for p in range(s, e):
        feed(&m, buf[p])
    return finish(&m)


cdef inline int64_t to_bucket(int64_t h, int64_t n_features) noexcept nogil:
    """scikit-learn's column for a hash: abs(h) % n_features (abs(-2**31) defined as there)."""
    cdef int64_t r
    if h == -2147483648:
        r = (2147483647 - (n_features - 1)) % n_features
        return r + n_features if r < 0 else r  # Python's modulo, as scikit-learn's
    return (h if h >= 0 else -h) % n_features


cdef inline int64_t bucket(const cp_t* buf, Py_ssize_t s, Py_ssize_t e, int64_t n_features) noexcept nogil:
    """scikit-learn's column for a token: abs(murmur3) % n_features."""
    return to_bucket(murmur3(buf, s, e), n_features)
