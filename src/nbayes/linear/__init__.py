"""Discriminative linear classifiers: logistic regression (chapter 002 section 3).

The model loads on first use (:mod:`nbayes._lazy`): a Naive Bayes model imports this package
for ``to_logistic`` without loading the solvers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

__all__ = ["LogisticRegression"]

if TYPE_CHECKING:  # pragma: no cover - an explicit re-export (mypy reads no computed names)
    from .logistic import LogisticRegression as LogisticRegression

__getattr__, __dir__ = exports(__name__, {"LogisticRegression": ".logistic"})
