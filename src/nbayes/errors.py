"""One exception tree for nbayes.

Every error nbayes raises on purpose derives from :class:`NBayesError`, itself a
``ValueError`` so that code written against scikit-learn (which raises ``ValueError`` for bad
input) keeps working. Messages name the parameter, column, row or file, what was expected and
what came.

>>> import nbayes
>>> try:
...     nbayes.MultinomialNB(alpha=-1).fit([[1, 0]], ["a"])
... except ValueError as e:
...     print(type(e).__name__, "-", e)
InvalidParameterError - parameter 'alpha' must be >= 0.0, got -1
"""

from __future__ import annotations

__all__ = [
    "NBayesError",
    "InvalidParameterError",
    "DataError",
    "FeatureMismatchError",
    "NotFittedError",
    "MergeError",
    "UnlearnError",
    "StatisticsError",
    "ModelFileError",
    "ConvergenceError",
    "ConvergenceWarning",
    "MissingDependencyError",
    "ModelLockedError",
    "StaleModelWarning",
]


class NBayesError(ValueError):
    """Base class of every error nbayes raises on purpose."""


class InvalidParameterError(NBayesError):
    """A hyperparameter has a value outside its allowed range or type."""


class DataError(NBayesError):
    """Training or prediction data (X, y or sample_weight) is not what the model expects."""


class FeatureMismatchError(DataError):
    """Prediction data does not have the features (number, names, columns) seen at fit."""


class NotFittedError(NBayesError, AttributeError):
    """The model was used before ``fit`` (or ``partial_fit``) was called."""


class MergeError(NBayesError):
    """Two models cannot be merged: different types or different statistics-shaping settings."""


class UnlearnError(NBayesError):
    """``unlearn`` was asked to remove data the model never learned."""

    #: the kind of the statistics that refused, within a model of several (NaiveBayes' parts):
    #: its message counts columns within that part
    part: str | None = None


class StatisticsError(DataError):
    """Statistics that no data could have produced: a negative or non-finite count, shapes that
    disagree, a part larger than the whole it belongs to (a file whose checksum holds but whose
    numbers are impossible, or statistics built by hand)."""


class ModelFileError(NBayesError):
    """A model file is corrupted, truncated, of an unknown format version or not a model file."""


class ConvergenceError(NBayesError):
    """A solver diverged (the objective or the coefficients became non-finite)."""


class ConvergenceWarning(UserWarning):
    """A solver stopped at ``max_iter`` before reaching its tolerance; the model is usable but
    not at the optimum."""


class MissingDependencyError(NBayesError, ImportError):
    """An optional dependency is not installed (matplotlib for figures: ``nbayes[plot]``); the
    message says which extra to install."""


class ModelLockedError(ModelFileError):
    """Another process writes this model file and its update log (``nbayes serve --learn``,
    ``nbayes snapshot``, ``nbayes repair``): the message names it (pid, host, since when)."""


class StaleModelWarning(UserWarning):
    """The update log beside a model file holds acknowledged updates the file lacks (a learning
    service that has not written a snapshot yet): ``nbayes.load(path, replay=True)`` adds them,
    ``nbayes snapshot PATH`` writes them into the file."""
