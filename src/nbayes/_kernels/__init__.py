"""Compiled hot loops (numba), one file per job, each with a NumPy twin used by the tests.

Kernels are compiled on first use and cached on disk (``cache=True``; set ``NUMBA_CACHE_DIR`` to
a writable folder where the package folder is read-only). numba checks a cached kernel against
its own file only, while kernels inline helpers from other files here: in ``NUMBA_CACHE_DIR``
the cache of these kernels lives in a folder named after a digest of all their sources, so a
change to any of them never meets a kernel compiled before it (a stale inlined helper read
arrays laid out anew: a crash). Each import marks its folder as used; folders of other sources
unused for ``STALE_DAYS`` are removed then (an upgrade leaves its old kernels behind). Parallel kernels run under a
thread-safe threading layer (OpenMP or TBB) so that many threads may predict at once; where
neither is available the workqueue layer is used behind a lock.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any, Callable

import numba


def _sources_digest() -> str:
    """A digest of every kernel source file: the name of their cache's folder."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


#: a cache folder of other kernel sources unused this long is removed (another version of
#: nbayes sharing NUMBA_CACHE_DIR marks its own folder at each import, so it stays while in use)
STALE_DAYS = 14


def _cache_folder(root: str) -> str:
    """This version's cache folder under ``root``, marked as used now; stale siblings removed."""
    mine = os.path.join(root, "nbayes-" + _sources_digest())
    try:
        os.makedirs(mine, exist_ok=True)
        os.utime(mine)
        cutoff = time.time() - STALE_DAYS * 86400
        for entry in os.scandir(root):
            if (entry.name.startswith("nbayes-") and entry.path != mine and entry.is_dir(follow_symlinks=False)
                    and entry.stat(follow_symlinks=False).st_mtime < cutoff):
                shutil.rmtree(entry.path, ignore_errors=True)
    except OSError:  # a read-only or shared cache: numba says what it cannot write, not this
        pass
    return mine


if os.environ.get("NUMBA_CACHE_DIR"):
    # read by numba when each kernel is decorated, so before the kernel modules are imported
    numba.config.CACHE_DIR = _cache_folder(os.environ["NUMBA_CACHE_DIR"])  # type: ignore[attr-defined]

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
