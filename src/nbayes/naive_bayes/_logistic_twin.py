"""``to_logistic``: the logistic model with a Naive Bayes model's exact probabilities (the bridge
of chapter 002 section 3.1), mixed into :class:`~nbayes.naive_bayes.BaseNB`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidParameterError
from .. import linear  # its model loads on the first to_logistic (nbayes._lazy), not with every Naive Bayes model

if TYPE_CHECKING:  # pragma: no cover
    from ..linear import LogisticRegression

__all__ = ["LogisticTwin"]


class LogisticTwin:
    """``to_logistic`` over the model's ``_linear_form`` (each linear model writes its own)."""

    def to_logistic(self: Any) -> LogisticRegression:
        """The :class:`nbayes.LogisticRegression` with this model's exact probabilities.

        A Naive Bayes model whose log-odds are linear in (a fixed map of) x is a logistic model
        with particular weights (chapter 002 section 3.1, eq. 19 and exercise 3; notes 004
        section 1.1): multinomial and complement weights are log theta_cj, Bernoulli's
        log(theta / (1 - theta)) on binarised input, categorical ones one weight per
        (feature, value) on one-hot input, Gaussian ones mu_cj / sigma_j^2 when the variance does
        not depend on the class. The returned model carries the input map, so it takes the same
        raw rows. Needs finite parameters (alpha > 0); missing values are an error there.
        """
        self.check_fitted()
        self._no_explanation("to_logistic")
        W, b, transform = self._linear_form()
        if not (np.all(np.isfinite(W)) and np.all(np.isfinite(b))):
            raise InvalidParameterError(
                f"to_logistic: this {type(self).__name__} has log-probabilities of -inf (a zero "
                "probability, from alpha=0 or a class prior of 0); a logistic model needs finite "
                "weights: refit with alpha > 0"
            )
        if len(self.classes_) == 2:
            coef, intercept = (W[1] - W[0])[None, :], np.array([b[1] - b[0]])
        else:  # the symmetric form's gauge: weights and intercepts sum to zero over classes
            coef, intercept = W - W.mean(axis=0), b - b.mean()
        lr = linear.LogisticRegression()
        lr.coef_ = np.ascontiguousarray(coef, dtype=np.float64)
        lr.intercept_ = np.asarray(intercept, dtype=np.float64)
        lr.classes_ = self.classes_.copy()
        lr.n_features_in_ = int(self.n_features_in_)
        if self.input_feature_names() is not None:
            lr.feature_names_in_ = np.asarray(self.input_feature_names(), dtype=object)
        if transform is not None:
            lr.input_transform_ = transform
        return lr

    def _linear_form(self: Any) -> tuple[np.ndarray, np.ndarray, Any]:
        """(W, b, input map) with log P(x, y=c) = W_c . map(x) + b_c + a term free of c."""
        raise InvalidParameterError(
            f"to_logistic: {type(self).__name__}'s log-odds are not linear in x, so no logistic "
            "model has its probabilities"
        )
