"""The Naive Bayes family, each model a view of its sufficient statistics."""

from ._base import BaseNB, Explanation
from .bernoulli import BernoulliNB
from .categorical import CategoricalNB
from .complement import ComplementNB
from .gaussian import GaussianNB
from .multinomial import MultinomialNB

__all__ = [
    "BaseNB",
    "Explanation",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MultinomialNB",
]
