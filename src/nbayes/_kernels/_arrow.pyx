# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Arrow string columns into one buffer of code points (compiled; see arrow.py)."""

from libc.stdint cimport int64_t, uint8_t
from libc.string cimport memcpy


def gather_strings(const uint8_t[::1] src, const int64_t[:] src_start, const int64_t[:] length, uint8_t[::1] dst,
                   const int64_t[:] dst_start):
    """Copy ``src[src_start[i] : + length[i]]`` to ``dst[dst_start[i]:]`` for every i."""
    cdef Py_ssize_t i, n = length.shape[0], bad = -1
    cdef int64_t s, d, k
    if src_start.shape[0] < n or dst_start.shape[0] < n:
        raise ValueError(f"gather_strings: {n} lengths, {src_start.shape[0]} starts, {dst_start.shape[0]} places")
    with nogil:
        for i in range(n):
            s = src_start[i]
            d = dst_start[i]
            k = length[i]
            if s < 0 or d < 0 or k < 0 or s + k > src.shape[0] or d + k > dst.shape[0]:
                bad = i
                break
            if k > 0:
                memcpy(&dst[d], &src[s], k)
    if bad >= 0:
        raise ValueError(f"gather_strings: string {bad} ({src_start[bad]} + {length[bad]} into {dst_start[bad]}) "
                         f"outside its buffers ({src.shape[0]}, {dst.shape[0]} bytes)")
