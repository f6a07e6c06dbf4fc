"""Character n-gram kernels: scikit-learn's ``analyzer="char"`` and ``"char_wb"`` tokens, counted,
scored, hashed and listed in one pass over the code point buffer, without Python strings.

The same buffer as the word kernels (:mod:`nbayes._kernels.text`) but with exact document
bounds (no separator: every code point of ``bounds[d]:bounds[d + 1]`` belongs to document d)
and, in the place of the word table, ``is_space``: 1 for the code points Python's ``\\s``
matches (what ``str.split()`` splits on). Each document is first rewritten into a scratch
array, ``norm``, as scikit-learn's analyzers see it, cut into segments ``seg``:

- ``char``: the document with every run of two or more whitespace characters replaced by one
  space (``re.sub(r"\\s\\s+", " ", doc)``; a single tab or newline stays), one segment; its
  n-grams are all n-grams of the segment for n in lo..hi (n at most its length);
- ``char_wb``: per whitespace-separated word one segment, the word padded with a space each
  side; its n-grams for n in lo..hi, except that once n reaches the padded word's length the
  padded word itself is one gram and longer n are skipped (``_char_wb_ngrams``).

Grams come in scikit-learn's order (``char``: n-major, then offset; ``char_wb``: word, n,
offset). A gram norm[s:e] is looked up with the term table's key and probe (``_table.pxd``:
``term_key``, ``find``): a term table stores its code points, whichever analyzer made it. The third
argument after the table, where the word kernels take the stop-word table, is ``wb``: whether
the analyzer is ``char_wb``. Hashing mode buckets a gram as scikit-learn's HashingVectorizer
(MurmurHash3 of its UTF-8 bytes).

The kernels are compiled (``_text_chars.pyx``) and re-exported here; their Python twin, built
on scikit-learn's own analyzers, is in ``tests/test_kernels.py``.
"""

from __future__ import annotations

import numpy as np

from ._text_chars import hash_counts, learn_counts, presence_rows, room, score_pairs, term_ids
from .text_pairs import Table, dense_layout

__all__ = ["hash_counts", "learn_counts", "presence_rows", "room", "score", "score_pairs", "term_ids"]


def score(buf: np.ndarray, bounds: np.ndarray, is_space: np.ndarray, lo_n: int, hi_n: int, wb: bool,
          n_features: int, terms: Table, weights: np.ndarray, binary: bool, T: int) -> np.ndarray:
    """:func:`nbayes._kernels.text_pairs.score` for character n-grams: out[d, c] = the sum of
    weights[t, c] over the known grams t of document d (each distinct one once when ``binary``)."""
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    return score_pairs(buf, bounds, is_space, lo_n, hi_n, wb, n_features, terms, *dense_layout(weights), binary, T)
