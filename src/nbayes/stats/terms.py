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

from .._kernels.text_sort import first_unsorted, gather_terms, term_strings

__all__ = ["CodeTerms", "as_strings", "object_array"]


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
            joined = np.empty(int(self.length.sum()), dtype=np.uint32)
            gather_terms(self.cps, self.start, self.length, joined)
            text = joined.tobytes().decode("utf-32-le", errors="surrogatepass")
        return np.frombuffer(text.encode("utf-8", errors="surrogatepass"), dtype=np.uint8)


def as_strings(terms: Any) -> np.ndarray:
    """``terms`` as an array: a :class:`CodeTerms`' strings, anything else as it is."""
    if isinstance(terms, CodeTerms):
        return terms.strings()
    out: np.ndarray = terms
    return out
