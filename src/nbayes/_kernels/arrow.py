"""Arrow string columns into one buffer of code points: each string's bytes copied once.

An Arrow column of strings (``string`` / ``large_string``: offsets into one data buffer;
``string_view``, polars' own layout: 16 bytes per string holding its length and either the
string itself, up to 12 bytes, or the number and offset of the data buffer that holds it) is
read by :func:`gather_strings` from its buffers into one buffer, with no Python string per
document and no intermediate copy of the column. The NumPy twin is the plain reading of the same
strings (tests/text/test_stream.py compares the two).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["gather_strings"]


@njit(cache=True, nogil=True)
def gather_strings(src, src_start, length, dst, dst_start):  # pragma: no cover - compiled
    """Copy ``src[src_start[i] : + length[i]]`` to ``dst[dst_start[i]:]`` for every i."""
    for i in range(len(length)):
        s, d, n = src_start[i], dst_start[i], length[i]
        dst[d : d + n] = src[s : s + n]
