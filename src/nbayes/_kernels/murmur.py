"""MurmurHash3 (x86, 32 bit, seed 0) over code points fed as UTF-8 bytes, as a running state, and
scikit-learn's bucket of a hash: the term -> column map of its ``HashingVectorizer``."""

from __future__ import annotations

import numpy as np
from numba import njit

_M32 = np.uint64(0xFFFFFFFF)
_C1 = np.uint64(0xCC9E2D51)
_C2 = np.uint64(0x1B873593)


@njit(cache=True, nogil=True, inline="always")
def _rotl32(x, r):  # pragma: no cover - compiled
    return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & _M32


@njit(cache=True, nogil=True, inline="always")
def _block(h, k):  # pragma: no cover - compiled
    k = (k * _C1) & _M32
    k = _rotl32(k, 15)
    k = (k * _C2) & _M32
    h ^= k
    h = _rotl32(h, 13)
    return (h * np.uint64(5) + np.uint64(0xE6546B64)) & _M32


@njit(cache=True, nogil=True, inline="always")
def feed(h, k, nb, total, cp):  # pragma: no cover - compiled
    """Feed the UTF-8 bytes of code point ``cp`` to a running MurmurHash3 (x86, 32 bit):
    state h (hash), k (pending bytes), nb (how many), total (bytes so far)."""
    if cp < 0x80:
        n = 1
        b0 = cp
    elif cp < 0x800:
        n = 2
        b0 = np.uint64(0xC0) | (cp >> np.uint64(6))
    elif cp < 0x10000:
        n = 3
        b0 = np.uint64(0xE0) | (cp >> np.uint64(12))
    else:
        n = 4
        b0 = np.uint64(0xF0) | (cp >> np.uint64(18))
    for q in range(n):
        if q == 0:
            byte = b0
        else:
            shift = np.uint64(6 * (n - 1 - q))
            byte = np.uint64(0x80) | ((cp >> shift) & np.uint64(0x3F))
        k |= byte << np.uint64(8 * nb)
        nb += 1
        total += 1
        if nb == 4:
            h = _block(h, k)
            k = np.uint64(0)
            nb = 0
    return h, k, nb, total


@njit(cache=True, nogil=True, inline="always")
def finish(h, k, nb, total):  # pragma: no cover - compiled
    """The hash of the bytes fed so far, as a signed 32-bit integer."""
    if nb > 0:
        k = (k * _C1) & _M32
        k = _rotl32(k, 15)
        k = (k * _C2) & _M32
        h ^= k
    h ^= np.uint64(total)
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & _M32
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & _M32
    h ^= h >> np.uint64(16)
    return np.int64(h) - np.int64(1 << 32) if h >= np.uint64(1 << 31) else np.int64(h)


@njit(cache=True, nogil=True)
def murmur3(buf, s, e):  # pragma: no cover - compiled
    """MurmurHash3 (x86, 32 bit, seed 0) of the UTF-8 bytes of code points buf[s:e], as a signed
    32-bit integer: scikit-learn's ``murmurhash3_32(token)``, the hash of its HashingVectorizer."""
    h = np.uint64(0)
    k = np.uint64(0)
    nb = 0
    total = 0
    for p in range(s, e):
        h, k, nb, total = feed(h, k, nb, total, np.uint64(buf[p]))
    return finish(h, k, nb, total)


@njit(cache=True, nogil=True, inline="always")
def to_bucket(h, n_features):  # pragma: no cover - compiled
    """scikit-learn's column for a hash: abs(h) % n_features (abs(-2**31) defined as there)."""
    if h == -2147483648:
        return (2147483647 - (n_features - 1)) % n_features
    return abs(h) % n_features


@njit(cache=True, nogil=True, inline="always")
def bucket(buf, s, e, n_features):  # pragma: no cover - compiled
    """scikit-learn's column for a token: abs(murmur3) % n_features."""
    return to_bucket(murmur3(buf, s, e), n_features)
