"""``nbayes.compare``: Ng & Jordan's learning curves of Naive Bayes and logistic regression.

The experiment lives in :mod:`nbayes.evaluate.learning_curves` (:func:`compare`) and its
result in :mod:`nbayes.evaluate.comparison` (:class:`Comparison`); this module keeps the public
path working: ``nbayes.compare(X, y)``, ``nbayes.compare.compare`` and
``from nbayes.compare import Comparison``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from ._math import LOG_LOSS_EPS
from .errors import MissingDependencyError
from .evaluate.comparison import Comparison, Row, crossover_size  # noqa: F401
from .evaluate.learning_curves import LRInput, compare, default_sizes  # noqa: F401 (the public path of before)

__all__ = ["compare", "Comparison", "Row", "MissingDependencyError"]

#: the log-loss floor: probabilities are clipped to [EPS, 1 - EPS] (``nbayes._math``)
EPS = LOG_LOSS_EPS


class _CallableModule(types.ModuleType):
    """``import nbayes.compare`` makes ``nbayes.compare`` this module (Python binds a loaded
    submodule on its package), shadowing the function of the same name; calling the module
    calls the function, so ``nbayes.compare(X, y)`` works whatever was imported first."""

    def __call__(self, *args: Any, **kwargs: Any) -> Comparison:
        return compare(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
