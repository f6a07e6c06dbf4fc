"""A fitted vocabulary's word n-grams as the ids of their parts, by which lookups confirm them.

A word n-gram "w1 .. wn" is its prefix "w1 .. w(n-1)" and its last word "wn", joined by one
space. When both are terms of the table (every shorter n-gram counted: ``ngram_range`` from 1),
``parts[t] = (prefix id, last word id)``, and a lookup that has just found the prefix and the
word of a document's n-gram (the previous token's terms and this token's word) confirms a
matching key by these two ids in one read, rather than by the term's length, start and code
points (three reads into tables of 100+ MB with bigrams). See :func:`nbayes._kernels.text._grams`.

Exactness. ``parts[t]`` is known only when t, split at its last space, is two terms a and b:
then t == query "p w" (w a token: no space) exactly when a == p and b == w, i.e. when their ids
are equal. A query whose prefix or word is not a term (id -1) can only equal a term whose
parts are unknown (were its parts known, its prefix and word would be terms, found by the
lookups that gave -1), and those are confirmed by their code points. So a table may leave any
term's parts unknown (-1) without a wrong miss or match: pruned vocabularies, terms added by
an online update, statistics absorbed from elsewhere.

Complete tables. A term holding a space whose parts are unknown is *loose*. In a table without
loose terms (a vocabulary counted with ``ngram_range`` from 1 and not pruned, or pruned by a
``min_df``: an n-gram's prefix and word occur wherever it does), an n-gram whose prefix or
last word is no term is no term either: the lookup answers -1 without a key or a probe. The
kernels below return the number of loose terms.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._text_parts import extended_parts, gram_parts, kept_parts, renumbered_parts
from .text import NO_PARTS

__all__ = ["NO_PARTS", "build_parts", "extended_parts", "gram_parts", "kept_parts", "renumbered_parts"]

#: terms a thread at least when a table's parts are built on several
_PER_THREAD = 1 << 16


def build_parts(slots: np.ndarray, start: np.ndarray, length: np.ndarray, cps: np.ndarray,
                T: int) -> tuple[np.ndarray, int]:
    """(parts, number of loose terms) of the table (:func:`gram_parts`), its terms split in up
    to ``T`` ranges built on Python threads."""
    n = len(start)
    parts = np.empty((n, 2), dtype=np.int32)
    T = max(1, min(int(T), n // _PER_THREAD))
    if T == 1:
        return parts, int(gram_parts(slots, start, length, cps, parts, 0, n))
    cuts = [n * k // T for k in range(T + 1)]
    with ThreadPoolExecutor(T) as pool:
        loose = sum(pool.map(lambda k: int(gram_parts(slots, start, length, cps, parts, cuts[k], cuts[k + 1])),
                             range(T)))
    return parts, loose
