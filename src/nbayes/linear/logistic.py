"""``nbayes.LogisticRegression``: the discriminative counterpart of the Naive Bayes models.

Chapter 002 section 3: logistic regression models P(Y | X) directly, P(Y=1|X) = sigma(w0 + w.x)
for two classes (eqs. 16-17) and a softmax over K classes (eqs. 27-28). Trained by maximising the
conditional log-likelihood with an L2 (Gaussian MAP) penalty; the optimum is scikit-learn's (see
``_loss.py``). Full batches use a trust-region Newton method (``solver="newton"``, the default)
or L-BFGS; streams use mini-batch stochastic gradient (``partial_fit``).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._estimator import Classifier, Explanation, rebuild
from .._validation import (
    check_choice,
    check_number,
    check_sample_weight,
    check_X_numeric,
    check_y,
    classes_and_codes,
    encode_labels,
    show,
)
from ..errors import ConvergenceError, ConvergenceWarning, DataError, InvalidParameterError
from ..stats.checks import check_shapes
from ..io.model_file import decode_params, encode_params, save_state
from .loss import Design, LogLoss
from ._scores import check_solver_range, checked_weights, log_proba_of_scores, scaled_scores, unscaled
from . import _solvers
from ._nb_start import nb_start
from .transforms import transform_from_state

__all__ = ["LogisticRegression"]


class LogisticRegression(Classifier):
    """Binary and multinomial logistic regression with an L2 penalty.

    Minimises ``sum_i w_i log-loss_i + ||W||^2 / (2 C)`` (intercept not penalised; for more than
    two classes every class keeps its own coefficient vector, scikit-learn's symmetric form), so
    ``coef_`` and ``intercept_`` equal scikit-learn's ``LogisticRegression`` at the optimum.

    Parameters
    ----------
    C : float > 0
        Inverse penalty strength (the prior variance of each coefficient).
    fit_intercept : bool
    solver : "newton" or "lbfgs"
        "newton": trust-region Newton-CG with exact Hessian-vector products (LIBLINEAR's
        method); "lbfgs": SciPy's L-BFGS-B. Both stop when the largest gradient entry falls below
        ``tol`` times its value at zero coefficients.
    tol : float > 0
    max_iter : int >= 1
        Outer iterations; reaching it before ``tol`` warns with ``nbayes.errors.ConvergenceWarning``.
    class_weight : None, "balanced" or dict label -> weight
        Multiplies each row's ``sample_weight`` (scikit-learn's semantics).
    warm_start : bool
        Start ``fit`` from the current coefficients when the classes and features agree.
    init : "zeros", "nb" or a fitted Naive Bayes model with ``to_logistic()``
        "nb" starts from the Naive Bayes model of the same data (MultinomialNB for non-negative
        X, GaussianNB with a shared variance otherwise): the generative solution of chapter 002
        section 3.1 as the first guess. The optimum does not depend on the start.
    learning_rate, batch_size, random_state
        Mini-batch AdaGrad for ``partial_fit``: base step, rows per step, and the seed of the
        order in which a chunk's rows are visited.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import LogisticRegression
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> model = LogisticRegression(C=10.0).fit(X, ["no", "no", "yes", "yes"])
    >>> model.predict([[0.2], [2.8]]).tolist()
    ['no', 'yes']
    """

    _accepts_sparse = True
    _allows_nan = False

    _capabilities = frozenset({"online", "sparse", "sample_weight", "save", "logistic", "explain"})

    #: partial_fit's AdaGrad state (accumulated squared gradients, rows seen, steps)
    _sgd: dict[str, Any]
    #: to_logistic() of a Bernoulli / categorical model: the map its raw input goes through
    input_transform_: Any

    def __init__(
        self,
        *,
        C: float = 1.0,
        fit_intercept: bool = True,
        solver: str = "newton",
        tol: float = 1e-4,
        max_iter: int = 100,
        class_weight: Any = None,
        warm_start: bool = False,
        init: Any = "zeros",
        learning_rate: float = 0.1,
        batch_size: int = 256,
        random_state: int | None = None,
    ) -> None:
        self.C = C
        self.fit_intercept = fit_intercept
        self.solver = solver
        self.tol = tol
        self.max_iter = max_iter
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.init = init
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def check_params(self) -> None:
        """Raise :class:`~nbayes.errors.InvalidParameterError` for a hyperparameter out of range."""
        check_number("C", self.C, low=0.0, low_open=True)
        if not np.isfinite(self.C):
            raise InvalidParameterError("parameter 'C' must be finite (C = inf is no penalty)")
        check_choice("fit_intercept", self.fit_intercept, [True, False])
        check_choice("solver", self.solver, ["newton", "lbfgs"])
        check_number("tol", self.tol, low=0.0, low_open=True)
        check_number("max_iter", self.max_iter, low=1, integer=True)
        check_choice("warm_start", self.warm_start, [True, False])
        check_number("learning_rate", self.learning_rate, low=0.0, low_open=True)
        check_number("batch_size", self.batch_size, low=1, integer=True)
        if not (isinstance(self.init, str) and self.init in ("zeros", "nb")) and not hasattr(
            self.init, "to_logistic"
        ):
            raise InvalidParameterError(
                "parameter 'init' must be 'zeros', 'nb' or a fitted Naive Bayes model with "
                f"to_logistic(); got {self.init!r}"
            )
        cw = self.class_weight
        if not (cw is None or cw == "balanced" or isinstance(cw, dict)):
            raise InvalidParameterError(
                f"parameter 'class_weight' must be None, 'balanced' or a dict label -> weight; got {cw!r}"
            )

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        """``(X, names)``: the input validated (through ``input_transform_`` when the model has one), and its
        column names."""
        transform = getattr(self, "input_transform_", None)
        if transform is not None:
            return transform.transform(X), None
        fitted = not fitting and hasattr(self, "coef_")
        return check_X_numeric(
            X,
            allow_nan=False,
            n_features=self.n_features_in_ if fitted or (fitting and self._warm()) else None,
            feature_names=getattr(self, "feature_names_in_", None) if fitted else None,
            model=type(self).__name__,
        )

    def _warm(self) -> bool:
        return bool(self.warm_start) and hasattr(self, "coef_")

    def _weights(self, y_codes: np.ndarray, classes: np.ndarray, sample_weight: Any, n: int) -> np.ndarray:
        w = check_sample_weight(sample_weight, n)
        w = np.ones(n) if w is None else w.copy()
        cw = self.class_weight
        if cw is None:
            return w
        if cw == "balanced":
            counts = np.bincount(y_codes, minlength=len(classes)).astype(float)
            per_class = n / (len(classes) * np.maximum(counts, 1.0))
        else:
            per_class = np.ones(len(classes))
            for label, value in cw.items():
                codes, unknown = encode_labels(np.asarray([label], dtype=classes.dtype if classes.dtype.kind != "U" else object), classes)
                if unknown[0]:
                    raise InvalidParameterError(
                        f"class_weight names class {label!r}, which is not among the classes "
                        f"{classes.tolist()}"
                    )
                check_number(f"class_weight[{label!r}]", value, low=0.0)
                per_class[codes[0]] = value
        weighted: np.ndarray = w * per_class[y_codes]
        return weighted

    # ------------------------------------------------------------------ training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "LogisticRegression":
        """Fit to the optimum of the penalised log-likelihood on all of (X, y)."""
        self.check_params()
        Xv, names = self.prepare_input(X, fitting=True)
        y = check_y(y, Xv.shape[0])
        classes, codes = classes_and_codes(y)
        if len(classes) < 2:
            raise DataError(
                f"y: logistic regression needs at least 2 classes, but the data has only one class: "
                f"{show(classes[0])}"
            )
        weights = self._weights(codes, classes, sample_weight, Xv.shape[0])
        if not np.any(weights > 0):
            raise DataError("sample_weight: the weights sum to zero; nothing to learn from")
        check_solver_range(Xv)
        unit, C, scale = checked_weights(weights, float(self.C))  # same optimum, weights <= 1
        loss = LogLoss(Design(Xv), codes, len(classes), unit, C, bool(self.fit_intercept))
        theta0 = self._start(loss, Xv, y, classes, sample_weight)
        res = minimise(loss, theta0, solver=self.solver, tol=float(self.tol), max_iter=int(self.max_iter), stacklevel=3)
        W, b = loss.split(res.theta)
        self.set_coefficients(W, b, classes, Xv.shape[1], names)
        self.n_iter_ = np.array([res.n_iter])
        self._n_seen = float(weights.sum())
        if hasattr(self, "_sgd"):
            del self._sgd
        # the solver's objective is the weighted one divided by the weights' scale
        self.objective_ = float(res.f) * scale
        self.objective_trace_ = [float(f) * scale for f in res.trace]
        return self

    def _start(self, loss: LogLoss, Xv: Any, y: np.ndarray, classes: np.ndarray, sample_weight: Any) -> np.ndarray:
        if self._warm() and np.array_equal(self.classes_, classes) and self.coef_.shape[1] == loss.design.d:
            return loss.join(self.coef_.T.copy(), self.intercept_.copy() if self.fit_intercept else np.zeros(0))
        if isinstance(self.init, str) and self.init == "zeros":
            return np.zeros(loss.size)
        if isinstance(self.init, str):  # "nb": the generative model of the same data
            _, codes = classes_and_codes(y)
            coef, intercept = nb_start(Xv, codes, len(classes), check_sample_weight(sample_weight, len(y)))
        else:
            lr = self.init.to_logistic()
            if not np.array_equal(np.asarray(lr.classes_), classes) or lr.coef_.shape[1] != loss.design.d:
                raise InvalidParameterError(
                    "parameter 'init': the Naive Bayes model has other classes or features than "
                    "the data given to fit"
                )
            coef, intercept = lr.coef_, lr.intercept_
        b = intercept if self.fit_intercept else np.zeros(0)
        return loss.join(np.ascontiguousarray(coef.T), np.asarray(b, dtype=float))

    def set_coefficients(self, W: np.ndarray, b: np.ndarray, classes: np.ndarray, d: int, names: list[str] | None) -> None:
        """Make this model the fitted one with weights ``W`` (d x K, or d x 1 for two classes)
        and intercepts ``b`` for ``classes`` over ``d`` features named ``names``: the intercepts
        centred (softmax is shift-invariant), non-finite weights refused (ConvergenceError).
        Solvers elsewhere (:mod:`nbayes.dask`'s distributed one) finish a fit through it."""
        coef = np.ascontiguousarray(W.T)
        intercept = np.asarray(b, dtype=float).copy() if self.fit_intercept else np.zeros(coef.shape[0])
        if coef.shape[0] > 1 and self.fit_intercept:
            intercept -= intercept.mean()  # softmax is shift-invariant; sum-zero as scikit-learn
        if not (np.all(np.isfinite(coef)) and np.all(np.isfinite(intercept))):
            raise ConvergenceError("the coefficients became non-finite; standardise X or lower C")
        self.coef_ = coef
        self.intercept_ = intercept
        self.classes_ = classes
        self.n_features_in_ = d
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def partial_fit(
        self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None
    ) -> "LogisticRegression":
        """One pass of mini-batch stochastic gradient (AdaGrad steps) over a chunk of a stream.

        The objective is the same as ``fit``'s, per row: mean log-loss + ||W||^2 / (2 C n) with n
        the weight seen so far. ``classes`` (every label the stream will carry) is required on
        the first call. A chunk that fails validation or diverges leaves the model unchanged.
        """
        self.check_params()
        first = not hasattr(self, "coef_")
        if first and classes is None:
            raise DataError("partial_fit: pass classes=[...] (every label of the stream) on the first call")
        if classes is not None:
            cls, _ = classes_and_codes(check_y(classes, len(classes)))
            if len(cls) < 2:
                raise DataError("partial_fit: classes must name at least 2 classes")
            if not first and not np.array_equal(cls, self.classes_):
                raise DataError(
                    f"partial_fit: classes {cls.tolist()} differ from those of the first call "
                    f"{self.classes_.tolist()}"
                )
        else:
            cls = self.classes_
        Xv, names = self.prepare_input(X, fitting=first)
        if not first and Xv.shape[1] != self.n_features_in_:
            raise DataError(f"X has {Xv.shape[1]} features, but the model was started with {self.n_features_in_}")
        y = check_y(y, Xv.shape[0])
        codes, unknown = encode_labels(y, cls)
        if unknown.any():
            i = int(np.argmax(unknown))
            raise DataError(f"y: row {i} has label {show(y[i])}, not among classes {cls.tolist()}")
        weights = self._weights(codes, cls, sample_weight, Xv.shape[0])
        loss = LogLoss(Design(Xv), codes, len(cls), weights, float(self.C), bool(self.fit_intercept))
        if first:
            theta = np.zeros(loss.size)
            state = {"h": np.zeros(loss.size), "seen": 0.0, "step": 0}
        else:
            theta = loss.join(self.coef_.T.copy(), self.intercept_.copy() if self.fit_intercept else np.zeros(0))
            if hasattr(self, "_sgd"):
                state = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in self._sgd.items()}
            else:  # continuing a model trained by fit: its rows count as seen
                seen = float(getattr(self, "_n_seen", 0.0))
                state = {"h": np.zeros(loss.size), "seen": seen, "step": 0}
        theta = _adagrad(loss, Xv, codes, weights, theta, state, self)
        W, b = loss.split(theta)
        self.set_coefficients(W, b, cls, Xv.shape[1], names if first else self.input_feature_names())
        self._sgd = state
        self.n_iter_ = np.array([state["step"]])
        return self

    # ------------------------------------------------------------------ inference
    def decision_function(self, X: Any) -> np.ndarray:
        """x W^T + b: (n,) for two classes (the log-odds of classes_[1]), else (n, K)."""
        self.check_fitted()
        Z, k = self._scaled_scores(X)
        return unscaled(Z, k)

    def _scaled_scores(self, X: Any) -> tuple[np.ndarray, int]:
        """(Z, k): the scores are Z * 2**k, Z finite where the true scores are (linear._scores)."""
        self.check_fitted()
        Xv, _ = self.prepare_input(X, fitting=False)
        Z, k = scaled_scores(Xv, self.coef_, self.intercept_)
        return (Z[:, 0] if Z.shape[1] == 1 else Z), k

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """log P(y | x) by log-softmax (log-sigmoid for two classes), never log of a rounded 0."""
        return log_proba_of_scores(*self._scaled_scores(X))

    def explain(self, X: Any) -> Explanation:
        """Each feature's additive term of each class's score, per row:
        ``contributions[i, k, j] = coef_[k, j] * x[i, j]`` (x as the model reads it) and
        ``intercept[k] = intercept_[k]``, so ``explain(X).joint()`` is the decision function
        (two classes: class 0's score 0, class 1's the log-odds). The scores differ from
        ``predict_log_proba`` by a constant per row, so ``log_odds(i)`` gives the log-odds of
        the predicted class against the runner-up, term by term. Dense: n x K x d floats.
        A term that overflows (|x| near the float limit) is inf or NaN, never clipped.

        >>> from nbayes import LogisticRegression
        >>> m = LogisticRegression().fit([[0.0, 1.0], [1.0, 0.0], [0.2, 0.9], [0.9, 0.1]], ["a", "b", "a", "b"])
        >>> e = m.explain([[1.0, 0.0]])
        >>> bool(abs(e.joint()[0, 1] - e.joint()[0, 0] - m.decision_function([[1.0, 0.0]])[0]) < 1e-12)
        True
        """
        self.check_fitted()
        Xv, _ = self.prepare_input(X, fitting=False)
        A = np.asarray(Xv.toarray() if sp.issparse(Xv) else Xv, dtype=np.float64)
        W, b = np.asarray(self.coef_, dtype=np.float64), np.asarray(self.intercept_, dtype=np.float64)
        if W.shape[0] == 1:  # two classes: class 0 scores 0, class 1 the log-odds
            W, b = np.vstack([np.zeros_like(W), W]), np.concatenate([[0.0], b])
        with np.errstate(over="ignore", invalid="ignore"):
            contributions = A[:, None, :] * W[None, :, :]
        names = self.input_feature_names()
        if names is None or len(names) != A.shape[1]:
            names = [f"x{j}" for j in range(A.shape[1])]
        return Explanation(contributions, b, self.classes_, names)

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row."""
        Z = self.decision_function(X)
        best = (Z > 0).astype(int) if Z.ndim == 1 else np.argmax(Z, axis=1)
        labels: np.ndarray = self.classes_[best]
        return labels

    # ------------------------------------------------------------------ model files
    def save(self, path: Any) -> None:
        """Write the model to ``path`` (atomically, no pickle); read it with :func:`nbayes.load`."""
        self.check_fitted()
        save_state(path, self.to_state(), rebuild(self))

    def to_state(self) -> dict[str, Any]:
        """The model as the state of a model file (``save`` writes it)."""
        params = self.get_params()
        init = params.pop("init")
        params["init"] = init if isinstance(init, str) else "zeros"
        params, arrays = encode_params(params)
        if isinstance(self.class_weight, dict):
            params["class_weight"] = "dict"
            arrays["class_weight/labels"] = _label_array(list(self.class_weight))
            arrays["class_weight/values"] = np.asarray(list(self.class_weight.values()), dtype=float)
        arrays.update(classes=self.classes_, coef=self.coef_, intercept=self.intercept_)
        transform = getattr(self, "input_transform_", None)
        meta: dict[str, Any] = {
            "n_features_in": int(self.n_features_in_),
            "feature_names": self.input_feature_names(),
            "transform": None,
        }
        if transform is not None:
            meta["transform"], t_arrays = transform.to_state()
            arrays.update({f"transform/{k}": v for k, v in t_arrays.items()})
        return {"kind": type(self).__name__, "params": params, "meta": meta, "arrays": arrays}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "LogisticRegression":
        """The model of a model-file state (the inverse of ``to_state``)."""
        arrays = state["arrays"]
        params = decode_params(state["params"], arrays)
        if params.get("class_weight") == "dict":
            labels = arrays["class_weight/labels"].tolist()
            params["class_weight"] = dict(zip(labels, arrays["class_weight/values"].tolist()))
        model = cls(**params)
        meta = state["meta"]
        classes = arrays["classes"]
        K = len(classes)
        rows = 1 if K == 2 else K
        transform = None
        if meta.get("transform") is not None:
            t_arrays = {k[len("transform/"):]: v for k, v in arrays.items() if k.startswith("transform/")}
            transform = transform_from_state(meta["transform"], t_arrays)
        width = getattr(transform, "n_outputs", int(meta["n_features_in"]))  # a one-hot map widens the input
        check_shapes(arrays, {"coef": (rows, width), "intercept": (rows,)})
        coef = np.asarray(arrays["coef"], dtype=float)
        intercept = np.asarray(arrays["intercept"], dtype=float)
        model.coef_, model.intercept_, model.classes_ = coef, intercept, classes
        model.n_features_in_ = int(meta["n_features_in"])
        if meta.get("feature_names") is not None:
            model.feature_names_in_ = np.asarray(meta["feature_names"], dtype=object)
        if transform is not None:
            model.input_transform_ = transform
        return model


# ---------------------------------------------------------------------------- helpers
def minimise(loss: LogLoss, theta0: np.ndarray, *, solver: str = "newton", tol: float = 1e-4, max_iter: int = 100,
             stacklevel: int = 2) -> Any:
    """The solver's result (``_solvers.Result``) for ``loss`` from ``theta0``, warning with
    :class:`~nbayes.errors.ConvergenceWarning` when ``max_iter`` stopped it before ``tol``. The
    defaults are :class:`LogisticRegression`'s; models that build their own data (the
    NB-weighted logistic regression's scaled presence) fit through it."""
    solve = {"newton": _solvers.newton, "lbfgs": _solvers.lbfgs}[solver]
    res = solve(loss, theta0, tol, max_iter)
    if not res.converged:
        warnings.warn(
            f"{solver} stopped after max_iter={max_iter} iterations with the largest "
            f"gradient entry at {res.grad_max:.3g}, above tol; raise max_iter or C's penalty, "
            "or standardise X",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )
    return res


def _label_array(labels: list[Any]) -> np.ndarray:
    arr = np.asarray(labels)
    if arr.dtype.kind not in "biufU":
        arr = np.empty(len(labels), dtype=object)
        arr[:] = labels
    return arr


def _adagrad(
    loss: LogLoss, Xv: Any, codes: np.ndarray, weights: np.ndarray, theta: np.ndarray,
    state: dict[str, Any], model: LogisticRegression,
) -> np.ndarray:
    """One shuffled pass of mini-batch AdaGrad over a chunk (Duchi, Hazan & Singer 2011).

    Each step follows the gradient of the per-row objective  sum_B w_i loss_i / |B| +
    ||W||^2 / (2 C n_seen), with per-coordinate steps learning_rate / sqrt(sum of squared
    gradients); the update of chapter 002 eqs. 26 and 29 with adaptive eta.
    """
    n = Xv.shape[0]
    rng = np.random.default_rng(
        None if model.random_state is None else [int(model.random_state), int(state["step"])]
    )
    order = rng.permutation(n)
    bs = int(model.batch_size)
    seen = float(state["seen"]) + float(weights.sum())
    h = state["h"]
    d, K = loss.design.d, loss.K
    lr = float(model.learning_rate)
    with np.errstate(over="ignore", invalid="ignore"):  # non-finite values are caught below
        for start in range(0, n, bs):
            rows = np.sort(order[start : start + bs])
            sub = LogLoss(
                Design(Xv[rows]), codes[rows], 2 if K == 1 else K, weights[rows], np.inf, loss.fit_intercept
            )
            f, g = sub.value_grad(theta)
            g /= len(rows)
            g[: d * K] += theta[: d * K] / (float(model.C) * seen)
            h += g * g
            theta = theta - lr * g / (np.sqrt(h) + 1e-10)
            if not (np.isfinite(f) and np.all(np.isfinite(theta))):
                raise ConvergenceError(
                    "partial_fit diverged (the coefficients became non-finite); lower "
                    "learning_rate or standardise X; the model is unchanged"
                )
            state["step"] += 1
    state["seen"] = seen
    return theta
