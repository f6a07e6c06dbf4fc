"""Semi-supervised Naive Bayes by EM, and several mixture components per class: the wrapper
:class:`EM` (Nigam, McCallum, Thrun & Mitchell 2000, "Text classification from labeled and
unlabeled documents using EM", Machine Learning 39, sections 5.2 and 5.3).

The algorithm is written once, in the models layer, against the models' statistics protocol
(:mod:`nbayes.naive_bayes.em`, whose defaults ``model.fit(X, y, X_unlabeled=U)`` runs); this
bridge holds the settings and the fitted run: ``nbayes.EM(model, ...)`` fits a clone of
``model`` by EM and exposes it as ``estimator_``, with the EM report beside it. The method is
described in docs/semi-supervised.md.

Why a wrapper named ``EM``: the settings are EM's, not the model's (a constructor holds its own
model's settings), and they apply to every model that declares the ``unlabeled`` capability; the
same wrapper fits within-class mixtures even without unlabelled rows, so neither "semi-supervised"
nor a model's name describes it, while EM (the paper's name of the method) does.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import numpy as np

from ._estimator import Classifier, rebuild
from .errors import InvalidParameterError, NotFittedError
from .io.model_file import decode_params, encode_params, save_state
from .naive_bayes.em import (
    CV_FOLDS,
    EM_ATTRS,
    OFF,
    WEIGHT_GRID,
    EMReport,
    EMSettings,
    fit_em,
    is_off,
    unlabeled_mask,
)

__all__ = ["EM", "OFF", "WEIGHT_GRID", "CV_FOLDS", "EM_ATTRS", "is_off", "unlabeled_mask"]

#: the fitted model's capabilities that the wrapper keeps (partial_fit, unlearn and merge belong
#: to ``estimator_``, the EM-completed model, which has them where they hold)
PASSED_ON = frozenset({"joint_log_proba", "explain", "with_prior", "missing_values", "sparse", "text", "columns", "categories",
                       "sample_weight", "unlabeled", "mixture", "save"})


class EM(Classifier):
    """A model fitted by EM from labelled and unlabelled rows, or with several mixture
    components per class (Nigam et al. 2000, sections 5.2-5.3).

    ``estimator``: an unfitted (or fitted: it is cloned, never changed) model whose
    ``capabilities`` hold ``"unlabeled"`` (MultinomialNB, BernoulliNB, CategoricalNB, NaiveBayes,
    TextClassifier with model='multinomial' or 'bernoulli'); ``"mixture"`` too for
    ``n_components`` other than 1. Parameters:

    * ``n_components``: mixture components per class: an integer for every class, or one per
      class in the order of ``classes_``; 1 is the ordinary model (section 5.3);
    * ``unlabeled_weight``: lambda, the weight of the unlabelled rows (EM-lambda, section 5.2);
      0 is the supervised fit, 1 (the wrapper's default) the paper's basic EM; ``"cv"`` chooses
      it by cross-validation on the labelled rows; ``"auto"`` (the default of
      ``model.fit(X, y, X_unlabeled=U)``) is ``"cv"`` when the labelled rows are in memory and 1
      when they come as a stream of chunks (which cannot be cross-validated);
    * ``unlabeled_label``: rows of ``y`` with this label are unlabelled (``-1`` is
      scikit-learn's convention, ``None`` the missing labels); ``"off"`` marks none;
    * ``max_iter``, ``tol``: at most ``max_iter`` M-steps, until the objective's relative change
      is at most ``tol``;
    * ``n_init``, ``random_state``: with components, the random starts (the one of highest final
      objective is kept) and their seed (a fixed default: the same data give the same model).

    After ``fit(X, y, sample_weight=None, *, X_unlabeled=None)``: ``estimator_`` is the
    EM-completed model (an ordinary model whose statistics hold the expected counts; with one
    component per class it can ``partial_fit`` / ``unlearn`` labelled rows; with several its
    component layout is fitted state, ``estimator_.n_components_``); ``n_iter_``,
    ``em_log_likelihood_``, ``em_converged_``, ``unlabeled_weight_``, ``em_cv_scores_``,
    ``n_unlabeled_`` report the run; ``classes_`` are the classes. It predicts as
    ``estimator_`` does and saves as one file (``nbayes.load`` reads it back, report included).

    >>> import nbayes
    >>> em = nbayes.EM(nbayes.MultinomialNB(), max_iter=5)
    >>> em = em.fit([[3, 0], [0, 3]], ["a", "b"], X_unlabeled=[[2, 1], [1, 2]])
    >>> em.predict([[4, 1]]).tolist(), em.n_unlabeled_
    (['a'], 2)
    """

    _state_nests_models: ClassVar[bool] = True
    _fitted_marker: ClassVar[str] = "estimator_"

    def __init__(
        self,
        estimator: Any,
        *,
        n_components: int | Any = 1,
        unlabeled_weight: float | str = 1.0,
        unlabeled_label: Any = OFF,
        max_iter: int = 100,
        tol: float = 1e-4,
        n_init: int = 1,
        random_state: int | None = 0,
    ) -> None:
        self.estimator = estimator
        self.n_components = n_components
        self.unlabeled_weight = unlabeled_weight
        self.unlabeled_label = unlabeled_label
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.random_state = random_state

    def settings(self) -> EMSettings:
        """The EM settings of this wrapper's parameters."""
        return EMSettings(unlabeled_label=self.unlabeled_label, unlabeled_weight=self.unlabeled_weight,
                          max_iter=self.max_iter, tol=self.tol, n_components=self.n_components,
                          n_init=self.n_init, random_state=self.random_state)

    @property
    def capabilities(self) -> frozenset[str]:
        """The model's capabilities the wrapper keeps (:data:`PASSED_ON`); with several
        components per class, no ``explain`` (a log-sum-exp over components is not additive)."""
        model = self.__dict__.get("estimator_", self.estimator)
        caps = frozenset(getattr(model, "capabilities", frozenset())) & PASSED_ON
        if "estimator_" not in self.__dict__ and self.settings().mixture:
            caps -= {"explain"}
        return caps

    # ------------------------------------------------------------------ training
    def fit(self, X: Any, y: Any = None, sample_weight: Any = None, *, X_unlabeled: Any = None) -> "EM":
        """Fit a clone of ``estimator`` by EM on (X, y) and ``X_unlabeled`` (rows of ``y`` equal
        to ``unlabeled_label`` are unlabelled too). ``X`` may be a stream of ``(X_i, y_i[, w_i])``
        chunks (with ``y=None``; not with ``unlabeled_weight="cv"``). Returns self; a failure
        leaves the wrapper unchanged."""
        estimator = self.estimator
        if estimator is None or not hasattr(estimator, "fit") or not hasattr(estimator, "get_params"):
            raise InvalidParameterError(f"estimator: expected an nbayes classifier, got {estimator!r}")
        if isinstance(estimator, EM):
            raise InvalidParameterError("estimator: this model is an EM wrapper already; wrap its estimator")
        model = type(estimator)(**estimator.get_params())
        report = fit_em(model, X, y, sample_weight, X_unlabeled, self.settings())
        self._set(model, report)
        return self

    def _set(self, model: Any, report: EMReport) -> None:
        for name in ("feature_names_in_",):
            self.__dict__.pop(name, None)
        self.estimator_ = model
        self.classes_ = model.classes_
        self.n_features_in_ = model.n_features_in_
        names = model.input_feature_names()
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        self.__dict__.update(report.attributes())

    def check_fitted(self) -> None:
        if "estimator_" not in self.__dict__:
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet; call fit first")

    # ------------------------------------------------------------------ inference
    def predict(self, X: Any) -> np.ndarray:
        """The class of highest posterior probability for each row (``estimator_``'s)."""
        self.check_fitted()
        result: np.ndarray = self.estimator_.predict(X)
        return result

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """log P(y = c | x) under the EM-completed model."""
        self.check_fitted()
        result: np.ndarray = self.estimator_.predict_log_proba(X)
        return result

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """log P(x, y = c) under the EM-completed model (components summed within each class)."""
        self.check_fitted()
        result: np.ndarray = self.estimator_.predict_joint_log_proba(X)
        return result

    def explain(self, X: Any) -> Any:
        """``estimator_.explain(X)`` (refused with several components per class)."""
        self.check_fitted()
        if not hasattr(self.estimator_, "explain"):
            raise InvalidParameterError(f"explain: a {type(self.estimator_).__name__} has no explanation")
        return self.estimator_.explain(X)

    def with_prior(self, class_prior: Any) -> "EM":
        """A copy whose model is ``estimator_.with_prior(class_prior)`` (the same statistics,
        another class prior; with components P(m | c) is kept); the EM report is copied."""
        self.check_fitted()
        if "with_prior" not in self.capabilities:
            raise InvalidParameterError(
                f"with_prior: this {type(self.estimator_).__name__}'s decision does not use a class prior"
            )
        new = type(self)(**self.get_params())
        new._set(self.estimator_.with_prior(class_prior), self._report())
        return new

    def _report(self) -> EMReport:
        cv = self.em_cv_scores_
        return EMReport(int(self.n_iter_), np.array(self.em_log_likelihood_, dtype=np.float64), bool(self.em_converged_),
                        float(self.unlabeled_weight_), None if cv is None else dict(cv), int(self.n_unlabeled_))

    # ------------------------------------------------------------------ model files
    def save(self, path: Any) -> None:
        """Write the wrapper (its settings, the EM-completed model and the EM report) to one
        file; read it back with :func:`nbayes.load`."""
        self.check_fitted()
        save_state(path, self.to_state(), rebuild(self))

    def to_state(self) -> dict[str, Any]:
        """The wrapper as the state of a model file: its settings, the EM run and the nested ``estimator_``."""
        inner = self.estimator_.to_state()
        params, arrays = encode_params({k: v for k, v in self.get_params().items() if k != "estimator"})
        arrays.update({f"estimator/{k}": v for k, v in inner["arrays"].items()})
        arrays["em/log_likelihood"] = np.asarray(self.em_log_likelihood_, dtype=np.float64)
        cv = self.em_cv_scores_
        meta = {
            "estimator": {"kind": inner["kind"], "params": inner["params"], "meta": inner["meta"]},
            "n_iter": int(self.n_iter_),
            "converged": bool(self.em_converged_),
            "unlabeled_weight": float(self.unlabeled_weight_),
            "cv_scores": None if cv is None else [[float(k), float(v)] for k, v in cv.items()],
            "n_unlabeled": int(self.n_unlabeled_),
            "n_features_in": int(self.n_features_in_),
            "feature_names": self.input_feature_names(),
            "n_samples_seen": inner["meta"].get("n_samples_seen"),
        }
        return {"kind": type(self).__name__, "params": params, "meta": meta, "arrays": arrays}

    @classmethod
    def from_state(cls, state: dict[str, Any], build: Callable[[dict[str, Any]], Any] | None = None) -> "EM":
        """The wrapper of a verified state; ``build`` (handed over by :func:`nbayes.load`) makes
        the nested model. ValueError / KeyError for a state that does not describe one."""
        if build is None:
            raise ValueError("an EM file nests a model: read it with nbayes.load")
        arrays, meta = state["arrays"], state["meta"]
        inner = meta["estimator"]
        model = build({"kind": inner["kind"], "params": inner["params"], "meta": inner["meta"],
                       "arrays": {k[len("estimator/"):]: v for k, v in arrays.items() if k.startswith("estimator/")}})
        if isinstance(model, EM):
            raise ValueError("an EM file nests another EM wrapper")
        params = decode_params(state["params"], arrays)
        if isinstance(params.get("n_components"), np.ndarray | list):
            params["n_components"] = [int(v) for v in params["n_components"]]
        wrapper = cls(type(model)(**model.get_params()), **params)
        cv = meta.get("cv_scores")
        report = EMReport(int(meta["n_iter"]), np.asarray(arrays["em/log_likelihood"], dtype=np.float64),
                          bool(meta["converged"]), float(meta["unlabeled_weight"]),
                          None if cv is None else {float(k): float(v) for k, v in cv}, int(meta["n_unlabeled"]))
        wrapper._set(model, report)
        return wrapper
