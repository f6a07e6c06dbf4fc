"""Vocabularies in code point order without sorting Python strings.

scikit-learn's vocabulary is sorted as Python sorts str: by code points, a prefix first. The
terms a learner collects live as code points in one buffer (term t is
``cps[start[t]:start[t] + length[t]]``); :func:`sort_order` orders them by packing their code
points into uint64 keys that numpy sorts, :func:`term_strings` makes the Python strings in one
decode and split, and :func:`pair_order` lays (class, term) pairs out as CSR with two counting
sorts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["join_terms", "pair_order", "sort_keys", "sort_order", "term_strings"]


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
def sort_keys(cps, start, length, idx, off, bits, per, out):  # pragma: no cover - compiled
    """out[i] = code points off..off + per - 1 of term idx[i], each plus one (0: past the
    end), packed ``bits`` apiece into a uint64, the first in the highest bits: comparing keys
    compares those code points as Python compares str."""
    for i in range(len(idx)):
        t = idx[i]
        s = start[t]
        n = length[t]
        k = np.uint64(0)
        for j in range(per):
            c = np.uint64(0)
            if off + j < n:
                c = np.uint64(cps[s + off + j]) + np.uint64(1)
            k = (k << np.uint64(bits)) | c
        out[i] = k


@njit(cache=True, nogil=True)
def pair_order(term, cls, n_terms, K):  # pragma: no cover - compiled
    """The pairs (term[p], cls[p]), distinct, in CSR order over classes: (order, indptr) with
    order sorted by class then term (two counting sorts, no comparison sort)."""
    P = len(term)
    at = np.zeros(n_terms + 1, dtype=np.int64)
    for p in range(P):
        at[term[p] + 1] += 1
    for t in range(n_terms):
        at[t + 1] += at[t]
    by_term = np.empty(P, dtype=np.int64)
    for p in range(P):
        by_term[at[term[p]]] = p
        at[term[p]] += 1
    indptr = np.zeros(K + 1, dtype=np.int64)
    for p in range(P):
        indptr[cls[p] + 1] += 1
    for c in range(K):
        indptr[c + 1] += indptr[c]
    pos = indptr[:K].copy()
    order = np.empty(P, dtype=np.int64)
    for q in range(P):
        p = by_term[q]
        order[pos[cls[p]]] = p
        pos[cls[p]] += 1
    return order, indptr


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


def sort_order(cps: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The order of the terms ``cps[start[t]:start[t] + length[t]]`` by code points, a prefix
    first (Python's order on str, so scikit-learn's vocabulary order), without a Python string.

    Each term's next few code points (plus one, so 0 marks the end) are packed into a uint64
    key; numpy sorts by the first keys, then only the terms still tied are sorted again by
    their next keys, within their groups, until no two are tied (equal terms end adjacent)."""
    n = len(start)
    if n < 2:
        return np.arange(n, dtype=np.int64)
    bits = (int(cps.max()) + 1).bit_length() if len(cps) else 1
    per = max(1, 64 // bits)

    start, length = np.ascontiguousarray(start), np.ascontiguousarray(length)

    def keys(idx: np.ndarray, off: int) -> np.ndarray:
        out = np.empty(len(idx), dtype=np.uint64)
        sort_keys(cps, start, length, idx, off, bits, per, out)
        return out

    k = keys(np.arange(n), 0)
    order = np.argsort(k, kind="stable")
    k = k[order]
    group = np.concatenate([[0], np.cumsum(k[1:] != k[:-1])])
    pos = np.arange(n)
    longest, off = int(length.max()), 0
    while True:
        tied = np.zeros(len(pos), dtype=bool)
        same = group[1:] == group[:-1]
        tied[1:] |= same
        tied[:-1] |= same
        off += per
        # a group of tied terms all compared to their ends holds copies of one term: done
        longer = np.zeros(int(group[-1]) + 1, dtype=bool)
        longer[group[length[order[pos]] > off]] = True
        tied &= longer[group]
        if not tied.any() or off > longest:
            return order
        pos, group = pos[tied], group[tied]
        k = keys(order[pos], off)
        sub = np.lexsort((k, group))
        order[pos] = order[pos][sub]
        group, k = group[sub], k[sub]
        group = np.concatenate([[0], np.cumsum((group[1:] != group[:-1]) | (k[1:] != k[:-1]))])


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
