"""Compiled hot loops, one family per file, each with a NumPy twin used by the tests.

The kernels are Cython compiled ahead of time by ``pip install .`` (meson-python): nothing is
compiled at run time. Each family's Python module (``gaussian``, ``text``, ...) re-exports its
compiled functions from the extension beside it (``_gaussian``, ``_text``, ...) and keeps the
NumPy twin the tests compare them with.

Parallel loops run on OpenMP threads with the GIL released, so several Python threads may
predict at once. Their number is OpenMP's: ``OMP_NUM_THREADS`` or threadpoolctl's
``threadpool_limits(n)`` set it (docs/architecture.md).
"""

from __future__ import annotations

import ctypes
import sys
from functools import lru_cache
from typing import Any

from ._omp import OPENMP, max_threads, set_max_threads

__all__ = ["OPENMP", "give_back_freed_memory", "set_max_threads", "threads"]


def threads() -> int:
    """How many threads the parallel kernels split their rows over (OpenMP's setting, as seen
    from the calling thread)."""
    return int(max_threads())




def give_back_freed_memory() -> None:
    """Have glibc return the free pages of its heaps to the system (``malloc_trim``), after a
    step that freed large tables.

    glibc keeps arrays below its mmap threshold, which rises to 32 MB once such a block was
    freed, in its heaps, and freed ones there stay resident: counting 20 Newsgroups' bigrams
    left 100 to 200 MB so held, which the next steps' new arrays added to. Only the free pages
    go; the allocator's settings do not change. Elsewhere, or without glibc, nothing happens."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def _malloc_trim() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
