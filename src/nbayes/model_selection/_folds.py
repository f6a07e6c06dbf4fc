"""Fold models from statistics: the data is prepared (validated, tokenised) once, each held-out
fold is counted once, and a fold's training model is the total statistics minus that fold's,
estimated with whatever estimation-time hyperparameters a candidate asks for. Nothing is read
or counted again per candidate.

Three engines, chosen by :func:`folds_for` from the model's declared capabilities:
- :class:`TextFolds`, ``count_matrix`` (``TextClassifier``): one document-term count matrix,
  fold statistics by sparse products, and estimation and scoring without building lookup tables;
- :class:`StatsFolds`, ``fold_statistics`` (every Naive Bayes model on statistics);
- :class:`RefitFolds`, models whose fit is not a sum over rows (logistic regression, NBLR,
  ``GaussianBayes``, EM, tf-idf with a frozen idf): fit per fold, as scikit-learn does.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import (
    check_sample_weight, check_y, classes_and_codes, encode_labels, label_array, n_rows, take_rows,
)
from ..errors import DataError, InvalidParameterError
from .._tables import Table
from ..semi_supervised import OFF, is_off, unlabeled_mask
from ._split import LeaveOneOutSplits, Splits
from .._kernels.normalize import log_normalize
from ..naive_bayes.params import assign_parameters
from ..naive_bayes.bernoulli import Binary
from ..stats.counts import class_indicator, per_class_sum
from ..naive_bayes.binned import Binned
from ..naive_bayes.mixed import Parts
from ..stats import CountStats
from ..stats.text import TextStats
from ..text.settings import Docs


def engine_kind(model: Any, params: dict[str, Any] | None = None) -> type["_Folds"]:
    """Which engine serves ``model`` with ``params`` set."""
    if not hasattr(model, "fit") or not hasattr(model, "get_params"):
        raise InvalidParameterError(
            f"model must be an nbayes classifier (with fit and get_params), got {type(model).__name__}"
        )
    # the capabilities of the model with these settings (EM, nbayes.EM, declares neither: its
    # fit is not a sum over rows, so it is fitted per fold as scikit-learn does)
    caps: frozenset[str] = getattr(type(model)(**{**model.get_params(), **(params or {})}), "capabilities", frozenset())
    return TextFolds if "count_matrix" in caps else StatsFolds if "fold_statistics" in caps else RefitFolds


def folds_for(model: Any, X: Any, y: Any, splits: Splits, sample_weight: Any = None, params: dict[str, Any] | None = None) -> "_Folds":
    """The engine for ``model`` (with ``params`` set) over ``splits``."""
    params = dict(params or {})
    return engine_kind(model, params)(model, X, y, splits, sample_weight, params)


def shaping_params(model: Any) -> tuple[str, ...]:
    """The hyperparameters whose values change the counted statistics (a search counts once per
    distinct value of these, and re-estimates for everything else): the model's
    ``statistics_params``, a mixed model's ``column_types`` and a given ``idf`` (a text model
    with one is fitted per fold)."""
    shaping = getattr(model, "statistics_params", None)
    if shaping is None:
        return tuple(model.get_params())  # refitted per fold anyway
    return tuple(shaping) + tuple(p for p in ("column_types", "idf") if p in model.get_params())


class _Folds:
    """What every engine shares: labels, weights, splits, fold classes, timing."""

    def __init__(self, model: Any, X: Any, y: Any, splits: Splits, sample_weight: Any, params: dict[str, Any]) -> None:
        self.base = model
        self.params = params
        self.X = X
        self.splits = splits
        self.n = n_rows(X)
        self.w = check_sample_weight(sample_weight, self.n)
        # nbayes.EM's unlabeled_label: rows with it are unlabelled, not a class
        label = {**model.get_params(), **params}.get("unlabeled_label", OFF)
        if is_off(label):
            self.y = check_y(y, self.n)
            self.classes, self.codes = classes_and_codes(self.y)
        else:  # semi-supervised: rows with the unlabelled label train by EM; they are no class
            self.y = label_array(y)
            if len(self.y) != self.n:
                raise DataError(f"y has {len(self.y)} labels for {self.n} rows")
            unl = unlabeled_mask(self.y, label)
            if unl.all():
                raise DataError(f"y: every row has the unlabeled_label {label!r}; nothing to score")
            self.classes, labelled = classes_and_codes(check_y(self.y[~unl], int((~unl).sum())))
            self.codes = np.full(self.n, -1, dtype=np.intp)
            self.codes[~unl] = labelled
        self.K = len(self.classes)
        #: keep per-split statistics for more candidates (SearchCV); off for one pass (memory)
        self.reuse = False

    def new_model(self, params: dict[str, Any]) -> Any:
        """An unfitted model with the base's settings, the engine's and then ``params``."""
        model = type(self.base)(**{**self.base.get_params(), **self.params, **params})
        return model

    def fold_classes(self, i: int) -> np.ndarray:
        """Which of the classes have training weight in split i (a fold model knows only those)."""
        train = self.splits[i][0]
        present = np.zeros(self.K, dtype=bool)
        c = self.codes[train]
        present[np.unique(c[c >= 0])] = True
        return present

    #: keep the fold models ``log_proba`` builds with no parameters (a calibration ensemble)
    keep_models = False

    def _kept(self, params: dict[str, Any], i: int, m: Any) -> Any:
        if self.keep_models and not params:
            self.__dict__.setdefault("_fold_models", {})[i] = m
        return m

    def fold_model(self, i: int) -> Any:
        """Split i's model: the one ``log_proba`` built (``keep_models``), else built now."""
        return self.__dict__.get("_fold_models", {}).get(i) or self.model({}, i)

    def log_proba(self, params: dict[str, Any], i: int) -> tuple[np.ndarray, float, float]:
        """Split i's held-out log-probabilities (columns: all classes; a class the fold never
        trained on is -inf), the time to build the fold model and the time to predict."""
        raise NotImplementedError

    def model(self, params: dict[str, Any], i: int | None) -> Any:
        """The fitted fold model of split i (None: the model of all rows)."""
        raise NotImplementedError

    def forget(self, i: int) -> None:
        """Let go of what was kept for split i (its training statistics, held-out input,
        tf-idf sums): a search is done with the split."""
        self.__dict__.get("_train", {}).pop(i, None)
        self.__dict__.get("_test_inputs", {}).pop(i, None)
        weighted = self.__dict__.get("_weighted", {})
        for key in [k for k in weighted if k[0] == i]:
            del weighted[key]


def _spread(lp: np.ndarray, present: np.ndarray) -> np.ndarray:
    if present.all():
        return lp
    out = np.full((lp.shape[0], len(present)), -np.inf)
    out[:, present] = lp
    return out


def normalize(jll: np.ndarray, fallback: np.ndarray) -> np.ndarray:

    out: np.ndarray = log_normalize(np.ascontiguousarray(jll, dtype=np.float64), fallback)
    return out


# ---------------------------------------------------------------------------- statistics
class _CountedFolds(_Folds):
    """Engines that count statistics per fold (``count``): the total of all rows (the sum of
    the held-out folds when they tile the rows) and each split's training statistics (the
    total minus the fold's, where that is exact)."""

    _total: Any

    def count(self, rows: np.ndarray, codes: np.ndarray | None = None, K: int | None = None) -> Any:
        """The statistics of ``rows`` (with ``codes`` over ``K`` classes when given)."""
        raise NotImplementedError

    @property
    def total(self) -> Any:
        if self._total is None:
            tests = [] if isinstance(self.splits, LeaveOneOutSplits) else _distinct_tests(self.splits)
            if tests and _is_partition(tests, self.n):  # the held-out folds tile the rows: total = their sum
                total = None
                for t in tests:
                    s = self.count(t)
                    total = s if total is None else total + s
                self._total = total
            else:
                self._total = self.count(np.arange(self.n))
        return self._total

    @property
    def _keeps_counts(self) -> bool:
        """Keep each held-out fold's count (the total is their sum, and each split subtracts
        one): for a handful of folds; leave-one-out and many splits count again instead of
        holding n tables."""
        return not isinstance(self.splits, LeaveOneOutSplits) and len(self.splits) <= 100

    def train_stats(self, i: int) -> tuple[Any, np.ndarray]:
        if not (self.reuse and self._keeps_counts):
            return self._train_stats(i)
        cache: dict[int, tuple[Any, np.ndarray]] = self.__dict__.setdefault("_train", {})
        if i not in cache:  # every candidate of a search reuses it
            cache[i] = self._train_stats(i)
        return cache[i]

    def _train_stats(self, i: int) -> tuple[Any, np.ndarray]:
        train, test = self.splits[i]
        present = self.fold_classes(i)
        if present.all() and _complement(train, test, self.n):
            stats = self.total.subtract(self.count(test), self.classes)
            return stats, present
        if present.all():
            return self.count(train), present
        remap = np.cumsum(present) - 1  # the fold's classes only, as a fit on its rows has
        return self.count(train, remap[self.codes[train]], int(present.sum())), present


class StatsFolds(_CountedFolds):
    """Naive Bayes on statistics: prepare all rows once; count each held-out fold once; a
    fold's training statistics are the total minus the fold's (or, for splits whose training
    rows are not the complement of the held-out ones, counted from those rows)."""

    def __init__(self, model: Any, X: Any, y: Any, splits: Splits, sample_weight: Any, params: dict[str, Any]) -> None:
        super().__init__(model, X, y, splits, sample_weight, params)
        self.template = self.new_model({})
        self.template.check_params()
        if not (self.codes < 0).any():  # NaiveBayes(numeric="auto") chooses its numeric columns' models
            self.template.__dict__["_typing_labels"] = (self.y, self.w)  # once, on all the rows given
        self.Xv, self.names = self.template.prepare_input(X, fitting=True)
        self.template.__dict__.pop("_typing_labels", None)
        self.template.__dict__.pop("_pending_decisions", None)
        self.kinds = self.template.__dict__.pop("_pending_kinds", None)
        if self.kinds is not None:
            self.template.column_kinds_ = self.kinds
        self.d = int(self.Xv.shape[1])
        self._counts: dict[bytes, Any] = {}
        self._total = None
        self._test_inputs: dict[int, Any] = {}

    # -- counting
    def count(self, rows: np.ndarray, codes: np.ndarray | None = None, K: int | None = None) -> Any:
        key = rows.tobytes() if codes is None and self._keeps_counts else None
        if key is not None and key in self._counts:
            return self._counts[key]
        part = take(self.Xv, rows)
        c = self.codes[rows] if codes is None else codes
        w = None if self.w is None else self.w[rows]
        stats = self.template.count_statistics(part, np.ascontiguousarray(c), self.K if K is None else K, w)
        if key is not None:
            self._counts[key] = stats
        return stats

    # -- models
    def model(self, params: dict[str, Any], i: int | None) -> Any:
        if i is None:
            stats, classes = self.total, self.classes
        else:
            stats, present = self.train_stats(i)
            classes = self.classes[present]
        m = self.new_model(params)
        m.check_params()
        if self.kinds is not None:
            m.column_kinds_ = self.kinds
        m.set_statistics(stats, classes, self.d, self.names)
        return m

    def test_input(self, i: int) -> Any:
        if not (self.reuse and self._keeps_counts):
            return take(self.Xv, self.splits[i][1])
        if i not in self._test_inputs:
            self._test_inputs[i] = take(self.Xv, self.splits[i][1])
        return self._test_inputs[i]

    def log_proba(self, params: dict[str, Any], i: int) -> tuple[np.ndarray, float, float]:
        t0 = time.perf_counter()
        m = self._kept(params, i, self.model(params, i))
        t1 = time.perf_counter()
        lp = normalize(m.joint_log_likelihood(self.test_input(i)), m.prior_fallback)
        present = np.ones(self.K, dtype=bool) if len(m.classes_) == self.K else self.fold_classes(i)
        return _spread(lp, present), t1 - t0, time.perf_counter() - t1


# ---------------------------------------------------------------------------- text
class TextFolds(_CountedFolds):
    """TextClassifier: tokenise once into a document-term count matrix over every term; fold
    statistics are sparse products of it; estimation keeps the terms a vectoriser fitted on the
    fold's training documents keeps (df > 0 there, min_df, max_df, max_features), with the
    fold's idf for tf-idf, and scores the held-out rows by a sparse product."""

    def __init__(self, model: Any, X: Any, y: Any, splits: Splits, sample_weight: Any, params: dict[str, Any]) -> None:

        super().__init__(model, X, y, splits, sample_weight, params)
        counter = self.new_model({"tfidf": False, "model": "multinomial", "min_df": 1, "max_df": 1.0,
                                  "max_features": None, "binary": False})
        counter.check_params()
        docs, _ = counter.prepare_input(X, fitting=True)
        if docs.shape[0] != self.n:
            raise DataError(f"X has {docs.shape[0]} documents for {self.n} labels")
        self.counter = counter
        if counter.n_features is None:
            stats = counter.count_statistics(docs, self.codes, self.K, self.w)
            table = counter.term_table(stats)
            self.terms = stats.vocab  # as counted (code points): the strings are made only if read
            del stats
        else:
            table = counter.term_table(None)
            self.terms = np.arange(counter.n_features)
        # a few hundred documents at a time: their tokens are a transient (rows x 2) array
        step = 500
        self.counts = sp.vstack([counter.count_matrix(table, take(docs, np.arange(a, min(a + step, self.n))))
                                 for a in range(0, self.n, step)], format="csr") if self.n else \
            counter.count_matrix(table, docs).tocsr()
        del table, docs  # the term lookup (a hash table over every n-gram) is needed no more
        self.counts.sort_indices()
        # the presence matrix shares the counts' index arrays
        self.ones = sp.csr_matrix((np.ones(self.counts.nnz), self.counts.indices, self.counts.indptr),
                                  shape=self.counts.shape)
        self._TextStats = TextStats
        self._fold: dict[bytes, Any] = {}
        self._total = None
        self._weighted: dict[tuple[Any, ...], Any] = {}

    def count(self, rows: np.ndarray, codes: np.ndarray | None = None, K: int | None = None) -> Any:

        key = rows.tobytes() if codes is None and self._keeps_counts else None
        if key is not None and key in self._fold:
            return self._fold[key]
        K = self.K if K is None else K
        c = self.codes[rows] if codes is None else codes
        w = None if self.w is None else self.w[rows]
        Xc, X1 = self.counts[rows], self.ones[rows]
        Y = class_indicator(np.asarray(c), K, w)
        # the (class, term) pairs seen, as CSR: a dense classes x terms table per fold (and per
        # split's training part) is what made a bigram search hold gigabytes (issue #29)
        stats = self._TextStats(
            self.terms, np.bincount(c, weights=w, minlength=K).astype(np.float64),
            _pairs(Y, Xc), _pairs(Y, X1), np.asarray(X1.sum(axis=0)).ravel(),
            np.asarray(Xc.sum(axis=0)).ravel(), float(len(rows)),
        )
        if key is not None:
            self._fold[key] = stats
        return stats

    def _rows(self, i: int | None) -> np.ndarray:
        return np.arange(self.n) if i is None else self.splits[i][0]

    def _estimated(self, params: dict[str, Any], i: int | None) -> tuple[Any, Any, Any, Any, np.ndarray]:
        """(inner count model with its parameters, kept terms, idf or None, classes present)."""

        m = self.new_model(params)
        m.check_params()
        if i is None:
            stats, present = self.total, np.ones(self.K, bool)
        else:
            stats, present = self.train_stats(i)
        keep = m.kept_terms(stats)
        idf = None
        if m.tfidf:
            key = (i, keep.tobytes(), m.tfidf_key())
            if key not in self._weighted:
                if not self.reuse:
                    self._weighted.clear()  # one split at a time: hold one table, not one per split
                idf = m.learned_idf(stats, keep)
                rows = self._rows(i)
                remap = np.cumsum(present) - 1
                Y = class_indicator(remap[self.codes[rows]], int(present.sum()), None if self.w is None else self.w[rows])
                self._weighted[key] = (idf, per_class_sum(Y, m.tfidf_rows(self.counts[rows][:, keep], idf)))
            idf, fc = self._weighted[key]
        else:
            fc = stats.doc_count if m.counts_presence else stats.term_count
            fc = fc[:, keep]
            fc = np.ascontiguousarray(fc.toarray()) if sp.issparse(fc) else fc  # the kept terms only
        inner = m.count_model()
        params_ = inner.estimate_parameters(CountStats(stats.class_count, fc), int(keep.sum()))
        del fc  # scoring reads the parameters alone: the dense counts (classes x kept terms) go now
        assign_parameters(inner, params_)
        inner.n_features_in_ = int(keep.sum())
        return m, inner, keep, idf, present

    def model(self, params: dict[str, Any], i: int | None) -> Any:
        m = self.new_model(params)
        m.check_params()
        if i is None:
            stats, classes = self.total, self.classes
        else:
            stats, present = self.train_stats(i)
            classes = self.classes[present]
        if m.tfidf:
            _, _, keep, idf, _ = self._estimated(params, i)
            key = (i, keep.tobytes(), m.tfidf_key())
            stats = self._TextStats(stats.terms, stats.class_count, stats.term_count, stats.doc_count,
                                    stats.df, stats.tf, stats.n_docs, None, (keep, idf, self._weighted[key][1]))
        m.set_statistics(stats, classes, 1, None)
        return m

    def log_proba(self, params: dict[str, Any], i: int) -> tuple[np.ndarray, float, float]:

        t0 = time.perf_counter()
        m, inner, keep, idf, present = self._estimated(params, i)
        t1 = time.perf_counter()
        test = self.splits[i][1]
        binary = m.counts_presence
        X = (self.ones if binary else self.counts)[test][:, keep]
        if idf is not None:
            X = m.tfidf_rows(X, idf)
        jll = inner.joint_log_likelihood(inner.prepare_input(X, fitting=False)[0])
        lp = normalize(jll, inner.prior_fallback)
        return _spread(lp, present), t1 - t0, time.perf_counter() - t1


def _pairs(Y: sp.csr_matrix, X: sp.csr_matrix) -> sp.csr_matrix:
    """Y.T @ X as a CSR matrix of the (class, term) pairs seen, sorted, in float64."""
    out = (Y.T.tocsr() @ X).tocsr().astype(np.float64, copy=False)
    out.sort_indices()
    return out


# ---------------------------------------------------------------------------- refit
class RefitFolds(_Folds):
    """Fit on each split's training rows and predict its held-out rows, as scikit-learn does:
    for models whose fit is not a sum of per-row statistics."""

    def model(self, params: dict[str, Any], i: int | None) -> Any:
        m = self.new_model(params)
        rows = np.arange(self.n) if i is None else self.splits[i][0]
        w = None if self.w is None else self.w[rows]
        kwargs = {} if w is None else {"sample_weight": w}
        return m.fit(take_rows(self.X, rows), self.y[rows], **kwargs)

    def log_proba(self, params: dict[str, Any], i: int) -> tuple[np.ndarray, float, float]:
        t0 = time.perf_counter()
        m = self._kept(params, i, self.model(params, i))
        t1 = time.perf_counter()
        lp = fold_log_proba(m, take_rows(self.X, self.splits[i][1]), self)
        return lp, t1 - t0, time.perf_counter() - t1


def fold_log_proba(model: Any, X: Any, engine: _Folds) -> np.ndarray:
    """A fold model's log-probabilities of rows X with a column per class of the engine (-inf
    for a class the fold did not train on)."""
    lp = np.asarray(model.predict_log_proba(X), dtype=np.float64)
    if len(model.classes_) == engine.K:
        return lp
    pos, _ = encode_labels(model.classes_, engine.classes)
    out = np.full((lp.shape[0], engine.K), -np.inf)
    out[:, pos] = lp
    return out


# ---------------------------------------------------------------------------- rows
def take(Xv: Any, rows: np.ndarray) -> Any:
    """The prepared input (any model's ``_prepare_X`` result) restricted to ``rows``."""

    if isinstance(Xv, np.ndarray) or sp.issparse(Xv):
        return Xv[rows]
    if isinstance(Xv, Binary):
        return Binary(take(Xv.X, rows), None if Xv.missing is None else take(Xv.missing, rows))
    if isinstance(Xv, Table):
        return Table(
            None if Xv.matrix is None else Xv.matrix[rows],
            None if Xv.columns is None else [c[rows] for c in Xv.columns],
            (len(rows), Xv.shape[1]),
        )
    if isinstance(Xv, Binned):
        return Binned(Xv.M[rows], Xv.edges)
    if isinstance(Xv, Parts):
        return Parts({k: take(v, rows) for k, v in Xv.parts.items()}, (len(rows), Xv.shape[1]))
    if isinstance(Xv, list):
        return [take(v, rows) for v in Xv]
    if isinstance(Xv, Docs):
        starts, ends = Xv.bounds[rows], Xv.bounds[rows + 1]
        lengths = ends - starts
        bounds = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        index = np.repeat(starts - bounds[:-1], lengths) + np.arange(bounds[-1])
        return Docs(Xv.buf[index], bounds, Xv.table)
    raise TypeError(f"cannot take rows of {type(Xv).__name__}")  # pragma: no cover - internal


def _distinct_tests(splits: Splits) -> list[np.ndarray]:
    seen: dict[bytes, np.ndarray] = {}
    for _, test in splits:
        key = np.sort(test).tobytes()
        seen.setdefault(key, test)
    return list(seen.values())


def _is_partition(tests: list[np.ndarray], n: int) -> bool:
    hits = np.zeros(n, dtype=np.int64)
    for t in tests:
        np.add.at(hits, t, 1)
    return bool(np.all(hits == 1))


def _complement(train: np.ndarray, test: np.ndarray, n: int) -> bool:
    if len(train) + len(test) != n:
        return False
    mark = np.zeros(n, dtype=np.int8)
    mark[train] += 1
    mark[test] += 1
    return bool(np.all(mark == 1))
