"""Text kernels: tokenise and look up (or learn) terms in one pass, without building a matrix.

Documents arrive as one buffer of code points (uint8 for Latin-1 text, uint32 otherwise),
already lower-cased, document d spanning ``bounds[d]:bounds[d + 1]``. A token is a maximal run
of word characters (``is_word``) at least two long: exactly what scikit-learn's default
``(?u)\\b\\w\\w+\\b`` finds.

Terms live in an open-addressing table, ``slots[2 i]`` a key and ``slots[2 i + 1]`` a term id
(-1: empty). A token of at most 7 Latin-1 characters is its own key (its bytes packed with its
length): equal keys are equal terms. A longer token's key is a 64-bit FNV-1a hash with the top
bit clear, and a matching key is confirmed against the term's code points ``cps[start[t]:+len]``,
so no collision can ever merge two terms. While learning, a word n-gram is also its two parts
(the ids of its prefix (n-1)-gram and last word, ``parts[t, 0:2]``), which confirm a matching
key in one read when every shorter n-gram is counted; ``parts[t, 2:4]`` keeps t's first
(class, term) pair, its class and index (``pair_of`` in _pairs.pxd).

Hashing mode keeps no table: a term's column is scikit-learn's MurmurHash3 bucket of its UTF-8
bytes, an n-gram hashed as "w1 w2" from running hash states, without building the string.

The loops are Cython compiled ahead of time (:mod:`._text`, over the inline helpers of
``_table.pxd``, ``_murmur.pxd``, ``_pairs.pxd`` and ``_words.pxd``, the GIL released); this
module re-exports them and keeps the Python orchestration. Their twins are in
:mod:`.text_twin`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from ._text import (build, count_new, hash_counts, learn_counts, merge_learned, murmur3, rehash, rehash_pairs,
                    term_ids)
from ._text import gram_find_ids_of as _gram_find_ids  # noqa: F401  (tests)
from ._text import gram_key_of as _gram_key  # noqa: F401  (tests)

__all__ = ["NO_PARTS", "build", "count_new", "hash_counts", "learn_counts", "merge_learned", "murmur3",
           "rehash", "rehash_pairs", "rows_on_threads", "term_ids"]

#: a table's n-gram parts when it keeps none (see :mod:`.text_parts`): code points confirm
NO_PARTS = np.full((0, 2), -1, dtype=np.int32)


def rows_on_threads(kernel: Callable[..., None], args: tuple[Any, ...], n_docs: int, T: int,
                    scratch: Callable[[], tuple[np.ndarray, ...]] | None = None) -> np.ndarray:
    """Run ``kernel(d0, d1, *args, *scratch())`` over ``T`` ranges of the ``n_docs`` documents
    on Python threads (the kernel releases the GIL; too few documents a thread: one call),
    each with its own scratch arrays; returns the last of ``args``, the output the kernel
    fills."""
    out: np.ndarray = args[-1]
    T = max(1, min(int(T), n_docs // _MIN_THREAD_DOCS))
    own = scratch if scratch is not None else tuple
    if T == 1:
        kernel(0, n_docs, *args, *own())
        return out
    per = (n_docs + T - 1) // T
    with ThreadPoolExecutor(T) as pool:
        list(pool.map(lambda th: kernel(th * per, min(n_docs, (th + 1) * per), *args, *own()), range(T)))
    return out


#: documents per thread below which scoring stays on the calling thread
_MIN_THREAD_DOCS = 64
