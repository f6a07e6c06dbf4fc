"""The laws every nbayes model keeps, as checks any model can be run through.

:func:`checks` yields ``(name, check)`` for each law whose capabilities the estimator declares
(``estimator.capabilities``, names in :data:`nbayes._estimator.CAPABILITIES`) plus the universal
ones; :func:`check_estimator` runs them all. Data is generated to suit the estimator
(:mod:`nbayes.testing.data`; hypothesis strategies in :mod:`nbayes.testing.strategies`), seeded.
See docs/testing.md for the list of laws.

>>> import nbayes
>>> from nbayes.testing import checks, REQUIREMENTS
>>> names = [name for name, _ in checks(nbayes.MultinomialNB())]
>>> "fit_equals_merge_of_shards" in names, "scale_invariance" in names
(True, False)
>>> sorted(REQUIREMENTS["unlearn_class"])
['unlearn']
"""

from __future__ import annotations

from ._checks import LAWS, REQUIREMENTS, Law, check_estimator, checks
from ._compare import LawError, clone
from .data import Dataset, dataset_for, input_kind

__all__ = [
    "LAWS",
    "REQUIREMENTS",
    "Dataset",
    "Law",
    "LawError",
    "check_estimator",
    "checks",
    "clone",
    "dataset_for",
    "input_kind",
]
