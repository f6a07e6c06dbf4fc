"""Look terms up in a term table (:mod:`.text`'s open addressing) by their code points.

The learning service (``nbayes serve --learn``) finds where an update's terms sit in a large
vocabulary with the table prediction already uses: one probe per term, instead of a binary
search over Python strings. The NumPy twin is ``np.searchsorted`` over the sorted terms plus
an equality check (tests/serve/test_log_format.py compares them).
"""

from __future__ import annotations

from ._lookup import find_terms

__all__ = ["find_terms"]
