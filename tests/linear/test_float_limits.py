"""Issue #27: logistic regression at the float limits. Scores whose true value lies beyond
float64 (coefficients near 1e308, from a model file or to_logistic) give finite, correct
probabilities; a fit whose weights or features the solver cannot hold is refused with a clear
error; a saved model with such coefficients loads, predicts and saves again."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy.special import expit, log_softmax

import nbayes
from nbayes.errors import DataError
from nbayes.io.model_file import load_state, save_state

X = np.array([[1.0, 2.0], [3.0, 0.5], [0.2, 0.1], [2.0, 2.0]])


def _edited(tmp_path, y, v):
    path = tmp_path / "m.nbm"
    nbayes.LogisticRegression().fit(X, y).save(path)
    state = load_state(path)
    coef = state["arrays"]["coef"].copy()
    coef.flat[0], coef.flat[-1] = v, -v
    save_state(path, {**state, "arrays": {**state["arrays"], "coef": coef}})
    return nbayes.load(path), coef, state["arrays"]["intercept"]


@pytest.mark.parametrize("v", [1e308, -1e308, 1.7e308])
def test_two_classes_with_coefficients_at_the_float_limit(tmp_path, v):
    model, coef, b = _edited(tmp_path, [0, 1, 0, 1], v)
    p = model.predict_proba(X)
    assert np.isfinite(p).all()
    # row 3 (2, 2): the two huge terms cancel exactly; its log-odds is the intercept alone
    np.testing.assert_allclose(p[3, 1], expit(b[0]), rtol=1e-12)
    # the others: log-odds beyond float64, so one class has probability 1
    z = np.sign(X[:3] @ np.sign(coef[0]))
    np.testing.assert_array_equal(p[:3, 1], (z > 0).astype(float))
    np.testing.assert_allclose(model.predict_log_proba(X)[3], np.log(p[3]), rtol=1e-14)
    assert not np.isnan(model.decision_function(X)).any()
    model.save(tmp_path / "again.nbm")  # such a model saves and loads back
    np.testing.assert_array_equal(nbayes.load(tmp_path / "again.nbm").predict_proba(X), p)


def test_several_classes_with_coefficients_at_the_float_limit(tmp_path):
    model, coef, b = _edited(tmp_path, [0, 1, 2, 1], 1e308)
    lp = model.predict_log_proba(X)
    assert not np.isnan(lp).any() and np.all(lp <= 0)
    np.testing.assert_array_equal(model.predict_proba(X).sum(axis=1), np.ones(4))
    # the exact scores (rationals): the largest true score wins outright (its lead is beyond float64)
    true = [[sum(Fraction(float(c)) * Fraction(float(x)) for c, x in zip(row, xi)) + Fraction(float(bk))
             for row, bk in zip(coef, b)] for xi in X]
    np.testing.assert_array_equal(model.predict(X), model.classes_[[max(range(3), key=t.__getitem__) for t in true]])


def test_scores_in_range_are_unchanged():
    model = nbayes.LogisticRegression().fit(X, [0, 1, 2, 1])
    Z = X @ model.coef_.T + model.intercept_
    np.testing.assert_allclose(model.predict_log_proba(X), log_softmax(Z, axis=1), rtol=1e-12)


@pytest.mark.parametrize("w", [1e-150, 1e-20, 1e12, 1e150, 1e300])
def test_uniform_weights_are_a_rescaled_C(w):
    """C sum w loss + |W|^2/2 with every w = s is C s sum loss + |W|^2/2: the same optimum as C s
    unweighted, found without overflow whatever s (no warning: warnings are errors here)."""
    y = [0, 1, 0, 1, 2, 2]
    Xs = np.array([[1.0, 2.0], [3.0, 0.5], [0.2, 0.1], [2.0, 2.0], [0.0, 3.0], [0.5, 2.5]])
    a = nbayes.LogisticRegression(C=1.0, tol=1e-10).fit(Xs, y, sample_weight=np.full(6, w))
    b = nbayes.LogisticRegression(C=w, tol=1e-10).fit(Xs, y)
    np.testing.assert_allclose(a.predict_proba(Xs), b.predict_proba(Xs), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.objective_, b.objective_ * w, rtol=1e-9)


def test_weights_whose_scale_times_C_leaves_the_range_are_refused():
    with pytest.raises(DataError, match=r"sample_weight: the weights' scale \(1e\+300\) times C \(1e\+10\)"):
        nbayes.LogisticRegression(C=1e10).fit(X, [0, 1, 0, 1], sample_weight=np.full(4, 1e300))


def test_a_feature_beyond_the_solver_range_is_refused_naming_it():
    Xb = X.copy()
    Xb[2, 1] = 1e154
    with pytest.raises(DataError, match=r"X: row 2, column 1 holds 1e\+154: .*float32"):
        nbayes.LogisticRegression().fit(Xb, [0, 1, 0, 1])


def test_to_logistic_with_coefficients_near_the_limit_predicts_finite():
    y = np.array([0, 0, 1, 1, 2, 2])
    Xg = np.column_stack([[1.0, 1, 2, 2, 3, 3], [0.0, 1, 0, 1, 0, 1]])
    lr = nbayes.GaussianNB(variance="feature", var_smoothing=1e-300).fit(Xg, y).to_logistic()
    assert np.abs(lr.coef_).max() > 1e299
    far = np.vstack([Xg, Xg * 1e5])
    p = lr.predict_proba(far)
    assert np.isfinite(p).all()
    np.testing.assert_array_equal(lr.predict(Xg), y)
