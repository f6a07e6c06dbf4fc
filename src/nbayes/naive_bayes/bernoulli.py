"""Bernoulli Naive Bayes: binary features with the full likelihood p^x (1-p)^(1-x) (notes 001)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from .._scipy import sparse as sp

from .._validation import check_number, check_X_numeric, first_bad, name_columns, show
from ..errors import DataError, InvalidParameterError
from ..stats import CountStats
from ._base import BaseNB
from ..stats.counts import class_indicator, class_totals, per_class_sum
from .discrete import check_alpha, dense_rows, dirichlet_log_density, linear, soft_class_sum, times
from .multinomial import CountSettings, log_ratio_scores
from . import _leave_one_out as leave_one_out
from .params import Params, PriorAttributes, estimate_prior, fitted


@dataclass
class Binary:
    """Binarised input: X in {0, 1} (missing entries set to 0) and the missing mask (or None)."""

    X: Any
    missing: Any

    @property
    def shape(self) -> tuple[int, int]:
        n, d = self.X.shape
        return int(n), int(d)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class BernoulliParams(Params):
    """:class:`~nbayes.naive_bayes.BernoulliNB`'s parameters: ``feature_log_prob`` and
    ``log_absent``, ndarrays of shape (n_classes, n_features), log p_cj and log(1 - p_cj),
    with the prior part."""

    feature_log_prob: np.ndarray
    log_absent: np.ndarray


def estimate(stats: CountStats, s: CountSettings) -> BernoulliParams:
    """Bernoulli parameters of ``stats``: p_cj = (n_cj + alpha) / (N_cj + 2 alpha) (notes 001,
    eq. 3 smoothed: Laplace at alpha = 1), N_cj the class-c rows where feature j is observed."""
    alpha = s.alpha
    observed = stats.observed_count
    num = stats.feature_count + alpha
    den = observed + 2 * alpha
    # log(1 - p) as log((N - n + alpha) / den): no cancellation from forming 1 - p
    rest = np.maximum(observed - stats.feature_count, 0.0) + alpha
    empty = den <= 0  # no observed row and no smoothing: p = 1/2 (uniform over {0, 1})
    safe = np.where(empty, 1.0, den)
    with np.errstate(divide="ignore"):
        log_p = np.where(empty, -np.log(2), np.log(num) - np.log(safe))
        log_q = np.where(empty, -np.log(2), np.log(rest) - np.log(safe))
    return BernoulliParams(feature_log_prob=log_p, log_absent=log_q, **estimate_prior(stats.class_count, s.prior))


class BernoulliNB(leave_one_out.LeaveOneOut, PriorAttributes, BaseNB):
    """Naive Bayes over binary features, every feature's presence *and absence* counted:
    log P(x, c) = log pi_c + sum_j [x_j log p_cj + (1 - x_j) log(1 - p_cj)] (notes 001), with
    p_cj = (n_cj + alpha) / (N_cj + 2 alpha) (Laplace at alpha = 1: the notes' fix of adding an
    all-ones and an all-zeros row to each class). ``binarize`` thresholds the input (x > t is 1);
    ``None`` takes the input as already 0/1. Missing values (NaN) are left out exactly: N_cj
    counts only the class-c rows where feature j is observed.

    Rows without labels: ``fit(X, y, X_unlabeled=U)`` trains by EM (Nigam et al. 2000) with
    :class:`nbayes.EM`'s defaults but ``unlabeled_weight="auto"`` (the unlabelled rows' weight
    chosen by cross-validation on the labelled rows, 0 included; at most 100 steps) and leaves
    this model the EM-completed model (its statistics include the expected counts, and
    ``n_iter_`` / ``em_log_likelihood_`` report the run); for other EM settings
    (a fixed ``unlabeled_weight``, ``unlabeled_label``, ``n_components``) wrap it:
    ``nbayes.EM(model, ...)``. See docs/semi-supervised.md.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weight of the training rows of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        log P(c).
    feature_count_ : ndarray of shape (n_classes, n_features)
        The (weighted) number n_cj of class-c rows where feature j is 1.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log p_cj = log(n_cj + alpha) - log(N_cj + 2 alpha).
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        The column names seen during fit, when the input had names.
    stats_ : CountStats
        The sufficient statistics (what ``merge``, ``unlearn`` and model files hold).
    params_ : BernoulliParams
        The fitted parameters as a read-only value, ``estimate(stats_, settings)``.

    >>> import numpy as np
    >>> X = np.array([[1, 1], [1, 0], [0, 0]])
    >>> model = BernoulliNB(alpha=1.0).fit(X, [1, 1, 0])
    >>> np.exp(model.feature_log_prob_).round(3).tolist()   # (0+1)/(1+2), (2+1)/(2+2) ...
    [[0.333, 0.333], [0.75, 0.5]]
    >>> p = (model.feature_count_ + 1.0) / (model.class_count_[:, None] + 2.0)   # the arithmetic
    >>> np.allclose(model.feature_log_prob_, np.log(p)), np.allclose(model.params_.log_absent, np.log(1 - p))
    (True, True)
    """

    def _loo_loglik(self, Xv: Any, codes: np.ndarray, w: np.ndarray) -> np.ndarray | None:
        return leave_one_out.bernoulli(self, Xv, codes, w)  # the closed form of leave_one_out_joint

    _accepts_sparse = True
    _poor_score = True
    _allows_nan = True
    statistics_params = ("binarize",)

    _capabilities = BaseNB._capabilities | {"missing_values", "sparse", "unlabeled", "mixture", "per_class",
                                             "leave_one_out", "binary"}

    feature_log_prob_ = fitted("feature_log_prob", "ndarray of shape (n_classes, n_features): log p_cj.")
    _log_absent = fitted("log_absent", "ndarray of shape (n_classes, n_features): log(1 - p_cj).")

    @property
    def feature_count_(self) -> np.ndarray:
        """ndarray of shape (n_classes, n_features): the (weighted) rows per class where the feature is 1."""
        fc: np.ndarray = self.stats_.feature_count
        return fc

    def __init__(
        self,
        *,
        alpha: float | Any = 1.0,
        force_alpha: bool = True,
        binarize: float | None = 0.0,
        fit_prior: bool = True,
        class_prior: Any = None,
        class_alpha: float = 0.0,
    ) -> None:
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha

    def check_params(self) -> None:
        check_alpha(self.alpha, None, self.force_alpha)
        check_number("binarize", self.binarize, allow_none=True)
        check_number("class_alpha", self.class_alpha, low=0.0)

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        A: Any  # an array or a CSR matrix (SciPy is untyped: sp.issparse does not narrow)
        A, names = check_X_numeric(
            X,
            allow_nan=True,
            n_features=None if fitting else self.n_features_in_,
            feature_names=None if fitting else self.input_feature_names(),
            model=type(self).__name__,
        )
        t = self.binarize
        if sp.issparse(A):
            if t is not None and t < 0:
                raise InvalidParameterError(
                    f"parameter 'binarize' is {t}: a negative threshold turns the implicit zeros "
                    "of a sparse matrix into ones; use binarize >= 0 or pass a dense array"
                )
            nan = np.isnan(A.data)
            missing = None
            if nan.any():
                missing = sp.csr_matrix((nan.astype(float), A.indices.copy(), A.indptr.copy()), shape=A.shape)
                missing.eliminate_zeros()
            data = np.where(nan, 0.0, A.data if t is None else (A.data > t).astype(float))
            if t is None:
                _check_binary(data, A, names)
            Xb = sp.csr_matrix((data, A.indices.copy(), A.indptr.copy()), shape=A.shape)
            Xb.eliminate_zeros()  # on copies: the caller's matrix is never modified
            return Binary(Xb, missing), names
        nan = np.isnan(A)
        has_nan = bool(nan.any())
        if t is None:
            Xb = np.where(nan, 0.0, A) if has_nan else A
            _check_binary(Xb, None, names)
        else:
            Xb = (A > t).astype(np.float64)  # NaN > t is False: missing entries become 0
        return Binary(Xb, nan.astype(np.float64) if has_nan else None), names

    def count_statistics(self, Xv: Binary, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> CountStats:
        Y = class_indicator(codes, n_classes, w)
        missing = None if Xv.missing is None else per_class_sum(Y, Xv.missing)
        return CountStats(class_totals(codes, n_classes, w), per_class_sum(Y, Xv.X), missing, presence=True)

    def count_expected(self, Xv: Binary, R: np.ndarray) -> CountStats:
        missing = None if Xv.missing is None else soft_class_sum(R, Xv.missing)
        return CountStats(R.sum(axis=0), soft_class_sum(R, Xv.X), missing, presence=True)

    def _em_log_prior(self) -> float:
        log_p, log_q = self.feature_log_prob_, self._log_absent  # Beta(alpha + 1, alpha + 1)
        alpha = check_alpha(self.alpha, log_p.shape[1], self.force_alpha)
        return dirichlet_log_density(alpha, log_p) + dirichlet_log_density(alpha, log_q)

    def estimation_settings(self, n_features: int) -> CountSettings:
        """What :func:`estimate` reads from this model."""
        return CountSettings(alpha=check_alpha(self.alpha, n_features, self.force_alpha), prior=self.prior_settings())

    def estimate_parameters(self, stats: CountStats, n_features: int) -> BernoulliParams:
        return estimate(stats, self.estimation_settings(n_features))

    def _linear_form(self) -> tuple[np.ndarray, np.ndarray, Any]:
        # eq. 19 with Bernoulli features: sum_j x_j log(p/q) + sum_j log q
        from ..linear.transforms import Binarize

        log_p, log_q = self.feature_log_prob_, self._log_absent
        with np.errstate(invalid="ignore"):
            W = log_p - log_q
        return W, self._intercept + log_q.sum(axis=1), Binarize(self.binarize, self.n_features_in_, "LogisticRegression")

    def log_likelihood(self, Xv: Binary) -> np.ndarray:
        # sum_j x log p + (1 - x) log q  =  X @ (log p - log q) + sum_j log q, minus the missing
        # entries' log q. With p in {0, 1} (alpha = 0) a -inf term counts only where it applies.
        log_p, log_q = self.feature_log_prob_, self._log_absent
        fp, fq = np.isfinite(log_p), np.isfinite(log_q)
        p0, q0 = np.where(fp, log_p, 0.0), np.where(fq, log_q, 0.0)
        X, M = Xv.X, Xv.missing
        out: np.ndarray = linear(X, p0 - q0) + q0.sum(axis=1)
        if M is not None:
            out -= np.asarray(M @ q0.T)
        if not (fp.all() and fq.all()):
            bad_p = np.asarray(X @ (~fp).astype(float).T) > 0
            zero_q = (~fq).astype(float)
            n_absent = zero_q.sum(axis=1) - np.asarray(X @ zero_q.T)
            if M is not None:
                n_absent = n_absent - np.asarray(M @ zero_q.T)
            out[bad_p | (n_absent > 0.5)] = -np.inf
        return out

    def feature_terms(self, Xv: Binary) -> np.ndarray:
        X = dense_rows(Xv.X)[:, None, :]
        terms: np.ndarray = times(X, self.feature_log_prob_[None]) + times(1.0 - X, self._log_absent[None])
        if Xv.missing is not None:
            terms = np.where(dense_rows(Xv.missing)[:, None, :] > 0, 0.0, terms)
        return terms

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        return log_ratio_scores(self._class_rows(self.feature_count_), self.alpha, self.force_alpha), self.display_feature_names()

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> CountStats:
        return CountStats.from_arrays(arrays, presence=True)


def _check_binary(values: np.ndarray, A: Any, names: list[str] | None) -> None:
    bad = (values != 0) & (values != 1)
    if np.any(bad):
        if A is not None:  # CSR data: locate row and column
            k = int(np.argmax(bad))
            i = int(np.searchsorted(A.indptr, k, side="right") - 1)
            where = f"row {i}, column {int(A.indices[k])}"
            v = values[k]
        else:
            i, j = first_bad(bad)
            where, v = f"row {i}, column {j}", values[i, j]
        raise DataError(name_columns(
            f"X: {where} holds {show(v)}; with binarize=None the features must be 0 or 1 "
            "(set binarize to a threshold to binarise other values)", names
        ))
