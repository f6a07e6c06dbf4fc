"""nbayes: exact, fast, mergeable Naive Bayes classifiers.

>>> import nbayes
>>> model = nbayes.MultinomialNB().fit([[2, 0], [0, 3]], ["ham", "spam"])
>>> model.predict([[1, 0]]).tolist()
['ham']
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from . import errors
from .io.load import load
from .naive_bayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    Explanation,
    GaussianNB,
    MultinomialNB,
)
from .naive_bayes.mixed import NaiveBayes

try:
    __version__ = version("nbayes")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = [
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "Explanation",
    "GaussianNB",
    "MultinomialNB",
    "NaiveBayes",
    "errors",
    "load",
    "__version__",
]
