"""Gaussian Naive Bayes: a mean and a variance per class and feature (chapter 002, slides 003)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels import threads
from .._kernels.gaussian import joint_log_likelihood, moments
from .._validation import check_choice, check_number, check_probability_vector, check_X_numeric, show
from ..errors import DataError, InvalidParameterError, ModelFileError
from ..stats import MomentStats
from ..stats.moments import overflow_error
from ._base import BaseNB
from ._magnitudes import estimate_checked
from .params import Params, fitted

VARIANCES = ("class_feature", "feature", "class", "pooled")
#: the parameter dtypes a model file may record (float64 is the default, never recorded)
_FLOAT_NAMES = frozenset({"float16", "float32", "longdouble"})


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class GaussianSettings:
    """What Gaussian estimation reads: GaussianNB's settings, the labels of the statistics
    (``priors`` given as a mapping) and the float dtype of the exposed parameters."""

    var_smoothing: float = 1e-9
    variance: str = "class_feature"
    ddof: int = 0
    mean_prior: Any = None
    mean_prior_strength: float = 0.0
    priors: Any = None
    classes: Any = None
    dtype: np.dtype = np.dtype(np.float64)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class GaussianParams(Params):
    """:class:`~nbayes.naive_bayes.GaussianNB`'s parameters (float64; ``dtype`` the float dtype
    its attributes show them in): ``theta``, ``var`` : ndarray of shape (n_classes,
    n_features); ``epsilon`` the variance floor; ``class_prior`` : ndarray of shape
    (n_classes,); ``prec`` = 1 / (2 var) and ``lognorm`` = -log(2 pi var) / 2, what the kernel
    reads; with the prior part (``intercept`` = ``class_log_prior`` = log ``class_prior``)."""

    theta: np.ndarray
    var: np.ndarray
    epsilon: float
    class_prior: np.ndarray
    prec: np.ndarray
    lognorm: np.ndarray
    dtype: np.dtype = np.dtype(np.float64)


def estimate(stats: MomentStats, s: GaussianSettings) -> GaussianParams:
    """Gaussian parameters of ``stats``: the class means (chapter 002 eq. 13, or the MAP mean
    (kappa0 mu0 + W xbar) / (kappa0 + W) of slides 003), the (tied) variances (eq. 14, or eq. 15
    with ``ddof=1``) plus epsilon = ``var_smoothing`` x the largest per-feature variance of all
    data seen, and the class prior (eq. 8, or ``priors``)."""
    K, d = stats.weight.shape
    # epsilon: var_smoothing x the largest per-feature variance of all data seen
    w_all, mean_all, m2_all = stats.pooled()
    var_all = m2_all / np.where(w_all > 0, w_all, 1.0)
    largest = float(np.max(var_all)) if d else 0.0
    # every feature constant so far (e.g. one row): the floor is var_smoothing itself,
    # where scikit-learn would divide by a zero variance
    epsilon = s.var_smoothing * (largest if largest > 0 else 1.0)
    var = _tied_variance(stats, s.variance, s.ddof) + epsilon
    if np.any(var <= 0):
        c, j = np.argwhere(var <= 0)[0]
        raise DataError(
            f"GaussianNB: column {j} has zero variance in class index {c} and "
            "var_smoothing=0 leaves it at 0; set var_smoothing > 0"
        )
    theta = stats.mean.copy()  # (the value owns its arrays: the statistics' stay writable)
    if s.mean_prior_strength > 0:
        kappa = s.mean_prior_strength
        mu0 = mean_all if s.mean_prior is None else _per_feature("mean_prior", s.mean_prior, d)
        theta = (kappa * mu0 + stats.weight * stats.mean) / (kappa + stats.weight)
    priors = class_priors(s.priors, stats.class_count, s.classes)
    with np.errstate(divide="ignore"):
        log_prior = np.log(priors)
    return GaussianParams(
        theta=theta, var=var, epsilon=epsilon, class_prior=np.array(priors, dtype=np.float64), prec=0.5 / var,
        lognorm=-0.5 * np.log(2.0 * np.pi * var), dtype=s.dtype, class_log_prior=log_prior, intercept=log_prior,
    )


class GaussianNB(BaseNB):
    """Naive Bayes with P(x_j | y = c) = N(mu_cj, sigma^2), estimated from weighted moments.

    mu_cj is the class mean (eq. 13 of chapter 002), or with a Normal prior on the means
    (``mean_prior_strength`` = kappa0 > 0, slides 003) the MAP mean
    (kappa0 mu0 + W xbar) / (kappa0 + W), mu0 = ``mean_prior`` (default: the feature's overall
    mean). The variance is the MLE (``ddof=0``, eq. 14) or unbiased (``ddof=1``, eq. 15) and can
    be tied (slides 003) across nothing (``"class_feature"``), classes (``"feature"``), features
    (``"class"``) or both (``"pooled"``): a tied variance divides the summed centred sums of
    squares of its cells by their summed (weight - ddof). Every variance gets
    ``var_smoothing`` x the largest per-feature variance of all data seen (scikit-learn's
    epsilon, computed from the merged statistics, so ``partial_fit`` equals ``fit``). Missing
    values (NaN) are left out of the moments and of the product.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weight of the training rows of each class.
    class_prior_ : ndarray of shape (n_classes,)
        P(c): the class frequencies, or ``priors``.
    theta_ : ndarray of shape (n_classes, n_features)
        The mean of each feature per class.
    var_ : ndarray of shape (n_classes, n_features)
        The variance of each feature per class, ``epsilon_`` included.
    epsilon_ : float
        The variance floor: ``var_smoothing`` x the largest per-feature variance.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        The column names seen during fit, when the input had names.
    stats_ : MomentStats
        The sufficient statistics (what ``merge``, ``unlearn`` and model files hold).
    params_ : GaussianParams
        The fitted parameters as a read-only value, ``estimate(stats_, settings)``.

    >>> import numpy as np
    >>> X = np.array([[1.0], [3.0], [10.0], [14.0]])
    >>> model = GaussianNB(var_smoothing=0.0).fit(X, ["a", "a", "b", "b"])
    >>> model.theta_.ravel().tolist(), model.var_.ravel().tolist()   # eq. 13, eq. 14
    ([2.0, 12.0], [1.0, 4.0])
    >>> GaussianNB(var_smoothing=0.0, ddof=1).fit(X, ["a", "a", "b", "b"]).var_.ravel().tolist()
    [2.0, 8.0]
    >>> m = GaussianNB().fit(X, ["a", "a", "b", "b"])   # the arithmetic of the floor
    >>> bool(m.epsilon_ == 1e-9 * X.var()), m.var_.ravel().tolist() == [1.0 + m.epsilon_, 4.0 + m.epsilon_]
    (True, True)
    """

    _accepts_sparse = False
    _allows_nan = True

    _capabilities = BaseNB._capabilities | {"missing_values", "per_class"}

    stats_: MomentStats  # set by set_statistics
    params_: GaussianParams  # set by set_statistics, with stats_

    # the float64 parameters predict; the exposed ones are in the data's float dtype
    @property
    def theta_(self) -> np.ndarray:
        """ndarray of shape (n_classes, n_features): the mean of each feature per class."""
        p = self.params_
        return p.theta.astype(p.dtype, copy=False)

    @property
    def var_(self) -> np.ndarray:
        """ndarray of shape (n_classes, n_features): the variance of each feature per class (epsilon included)."""
        p = self.params_
        return p.var.astype(p.dtype, copy=False)

    @property
    def class_prior_(self) -> np.ndarray:
        """ndarray of shape (n_classes,): the probability of each class."""
        p = self.params_
        return p.class_prior.astype(p.dtype, copy=False)

    epsilon_ = fitted("epsilon", "float: the variance floor added to every variance.")
    _intercept = fitted("intercept", "log P(c).")
    _theta = fitted("theta", "The means in float64.")
    _var = fitted("var", "The variances in float64.")
    _prec = fitted("prec", "1 / (2 var).")
    _lognorm = fitted("lognorm", "-log(2 pi var) / 2.")

    @property
    def capabilities(self) -> frozenset[str]:
        caps = super().capabilities
        # a class-dependent variance puts x^2 terms in the log-odds: no logistic twin
        return caps if self.variance in ("feature", "pooled") else caps - {"to_logistic"}

    def __init__(
        self,
        *,
        priors: Any = None,
        var_smoothing: float = 1e-9,
        variance: str = "class_feature",
        ddof: int = 0,
        mean_prior: Any = None,
        mean_prior_strength: float = 0.0,
    ) -> None:
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.variance = variance
        self.ddof = ddof
        self.mean_prior = mean_prior
        self.mean_prior_strength = mean_prior_strength

    def check_params(self) -> None:
        check_number("var_smoothing", self.var_smoothing, low=0.0)
        check_choice("variance", self.variance, VARIANCES)
        check_choice("ddof", self.ddof, (0, 1))
        check_number("mean_prior_strength", self.mean_prior_strength, low=0.0)
        if self.mean_prior is not None and np.ndim(self.mean_prior) > 1:
            raise InvalidParameterError("parameter 'mean_prior' must be a number or a 1-D array")

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        # inf is found inside the kernels' own pass (no extra pass over X)
        return check_X_numeric(
            X,
            allow_nan=True,
            allow_sparse=False,
            check_finite=False,
            n_features=None if fitting else self.n_features_in_,
            feature_names=None if fitting else self.input_feature_names(),
            model=type(self).__name__,
        )

    # ------------------------------------------------------------------ parameter dtype
    def _fit_supervised(self, X: Any, y: Any = None, sample_weight: Any = None) -> "GaussianNB":
        self.__dict__["_incoming_dtype"] = float_dtype(X)  # read by _estimate, then dropped
        try:
            super()._fit_supervised(X, y, sample_weight)
        finally:
            self.__dict__.pop("_incoming_dtype", None)
        return self

    def partial_fit(
        self, X: Any, y: Any = None, classes: Any = None, sample_weight: Any = None
    ) -> "GaussianNB":
        dtype = float_dtype(X)
        if "params_" in self.__dict__:  # float32 only while every chunk so far was float32
            dtype = np.promote_types(_dtype_of(self), dtype)
        self.__dict__["_incoming_dtype"] = dtype
        try:
            super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        finally:
            self.__dict__.pop("_incoming_dtype", None)
        return self

    partial_fit.__doc__ = BaseNB.partial_fit.__doc__

    def _new_like(self, other: BaseNB) -> "GaussianNB":
        new = super()._new_like(other)
        new.__dict__["_dtype"] = np.promote_types(_dtype_of(self), _dtype_of(other))
        return new

    @property
    def class_count_(self) -> np.ndarray:
        """Weight of training rows per class (in the parameters' dtype)."""
        return self.stats_.class_count.astype(_dtype_of(self), copy=False)

    def to_state(self) -> dict[str, Any]:
        state = super().to_state()
        dtype = _dtype_of(self)
        if dtype != np.float64:
            state["meta"]["dtype"] = "longdouble" if dtype == np.longdouble else str(dtype)
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "GaussianNB":
        model = super().from_state(state)
        dtype = state["meta"].get("dtype")
        if dtype is not None:
            if dtype not in _FLOAT_NAMES:
                raise ModelFileError(
                    f"meta 'dtype' is {dtype!r}; expected one of {sorted(_FLOAT_NAMES)} (or absent: float64)"
                )
            model.__dict__["_dtype"] = np.dtype(dtype)
            model._set_derived(estimate_checked(model, model.stats_, model.n_features_in_))
            del model.__dict__["_dtype"]  # (the parameters hold it now)
        return model

    # ------------------------------------------------------------------ statistics
    def count_statistics(self, Xv: Any, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> MomentStats:

        y = np.ascontiguousarray(codes)
        has_w = w is not None
        cc, W, mu, m2, bad = moments(Xv, y, w if has_w else np.empty(0), has_w, n_classes, threads())
        if bad >= 0:
            _raise_inf(Xv, bad)
        if not (np.isfinite(mu).all() and np.isfinite(m2).all()):  # past float64: the row and column
            overflow_error(Xv, y, mu, m2, cc)
        return MomentStats(cc, W, mu, m2)

    def estimation_settings(self, n_features: int) -> GaussianSettings:
        """What :func:`estimate` reads from this model (the parameters' float dtype: that of
        the data, or of the model file or merge being made)."""
        d = self.__dict__
        return GaussianSettings(
            var_smoothing=float(self.var_smoothing), variance=self.variance, ddof=int(self.ddof),
            mean_prior=self.mean_prior, mean_prior_strength=float(self.mean_prior_strength), priors=self.priors,
            classes=self._estimation_classes, dtype=np.dtype(d.get("_incoming_dtype", _dtype_of(self))),
        )

    def estimate_parameters(self, stats: MomentStats, n_features: int) -> GaussianParams:
        return estimate(stats, self.estimation_settings(n_features))

    def set_statistics(self, stats: Any, classes: np.ndarray, n_features: int, names: list[str] | None) -> None:
        super().set_statistics(stats, classes, n_features, names)
        self.__dict__.pop("_dtype", None)  # (a dtype asked for by a merge or a file): the parameters hold it now

    def _priors(self, class_count: np.ndarray) -> np.ndarray:
        return class_priors(self.priors, class_count, self._estimation_classes)

    def _linear_form(self) -> tuple[np.ndarray, np.ndarray, Any]:
        """log N(x; mu_c, sigma^2) = x mu_c / sigma^2 - mu_c^2 / (2 sigma^2) + (terms free of c)
        when sigma does not depend on the class (chapter 002 section 3.1)."""
        var = self._var
        if not np.all(var == var[:1]):
            raise InvalidParameterError(
                f"to_logistic: the variances depend on the class (variance={self.variance!r}), so "
                "the log-odds have x^2 terms: the boundary is quadratic and no logistic model on x "
                "has these probabilities. Fit with variance='feature' or 'pooled' for a linear one"
            )
        W = self._theta / var
        b = self._intercept - 0.5 * np.sum(self._theta * W, axis=1)
        return W, b, None

    def joint_log_likelihood(self, Xv: Any) -> np.ndarray:
        return self._gaussian(Xv, self._intercept)

    def log_likelihood(self, Xv: Any) -> np.ndarray:
        return self._gaussian(Xv, np.zeros_like(self._intercept))

    def _gaussian(self, Xv: np.ndarray, intercept: np.ndarray) -> np.ndarray:

        out: np.ndarray
        out, bad = joint_log_likelihood(Xv, self._theta, self._prec, self._lognorm, intercept, threads())
        if bad >= 0:
            _raise_inf(Xv, bad)
        return out

    def feature_terms(self, Xv: Any) -> np.ndarray:
        if np.isinf(Xv).any():
            _raise_inf(Xv, int(np.argmax(np.isinf(Xv).any(axis=1))))
        with np.errstate(over="ignore"):  # |x| near the float limit: the square is inf, the term -inf (density 0)
            terms = self._lognorm[None] - self._prec[None] * (Xv[:, None, :] - self._theta[None]) ** 2
        observed: np.ndarray = np.where(np.isnan(Xv)[:, None, :], 0.0, terms)
        return observed

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        """|mu_c - mu_(not c)| / sigma_j, sigma_j the within-class (pooled) standard deviation."""
        s = self.stats_
        w = s.weight
        tot_w = w.sum(axis=0)
        tot = (w * s.mean).sum(axis=0)
        rest_w = tot_w - w
        mu_rest = np.where(rest_w > 0, (tot - w * s.mean) / np.where(rest_w > 0, rest_w, 1), s.mean)
        sigma = np.sqrt(_tied_variance(s, "feature", 0) + self.epsilon_)
        sigma = np.broadcast_to(sigma, w.shape)
        return np.abs(self._theta - mu_rest) / sigma, self.display_feature_names()

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> MomentStats:
        return MomentStats.from_arrays(arrays)


def float_dtype(X: Any) -> np.dtype:
    """The float dtype of an array, or of a frame whose columns all have that one float dtype;
    float64 for anything else (integers, lists, mixed columns), as scikit-learn's GaussianNB."""
    dt = getattr(X, "dtype", None)
    if dt is None:
        dts = getattr(X, "dtypes", None)  # pandas (a Series of dtypes) or polars (a list)
        if dts is None:
            return np.dtype(np.float64)
        names = {str(t).lower() for t in (dts.tolist() if hasattr(dts, "tolist") else dts)}
        dt = names.pop() if len(names) == 1 else None
        if dt not in ("float16", "float32"):
            return np.dtype(np.float64)
    try:
        dt = np.dtype(dt)
    except TypeError:  # an extension dtype without a NumPy twin
        return np.dtype(np.float64)
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _dtype_of(model: Any) -> np.dtype:
    """The parameters' float dtype: asked for (a merge, a model file), else the fitted one."""
    d = model.__dict__
    dtype: np.dtype = np.dtype(d["_dtype"] if "_dtype" in d else d["params_"].dtype if "params_" in d else np.float64)
    return dtype


def _tied_variance(stats: MomentStats, variance: str, ddof: int) -> np.ndarray:
    """Sum of centred sums of squares over the tied cells / sum of their (weight - ddof)
    (CORRECTNESS.md). Cells with weight <= ddof contribute nothing (their variance is the floor
    alone when untied)."""
    W, S = stats.weight, stats.m2
    use = W > ddof
    den = np.where(use, W - ddof, 0.0)
    num = np.where(use, S, 0.0)
    axis = {"class_feature": None, "feature": 0, "class": 1, "pooled": (0, 1)}[variance]
    if axis is not None:
        num = num.sum(axis=axis, keepdims=True)
        den = den.sum(axis=axis, keepdims=True)
    var = num / np.where(den > 0, den, 1.0)
    return np.broadcast_to(var, W.shape).copy()


def _per_feature(name: str, value: Any, d: int) -> np.ndarray:
    if np.ndim(value) == 0:
        check_number(name, value)
        return np.full(d, float(value))
    arr = np.asarray(value, dtype=float)
    if arr.shape != (d,) or not np.all(np.isfinite(arr)):
        raise InvalidParameterError(f"parameter {name!r} must be a number or {d} finite values")
    return arr


def _raise_inf(X: np.ndarray, row: int) -> None:
    j = int(np.argmax(np.isinf(X[row])))
    raise DataError(
        f"X: row {row}, column {j} holds {show(X[row, j])}; expected a finite number or NaN for a "
        "missing value"
    )


def class_priors(priors: Any, class_count: np.ndarray, classes: Any = None) -> np.ndarray:
    """The given ``priors`` (checked: one per class in ``classes`` order, or a mapping from
    label to probability; summing to 1, as scikit-learn) or the class frequencies."""
    if priors is not None:
        labels = np.arange(len(class_count)) if classes is None else classes
        p = check_probability_vector("priors", priors, labels)
        if not np.isclose(p.sum(), 1.0):
            raise InvalidParameterError(f"parameter 'priors' must sum to 1, got {p.sum()!r}")
        return p
    frequencies: np.ndarray = class_count / class_count.sum()
    return frequencies
