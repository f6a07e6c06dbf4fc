"""Compiled hot loops (numba), one file per job, each with a NumPy twin used by the tests.

Kernels are compiled on first use and cached on disk (``cache=True``; set ``NUMBA_CACHE_DIR`` to
a writable folder where the package folder is read-only). Parallel kernels run under a
thread-safe threading layer (OpenMP or TBB) so that many threads may predict at once; where
neither is available the workqueue layer is used behind a lock.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable

import numba

if "NUMBA_THREADING_LAYER" not in os.environ:
    # numba.config sets its options from the environment at import time (setattr), so they are
    # invisible to the type checker
    numba.config.THREADING_LAYER = "threadsafe"  # type: ignore[attr-defined]

_lock = threading.Lock()
_layer_safe: bool | None = None


def threads() -> int:
    """How many threads the parallel kernels split their rows over."""
    return numba.get_num_threads()


def run(kernel: Callable[..., Any], *args: Any) -> Any:
    """Call a parallel kernel safely from any thread."""
    global _layer_safe
    if _layer_safe is None:
        with _lock:
            if _layer_safe is None:
                try:
                    out = kernel(*args)
                except ValueError as exc:  # no thread-safe layer on this machine
                    if "threading layer" not in str(exc):
                        raise
                    numba.config.THREADING_LAYER = "workqueue"  # type: ignore[attr-defined]  # set at import, see above
                    out = kernel(*args)
                _layer_safe = numba.threading_layer() in ("omp", "tbb")
                return out
    if _layer_safe:
        return kernel(*args)
    with _lock:
        return kernel(*args)
