"""Arrow string columns into one buffer of code points: each string's bytes copied once.

An Arrow column of strings (``string`` / ``large_string``: offsets into one data buffer;
``string_view``, polars' own layout: 16 bytes per string holding its length and either the
string itself, up to 12 bytes, or the number and offset of the data buffer that holds it) is
read by :func:`gather_strings` (compiled: :mod:`._arrow`) from its buffers into one buffer, with
no Python string per document and no intermediate copy of the column. The NumPy twin is the
plain reading of the same strings (tests/text/test_stream.py compares the two).
"""

from __future__ import annotations

from ._arrow import gather_strings

__all__ = ["gather_strings"]
