"""MultiLabel: one-vs-rest over the label set from one counting pass (see the package docstring)."""

from __future__ import annotations

import numbers
from typing import Any, Callable, ClassVar, Self

import numpy as np
from .._scipy import expit, sparse as sp

from .._estimator import Classifier, rebuild
from .._validation import check_choice, check_number, check_sample_weight, encode_labels, union_labels
from ..errors import DataError, InvalidParameterError, MergeError, ModelFileError, UnlearnError
from ..io.model_file import save_state
from ..model_selection import KFold, check_cv
from ..stats import TextStats
from . import _linear as linear
from . import _state
from ._decide import decisions, with_thresholds
from ._labels import is_indicator, label_lists, read_labels
from ._nblr import presence
from ._oof import fit_nblr, out_of_fold
from ._stats import check_label_rows, count_labels, counter_of, pair, stacked
from ._scores import extended, log_odds, same
from ._thresholds import f1_thresholds

#: what a multi-label model keeps of its base model's capabilities
PASSED_ON = frozenset({"partial_fit", "unlearn", "merge", "explain", "sample_weight", "sparse", "text",
                       "columns", "categories", "missing_values", "statistics"})


class MultiLabel(Classifier):
    """Multi-label classification: for each label L, the binary Naive Bayes model "L against
    the rest" (one-vs-rest, as scikit-learn's ``OneVsRestClassifier``), all from one counting
    pass.

    ``estimator``: a Naive Bayes model on statistics (``MultinomialNB``, ``BernoulliNB``,
    ``ComplementNB``, ``CategoricalNB``, ``GaussianNB``, ``NaiveBayes``, ``TextClassifier``) or
    ``TextClassifier(model="nblr")`` (one NB-weighted logistic regression per label). ``y``: one
    collection of labels per row (``[["grain", "wheat"], ["earn"]]``) or an indicator matrix
    (dense or SciPy sparse, one column per label; ``classes_`` is then ``0 .. L-1``).

    The statistics hold, per label, the sums over the rows carrying it, and the sums over all
    rows; label L's negative class is all rows minus L's (``subtract`` of the statistics
    protocol). So ``fit`` counts every row once (plus once per label it carries), and
    ``partial_fit``, ``unlearn`` and ``merge`` are exact, as for the base model.

    Decisions: label L is predicted when its log-odds exceeds ``thresholds_[L]``.
    ``threshold``: ``"micro"`` / ``"macro"`` choose per-label thresholds maximising the micro- /
    macro-F1 of out-of-fold predictions (``cv`` folds, each fold's model the total statistics
    minus the fold's: no refit), or a probability (0.5: scikit-learn's one-vs-rest decision) for
    every label. ``top_k``: predict the ``k`` most probable labels instead. ``empty``: what a
    row with no label above its threshold gets: ``"keep"`` (no label, as scikit-learn),
    ``"top1"`` (the label closest to, or furthest above, its threshold), or ``"auto"`` (top1 when
    every training row had a label, i.e. unless ``allow_empty=True`` let rows without one in).
    Thresholds are chosen by ``fit``; ``partial_fit``, ``unlearn`` and ``merge`` keep them
    (a label new to the model starts at ``threshold`` when a number, else at probability 1/2).

    >>> from nbayes import MultiLabel, TextClassifier
    >>> docs = ["wheat harvest up", "corn and wheat prices", "oil output cut", "crude oil price",
    ...         "wheat exports", "oil tanker"]
    >>> tags = [["grain", "wheat"], ["corn", "grain", "wheat"], ["crude"], ["crude"], ["wheat"], ["crude"]]
    >>> ml = MultiLabel(TextClassifier(), threshold=0.5).fit(docs, tags)
    >>> ml.classes_.tolist()
    ['corn', 'crude', 'grain', 'wheat']
    >>> ml.predict_labels(["wheat and corn", "oil price"])
    [['corn', 'grain', 'wheat'], ['crude']]
    """

    _state_nests_models: ClassVar[bool] = True

    classes_: np.ndarray
    thresholds_: np.ndarray
    stats_: Any

    def __init__(self, estimator: Any = None, *, threshold: Any = "micro", top_k: int | None = None, cv: Any = 5,
                 empty: str = "auto", allow_empty: bool = False, normalize: str = "auto") -> None:
        self.estimator = estimator
        self.threshold = threshold
        self.top_k = top_k
        self.cv = cv
        self.empty = empty
        self.allow_empty = allow_empty
        self.normalize = normalize

    # ------------------------------------------------------------------ settings
    @property
    def capabilities(self) -> frozenset[str]:
        """The base model's capabilities a multi-label model keeps, ``save`` and ``label_sets``."""
        base: frozenset[str] = getattr(self.estimator, "capabilities", frozenset())
        return frozenset(base) & PASSED_ON | {"save", "label_sets"}

    def _check_params(self) -> None:
        est = self.estimator
        caps: frozenset[str] = getattr(est, "capabilities", frozenset())
        if not ("statistics" in caps or "nb_logistic" in caps) or "label_sets" in caps:
            raise InvalidParameterError(
                "estimator: MultiLabel takes a single-label Naive Bayes model on statistics (capability "
                "'statistics': MultinomialNB, BernoulliNB, ComplementNB, CategoricalNB, GaussianNB, NaiveBayes, "
                "TextClassifier) or an NB-weighted logistic regression ('nb_logistic': TextClassifier(model='nblr')); "
                f"got {type(est).__name__ if est is not None else None}"
            )
        if "text" in est.capabilities and getattr(est, "tfidf", False) and getattr(est, "idf", None) is None:
            raise InvalidParameterError(
                "estimator: a tf-idf model with a learned idf weighs each document by the whole corpus, so its "
                "per-label sums do not split; freeze the idf (idf=...) or use tfidf=False"
            )
        est.check_params()
        th = self.threshold
        if isinstance(th, str):
            check_choice("threshold", th, ("micro", "macro"))
        elif th is None:
            raise InvalidParameterError("parameter 'threshold' must be 'micro', 'macro' or a probability, got None")
        else:
            check_number("threshold", th, low=0.0, high=1.0, low_open=True)
            if th == 1.0:
                raise InvalidParameterError("parameter 'threshold' must be < 1 (a probability), got 1.0")
        if self.top_k is not None:
            check_number("top_k", self.top_k, low=1, integer=True)
        check_choice("empty", self.empty, ("auto", "keep", "top1"))
        check_choice("normalize", self.normalize, ("auto", "none", "length"))
        if self.normalize == "length" and "text" not in est.capabilities:
            raise InvalidParameterError("normalize='length' divides by the number of known terms of a document: "
                                        "it takes a TextClassifier")

    @staticmethod
    def _nblr(est: Any) -> bool:
        """Whether the base is an NB-weighted logistic regression (``nb_logistic``): one a label."""
        return "nb_logistic" in est.capabilities

    def _clone(self) -> Any:
        """A fresh base model with the estimator's settings and the layout of the statistics
        (a NaiveBayes' column kinds, read when the input was first prepared)."""
        template = self.__dict__.get("_template")
        if template is not None:
            return template.unfitted_like()
        return type(self.estimator)(**self.estimator.get_params())

    def _stacks(self) -> bool:
        """Whether one model over 2L classes (pairs: without, with each label) gives every label's
        binary log-odds: when the base estimates each class from its own row alone (capability
        ``per_class``; its prior's normaliser cancels in the pair's difference). Complement NB
        (weights from the other classes) and fixed class priors are estimated per label instead."""
        est = self.estimator
        if getattr(est, "class_prior", None) is not None or getattr(est, "priors", None) is not None:
            return False
        return "per_class" in est.capabilities

    # ------------------------------------------------------------------ training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Count the statistics (and with ``threshold="micro"`` / ``"macro"`` choose the
        thresholds from ``cv`` out-of-fold predictions); returns self."""
        self._check_params()
        return self._first(X, y, sample_weight, isinstance(self.threshold, str) and self.top_k is None)

    def _first(self, X: Any, y: Any, sample_weight: Any, tune: bool) -> Self:
        """``fit`` (``tune``: thresholds from out-of-fold predictions), and a first ``partial_fit``."""
        self.__dict__.pop("_template", None)
        counter = self._clone()
        Xv, names = counter.prepare_input(X, fitting=True)
        self.__dict__["_template"] = counter.unfitted_like()
        n = int(Xv.shape[0])
        Y, labels = self._label_sets(y, n)
        w = check_sample_weight(sample_weight, n)
        empty_rows = bool((np.diff(Y.indptr) == 0).any())
        if self._nblr(self.estimator):
            return self._fit_nblr(X, Xv, Y, labels, w, names, empty_rows)
        if tune:
            S, scores = self._out_of_fold(X, Xv, Y, sample_weight, w, labels, names)
            thresholds = f1_thresholds(scores, Y, self.threshold)
        else:
            S = count_labels(counter_of(counter, Xv, w), np.arange(n), Y)
            thresholds = np.full(len(labels), self._default_threshold())
        self._commit(S, labels, int(Xv.shape[1]), names, thresholds, empty_rows)
        return self

    def _per_term(self) -> bool:
        """Whether tuned thresholds apply to the log-odds per known term of a document (text NB
        models: the log-odds grow with a document's length, so one threshold per label fits
        documents of every length better on the average evidence per term)."""
        if not isinstance(self.threshold, str) or self.top_k is not None:
            return False
        if self.normalize == "auto":
            return "text" in self.estimator.capabilities and not self._nblr(self.estimator)
        return self.normalize == "length"

    def _default_threshold(self) -> float:
        th = self.threshold
        return 0.0 if isinstance(th, str) else float(np.log(th) - np.log1p(-th))

    def _splits(self, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
        cv = self.cv
        if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
            check_number("cv", cv, low=2, integer=True)
            cv = KFold(int(cv), shuffle=True, random_state=0)
        return list(check_cv(cv, np.empty((n, 0)), None))

    def _out_of_fold(self, X: Any, Xv: Any, Y: sp.csr_matrix, sample_weight: Any, w: np.ndarray | None,
                     labels: np.ndarray, names: list[str] | None) -> tuple[Any, np.ndarray]:
        """(the statistics of all rows, each row's log-odds from the model without its fold):
        :func:`._oof.out_of_fold`."""
        return out_of_fold(self, X, Xv, Y, sample_weight, w, labels, names)

    def _models(self, S: Any, labels: np.ndarray, d: int, names: list[str] | None) -> Any:
        """The stacked model over 2L classes, or one binary model per label."""
        if isinstance(S, TextStats):  # drop unseen terms on L + 1 rows, not on 2L
            S = S.without_absent_terms()
        T = stacked(S, extended(labels)[:-1])
        if self._stacks():
            m = self._clone()
            m.set_statistics(T, np.arange(2 * len(labels)), d, names)
            return m
        out = []
        for l in range(len(labels)):
            m = self._clone()
            m.set_statistics(pair(T, l), np.array([0, 1]), d, names)
            out.append(m)
        return out

    def _predictor_of(self, S: Any, labels: np.ndarray, d: int, names: list[str] | None) -> Any:
        """What scores new rows: for text multinomial models, every label's log-odds as one
        linear table over the vocabulary (``_linear``); else the models of ``_models``."""
        table = linear.predictor(self.estimator, self._clone(), S, d, names)
        return table if table is not None else self._models(S, labels, d, names)

    _log_odds = staticmethod(log_odds)

    def _commit(self, S: Any, labels: np.ndarray, d: int, names: list[str] | None, thresholds: np.ndarray,
                empty_rows: bool) -> None:
        models = self._predictor_of(S, labels, d, names)  # may raise: nothing assigned yet
        self.__dict__.pop("_binary", None)
        self.__dict__.pop("_base_model", None)
        self.stats_ = S
        self.classes_ = labels
        self.n_features_in_ = d
        self.thresholds_ = np.asarray(thresholds, dtype=np.float64)
        self.__dict__["_predictor"] = models
        self.__dict__["_empty_rows"] = bool(empty_rows)
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)

    def _fit_nblr(self, X: Any, Xv: Any, Y: sp.csr_matrix, labels: np.ndarray, w: np.ndarray | None,
                  names: list[str] | None, empty_rows: bool) -> Self:
        fit_nblr(self, X, Xv, Y, labels, w, names, empty_rows)
        return self

    # ------------------------------------------------------------------ learning more, forgetting
    def partial_fit(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Add rows (labels new to the model join ``classes_``): equal to ``fit`` on all rows
        with the thresholds kept (see the class docstring)."""
        if not hasattr(self, "classes_"):
            self._check_params()
            self._no_nblr("partial_fit")
            return self._first(X, y, sample_weight, tune=False)
        self.add_statistics(*self.label_statistics(X, y, sample_weight))
        return self

    def label_statistics(self, X: Any, y: Any, sample_weight: Any = None) -> tuple[Any, np.ndarray, bool]:
        """(the statistics of the rows (X, y) over their own labels: one class row per label they
        carry, then the row of all of them; those labels, sorted; whether a row had no label).
        ``partial_fit`` is ``add_statistics`` of these; the learning service counts an update
        with it (outside its writer) and logs it."""
        self.check_fitted()
        self._no_nblr("partial_fit")
        Xv = self._prepared(X)
        n = int(Xv.shape[0])
        # an indicator matrix has the model's label columns; label lists name their own labels
        Y, labels = self._label_sets(y, n, self.classes_ if is_indicator(y) else None)
        w = check_sample_weight(sample_weight, n)
        S = count_labels(counter_of(self._clone(), Xv, w), np.arange(n), Y)
        return S, labels, bool((np.diff(Y.indptr) == 0).any())

    def add_statistics(self, S: Any, labels: np.ndarray, empty_rows: bool = False) -> Self:
        """Add statistics over ``labels`` (their rows, then all rows: what :meth:`label_statistics`
        gives); labels new to the model join ``classes_`` (thresholds kept, a new label's as
        ``partial_fit`` sets it). ``empty_rows``: whether those rows held one without a label."""
        self.check_fitted()
        self._no_nblr("partial_fit")
        if empty_rows and not self.allow_empty:
            raise DataError("partial_fit: rows without a label need allow_empty=True (as fit)")
        allc = union_labels(self.classes_, labels) if len(labels) else self.classes_
        base, thresholds = self._grown(self.stats_, self.classes_, self.thresholds_, allc)
        pos, _ = encode_labels(np.asarray(labels), allc) if len(labels) else (np.zeros(0, dtype=np.intp), None)
        part = S.embed(np.r_[pos, len(allc)].astype(np.intp), len(allc) + 1)
        self._commit(base + part, allc, self.n_features_in_, self.input_feature_names(), thresholds,
                     self.__dict__["_empty_rows"] or bool(empty_rows))
        return self

    def _label_sets(self, y: Any, n: int, classes: np.ndarray | None = None, *, grow: bool = True,
                    unknown_error: type[Exception] = DataError) -> tuple[sp.csr_matrix, np.ndarray]:
        """The one reading of label sets for ``fit``, ``partial_fit``, ``label_statistics`` and
        ``unlearn``: what ``fit`` refuses (an empty set unless ``allow_empty``), all refuse."""
        return read_labels(y, n, classes, allow_empty=bool(self.allow_empty), grow=grow, unknown_error=unknown_error)

    def _grown(self, S: Any, old: np.ndarray, th: np.ndarray, labels: np.ndarray) -> tuple[Any, np.ndarray]:
        """Statistics and thresholds of ``old`` labels laid out over ``labels`` (a superset)."""
        if len(labels) == len(old):
            return S, th
        pos, _ = encode_labels(old, labels)
        L = len(labels)
        out = np.full(L, self._default_threshold())
        out[pos] = th
        return S.embed(np.r_[pos, L], L + 1), out

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Forget rows learned before, exactly; a label the model never learned, or more weight
        than it learned, is an UnlearnError and the model is unchanged."""
        self.check_fitted()
        self._no_nblr("unlearn")
        Xv = self._prepared(X)
        Y, _ = self._label_sets(y, int(Xv.shape[0]), self.classes_, grow=False, unknown_error=UnlearnError)
        if not self.__dict__["_empty_rows"] and (np.diff(Y.indptr) == 0).any():
            raise UnlearnError(f"unlearn: row {int(np.argmax(np.diff(Y.indptr) == 0))} has no label, but the model "
                               "never learned a row without one; the model is unchanged")
        w = check_sample_weight(sample_weight, int(Xv.shape[0]))
        part = count_labels(counter_of(self._clone(), Xv, w), np.arange(int(Xv.shape[0])), Y)
        S = self.stats_.subtract(part, extended(self.classes_))
        check_label_rows(S, extended(self.classes_), UnlearnError)  # rows unlearned under other label sets
        self._commit(S, self.classes_, self.n_features_in_, self.input_feature_names(), self.thresholds_,
                     self.__dict__["_empty_rows"])
        return self

    def merge(self, other: "MultiLabel") -> "MultiLabel":
        """A new model equal to one trained on both models' rows (labels united; each label keeps
        this model's threshold, or the other's for a label only it knows)."""
        if not isinstance(other, MultiLabel):
            raise MergeError(f"cannot merge a MultiLabel with a {type(other).__name__}")
        self.check_fitted()
        other.check_fitted()
        self._no_nblr("merge", MergeError)
        a, b = self.estimator, other.estimator
        if type(a) is not type(b):
            raise MergeError(f"cannot merge: base models {type(a).__name__} and {type(b).__name__} differ")
        for p in a.statistics_params:
            if not same(getattr(a, p), getattr(b, p)):
                raise MergeError(f"cannot merge: the base models' parameter {p!r} differs and it shapes the statistics")
        if self.n_features_in_ != other.n_features_in_ or self.input_feature_names() != other.input_feature_names():
            raise MergeError("cannot merge: the models were fitted on different features")
        if other.__dict__["_empty_rows"] and not self.allow_empty:
            raise MergeError("cannot merge: the other model learned rows without a label, which this model "
                             "(allow_empty=False) refuses, as fit does")
        labels = union_labels(self.classes_, other.classes_)
        Sa, ta = self._grown(self.stats_, self.classes_, self.thresholds_, labels)
        Sb, tb = other._grown(other.stats_, other.classes_, other.thresholds_, labels)
        mine, _ = encode_labels(self.classes_, labels)
        th = tb.copy()
        th[mine] = ta[mine]
        new = type(self)(**self.get_params())
        new.__dict__["_template"] = self.__dict__.get("_template")
        new._commit(Sa + Sb, labels, self.n_features_in_, self.input_feature_names(), th,
                    self.__dict__["_empty_rows"] or other.__dict__["_empty_rows"])
        return new

    def _no_nblr(self, what: str, error: type[Exception] = InvalidParameterError) -> None:
        if self._nblr(self.estimator):
            raise error(f"{what}: model='nblr' fits logistic regressions on all the documents at once; its "
                        "weights are not sums of statistics, so it is not exact; fit again on all documents")

    # ------------------------------------------------------------------ inference
    def _prepared(self, X: Any) -> Any:
        self.check_fitted()
        p = self.__dict__["_predictor"]
        return (p[0] if isinstance(p, list) else p).prepare_input(X, fitting=False)[0]

    def decision_function(self, X: Any) -> np.ndarray:
        """Each label's log-odds, log P(label | x) - log P(not label | x), shape (n, L)."""
        self.check_fitted()
        if "_nblr_weights" in self.__dict__:
            W, b = self.__dict__["_nblr_weights"]
            X01 = presence(self.__dict__["_predictor"].transform(X))
            result: np.ndarray = np.asarray(X01 @ W) + b
            return result
        return self._scores(X)[0]

    def _scores(self, X: Any) -> tuple[np.ndarray, np.ndarray | None]:
        """(each label's log-odds, 1 + each row's number of known terms when the linear text
        table gives it in the same pass, else None)."""
        p = self.__dict__["_predictor"]
        if isinstance(p, linear.LinearText):
            return p.scores(X)
        return self._log_odds(p, self._prepared(X)), None

    def predict_proba(self, X: Any) -> np.ndarray:
        """P(label | x) per label, shape (n, L) (labels are not exclusive: rows need not sum to 1)."""
        return np.asarray(expit(self.decision_function(X)))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """log P(label | x) for each row and label, shape (n, n_labels): each label's own
        binary model (the labels are not exclusive, so rows need not sum to one)."""
        s = self.decision_function(X)
        return np.asarray(-np.logaddexp(0.0, -s))

    def predict(self, X: Any) -> np.ndarray:
        """The indicator matrix (n, L) of int 0/1 (scikit-learn's multi-label convention)."""
        self.check_fitted()
        return decisions(self, X)[0]

    def predict_with_thresholds(self, X: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(``predict(X)``, ``predict_proba(X)``, the probability each label had to exceed in each
        row, shape (n, L), or None under ``top_k``) in one pass. The bar is per row when the
        thresholds apply to the log-odds per known term (tuned text models). A row with no label
        above its bar gets its closest label under ``empty="top1"``."""
        self.check_fitted()
        return with_thresholds(self, X)

    def predict_labels(self, X: Any) -> list[list[Any]]:
        """The predicted label lists (labels in ``classes_`` order)."""
        return label_lists(self.predict(X), self.classes_)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The micro-averaged F1 of ``predict(X)`` against the label sets ``y``."""
        self.check_fitted()
        pred = sp.csr_matrix(self.predict(X), dtype=np.float64)
        Y, _ = read_labels(y, pred.shape[0], self.classes_, allow_empty=True, grow=False)
        wv = check_sample_weight(sample_weight, pred.shape[0])
        wv = np.ones(pred.shape[0]) if wv is None else wv
        tp = float(wv @ np.asarray(pred.multiply(Y).sum(axis=1)).ravel())
        d = float(wv @ np.asarray(pred.sum(axis=1)).ravel() + wv @ np.asarray(Y.sum(axis=1)).ravel())
        return 2 * tp / d if d > 0 else 1.0

    # ------------------------------------------------------------------ per label
    @property
    def estimators_(self) -> list[Any]:
        """Each label's binary model (classes ``[0, 1]``: without, with the label), made from the
        statistics: equal to the base model fitted on ``y == label``."""
        self.check_fitted()
        self._no_nblr("estimators_")
        if "_binary" not in self.__dict__:
            T = stacked(self.stats_, extended(self.classes_)[:-1])
            out = []
            for l in range(len(self.classes_)):
                m = self._clone()
                m.set_statistics(pair(T, l), np.array([0, 1]), self.n_features_in_, self.input_feature_names())
                out.append(m)
            self.__dict__["_binary"] = out
        return list(self.__dict__["_binary"])

    @property
    def base_model_(self) -> Any:
        """The base model over L + 1 classes (each label's rows, then all rows) estimated from the
        statistics, as the model file nests it: it describes the input (features, their kinds
        and categories), as a calibrated model's ``base_estimator_`` does."""
        self.check_fitted()
        if "_base_model" not in self.__dict__:
            m = self._clone()
            m.set_statistics(self.stats_, np.arange(len(self.classes_) + 1), self.n_features_in_,
                             self.input_feature_names())
            self.__dict__["_base_model"] = m
        return self.__dict__["_base_model"]

    def estimator_for(self, label: Any) -> Any:
        """The binary model of ``label``."""
        return self.estimators_[self._label_index(label)]

    def _label_index(self, label: Any) -> int:
        self.check_fitted()
        pos, unknown = encode_labels(np.array([label], dtype=object), self.classes_)
        if unknown.any():
            raise InvalidParameterError(f"label {label!r} is not one of the model's labels {self.classes_.tolist()!r}")
        return int(pos[0])

    def explain(self, X: Any, label: Any = None) -> Any:
        """The base model's explanation of ``label``'s binary model (for text: each term's
        contribution to the label's log-odds); without ``label``, a dict label -> explanation."""
        if "explain" not in self.capabilities:
            raise InvalidParameterError(f"explain: the base model {type(self.estimator).__name__} has no explain")
        if label is not None:
            return self.estimator_for(label).explain(X)
        return {lab: m.explain(X) for lab, m in zip(self.classes_.tolist(), self.estimators_)}

    def top_features(self, k: int = 10) -> dict[Any, list[tuple[str, float]]]:
        """Per label, the ``k`` features that speak most for it (its binary model's class 1)."""
        return {lab: m.top_features(k)[1] for lab, m in zip(self.classes_.tolist(), self.estimators_)}

    # ------------------------------------------------------------------ model files
    def save(self, path: Any) -> None:
        """Write the model to one model file (no pickle); :func:`nbayes.load` reads it."""
        self.check_fitted()
        save_state(path, self.to_state(), rebuild(self))

    def to_state(self) -> dict[str, Any]:
        """The base model over L + 1 classes (row l: label l's rows, row L: all rows) nested under
        ``base/``; the labels, thresholds (and NBLR's weights) beside it."""
        self.check_fitted()
        return _state.to_state(self)

    @classmethod
    def from_state(cls, state: dict[str, Any], build: Callable[[dict[str, Any]], Any] | None = None) -> "MultiLabel":
        """The model a file's state describes; ``build`` reads the nested base model's state
        (:func:`nbayes.io.load.from_state` passes itself)."""
        if build is None:
            raise ModelFileError("a multi-label model's file nests its base model's state: read it with nbayes.load")
        return _state.from_state(cls, state, build)


__all__ = ["MultiLabel"]
