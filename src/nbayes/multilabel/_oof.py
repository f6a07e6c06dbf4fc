"""Out-of-fold scores of a multi-label model from one counting pass (the fold engine of
:mod:`nbayes.model_selection` counts each held-out fold once; a fold's model is the total minus
the fold), and the NBLR fit with its out-of-fold refits (see :class:`nbayes.MultiLabel`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import take_rows
from ..model_selection import folds_for, take
from . import _linear as linear
from . import _textfolds as textfolds
from ._nblr import fit_labels, presence
from ._nblr import out_of_fold as nblr_out_of_fold
from ._scores import extended, length
from ._stats import count_labels, counter_of, rows
from ._thresholds import f1_thresholds

if TYPE_CHECKING:  # pragma: no cover
    from ._model import MultiLabel


def out_of_fold(model: "MultiLabel", X: Any, Xv: Any, Y: sp.csr_matrix, sample_weight: Any, w: np.ndarray | None,
                labels: np.ndarray, names: list[str] | None) -> tuple[Any, np.ndarray]:
    """(the statistics of all rows, each row's log-odds from the model without its fold).
    The fold engine of :mod:`nbayes.model_selection` counts each held-out fold once (text:
    sparse products of one document-term matrix); all rows are the folds' sum; a fold's
    model is the total minus the fold. Splits whose folds do not tile the rows count the
    training rows."""
    n = Y.shape[0]
    splits = model._splits(n)
    hits = np.zeros(n, dtype=np.int64)
    for _, test in splits:
        np.add.at(hits, test, 1)
    tiled = bool(np.all(hits == 1))
    if model.__dict__.get("_shortcut", True) and linear.applies(model.estimator):
        # text multinomial: tokenised once, all labels of a fold scored by one product
        corpus = linear.corpus(model._clone(), Xv)
        S = linear.label_stats(corpus, Y, w)
        return S, linear.fold_scores(model.estimator, corpus, Y, w, splits, tiled, model._per_term())
    first = np.asarray(Y.argmax(axis=1)).ravel()  # any code per row: the engine reads rows only
    engine = folds_for(model._clone(), X, first, splits, sample_weight)
    count = engine.count if hasattr(engine, "count") else counter_of(model._clone(), Xv, w)
    fold_stats = [count_labels(count, t, Y[t]) for _, t in splits]
    if tiled:
        S = fold_stats[0]
        for s in fold_stats[1:]:
            S = S + s
    else:
        S = count_labels(count, np.arange(n), Y)
    ext = extended(labels)
    scores = np.zeros(Y.shape, dtype=np.float64)
    shortcut = model.__dict__.get("_shortcut", True) and tiled and textfolds.applies(model.estimator, engine)
    for (train, test), part in zip(splits, fold_stats):
        trained = S.subtract(part, ext) if tiled else count_labels(count, train, Y[train])
        if shortcut:  # count models on the engine's document-term matrix: no text model per fold
            scores[test] = textfolds.fold_scores(model.estimator, engine, trained, test, ext[:-1], model._per_term())
            continue
        models = model._models(trained, labels, int(Xv.shape[1]), names)
        scores[test] = model._log_odds(models, take(Xv, test))
        if model._per_term():
            scores[test] /= length(models, take_rows(X, test))
    return S, scores


def fit_nblr(model: "MultiLabel", X: Any, Xv: Any, Y: sp.csr_matrix, labels: np.ndarray, w: np.ndarray | None,
             names: list[str] | None, empty_rows: bool) -> None:
    """Fit one NB-weighted logistic regression per label (``model``'s base is
    ``TextClassifier(model="nblr")``), thresholds from out-of-fold refits."""
    counter = model._clone()
    S = count_labels(counter_of(counter, Xv, w), np.arange(int(Xv.shape[0])), Y)
    vocab = model._clone()  # the vocabulary (min_df, max_df, max_features) of all documents
    vocab.set_statistics(rows(S, np.array([len(labels)])), np.array([0]), int(Xv.shape[1]), names)
    X01 = presence(vocab.transform(X))
    est = model.estimator
    opts = (float(est.alpha), float(est.C), float(est.nb_interpolation))
    W, b, raw = fit_labels(X01, Y, w, *opts)
    thresholds = np.full(len(labels), model._default_threshold())
    if isinstance(model.threshold, str) and model.top_k is None:
        scores = nblr_out_of_fold(X01, Y, w, model._splits(Y.shape[0]), raw, *opts)
        thresholds = f1_thresholds(scores, Y, model.threshold)
    model.__dict__.pop("_binary", None)
    model.__dict__.pop("_base_model", None)
    model.stats_ = S
    model.classes_ = labels
    model.n_features_in_ = int(Xv.shape[1])
    model.thresholds_ = thresholds
    model.__dict__.update({"_predictor": vocab, "_nblr_weights": (W, b), "_empty_rows": empty_rows})
