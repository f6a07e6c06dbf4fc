# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""A fitted vocabulary's word n-grams as the ids of their parts (compiled; see text_parts.py,
which says what the parts are and why a table may leave some unknown)."""

import numpy as np

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from nbayes._kernels._table cimport find, term_key


cdef struct Table:
    # a term table's arrays, as the probes read them
    const int64_t* slots
    Py_ssize_t n_slots
    const int64_t* start
    const int64_t* length
    const uint32_t* cps


cdef inline bint _look_up(int64_t t, Table* tb, int32_t* row) noexcept nogil:
    """row[0:2] = (prefix id, last word id) of term t when, split at its last space, it is two
    terms of the table, else -1 and -1; returns whether t is loose (it holds a space and its
    parts are unknown)."""
    cdef int64_t s = tb.start[t]
    cdef int64_t e = s + tb.length[t]
    cdef int64_t b = e - 1, a, w
    cdef uint64_t key
    cdef bint exact, spaced
    while b > s and tb.cps[b] != 32:
        b -= 1
    spaced = e > s and tb.cps[b] == 32
    row[0] = -1
    row[1] = -1
    if b <= s or b >= e - 1:  # no space, or the space first or last: not "prefix word"
        return spaced
    key, exact = term_key(tb.cps, s, b)
    a = tb.slots[2 * find(tb.cps, s, b, key, exact, tb.slots, tb.n_slots, tb.start, tb.length, tb.cps) + 1]
    if a < 0:
        return True
    key, exact = term_key(tb.cps, b + 1, e)
    w = tb.slots[2 * find(tb.cps, b + 1, e, key, exact, tb.slots, tb.n_slots, tb.start, tb.length, tb.cps) + 1]
    if w < 0:
        return True
    row[0] = <int32_t>a
    row[1] = <int32_t>w
    return False


cdef inline bint _moved(const int32_t* old, const int64_t* ids, int32_t* row) noexcept nogil:
    """row[0:2] = the parts ``old`` of a term with their ids mapped by ``ids`` (unknown stays
    -1); returns whether they are known."""
    cdef int32_t a = old[0]
    if a < 0:
        row[0] = -1
        row[1] = -1
        return False
    row[0] = <int32_t>ids[a]
    row[1] = <int32_t>ids[old[1]]
    return True


cdef inline bint _spaced(int64_t t, const int64_t* start, const int64_t* length, const uint32_t* cps) noexcept nogil:
    cdef int64_t p
    for p in range(start[t], start[t] + length[t]):
        if cps[p] == 32:
            return True
    return False


cdef Table _table(const int64_t[::1] slots, const int64_t[::1] start, const int64_t[::1] length,
                  const uint32_t[::1] cps):
    cdef Table tb
    tb.slots = &slots[0]
    tb.n_slots = slots.shape[0]
    tb.start = &start[0] if start.shape[0] else NULL
    tb.length = &length[0] if length.shape[0] else NULL
    tb.cps = &cps[0] if cps.shape[0] else NULL
    return tb


cdef inline int32_t* _rows(int32_t[:, ::1] out) noexcept:
    return &out[0, 0] if out.shape[0] else NULL


def gram_parts(const int64_t[::1] slots, const int64_t[::1] start, const int64_t[::1] length,
               const uint32_t[::1] cps, int32_t[:, ::1] out, Py_ssize_t t0=0, Py_ssize_t t1=-1):
    """out[t] = the parts of each term t of the table (:func:`_look_up`), for t in t0..t1 (-1:
    all terms; ranges may run on threads, the kernel releases the GIL): two lookups by code
    points a term. Returns the number of loose terms among them."""
    cdef Table tb = _table(slots, start, length, cps)
    cdef int32_t* o = _rows(out)
    cdef Py_ssize_t step = out.shape[1], t
    cdef Py_ssize_t end = start.shape[0] if t1 < 0 else t1
    cdef int64_t loose = 0
    with nogil:
        for t in range(t0, end):
            loose += _look_up(t, &tb, o + t * step)
    return loose


def extended_parts(const int32_t[:, ::1] parts, const int64_t[::1] new_id, const int64_t[::1] fresh_ids,
                   const int64_t[::1] slots, const int64_t[::1] start, const int64_t[::1] length,
                   const uint32_t[::1] cps, int32_t[:, ::1] out):
    """The parts of a table grown by an online update: each old term's (``parts``) moved to its
    new id ``new_id[j]``, their ids renumbered, and each new term's (ids ``fresh_ids``) looked
    up in the grown table (slots, start, length, cps); an old term whose part was missing is
    looked up again (the update may have added it). Returns the number of loose terms."""
    cdef Table tb = _table(slots, start, length, cps)
    cdef int32_t* o = _rows(out)
    cdef Py_ssize_t step = out.shape[1], pstep = parts.shape[1], j, f
    cdef int64_t r, t, loose = 0
    cdef const int64_t* ids = &new_id[0] if new_id.shape[0] else NULL
    cdef const int32_t* old = &parts[0, 0] if parts.shape[0] else NULL
    with nogil:
        for j in range(parts.shape[0]):
            r = new_id[j]
            # unknown parts, mostly single words (one scan for a space): looked up again
            if not _moved(old + j * pstep, ids, o + r * step) and _spaced(r, tb.start, tb.length, tb.cps):
                loose += _look_up(r, &tb, o + r * step)
        for f in range(fresh_ids.shape[0]):
            t = fresh_ids[f]
            loose += _look_up(t, &tb, o + t * step)
    return loose


def renumbered_parts(const int32_t[:, ::1] parts, const int64_t[::1] order, const int64_t[::1] rank,
                     const int64_t[::1] start, const int64_t[::1] length, const uint32_t[::1] cps,
                     int32_t[:, ::1] out):
    """A learner's parts (its columns 0, 1: its own ids) for the sorted vocabulary (start,
    length, cps: its terms in sorted order): out[r] the parts of term order[r], their ids mapped
    by ``rank`` (-1 stays -1). Returns the number of loose terms (unknown parts and a space:
    absorbed from statistics without parts)."""
    cdef int32_t* o = _rows(out)
    cdef Py_ssize_t step = out.shape[1], pstep = parts.shape[1], r
    cdef int64_t loose = 0
    cdef const int64_t* ids = &rank[0] if rank.shape[0] else NULL
    cdef const int32_t* old = &parts[0, 0] if parts.shape[0] else NULL
    cdef const int64_t* pstart = &start[0] if start.shape[0] else NULL
    cdef const int64_t* plength = &length[0] if length.shape[0] else NULL
    cdef const uint32_t* pcps = &cps[0] if cps.shape[0] else NULL
    with nogil:
        for r in range(order.shape[0]):
            if not _moved(old + order[r] * pstep, ids, o + r * step):
                loose += _spaced(r, pstart, plength, pcps)
    return loose


def kept_parts(const int32_t[:, ::1] parts, keep_array, int32_t[:, ::1] out):
    """The parts of the terms ``keep`` selects (a pruned vocabulary, ids renumbered in order)
    from those of a table without loose terms: a kept n-gram whose prefix or last word is
    dropped becomes loose (-1). Returns the number of loose terms."""
    cdef const uint8_t[::1] keep = np.ascontiguousarray(keep_array, dtype=np.bool_).view(np.uint8)
    cdef Py_ssize_t n = keep.shape[0], t
    new_id_array = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] new_id = new_id_array
    cdef int64_t r = 0, loose = 0, a, w
    with nogil:
        for t in range(n):
            new_id[t] = r
            r += keep[t] != 0
        for t in range(n):
            if keep[t]:
                r = new_id[t]
                a = parts[t, 0]
                out[r, 0] = -1
                out[r, 1] = -1
                if a >= 0:
                    w = parts[t, 1]
                    if keep[a] and keep[w]:
                        out[r, 0] = <int32_t>new_id[a]
                        out[r, 1] = <int32_t>new_id[w]
                    else:
                        loose += 1
    return loose
