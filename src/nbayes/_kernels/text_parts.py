"""A fitted vocabulary's word n-grams as the ids of their parts, by which lookups confirm them.

A word n-gram "w1 .. wn" is its prefix "w1 .. w(n-1)" and its last word "wn", joined by one
space. When both are terms of the table (every shorter n-gram counted: ``ngram_range`` from 1),
``parts[t] = (prefix id, last word id)``, and a lookup that has just found the prefix and the
word of a document's n-gram (the previous token's terms and this token's word) confirms a
matching key by these two ids in one read, rather than by the term's length, start and code
points (three reads into tables of 100+ MB with bigrams). See :func:`nbayes._kernels.text._grams`.

Exactness. ``parts[t]`` is known only when t, split at its last space, is two terms a and b:
then t == query "p w" (w a token: no space) exactly when a == p and b == w, i.e. when their ids
are equal. A query whose prefix or word is not a term (id -1) can only equal a term whose
parts are unknown (were its parts known, its prefix and word would be terms, found by the
lookups that gave -1), and those are confirmed by their code points. So a table may leave any
term's parts unknown (-1) without a wrong miss or match: pruned vocabularies, terms added by
an online update, statistics absorbed from elsewhere.

Complete tables. A term holding a space whose parts are unknown is *loose*. In a table without
loose terms (a vocabulary counted with ``ngram_range`` from 1 and not pruned, or pruned by a
``min_df``: an n-gram's prefix and word occur wherever it does), an n-gram whose prefix or
last word is no term is no term either: the lookup answers -1 without a key or a probe. The
kernels below return the number of loose terms.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from .text import NO_PARTS, _find, _key

__all__ = ["NO_PARTS", "build_parts", "extended_parts", "gram_parts", "kept_parts", "renumbered_parts"]

#: terms a thread at least when a table's parts are built on several
_PER_THREAD = 1 << 16


def build_parts(slots: np.ndarray, start: np.ndarray, length: np.ndarray, cps: np.ndarray,
                T: int) -> tuple[np.ndarray, int]:
    """(parts, number of loose terms) of the table (:func:`gram_parts`), its terms split in up
    to ``T`` ranges built on Python threads."""
    n = len(start)
    parts = np.empty((n, 2), dtype=np.int32)
    T = max(1, min(int(T), n // _PER_THREAD))
    if T == 1:
        return parts, int(gram_parts(slots, start, length, cps, parts, 0, n))
    cuts = [n * k // T for k in range(T + 1)]
    with ThreadPoolExecutor(T) as pool:
        loose = sum(pool.map(lambda k: int(gram_parts(slots, start, length, cps, parts, cuts[k], cuts[k + 1])),
                             range(T)))
    return parts, loose


@njit(cache=True, nogil=True, inline="always")
def _parts_of(t, slots, start, length, cps):  # pragma: no cover - compiled
    """(prefix id, last word id, loose) of term t: its two parts when, split at its last space,
    it is two terms of the table, else -1 and -1; ``loose``: it holds a space and its parts are
    unknown."""
    s = start[t]
    e = s + length[t]
    b = e - 1
    while b > s and cps[b] != 32:
        b -= 1
    spaced = e > s and cps[b] == 32
    if b <= s or b >= e - 1:  # no space, or the space first or last: not "prefix word"
        return -1, -1, spaced
    key, exact = _key(cps, s, b)
    a = slots[2 * _find(cps, s, b, key, exact, slots, start, length, cps) + 1]
    if a < 0:
        return -1, -1, True
    key, exact = _key(cps, b + 1, e)
    w = slots[2 * _find(cps, b + 1, e, key, exact, slots, start, length, cps) + 1]
    if w < 0:
        return -1, -1, True
    return a, w, False


@njit(cache=True, nogil=True, inline="always")
def _look_up(t, slots, start, length, cps, out, r):  # pragma: no cover - compiled
    """out[r] = the parts of term t (:func:`_parts_of`); returns whether t is loose."""
    a, w, lost = _parts_of(t, slots, start, length, cps)
    out[r, 0] = a
    out[r, 1] = w
    return lost


@njit(cache=True, nogil=True, inline="always")
def _moved(parts, j, ids, out, r):  # pragma: no cover - compiled
    """out[r] = the parts of old term j with their ids mapped by ``ids`` (unknown stays -1);
    returns whether they are known."""
    a = parts[j, 0]
    if a < 0:
        out[r, 0] = -1
        out[r, 1] = -1
        return False
    out[r, 0] = ids[a]
    out[r, 1] = ids[parts[j, 1]]
    return True


@njit(cache=True, nogil=True, inline="always")
def _spaced(t, start, length, cps):  # pragma: no cover - compiled
    for p in range(start[t], start[t] + length[t]):
        if cps[p] == 32:
            return True
    return False


@njit(cache=True, nogil=True)
def gram_parts(slots, start, length, cps, out, t0=0, t1=-1):  # pragma: no cover - compiled
    """out[t] = the parts of each term t of the table (:func:`_parts_of`), for t in t0..t1 (-1:
    all terms; ranges may run on threads, the kernel releases the GIL): two lookups by code
    points a term. Returns the number of loose terms among them."""
    loose = 0
    for t in range(t0, len(start) if t1 < 0 else t1):
        loose += _look_up(t, slots, start, length, cps, out, t)
    return loose


@njit(cache=True, nogil=True)
def extended_parts(parts, new_id, fresh_ids, slots, start, length, cps, out):  # pragma: no cover - compiled
    """The parts of a table grown by an online update: each old term's (``parts``) moved to its
    new id ``new_id[j]``, their ids renumbered, and each new term's (ids ``fresh_ids``) looked
    up in the grown table (slots, start, length, cps); an old term whose part was missing is
    looked up again (the update may have added it). Returns the number of loose terms."""
    loose = 0
    for j in range(len(parts)):
        r = new_id[j]
        # unknown parts, mostly single words (one scan for a space): looked up again
        if not _moved(parts, j, new_id, out, r) and _spaced(r, start, length, cps):
            loose += _look_up(r, slots, start, length, cps, out, r)
    for f in range(len(fresh_ids)):
        t = fresh_ids[f]
        loose += _look_up(t, slots, start, length, cps, out, t)
    return loose


@njit(cache=True, nogil=True)
def renumbered_parts(parts, order, rank, start, length, cps, out):  # pragma: no cover - compiled
    """A learner's parts (its columns 0, 1: its own ids) for the sorted vocabulary (start,
    length, cps: its terms in sorted order): out[r] the parts of term order[r], their ids mapped
    by ``rank`` (-1 stays -1). Returns the number of loose terms (unknown parts and a space:
    absorbed from statistics without parts)."""
    loose = 0
    for r in range(len(order)):
        if not _moved(parts, order[r], rank, out, r):
            loose += _spaced(r, start, length, cps)
    return loose


@njit(cache=True, nogil=True)
def kept_parts(parts, keep, out):  # pragma: no cover - compiled
    """The parts of the terms ``keep`` selects (a pruned vocabulary, ids renumbered in order)
    from those of a table without loose terms: a kept n-gram whose prefix or last word is
    dropped becomes loose (-1). Returns the number of loose terms."""
    new_id = np.empty(len(keep), dtype=np.int64)
    r = 0
    for t in range(len(keep)):
        new_id[t] = r
        r += keep[t]
    loose = 0
    for t in range(len(keep)):
        if keep[t]:
            r = new_id[t]
            a = parts[t, 0]
            out[r, 0] = -1
            out[r, 1] = -1
            if a >= 0:
                w = parts[t, 1]
                if keep[a] and keep[w]:
                    out[r, 0] = new_id[a]
                    out[r, 1] = new_id[w]
                else:
                    loose += 1
    return loose
