"""Term tables: a vocabulary's hash table over the terms' code points (``TermTable``) and the
tokens-to-terms settings the counting kernels read (``Tokens``, ``Kernels``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._kernels import text_chars, threads
from .._kernels import text as word_kernels
from .._kernels.text import build
from .._kernels.text_parts import NO_PARTS, build_parts
from .._kernels.text_pairs import presence_rows, score, score_pairs
from ..stats.terms import CodeTerms, as_strings, object_array
from ._pairs import Pairs

_NONE_I = np.zeros(0, dtype=np.int64)
_NONE_U = np.zeros(0, dtype=np.uint32)
#: a learner's parts when it keeps none (statistics absorbed from a model's table)
_NO_PARTS = np.full((0, 4), -1, dtype=np.int32)

#: a term table as the kernels take it: (slots, keys, start, length, code points, last, n-gram
#: parts, whether every term holding a space has its parts: see nbayes._kernels.text_parts)
KernelTerms = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]
#: the stop-word table as the kernels take it: (slots, start, length, code points)
StopTable = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _pow2(n: int) -> int:
    return 1 << max(10, int(n - 1).bit_length())


def _table_size(n: int) -> int:
    """The length (int64 key and value per slot) of a learner's hash table for ``n`` keys,
    filled to 3/4 at most (_pairs.slot_room): a power of two of slots."""
    return 2 * _pow2(n * 4 // 3 + 1)


def _room(slots: np.ndarray) -> int:
    """How many keys a learner's hash table ``slots`` holds (_pairs.slot_room)."""
    return len(slots) * 3 // 8


class Kernels(NamedTuple):
    """The kernels of one analyzer (same signatures for words and characters)."""

    learn_counts: Any
    hash_counts: Any
    score: Any
    score_pairs: Any
    presence_rows: Any
    term_ids: Any


WORD_KERNELS = Kernels(word_kernels.learn_counts, word_kernels.hash_counts, score, score_pairs,
                       presence_rows, word_kernels.term_ids)
CHAR_KERNELS = Kernels(text_chars.learn_counts, text_chars.hash_counts, text_chars.score, text_chars.score_pairs,
                       text_chars.presence_rows, text_chars.term_ids)


class Tokens:
    """How a document becomes terms: word n-grams ``lo..hi`` of its tokens once the stop words
    are dropped (scikit-learn's order of operations), or with ``analyzer="char"`` /
    ``"char_wb"`` its character n-grams (:mod:`nbayes._kernels.text_chars`)."""

    def __init__(self, ngram_range: tuple[int, int] = (1, 1), stop_words: Any = None, analyzer: str = "word") -> None:
        self.lo, self.hi = int(ngram_range[0]), int(ngram_range[1])
        self.analyzer = analyzer
        self.kernels = WORD_KERNELS if analyzer == "word" else CHAR_KERNELS
        self.stop_words: tuple[str, ...] = tuple(stop_words) if stop_words else ()
        self.key = (self.lo, self.hi, tuple(sorted(stop_words)) if stop_words else None, analyzer)
        stop = TermTable(sorted(stop_words)) if stop_words else None
        #: the stop-word table as the kernels take it: (slots, start, length, cps), empty for none
        self.stop: StopTable = (
            (stop.slots, stop.start, stop.length, stop.cps) if stop else (np.full(2, -1, dtype=np.int64), _NONE_I, _NONE_I, _NONE_U)
        )

    def args(self) -> tuple[int, int, StopTable | bool]:
        """The kernels' arguments lo_n, hi_n, stop (character kernels: whether char_wb)."""
        if self.analyzer != "word":
            return (self.lo, self.hi, self.analyzer == "char_wb")
        return (self.lo, self.hi, self.stop)

    def room(self, chars: int) -> tuple[int, int]:
        """(terms, code points) a document of ``chars`` code points may add to a learner."""
        if self.analyzer != "word":
            grams, cps = text_chars.room(chars, self.lo, self.hi, self.analyzer == "char_wb")
            return int(grams), int(cps)
        grams = self.hi - self.lo + 1
        return (chars // 2 + 1) * grams, chars * (self.hi + self.lo) * grams


class TermTable:
    """Terms with ids 0..n-1, found by their code points in an open-addressing hash table.
    ``terms`` (sorted) are Python strings, or a :class:`~nbayes.stats.terms.CodeTerms` over the
    table's own code points (made strings when ``terms`` is first read).

    With word n-grams from 1 (``ngram_range=(1, n)``) the table also keeps, per term, the ids of
    its prefix and last word (:meth:`parts`, 8 bytes a term; unigram tables keep none), by
    which lookups confirm an n-gram without reading its code points: passed by the learner
    that counted the terms, else built on first use."""

    #: made from the others on demand: a comparison of states skips it (nbayes.testing)
    _cache_slots = ("_parts", "_loose")

    def __init__(self, terms: Any = None, tokens: Tokens | None = None) -> None:
        terms = object_array([] if terms is None else list(terms))
        self.vocab: Any = terms
        self.how = tokens
        self._parts: np.ndarray | None = None
        #: terms holding a space whose parts are unknown (-1: parts not made yet)
        self._loose = -1
        n = len(terms)
        self.length = np.array(list(map(len, terms.tolist())), dtype=np.int64)
        self.start = np.zeros(n, dtype=np.int64)
        if n:
            self.start[1:] = np.cumsum(self.length)[:-1]
        joined = "".join(terms.tolist())
        self.cps = np.frombuffer(joined.encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32).copy()
        self.slots = np.full(2 * _pow2(2 * n + 2), -1, dtype=np.int64)
        if n:
            build(self.cps, self.start, self.length, self.slots, np.zeros(n, dtype=np.int64))

    @classmethod
    def from_codes(cls, terms: CodeTerms, tokens: Tokens) -> "TermTable":
        """The table of terms held as code points (a vocabulary read from a file): its hash
        slots built over their code points, no Python string made."""
        n = len(terms)
        slots = np.full(2 * _pow2(2 * n + 2), -1, dtype=np.int64)
        if n:
            build(terms.cps, terms.start, terms.length, slots, np.zeros(n, dtype=np.int64))
        return cls.from_parts(terms, slots, terms.start, terms.length, terms.cps, tokens)

    @classmethod
    def from_parts(
        cls,
        terms: np.ndarray | CodeTerms,
        slots: np.ndarray,
        start: np.ndarray,
        length: np.ndarray,
        cps: np.ndarray,
        tokens: Tokens,
    ) -> "TermTable":
        """A table from arrays already laid out (a learner's, renumbered): nothing rebuilt."""
        table = cls.__new__(cls)
        table.vocab, table.slots, table.start, table.length, table.cps = terms, slots, start, length, cps
        table.how = tokens
        table._parts, table._loose = None, -1
        return table

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_parts"], state["_loose"] = None, -1  # derived from the rest: rebuilt on first use, not pickled
        return state

    def grams_by_ids(self) -> bool:
        """Whether lookups in this table confirm word n-grams by the ids of their parts: word
        n-grams from 1 (every prefix and last word counted as a term), ids that fit in int32."""
        how = self.how
        return (how is not None and how.analyzer == "word" and how.lo == 1 and how.hi > 1
                and 0 < len(self.start) < 2**31 - 1)

    def parts(self) -> np.ndarray:
        """Per term (terms x 2, int32) the ids of its prefix and last word when it is a word
        n-gram whose two parts are terms, else -1 (:mod:`nbayes._kernels.text_parts`); empty
        when lookups do not use them (:meth:`grams_by_ids`). Built on first use (one compiled
        pass, two lookups a term) unless the learner passed them."""
        if not self.grams_by_ids():
            return NO_PARTS
        if self._parts is None:
            parts, self._loose = build_parts(self.slots, self.start, self.length, self.cps, threads())
            self._parts = parts  # (after _loose: a thread that reads these parts reads their count)
        return self._parts

    def set_parts(self, parts: np.ndarray, loose: int) -> None:
        """Take the n-grams' parts made elsewhere (see :meth:`parts`), ``loose`` the number of
        terms holding a space whose parts are unknown."""
        self._loose = int(loose)
        self._parts = parts

    @property
    def terms(self) -> np.ndarray:
        """The terms, sorted, as an object array of str."""
        return as_strings(self.vocab)

    def __len__(self) -> int:
        return len(self.vocab)

    def _terms(self) -> KernelTerms:
        """The table as the kernels take it (keys and last are only written while learning)."""
        parts = self.parts()
        # no loose term: an n-gram whose prefix or last word is no term is none (no probe)
        return (self.slots, _NONE_I, self.start, self.length, self.cps, _NONE_I, parts, self._loose == 0)

    def _how(self) -> Tokens:
        assert self.how is not None, "a TermTable built without Tokens (a stop-word table) finds no terms in documents"
        return self.how

    def score(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray, weights: np.ndarray,
              binary: bool) -> np.ndarray:
        """Per document and class: the sum of ``weights[t]`` over its known terms."""
        w = np.ascontiguousarray(weights, dtype=np.float64)
        scores: np.ndarray = self._how().kernels.score(buf, bounds, table, *self._how().args(), 0, self._terms(), w, binary,
                                 threads())
        return scores

    def score_pairs(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray, pairs: "Pairs",
                    binary: bool) -> np.ndarray:
        """Per document and class: the sum over its known terms of ``pairs.base`` plus the
        pairs' corrections (:func:`nbayes._kernels.text_pairs.score_pairs`)."""
        scores: np.ndarray = self._how().kernels.score_pairs(buf, bounds, table, *self._how().args(), 0, self._terms(),
                                 pairs.indptr, pairs.cls, pairs.delta, pairs.base, *pairs.heavy(), binary, threads())
        return scores

    def presence(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CSR (indptr, indices) of the documents' known terms, each once, sorted."""
        rows: tuple[np.ndarray, np.ndarray] = self._how().kernels.presence_rows(buf, bounds, table, *self._how().args(), 0,
                                                            self._terms(), len(self))
        return rows

    def tokens(self, buf: np.ndarray, bounds: np.ndarray, table: np.ndarray) -> np.ndarray:
        """(document, term id or -1, start, end within the document) of every term occurrence."""
        found: np.ndarray = self._how().kernels.term_ids(buf, bounds, table, *self._how().args(), 0, self._terms())
        return found
