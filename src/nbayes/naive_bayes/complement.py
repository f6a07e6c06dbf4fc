"""Complement Naive Bayes (Rennie et al. 2003), for skewed text data."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_X_numeric
from ..errors import InvalidParameterError
from ..stats import CountStats
from ._base import BaseNB, class_log_prior
from .discrete import check_alpha, dense_rows
from .multinomial import log_ratio_scores


class ComplementNB(BaseNB):
    """Complement Naive Bayes, as scikit-learn's ``ComplementNB``.

    Each class is described by the counts of every *other* class (its complement):
    w_cj = -log((N_~cj + alpha) / sum_k (N_~ck + alpha)), or those logs normalised by their
    sum with ``norm=True`` (Rennie et al. 2003, steps 5-6). The class prior is used only when
    there is a single class; a class without weight (all its rows unlearned, or declared by
    ``partial_fit(classes=...)`` and never seen) has probability 0 and is never predicted.
    ``alpha`` must be > 0: at 0 a word absent from every other class
    would get an infinite weight.

    >>> import numpy as np
    >>> X = np.array([[3, 0, 1], [0, 2, 1], [1, 0, 0]])
    >>> ComplementNB().fit(X, [0, 1, 0]).predict([[2, 0, 1]]).tolist()
    [0]
    """

    _accepts_sparse = True
    _poor_score = True
    _allows_nan = False
    _requires_nonnegative = True

    #: its decision leaves the class prior out (as scikit-learn), so no exact with_prior
    _capabilities = (BaseNB._capabilities | {"sparse", "counts"}) - {"with_prior"}

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

    def estimate_parameters(self, stats: CountStats, n_features: int) -> dict[str, Any]:
        alpha = check_alpha(self.alpha, n_features, self.force_alpha)
        fc = stats.feature_count
        comp = fc.sum(axis=0) + alpha - fc
        logged = np.log(comp / comp.sum(axis=1, keepdims=True))
        flp = logged / logged.sum(axis=1, keepdims=True) if self.norm else -logged
        prior = class_log_prior(
            stats.class_count, fit_prior=self.fit_prior, class_prior=self.class_prior, class_alpha=0.0,
            classes=self._estimation_classes,
        )
        # the decision leaves the prior out (as scikit-learn), but a class without weight (all
        # its rows unlearned, or declared and never seen) is gone: -inf (CORRECTNESS.md)
        intercept = prior if len(prior) == 1 else np.where(stats.class_count > 0, 0.0, -np.inf)
        return {
            "feature_count_": fc,
            "feature_all_": fc.sum(axis=0),
            "feature_log_prob_": flp,
            "class_log_prior_": prior,
            "_intercept": intercept,
        }

    def _linear_form(self) -> tuple[np.ndarray, np.ndarray, Any]:
        return self.feature_log_prob_, self._intercept, None

    def log_likelihood(self, Xv: Any) -> np.ndarray:
        return np.asarray(Xv @ self.feature_log_prob_.T)

    def feature_terms(self, Xv: Any) -> np.ndarray:
        terms: np.ndarray = dense_rows(Xv)[:, None, :] * self.feature_log_prob_[None]
        return terms

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        return log_ratio_scores(self.feature_count_, self.alpha, self.force_alpha), self.display_feature_names()

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> CountStats:
        return CountStats.from_arrays(arrays)
