"""Multinomial Naive Bayes: word counts (slides 000, notes 004)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_X_numeric, check_number
from ..stats import CountStats
from ._base import BaseNB
from .params import Params, PriorAttributes, PriorSettings, estimate_prior, fitted
from .discrete import (
    check_alpha,
    dense_rows,
    dirichlet_log_density,
    safe_linear,
    soft_class_sum,
    times,
)


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class CountSettings:
    """What the count families' estimation reads: ``alpha`` checked (a number, or one per
    feature, ``force_alpha`` applied), ``norm`` (ComplementNB) and the prior's settings."""

    alpha: np.ndarray | float
    prior: PriorSettings
    norm: bool = False


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class MultinomialParams(Params):
    """:class:`~nbayes.naive_bayes.MultinomialNB`'s parameters: ``feature_log_prob`` : ndarray
    of shape (n_classes, n_features), log theta_cj, with the prior part."""

    feature_log_prob: np.ndarray


def estimate(stats: CountStats, s: CountSettings) -> MultinomialParams:
    """Multinomial parameters of ``stats``: theta_cj = (n_cj + alpha) / (n_c + alpha |V|)
    (notes 004 eq. 4, the Dirichlet MAP estimate; alpha = 0 the MLE, log 0 = -inf)."""
    n_features = stats.feature_count.shape[1]
    flp = stats.feature_count + s.alpha  # smoothed counts, then (in place) their logs
    total = flp.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        np.log(flp, out=flp)
        flp -= np.log(np.where(total > 0, total, 1.0))
    empty = total[:, 0] <= 0
    if empty.any():  # a class with no count and no smoothing: uniform (CORRECTNESS.md)
        flp[empty] = -np.log(n_features)
    return MultinomialParams(feature_log_prob=flp, **estimate_prior(stats.class_count, s.prior))


class MultinomialNB(PriorAttributes, BaseNB):
    """Naive Bayes over counts: theta_cj = (n_cj + alpha) / (n_c + alpha |V|).

    The estimate is the smoothed (Dirichlet MAP) estimate of slides 000 and notes 004;
    ``alpha=0`` is the exact MLE, where an unseen word has probability 0 (log -inf, never NaN).
    The decision is linear in the counts: log P(x, c) = log pi_c + sum_j x_j log theta_cj
    (notes 004, section 1.1). Counts cannot be missing: NaN is an error naming row and column.

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
        The (weighted) count n_cj of each feature per class.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        log theta_cj = log(n_cj + alpha) - log(n_c + alpha |V|).
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        The column names seen during fit, when the input had names.
    stats_ : CountStats
        The sufficient statistics (what ``merge``, ``unlearn`` and model files hold).
    params_ : MultinomialParams
        The fitted parameters as a read-only value, ``estimate(stats_, settings)``.

    >>> import numpy as np
    >>> X = np.array([[2, 1, 0], [0, 1, 3]])
    >>> model = MultinomialNB(alpha=1.0).fit(X, ["ham", "spam"])
    >>> np.exp(model.feature_log_prob_[0]).round(3).tolist()   # (2+1)/6, (1+1)/6, (0+1)/6
    [0.5, 0.333, 0.167]
    >>> model.predict([[1, 0, 0]]).tolist()
    ['ham']
    >>> fc = model.feature_count_ + 1.0   # the arithmetic: smoothed counts over their row sums
    >>> np.allclose(model.feature_log_prob_, np.log(fc / fc.sum(axis=1, keepdims=True)))
    True
    """

    _accepts_sparse = True
    _poor_score = True
    _allows_nan = False
    _requires_nonnegative = True

    _capabilities = BaseNB._capabilities | {"sparse", "unlabeled", "mixture", "counts", "per_class"}

    feature_log_prob_ = fitted("feature_log_prob", "ndarray of shape (n_classes, n_features): log theta_cj.")

    @property
    def feature_count_(self) -> np.ndarray:
        """ndarray of shape (n_classes, n_features): the (weighted) count of each feature per class."""
        fc: np.ndarray = self.stats_.feature_count
        return fc

    def __init__(
        self,
        *,
        alpha: float | Any = 1.0,
        force_alpha: bool = True,
        fit_prior: bool = True,
        class_prior: Any = None,
        class_alpha: float = 0.0,
    ) -> None:
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha

    def check_params(self) -> None:
        check_alpha(self.alpha, None, self.force_alpha)
        check_number("class_alpha", self.class_alpha, low=0.0)

    def prepare_input(self, X: Any, fitting: bool) -> tuple[Any, list[str] | None]:
        return check_X_numeric(
            X,
            allow_nan=False,
            nonnegative=True,
            n_features=None if fitting else self.n_features_in_,
            feature_names=None if fitting else self.input_feature_names(),
            model=type(self).__name__,
        )

    def count_statistics(self, Xv: Any, codes: np.ndarray, n_classes: int, w: np.ndarray | None) -> CountStats:
        return CountStats.of(Xv, codes, n_classes, w)

    def count_expected(self, Xv: Any, R: np.ndarray) -> CountStats:
        return CountStats(R.sum(axis=0), soft_class_sum(R, Xv))

    def _em_log_prior(self) -> float:
        flp = self.feature_log_prob_
        return dirichlet_log_density(check_alpha(self.alpha, flp.shape[1], self.force_alpha), flp)

    def estimation_settings(self, n_features: int) -> CountSettings:
        """What :func:`estimate` reads from this model."""
        return CountSettings(alpha=check_alpha(self.alpha, n_features, self.force_alpha), prior=self.prior_settings())

    def estimate_parameters(self, stats: CountStats, n_features: int) -> MultinomialParams:
        return estimate(stats, self.estimation_settings(n_features))

    def _linear_form(self) -> tuple[np.ndarray, np.ndarray, Any]:
        return self.feature_log_prob_, self._intercept, None

    def log_likelihood(self, Xv: Any) -> np.ndarray:
        return safe_linear(Xv, self.feature_log_prob_)

    def feature_terms(self, Xv: Any) -> np.ndarray:
        X = dense_rows(Xv)
        return times(X[:, None, :], self.feature_log_prob_[None])

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        return log_ratio_scores(self._class_rows(self.feature_count_), self.alpha, self.force_alpha), self.display_feature_names()

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> CountStats:
        return CountStats.from_arrays(arrays)


def log_ratio_scores(fc: np.ndarray, alpha: Any, force_alpha: bool) -> np.ndarray:
    """log theta_cw - log theta_(not c)w, the other classes' counts pooled and smoothed alike
    (CORRECTNESS.md: raw log theta_cw would list stop words)."""
    a = check_alpha(alpha, fc.shape[1], force_alpha)
    a = np.where(np.asarray(a) > 0, a, 1.0)  # ranking needs finite logs: Laplace when alpha = 0
    rest = fc.sum(axis=0, keepdims=True) - fc
    own = np.log(fc + a) - np.log((fc + a).sum(axis=1, keepdims=True))
    other = np.log(rest + a) - np.log((rest + a).sum(axis=1, keepdims=True))
    scores: np.ndarray = own - other
    return scores
