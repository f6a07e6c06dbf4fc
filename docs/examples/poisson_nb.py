"""Poisson Naive Bayes through nbayes' public statistics protocol (docs/architecture.md).

Counts x_j given class c are Poisson with rate lambda_cj; a Gamma(alpha, beta) prior on each
rate gives the posterior mean lambda_cj = (S_cj + alpha) / (W_c + beta), S_cj the weighted sum
of feature j over class-c rows and W_c their weight: exactly what ``CountStats`` holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import gammaln

from nbayes.validation import check_number, check_X_numeric
from nbayes.io.load import register_kind
from nbayes.naive_bayes import BaseNB
from nbayes.stats import CountStats


class PoissonNB(BaseNB):
    """log P(x | c) = sum_j x_j log lambda_cj - lambda_cj - log x_j!"""

    _capabilities = BaseNB._capabilities - {"to_logistic"}

    def __init__(self, *, alpha: float = 1.0, beta: float = 1.0, fit_prior: bool = True,
                 class_prior: Any = None, class_alpha: float = 0.0) -> None:
        self.alpha = alpha
        self.beta = beta
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.class_alpha = class_alpha

    def check_params(self) -> None:
        check_number("alpha", self.alpha, low=0.0, low_open=True)
        check_number("beta", self.beta, low=0.0, low_open=True)
        check_number("class_alpha", self.class_alpha, low=0.0)

    def prepare_input(self, X: Any, fitting: bool) -> tuple[np.ndarray, list[str] | None]:
        X, names = check_X_numeric(
            X, allow_nan=False, allow_sparse=False, nonnegative=True,
            n_features=None if fitting else self.n_features_in_,
            feature_names=None if fitting else self.input_feature_names(), model="PoissonNB",
        )
        return np.asarray(X, dtype=np.float64), names

    def count_statistics(self, X: np.ndarray, codes: np.ndarray, n_classes: int,
                         w: np.ndarray | None) -> CountStats:
        return CountStats.of(X, codes, n_classes, w)

    def estimate_parameters(self, stats: CountStats, n_features: int) -> dict[str, Any]:
        rate = (stats.feature_count + self.alpha) / (stats.class_count[:, None] + self.beta)
        return {"rate_": rate, "log_rate_": np.log(rate), **self.prior_parameters(stats.class_count)}

    def log_likelihood(self, X: np.ndarray) -> np.ndarray:
        return X @ self.log_rate_.T - self.rate_.sum(axis=1) - gammaln(X + 1).sum(axis=1)[:, None]

    def feature_terms(self, X: np.ndarray) -> np.ndarray:
        return X[:, None, :] * self.log_rate_[None] - self.rate_[None] - gammaln(X + 1)[:, None, :]

    def feature_scores(self) -> tuple[np.ndarray, list[str]]:
        rest = [np.log(np.delete(self.rate_, c, axis=0).mean(axis=0)) for c in range(len(self.rate_))]
        return self.log_rate_ - np.array(rest), self.display_feature_names()

    @classmethod
    def statistics_from_arrays(cls, arrays: dict[str, np.ndarray], n_features: int) -> CountStats:
        return CountStats.from_arrays(arrays)


register_kind("PoissonNB", PoissonNB)
