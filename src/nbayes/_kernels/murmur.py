"""MurmurHash3 (x86, 32 bit, seed 0) over code points fed as UTF-8 bytes, and scikit-learn's
bucket of a hash: the term -> column map of its ``HashingVectorizer``.

The compiled kernels inline the running state of ``_murmur.pxd``; :func:`murmur3` is its
Python entry (twin: ``text_twin.murmur3``, equal to ``sklearn.utils.murmurhash3_32``).
"""

from __future__ import annotations

from ._text import murmur3

__all__ = ["murmur3"]
