"""One log-sum-exp and one log-loss (``nbayes._math``): the log-sum-exp equals SciPy's, is
-inf-safe without a warning; ``nbayes.compare``, ``nbayes.metrics.log_loss``, the scorer
``neg_log_loss`` and the CLI's measures give the same log-loss for the same model."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import logsumexp as scipy_logsumexp

import nbayes
from nbayes._math import LOG_LOSS_EPS, log_loss_of_true_class, log_normalize_rows, logsumexp
from nbayes.evaluate.learning_curves import true_class_proba
from nbayes.metrics import classification_measures, log_loss

values = st.one_of(st.floats(-1e300, 1e300), st.just(-np.inf))


@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 6)), elements=values))
def test_logsumexp_equals_scipy_and_never_warns(a):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for axis in (0, 1, None):
            got = logsumexp(a, axis=axis)
            with np.errstate(all="ignore"):  # SciPy warns on a slice of -inf
                want = np.where(np.isneginf(np.max(a, axis=axis)), -np.inf, scipy_logsumexp(a, axis=axis))
            assert_allclose(got, want, rtol=1e-13, atol=0)
            assert_array_equal(logsumexp(a, axis=axis, keepdims=True).shape, np.max(a, axis=axis, keepdims=True).shape)


def test_logsumexp_of_minus_infinity_is_minus_infinity_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert logsumexp(np.full(3, -np.inf)) == -np.inf
        assert logsumexp(np.array([[-np.inf, -np.inf], [0.0, -np.inf]]), axis=1).tolist() == [-np.inf, 0.0]
        assert logsumexp(np.array([[-np.inf, np.inf]]), axis=1).tolist() == [np.inf]
        assert np.isnan(logsumexp(np.array([np.nan, 0.0])))
        assert logsumexp(np.empty((2, 0)), axis=1).tolist() == [-np.inf, -np.inf]
        assert logsumexp(np.array([1000.0, 1000.0])) == pytest.approx(1000 + np.log(2), rel=1e-15)
        L = log_normalize_rows(np.array([[-np.inf, -np.inf], [1.0, 1.0]]))
    assert np.isneginf(L[0]).all()
    assert_allclose(L[1], np.log([0.5, 0.5]), rtol=1e-15)


def test_the_log_loss_core_clips_as_scikit_learn():
    from sklearn.metrics import log_loss as sk_log_loss

    p = np.array([0.0, 1e-300, 0.5, 1.0])
    assert log_loss_of_true_class(p) == pytest.approx(-np.mean(np.log(np.clip(p, LOG_LOSS_EPS, 1 - LOG_LOSS_EPS))), rel=1e-15)
    y = np.array([1, 1, 1, 1])
    P = np.column_stack([1 - p, p])
    assert log_loss(y, P, classes=[0, 1]) == pytest.approx(sk_log_loss(y, P, labels=[0, 1]), rel=1e-12)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    assert log_loss_of_true_class(p, w) == pytest.approx(np.average(-np.log(np.clip(p, LOG_LOSS_EPS, 1 - LOG_LOSS_EPS)), weights=w))


class RowModel:
    """A deterministic classifier of X = row ids: impossible and near-certain true classes, so
    every floor shows (a zero probability, 1e-300, 1 - 1e-17)."""

    classes_ = np.array(["a", "b", "c"])

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        ids = np.asarray(X, dtype=float)[:, 0].astype(int)  # one row's probabilities depend on its id only
        P = np.stack([np.random.default_rng(i).dirichlet([0.3, 0.3, 0.3]) for i in ids])
        P[ids % 5 == 0] = [1.0, 0.0, 0.0]
        P[ids % 7 == 0] = [1e-300, 1.0 - 1e-300, 0.0]
        return P

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def test_compare_and_metrics_give_the_same_log_loss_for_the_same_model():
    n = 140
    X = np.arange(n, dtype=float)[:, None]
    y = np.array(["a", "b", "c"])[np.arange(n) % 3]
    result = nbayes.compare(X, y, nb=RowModel(), lr=RowModel(), sizes=[30], repeats=1, random_state=0,
                            lr_preprocess="never")
    # the test rows: those compare held out (the same seed gives the same split)
    from nbayes._validation import classes_and_codes
    from nbayes.evaluate._sampling import _rng, _split

    classes, codes = classes_and_codes(y)
    test, _ = _split(codes, 3, 0.3, True, _rng(0))
    P = RowModel().predict_proba(X[test])
    want = log_loss(y[test], P, classes=RowModel.classes_)
    assert result.nb_log_loss[0, 0] == want and result.lr_log_loss[0, 0] == want  # the same number, exactly
    assert want == log_loss_of_true_class(true_class_proba(RowModel(), X[test], codes[test], classes))
    assert classification_measures(y[test], RowModel().predict(X[test]), P, RowModel.classes_)["log_loss"] == want


def test_compare_and_metrics_agree_on_a_fitted_naive_bayes(rng):
    X = rng.poisson(1.0, (200, 5)).astype(float)
    y = rng.integers(0, 3, 200)
    X[y == 0, 0] += 40  # confident rows: probabilities below the floor
    model = nbayes.MultinomialNB(alpha=1e-10).fit(X[:100], y[:100])
    classes = np.unique(y)
    from nbayes.evaluate.learning_curves import _log_loss

    got = _log_loss(model, X[100:], np.searchsorted(classes, y[100:]), classes)
    assert got == log_loss(y[100:], model.predict_proba(X[100:]), classes=model.classes_)
    from nbayes.model_selection._scoring import neg_log_loss

    lp = model.predict_log_proba(X[100:])
    assert -neg_log_loss(np.searchsorted(classes, y[100:]), lp) == pytest.approx(got, rel=1e-14)
