"""Vocabularies in code point order without sorting Python strings.

scikit-learn's vocabulary is sorted as Python sorts str: by code points, a prefix first. The
terms a learner collects live as code points in one buffer (term t is
``cps[start[t]:start[t] + length[t]]``); :func:`sort_order` orders them by packing their code
points into uint64 keys sorted by counting passes (radix), on several threads;
:func:`term_strings` makes the Python strings in one decode and split; :func:`pair_csr` lays
(class, term) pairs out as CSR with counting passes.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

__all__ = ["first_unsorted", "gather_terms", "join_terms", "pair_csr", "renumber_slots", "sort_order", "sort_parts", "term_keys", "term_strings", "top_split"]


@njit(cache=True, nogil=True)
def join_terms(cps, start, length, out):  # pragma: no cover - compiled
    """out = the terms cps[start[i]:start[i] + length[i]] in turn, a 0 between two."""
    n = 0
    for i in range(len(start)):
        if i > 0:
            out[n] = 0
            n += 1
        s = start[i]
        for k in range(length[i]):
            out[n + k] = cps[s + k]
        n += length[i]


@njit(cache=True, nogil=True)
def gather_terms(cps, start, length, out):  # pragma: no cover - compiled
    """out = the terms cps[start[i]:start[i] + length[i]] in turn, end to end."""
    n = 0
    for i in range(len(start)):
        s = start[i]
        for k in range(length[i]):
            out[n + k] = cps[s + k]
        n += length[i]


@njit(cache=True, nogil=True)
def pair_csr(keys, count, cdf, rank, K, indptr, indices, tc, dc):  # pragma: no cover - compiled
    """The distinct pairs keys[p] = t * K + c (counts count[p], cdf[p]) as CSR over classes with
    the terms' ranks rank[t] as columns, ascending: indptr (K + 1, zeros) gets the offsets and
    indices, tc, dc (one entry per pair) the columns and counts. A counting pass by class (K
    streams written in order), then each class's entries sorted by rank with radix passes of
    11 bits: no comparison sort, no list of pairs in between, scratch for one class only."""
    P = len(keys)
    for p in range(P):
        indptr[keys[p] % K + 1] += 1
    for c in range(K):
        indptr[c + 1] += indptr[c]
    pos = indptr[:K].copy()
    for p in range(P):
        key = keys[p]
        t = key // K
        c = key - t * K
        i = pos[c]
        indices[i] = rank[t]
        tc[i] = count[p]
        dc[i] = cdf[p]
        pos[c] = i + 1
    big = 0
    for c in range(K):
        big = max(big, indptr[c + 1] - indptr[c])
    ti = np.empty(big, dtype=indices.dtype)
    tx = np.empty(big)
    ty = np.empty(big)
    bits = 1
    while (1 << bits) < len(rank):
        bits += 1
    D = 11
    mask = (1 << D) - 1
    cnt = np.zeros((1 << D) + 1, dtype=np.int64)
    for c in range(K):
        a, b = indptr[c], indptr[c + 1]
        n = b - a
        si, sx, sy = indices[a:b], tc[a:b], dc[a:b]
        di, dx, dy = ti[:n], tx[:n], ty[:n]
        moved = False
        for shift in range(0, bits, D):
            cnt[:] = 0
            for q in range(n):
                cnt[((si[q] >> shift) & mask) + 1] += 1
            for d in range(1 << D):
                cnt[d + 1] += cnt[d]
            for q in range(n):
                d = (si[q] >> shift) & mask
                i = cnt[d]
                di[i] = si[q]
                dx[i] = sx[q]
                dy[i] = sy[q]
                cnt[d] = i + 1
            si, sx, sy, di, dx, dy = di, dx, dy, si, sx, sy
            moved = not moved
        if moved:
            indices[a:b] = si
            tc[a:b] = sx
            dc[a:b] = sy


@njit(cache=True, nogil=True)
def renumber_slots(slots, rank):  # pragma: no cover - compiled
    """A term table's slots (key, id pairs; id -1: empty) with each id t replaced by rank[t]."""
    for i in range(1, len(slots), 2):
        t = slots[i]
        if t >= 0:
            slots[i] = rank[t]


@njit(cache=True, nogil=True)
def first_unsorted(cps, start, length):  # pragma: no cover - compiled
    """(i, same): the first term i > 0 that is not after term i - 1 in code point order (a
    prefix first), and whether it equals it; (-1, False) when the terms strictly increase."""
    for i in range(1, len(start)):
        a, b = start[i - 1], start[i]
        na, nb = length[i - 1], length[i]
        m = min(na, nb)
        j = 0
        while j < m and cps[a + j] == cps[b + j]:
            j += 1
        if j < m:
            if cps[b + j] < cps[a + j]:
                return i, False
        elif nb <= na:
            return i, nb == na
    return -1, False


@njit(cache=True, nogil=True)
def dense_pair_counts(count, cdf, order, K):  # pragma: no cover - compiled
    """indptr of the CSR over classes of the pairs held by dense rows (pair (t, c) at
    ``t * K + c``; held: a count or a document count not 0), terms taken in the order ``order``."""
    indptr = np.zeros(K + 1, dtype=np.int64)
    for r in range(len(order)):
        base = order[r] * K
        for c in range(K):
            if count[base + c] != 0 or cdf[base + c] != 0:
                indptr[c + 1] += 1
    for c in range(K):
        indptr[c + 1] += indptr[c]
    return indptr


@njit(cache=True, nogil=True)
def dense_pair_fill(count, cdf, order, K, indptr, indices, tc, dc):  # pragma: no cover - compiled
    """Fill the CSR of :func:`dense_pair_counts`: column (rank r of the term), count and
    document count of each pair, class by class, ranks ascending."""
    pos = indptr[:K].copy()
    for r in range(len(order)):
        base = order[r] * K
        for c in range(K):
            if count[base + c] != 0 or cdf[base + c] != 0:
                q = pos[c]
                indices[q] = r
                tc[q] = count[base + c]
                dc[q] = cdf[base + c]
                pos[c] = q + 1


#: bits of the first key sorted by one counting pass over all the terms; the parts it leaves
#: (terms sharing a first code point or so) are then sorted each within the cache
_TOP = 16


@njit(cache=True, nogil=True)
def term_keys(cps, start, length, bits, per, k1, k2, order):  # pragma: no cover - compiled
    """k1[t], k2[t] = code points 0..per-1 and per..2 per-1 of term t, each plus one (0: past
    its end), packed ``bits`` apiece into a uint64, the first in the highest bits (comparing
    keys compares those code points as Python compares str); order[t] = t."""
    b = np.uint64(bits)
    for t in range(len(start)):
        s = start[t]
        n = length[t]
        x = np.uint64(0)
        y = np.uint64(0)
        for j in range(per):
            c = np.uint64(0)
            if j < n:
                c = np.uint64(cps[s + j]) + np.uint64(1)
            x = (x << b) | c
            d = np.uint64(0)
            if per + j < n:
                d = np.uint64(cps[s + per + j]) + np.uint64(1)
            y = (y << b) | d
        k1[t] = x
        k2[t] = y
        order[t] = t


@njit(cache=True, nogil=True)
def top_split(k1, k2, order, shift, o1, o2, oo):  # pragma: no cover - compiled
    """(k1, k2, order) into (o1, o2, oo) by the bits of k1 from ``shift`` up, stably (one
    counting sort); returns the offsets of the 2 ** _TOP parts."""
    B = 1 << _TOP
    sh = np.uint64(shift)
    bounds = np.zeros(B + 1, dtype=np.int64)
    for i in range(len(k1)):
        bounds[(k1[i] >> sh) + np.uint64(1)] += 1
    for d in range(B):
        bounds[d + 1] += bounds[d]
    pos = bounds[:B].copy()
    for i in range(len(k1)):
        d = k1[i] >> sh
        p = pos[d]
        o1[p] = k1[i]
        o2[p] = k2[i]
        oo[p] = order[i]
        pos[d] = p + 1
    return bounds


@njit(cache=True, nogil=True)
def _key_at(cps, start, length, t, off, bits, per):  # pragma: no cover - compiled
    """Code points off..off + per - 1 of term t packed as in :func:`term_keys`."""
    s = start[t]
    n = length[t]
    k = np.uint64(0)
    for j in range(per):
        c = np.uint64(0)
        if off + j < n:
            c = np.uint64(cps[s + off + j]) + np.uint64(1)
        k = (k << np.uint64(bits)) | c
    return k


@njit(cache=True, nogil=True)
def _by_key(keys, order, i, j):  # pragma: no cover - compiled
    """Sort keys[i:j] (order[i:j] along) stably."""
    if j - i <= 16:
        for a in range(i + 1, j):
            k = keys[a]
            t = order[a]
            b = a - 1
            while b >= i and keys[b] > k:
                keys[b + 1] = keys[b]
                order[b + 1] = order[b]
                b -= 1
            keys[b + 1] = k
            order[b + 1] = t
    else:
        sub = np.argsort(keys[i:j], kind="mergesort")
        ks = keys[i:j][sub]
        os = order[i:j][sub]
        keys[i:j] = ks
        order[i:j] = os


@njit(cache=True, nogil=True)
def _radix(k1, k2, order, i, j, low_bits, t1, t2, to):  # pragma: no cover - compiled
    """Sort part i..j-1 of (k1, k2, order) by the low ``low_bits`` of k1 (their higher bits
    are equal), stably: least significant digit first, 8 bits a pass, through (t1, t2, to)."""
    n = j - i
    if n <= 32:
        for a in range(i + 1, j):
            x, y, t = k1[a], k2[a], order[a]
            b = a - 1
            while b >= i and k1[b] > x:
                k1[b + 1], k2[b + 1], order[b + 1] = k1[b], k2[b], order[b]
                b -= 1
            k1[b + 1], k2[b + 1], order[b + 1] = x, y, t
        return
    count = np.zeros(257, dtype=np.int64)
    s1, s2, so = k1[i:j], k2[i:j], order[i:j]
    d1, d2, do = t1[:n], t2[:n], to[:n]
    moved = False
    for shift in range(0, low_bits, 8):
        sh = np.uint64(shift)
        count[:] = 0
        for q in range(n):
            count[((s1[q] >> sh) & np.uint64(255)) + np.uint64(1)] += 1
        if count.max() == n:  # one digit for all: nothing moves
            continue
        for d in range(256):
            count[d + 1] += count[d]
        for q in range(n):
            d = (s1[q] >> sh) & np.uint64(255)
            p = count[d]
            d1[p] = s1[q]
            d2[p] = s2[q]
            do[p] = so[q]
            count[d] = p + 1
        s1, s2, so, d1, d2, do = d1, d2, do, s1, s2, so
        moved = not moved
    if moved:
        k1[i:j] = s1
        k2[i:j] = s2
        order[i:j] = so


@njit(cache=True, nogil=True)
def _settle(cps, start, length, k1, k2, order, bits, per, lo, hi):  # pragma: no cover - compiled
    """(k1, k2, order)[lo:hi] sorted by k1: each run of equal k1 sorted by k2 (the next per
    code points), then the runs still tied by the next per, and so on until none is (a run
    of copies of one term stays as it is)."""
    runs = np.empty(64, dtype=np.int64)
    m = 0
    i = lo
    while i < hi:
        j = i + 1
        while j < hi and k1[j] == k1[i]:
            j += 1
        if j - i > 1:
            if 2 * m + 2 > len(runs):
                grown = np.empty(2 * len(runs), dtype=np.int64)
                grown[: 2 * m] = runs[: 2 * m]
                runs = grown
            runs[2 * m] = i
            runs[2 * m + 1] = j
            m += 1
        i = j
    keys = k2
    off = per
    out = np.empty(len(runs), dtype=np.int64)
    while m > 0:
        nxt = 0
        for r in range(m):
            i, j = runs[2 * r], runs[2 * r + 1]
            longer = False
            for q in range(i, j):
                if length[order[q]] > off:
                    longer = True
                    break
            if not longer:  # copies of one term
                continue
            if off > per:  # (k2 holds the first round's keys)
                for q in range(i, j):
                    keys[q] = _key_at(cps, start, length, order[q], off, bits, per)
            _by_key(keys, order, i, j)
            a = i
            for q in range(i + 1, j + 1):
                if q == j or keys[q] != keys[a]:
                    if q - a > 1:  # still tied
                        if 2 * nxt + 2 > len(out):
                            grown = np.empty(2 * len(out), dtype=np.int64)
                            grown[: 2 * nxt] = out[: 2 * nxt]
                            out = grown
                        out[2 * nxt] = a
                        out[2 * nxt + 1] = q
                        nxt += 1
                    a = q
        runs, out = out, runs
        m = nxt
        off += per


@njit(cache=True, nogil=True)
def sort_parts(cps, start, length, k1, k2, order, bounds, p0, p1, low_bits, bits, per):  # pragma: no cover - compiled
    """Finish the sort of parts p0..p1-1 (offsets ``bounds``) of (k1, k2, order), each sorted
    on its own: by the rest of k1, then ties by the next code points."""
    big = 0
    for p in range(p0, p1):
        big = max(big, bounds[p + 1] - bounds[p])
    t1 = np.empty(big, dtype=k1.dtype)
    t2 = np.empty(big, dtype=k2.dtype)
    to = np.empty(big, dtype=order.dtype)
    for p in range(p0, p1):
        i, j = bounds[p], bounds[p + 1]
        if j - i > 1:
            _radix(k1, k2, order, i, j, low_bits, t1, t2, to)
            _settle(cps, start, length, k1, k2, order, bits, per, i, j)


def sort_order(cps: np.ndarray, start: np.ndarray, length: np.ndarray, n_threads: int = 1) -> np.ndarray:
    """The order of the terms ``cps[start[t]:start[t] + length[t]]`` by code points, a prefix
    first (Python's order on str, so scikit-learn's vocabulary order), without a Python string.

    Each term's first code points (plus one, so 0 marks the end) are packed into two uint64
    keys (:func:`term_keys`); one counting pass splits the terms by the top bits of the first
    key into parts, each part is sorted in the cache by the rest of it (radix) and its ties
    by the second key, then by the next code points, only for the terms still tied. The parts
    are independent: ``n_threads`` sort them at once (the kernels release the GIL). Stable:
    equal terms keep their order, adjacent."""
    n = len(start)
    if n < 2:
        return np.arange(n, dtype=np.int64)
    start, length = np.ascontiguousarray(start), np.ascontiguousarray(length)
    bits = (int(cps.max()) + 1).bit_length() if len(cps) else 1
    per = max(1, 64 // bits)
    k1, k2, order = np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int64)
    term_keys(cps, start, length, bits, per, k1, k2, order)
    used = bits * per
    shift = max(0, used - _TOP)
    s1, s2, so = np.empty_like(k1), np.empty_like(k2), np.empty_like(order)
    bounds = top_split(k1, k2, order, shift, s1, s2, so)
    del k1, k2, order
    parts = len(bounds) - 1
    if n_threads <= 1 or n < 1 << 16:
        sort_parts(cps, start, length, s1, s2, so, bounds, 0, parts, shift, bits, per)
        return so
    # contiguous runs of parts with about as many terms each, one per thread
    cuts = np.searchsorted(bounds, np.linspace(0, n, n_threads + 1)[1:-1])
    edges = [0, *sorted(set(int(c) for c in cuts) - {0, parts}), parts]
    with ThreadPoolExecutor(len(edges) - 1) as pool:
        list(pool.map(lambda k: sort_parts(cps, start, length, s1, s2, so, bounds, edges[k], edges[k + 1], shift,
                                           bits, per), range(len(edges) - 1)))
    return so


def term_strings(cps: np.ndarray, start: np.ndarray, length: np.ndarray) -> list[str]:
    """The terms ``cps[start[t]:start[t] + length[t]]`` as Python strings: one buffer of the
    terms joined by NUL, decoded and split in C (not a slice per term)."""
    n = len(start)
    if n == 0:
        return []
    total = int(length.sum())
    if len(cps) and int(cps.min()) == 0:  # a term holds NUL itself: slice each one
        text = cps.astype(np.uint32).tobytes().decode("utf-32-le", errors="surrogatepass")
        return [text[s : s + m] for s, m in zip(start.tolist(), length.tolist())]
    wide = len(cps) > 0 and int(cps.max()) > 255
    out = np.empty(total + n - 1, dtype=np.uint32 if wide else np.uint8)
    join_terms(cps, start, length, out)
    text = out.tobytes().decode("utf-32-le", errors="surrogatepass") if wide else out.tobytes().decode("latin-1")
    return text.split("\x00")
