"""SearchCV: a grid search whose candidates differ only at estimation share one count."""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from .._estimator import BaseEstimator
from .._frames import frame
from .._progress import progress
from .._validation import check_y, encode_labels
from ..errors import DataError, InvalidParameterError, NotFittedError
from ._folds import RefitFolds, engine_kind, folds_for, shaping_params
from ._nested import Nested, is_composite, nested_params
from ._scoring import check_scoring
from ._split import check_cv
from ._validate import score_rows, score_split


def parameter_grid(param_grid: Any) -> list[dict[str, Any]]:
    """The candidates of a grid (a dict name -> values, or a list of such dicts), in
    scikit-learn's ``ParameterGrid`` order (names sorted, the last varying fastest)."""
    grids = [param_grid] if isinstance(param_grid, Mapping) else param_grid
    if not isinstance(grids, list | tuple) or not grids:
        raise InvalidParameterError("param_grid must be a dict name -> list of values, or a non-empty list of such dicts")
    out: list[dict[str, Any]] = []
    for g in grids:
        if not isinstance(g, Mapping):
            raise InvalidParameterError(f"param_grid: expected dicts, got {type(g).__name__}")
        items = sorted(g.items())
        for name, values in items:
            if isinstance(values, str) or not hasattr(values, "__iter__"):
                raise InvalidParameterError(
                    f"param_grid: the values of {name!r} must be a list, got {values!r}"
                )
            if len(list(values)) == 0:
                raise InvalidParameterError(f"param_grid: {name!r} has no values to try")
        if not items:
            out.append({})
            continue
        keys = [k for k, _ in items]
        for combo in itertools.product(*[list(v) for _, v in items]):
            out.append(dict(zip(keys, combo)))
    return out


class SearchCV(BaseEstimator):
    """Exhaustive search over ``param_grid`` by cross-validation, with scikit-learn's
    ``GridSearchCV`` results (``cv_results_``, ``best_params_``, ``best_score_``,
    ``best_index_``, ``best_estimator_``) and equal scores for the same folds.

    For Naive Bayes models and ``TextClassifier`` the folds are counted once per distinct value
    of the settings that shape the statistics (a tokeniser setting, n-grams, ``binarize``), and
    every other hyperparameter (``alpha``, ``m``/``p``, ``fit_prior``, ``class_prior``,
    ``var_smoothing``, ``ddof``, ``variance``, ``norm``, ``model``, ``binary``, ``min_df``,
    ``max_df``, ``max_features``, ``tfidf``, ``sublinear_tf``) is applied by estimating again
    from the fold statistics: no recount. ``refit=True`` makes ``best_estimator_`` from the
    total statistics (no pass over the data either). Other models are fitted per fold and
    candidate, as scikit-learn does; a scikit-learn ``Pipeline`` too, its grid naming the steps'
    parameters as ``GridSearchCV``'s does (``{"vec__ngram_range": [(1, 1), (1, 2)]}``), set on a
    clone of it (the object given is not modified; ``best_estimator_`` is the fitted Pipeline).
    ``verbose=True`` draws a progress bar (candidates x folds, with the time left) on stderr
    when it is a terminal, nothing when it is not.

    >>> import nbayes
    >>> from nbayes.model_selection import SearchCV
    >>> X = [[3, 0], [2, 1], [4, 0], [0, 3], [1, 2], [0, 4]]
    >>> search = SearchCV(nbayes.MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(X, list("aaabbb"))
    >>> search.best_params_, search.best_score_
    ({'alpha': 0.1}, 1.0)
    """

    #: the scorer: a dict name -> scorer when ``multimetric_``, else the one scorer (a name
    #: or a callable)
    scorer_: Any

    def __init__(
        self,
        model: Any,
        param_grid: Any,
        *,
        scoring: Any = None,
        cv: Any = 5,
        refit: Any = True,
        return_train_score: bool = False,
        verbose: Any = False,
    ) -> None:
        self.model = model
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.refit = refit
        self.return_train_score = return_train_score
        self.verbose = verbose

    def fit(self, X: Any, y: Any = None, *, groups: Any = None, sample_weight: Any = None) -> "SearchCV":
        """Score every candidate on every split; with ``refit``, fit ``best_estimator_``."""
        candidates = parameter_grid(self.param_grid)
        composite = is_composite(self.model)  # a Pipeline: vec__ngram_range set by set_params
        model: Any = Nested(self.model) if composite else self.model
        valid = nested_params(self.model) if composite else self.model.get_params()
        for cand in candidates:
            for name in cand:
                if name not in valid:
                    raise InvalidParameterError(
                        f"param_grid: {type(self.model).__name__} has no hyperparameter {name!r}; "
                        f"its hyperparameters are {', '.join(sorted(valid))}"
                    )
        for cand in candidates:  # a bad value fails here, before any counting
            if not composite and hasattr(model, "check_params"):
                type(model)(**{**valid, **cand}).check_params()
        scorers = check_scoring(self.scoring)
        multi = list(scorers) != ["score"]
        if multi and self.refit is not False and self.refit not in scorers:
            raise InvalidParameterError(
                f"refit must name the scorer that picks the best candidate (one of {', '.join(scorers)}), "
                "or be False, when scoring has several scorers"
            )
        splits = check_cv(self.cv, X, y, groups)
        shaping = shaping_params(model)
        by_count: dict[str, tuple[dict[str, Any], list[int]]] = {}
        for c, cand in enumerate(candidates):
            # candidates share an engine (one count) when it counts and they differ only at
            # estimation; a refitting engine serves one candidate
            kind = engine_kind(model, cand)
            same = cand if kind is RefitFolds else {k: v for k, v in cand.items() if k in shaping}
            key = kind.__name__ + repr(sorted((k, repr(v)) for k, v in same.items()))
            by_count.setdefault(key, (same, []))[1].append(c)
        S, C = len(splits), len(candidates)
        test = {k: np.full((C, S), np.nan) for k in scorers}
        train = {k: np.full((C, S), np.nan) for k in scorers}
        fit_time, score_time = np.zeros((C, S)), np.zeros((C, S))
        best_of: dict[int, tuple[Any, float]] = {}  # a refit model per engine, of its best candidate
        refit_key = (self.refit if multi else "score") if self.refit is not False else None
        with progress(C * S, f"SearchCV: {C} candidates x {S} folds", self.verbose, unit="fits") as advance:
            for same, members in by_count.values():
                engine = folds_for(model, X, y, splits, sample_weight, same)
                engine.reuse = len(members) > 1  # keep each split's statistics for the next candidate
                self._score_members(engine, members, candidates, X, scorers, test, train, fit_time, score_time,
                                    advance)
                if refit_key is not None:
                    # the engine's best candidate is the search's best if any of its candidates is,
                    # so its model is built now and the engine (its counts) let go before the next
                    means = test[refit_key][members].mean(axis=1)
                    local = members[int(np.argmax(np.where(np.isnan(means), -np.inf, means)))]
                    t0 = time.perf_counter()
                    best_of[local] = (engine.model(candidates[local], None), time.perf_counter() - t0)
                del engine
        self.cv_results_ = _results(candidates, test, train if self.return_train_score else None,
                                    fit_time, score_time, multi)
        self.n_splits_ = S
        self.multimetric_ = multi
        self.scorer_ = scorers if multi else scorers["score"]
        if self.refit is not False:
            rank = self.cv_results_[f"rank_test_{self.refit}" if multi else "rank_test_score"]
            self.best_index_ = int(np.argmin(rank))
            self.best_params_ = candidates[self.best_index_]
            mean = self.cv_results_[f"mean_test_{self.refit}" if multi else "mean_test_score"]
            self.best_score_ = float(mean[self.best_index_])
            self.best_estimator_, self.refit_time_ = best_of[self.best_index_]
            if composite:  # the fitted Pipeline itself
                self.best_estimator_ = self.best_estimator_.estimator_
            self.classes_ = self.best_estimator_.classes_
        return self

    def _score_members(self, engine: Any, members: list[int], candidates: list[dict[str, Any]], X: Any,
                       scorers: dict[str, Any], test: dict[str, np.ndarray], train: dict[str, np.ndarray],
                       fit_time: np.ndarray, score_time: np.ndarray, advance: Any) -> None:
        """Score the candidates ``members`` of one engine on every split: split by split, every
        candidate on a split before the next, so one split's training statistics and held-out
        input are held at a time, then let go."""
        for i in range(fit_time.shape[1]):
            for c in members:
                lp, t_fit, t_pred = engine.log_proba(candidates[c], i)
                t0 = time.perf_counter()
                test_i, train_i, _ = score_split(engine, X, scorers, candidates[c], i, lp,
                                                 self.return_train_score)
                del lp
                for name in scorers:
                    test[name][c, i] = test_i[name]
                    if self.return_train_score:
                        train[name][c, i] = train_i[name]
                fit_time[c, i], score_time[c, i] = t_fit, t_pred + time.perf_counter() - t0
                advance()
            engine.forget(i)

    # ------------------------------------------------------------------ the refitted model
    def _best(self) -> Any:
        if not hasattr(self, "best_estimator_"):
            raise NotFittedError(
                "this SearchCV has no best_estimator_: call fit first (with refit=True or a scorer name)"
            )
        return self.best_estimator_

    def predict(self, X: Any) -> np.ndarray:
        """``best_estimator_.predict(X)``."""
        result: np.ndarray = self._best().predict(X)
        return result

    def predict_proba(self, X: Any) -> np.ndarray:
        """``best_estimator_.predict_proba(X)``."""
        result: np.ndarray = self._best().predict_proba(X)
        return result

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """``best_estimator_.predict_log_proba(X)``."""
        result: np.ndarray = self._best().predict_log_proba(X)
        return result

    def score(self, X: Any, y: Any) -> float:
        """The search's scorer (the ``refit`` one of several) of ``best_estimator_`` on (X, y),
        as ``GridSearchCV.score``."""
        best = self._best()
        scorer = self.scorer_[self.refit] if self.multimetric_ else self.scorer_
        if not isinstance(scorer, str):
            return float(scorer(best, X, y))
        lp = np.asarray(best.predict_log_proba(X), dtype=np.float64)
        y = check_y(y, lp.shape[0])
        codes, unknown = encode_labels(y, best.classes_)
        if unknown.any():
            if scorer != "accuracy":
                raise DataError(
                    f"y: row {int(np.argmax(unknown))} has a label the best model never saw; "
                    f"{scorer} needs the model's classes"
                )
            return float(np.mean(~unknown & (np.argmax(lp, axis=1) == codes)))
        return score_rows(scorer, codes, lp)

    def to_frame(self, library: str | None = None) -> Any:
        """``cv_results_`` as a frame, one row per candidate, best first: a column per
        hyperparameter (by its name; None where a candidate lacks it), then scikit-learn's
        columns (``mean_test_score``, ``std_test_score``, ``rank_test_score``,
        ``split0_test_score``, ..., the times). pandas if installed, else polars (``library``)."""
        return _to_frame(self, library)

    def table(self, k: int | None = None) -> list[dict[str, Any]]:
        """The candidates best first, as rows {params..., mean, std, rank} (``nbayes tune``)."""
        if not hasattr(self, "cv_results_"):
            raise NotFittedError("call fit first")
        res = self.cv_results_
        suffix = self.refit if self.multimetric_ and self.refit else "score"
        order = np.argsort(res[f"rank_test_{suffix}"], kind="stable")
        rows = []
        for c in order[: k or len(order)]:
            rows.append({**res["params"][c], "mean": float(res[f"mean_test_{suffix}"][c]),
                         "std": float(res[f"std_test_{suffix}"][c]), "rank": int(res[f"rank_test_{suffix}"][c])})
        return rows


def _to_frame(search: SearchCV, library: str | None) -> Any:
    if not hasattr(search, "cv_results_"):
        raise NotFittedError("call fit first")
    res = search.cv_results_
    suffix = search.refit if search.multimetric_ and search.refit else "score"
    order = np.argsort(res[f"rank_test_{suffix}"], kind="stable")
    names = sorted({k for c in res["params"] for k in c})
    columns: dict[str, Any] = {name: [res["params"][c].get(name) for c in order] for name in names}
    for key, value in res.items():
        if key != "params" and not key.startswith("param_"):
            columns[key] = np.asarray(value)[order]
    return frame(columns, library)


def _results(candidates: list[dict[str, Any]], test: dict[str, Any], train: dict[str, Any] | None, fit_time: Any,
             score_time: Any, multi: bool) -> dict[str, Any]:
    from scipy.stats import rankdata

    C, S = fit_time.shape
    res: dict[str, Any] = {
        "mean_fit_time": fit_time.mean(axis=1), "std_fit_time": fit_time.std(axis=1),
        "mean_score_time": score_time.mean(axis=1), "std_score_time": score_time.std(axis=1),
    }
    names = sorted({k for c in candidates for k in c})
    for name in names:
        # scikit-learn's columns: the values' own dtype when they make a 1-D array of numbers
        # or booleans, else objects; masked where a candidate lacks the parameter
        present = [c for c, cand in enumerate(candidates) if name in cand]
        values = [candidates[c][name] for c in present]
        try:
            arr = np.array(values)
        except (ValueError, TypeError):
            arr = None
        dtype = arr.dtype if arr is not None and arr.ndim == 1 and arr.dtype.kind in "biuf" else object
        col = np.ma.MaskedArray(np.empty(C, dtype=dtype), mask=True)
        for c, v in zip(present, values):
            col[c] = v
        res[f"param_{name}"] = col
    res["params"] = candidates
    for key, table in test.items():
        suffix = key if multi else "score"
        for i in range(S):
            res[f"split{i}_test_{suffix}"] = table[:, i]
        mean = table.mean(axis=1)
        res[f"mean_test_{suffix}"] = mean
        res[f"std_test_{suffix}"] = table.std(axis=1)
        finite = np.where(np.isnan(mean), -np.inf, mean)
        res[f"rank_test_{suffix}"] = rankdata(-finite, method="min").astype(np.int32)
        if train is not None:
            for i in range(S):
                res[f"split{i}_train_{suffix}"] = train[key][:, i]
            res[f"mean_train_{suffix}"] = train[key].mean(axis=1)
            res[f"std_train_{suffix}"] = train[key].std(axis=1)
    return res
