"""A sorted vocabulary held as code points, made Python strings only when read.

A vocabulary learned from documents is born as code points (a term table's buffer, term i
being ``cps[start[i]:start[i] + length[i]]``). Fitting and predicting never need its terms
as Python strings, which cost time and memory in proportion to the vocabulary (1.2 million
bigrams of 20 Newsgroups: 0.3 s and 80 MB); ``vocabulary_``, explanations, merging by term
and the like read :meth:`CodeTerms.strings`, made once. A model file is written straight
from the code points (:meth:`CodeTerms.utf8`), byte for byte what the strings would give.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels.text_sort import first_unsorted, gather_terms, sort_order, term_strings

__all__ = ["CodeTerms", "as_strings", "object_array", "union_terms"]


def object_array(items: list[Any]) -> np.ndarray:
    """Terms as an object array: numpy's fixed-width strings would pad every term to the
    longest one (20 Newsgroups holds uuencoded tokens thousands of characters long)."""
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


class CodeTerms:
    """Sorted terms as code points: term i is ``cps[start[i]:start[i] + length[i]]`` (arrays
    shared with the term table that finds them). :meth:`strings` makes the object array of
    Python strings once, on first use."""

    __slots__ = ("cps", "start", "length", "_strings")
    #: made from the others on demand: a comparison of states skips it (nbayes.testing)
    _cache_slots = ("_strings",)

    def __init__(self, cps: np.ndarray, start: np.ndarray, length: np.ndarray) -> None:
        self.cps, self.start, self.length = cps, start, length
        self._strings: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.start)

    def strings(self) -> np.ndarray:
        """The terms as an object array of str (made on the first call, then kept)."""
        if self._strings is None:
            self._strings = object_array(term_strings(self.cps, self.start, self.length))
        return self._strings

    @classmethod
    def from_utf8(cls, blob: np.ndarray, lengths: np.ndarray) -> "CodeTerms":
        """The terms of :meth:`utf8` (each one's length in code points): one decode, no string
        per term. ValueError when the bytes are not UTF-8 or the lengths do not add up."""
        text = np.asarray(blob, dtype=np.uint8).tobytes().decode("utf-8", errors="surrogatepass")
        lengths = np.asarray(lengths).astype(np.int64)
        if np.any(lengths < 0) or int(lengths.sum()) != len(text):
            raise ValueError("the term lengths do not add up to the vocabulary's text")
        cps = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32).copy()
        start = np.zeros(len(lengths), dtype=np.int64)
        if len(lengths):
            np.cumsum(lengths[:-1], out=start[1:])
        return cls(cps, start, lengths)

    def first_unsorted(self) -> tuple[int, bool]:
        """(i, same): the first term not after the one before it (same: equal to it), or (-1, False)."""
        i, same = first_unsorted(self.cps, self.start, self.length)
        return int(i), bool(same)

    def utf8(self) -> np.ndarray:
        """The terms concatenated, UTF-8 encoded (as ``"".join(strings).encode("utf-8",
        errors="surrogatepass")``), as uint8: without a string per term."""
        if self._strings is not None:
            text = "".join(self._strings.tolist())
        else:
            top = int(self.cps.max()) if len(self.cps) else 0
            joined = np.empty(int(self.length.sum()), dtype=np.uint8 if top < 256 else np.uint32)
            gather_terms(self.cps, self.start, self.length, joined)
            if top < 128:  # ASCII: the code points are the UTF-8 bytes
                return joined
            # Latin-1 (most vocabularies): one byte a code point in between, not four (20
            # Newsgroups' bigrams: 13 MB, not 52 MB and a copy)
            text = joined.tobytes().decode("latin-1" if top < 256 else "utf-32-le", errors="surrogatepass")
            del joined
        return np.frombuffer(text.encode("utf-8", errors="surrogatepass"), dtype=np.uint8)


def as_strings(terms: Any) -> np.ndarray:
    """``terms`` as an array: a :class:`CodeTerms`' strings, anything else as it is."""
    if isinstance(terms, CodeTerms):
        return terms.strings()
    out: np.ndarray = terms
    return out


def _positions(terms: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """Where the sorted distinct ``sub`` lies in its sorted superset ``terms``. A few new terms
    in a large vocabulary (a learning service's update): one binary search per new term (past
    the s-th new one, terms[i] == sub[i - s] holds exactly up to the next), not a search per
    term of ``sub``."""
    n, k = len(sub), len(terms) - len(sub)
    if terms.dtype != object or k * 64 > n:
        return np.searchsorted(terms, sub)
    new, lo = np.empty(k, dtype=np.int64), 0
    for s in range(k):
        hi = n + s
        while lo < hi:
            mid = (lo + hi) // 2
            if terms[mid] == sub[mid - s]:
                lo = mid + 1
            else:
                hi = mid
        new[s], lo = lo, lo + 1
    keep = np.ones(len(terms), dtype=bool)
    keep[new] = False
    return np.flatnonzero(keep)


def union_terms(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sorted union of two sorted term arrays (object arrays of str)."""
    if a is b:
        return a
    if len(a) == len(b) and np.array_equal(a, b):
        return a
    big, small = (a, b) if len(a) >= len(b) else (b, a)
    if big.dtype == object and small.dtype == object and 16 * len(small) <= len(big):
        # a few terms into a large vocabulary (a learning service's updates): binary search,
        # not a set and a sort of the whole vocabulary
        at = np.searchsorted(big, small)
        known = np.zeros(len(small), dtype=bool)
        inside = at < len(big)
        known[inside] = big[at[inside]] == small[inside]
        return big if known.all() else np.insert(big, at[~known], small[~known])
    if big.dtype != object or small.dtype != object:
        buckets: np.ndarray = np.union1d(a, b)  # hashing mode: bucket numbers
        return buckets
    words = big.tolist() + small.tolist()
    # sorted by code points in a kernel, not by comparing Python strings; then each term once
    cps = np.frombuffer("\x00".join(words).encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32)
    ends = np.flatnonzero(cps == 0)
    if len(ends) == len(words) - 1:
        starts = np.concatenate([[0], ends + 1]).astype(np.int64)
        lengths = np.concatenate([ends, [len(cps)]]) - starts
    else:  # a term holds NUL itself
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        starts = np.concatenate([[0], np.cumsum(lengths[:-1] + 1)]).astype(np.int64)
    out = np.empty(len(words), dtype=object)
    out[:] = words
    out = out[sort_order(cps, starts, lengths)]
    union: np.ndarray = out[np.concatenate([[True], out[1:] != out[:-1]])]
    return union
