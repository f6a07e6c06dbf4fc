"""The statistics protocol: what every statistics type of :mod:`nbayes.stats` offers.

A Naive Bayes model is its statistics plus estimation settings. Everything that changes a model
(fit, partial_fit, unlearn, merge, cross-validation folds, EM's expected counts, Dask partitions,
model files, the service's learning) is arithmetic on statistics through this protocol; only
estimation (a model's ``estimate_parameters``) turns statistics into parameters.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

import numpy as np

S = TypeVar("S", bound="Statistics")


@runtime_checkable
class Statistics(Protocol):
    """Sums over training rows, one row of every table per class (or mixture component).

    * ``a + b`` / ``a.merge(b)``: the statistics of both sets of rows (same class layout);
    * ``a.subtract(b, classes)``: the statistics of a's rows without b's (``UnlearnError``, naming
      the class, when b removes more than a holds; rounding noise snaps to exactly 0);
    * ``a.embed(pos, n_classes)``: the same statistics inside a larger class set (class k of a
      goes to row ``pos[k]``), so models with different classes add;
    * ``a.check(n_classes, n_features)``: ``StatisticsError`` unless data could have produced them
      (finite, non-negative counts, consistent shapes, parts within their wholes);
    * ``a.to_arrays()`` / ``type(a).from_arrays(...)``: the named arrays of a model file.

    Each type also counts a batch: ``CountStats.of(X, codes, n_classes, sample_weight)`` and
    ``MomentStats.of(...)``; the categorical and text statistics are counted by their models'
    compiled kernels.
    """

    class_count: np.ndarray

    def __add__(self: S, other: S) -> S: ...

    def merge(self: S, other: S) -> S:
        """The statistics of both sets of rows (same class layout): ``self + other``."""

    def subtract(self: S, other: S, classes: np.ndarray) -> S:
        """The statistics of ``self``'s rows without ``other``'s; ``classes`` (the labels) name the
        class in errors."""

    def embed(self: S, pos: np.ndarray, n_classes: int) -> S:
        """The same statistics inside a class set of ``n_classes``: class k goes to row ``pos[k]``."""

    def check(self, n_classes: int | None = None, n_features: int | None = None) -> None:
        """Raise :class:`~nbayes.errors.StatisticsError` unless data could have produced these
        statistics."""

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The named arrays of a model file (``type(stats).from_arrays`` reads them back)."""
