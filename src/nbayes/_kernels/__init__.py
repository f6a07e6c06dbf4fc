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

from ._omp import OPENMP, max_threads, set_max_threads

__all__ = ["OPENMP", "set_max_threads", "threads"]


def threads() -> int:
    """How many threads the parallel kernels split their rows over (OpenMP's setting, as seen
    from the calling thread)."""
    return int(max_threads())


