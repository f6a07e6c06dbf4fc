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

import threading
from typing import Any, Callable

from ._omp import OPENMP, max_threads, set_max_threads

__all__ = ["OPENMP", "run", "set_max_threads", "threads"]


def threads() -> int:
    """How many threads the parallel kernels split their rows over (OpenMP's setting, as seen
    from the calling thread)."""
    return int(max_threads())


_lock = threading.Lock()
_layer_safe: bool | None = None


def run(kernel: Callable[..., Any], *args: Any) -> Any:
    """Call a parallel kernel safely from any thread. (Transitional: numba kernels still being
    ported need a thread-safe threading layer; compiled kernels are called directly.)"""
    if not hasattr(kernel, "py_func"):  # not a numba dispatcher
        return kernel(*args)
    global _layer_safe
    import numba

    if "NUMBA_THREADING_LAYER" not in __import__("os").environ:
        numba.config.THREADING_LAYER = "threadsafe"  # type: ignore[attr-defined]
    if _layer_safe is None:
        with _lock:
            if _layer_safe is None:
                try:
                    out = kernel(*args)
                except ValueError as exc:  # no thread-safe layer on this machine
                    if "threading layer" not in str(exc):
                        raise
                    numba.config.THREADING_LAYER = "workqueue"  # type: ignore[attr-defined]
                    out = kernel(*args)
                _layer_safe = numba.threading_layer() in ("omp", "tbb")
                return out
    if _layer_safe:
        return kernel(*args)
    with _lock:
        return kernel(*args)
