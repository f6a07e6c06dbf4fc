"""The scikit-learn estimator contract, without depending on scikit-learn.

``get_params``/``set_params`` from the keyword-only ``__init__`` signature, a short ``repr``,
and ``__sklearn_tags__`` (imported lazily, only when scikit-learn asks for it).
"""

from __future__ import annotations

import inspect
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar

import numpy as np

from ._frames import explanation_frame
from ._kernels.normalize import answer_rows, log_normalize
from ._math import logsumexp
from ._prior_shift import PriorEstimate, ShiftCalibrationLike, estimate
from ._validation import check_sample_weight, check_y
from .errors import InvalidParameterError, ModelFileError, NotFittedError


#: What an estimator can declare in :attr:`BaseEstimator.capabilities`. Code that needs a
#: capability (model selection, EM, the CLI, the service, ``nbayes.testing``) asks for its name
#: here, never for a class name.
CAPABILITIES: dict[str, str] = {
    "partial_fit": "learns from chunks; partial_fit over chunks equals fit on all rows",
    "online": "partial_fit learns from chunks by stochastic updates (approximately, not equal to fit)",
    "unlearn": "unlearn(X, y) forgets rows exactly: the model never trained on them",
    "merge": "a.merge(b) equals the model trained on the union of both models' rows",
    "statistics": "the model is its statistics (stats_) plus estimation settings",
    "joint_log_proba": "predict_joint_log_proba: a generative model, log P(x, y = c)",
    "explain": "explain(X): additive terms that sum to the joint log-probability",
    "with_prior": "with_prior(prior): the same model under another class balance, exactly",
    "to_logistic": "to_logistic(): the logistic model with identical probabilities",
    "missing_values": "missing values are left out of the product at predict (marginalised)",
    "sample_weight": "fit takes sample_weight",
    "sparse": "X may be a scipy.sparse matrix",
    "text": "X is a sequence of documents",
    "columns": "X is a table of named columns of mixed types",
    "categories": "X holds category values of any type (strings too), read as a table",
    "label_sets": "y holds a set of labels per row; predict returns a rows x classes_ indicator matrix",
    "unlabeled": "fit(X, y, X_unlabeled=...) learns from unlabelled rows by EM (nbayes.EM wraps it with settings)",
    "mixture": "nbayes.EM(model, n_components=...) fits several mixture components per class",
    "save": "model.save(path) and nbayes.load(path)",
    "calibrated": "predict_proba passes the base model's through a map fitted on out-of-fold scores (method, "
                  "calibrator_, oof_log_proba_: what nbayes.calibration.describe and nbayes.evaluate's "
                  "calibration reports read)",
    "binary": "X holds binary features (0/1; other values thresholded by the model's binarize)",
    "counts": "X holds counts or frequencies: no value is negative, scores are linear in x through feature_log_prob_",
    "logistic": "a logistic regression: decision_function(X) = X @ coef_.T + intercept_ (nbayes.dask.fit_logistic fits it)",
    "nb_logistic": "an NB-weighted logistic regression over term presence (Wang & Manning 2012), settings alpha, C "
                   "and nb_interpolation: nbayes.MultiLabel fits one per label",
    "per_class": "each class's parameters are estimated from that class's statistics alone (a model over more "
                 "classes gives the same parameters per class: nbayes.MultiLabel stacks the labels into one model)",
    "fold_statistics": "a fold's model is built from statistics, as fit builds it: count_statistics(prepare_input(X)) "
                       "of some rows are sums (the total minus a fold's is the other rows'), set_statistics estimates "
                       "the model of them and joint_log_likelihood scores prepared rows (model selection counts each "
                       "fold once and re-estimates per candidate)",
    "count_matrix": "text statistics are per-class sums of a document-term matrix: term_table, count_matrix, kept_terms "
                    "and count_model (with tf-idf: learned_idf, tfidf_rows, tfidf_key) estimate the model from such sums "
                    "as fit does (model selection tokenises the documents once)",
    "leave_one_out": "leave_one_out_joint(Xv, codes, w): each training row's joint log-likelihood under the model of "
                     "the statistics without that row, in closed form (None where the settings or data have none)",
}

#: What an estimator reads, :attr:`BaseEstimator.input_kind`: decided by its capabilities
#: (``text``; ``columns`` or ``categories``; neither), asked by every layer that turns rows of a
#: file, a request or a partition into the model's input (the CLI, the service, Dask).
INPUT_KINDS: dict[str, str] = {
    "text": "a sequence of documents (strings), one per row",
    "table": "a table of values of any type (strings, numbers, booleans): a data frame or a 2-D object array",
    "matrix": "a 2-D array of numbers (floats; NaN for a missing value), or a scipy.sparse matrix with 'sparse'",
}


def input_kind_of(capabilities: frozenset[str]) -> str:
    """The :data:`INPUT_KINDS` name of a model with these capabilities."""
    if "text" in capabilities:
        return "text"
    if "columns" in capabilities or "categories" in capabilities:
        return "table"
    return "matrix"


@dataclass
class Explanation:
    """What ``explain(X)`` returns for a table or a matrix (capability ``explain``): additive
    terms of each class's score.

    ``contributions[i, k, j]`` is feature j's term for row i and class k; with ``intercept[k]``
    they sum to the class's score, :meth:`joint`: the joint log-probability
    (``predict_joint_log_proba``) of a generative model, the decision function of a logistic
    regression. Either way the scores differ from ``predict_log_proba`` by a constant per row,
    so :meth:`log_odds` is the log-odds of the predicted class against the runner-up.
    """

    contributions: np.ndarray
    intercept: np.ndarray
    classes: np.ndarray
    feature_names: list[str]
    #: per row and feature, the bin a binned column's value fell in (``[3, 5)``, ``>= 7298``),
    #: None for other columns and missing values; None when no column is binned
    bins: list[list[str | None]] | None = None

    def joint(self) -> np.ndarray:
        """The scores the terms add up to, shape (n_rows, n_classes)."""
        joint: np.ndarray = self.contributions.sum(axis=2) + self.intercept
        return joint

    def log_odds(self, row: int = 0) -> tuple[Any, Any, np.ndarray, float]:
        """Per feature, the contribution to the log-odds of the predicted class against the
        runner-up in ``row``; returns (predicted, runner_up, terms, baseline) with
        ``terms.sum() + baseline`` equal to the difference of their scores."""
        joint = self.joint()[row]
        order = np.argsort(-joint, kind="stable")
        a, b = order[0], order[1] if len(order) > 1 else order[0]
        terms = _diff(self.contributions[row, a], self.contributions[row, b])
        return self.classes[a], self.classes[b], terms, float(self.intercept[a] - self.intercept[b])

    def to_frame(self, library: str | None = None) -> Any:
        """A frame with a row per explained row and feature: its term of the log-odds of the
        row's predicted class against the runner-up (:meth:`log_odds`), in the schema every
        explanation shares (``nbayes._frames.EXPLANATION_COLUMNS``; ``start``/``end`` null);
        pandas if installed, else polars (``library``)."""
        rows = (self.log_odds(i) for i in range(self.contributions.shape[0]))
        return explanation_frame([(p, r, b, self.feature_names, None, t) for p, r, t, b in rows], library,
                                 self.bins)


def _diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = a - b
    return np.where(a == b, 0.0, out)  # -inf - -inf: the same impossible term, no difference


class FittedAttributes:
    """Fitted attributes (public names ending in ``_``) asked for before ``fit`` raise
    :class:`~nbayes.errors.NotFittedError` naming the class, as every method does; after fit, a
    fitted attribute the model does not have (``feature_names_in_`` of a model fitted on an
    array) is a plain AttributeError. ``NotFittedError`` is an AttributeError, so ``hasattr``
    and ``getattr(model, name, default)`` work as for any attribute."""

    #: the attribute whose presence means "fitted"
    _fitted_marker: ClassVar[str] = "classes_"

    def __getattr__(self, name: str) -> Any:
        if name.endswith("_") and not name.startswith("_") and self._fitted_marker not in self.__dict__:
            what = type(self).__name__
            raise NotFittedError(f"{what}.{name}: this {what} is not fitted yet; call fit first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")



class BaseEstimator(FittedAttributes):
    """Parameters are the keyword-only arguments of ``__init__``, stored unchanged."""

    _estimator_type = "classifier"
    #: the capabilities of every instance of the class (``capabilities`` removes those that
    #: the instance's settings rule out)
    _capabilities: ClassVar[frozenset[str]] = frozenset({"save", "sample_weight"})

    @property
    def capabilities(self) -> frozenset[str]:
        """What this estimator can do with its current settings: names of :data:`CAPABILITIES`.

        >>> from nbayes import ComplementNB
        >>> sorted(ComplementNB().capabilities - {"sample_weight", "save", "sparse"})[:5]
        ['counts', 'explain', 'fold_statistics', 'joint_log_proba', 'merge']
        """
        return self._capabilities

    @property
    def input_kind(self) -> str:
        """What ``fit`` and ``predict`` read, one of :data:`INPUT_KINDS`: ``"text"`` (documents),
        ``"table"`` (values of any type, by column) or ``"matrix"`` (numbers); derived from the
        capabilities ``text``, ``columns`` and ``categories``, so a wrapper (a calibrated or EM
        model) reads what its base model reads.

        >>> from nbayes import CategoricalNB, GaussianNB, TextClassifier
        >>> [m.input_kind for m in (TextClassifier(), CategoricalNB(), GaussianNB())]
        ['text', 'table', 'matrix']
        """
        return input_kind_of(self.capabilities)

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return sorted(
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
        )

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The hyperparameters, as given to ``__init__`` (or ``set_params``)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> "BaseEstimator":
        """Set hyperparameters by name; unknown names are an error. Returns ``self``."""
        valid = set(self._param_names())
        for name, value in params.items():
            if name not in valid:
                raise InvalidParameterError(
                    f"{type(self).__name__} has no parameter {name!r}; "
                    f"valid parameters: {', '.join(sorted(valid))}"
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        sig = inspect.signature(type(self).__init__)
        shown = []
        for name in self._param_names():
            default = sig.parameters[name].default
            value = getattr(self, name, default)
            same = value is default
            if not same:
                try:
                    same = bool(value == default) if np.ndim(value) == 0 else False
                except (TypeError, ValueError):
                    same = False
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    # scikit-learn integration (estimator checks, pipelines, clone) --------------------------
    _accepts_sparse = False
    _allows_nan = True
    _requires_nonnegative = False
    _string_input = False
    _poor_score = False  # scikit-learn's tag: its generic accuracy check does not apply

    def __sklearn_tags__(self) -> Any:  # pragma: no cover - exercised through sklearn's own checks
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        tags = Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(poor_score=self._poor_score),
            input_tags=InputTags(
                sparse=self._accepts_sparse,
                allow_nan=self._allows_nan,
                positive_only=self._requires_nonnegative,
                categorical=self._string_input,
                string=self._string_input,
            ),
        )
        return tags

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "classes_")

    def check_fitted(self) -> None:
        """Raise :class:`~nbayes.errors.NotFittedError` unless the model is fitted (has ``classes_``)."""
        if not hasattr(self, "classes_"):
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted yet; call fit (or partial_fit) first"
            )


class Classifier(BaseEstimator):
    """What every nbayes classifier answers the same way, given ``predict_log_proba``."""

    #: the labels, in the order of the columns of ``predict_proba`` (set by fit)
    classes_: np.ndarray

    if TYPE_CHECKING:  # what every subclass defines (declared for the type checker only)

        def predict_log_proba(self, X: Any) -> np.ndarray: ...

        def predict(self, X: Any) -> np.ndarray: ...

    def predict_proba(self, X: Any) -> np.ndarray:
        """P(y = c | x) = exp(predict_log_proba(x)); rows sum to 1."""
        proba: np.ndarray = np.exp(self.predict_log_proba(X))
        return proba

    def predict_index_proba(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(index, proba)``: the position in ``classes_`` of ``predict(X)`` for each row, and
        ``predict_proba(X)``, from one pass over ``X`` where the model can (a generative model:
        one joint log-probability; a calibrated model: one pass of its base model). What the
        service answers. A row whose arithmetic overflowed (|x| near the float limit in a linear
        score) has a non-finite probability; ``predict_proba`` would give the same.

        >>> from nbayes import GaussianNB
        >>> m = GaussianNB().fit([[0.0], [0.2], [3.0], [3.2]], ["a", "a", "b", "b"])
        >>> index, proba = m.predict_index_proba([[0.1], [3.1]])
        >>> m.classes_[index].tolist(), bool((proba.argmax(axis=1) == index).all())
        (['a', 'b'], True)
        """
        proba = np.asarray(self.predict_proba(X), dtype=np.float64)
        position = {c: j for j, c in enumerate(self.classes_.tolist())}
        index = np.array([position[c] for c in np.asarray(self.predict(X)).tolist()], dtype=np.int64)
        return index, proba

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``)."""
        pred = self.predict(X)
        y = check_y(y, len(pred))
        w = check_sample_weight(sample_weight, len(pred))
        return float(np.average((pred == y).astype(float), weights=w))

    @property
    def prediction_prior(self) -> np.ndarray | None:
        """The class prior (``classes_`` order) that ``predict_proba`` assumes, or None when the
        model has none of its own (a discriminative model)."""
        return None

    def estimate_prior(self, X_unlabeled: Any, *, calibration: ShiftCalibrationLike | None = None,
                       method: str = "em", confidence: float = 0.95, n_bootstrap: int = 100,
                       random_state: Any = None) -> PriorEstimate:
        """The class prior of the unlabelled rows ``X_unlabeled`` under label shift (see
        docs/label-shift.md): a :class:`~nbayes.shift.PriorEstimate` (``.prior`` in ``classes_``
        order, a bootstrap interval, the method, and Saerens et al.'s likelihood-ratio test of
        "no change", ``.p_value``); ``model.with_prior(estimate)`` adapts the model to it.

        ``calibration``: a :class:`~nbayes.shift.ShiftCalibration` fitted on the training rows
        (bias-corrected temperature scaling of out-of-fold posteriors, and their confusion
        matrix): the accurate way, and needed by ``method="bbse"`` and by models without a prior
        of their own. Without it, EM runs on the model's own posteriors (over-confident for Naive
        Bayes). ``method``: ``"em"`` (Saerens et al. 2002) or ``"bbse"`` (Lipton et al. 2018)."""
        self.check_fitted()
        L = np.asarray(self.predict_log_proba(X_unlabeled), dtype=np.float64)
        if calibration is not None:
            L, source = calibration.apply(self, L), calibration.source_prior
            confusion = calibration.confusion
        else:
            prior = self.prediction_prior
            if prior is None:
                raise InvalidParameterError(
                    f"estimate_prior: this {type(self).__name__} has no class prior of its own to "
                    "start from; pass calibration=nbayes.shift.ShiftCalibration().fit(model, X_train, y_train)"
                )
            source, confusion = prior, None
        return estimate(L, source, self.classes_, method=method, confusion=confusion,
                        confidence=confidence, n_bootstrap=n_bootstrap, random_state=random_state,
                        calibrated=calibration is not None)

    def input_feature_names(self) -> list[str] | None:
        """The column names seen at fit (``feature_names_in_``) as strings, or None when the model was
        fitted on input without column names."""
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [str(n) for n in names]


class Generative(Classifier):
    """Classifiers with a joint log-probability (``predict_joint_log_proba``): the posterior by
    log-sum-exp, a row impossible under every class (possible with zero probabilities) answered
    by the class prior (``_log_prior``, set by the subclass)."""

    _log_prior: np.ndarray

    if TYPE_CHECKING:  # what every subclass defines (declared for the type checker only)

        def predict_joint_log_proba(self, X: Any) -> np.ndarray: ...

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """log P(y = c | x), normalised by log-sum-exp. A row impossible under every class
        (possible with ``alpha=0``) gets the class prior."""
        jll = np.ascontiguousarray(self.predict_joint_log_proba(X), dtype=np.float64)
        log_proba: np.ndarray = log_normalize(jll, self.prior_fallback)
        return log_proba

    def predict(self, X: Any) -> np.ndarray:
        """The class of highest posterior probability for each row."""
        jll = self.predict_joint_log_proba(X)
        best = np.argmax(jll, axis=1)
        dead = np.isneginf(jll[np.arange(len(best)), best])
        if dead.any():
            best[dead] = int(np.argmax(self.prior_fallback))
        labels: np.ndarray = self.classes_[best]
        return labels

    def predict_index_proba(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(index, proba)`` of :meth:`Classifier.predict_index_proba` from one joint
        log-probability: ``predict_log_proba``'s normalisation and ``predict``'s choice (the
        prior's class for a row impossible under every class) in one compiled pass."""
        jll = np.ascontiguousarray(self.predict_joint_log_proba(X), dtype=np.float64)
        kept = jll.copy()  # the kernel normalises in place
        # first with a NaN fallback, which marks a row impossible under every class as "bad":
        # the prior (a few small NumPy calls) is read only when such a row (or an overflow) is there
        index, log_proba, bad = answer_rows(jll, _nan_row(jll.shape[1]), 0)
        if bad >= 0:
            fallback = self.prior_fallback
            index, log_proba, _ = answer_rows(kept, fallback, int(np.argmax(fallback)))
        proba: np.ndarray = np.exp(log_proba)
        return index, proba

    @property
    def prediction_prior(self) -> np.ndarray | None:
        """The class prior (``classes_`` order, normalised) that ``predict_proba`` assumes."""
        self.check_fitted()
        prior: np.ndarray = np.exp(self.prior_fallback)
        return prior

    @property
    def prior_fallback(self) -> np.ndarray:
        """The class prior, normalised (log): the posterior given to a row that is impossible under every
        class; uniform when the prior itself is all zero."""
        lp = self._log_prior
        m = float(np.max(lp)) if len(lp) else -np.inf
        if np.isfinite(m):  # logsumexp's arithmetic, without its checks (the served path reads this per request)
            total = np.log(np.sum(np.exp(lp - m))) + m
        else:
            total = logsumexp(lp)
        if not np.isfinite(total):
            return np.full(len(lp), -np.log(len(lp)))
        normalised: np.ndarray = lp - total
        return normalised


_NAN_ROWS: dict[int, np.ndarray] = {}


def _nan_row(k: int) -> np.ndarray:
    """A read-only row of k NaN (one per number of classes, made once)."""
    row = _NAN_ROWS.get(k)
    if row is None:
        row = np.full(k, np.nan)
        row.flags.writeable = False
        _NAN_ROWS[k] = row
    return row


#: While ``save`` checks the bytes it is about to write: the fitted models being saved (the
#: model and those it nests). A Naive Bayes model read back from those bytes whose statistics
#: and settings equal one of these bit for bit takes that model's parameters instead of
#: estimating a second copy (``naive_bayes._saved``): estimation is a pure function of the
#: two, so it would give the same value, and the check costs the parsed file and statistics,
#: not a second fitted model.
SAVING: ContextVar[tuple[Any, ...]] = ContextVar("nbayes_saving", default=())


def rebuild(model: Any) -> Callable[[dict[str, Any]], Any]:
    """The builder ``save`` hands :func:`nbayes.io.model_file.save_state` to read a state back
    before writing it: each kind's own ``from_state``, found among the classes of ``model``
    and the models it nests (its parameters and fitted attributes), so no import of
    ``nbayes.io.load`` (which imports every model). Every check ``load`` makes runs; a model
    whose statistics come back bit for bit reuses the saved model's parameters (``SAVING``)."""
    kinds: dict[str, type] = {}
    models: list[Any] = []

    def walk(m: Any, depth: int) -> None:
        if isinstance(m, list | tuple):
            for x in m:
                walk(x, depth)
            return
        if not isinstance(m, BaseEstimator) or depth > 4 or any(m is x for x in models):
            return
        models.append(m)
        kinds.setdefault(type(m).__name__, type(m))
        for v in list(m.__dict__.values()):
            walk(v, depth + 1)

    walk(model, 0)

    def build(state: dict[str, Any]) -> Any:
        cls = kinds.get(state.get("kind"))  # type: ignore[arg-type]
        if cls is None:
            raise ModelFileError(f"a nested model of kind {state.get('kind')!r} that this model does not hold")
        token = SAVING.set(tuple(models))
        try:
            if getattr(cls, "_state_nests_models", False):
                return cls.from_state(state, build)  # type: ignore[attr-defined]
            return cls.from_state(state)  # type: ignore[attr-defined]
        finally:
            SAVING.reset(token)

    return build
