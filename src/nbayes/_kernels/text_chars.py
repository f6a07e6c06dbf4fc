"""Character n-gram kernels: scikit-learn's ``analyzer="char"`` and ``"char_wb"`` tokens, counted,
scored, hashed and listed in one pass over the code point buffer, without Python strings.

The same buffer as the word kernels (:mod:`nbayes._kernels.text`) but with exact document
bounds (no separator: every code point of ``bounds[d]:bounds[d + 1]`` belongs to document d)
and, in the place of the word table, ``is_space``: 1 for the code points Python's ``\\s``
matches (what ``str.split()`` splits on). Each document is first rewritten into a scratch
array, ``norm``, as scikit-learn's analyzers see it, cut into segments ``seg``:

- ``char``: the document with every run of two or more whitespace characters replaced by one
  space (``re.sub(r"\\s\\s+", " ", doc)``; a single tab or newline stays), one segment; its
  n-grams are all n-grams of the segment for n in lo..hi (n at most its length);
- ``char_wb``: per whitespace-separated word one segment, the word padded with a space each
  side; its n-grams for n in lo..hi, except that once n reaches the padded word's length the
  padded word itself is one gram and longer n are skipped (``_char_wb_ngrams``).

Grams come in scikit-learn's order (``char``: n-major, then offset; ``char_wb``: word, n,
offset). A gram norm[s:e] is looked up with the word kernels' hash table helpers (``_key``,
``_find``): a term table stores its code points, whichever analyzer made it. The third
argument after the table, where the word kernels take the stop-word table, is ``wb``: whether
the analyzer is ``char_wb``. Hashing mode buckets a gram as scikit-learn's HashingVectorizer
(MurmurHash3 of its UTF-8 bytes).
"""

from __future__ import annotations


import numpy as np
from numba import njit, prange

from .murmur import bucket
from .text import _add, _find, _key, append_index, full
from .text_pairs import add_term, dense_layout

__all__ = ["hash_counts", "learn_counts", "presence_rows", "score", "score_pairs", "term_ids"]


@njit(cache=True, nogil=True, inline="always")
def _normalise(buf, s0, e0, is_space, wb, norm, ps, pe, seg):  # pragma: no cover - compiled
    """Write document buf[s0:e0] into ``norm`` as the analyzer sees it (see the module) and
    its segments' bounds into ``seg``; ``ps[k]:pe[k]`` is the span of the document (offsets
    from s0) that norm[k] stands for (a collapsed whitespace run: the whole run; a padding
    space: the empty span at its word's edge). Returns the number of segments."""
    n = 0
    if not wb:
        p = s0
        while p < e0:
            c = buf[p]
            if is_space[c] != 0:
                q = p + 1
                while q < e0 and is_space[buf[q]] != 0:
                    q += 1
                norm[n] = 32 if q - p >= 2 else c
                ps[n] = p - s0
                pe[n] = q - s0
                n += 1
                p = q
            else:
                norm[n] = c
                ps[n] = p - s0
                pe[n] = p + 1 - s0
                n += 1
                p += 1
        seg[0] = 0
        seg[1] = n
        return 1
    n_seg = 0
    seg[0] = 0
    p = s0
    while p < e0:
        if is_space[buf[p]] != 0:
            p += 1
            continue
        q = p
        norm[n] = 32
        ps[n] = p - s0
        pe[n] = p - s0
        n += 1
        while q < e0 and is_space[buf[q]] == 0:
            norm[n] = buf[q]
            ps[n] = q - s0
            pe[n] = q + 1 - s0
            n += 1
            q += 1
        norm[n] = 32
        ps[n] = q - s0
        pe[n] = q - s0
        n += 1
        n_seg += 1
        seg[n_seg] = n
        p = q
    return n_seg


@njit(cache=True, nogil=True, inline="always")
def _advance(seg, n_seg, lo, hi, wb, g, n, i):  # pragma: no cover - compiled
    """The first gram at or after position (segment g, length n, offset i), as (g, n, i);
    g == n_seg when there is none. Its span is seg[g] + i .. + min(n, segment length)."""
    while g < n_seg:
        L = seg[g + 1] - seg[g]
        if n <= hi:
            if wb and n >= L:
                if i == 0:
                    return g, n, i  # the padded word itself, once
            elif n <= L:
                if i + n <= L:
                    return g, n, i
                n += 1
                i = 0
                continue
        g += 1
        n = lo
        i = 0
    return g, n, i


@njit(cache=True, nogil=True)
def _scratch(bounds, d0, d1):  # pragma: no cover - compiled
    """Scratch arrays for documents d0..d1-1: (norm, ps, pe, seg)."""
    longest = 0
    for d in range(d0, d1):
        longest = max(longest, bounds[d + 1] - bounds[d])
    size = 2 * longest + 2
    return (np.empty(size, dtype=np.uint32), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64),
            np.zeros(longest + 2, dtype=np.int64))


@njit(cache=True, nogil=True, inline="always")
def _insert(norm, s, e, slot, key, slots, keys, start, length, cps, n_terms, n_cps, last):  # pragma: no cover
    """Add the gram norm[s:e] as a new term in the empty ``slot``."""
    t = n_terms
    slots[2 * slot] = np.int64(key)
    slots[2 * slot + 1] = t
    keys[t] = np.int64(key)
    start[t] = n_cps
    for p in range(s, e):
        cps[n_cps] = norm[p]
        n_cps += 1
    length[t] = e - s
    last[t] = -1
    return t, n_terms + 1, n_cps


@njit(cache=True, nogil=True, inline="always")
def _span(seg, g, n, i):  # pragma: no cover - compiled
    """(start, end) in the normalised buffer of the gram of length ``n`` at offset ``i`` of
    segment ``g`` (a segment shorter than ``n``, char_wb's padded short word, whole)."""
    s = seg[g] + i
    return s, s + min(n, seg[g + 1] - seg[g])


@njit(cache=True, nogil=True, inline="always")
def _lookup(norm, s, e, n_features, terms):  # pragma: no cover - compiled
    """The term of the gram norm[s:e]: its bucket, or its id (-1 when unknown)."""
    if n_features > 0:
        return bucket(norm, s, e, n_features)
    slots, start, length, cps = terms[0], terms[2], terms[3], terms[4]
    key, exact = _key(norm, s, e)
    return slots[2 * _find(norm, s, e, key, exact, slots, start, length, cps) + 1]


@njit(cache=True, nogil=True)
def room(chars, lo, hi, wb):  # pragma: no cover - compiled
    """(terms, code points) a document of ``chars`` code points can add at most: per n, one
    gram per position of the text (``char``) or of its padded words (``char_wb``: a word and
    its two spaces, at most 2 chars + 2 in all). The learner reserves this much before
    :func:`learn_counts` resumes on a document."""
    width = 2 * chars + 2 if wb else chars
    grams = 0
    cps = 0
    for n in range(lo, hi + 1):
        grams += width
        cps += width * n
    return grams, cps


@njit(cache=True, nogil=True)
def learn_counts(buf, bounds, doc0, codes, w, has_w, is_space, lo_n, hi_n, wb, terms, n_terms, n_cps,
                 K, pairs, n_pairs, df, tf, parts):  # pragma: no cover - compiled
    """:func:`nbayes._kernels.text.learn_counts` for character n-grams: count every gram of
    documents doc0.. per (term, class) pair, adding new terms to the table. Stops before a
    document that could overflow a table (see :func:`room`) and returns (next document,
    n_terms, n_cps, n_pairs). ``parts``: per term its first pair (see
    :func:`nbayes._kernels.text._pair_of`; the gram columns unused)."""
    slots, keys, start, length, cps, last = terms
    n_docs = len(bounds) - 1
    half = len(slots) // 4
    norm, ps, pe, seg = _scratch(bounds, doc0, n_docs)
    for d in range(doc0, n_docs):
        s0 = bounds[d]
        e0 = bounds[d + 1]
        grams, chars = room(e0 - s0, lo_n, hi_n, wb)
        if (n_terms + grams > half or n_terms + grams > len(keys) or n_cps + chars > len(cps)
                or full(pairs, n_pairs, n_terms, grams, K)):
            return d, n_terms, n_cps, n_pairs
        c = codes[d]
        wd = w[d] if has_w else 1.0
        n_seg = _normalise(buf, s0, e0, is_space, wb, norm, ps, pe, seg)
        g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, 0, lo_n, 0)
        while g < n_seg:
            s, e = _span(seg, g, n, i)
            key, exact = _key(norm, s, e)
            slot = _find(norm, s, e, key, exact, slots, start, length, cps)
            t = slots[2 * slot + 1]
            if t < 0:
                t, n_terms, n_cps = _insert(norm, s, e, slot, key, slots, keys, start, length, cps, n_terms,
                                            n_cps, last)
                parts[t, 2] = -1
            n_pairs = _add(t, c, K, wd, d, pairs, n_pairs, df, tf, last, parts)
            g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, g, n, i + 1)
    return n_docs, n_terms, n_cps, n_pairs


@njit(cache=True, nogil=True)
def hash_counts(buf, bounds, codes, w, has_w, is_space, lo_n, hi_n, wb, n_features, counts, cdf, df, tf,
                last):  # pragma: no cover - compiled
    """Hashing mode of :func:`learn_counts`: a gram's term is its bucket; class-major tables."""
    norm, ps, pe, seg = _scratch(bounds, 0, len(bounds) - 1)
    for d in range(len(bounds) - 1):
        c = codes[d]
        wd = w[d] if has_w else 1.0
        n_seg = _normalise(buf, bounds[d], bounds[d + 1], is_space, wb, norm, ps, pe, seg)
        g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, 0, lo_n, 0)
        while g < n_seg:
            s, e = _span(seg, g, n, i)
            t = bucket(norm, s, e, n_features)
            counts[c, t] += wd
            tf[t] += 1.0
            if last[t] != d:
                last[t] = d
                cdf[c, t] += wd
                df[t] += 1.0
            g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, g, n, i + 1)


def score(buf, bounds, is_space, lo_n, hi_n, wb, n_features, terms, weights, binary, T):
    """:func:`nbayes._kernels.text_pairs.score` for character n-grams: out[d, c] = the sum of
    weights[t, c] over the known grams t of document d (each distinct one once when ``binary``)."""
    return score_pairs(buf, bounds, is_space, lo_n, hi_n, wb, n_features, terms, *dense_layout(weights), binary, T)


@njit(parallel=True, cache=True, nogil=True)
def score_pairs(buf, bounds, is_space, lo_n, hi_n, wb, n_features, terms, indptr, cls, delta, base, row, rows,
                binary, T):  # pragma: no cover - compiled
    """:func:`nbayes._kernels.text_pairs.score_pairs` for character n-grams."""
    n_docs = len(bounds) - 1
    K = len(base)
    out = np.zeros((n_docs, K))
    per = (n_docs + T - 1) // T
    for th in prange(T):
        d0, d1 = th * per, min(n_docs, (th + 1) * per)
        if d0 >= d1:
            continue
        last = np.full(len(indptr) - 1 if binary else 1, -1, dtype=np.int64)  # (read only when binary)
        norm, ps, pe, seg = _scratch(bounds, d0, d1)
        for d in range(d0, d1):
            known = 0
            n_seg = _normalise(buf, bounds[d], bounds[d + 1], is_space, wb, norm, ps, pe, seg)
            g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, 0, lo_n, 0)
            while g < n_seg:
                s, e = _span(seg, g, n, i)
                t = _lookup(norm, s, e, n_features, terms)
                if t >= 0 and (not binary or last[t] != d):
                    if binary:
                        last[t] = d
                    known += add_term(out, d, t, indptr, cls, delta, row, rows)
                g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, g, n, i + 1)
            for c in range(K):
                out[d, c] += known * base[c]
    return out


@njit(cache=True, nogil=True)
def presence_rows(buf, bounds, is_space, lo_n, hi_n, wb, n_features, terms, n_terms):  # pragma: no cover
    """:func:`nbayes._kernels.text_pairs.presence_rows` for character n-grams: per document its
    distinct known grams, sorted, as CSR (indptr, indices)."""
    n_docs = len(bounds) - 1
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    indices = np.empty(max(1024, bounds[n_docs] - bounds[0]), dtype=np.int32)
    last = np.full(n_terms, -1, dtype=np.int64)
    norm, ps, pe, seg = _scratch(bounds, 0, n_docs)
    m = 0
    for d in range(n_docs):
        row = m
        n_seg = _normalise(buf, bounds[d], bounds[d + 1], is_space, wb, norm, ps, pe, seg)
        g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, 0, lo_n, 0)
        while g < n_seg:
            s, e = _span(seg, g, n, i)
            t = _lookup(norm, s, e, n_features, terms)
            if t >= 0 and last[t] != d:
                last[t] = d
                indices = append_index(indices, m, t)
                m += 1
            g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, g, n, i + 1)
        indices[row:m].sort()
        indptr[d + 1] = m
    return indptr, indices[:m].copy()


@njit(cache=True, nogil=True)
def term_ids(buf, bounds, is_space, lo_n, hi_n, wb, n_features, terms):  # pragma: no cover - compiled
    """Every gram occurrence as (document, term or -1, start, end within the document), in
    scikit-learn's order; start:end is the stretch of the document the gram covers (a
    collapsed whitespace run whole; a padding space adds nothing)."""
    out = np.empty((1024, 4), dtype=np.int64)
    norm, ps, pe, seg = _scratch(bounds, 0, len(bounds) - 1)
    m = 0
    for d in range(len(bounds) - 1):
        n_seg = _normalise(buf, bounds[d], bounds[d + 1], is_space, wb, norm, ps, pe, seg)
        g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, 0, lo_n, 0)
        while g < n_seg:
            s, e = _span(seg, g, n, i)
            if m == out.shape[0]:
                grown = np.empty((2 * m, 4), dtype=np.int64)
                grown[:m] = out[:m]
                out = grown
            out[m, 0] = d
            out[m, 1] = _lookup(norm, s, e, n_features, terms)
            out[m, 2] = ps[s]
            out[m, 3] = pe[e - 1]
            m += 1
            g, n, i = _advance(seg, n_seg, lo_n, hi_n, wb, g, n, i + 1)
    return out[:m]
