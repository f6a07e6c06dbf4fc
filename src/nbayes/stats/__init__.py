"""Sufficient statistics: what every Naive Bayes model is made of.

Each statistics object is a sum over training rows, so it adds (``merge``, ``partial_fit``),
subtracts (``unlearn``) and embeds into a larger class set. Estimation reads statistics and
never data; counting reads data and never hyperparameters of estimation.
"""

from .bins import BinnedStats
from .counts import CategoricalStats, CountStats
from .moments import MomentStats
from .protocol import Statistics
from .text import TextStats

__all__ = ["Statistics", "CountStats", "CategoricalStats", "MomentStats", "TextStats", "BinnedStats"]
