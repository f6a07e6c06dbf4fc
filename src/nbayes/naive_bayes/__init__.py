"""The Naive Bayes family, each model a view of its sufficient statistics.

Each model loads on first use (:mod:`nbayes._lazy`): ``from nbayes import GaussianNB`` does not
import the count models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

_WHERE = {
    "BaseNB": "._base",
    "ChunkStream": "._chunks",
    "Explanation": "._base",
    "BernoulliNB": ".bernoulli",
    "CategoricalNB": ".categorical",
    "ComplementNB": ".complement",
    "GaussianNB": ".gaussian",
    "MultinomialNB": ".multinomial",
}

__all__ = [
    "BaseNB",
    "ChunkStream",
    "Explanation",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "GaussianNB",
    "MultinomialNB",
]

if TYPE_CHECKING:  # pragma: no cover - explicit re-exports (mypy reads no computed names)
    from ._base import BaseNB as BaseNB
    from ._chunks import ChunkStream as ChunkStream
    from ._base import Explanation as Explanation
    from .bernoulli import BernoulliNB as BernoulliNB
    from .categorical import CategoricalNB as CategoricalNB
    from .complement import ComplementNB as ComplementNB
    from .gaussian import GaussianNB as GaussianNB
    from .multinomial import MultinomialNB as MultinomialNB

__getattr__, __dir__ = exports(__name__, _WHERE)
