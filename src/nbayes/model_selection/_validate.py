"""cross_validate, cross_val_score and cross_val_predict from fold statistics."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._progress import progress
from .._validation import encode_labels, n_rows, take_rows
from ..errors import DataError, InvalidParameterError
from ._folds import fold_log_proba, folds_for
from ._scoring import SCORERS, check_scoring
from ._loo import LooFolds, loo_folds
from ._split import LeaveOneOutSplits, check_cv

METHODS = ("predict", "predict_proba", "predict_log_proba")


def cross_validate(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    groups: Any = None,
    scoring: Any = None,
    cv: Any = 5,
    sample_weight: Any = None,
    return_train_score: bool = False,
    return_estimator: bool = False,
    return_indices: bool = False,
    verbose: Any = False,
) -> dict[str, Any]:
    """Scores of ``model`` on each held-out fold, as ``sklearn.model_selection.cross_validate``
    returns them (same keys, same folds for the same ``cv``, equal scores).

    For Naive Bayes models and ``TextClassifier`` the data is read and prepared once, each
    held-out fold is counted once, and each fold's model is the total statistics minus that
    fold's, exactly the model a fit on the fold's training rows gives; other models are fitted
    per fold. ``cv``: an int (stratified K-fold without shuffling, scikit-learn's default),
    ``"loo"``, any scikit-learn splitter (grouped ones take ``groups``) or (train, test) index
    pairs. ``sample_weight`` weighs the training rows (as scikit-learn's ``params=`` does for
    ``fit``); scores are unweighted, as scikit-learn's. ``scoring``: None (accuracy), a name
    (accuracy, balanced_accuracy, neg_log_loss, neg_brier_score, roc_auc, roc_auc_ovr,
    f1/precision/recall_macro/micro/weighted), a callable ``f(estimator, X, y)``, or a list /
    dict of them (keys ``test_<name>``). ``verbose=True``: a progress bar over the folds on
    stderr when it is a terminal.

    >>> import nbayes
    >>> from nbayes.model_selection import cross_validate
    >>> X = [[3, 0], [2, 1], [4, 0], [0, 3], [1, 2], [0, 4]]
    >>> cross_validate(nbayes.MultinomialNB(), X, list("aaabbb"), cv=3)["test_score"].tolist()
    [1.0, 1.0, 1.0]
    """
    splits = check_cv(cv, X, y, groups)
    scorers = check_scoring(scoring)
    fast_loo = _loo_engine(model, X, y, splits, sample_weight)
    engine = fast_loo or folds_for(model, X, y, splits, sample_weight)
    out: dict[str, list[Any]] = {"fit_time": [], "score_time": []}
    estimators: list[Any] = []
    train_scores: dict[str, list[float]] = {k: [] for k in scorers}
    test_scores: dict[str, list[float]] = {k: [] for k in scorers}
    with progress(len(splits), "cross-validation", verbose, unit="folds") as advance:
        for i in range(len(splits)):
            lp, t_fit, t_pred = engine.log_proba({}, i)
            test_i, train_i, fold_model = score_split(engine, X, scorers, {}, i, lp, return_train_score)
            for name in scorers:
                test_scores[name].append(test_i[name])
                if return_train_score:
                    train_scores[name].append(train_i[name])
            if return_estimator:
                estimators.append(fold_model or engine.model({}, i))
            out["fit_time"].append(t_fit)
            out["score_time"].append(t_pred)
            advance()
    result: dict[str, Any] = {k: np.asarray(v) for k, v in out.items()}
    single = list(scorers) == ["score"]
    for name in scorers:
        key = "test_score" if single else f"test_{name}"
        result[key] = np.asarray(test_scores[name])
        if return_train_score:
            result["train_score" if single else f"train_{name}"] = np.asarray(train_scores[name])
    if return_estimator:
        result["estimator"] = estimators
    if return_indices:
        result["indices"] = {"train": [s[0] for s in splits], "test": [s[1] for s in splits]}
    return result


def _split(splits: Any, i: int, need_train: bool) -> tuple[Any, np.ndarray]:
    """Split i's (train, test); leave-one-out's training rows only when asked (n^2 otherwise)."""
    if isinstance(splits, LeaveOneOutSplits) and not need_train:
        return None, np.array([i])
    result: tuple[Any, np.ndarray] = splits[i]
    return result




def cross_val_score(model: Any, X: Any, y: Any = None, *, groups: Any = None, scoring: Any = None,
                    cv: Any = 5, sample_weight: Any = None) -> np.ndarray:
    """The held-out score of each fold (``cross_validate(...)["test_score"]``).

    >>> import nbayes
    >>> X, y = [[2, 0], [0, 3], [3, 1], [1, 4], [4, 0], [0, 2]] * 2, ["ham", "spam"] * 6
    >>> cross_val_score(nbayes.MultinomialNB(), X, y, cv=3).tolist()   # accuracy of each fold
    [1.0, 1.0, 1.0]
    """
    if isinstance(scoring, list | tuple | dict):
        raise InvalidParameterError("cross_val_score takes one scorer; use cross_validate for several")
    scores: np.ndarray = cross_validate(model, X, y, groups=groups, scoring=scoring, cv=cv,
                                        sample_weight=sample_weight)["test_score"]
    return scores


def cross_val_predict(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    groups: Any = None,
    cv: Any = 5,
    method: str = "predict",
    sample_weight: Any = None,
    verbose: Any = False,
) -> np.ndarray:
    """Each row's prediction by the model trained without its fold (out-of-fold predictions),
    equal to ``sklearn.model_selection.cross_val_predict`` with the same ``cv``.

    ``method``: "predict" (labels), "predict_proba" or "predict_log_proba" (columns: the sorted
    classes of y). The held-out folds must cover every row exactly once. A class absent from a
    fold's training rows gets probability 0 (log-probability -inf) for that fold's rows, where
    scikit-learn writes the smallest float for the log. ``verbose=True``: a progress bar over
    the folds on stderr when it is a terminal.

    >>> import nbayes
    >>> from nbayes.model_selection import cross_val_predict
    >>> X = [[3, 0], [2, 1], [4, 0], [0, 3], [1, 2], [0, 4]]
    >>> cross_val_predict(nbayes.MultinomialNB(), X, list("aaabbb"), cv=3).tolist()
    ['a', 'a', 'a', 'b', 'b', 'b']
    """
    if method not in METHODS:
        raise InvalidParameterError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    out, engine = out_of_fold(model, X, y, check_cv(cv, X, y, groups), sample_weight, verbose=verbose)
    if method == "predict_log_proba":
        return out
    if method == "predict_proba":
        result: np.ndarray = np.exp(out)
        return result
    labels: np.ndarray = engine.classes[np.argmax(out, axis=1)]
    return labels


def score_split(engine: Any, X: Any, scorers: dict[str, Any], params: dict[str, Any], i: int, lp: np.ndarray,
                train_scores: bool) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """Split i's scores of the held-out rows (``lp``: their log-probabilities) and, when asked,
    of the training rows: ({name: test score}, {name: train score}, the fold model if built).
    Named scorers read the log-probabilities; callables get the fold model and the raw rows.
    Rows without a label (semi-supervised models) are not scored."""
    need_train = train_scores or not all(isinstance(v, str) for v in scorers.values())
    train, test = _split(engine.splits, i, need_train)
    lab = engine.codes[test] >= 0
    fold_model = None
    test_out, train_out = {}, {}
    for name, scorer in scorers.items():
        if isinstance(scorer, str):
            test_out[name] = score_rows(scorer, engine.codes[test][lab], lp[lab])
        else:
            fold_model = fold_model or engine.model(params, i)
            rows = test[lab]
            test_out[name] = float(scorer(fold_model, take_rows(X, rows), engine.y[rows]))
    if train_scores:
        fold_model = fold_model or engine.model(params, i)
        rows = train[engine.codes[train] >= 0]
        lp_train = None
        for name, scorer in scorers.items():
            if isinstance(scorer, str):
                if lp_train is None:  # one prediction of the training rows for every scorer
                    lp_train = fold_log_proba(fold_model, take_rows(X, rows), engine)
                train_out[name] = score_rows(scorer, engine.codes[rows], lp_train)
            else:
                train_out[name] = float(scorer(fold_model, take_rows(X, rows), engine.y[rows]))
    return test_out, train_out, fold_model


def score_rows(name: str, codes: np.ndarray, lp: np.ndarray) -> float:
    """A named score of some held-out rows (NaN when there is no labelled row to score)."""
    return SCORERS[name](codes, lp) if len(codes) else float("nan")


def out_of_fold(model: Any, X: Any, y: Any, splits: Any, sample_weight: Any = None,
                keep_models: bool = False, verbose: Any = False) -> tuple[np.ndarray, Any]:
    """(each row's log-probabilities from the model of the split that holds it out, the fold
    engine): ``engine.model({}, None)`` is then the model of all rows, from the same counts, and
    ``engine.fold_model(i)`` split i's model (the one already built, with ``keep_models``)."""
    n = n_rows(X)
    loo = isinstance(splits, LeaveOneOutSplits)
    hits = np.zeros(n, dtype=np.int64)
    for _, test in [] if loo else splits:
        np.add.at(hits, test, 1)
    if not loo and not np.all(hits == 1):
        raise DataError(
            "cv: cross_val_predict needs held-out folds that cover every row exactly once "
            f"(row {int(np.argmax(hits != 1))} is held out {int(hits[np.argmax(hits != 1)])} times)"
        )
    engine = _loo_engine(model, X, y, splits, sample_weight) or folds_for(model, X, y, splits, sample_weight)
    if isinstance(engine, LooFolds):
        return engine.lp, engine  # every row's prediction at once
    engine.keep_models = keep_models
    out = np.empty((n, engine.K))
    with progress(len(splits), "cross-validation", verbose, unit="folds") as advance:
        for i in range(len(splits)):
            out[_split(splits, i, False)[1]] = engine.log_proba({}, i)[0]
            advance()
    return out, engine


def _loo_engine(model: Any, X: Any, y: Any, splits: Any, sample_weight: Any) -> LooFolds | None:
    """The closed-form leave-one-out engine (categorical and Bernoulli models), when it applies."""
    if not isinstance(splits, LeaveOneOutSplits):
        return None
    return loo_folds(model, X, y, splits, sample_weight)
