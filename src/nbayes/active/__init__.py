"""Active learning: which unlabelled rows to label next (docs/active-learning.md).

``suggest(model, X_pool, k)`` returns the indices of the ``k`` pool rows most worth labelling;
``Pool(model, X)`` keeps a pool registered between rounds (text tokenised and counted once,
rows already labelled left out); ``StabilizingPredictions`` says when to stop.

Strategies: ``"least_confident"``, ``"margin"``, ``"entropy"`` (uncertainty sampling, Lewis &
Gale 1994; Settles 2009), ``"density"`` (information density, Settles & Craven 2008, with a
diverse batch), ``"expected_error"`` (Roy & McCallum 2001, exact for multinomial Naive Bayes
from its statistics), ``"random"``. The default is the one that did best on the 20 Newsgroups
benchmark (benchmarks/active_learning.py).

>>> import nbayes
>>> from nbayes.active import suggest
>>> model = nbayes.TextClassifier().fit(["cheap pills", "team meeting"], ["spam", "ham"])
>>> pool = ["cheap meeting", "pills pills pills", "team lunch today", "cheap cheap pills"]
>>> sorted(suggest(model, pool, 2, strategy="least_confident").tolist())   # the mixed ones first
[0, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_choice, check_number
from ..errors import InvalidParameterError
from ._pool import Pool
from ._stopping import StabilizingPredictions, kappa
from ._strategies import density_batch, expected_error, uncertainty

STRATEGIES = ("density", "expected_error", "least_confident", "margin", "entropy", "random")
DEFAULT = "density"

__all__ = ["DEFAULT", "STRATEGIES", "Pool", "StabilizingPredictions", "kappa", "suggest"]


def suggest(model: Any, X_pool: Any, k: int = 10, *, strategy: str = DEFAULT, n_candidates: int = 200,
            n_evaluate: int = 500, random_state: Any = None) -> np.ndarray:
    """The indices (into the pool) of the ``k`` unlabelled rows most worth labelling, best first.

    ``X_pool``: the rows, or a :class:`Pool` (registered: counted once, its labelled rows
    skipped). ``expected_error`` scores ``n_candidates`` random unlabelled rows against
    ``n_evaluate`` others (Roy & McCallum's subsampling)."""
    check_choice("strategy", strategy, STRATEGIES)
    check_number("k", k, low=1, integer=True)
    model.check_fitted()
    pool = X_pool if isinstance(X_pool, Pool) else Pool(model, X_pool)
    if pool.model is not model:
        pool.model = model  # the same rows, scored by the model given
    free = np.flatnonzero(~pool.labelled)
    if len(free) == 0:
        raise InvalidParameterError("every row of the pool is labelled; there is nothing to suggest")
    k = min(int(k), len(free))
    rng = np.random.default_rng(random_state)
    if strategy == "random":
        return np.asarray(rng.choice(free, size=k, replace=False), dtype=np.int64)
    if strategy == "expected_error":
        check_number("n_candidates", n_candidates, low=1, integer=True)
        check_number("n_evaluate", n_evaluate, low=1, integer=True)
        cand = rng.choice(free, size=min(max(n_candidates, k), len(free)), replace=False)
        evaluate = rng.choice(free, size=min(n_evaluate, len(free)), replace=False)
        err = expected_error(pool, cand, evaluate)
        return np.asarray(cand[np.argsort(err, kind="stable")[:k]], dtype=np.int64)
    L = pool.log_proba(free)
    if strategy == "density":
        return density_batch(pool, free, L, k)
    score = uncertainty(L, strategy)
    return np.asarray(free[np.argsort(-score, kind="stable")[:k]], dtype=np.int64)
