"""scikit-learn's own estimator checks, on every nbayes estimator.

Three checks do not apply, each by a documented design decision (nbayes does not depend on
scikit-learn at run time, so it cannot raise scikit-learn's own classes):
"""

from __future__ import annotations

import warnings

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import nbayes

NOT_SKLEARN = {
    "check_estimators_unfitted": (
        "nbayes raises nbayes.errors.NotFittedError (a ValueError and AttributeError), not "
        "sklearn.exceptions.NotFittedError: nbayes does not import scikit-learn at run time"
    ),
    "check_supervised_y_2d": (
        "a column-vector y of shape (n, 1) is accepted as 1-D without scikit-learn's "
        "DataConversionWarning class"
    ),
}
NUMERIC_ONLY = {
    "check_dtype_object": (
        "a value that is not a number raises nbayes.errors.DataError (a ValueError naming row "
        "and column), not a TypeError"
    ),
}
ESTIMATORS = [
    nbayes.MultinomialNB(),
    nbayes.ComplementNB(),
    nbayes.BernoulliNB(),
    nbayes.GaussianNB(),
    nbayes.CategoricalNB(),
    nbayes.NaiveBayes(),
    # the weighted-equals-repeated checks compare optima: solve to the optimum, not to 1e-4
    nbayes.LogisticRegression(tol=1e-10),
    # the checks fit classes with fewer rows than features: a singular covariance is an error
    # by design (docs/logistic.md), so they run with a ridge
    nbayes.GaussianBayes(reg_param=0.01),
]


MARGINALISES = {
    "check_estimators_nan_inf": (
        "GaussianBayes refuses NaN at fit but marginalises it exactly at predict (the Gaussian of "
        "the observed coordinates), so predict on NaN is not an error"
    ),
}


def expected_failed_checks(estimator):
    if isinstance(estimator, nbayes.GaussianBayes):
        return {**NOT_SKLEARN, **NUMERIC_ONLY, **MARGINALISES}
    if isinstance(estimator, nbayes.CategoricalNB | nbayes.NaiveBayes):
        return NOT_SKLEARN  # values of any kind are welcome: object data is not an error
    return {**NOT_SKLEARN, **NUMERIC_ONLY}


# scikit-learn warns that the estimators do not inherit from its BaseEstimator: by design
INHERIT = "ignore:Estimator .* does not inherit from `sklearn.base.BaseEstimator`"
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Estimator .* does not inherit from")
    CHECKS = parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)


@pytest.mark.filterwarnings(INHERIT)
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
@CHECKS
def test_sklearn_compatible(estimator, check):
    check(estimator)
