"""Reading a Naive Bayes model file back: the checks a valid checksum does not make (the numbers
must be ones data could have produced), and the files written before ``nbayes.EM``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import sorted_unique
from ..errors import DataError, StatisticsError
from ._components import Components

__all__ = ["check_state"]


def check_state(stats: Any, classes: Any, n_features: int, meta: dict[str, Any], n_rows: int | None = None) -> None:
    """A model file's statistics are ones data could have produced (a valid checksum is not a
    valid model): one distinct label per class, the statistics' own check (every array's shape
    against the class rows, ``n_rows``: one per class or per EM component, and the features),
    and the recorded number of training rows equal to the class weights it summarises."""
    labels = np.asarray(classes)
    if labels.ndim != 1 or len(labels) == 0 or len(sorted_unique(labels)) != len(labels):
        raise StatisticsError(f"classes: expected distinct labels, got {labels.tolist()!r}")
    stats.check(n_classes=len(labels) if n_rows is None else n_rows, n_features=n_features)
    seen = meta.get("n_samples_seen")
    total = float(np.sum(stats.class_count))
    if seen is not None and not np.isclose(float(seen), total, rtol=1e-9, atol=1e-9):
        raise StatisticsError(
            f"meta 'n_samples_seen' is {seen!r} but the class weights sum to {total!r}"
        )


def _check_layout(model: Any, stats: Any, classes: np.ndarray) -> None:
    """Statistics with one row per component of the fitted layout (``_layout``)."""
    mix = model.__dict__["_layout"]
    if len(mix.sizes) != len(classes) or len(stats.class_count) != mix.total:
        raise DataError(
            f"n_components_={mix.sizes.tolist()}: statistics with {len(stats.class_count)} rows for "
            f"{len(classes)} classes (expected {mix.total} rows, one per component, and one entry per "
            "class); a model with several components per class is made by nbayes.EM, not from "
            "per-class counts"
        )


#: the EM settings the constructors held before nbayes.EM (files written then carry them)
_LEGACY_EM_PARAMS = ("unlabeled_label", "unlabeled_weight", "em_max_iter", "em_tol", "n_components", "n_init",
                     "random_state")


def _legacy_em_params(params: dict[str, Any]) -> Any:
    """Remove a file's former EM settings from ``params``; the component layout they recorded
    (None for one per class)."""
    spec = params.get("n_components", 1)
    for name in _LEGACY_EM_PARAMS:
        params.pop(name, None)
    return None if np.all(np.asarray(spec) == 1) else spec


def _layout_of(spec: Any, n_classes: int) -> Components:
    """The component layout a model file records: an integer per class (or one for all)."""
    sizes = np.asarray(spec)
    if sizes.ndim == 0:
        sizes = np.full(n_classes, sizes)
    if sizes.shape != (n_classes,) or sizes.dtype.kind not in "iu" or np.any(sizes < 1):
        raise StatisticsError(
            f"meta 'n_components': expected one integer >= 1 per class ({n_classes}), got {spec!r}"
        )
    return Components(sizes.astype(np.intp))
