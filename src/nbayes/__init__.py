"""nbayes: exact, fast, mergeable Naive Bayes classifiers.

The public names load on first use, so ``import nbayes`` (and the ``nbayes`` command) start
fast.

>>> import nbayes
>>> model = nbayes.MultinomialNB().fit([[2, 0], [0, 3]], ["ham", "spam"])
>>> model.predict([[1, 0]]).tolist()
['ham']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import exports

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
    "errors": "nbayes.errors:",
    "metrics": "nbayes.metrics:",
    "evaluate": "nbayes.evaluate:",
    "calibration": "nbayes.calibration:",
    "model_selection": "nbayes.model_selection:",
    "shift": "nbayes.shift:",
    "active": "nbayes.active:",
}

__all__ = sorted(_WHERE) + ["__version__"]

if TYPE_CHECKING:  # pragma: no cover
    # ``name as name``: an explicit re-export (mypy's strict mode exports no other import;
    # the computed ``__all__`` above is beyond its reading)
    from . import (
        active as active,
        calibration as calibration,
        errors as errors,
        evaluate as evaluate,
        metrics as metrics,
        model_selection as model_selection,
        shift as shift,
    )
    from .calibration import CalibratedClassifier as CalibratedClassifier
    from .evaluate import Comparison as Comparison
    from .evaluate import compare as compare
    from .io.load import load as load
    from .linear import LogisticRegression as LogisticRegression
    from .multilabel import MultiLabel as MultiLabel
    from .naive_bayes import (
        BernoulliNB as BernoulliNB,
        CategoricalNB as CategoricalNB,
        ComplementNB as ComplementNB,
        Explanation as Explanation,
        GaussianNB as GaussianNB,
        MultinomialNB as MultinomialNB,
    )
    from .naive_bayes.mixed import NaiveBayes as NaiveBayes
    from .semi_supervised import EM as EM
    from .text import TextClassifier as TextClassifier

    __version__: str




def _version() -> str:
    """The installed distribution's version (importlib.metadata, read on first use: it costs
    more than the rest of ``import nbayes``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("nbayes")
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0+unknown"


__getattr__, __dir__ = exports(__name__, _WHERE, {"__version__": _version})
