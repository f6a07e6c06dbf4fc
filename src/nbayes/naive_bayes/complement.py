"""Complement Naive Bayes (Rennie et al. 2003), for skewed text data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_X_numeric
from ..errors import InvalidParameterError
from ..stats import CountStats
from ._base import BaseNB
from .multinomial import CountSettings
from .params import Params, PriorAttributes, PriorSettings, estimate_prior, fitted
from .discrete import check_alpha, dense_rows, linear
from .multinomial import log_ratio_scores


@dataclass(frozen=True, slots=True, kw_only=True, eq=False)
class ComplementParams(Params):
    """:class:`~nbayes.naive_bayes.ComplementNB`'s parameters: ``feature_log_prob`` : ndarray
    of shape (n_classes, n_features), the weights w_cj, with the prior part (its ``intercept``
    is the log prior only for a single class, else 0, or -inf for a class without weight)."""

    feature_log_prob: np.ndarray


def estimate(stats: CountStats, s: CountSettings) -> ComplementParams:
    """Complement weights (Rennie et al. 2003, steps 5-6, as scikit-learn): the complement
    counts N_~cj = sum_k n_kj - n_cj, w_cj = -log((N_~cj + alpha) / sum_j (N_~cj + alpha)),
    or those logs divided by their sum with ``norm``."""
    fc = stats.feature_count
    comp = fc.sum(axis=0) + s.alpha - fc
    logged = np.log(comp / comp.sum(axis=1, keepdims=True))
    flp = logged / logged.sum(axis=1, keepdims=True) if s.norm else -logged
    prior = estimate_prior(stats.class_count, s.prior)["class_log_prior"]
    # the decision leaves the prior out (as scikit-learn), but a class without weight (all
    # its rows unlearned, or declared and never seen) is gone: -inf (CORRECTNESS.md)
    intercept = prior if len(prior) == 1 else np.where(stats.class_count > 0, 0.0, -np.inf)
    return ComplementParams(feature_log_prob=flp, class_log_prior=prior, intercept=intercept)


class ComplementNB(PriorAttributes, BaseNB):
    """Complement Naive Bayes, as scikit-learn's ``ComplementNB``.

    Each class is described by the counts of every *other* class (its complement):
    w_cj = -log((N_~cj + alpha) / sum_k (N_~ck + alpha)), or those logs normalised by their
    sum with ``norm=True`` (Rennie et al. 2003, steps 5-6). The class prior is used only when
    there is a single class; a class without weight (all its rows unlearned, or declared by
    ``partial_fit(classes=...)`` and never seen) has probability 0 and is never predicted.
    ``alpha`` must be > 0: at 0 a word absent from every other class
    would get an infinite weight.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Weight of the training rows of each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        log P(c) (used by the decision only when there is a single class).
    feature_count_ : ndarray of shape (n_classes, n_features)
        The (weighted) count n_cj of each feature per class.
    feature_all_ : ndarray of shape (n_features,)
        The count of each feature over all classes.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        The weights w_cj.
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        The column names seen during fit, when the input had names.
    stats_ : CountStats
        The sufficient statistics (what ``merge``, ``unlearn`` and model files hold).
    params_ : ComplementParams
        The fitted parameters as a read-only value, ``estimate(stats_, settings)``.

    >>> import numpy as np
    >>> X = np.array([[3, 0, 1], [0, 2, 1], [1, 0, 0]])
    >>> ComplementNB().fit(X, [0, 1, 0]).predict([[2, 0, 1]]).tolist()
    [0]
    >>> m = ComplementNB().fit(X, [0, 1, 0])
    >>> comp = m.feature_all_ + 1.0 - m.feature_count_   # the arithmetic: complement counts, smoothed
    >>> np.allclose(m.feature_log_prob_, -np.log(comp / comp.sum(axis=1, keepdims=True)))
    True
    """

    _accepts_sparse = True
    _poor_score = True
    _allows_nan = False
    _requires_nonnegative = True

    #: its decision leaves the class prior out (as scikit-learn), so no exact with_prior
    _capabilities = (BaseNB._capabilities | {"sparse", "counts"}) - {"with_prior"}

    feature_log_prob_ = fitted("feature_log_prob", "ndarray of shape (n_classes, n_features): the weights w_cj.")

    @property
    def feature_count_(self) -> np.ndarray:
        """ndarray of shape (n_classes, n_features): the (weighted) count of each feature per class."""
        fc: np.ndarray = self.stats_.feature_count
        return fc

    @property
    def feature_all_(self) -> np.ndarray:
        """ndarray of shape (n_features,): the count of each feature over all classes."""
        fa: np.ndarray = self.stats_.feature_count.sum(axis=0)
        return fa

    def __init__(
        self,
        *,
        alpha: float | Any = 1.0,
        force_alpha: bool = True,
        fit_prior: bool = True,
        class_prior: Any = None,
        norm: bool = False,
    ) -> None:
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm

    def check_params(self) -> None:
        a = check_alpha(self.alpha, None, self.force_alpha)
        if np.any(np.asarray(a) <= 0):
            raise InvalidParameterError(
                "parameter 'alpha' must be > 0 for ComplementNB: its weights are -log of the "
                "complement frequencies, infinite for a word absent from every other class"
            )

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

    def estimation_settings(self, n_features: int) -> CountSettings:
        """What :func:`estimate` reads from this model."""
        prior = PriorSettings(fit_prior=self.fit_prior, class_prior=self.class_prior, classes=self._estimation_classes)
        return CountSettings(alpha=check_alpha(self.alpha, n_features, self.force_alpha), prior=prior, norm=self.norm)

    def estimate_parameters(self, stats: CountStats, n_features: int) -> ComplementParams:
        return estimate(stats, self.estimation_settings(n_features))

    def _linear_form(self) -> tuple[np.ndarray, np.ndarray, Any]:
        return self.feature_log_prob_, self._intercept, None

    def log_likelihood(self, Xv: Any) -> np.ndarray:
        return linear(Xv, self.feature_log_prob_)

    def feature_terms(self, Xv: Any) -> np.ndarray:
        terms: np.ndarray = dense_rows(Xv)[:, None, :] * self.feature_log_prob_[None]
        return terms

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        return log_ratio_scores(self.feature_count_, self.alpha, self.force_alpha), self.display_feature_names()

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> CountStats:
        return CountStats.from_arrays(arrays)
