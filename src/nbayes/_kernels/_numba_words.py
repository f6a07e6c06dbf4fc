"""Transitional: numba twins of the word kernels' inline helpers, for the kernels still on
numba that call them from their own compiled loops (text_chars.py, text_parts.py, online.py).
The word kernels themselves are compiled ahead of time (_text.pyx, _text_pairs.pyx over
_table.pxd, _murmur.pxd, _pairs.pxd, _words.pxd). Delete this file once those modules are
ported (text.py, murmur.py and text_pairs.py re-export these names only for them)."""

from __future__ import annotations

import numpy as np
from numba import njit

_M32 = np.uint64(0xFFFFFFFF)
_C1 = np.uint64(0xCC9E2D51)
_C2 = np.uint64(0x1B873593)
_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_TOP = np.uint64(1) << np.uint64(63)
_LOW63 = ~(np.uint64(1) << np.uint64(63))


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



@njit(cache=True, nogil=True, inline="always")
def _key(buf, s, e):  # pragma: no cover - compiled
    n = e - s
    if n <= 7:
        k = np.uint64(n) << np.uint64(56)
        short = True
        for p in range(s, e):
            c = np.uint64(buf[p])
            if c > np.uint64(255):
                short = False
                break
            k |= c << np.uint64(8 * (p - s))
        if short:
            return k | _TOP, True
    h = _FNV_OFFSET
    for p in range(s, e):
        h = (h ^ np.uint64(buf[p])) * _FNV_PRIME
    return h & _LOW63, False


@njit(cache=True, nogil=True, inline="always")
def _home(key, mask):  # pragma: no cover - compiled
    x = key * _MIX
    return np.int64((x ^ (x >> np.uint64(29))) & np.uint64(mask))


@njit(cache=True, nogil=True, inline="always")
def _find(buf, s, e, key, exact, slots, start, length, cps):  # pragma: no cover - compiled
    """The slot holding the term buf[s:e], or the empty slot where it would go."""
    mask = len(slots) // 2 - 1
    i = _home(key, mask)
    ik = np.int64(key)
    while True:
        t = slots[2 * i + 1]
        if t < 0:
            return i
        if slots[2 * i] == ik:
            if exact:
                return i
            if length[t] != e - s:
                i = (i + 1) & mask
                continue
            p = start[t]
            same = True
            for k in range(e - s):
                if cps[p + k] != buf[s + k]:
                    same = False
                    break
            if same:
                return i
        i = (i + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def _pair(key, pslots, pkeys, n_pairs):  # pragma: no cover - compiled
    """The index of the pair ``key`` (term * K + class) in the pair table, added when new:
    (index, number of pairs). A dense table (no slots) holds pair ``key`` at ``key``."""
    if len(pslots) == 0:
        return key, n_pairs
    mask = len(pslots) // 2 - 1
    i = _home(np.uint64(key), mask)
    while True:
        p = pslots[2 * i + 1]
        if p < 0:
            pslots[2 * i] = key
            pslots[2 * i + 1] = n_pairs
            pkeys[n_pairs] = key
            return n_pairs, n_pairs + 1
        if pslots[2 * i] == key:
            return p, n_pairs
        i = (i + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def full(pairs, n_pairs, n_terms, more, K):  # pragma: no cover - compiled
    """Whether ``more`` terms and pairs could overflow the pair table: a hashed one by its
    slots and keys, a dense one (pair (t, c) at t * K + c) by its rows."""
    pslots, pkeys, pcount, _ = pairs
    if len(pslots) == 0:
        return (n_terms + more) * K > len(pcount)
    return n_pairs + more > len(pslots) // 4 or n_pairs + more > len(pkeys)


#: parts are int32 (16 bytes a term): ids and pair indices from here on are not kept there
_PARTS_MAX = 2**31 - 1


@njit(cache=True, nogil=True, inline="always")
def _pair_of(t, c, K, pslots, pkeys, n_pairs, parts):  # pragma: no cover - compiled
    """:func:`_pair` for the pair (t, c), t's first pair kept in its row of ``parts`` (columns
    2, 3: its class and index, -1 before it has one) and never put in the slots: most terms
    (the n-grams) occur in one class, and their pairs are then found in the row the n-gram's
    lookup has just read, without a probe of the pair slots. Every other pair is in the slots.
    ``parts`` empty: all pairs in the slots."""
    if len(pslots) > 0 and len(parts) > 0:
        first = parts[t, 2]
        if first == c:
            return np.int64(parts[t, 3]), n_pairs
        if first < 0 and n_pairs < _PARTS_MAX:
            parts[t, 2] = c
            parts[t, 3] = n_pairs
            pkeys[n_pairs] = t * K + c
            return n_pairs, n_pairs + 1
    return _pair(t * K + c, pslots, pkeys, n_pairs)


@njit(cache=True, nogil=True, inline="always")
def _add(t, c, K, wd, d, pairs, n_pairs, df, tf, last, parts):  # pragma: no cover - compiled
    """Count an occurrence of term t in document d of class c on the pair (t, c), found or
    added in the pair table ``pairs = (slots, keys, count, doc count)`` (key t * K + c; the
    counts grow with the pairs seen, not classes x terms; t's first pair in ``parts``, see
    :func:`_pair_of`). Returns the number of pairs."""
    pslots, pkeys, pcount, pcdf = pairs
    p, n_pairs = _pair_of(t, c, K, pslots, pkeys, n_pairs, parts)
    pcount[p] += wd
    tf[t] += 1.0
    if last[t] != d:
        last[t] = d
        pcdf[p] += wd
        df[t] += 1.0
    return n_pairs


@njit(cache=True, nogil=True, inline="always")
def append_index(indices, m, t):  # pragma: no cover - compiled
    """``indices`` with ``t`` written at position ``m``, doubled first when full."""
    if m == len(indices):
        grown = np.empty(2 * m, dtype=indices.dtype)
        grown[:m] = indices
        indices = grown
    indices[m] = t
    return indices


@njit(cache=True, nogil=True, inline="always")
def add_term(out, d, t, indptr, cls, delta, row, rows):  # pragma: no cover - compiled
    """Add term t's weights to out[d]: its full row ``rows[row[t]]`` (base included) when it
    has one, in one contiguous pass; else its corrections on the pairs it holds. Returns 1
    when the caller still owes the term its base weights (the second case), else 0. An empty
    ``row`` means a dense table, term t's row being ``rows[t]`` (no lookup to miss the cache)."""
    r = row[t] if len(row) > 0 else t
    if r >= 0:
        for c in range(rows.shape[1]):
            out[d, c] += rows[r, c]
        return 0
    for p in range(indptr[t], indptr[t + 1]):
        out[d, cls[p]] += delta[p]
    return 1
