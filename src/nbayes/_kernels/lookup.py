"""Look terms up in a term table (:mod:`.text`'s open addressing) by their code points.

The learning service (``nbayes serve --learn``) finds where an update's terms sit in a large
vocabulary with the table prediction already uses: one probe per term, instead of a binary
search over Python strings. The NumPy twin is ``np.searchsorted`` over the sorted terms plus
an equality check (tests/serve/test_log_format.py compares them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .text import _find, _key

__all__ = ["find_terms"]


@njit(cache=True, nogil=True)
def find_terms(qcps, qstart, qlength, slots, start, length, cps):  # pragma: no cover - compiled
    """The id of each query term ``qcps[qstart[i]:qstart[i] + qlength[i]]`` in the table
    (slots, start, length, cps), -1 where it is not there."""
    out = np.empty(len(qstart), dtype=np.int64)
    for i in range(len(qstart)):
        s = qstart[i]
        e = s + qlength[i]
        key, exact = _key(qcps, s, e)
        out[i] = slots[2 * _find(qcps, s, e, key, exact, slots, start, length, cps) + 1]
    return out
