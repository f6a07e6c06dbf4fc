"""Text kernels: tokenise and look up (or learn) terms in one pass, without building a matrix.

Documents arrive as one buffer of code points (uint8 for Latin-1 text, uint32 otherwise),
already lower-cased, document d spanning ``bounds[d]:bounds[d + 1]``. A token is a maximal run
of word characters (``is_word``) at least two long: exactly what scikit-learn's default
``(?u)\\b\\w\\w+\\b`` finds.

Terms live in an open-addressing table, ``slots[2 i]`` a key and ``slots[2 i + 1]`` a term id
(-1: empty). A token of at most 7 Latin-1 characters is its own key (its bytes packed with its
length): equal keys are equal terms. A longer token's key is a 64-bit FNV-1a hash with the top
bit clear, and a matching key is confirmed against the term's code points ``cps[start[t]:+len]``,
so no collision can ever merge two terms. While learning, a word n-gram is also its two parts
(the ids of its prefix (n-1)-gram and last word, ``parts[t, 0:2]``), which confirm a matching
key in one read when every shorter n-gram is counted; ``parts[t, 2:4]`` keeps t's first
(class, term) pair, its class and index (:func:`_pair_of`).

Hashing mode keeps no table: a term's column is scikit-learn's MurmurHash3 bucket of its UTF-8
bytes, an n-gram hashed as "w1 w2" from running hash states, without building the string.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from typing import Any

import numpy as np
from numba import njit

from .murmur import bucket, feed, finish, murmur3, to_bucket

__all__ = ["build", "count_new", "gram_scratch", "hash_counts", "lean", "learn_counts", "merge_learned", "murmur3", "rehash", "term_ids"]

_NO_REFCOUNTS: dict[str, Any] = {"_nrt": False}
#: a table's n-gram parts when it keeps none (see :mod:`.text_parts`): code points confirm
NO_PARTS = np.full((0, 2), -1, dtype=np.int32)


def lean(fn: Any) -> Any:
    """``njit`` for the hot loops: compiled without reference counting (numba's NRT). Such a
    kernel allocates nothing (its caller passes the scratch arrays); the counts of references
    to the arrays its inlined helpers take, kept on every token otherwise, cost up to 2x on 20
    Newsgroups (scoring 0.24 -> 0.12 s, counting 0.29 -> 0.24 s, one thread)."""
    return njit(cache=True, nogil=True, **_NO_REFCOUNTS)(fn)


_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
_MIX = np.uint64(0x9E3779B97F4A7C15)
_TOP = np.uint64(1) << np.uint64(63)
_LOW63 = ~(np.uint64(1) << np.uint64(63))


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
def _find_ids(buf, s, e, key, exact, pre, word, slots, start, length, cps, parts):  # pragma: no cover
    """:func:`_find` for an n-gram whose prefix and last word are terms ``pre`` and ``word``:
    a matching key is confirmed by ``parts[t]`` when known, else by the code points."""
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
            a = parts[t, 0]
            if a >= 0:
                if a == pre and parts[t, 1] == word:
                    return i
            elif length[t] == e - s:
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
def _next_token(buf, i, e, is_word):  # pragma: no cover - compiled
    """The next token at or after i before e: (start, end), or (e, e) when there is none."""
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


@njit(cache=True, nogil=True, inline="always")
def _gram_key(buf, ring, hi, last, n):  # pragma: no cover - compiled
    """``_key`` of the n-gram of tokens last-n+1..last (ring of spans), joined by spaces: the
    same key ``_key`` gives the stored string "w1 w2"."""
    total = n - 1
    for m in range(n):
        q = (last - n + 1 + m) % hi
        total += ring[q, 1] - ring[q, 0]
    if total <= 7:
        k = np.uint64(total) << np.uint64(56)
        short = True
        pos = 0
        for m in range(n):
            q = (last - n + 1 + m) % hi
            if m > 0:
                k |= np.uint64(32) << np.uint64(8 * pos)
                pos += 1
            for p in range(ring[q, 0], ring[q, 1]):
                c = np.uint64(buf[p])
                if c > np.uint64(255):
                    short = False
                k |= (c & np.uint64(255)) << np.uint64(8 * pos)
                pos += 1
        if short:
            return k | _TOP, True, total
    h = _FNV_OFFSET
    for m in range(n):
        q = (last - n + 1 + m) % hi
        if m > 0:
            h = (h ^ np.uint64(32)) * _FNV_PRIME
        for p in range(ring[q, 0], ring[q, 1]):
            h = (h ^ np.uint64(buf[p])) * _FNV_PRIME
    return h & _LOW63, False, total


@njit(cache=True, nogil=True, inline="always")
def _gram_same(buf, ring, hi, last, n, cps, p):  # pragma: no cover - compiled
    """Whether the code points from cps[p] on are the n-gram of tokens last-n+1..last joined by
    spaces (the caller has checked the length)."""
    for m in range(n):
        q = (last - n + 1 + m) % hi
        if m > 0:
            if cps[p] != 32:
                return False
            p += 1
        for r in range(ring[q, 0], ring[q, 1]):
            if cps[p] != buf[r]:
                return False
            p += 1
    return True


@njit(cache=True, nogil=True, inline="always")
def _gram_find(buf, ring, hi, last, n, key, exact, total, slots, start, length, cps):  # pragma: no cover
    """``_find`` for an n-gram: the slot holding it, or the empty slot where it would go."""
    mask = len(slots) // 2 - 1
    i = _home(key, mask)
    ik = np.int64(key)
    while True:
        t = slots[2 * i + 1]
        if t < 0:
            return i
        if slots[2 * i] == ik and (exact or length[t] == total):
            if exact or _gram_same(buf, ring, hi, last, n, cps, start[t]):
                return i
        i = (i + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def _gram_find_ids(buf, ring, hi, last, n, key, exact, total, pre, word, slots, start, length, cps,
                   parts):  # pragma: no cover
    """:func:`_gram_find` while learning with every shorter n-gram counted (``lo_n == 1``): an
    n-gram is its prefix (the (n-1)-gram before its last word) and its last word, both terms of
    the table already, so a matching key is confirmed by the two ids ``parts[t]`` (one read)
    rather than by its code points (three). A term whose parts are unknown (-1: absorbed from
    statistics without them) is confirmed by its code points."""
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
            a = parts[t, 0]
            if a >= 0:
                if a == pre and parts[t, 1] == word:
                    return i
            elif length[t] == total and _gram_same(buf, ring, hi, last, n, cps, start[t]):
                return i
        i = (i + 1) & mask


@njit(cache=True, nogil=True, inline="always")
def _is_stop(buf, i, j, key, exact, stop_slots, stop_start, stop_length, stop_cps):  # pragma: no cover
    if len(stop_start) == 0:
        return False
    return stop_slots[2 * _find(buf, i, j, key, exact, stop_slots, stop_start, stop_length, stop_cps) + 1] >= 0


@njit(cache=True, nogil=True, inline="always")
def _insert(buf, ring, hi, ntok, n, slot, key, slots, keys, start, length, cps, n_terms, n_cps, last):  # pragma: no cover
    """Add the n-gram ending at token ntok - 1 as a new term in the empty ``slot``."""
    t = n_terms
    slots[2 * slot] = np.int64(key)
    slots[2 * slot + 1] = t
    keys[t] = np.int64(key)
    start[t] = n_cps
    for m in range(n):
        q = (ntok - n + m) % hi
        if m > 0:
            cps[n_cps] = 32
            n_cps += 1
        for r in range(ring[q, 0], ring[q, 1]):
            cps[n_cps] = buf[r]
            n_cps += 1
    length[t] = n_cps - start[t]
    last[t] = -1
    return t, n_terms + 1, n_cps


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


@njit(cache=True, nogil=True)
def count_new(slots, start, length, cps, o_keys, o_start, o_length, o_cps, o_n_terms):  # pragma: no cover - compiled
    """How many of another learner's terms this table lacks (what a merge will add)."""
    new = 0
    for u in range(o_n_terms):
        key = o_keys[u]
        s = o_start[u]
        slot = _find(o_cps, s, s + o_length[u], np.uint64(key), key < 0, slots, start, length, cps)
        if slots[2 * slot + 1] < 0:
            new += 1
    return new


@njit(cache=True, nogil=True)
def merge_learned(terms, n_terms, n_cps, K, pairs, n_pairs, df, tf, other, o_n_terms, o_pairs, o_n_pairs, o_df,
                  o_tf, parts, o_parts):  # pragma: no cover - compiled
    """Add what another learner counted (its term table ``other``, pair table ``o_pairs`` and
    per-term df / tf, over other documents) to this one's, as if this one had counted those
    documents too: a term is found by its code points, or by the ids of its prefix and last
    word when both learners know them (``parts``, ``o_parts``: see :func:`_gram_find_ids`;
    empty: not kept), new ones are appended. The caller has reserved room for all of the
    other's terms, code points and pairs. Returns (n_terms, n_cps, n_pairs)."""
    slots, keys, start, length, cps, last = terms
    pslots, pkeys, pcount, pcdf = pairs
    _, o_keys, o_start, o_length, o_cps, _ = other
    _, o_pkeys, o_pcount, o_pcdf = o_pairs
    has_parts = len(parts) > 0
    by_ids = has_parts and len(o_parts) > 0 and len(parts) < _PARTS_MAX
    where = np.empty(o_n_terms, dtype=np.int64)
    for u in range(o_n_terms):
        key = o_keys[u]
        s, e = o_start[u], o_start[u] + o_length[u]
        pre = -1
        word = -1
        if by_ids and o_parts[u, 0] >= 0:  # its prefix and word come before it: already placed
            pre = where[o_parts[u, 0]]
            word = where[o_parts[u, 1]]
            slot = _find_ids(o_cps, s, e, np.uint64(key), key < 0, pre, word, slots, start, length, cps, parts)
        else:
            slot = _find(o_cps, s, e, np.uint64(key), key < 0, slots, start, length, cps)
        t = slots[2 * slot + 1]
        if t < 0:  # a term the other learner alone saw
            t = n_terms
            n_terms += 1
            slots[2 * slot] = key
            slots[2 * slot + 1] = t
            keys[t] = key
            start[t] = n_cps
            length[t] = e - s
            last[t] = -1
            if has_parts:
                parts[t, 0] = pre
                parts[t, 1] = word
                parts[t, 2] = -1
            cps[n_cps:n_cps + e - s] = o_cps[s:e]
            n_cps += e - s
        df[t] += o_df[u]
        tf[t] += o_tf[u]
        where[u] = t
    o_dense = len(o_pairs[0]) == 0
    for q in range(o_n_terms * K if o_dense else o_n_pairs):
        key = q if o_dense else o_pkeys[q]
        if o_dense and o_pcount[q] == 0 and o_pcdf[q] == 0:
            continue  # a pair the other learner never saw
        p, n_pairs = _pair_of(where[key // K], key % K, K, pslots, pkeys, n_pairs, parts)
        pcount[p] += o_pcount[q]
        pcdf[p] += o_pcdf[q]
    return n_terms, n_cps, n_pairs


@njit(cache=True, nogil=True)
def rehash(slots, keys, n_terms):  # pragma: no cover - compiled
    """Re-insert terms 0..n_terms-1 into a larger, empty table."""
    mask = len(slots) // 2 - 1
    for t in range(n_terms):
        i = _home(np.uint64(keys[t]), mask)
        while slots[2 * i + 1] >= 0:
            i = (i + 1) & mask
        slots[2 * i] = keys[t]
        slots[2 * i + 1] = t


@njit(cache=True, nogil=True)
def build(cps, start, length, slots, keys):  # pragma: no cover - compiled
    """A table over a given vocabulary: term t is cps[start[t]:start[t] + length[t]]."""
    for t in range(len(start)):
        key, exact = _key(cps, start[t], start[t] + length[t])
        keys[t] = np.int64(key)
    rehash(slots, keys, len(start))


@njit(cache=True, nogil=True, inline="always")
def _push(out, n, d, t, s, e):  # pragma: no cover - compiled
    """Append the row (d, t, s, e) to ``out`` (grown by doubling); returns the array."""
    if n == out.shape[0]:
        grown = np.empty((2 * n, 4), dtype=np.int64)
        grown[:n] = out[:n]
        out = grown
    out[n, 0] = d
    out[n, 1] = t
    out[n, 2] = s
    out[n, 3] = e
    return out


# ----------------------------------------------------------------------------- the walkers
# One body for both modes. ``n_features > 0``: hashing mode, a term is its bucket and there is
# no table. ``n_features == 0``: vocabulary mode, a term is its id in the table
# ``terms = (slots, keys, start, length, cps, last, parts, complete)`` (keys and last: for
# learn_counts; parts, complete: a fitted table's n-grams as their parts, :mod:`.text_parts`).
# ``stop = (slots, start, length, cps)``: the stop-word table (empty: none).


@njit(cache=True, nogil=True, inline="always")
def _word(buf, i, j, n_features, terms):  # pragma: no cover - compiled
    """The term of the single word buf[i:j] (unigrams, no stop words: the lean common case):
    its bucket, or its id (-1 when unknown)."""
    if n_features > 0:
        return bucket(buf, i, j, n_features)
    slots, start, length, cps = terms[0], terms[2], terms[3], terms[4]
    key, exact = _key(buf, i, j)
    return slots[2 * _find(buf, i, j, key, exact, slots, start, length, cps) + 1]


@njit(cache=True, nogil=True, inline="always")
def _grams(buf, i, j, ntok, ring, states, lo_n, hi_n, stop, n_features, terms, found):  # pragma: no cover
    """Take the token buf[i:j] (unless a stop word: scikit-learn drops those before forming
    n-grams) and put the terms of the n-grams lo_n..hi_n it ends in found[0 : count], longest
    last, as :func:`_word` would for each. ``ring[q]`` is the span of kept token q (mod hi_n).
    ``found`` holds 2 hi_n: its second half keeps the previous token's terms, the prefixes of
    this one's n-grams (when the table knows its n-grams' parts, ``terms[6]``; ``terms[7]``:
    whether it knows those of all its terms holding a space, see :mod:`.text_parts`).

    Hashing mode hashes an n-gram as scikit-learn hashes the string "w1 w2 ...": its words'
    UTF-8 bytes joined by one space. ``states[q]`` is the running hash (h, k, nb, total) of the
    words from token q (mod hi_n) on, so each word is fed once per n-gram that holds it and no
    string is built. Vocabulary mode computes an n-gram's key from its words the same way.
    Returns (ntok, count)."""
    if n_features == 0 or len(stop[1]) > 0:
        key1, exact1 = _key(buf, i, j)
    else:
        key1, exact1 = np.uint64(0), True
    if len(stop[1]) > 0 and _is_stop(buf, i, j, key1, exact1, stop[0], stop[1], stop[2], stop[3]):
        return ntok, 0
    # with every shorter n-gram a term and the table's parts known (lo_n == 1, see
    # :func:`gram_parts`), an n-gram is confirmed by its prefix's and last word's ids
    by_ids = n_features == 0 and lo_n == 1 and hi_n > 1 and len(terms[6]) > 0
    t = ntok  # this token's index among the kept tokens
    q = t % hi_n
    ring[q, 0] = i
    ring[q, 1] = j
    ntok = t + 1
    if n_features > 0:
        # extend the n-grams that started on the previous hi_n - 1 tokens by " " + this word
        for s in range(max(0, t - hi_n + 1), t):
            r = s % hi_n
            h, k, nb, total = feed(states[r, 0], states[r, 1], np.int64(states[r, 2]), np.int64(states[r, 3]),
                                   np.uint64(32))
            for p in range(i, j):
                h, k, nb, total = feed(h, k, nb, total, np.uint64(buf[p]))
            states[r, 0], states[r, 1], states[r, 2], states[r, 3] = h, k, np.uint64(nb), np.uint64(total)
        # this word starts a new one (its slot held token t - hi_n, too far back to matter now)
        h, k, nb, total = np.uint64(0), np.uint64(0), 0, 0
        for p in range(i, j):
            h, k, nb, total = feed(h, k, nb, total, np.uint64(buf[p]))
        states[q, 0], states[q, 1], states[q, 2], states[q, 3] = h, k, np.uint64(nb), np.uint64(total)
    count = 0
    for n in range(lo_n, min(hi_n, ntok) + 1):
        if n_features > 0:
            r = (t - n + 1) % hi_n
            found[count] = to_bucket(finish(states[r, 0], states[r, 1], np.int64(states[r, 2]),
                                            np.int64(states[r, 3])), n_features)
        else:
            slots, _, start, length, cps, _, parts, complete = terms
            if n == 1:
                slot = _find(buf, i, j, key1, exact1, slots, start, length, cps)
            elif by_ids and complete and (found[hi_n + n - 2] < 0 or found[0] < 0):
                # every n-gram of the table has its parts known: one whose prefix or last word
                # is no term is none either (no key computed, no probe)
                found[count] = -1
                count += 1
                continue
            else:
                key, exact, total = _gram_key(buf, ring, hi_n, t, n)
                if by_ids:  # prefix: the (n-1)-gram ending on the previous token; last word: found[0]
                    slot = _gram_find_ids(buf, ring, hi_n, t, n, key, exact, total, found[hi_n + n - 2], found[0],
                                          slots, start, length, cps, parts)
                else:
                    slot = _gram_find(buf, ring, hi_n, t, n, key, exact, total, slots, start, length, cps)
            found[count] = slots[2 * slot + 1]
        count += 1
    if by_ids:  # this token's n-grams are the next one's prefixes
        for m in range(count):
            found[hi_n + m] = found[m]
    return ntok, count


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
def found_terms(buf, i, j, ntok, ring, states, lo_n, hi_n, stop, n_features, terms, found, simple):  # pragma: no cover
    """The terms the token buf[i:j] completes, into ``found``: (ntok, how many). ``simple``
    (single words, no stop list) looks the word up alone; else the n-grams it ends."""
    if simple:
        found[0] = _word(buf, i, j, n_features, terms)
        return ntok, 1
    return _grams(buf, i, j, ntok, ring, states, lo_n, hi_n, stop, n_features, terms, found)


def learn_counts(buf, bounds, doc0, codes, w, has_w, is_word, lo_n, hi_n, stop, terms, n_terms, n_cps, K, pairs,
                 n_pairs, df, tf, parts=None):
    """:func:`_learn_counts` with its scratch (the ring of token spans and of the ids of the
    n-grams ending on each) made here: the kernel allocates nothing, so it runs without
    reference counting (see :func:`lean`). ``parts`` (terms x 4): per n-gram its prefix and
    last word ids (see :func:`_gram_find_ids`), per term its first pair (see :func:`_pair_of`), int32,
    kept by the learner; None: none kept."""
    if parts is None:
        parts = np.full((0, 4), -1, dtype=np.int32)
    return _learn_counts(buf, bounds, doc0, codes, w, has_w, is_word, lo_n, hi_n, stop, terms, n_terms, n_cps, K,
                         pairs, n_pairs, df, tf, parts, np.zeros((hi_n, 2), dtype=np.int64),
                         np.zeros((hi_n, hi_n), dtype=np.int64))


@lean
def _learn_counts(buf, bounds, doc0, codes, w, has_w, is_word, lo_n, hi_n, stop, terms, n_terms, n_cps,
                  K, pairs, n_pairs, df, tf, parts, ring, tid):  # pragma: no cover - compiled
    """Tokenise documents doc0.., drop stop words, form the word n-grams lo_n..hi_n of what is
    left (scikit-learn's order of operations) and count, per term t (new terms are added to the
    table ``terms``) and class c of the K, on the pair (t, c) of the pair table ``pairs`` (see
    :func:`_add`): the weighted occurrences and the weighted documents containing t; and
    df[t] / tf[t] the unweighted documents containing t / occurrences. ``terms[5]`` (last)
    holds, per term, the last document that counted it. With ``lo_n == 1`` and ``parts`` an
    n-gram is found by its prefix's and last word's ids (``tid[q, n - 1]``: the id of the
    n-gram ending on kept token q, mod hi_n), and its new terms' parts are recorded.

    Stops before a document that could overflow a table or array and returns
    (next document, n_terms, n_cps, n_pairs) so the caller can grow them and resume. Its loop is written
    out rather than through :func:`_word` / :func:`_grams` with an insert step: that measured
    25-60% slower on 20 Newsgroups. The twin test checks it against the Python twin.
    """
    slots, keys, start, length, cps, last = terms
    n_docs = len(bounds) - 1
    half = len(slots) // 4
    simple = hi_n == 1 and len(stop[1]) == 0
    has_parts = len(parts) > 0
    by_ids = has_parts and lo_n == 1 and len(parts) < _PARTS_MAX  # ids < len(parts) fit in int32
    span = 0
    for n in range(lo_n, hi_n + 1):
        span += 2 * n
    for d in range(doc0, n_docs):
        s0 = bounds[d]
        e0 = bounds[d + 1]
        room = ((e0 - s0) // 2 + 1) * (hi_n - lo_n + 1)
        if (n_terms + room > half or n_terms + room > len(keys) or n_cps + span * (e0 - s0) > len(cps)
                or (has_parts and n_terms + room > len(parts)) or full(pairs, n_pairs, n_terms, room, K)):
            return d, n_terms, n_cps, n_pairs
        c = codes[d]
        wd = w[d] if has_w else 1.0
        ntok = 0
        i, j = _next_token(buf, s0, e0, is_word)
        while i < e0:
            if simple:  # single words, no stop list: the common case, kept lean
                key, exact = _key(buf, i, j)
                slot = _find(buf, i, j, key, exact, slots, start, length, cps)
                t = slots[2 * slot + 1]
                if t < 0:
                    ring[0, 0] = i
                    ring[0, 1] = j
                    t, n_terms, n_cps = _insert(buf, ring, 1, 1, 1, slot, key, slots, keys, start, length,
                                                cps, n_terms, n_cps, last)
                    if has_parts:
                        parts[t, 0] = -1
                        parts[t, 1] = -1
                        parts[t, 2] = -1
                n_pairs = _add(t, c, K, wd, d, pairs, n_pairs, df, tf, last, parts)
            else:
                key1, exact1 = _key(buf, i, j)
                if not _is_stop(buf, i, j, key1, exact1, stop[0], stop[1], stop[2], stop[3]):
                    q0 = ntok % hi_n
                    ring[q0, 0] = i
                    ring[q0, 1] = j
                    ntok += 1
                    for n in range(lo_n, min(hi_n, ntok) + 1):
                        pre = -1
                        word = -1
                        if n == 1:
                            slot = _find(buf, i, j, key1, exact1, slots, start, length, cps)
                            key = key1
                        else:
                            key, exact, total = _gram_key(buf, ring, hi_n, ntok - 1, n)
                            if by_ids:
                                pre = tid[(ntok - 2) % hi_n, n - 2]
                                word = tid[q0, 0]
                                slot = _gram_find_ids(buf, ring, hi_n, ntok - 1, n, key, exact, total, pre, word,
                                                      slots, start, length, cps, parts)
                            else:
                                slot = _gram_find(buf, ring, hi_n, ntok - 1, n, key, exact, total, slots, start,
                                                  length, cps)
                        t = slots[2 * slot + 1]
                        if t < 0:
                            t, n_terms, n_cps = _insert(buf, ring, hi_n, ntok, n, slot, key, slots, keys, start,
                                                        length, cps, n_terms, n_cps, last)
                            if has_parts:
                                parts[t, 0] = pre
                                parts[t, 1] = word
                                parts[t, 2] = -1
                        tid[q0, n - 1] = t
                        n_pairs = _add(t, c, K, wd, d, pairs, n_pairs, df, tf, last, parts)
            i, j = _next_token(buf, j, e0, is_word)
    return n_docs, n_terms, n_cps, n_pairs


def hash_counts(buf, bounds, codes, w, has_w, is_word, lo_n, hi_n, stop, n_features, counts, cdf, df, tf, last):
    """Hashing mode of :func:`learn_counts`: the term of an n-gram is its bucket; nothing grows.
    The tables are laid out class-major, counts[c, t], as the statistics keep them."""
    _hash_counts(buf, bounds, codes, w, has_w, is_word, lo_n, hi_n, stop, n_features, counts, cdf, df, tf, last,
                 NO_PARTS, *gram_scratch(hi_n))


def gram_scratch(hi_n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The n-gram walkers' scratch (ring of token spans, running hash states, terms found: this
    token's and the previous one's, see :func:`_grams`), made outside the kernels so that they
    allocate nothing (see :func:`lean`)."""
    return (np.zeros((hi_n, 2), dtype=np.int64), np.zeros((hi_n, 4), dtype=np.uint64),
            np.empty(2 * hi_n, dtype=np.int64))


@lean
def _hash_counts(buf, bounds, codes, w, has_w, is_word, lo_n, hi_n, stop, n_features, counts, cdf, df, tf, last,
                 no_parts, ring, states, found):  # pragma: no cover - compiled
    """:func:`hash_counts`' loop."""
    simple = hi_n == 1 and len(stop[1]) == 0
    no_table = (stop[0], stop[1], stop[1], stop[1], stop[3], last, no_parts, False)  # vocabulary mode only
    for d in range(len(bounds) - 1):
        e0 = bounds[d + 1]
        c = codes[d]
        wd = w[d] if has_w else 1.0
        ntok = 0
        i, j = _next_token(buf, bounds[d], e0, is_word)
        while i < e0:
            if simple:  # single words, no stop list: the common case, kept lean
                found[0] = bucket(buf, i, j, n_features)
                count = 1
            else:
                ntok, count = _grams(buf, i, j, ntok, ring, states, lo_n, hi_n, stop, n_features, no_table, found)
            for m in range(count):
                t = found[m]
                counts[c, t] += wd
                tf[t] += 1.0
                if last[t] != d:
                    last[t] = d
                    cdf[c, t] += wd
                    df[t] += 1.0
            i, j = _next_token(buf, j, e0, is_word)


def rows_on_threads(kernel: Any, args: tuple, n_docs: int, T: int, scratch: Any = None) -> Any:
    """Run ``kernel(d0, d1, *args, *scratch())`` over ``T`` ranges of the ``n_docs`` documents
    on Python threads (the kernel releases the GIL; too few documents a thread: one call),
    each with its own scratch arrays; returns the last of ``args``, the output the kernel
    fills."""
    T = max(1, min(int(T), n_docs // _MIN_THREAD_DOCS))
    own = scratch if scratch is not None else tuple
    if T == 1:
        kernel(0, n_docs, *args, *own())
        return args[-1]
    per = (n_docs + T - 1) // T
    with ThreadPoolExecutor(T) as pool:
        list(pool.map(lambda th: kernel(th * per, min(n_docs, (th + 1) * per), *args, *own()), range(T)))
    return args[-1]


#: documents per thread below which scoring stays on the calling thread
_MIN_THREAD_DOCS = 64


def term_ids(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms):
    """Every term occurrence as (document, term or -1, start, end within the document), in
    order of the last token of each n-gram, shorter n-grams first. Single words without a
    stop list take a lean kernel (:func:`_word_ids`): it compiles in a fraction of the time of
    the general one, which the first ``nbayes demo`` would otherwise wait for."""
    if hi_n == 1 and len(stop[1]) == 0:
        return _word_ids(buf, bounds, is_word, n_features, terms)
    return _gram_ids(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms)


@njit(cache=True, nogil=True)
def _word_ids(buf, bounds, is_word, n_features, terms):  # pragma: no cover - compiled
    """:func:`term_ids` for single words and no stop list: the tokens counted, then listed."""
    n_out = 0
    for d in range(len(bounds) - 1):
        i, j = _next_token(buf, bounds[d], bounds[d + 1], is_word)
        while i < bounds[d + 1]:
            n_out += 1
            i, j = _next_token(buf, j, bounds[d + 1], is_word)
    out = np.empty((n_out, 4), dtype=np.int64)
    n_out = 0
    for d in range(len(bounds) - 1):
        e0 = bounds[d + 1]
        i, j = _next_token(buf, bounds[d], e0, is_word)
        while i < e0:
            out[n_out, 0] = d
            out[n_out, 1] = _word(buf, i, j, n_features, terms)
            out[n_out, 2] = i - bounds[d]
            out[n_out, 3] = j - bounds[d]
            n_out += 1
            i, j = _next_token(buf, j, e0, is_word)
    return out


@njit(cache=True, nogil=True)
def _gram_ids(buf, bounds, is_word, lo_n, hi_n, stop, n_features, terms):  # pragma: no cover - compiled
    """:func:`term_ids` in general: word n-grams, stop words."""
    out = np.empty((1024, 4), dtype=np.int64)
    ring = np.zeros((hi_n, 2), dtype=np.int64)
    states = np.zeros((hi_n, 4), dtype=np.uint64)
    found = np.empty(2 * hi_n, dtype=np.int64)
    n_out = 0
    for d in range(len(bounds) - 1):
        e0 = bounds[d + 1]
        ntok = 0
        i, j = _next_token(buf, bounds[d], e0, is_word)
        while i < e0:
            ntok, count = _grams(buf, i, j, ntok, ring, states, lo_n, hi_n, stop, n_features, terms, found)
            for k in range(count):
                first = ring[(ntok - lo_n - k) % hi_n, 0]
                out = _push(out, n_out, d, found[k], first - bounds[d], j - bounds[d])
                n_out += 1
            i, j = _next_token(buf, j, e0, is_word)
    return out[:n_out]
