"""What every Naive Bayes model shares, written once.

The flow (DESIGN.md, docs/architecture.md): data -> ``prepare_input`` (validate once) ->
``count_statistics`` (fresh statistics) -> statistics arithmetic (add, subtract, embed) ->
``estimate_parameters`` (statistics -> log-parameters) -> ``joint_log_likelihood`` -> log-sum-exp. ``fit``, ``partial_fit``, ``unlearn`` and
``merge`` are the same path with different statistics arithmetic. Every state change is
computed aside and committed at the end, so a call that fails leaves the model unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

import numpy as np

from .._estimator import Generative, rebuild
from ..io.model_file import save_state
from .._validation import (
    check_number,
    check_sample_weight,
    check_probability_vector,
    check_y,
    show,
    classes_and_codes,
    encode_labels,
    label_array,
    n_rows,
    sorted_unique,
    union_labels,
)
from ..errors import DataError, InvalidParameterError, MergeError, NBayesError, UnlearnError
from ._chunks import ChunkStream, _is_empty, _Transaction, _same_labels, chunk_classes, is_chunk_stream, stream_chunks, stream_into
from ._files import _check_layout
from ._model_file import model_from_state, model_state
from .explanation import Explanation, top_of
from ._logistic_twin import LogisticTwin
from ._mixture import MixtureHooks
from ._magnitudes import estimate_checked
from ._saved import saved_twin
from ._naming import Naming
from ._components import Components
from ._em import EM_ATTRS, EMSettings, fit_em
from ._priors import class_log_prior
from .params import Params, PriorSettings, assign_parameters, estimate_prior

__all__ = ["BaseNB", "Explanation", "class_log_prior", "is_chunk_stream", "stream_chunks"]

_NB = TypeVar("_NB", bound="BaseNB")


class BaseNB(LogisticTwin, MixtureHooks, Generative, Naming):
    """What every Naive Bayes model shares (fit, partial_fit, unlearn, merge, predictions, explanations,
    ``with_prior``, model files), through its statistics ``stats_``. A model writes the hooks ``check_params``,
    ``prepare_input``, ``count_statistics``, ``estimate_parameters``, ``log_likelihood``, ``feature_terms``,
    ``feature_scores`` and ``statistics_from_arrays`` (docs/architecture.md, docs/examples/poisson_nb.py)."""

    #: hyperparameters that shape the statistics: ``merge`` requires them equal
    statistics_params: ClassVar[tuple[str, ...]] = ()
    _capabilities: ClassVar[frozenset[str]] = frozenset({
        "partial_fit", "unlearn", "merge", "statistics", "joint_log_proba", "explain", "with_prior",
        "to_logistic", "sample_weight", "save", "fold_statistics",
    })

    # set by estimation (``estimate_parameters``, ``prior_parameters``): declared for the type checker
    stats_: Any
    _intercept: np.ndarray
    class_log_prior_: np.ndarray

    @property
    def capabilities(self) -> frozenset[str]:
        caps = set(self._capabilities)
        if self._has_components():  # fitted by EM over all rows at once: not sums of rows
            caps -= {"partial_fit", "unlearn", "merge", "explain", "to_logistic"}
        return frozenset(caps)

    # ------------------------------------------------------------------ hooks (subclasses)
    def check_params(self) -> None:
        """Hook: raise :class:`~nbayes.errors.InvalidParameterError` for a hyperparameter out of range."""
        raise NotImplementedError

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        """Hook: ``(Xv, names)``, ``X`` validated and converted once, and its column names (None
        without names); ``fitting`` is True when the columns are learned, False when they are
        checked against those seen at fit."""
        raise NotImplementedError

    def count_statistics(self, Xv: Any, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> Any:
        """Hook: the statistics (:mod:`nbayes.stats`) of one batch: ``Xv`` from ``prepare_input``,
        ``codes`` each row's class as an index in ``0 .. n_classes - 1``, ``w`` the row weights
        (None: 1 each)."""
        raise NotImplementedError

    def estimate_parameters(self, stats: Any, n_features: int) -> Params | dict[str, Any]:
        """Hook: the parameters estimated from ``stats``: a :class:`~nbayes.naive_bayes.params.Params`
        value (the family's pure ``estimate(stats, self.estimation_settings(n_features))``), or
        the fitted attributes as a dict (with ``prior_parameters``); it changes nothing on the model."""
        raise NotImplementedError

    def log_likelihood(self, Xv: Any) -> np.ndarray:
        """log P(x | y = c) of the observed features, shape (n_rows, n_classes)."""
        raise NotImplementedError

    def joint_log_likelihood(self, Xv: Any) -> np.ndarray:
        """Joint log-likelihood log P(x, y = c): the intercept (log prior) plus ``_loglik``
        (with several components per class: their log-sum-exp within each class)."""
        jll = self.log_likelihood(Xv) + self._intercept
        mix = self._mixture()
        return jll if mix is None else mix.class_logsumexp(jll)

    def feature_terms(self, Xv: Any) -> np.ndarray:
        """Hook: each feature's term of log P(x | y = c), shape (n_rows, n_classes, n_features), for ``explain``."""
        raise NotImplementedError

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        """Hook: ``(scores, names)``, a score per class and feature and the feature names, for ``top_features``."""
        raise NotImplementedError

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> Any:
        """Hook: the statistics stored in a model file's arrays (the inverse of ``stats_.to_arrays()``)."""
        raise NotImplementedError

    @property
    def n_components_(self) -> np.ndarray:
        """Mixture components per class, in the order of ``classes_``: 1 for every class of an
        ordinary model; more where :class:`nbayes.EM` fitted several (``n_components``)."""
        self.check_fitted()
        mix = self._mixture()
        return np.ones(len(self.classes_), dtype=np.intp) if mix is None else mix.sizes.copy()

    def prior_settings(self) -> PriorSettings:
        """What the class prior's estimation reads from this model (:func:`estimate_prior`)."""
        return PriorSettings(fit_prior=self.fit_prior, class_prior=self.class_prior, class_alpha=self.class_alpha,
                             classes=self._estimation_classes, components=self._mixture())

    def prior_parameters(self, count: np.ndarray) -> dict[str, Any]:
        """The estimated priors by attribute name: ``class_log_prior_`` and the intercept of
        ``_loglik`` (with components: log P(c) + log P(m | c) per component, and
        ``component_log_weight_``): :func:`estimate_prior` of :meth:`prior_settings`."""
        p = estimate_prior(count, self.prior_settings())
        out = {"class_log_prior_": p["class_log_prior"], "_intercept": p["intercept"]}
        if "component_log_weight" in p:
            out["component_log_weight_"] = p["component_log_weight"]
        return out

    # ------------------------------------------------------------------ training
    def fit(
        self, X: Any, y: Any = None, sample_weight: Any = None, *, X_unlabeled: Any = None
    ) -> Self:
        """Fit on (X, y): count the statistics, then estimate the parameters. Returns self.

        ``X`` may also be an iterator of chunks ``(X_i, y_i)`` or ``(X_i, y_i, w_i)`` (with
        ``y=None``): each is counted as it comes, so data larger than memory streams; the result
        equals ``fit`` on all rows at once, and a failure on any chunk leaves the model as it
        was.

        ``X_unlabeled`` (rows without labels: the same kinds of input as ``X``, or an iterator
        of such batches) trains by EM with :class:`nbayes.EM`'s default settings but
        ``unlabeled_weight="auto"`` (lambda chosen by cross-validation on the labelled rows; 1
        for a stream of chunks), for models whose ``capabilities`` hold ``"unlabeled"`` (the
        others refuse it): this model becomes the EM-completed model
        (``nbayes.EM(type(self)(**params), unlabeled_weight="auto").fit(...).estimator_``), and
        ``n_iter_``, ``em_log_likelihood_``, ``em_converged_``, ``unlabeled_weight_``,
        ``em_cv_scores_``, ``n_unlabeled_`` report the run (a later plain ``fit`` removes them).
        Other EM settings (``unlabeled_weight="cv"``, ``unlabeled_label``, mixture components)
        are the wrapper's: docs/semi-supervised.md."""
        if X_unlabeled is not None:
            with self._transaction():
                report = fit_em(self, X, y, sample_weight, X_unlabeled, EMSettings())
                self.__dict__.update(report.attributes())
            return self
        with self._transaction():
            self.__dict__.pop("_layout", None)  # a plain fit makes the ordinary model
            self._fit_supervised(X, y, sample_weight)
        for name in EM_ATTRS:
            self.__dict__.pop(name, None)
        return self

    def _transaction(self) -> _Transaction:
        """A failed fit / partial_fit / unlearn leaves the model as it was: the attributes are
        restored (statistics are computed aside, never changed in place before validation)."""
        return _Transaction(self)

    def _fit_supervised(self, X: Any, y: Any = None, sample_weight: Any = None) -> Self:
        self.__dict__.pop("_declared_classes", None)  # a fit makes a new class set
        if y is None and is_chunk_stream(X):
            return stream_into(self, X, fresh=True)
        self.check_params()
        Xv, names = self.prepare_input(X, fitting=True)
        n = _n_rows(Xv)
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        classes, codes = classes_and_codes(y)
        with self.naming(names):
            stats = self.count_statistics(Xv, codes, len(classes), w)
            self.set_statistics(stats, classes, _n_cols(Xv), names)
        return self

    def partial_fit(
        self, X: Any, y: Any = None, classes: Any = None, sample_weight: Any = None
    ) -> Self:
        """Add a chunk of data to the statistics; ``partial_fit`` over chunks equals ``fit``
        on all of them. ``classes`` may declare classes not (yet) in ``y``; new labels in later
        chunks are added to ``classes_`` unless this call's ``classes`` excludes them. ``X`` may
        be an iterator of chunks ``(X_i, y_i[, w_i])`` (with ``y=None``), all added or none."""
        self._no_components("partial_fit")
        if y is None and is_chunk_stream(X):
            return stream_into(self, X, fresh=False, classes=classes)
        with self._transaction():
            return self._partial_fit(X, y, classes, sample_weight)

    def _partial_fit(self, X: Any, y: Any, classes: Any, sample_weight: Any) -> Self:
        first = not hasattr(self, "classes_")
        if _is_empty(X, y):  # an empty chunk of a stream: nothing to add
            if classes is not None and not first:
                self._check_declared(classes)
            return self
        self.check_params()
        Xv, names = self.prepare_input(X, fitting=first)
        n = _n_rows(Xv)
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        all_classes = chunk_classes(sorted_unique(y), classes, None if first else self.classes_,
                                    self.__dict__.get("_declared_classes", False))
        codes, _ = encode_labels(y, all_classes)
        with self.naming(names if first else self.input_feature_names()):
            new = self.count_statistics(Xv, codes, len(all_classes), w)
            if first:
                stats = new  # declared classes not in y are in all_classes with weight 0
            else:
                before = self.stats_
                if len(all_classes) != len(self.classes_):  # (the same classes: embedding would copy them as they are)
                    pos, _ = encode_labels(self.classes_, all_classes)
                    before = before.embed(pos, len(all_classes))
                stats = before + new
            declared_before = self.__dict__.get("_declared_classes", False)
            self.set_statistics(stats, all_classes, _n_cols(Xv), names if first else self.input_feature_names())
        # classes declared on the first call are a contract (CORRECTNESS.md)
        self.__dict__["_declared_classes"] = (classes is not None) if first else declared_before
        return self

    def stream(self, *, fresh: bool = False) -> ChunkStream:
        """A stream of chunks for this model to learn (``add`` each, then ``finish``): the
        model is untouched until ``finish`` gives it the result in one step, equal to
        ``partial_fit`` over the chunks (``fresh=True``: to ``fit`` over them).

        >>> from nbayes import MultinomialNB
        >>> m = MultinomialNB()
        >>> s = m.stream()
        >>> s.add([[3, 0]], ["ham"], classes=["ham", "spam"]).add([[0, 3]], ["spam"]).finish() is m
        True
        >>> m.class_count_.tolist()
        [1.0, 1.0]
        """
        return ChunkStream(self, fresh=fresh)

    def _check_declared(self, classes: Any) -> None:
        chunk_classes(self.classes_[:0], classes, self.classes_, False)

    def unlearn(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        """Remove examples learned before, exactly: the model becomes the one trained without
        them. Removing more weight than was learned is an error; the model is then unchanged."""
        self.check_fitted()
        self._no_components("unlearn")
        if _is_empty(X, y):
            return self
        with self._transaction():
            return self._unlearn(X, y, sample_weight)

    def _unlearn(self, X: Any, y: Any, sample_weight: Any) -> Self:
        Xv, _ = self.prepare_input(X, fitting=False)
        n = _n_rows(Xv)
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        codes, unknown = encode_labels(y, self.classes_)
        if unknown.any():
            i = int(np.argmax(unknown))
            raise UnlearnError(
                f"y: row {i} has label {show(y[i])}, a class this model never learned; "
                "the model is unchanged"
            )
        with self.naming():
            part = self.count_statistics(Xv, codes, len(self.classes_), w)
            stats = self.stats_.subtract(part, self.classes_)
            self.set_statistics(stats, self.classes_, self.n_features_in_, self.input_feature_names())
        return self

    def merge(self, other: "BaseNB") -> Self:
        """A new model equal to the one trained on the union of both models' data.

        Both models must be of the same type with the same statistics-shaping settings
        (``_stats_params``); estimation settings (smoothing, priors) are taken from ``self``.
        """
        if type(other) is not type(self):
            raise MergeError(
                f"cannot merge a {type(self).__name__} with a {type(other).__name__}; "
                "both models must be of the same type"
            )
        self.check_fitted()
        other.check_fitted()
        self._no_components("merge", MergeError)
        other._no_components("merge", MergeError)
        for p in self.statistics_params:
            if not _same_param(getattr(self, p), getattr(other, p)):
                raise MergeError(
                    f"cannot merge: parameter {p!r} differs ({getattr(self, p)!r} vs "
                    f"{getattr(other, p)!r}) and it shapes the statistics"
                )
        if self.n_features_in_ != other.n_features_in_:
            raise MergeError(
                f"cannot merge: {self.n_features_in_} features vs {other.n_features_in_} features"
            )
        if self.input_feature_names() != other.input_feature_names():
            raise MergeError("cannot merge: the models were fitted on different column names")
        new = self._new_like(other)  # checks what the statistics' layout needs equal
        classes = union_labels(self.classes_, other.classes_)
        pa, _ = encode_labels(self.classes_, classes)
        pb, _ = encode_labels(other.classes_, classes)
        stats = self.stats_.embed(pa, len(classes)) + other.stats_.embed(pb, len(classes))
        new.set_statistics(stats, classes, self.n_features_in_, self.input_feature_names())
        return new

    def unfitted_like(self) -> Self:
        """An unfitted model with this one's hyperparameters and the layout of its statistics
        (a ``NaiveBayes``: the column kinds its ``prepare_input`` read, or fitted), ready to
        count input this model prepared or to receive statistics by ``set_statistics``: what a
        wrapper (``MultiLabel``) makes its per-label models from."""
        return self._new_like(self)

    def _new_like(self, other: "BaseNB") -> Self:
        """An unfitted model with this one's hyperparameters (and component layout), to receive
        merged statistics or another prior."""
        new = type(self)(**self.get_params())
        if self._has_components():
            new.__dict__["_layout"] = self.__dict__["_layout"]
        return new

    def set_statistics(self, stats: Any, classes: np.ndarray, n_features: int, names: list[str] | None) -> None:
        """Make ``stats`` the model's statistics: the parameters are estimated from them and, only when
        that succeeds, ``stats_``, ``classes_``, ``n_features_in_``, ``feature_names_in_`` (from
        ``names``) and the fitted attributes are set. Every way of training ends here."""
        if not np.any(np.asarray(stats.class_count) > 0):
            raise DataError("sample_weight: the weights sum to zero; the model would have no data")
        if "_layout" in self.__dict__:
            _check_layout(self, stats, classes)
        # save's check of what it writes: the saved model's own parameters when these statistics
        # and settings are its own bit for bit (no second fitted model; naive_bayes._saved)
        derived = saved_twin(self, stats, classes, n_features)
        if derived is None:
            self.__dict__["_estimating_classes"] = classes
            try:
                derived = estimate_checked(self, stats, n_features, names)  # may raise: nothing assigned yet
            finally:
                del self.__dict__["_estimating_classes"]
        self.classes_ = classes
        self.n_features_in_ = n_features
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        else:
            self.__dict__.pop("feature_names_in_", None)
        self._set_derived(derived, stats)  # stats_ and params_ in one step

    def _set_derived(self, derived: dict[str, Any] | Params, stats: Any = None) -> None:
        assign_parameters(self, derived, stats)

    @property
    def _estimation_classes(self) -> np.ndarray | None:
        """The class labels of the statistics being estimated (a prior given as a mapping from
        label to probability is laid out in their order)."""
        d = self.__dict__
        return d["_estimating_classes"] if "_estimating_classes" in d else d.get("classes_")

    # ------------------------------------------------------------------ fitted attributes
    @property
    def class_count_(self) -> np.ndarray:
        """Weight of training rows per class."""
        return self._class_rows(self.stats_.class_count)

    def display_feature_names(self) -> list[str]:
        """The feature names shown in explanations: those seen at fit, else ``x0``, ``x1``, ..."""
        return self.input_feature_names() or [f"x{j}" for j in range(self.n_features_in_)]

    # ------------------------------------------------------------------ inference
    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """log P(x, y = c) for each row and class: the log prior plus the log-likelihood of the
        row's observed features (missing ones are left out of the product, exactly)."""
        self.check_fitted()
        Xv, _ = self.prepare_input(X, fitting=False)
        with self.naming():
            return self.joint_log_likelihood(Xv)

    # Generative declares a plain attribute (GaussianBayes assigns it); here it is read from the
    # estimated priors, which typing calls an incompatible (read-only) override
    @property
    def _log_prior(self) -> np.ndarray:  # type: ignore[override]
        return self._intercept if self._mixture() is None else self.class_log_prior_

    # ------------------------------------------------------------------ explanations
    def explain(self, X: Any) -> Explanation:
        """Each feature's additive term of each class's joint log-probability, per row.

        ``explain(X).joint()`` equals ``predict_joint_log_proba(X)``.
        """
        self.check_fitted()
        self._no_explanation("explain")
        Xv, _ = self.prepare_input(X, fitting=False)
        with self.naming():
            terms = self.feature_terms(Xv)
        return Explanation(terms, self._intercept.copy(), self.classes_, self.display_feature_names(),
                           self.feature_bins(Xv))

    def top_features(self, k: int = 10) -> dict[Any, list[tuple[str, float]]]:
        """The ``k`` most informative features per class, best first, with their scores
        (log theta_c - log theta_not-c for counts; |mu_c - mu_not-c| / sigma for Gaussians)."""
        self.check_fitted()
        check_number("k", k, low=1, integer=True)
        return top_of(*self.feature_scores(), self.classes_, k)

    def _no_explanation(self, what: str) -> None:
        mix = self._mixture()
        if mix is not None:
            raise InvalidParameterError(
                f"{what}: this {type(self).__name__} has several mixture components per class "
                f"(n_components_={mix.sizes.tolist()}); a "
                "class's joint log-probability is then a log-sum-exp over its components, neither a "
                "sum of per-feature terms nor linear in x (top_features ranks on the class totals)"
            )

    # ------------------------------------------------------------------ deployment prior
    def with_prior(self, class_prior: Any) -> Self:
        """A copy that predicts under another class balance (spam rates drift): the same
        statistics (a copy: the two models learn apart), the log prior replaced, so P(y | x) is
        Bayes' rule with ``class_prior`` exactly. ``class_prior`` is a sequence in ``classes_``
        order or a mapping from label to probability (every class named); finite, >= 0, with a
        positive sum (normalised). The original is unchanged, and the copy keeps the prior if it
        learns more (it is its ``class_prior`` / ``priors`` setting).

        >>> from nbayes import MultinomialNB
        >>> m = MultinomialNB().fit([[3, 0], [0, 3]], ["ham", "spam"])
        >>> m.with_prior({"ham": 0.9, "spam": 0.1}).class_log_prior_.round(3).tolist()
        [-0.105, -2.303]
        """
        import copy

        self.check_fitted()
        if "with_prior" not in self.capabilities:
            raise InvalidParameterError(
                f"with_prior: this {type(self).__name__}'s decision does not use a class prior "
                "(complement NB follows scikit-learn in leaving it out; nblr's intercepts are "
                "fitted), so a new prior cannot be applied exactly"
            )
        name = "priors" if "priors" in self._param_names() else "class_prior"
        prior = check_probability_vector(name, class_prior, self.classes_)
        if name == "priors":
            prior = prior / prior.sum()
        new = self._new_like(self)
        new.set_params(**{name: prior})
        new.set_statistics(copy.deepcopy(self.stats_), self.classes_, self.n_features_in_, self.input_feature_names())
        return new

    # ------------------------------------------------------------------ model files (_model_file)
    def save(self, path: Any) -> None:
        """Write the model to ``path`` (atomically; no pickle). Read it back with
        :func:`nbayes.load`."""
        self.check_fitted()
        save_state(path, self.to_state(), rebuild(self))

    def to_state(self) -> dict[str, Any]:
        """The model as the state of a model file (kind, parameters, meta data, the statistics'
        arrays); ``save`` writes it."""
        return model_state(self)

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Self:
        """The model of a model-file state (the inverse of ``to_state``): the statistics are
        checked, then the parameters estimated from them."""
        return model_from_state(cls, state)


# ---------------------------------------------------------------------------- helpers
def _n_rows(Xv: Any) -> int:
    return int(Xv.shape[0])


def _n_cols(Xv: Any) -> int:
    return int(Xv.shape[1])


def same_labels(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two label arrays hold the same labels."""
    return _same_labels(a, b)


def _same_param(a: Any, b: Any) -> bool:
    try:
        return bool(np.all(np.asarray(a) == np.asarray(b))) and np.shape(a) == np.shape(b)
    except (TypeError, ValueError):
        return bool(a == b)
