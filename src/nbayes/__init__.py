"""nbayes: exact, fast, mergeable Naive Bayes classifiers.

The public names load on first use, so ``import nbayes`` (and the ``nbayes`` command) start
fast.

>>> import nbayes
>>> model = nbayes.MultinomialNB().fit([[2, 0], [0, 3]], ["ham", "spam"])
>>> model.predict([[1, 0]]).tolist()
['ham']
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("nbayes")
except PackageNotFoundError:  # running from a source tree
    __version__ = "0.0.0+unknown"

_WHERE = {
    "BernoulliNB": "nbayes.naive_bayes",
    "CalibratedClassifier": "nbayes.calibration",
    "CategoricalNB": "nbayes.naive_bayes",
    "ComplementNB": "nbayes.naive_bayes",
    "Comparison": "nbayes.evaluate",
    "EM": "nbayes.semi_supervised",
    "Explanation": "nbayes.naive_bayes",
    "GaussianBayes": "nbayes.gaussian_bayes",
    "GaussianNB": "nbayes.naive_bayes",
    "LogisticRegression": "nbayes.linear",
    "MultiLabel": "nbayes.multilabel",
    "MultinomialNB": "nbayes.naive_bayes",
    "NaiveBayes": "nbayes.naive_bayes.mixed",
    "TextClassifier": "nbayes.text",
    "compare": "nbayes.evaluate",
    "load": "nbayes.io.load",
    "errors": "nbayes.errors",
    "metrics": "nbayes.metrics",
    "evaluate": "nbayes.evaluate",
    "calibration": "nbayes.calibration",
    "model_selection": "nbayes.model_selection",
    "shift": "nbayes.shift",
    "active": "nbayes.active",
}

__all__ = sorted(_WHERE) + ["__version__"]

if TYPE_CHECKING:  # pragma: no cover
    from . import active, calibration, errors, evaluate, metrics, model_selection, shift
    from .calibration import CalibratedClassifier
    from .evaluate import Comparison, compare
    from .io.load import load
    from .linear import LogisticRegression
    from .multilabel import MultiLabel
    from .naive_bayes import (
        BernoulliNB,
        CategoricalNB,
        ComplementNB,
        Explanation,
        GaussianNB,
        MultinomialNB,
    )
    from .naive_bayes.mixed import NaiveBayes
    from .semi_supervised import EM
    from .text import TextClassifier


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'nbayes' has no attribute {name!r}")
    module = import_module(where)
    value = module if name in ("errors", "metrics", "calibration", "model_selection", "evaluate", "shift", "active") else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
