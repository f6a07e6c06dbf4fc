"""Sufficient statistics: what every Naive Bayes model is made of.

Each statistics object is a sum over training rows, so it adds (``merge``, ``partial_fit``),
subtracts (``unlearn``) and embeds into a larger class set. Estimation reads statistics and
never data; counting reads data and never hyperparameters of estimation.

Each kind loads on first use (:mod:`nbayes._lazy`): a Gaussian model does not import the text
statistics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

_WHERE = {
    "Statistics": ".protocol",
    "CountStats": ".counts",
    "CategoricalStats": ".counts",
    "MomentStats": ".moments",
    "TextStats": ".text",
    "BinnedStats": ".bins",
}

__all__ = ["Statistics", "CountStats", "CategoricalStats", "MomentStats", "TextStats", "BinnedStats"]

if TYPE_CHECKING:  # pragma: no cover - explicit re-exports (mypy reads no computed names)
    from .bins import BinnedStats as BinnedStats
    from .counts import CategoricalStats as CategoricalStats
    from .counts import CountStats as CountStats
    from .moments import MomentStats as MomentStats
    from .protocol import Statistics as Statistics
    from .text import TextStats as TextStats

__getattr__, __dir__ = exports(__name__, _WHERE)
