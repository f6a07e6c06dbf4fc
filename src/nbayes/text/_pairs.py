"""Per-term weights as the (class, term) pairs seen (the parameters of a model estimated over
pairs, :mod:`nbayes.text._estimate`), read by the scoring kernels."""

from __future__ import annotations

import numpy as np

__all__ = ["Pairs"]


class Pairs:
    """Per-term weights as (class, term) pairs: term t weighs base[c] in class c, plus
    delta[p] for its pairs p = indptr[t]..indptr[t + 1] (class cls[p])."""

    __slots__ = ("indptr", "cls", "delta", "base", "_heavy")

    def __init__(self, indptr: np.ndarray, cls: np.ndarray, delta: np.ndarray, base: np.ndarray) -> None:
        self.indptr, self.cls, self.delta, self.base = indptr, cls, delta, base
        self._heavy: tuple[np.ndarray, np.ndarray] | None = None

    def dense(self) -> np.ndarray:
        """The weights as a terms x classes table."""
        V, K = len(self.indptr) - 1, len(self.base)
        out = np.repeat(self.base[None, :], V, axis=0)
        rows = np.repeat(np.arange(V), np.diff(self.indptr))
        out[rows, self.cls] += self.delta
        return out

    def heavy(self) -> tuple[np.ndarray, np.ndarray]:
        """(row per term, or -1; rows): the full weights (base + delta) of the terms that at
        least a quarter of the classes hold. Scoring adds such a term's row in one contiguous
        pass instead of scattering its many corrections (the frequent words, most of a text's
        tokens); the rows take at most 4 times the memory of the pairs they replace."""
        if self._heavy is None:
            V, K = len(self.indptr) - 1, len(self.base)
            held = np.diff(self.indptr)
            picked = np.flatnonzero((4 * held >= K) & (held > 0))
            row = np.full(V, -1, dtype=np.int64)
            row[picked] = np.arange(len(picked))
            rows = np.repeat(self.base[None, :], len(picked), axis=0)
            term = np.repeat(np.arange(V), held)
            on = row[term] >= 0
            rows[row[term[on]], self.cls[on]] += self.delta[on]
            self._heavy = (row, rows)
        return self._heavy
