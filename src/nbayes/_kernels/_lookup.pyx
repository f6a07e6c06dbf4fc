# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Look terms up in a term table by their code points (compiled; see lookup.py)."""

import numpy as np

from libc.stdint cimport int64_t, uint32_t, uint64_t

from nbayes._kernels._table cimport cp_t, find, term_key


def find_terms(const cp_t[::1] qcps, const int64_t[::1] qstart, const int64_t[::1] qlength,
               const int64_t[::1] slots, const int64_t[::1] start, const int64_t[::1] length,
               const uint32_t[::1] cps):
    """The id of each query term ``qcps[qstart[i]:qstart[i] + qlength[i]]`` in the table
    (slots, start, length, cps), -1 where it is not there."""
    cdef Py_ssize_t n = qstart.shape[0], i, s, e
    cdef uint64_t key
    cdef bint exact
    out_array = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = out_array
    if n == 0:
        return out_array
    with nogil:
        for i in range(n):
            s = qstart[i]
            e = s + qlength[i]
            key, exact = term_key(&qcps[0], s, e)
            out[i] = slots[2 * find(&qcps[0], s, e, key, exact, &slots[0], slots.shape[0], &start[0] if start.shape[0] else NULL,
                                    &length[0] if length.shape[0] else NULL, &cps[0] if cps.shape[0] else NULL) + 1]
    return out_array
