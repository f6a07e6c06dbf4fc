"""Arrow string columns into one buffer of code points: each string's bytes copied once.

An Arrow column of strings (``string`` / ``large_string``: offsets into one data buffer;
``string_view``, polars' own layout: 16 bytes per string holding its length and either the
string itself, up to 12 bytes, or the number and offset of the data buffer that holds it) is
read by :func:`gather_ascii` from its buffers, lower-cased on the way, with no Python string per
document and no intermediate copy of the column. The NumPy twin is the plain reading of the same
strings (tests/text/test_stream.py compares the two).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["gather_ascii"]


@njit(cache=True, nogil=True)
def gather_ascii(src, src_start, length, dst, dst_start, lowercase):  # pragma: no cover - compiled
    """Copy ``src[src_start[i] : + length[i]]`` to ``dst[dst_start[i]:]`` for every i, A-Z
    lower-cased when ``lowercase``. Returns the bitwise or of the bytes copied: 128 or more
    when one of them is not ASCII (the caller then reads the column as text instead)."""
    seen = 0
    for i in range(len(length)):
        s, d = src_start[i], dst_start[i]
        for k in range(length[i]):
            c = src[s + k]
            seen |= c
            if lowercase and np.uint8(c - np.uint8(65)) < 26:
                c += np.uint8(32)
            dst[d + k] = c
    return seen
