"""The :class:`GaussianBayes` estimator: fit by class moments, predict by Bayes' rule in logs."""

from __future__ import annotations

from collections.abc import Mapping

from typing import Any

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from .._estimator import Generative, rebuild
from .._validation import (
    check_choice,
    check_number,
    check_sample_weight,
    check_vector_param,
    check_X_numeric,
    check_y,
    classes_and_codes,
    first_bad,
    show,
)
from ..errors import DataError, InvalidParameterError, StatisticsError
from ..stats.checks import check_shapes
from ..io.model_file import save_state
from ..naive_bayes.gaussian import class_priors
from .covariance import class_estimate, first_dependent, regularise

__all__ = ["GaussianBayes"]

COVARIANCES = ("class", "shared")

#: Without regularisation, a covariance is refused as singular when some feature keeps less than
#: this fraction of its variance once the features before it are accounted for (the squared
#: Cholesky pivot of the correlation matrix): beyond it the log-density would lose more than 10
#: of its 16 significant digits.
SINGULAR_TOL = 1e-10

_LOG_2PI = float(np.log(2.0 * np.pi))
_BLOCK = 1 << 15  # rows per block at prediction (bounds the d x block temporaries)


class GaussianBayes(Generative):
    """Bayes' rule with multivariate Normal class-conditionals, full covariance matrices.

    Each class c has a prior pi_c and P(x | y = c) = N(x; mu_c, Sigma_c) (notes 001). The
    estimates are the maximum-likelihood ones of notes 001: mu_c the (weighted) class mean,
    Sigma_c the *biased* covariance sum_i w_i (x_i - mu_c)(x_i - mu_c)^T / W_c (divided by the
    class weight W_c, not W_c - 1), as scikit-learn 1.9 does for both QDA and LDA.

    ``covariance="class"`` (default): one Sigma_c per class, a quadratic decision boundary;
    equals ``QuadraticDiscriminantAnalysis(reg_param=r)`` (``solver="svd"``), and
    ``QuadraticDiscriminantAnalysis(solver="eigen", shrinkage=s)``.
    ``covariance="shared"``: one pooled within-class Sigma = sum_c (W_c / W) Sigma_c (notes 001's
    Sigma-hat = 1/n sum_i (x_i - mu_(y_i))(x_i - mu_(y_i))^T), a linear boundary; equals
    ``LinearDiscriminantAnalysis(solver="lsqr", shrinkage=s)``. scikit-learn pools with the class
    priors, which are the class proportions unless ``priors`` is given: nbayes always pools
    with the class weights (the maximum-likelihood estimate), so with explicit ``priors`` the
    shared covariance differs from scikit-learn's.

    Regularisation, applied to each class's matrix (before pooling, as scikit-learn does), then
    ``reg_param``:

    * ``shrinkage=None``: the plain MLE; ``"auto"``: Ledoit-Wolf shrinkage computed on the
      standardised class data, then rescaled (scikit-learn's ``shrinkage="auto"``); a float s in
      [0, 1]: (1 - s) S + s mean(diag S) I. ``shrinkage_`` holds the intensity used per class.
    * ``reg_param`` r in [0, 1]: (1 - r) S + r I, scikit-learn QDA's ``reg_param`` (the identity is
      in the data's units).

    **Singular covariance.** Without regularisation (``shrinkage=None`` and ``reg_param=0``) a
    covariance that is singular, or so close that the log-density would lose more than 10 of its
    16 digits, is refused with a :class:`~nbayes.errors.DataError` naming the class, the column
    that is constant or a linear combination of the columns before it, and the fix
    (``shrinkage="auto"``, a float ``shrinkage`` or ``reg_param > 0``). No ridge is added
    silently: a tiny ridge would put the class on a needle-thin density and give extreme,
    meaningless probabilities. So without regularisation ``covariance="class"`` needs more rows
    per class than features, and ``"shared"`` more rows than classes (a single row per class has
    a zero covariance; with ``reg_param > 0`` it becomes ``reg_param`` I, as for that row repeated).

    **Missing values.** ``fit`` needs complete rows (estimating a full covariance from incomplete
    rows needs EM): NaN there is an error naming the row and column. At prediction a missing
    feature is marginalised exactly: the marginal of a Normal over the observed features is the
    Normal with the observed sub-vector of mu_c and sub-block of Sigma_c, factorised once per
    pattern of missing features. A row with every feature missing gets the class prior.

    Log-densities use the Cholesky factor Sigma = L L^T: log N(x; mu, Sigma) =
    -1/2 (d log 2 pi + 2 sum_j log L_jj + ||L^{-1} (x - mu)||^2), with x - mu formed per class
    (no expanded quadratic forms, no matrix inverse).

    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [1, 1], [2, 0], [1, -1], [6, 6], [7, 8], [8, 6], [7, 4]])
    >>> y = ["a", "a", "a", "a", "b", "b", "b", "b"]
    >>> model = GaussianBayes().fit(X, y)
    >>> model.means_.tolist()
    [[1.0, 0.0], [7.0, 6.0]]
    >>> model.covariance_.tolist()   # MLE: divided by each class's 4 rows
    [[[0.5, 0.0], [0.0, 0.5]], [[0.5, 0.0], [0.0, 2.0]]]
    >>> model.predict([[1.5, 0.5], [6.5, 5.0]]).tolist()
    ['a', 'b']
    >>> GaussianBayes(covariance="shared").fit(X, y).covariance_.tolist()
    [[0.5, 0.0], [0.0, 1.25]]
    >>> model.predict([[7.0, np.nan]]).tolist()   # the second feature is marginalised
    ['b']
    """

    _accepts_sparse = False
    _allows_nan = False  # fit needs complete rows (prediction marginalises NaN)

    _capabilities = frozenset({"joint_log_proba", "missing_values", "sample_weight", "save"})

    def __init__(
        self,
        *,
        covariance: str = "class",
        shrinkage: Any = None,
        reg_param: float = 0.0,
        priors: Any = None,
    ) -> None:
        self.covariance = covariance
        self.shrinkage = shrinkage
        self.reg_param = reg_param
        self.priors = priors

    # ------------------------------------------------------------------ parameters
    def check_params(self) -> None:
        """Raise :class:`~nbayes.errors.InvalidParameterError` for a hyperparameter out of range."""
        check_choice("covariance", self.covariance, COVARIANCES)
        s = self.shrinkage
        if isinstance(s, str) or s is None:
            if s is not None and s != "auto":
                raise InvalidParameterError(
                    f"parameter 'shrinkage' must be None, 'auto' or a number in [0, 1]; got {s!r}"
                )
        else:
            check_number("shrinkage", s, low=0.0, high=1.0)
        check_number("reg_param", self.reg_param, low=0.0, high=1.0)
        if self.priors is not None and not isinstance(self.priors, Mapping) and np.ndim(self.priors) != 1:
            raise InvalidParameterError(
                f"parameter 'priors' must be None, a 1-D array of class priors or a mapping from "
                f"class label to prior, got {self.priors!r}"
            )

    def _regularised(self) -> bool:
        return self.shrinkage is not None or self.reg_param > 0

    # ------------------------------------------------------------------ training
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "GaussianBayes":
        """Estimate class weights, means and covariances from (X, y). Returns self.

        ``sample_weight`` counts as repeated rows: integer weights give the model of the data with
        each row repeated that many times. A fit that fails leaves the model unchanged.
        """
        self.check_params()
        Xv, names = check_X_numeric(
            X, allow_nan=True, allow_sparse=False, model=type(self).__name__
        )
        missing = np.isnan(Xv)
        if missing.any():
            i, j = first_bad(missing)
            raise DataError(
                f"X: row {i}, {_column(j, names)} is missing (NaN); GaussianBayes.fit needs "
                "complete rows (a full covariance cannot be estimated from incomplete rows "
                "without EM): drop or impute them. predict marginalises missing values exactly"
            )
        n, d = Xv.shape
        y = check_y(y, n)
        w = check_sample_weight(sample_weight, n)
        classes, codes = classes_and_codes(y)
        K = len(classes)
        if K < 2:
            raise DataError(
                f"y has only one class, {show(classes[0])}; a classifier needs at least 2 classes"
            )
        weights = np.ones(n) if w is None else w
        if float(weights.sum()) <= 0:
            raise DataError("sample_weight: the weights sum to zero; the model would have no data")

        positive = weights > 0
        class_count = np.bincount(codes, weights=weights, minlength=K).astype(float)
        rows = np.bincount(codes[positive], minlength=K)
        for c in range(K):
            if rows[c] == 0:
                raise DataError(
                    f"class {show(classes[c])}: every row of this class has sample_weight 0; "
                    "its mean and covariance cannot be estimated"
                )
        priors = self._priors(class_count, classes)

        means = np.empty((K, d))
        covs = np.empty((K, d, d))
        used = np.zeros(K)
        for c in range(K):
            take = (codes == c) & positive
            Xc = Xv[take]
            wc = None if w is None else w[take]
            means[c], covs[c], used[c] = class_estimate(Xc, wc, class_count[c], self.shrinkage)

        if self.covariance == "shared":
            # notes 001: Sigma-hat = 1/n sum_i (x_i - mu_(y_i))(x_i - mu_(y_i))^T, i.e. the class
            # covariances pooled by weight
            cov = np.tensordot(class_count / class_count.sum(), covs, axes=1)
            cov = regularise(cov, self.reg_param)
            chol = self._factor(cov[None], classes, names, rows, pooled=True)
            cov_out = cov
        else:
            cov_out = np.stack([regularise(covs[c], self.reg_param) for c in range(K)])
            chol = self._factor(cov_out, classes, names, rows, pooled=False)

        # commit (nothing above touched self)
        self._set_fitted(classes, means, cov_out, class_count, priors, used, chol, d, names)
        return self

    def _priors(self, class_count: np.ndarray, classes: np.ndarray) -> np.ndarray:
        return class_priors(self.priors, class_count, classes)

    def _factor(
        self,
        covs: np.ndarray,
        classes: np.ndarray,
        names: list[str] | None,
        rows: np.ndarray,
        pooled: bool,
    ) -> np.ndarray:
        """Lower Cholesky factors of ``covs`` (m, d, d), or a DataError that says what is wrong."""
        strict = not self._regularised()
        out = np.empty_like(covs)
        for k, S in enumerate(covs):
            try:
                L = cholesky(S, lower=True, check_finite=False)
                ok = bool(np.all(np.diag(L) > 0))
                if ok and strict:
                    diag = np.diag(S)
                    ok = bool(np.all(np.diag(L) ** 2 > SINGULAR_TOL * diag))
            except LinAlgError:
                ok = False
            if not ok:
                raise DataError(self._singular_message(S, k, classes, names, rows, pooled, strict))
            out[k] = L
        return out

    def _singular_message(
        self,
        S: np.ndarray,
        k: int,
        classes: np.ndarray,
        names: list[str] | None,
        rows: np.ndarray,
        pooled: bool,
        strict: bool,
    ) -> str:
        d = S.shape[0]
        j = first_dependent(S, SINGULAR_TOL if strict else 0.0)
        if pooled:
            where = "the pooled within-class covariance"
            scope = "within every class"
            count = f"{int(rows.sum())} rows, {len(classes)} classes"
        else:
            where = f"the covariance of class {show(classes[k])}"
            scope = f"within class {show(classes[k])}"
            count = f"{int(rows[k])} row" + ("" if rows[k] == 1 else "s")
        if j is None:
            why = "is not positive definite"
        elif S[j, j] <= 0:
            why = f"is singular: {_column(j, names)} is constant {scope}"
        else:
            why = (
                f"is singular: {_column(j, names)} is (almost) a linear combination of the "
                f"columns before it {scope}"
            )
        few = ""
        if pooled and rows.sum() <= len(classes):
            few = "; with a single row per class it is always singular"
        elif not pooled and rows[k] <= d:
            plural = "row" if rows[k] == 1 else "rows"
            few = f"; with {int(rows[k])} {plural} for {d} features it is always singular"
        if strict:
            fix = "set shrinkage='auto' (Ledoit-Wolf), a shrinkage in (0, 1] or reg_param > 0"
        elif self.reg_param == 0:
            fix = (
                f"shrinkage={self.shrinkage!r} was not enough (Ledoit-Wolf may choose 0); set "
                "reg_param > 0 or a larger float shrinkage"
            )
        else:
            fix = f"even with reg_param={self.reg_param!r}; increase reg_param"
        if not pooled and strict:
            fix += ", or use covariance='shared'"
        return f"GaussianBayes: {where} ({count}) {why}{few}; {fix}"

    def _set_fitted(
        self,
        classes: np.ndarray,
        means: np.ndarray,
        cov: np.ndarray,
        class_count: np.ndarray,
        priors: np.ndarray,
        used: np.ndarray,
        chol: np.ndarray,
        d: int,
        names: list[str] | None,
    ) -> None:
        self.classes_ = classes
        self.means_ = means
        self.covariance_ = cov
        self.class_count_ = class_count
        self.class_prior_ = priors
        self.shrinkage_ = used
        self.n_features_in_ = int(d)
        if names is not None:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._chol = chol
        # log-determinant from the Cholesky diagonal: log det Sigma = 2 sum_j log L_jj
        self._logdet = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        with np.errstate(divide="ignore"):
            self._log_prior = np.log(priors)

    @property
    def priors_(self) -> np.ndarray:
        """The class priors (scikit-learn's name for ``class_prior_``)."""
        self.check_fitted()
        return self.class_prior_

    # ------------------------------------------------------------------ inference
    def prepare_input(self, X: Any) -> np.ndarray:
        """The prediction input checked against the fitted features: a float array (NaN marks a missing
        value)."""
        self.check_fitted()
        Xv, _ = check_X_numeric(
            X,
            allow_nan=True,
            allow_sparse=False,
            n_features=self.n_features_in_,
            feature_names=self.input_feature_names(),
            model=type(self).__name__,
        )
        return Xv

    def _factor_of(self, c: int) -> np.ndarray:
        factor: np.ndarray = self._chol[0 if self.covariance_.ndim == 2 else c]
        return factor

    def _cov_of(self, c: int) -> np.ndarray:
        cov: np.ndarray = self.covariance_ if self.covariance_.ndim == 2 else self.covariance_[c]
        return cov

    def log_likelihood(self, X: np.ndarray) -> np.ndarray:
        """log N(x; mu_c, Sigma_c) of each row's observed features, shape (n, K)."""
        n, d = X.shape
        K = len(self.classes_)
        out = np.empty((n, K))
        miss = np.isnan(X)
        incomplete = miss.any(axis=1)
        complete = np.flatnonzero(~incomplete)
        full: np.ndarray | slice = slice(None) if len(complete) == n else complete
        if len(X[full]):
            for c in range(K):
                out[full, c] = _log_normal(X[full], self.means_[c], self._factor_of(c))
        if incomplete.any():
            idx = np.flatnonzero(incomplete)
            patterns, inverse = np.unique(miss[idx], axis=0, return_inverse=True)
            inverse = np.ravel(inverse)
            shared = self.covariance_.ndim == 2
            for p, pattern in enumerate(patterns):
                rows = idx[inverse == p]
                obs = np.flatnonzero(~pattern)
                if len(obs) == 0:  # nothing observed: the likelihood is 1, the prior decides
                    out[rows] = 0.0
                    continue
                Xo = X[np.ix_(rows, obs)]
                L = None
                for c in range(K):
                    if L is None or not shared:
                        # the marginal of a Normal: the observed sub-block of Sigma_c
                        block = self._cov_of(c)[np.ix_(obs, obs)]
                        L = cholesky(block, lower=True, check_finite=False)
                    out[rows, c] = _log_normal(Xo, self.means_[c, obs], L)
        return out

    def predict_joint_log_proba(self, X: Any) -> np.ndarray:
        """log P(x, y = c) = log pi_c + log N(x; mu_c, Sigma_c) per row and class; missing
        features are marginalised exactly."""
        Xv = self.prepare_input(X)
        jll: np.ndarray = self.log_likelihood(Xv) + self._log_prior
        return jll

    # ------------------------------------------------------------------ model files
    def save(self, path: Any) -> None:
        """Write the model to ``path`` (atomically, no pickle); read it back with
        :func:`nbayes.load`."""
        self.check_fitted()
        save_state(path, self.to_state(), rebuild(self))

    def to_state(self) -> dict[str, Any]:
        """The model as the state of a model file (``save`` writes it)."""
        params = self.get_params()
        if params["priors"] is not None:
            params["priors"] = np.asarray(params["priors"], dtype=float)
        state = {
            "kind": type(self).__name__,
            "params": params,
            "meta": {
                "n_features_in": int(self.n_features_in_),
                "feature_names": self.input_feature_names(),
                "n_samples_seen": float(self.class_count_.sum()),
            },
            "arrays": {
                "classes": self.classes_,
                "means": self.means_,
                "covariance": self.covariance_,
                "class_count": self.class_count_,
                "class_prior": self.class_prior_,
                "shrinkage": self.shrinkage_,
            },
        }
        return state

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> "GaussianBayes":
        """The model of a model-file state (the inverse of ``to_state``), checked."""
        model = cls(**state["params"])
        model.check_params()
        a = state["arrays"]
        meta = state["meta"]
        d = int(meta["n_features_in"])
        classes = a["classes"]
        K = len(classes)
        check_shapes(a, {"means": (K, d), "covariance": (d, d) if model.covariance == "shared" else (K, d, d),
                         "class_count": (K,), "class_prior": (K,), "shrinkage": (K,)})
        means = np.asarray(a["means"], dtype=float)
        cov = np.asarray(a["covariance"], dtype=float)
        counts = np.asarray(a["class_count"], dtype=float)
        priors = np.asarray(a["class_prior"], dtype=float)
        used = np.asarray(a["shrinkage"], dtype=float)
        if (counts < 0).any() or (priors < 0).any() or not np.isclose(priors.sum(), 1.0, rtol=1e-9):
            raise StatisticsError("'class_count' / 'class_prior': expected weights >= 0 and priors summing to 1")
        names = meta.get("feature_names")
        rows = np.full(K, d + 1)
        stack = cov[None] if cov.ndim == 2 else cov
        chol = model._factor(stack, classes, names, rows, pooled=cov.ndim == 2)
        model._set_fitted(classes, means, cov, counts, priors, used, chol, d, names)
        return model


# ---------------------------------------------------------------------------- inference
def _log_normal(X: np.ndarray, mean: np.ndarray, L: np.ndarray) -> np.ndarray:
    """log N(x; mean, L L^T) for each row of X (notes 001's density f(x, mu, Sigma), in logs):
    -1/2 (d log 2 pi + log det Sigma + (x - mu)^T Sigma^{-1} (x - mu)), with
    log det Sigma = 2 sum_j log L_jj and the quadratic form ||L^{-1} (x - mu)||^2 from one
    triangular solve of the per-class centred rows (never inv(Sigma), never an expanded
    x^T A x - 2 x^T A mu + mu^T A mu, which cancels when x is far from mu)."""
    n, d = X.shape
    const = d * _LOG_2PI + 2.0 * np.log(np.diag(L)).sum()
    out = np.empty(n)
    for start in range(0, n, _BLOCK):
        D = X[start : start + _BLOCK] - mean
        Z = solve_triangular(L, D.T, lower=True, check_finite=False)
        out[start : start + _BLOCK] = -0.5 * (const + np.einsum("ij,ij->j", Z, Z))
    return out


def _column(j: int, names: list[str] | None) -> str:
    return f"column {names[j]!r}" if names is not None else f"column {j}"
