"""SciPy, imported when first used: a process that never meets a sparse matrix never loads it.

Importing ``scipy.sparse`` costs about 0.2 s of CPU and 35 MB (SciPy's array-API layer imports
most of NumPy's submodules with it), more than the whole of a one-row ``nbayes predict`` of a
text model, which needs no SciPy at all. Every module of nbayes writes
``from .._scipy import sparse as sp`` where it would write ``import scipy.sparse as sp``:

- ``sp.issparse(x)`` answers without importing SciPy: a sparse matrix exists only once
  ``scipy.sparse`` has been imported by whoever made it, so until then the answer is ``False``;
- any other name (``sp.csr_matrix``, ``sp.spmatrix``, ...) imports ``scipy.sparse`` on first use,
  then is looked up in it (the module is cached by Python, so later uses cost a dictionary look-up).

``expit`` and ``gammaincc`` are SciPy's special functions, imported on their first call.

>>> import numpy as np
>>> issparse(np.eye(2))
False
>>> import scipy.sparse
>>> sparse.issparse(scipy.sparse.csr_matrix(np.eye(2))), sparse.csr_matrix is scipy.sparse.csr_matrix
(True, True)
>>> float(expit(0.0))
0.5
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import Any

__all__ = ["expit", "gammaincc", "issparse", "sparse"]


def issparse(x: object) -> bool:
    """``scipy.sparse.issparse(x)``, ``False`` while ``scipy.sparse`` is not imported."""
    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(x))


class _Sparse(ModuleType):
    """``scipy.sparse`` on first use of any name but ``issparse``."""

    issparse = staticmethod(issparse)

    def __getattr__(self, name: str) -> Any:
        return getattr(import_module("scipy.sparse"), name)


#: use as ``from nbayes._scipy import sparse as sp``
sparse: Any = _Sparse("scipy.sparse")


def expit(x: Any) -> Any:
    """``scipy.special.expit``: the logistic function 1 / (1 + exp(-x)), without overflow."""
    return import_module("scipy.special").expit(x)


def gammaincc(a: Any, x: Any) -> Any:
    """``scipy.special.gammaincc``: the regularised upper incomplete gamma function (chi-square's
    survival function is ``gammaincc(df / 2, x / 2)``)."""
    return import_module("scipy.special").gammaincc(a, x)
