"""Out-of-fold log-odds of text Naive Bayes models without building a text model per fold.

The fold engine of :mod:`nbayes.model_selection` (``TextFolds``) holds one document-term count
matrix of all training documents (``counts``, ``ones``) over one vocabulary (``terms``), and
counts each fold's statistics over it. A fold's model is its count model (multinomial or
Bernoulli) estimated on the fold's term (or document) counts of the terms its training
documents hold, which is what ``TextClassifier`` estimates when its vocabulary settings keep
every such term (``min_df=1``, ``max_df=1.0``, no ``max_features``, no tf-idf); the held-out
documents are scored by a sparse product. ``tests/multilabel`` checks the scores against the
text models built per fold."""

from __future__ import annotations

from typing import Any

import numpy as np
from .._scipy import sparse as sp

from ..stats import CountStats
from ._scores import difference
from ._stats import stacked


def applies(est: Any, engine: Any) -> bool:
    """Whether the shortcut gives the text model's own scores for this model and engine: a text
    model estimated from document-term sums (capability ``count_matrix``) whose count model
    estimates each class alone (``per_class``: multinomial or Bernoulli, so the labels stack)."""
    return (
        all(hasattr(engine, a) for a in ("counts", "ones", "terms"))
        and {"count_matrix", "per_class"} <= getattr(est, "capabilities", frozenset())
        and est.min_df == 1 and est.max_df == 1.0 and est.max_features is None
        and not est.tfidf and est.class_prior is None and est.n_features is None
    )


def fold_scores(est: Any, engine: Any, trained: Any, test: np.ndarray, names: np.ndarray,
                per_term: bool) -> np.ndarray:
    """Log-odds (per known term with ``per_term``) of the held-out rows ``test`` under the
    stacked count model of the fold statistics ``trained`` (text statistics over the engine's
    vocabulary)."""
    alive = np.asarray(trained.df) > 0  # the terms the fold's training documents hold
    presence = est.counts_presence
    fc = trained.doc_count if presence else trained.term_count
    fc = fc[:, alive]
    # the fold engine keeps a fold's (class, term) counts as CSR pairs (issue #29); the count
    # model is estimated on a dense table of the fold's own terms only, as TextFolds does
    fc = fc.toarray() if sp.issparse(fc) else fc
    counts = CountStats(np.asarray(trained.class_count, dtype=np.float64), np.ascontiguousarray(fc, dtype=np.float64))
    T = stacked(counts, names)
    inner = est.count_model()  # (class_prior is None: the stacked labels' priors are their own)
    L = len(names)
    V = int(alive.sum())
    if V == 0:  # no term: every document is scored by the prior alone
        with np.errstate(divide="ignore"):
            prior = np.log(T.class_count[L:]) - np.log(T.class_count[:L])
        return np.broadcast_to(prior, (len(test), L)).copy()
    inner.set_statistics(T, np.arange(2 * L), V, None)
    Xc = engine.counts[test][:, alive]
    X = engine.ones[test][:, alive] if presence else Xc
    jll = inner.predict_joint_log_proba(X)
    with np.errstate(invalid="ignore"):
        s = difference(jll[:, L:], jll[:, :L], inner, slice(None))
    if per_term:
        s = s / (1.0 + np.asarray(Xc.sum(axis=1), dtype=np.float64).reshape(-1, 1))
    return s
