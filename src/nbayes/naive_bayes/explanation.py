"""What ``explain`` returns: each feature's additive term of each class's joint log-probability
(:class:`nbayes._estimator.Explanation`, the return type of the ``explain`` protocol method,
shared with the logistic regression's explanation)."""

from __future__ import annotations

from .._estimator import Explanation

__all__ = ["Explanation"]
