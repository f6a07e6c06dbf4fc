"""model.estimate_prior: EM of Saerens et al., BBSE, the likelihood-ratio test, the calibration."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

import nbayes
from nbayes.errors import DataError, InvalidParameterError
from nbayes.shift import PriorEstimate, ShiftCalibration, em_prior, estimate_prior, lr_test

K, V, LENGTH = 3, 40, 30


def generative(rng: np.random.Generator, n: int, prior: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows drawn from a multinomial Naive Bayes model: y ~ prior, words ~ Multinomial(theta_y)."""
    y = rng.choice(len(prior), size=n, p=prior)
    X = np.stack([rng.multinomial(LENGTH, theta[c]) for c in y])
    return X, y


@pytest.fixture
def world(rng):
    """A fitted MultinomialNB and its own generative distribution (so its posteriors are exact)."""
    theta = rng.dirichlet(np.full(V, 0.3), size=K)
    X, y = generative(rng, 3000, np.array([0.5, 0.3, 0.2]), theta)
    model = nbayes.MultinomialNB().fit(X, y)
    truth = np.exp(model.feature_log_prob_)  # sample from what the model believes: exact posteriors
    return model, truth, X, y


def test_em_recovers_a_new_prior_drawn_from_the_models_distribution(world, rng):
    model, theta, _, _ = world
    new = np.array([0.1, 0.2, 0.7])
    X, y = generative(rng, 4000, new, theta)
    est = model.estimate_prior(X, n_bootstrap=100, random_state=0)
    shares = np.bincount(y, minlength=K) / len(y)
    assert_allclose(est.prior, shares, atol=0.02)
    assert est.method == "em" and not est.calibrated
    assert np.all(est.lower <= est.prior + 1e-12) and np.all(est.prior <= est.upper + 1e-12)
    assert np.all((est.lower <= shares) & (shares <= est.upper))
    assert est.p_value < 1e-10 and est.shifted
    assert_allclose(est.source_prior, np.exp(model.class_log_prior_))


def test_em_is_a_fixed_point_and_maximises_the_likelihood(world, rng):
    model, theta, _, _ = world
    X, _ = generative(rng, 500, np.array([0.6, 0.1, 0.3]), theta)
    L = model.predict_log_proba(X)
    ls = model.class_log_prior_
    pi, n_iter = em_prior(L, ls, tol=1e-13)
    assert n_iter > 1
    q = np.exp(L + np.log(pi) - ls)
    q /= q.sum(axis=1, keepdims=True)
    assert_allclose(q.mean(axis=0), pi, atol=1e-10)  # eq. 2.10 at the estimate
    from nbayes._prior_shift import log_likelihood_ratio

    best = log_likelihood_ratio(L, ls, pi)
    for other in rng.dirichlet(np.ones(K), size=50):
        assert log_likelihood_ratio(L, ls, other) <= best + 1e-9


def test_em_on_certain_posteriors_counts_the_classes():
    """Closed form: one-hot posteriors make EM classify and count, in one step."""
    codes = np.array([0, 0, 1, 2, 2, 2, 2, 1])
    L = np.full((len(codes), 3), -np.inf)
    L[np.arange(len(codes)), codes] = 0.0
    pi, _ = em_prior(L, np.log(np.array([0.2, 0.5, 0.3])))
    assert_allclose(pi, [2 / 8, 2 / 8, 4 / 8])


def test_the_likelihood_ratio_test_is_calibrated_under_no_shift(world):
    model, theta, _, _ = world
    source = np.exp(model.class_log_prior_)
    pvalues = []
    for seed in range(60):
        X, _ = generative(np.random.default_rng(seed), 400, source, theta)
        pvalues.append(model.estimate_prior(X, n_bootstrap=0).p_value)
    pvalues = np.array(pvalues)
    assert 0.0 <= np.mean(pvalues < 0.05) <= 0.15
    assert stats.kstest(pvalues, "uniform").pvalue > 0.001


def test_the_likelihood_ratio_test_rejects_under_shift(world):
    model, theta, _, _ = world
    for seed in range(10):
        X, _ = generative(np.random.default_rng(seed), 400, np.array([0.2, 0.3, 0.5]), theta)
        assert model.estimate_prior(X, n_bootstrap=0).p_value < 0.01


def test_lr_test_closed_form():
    """Two classes, one row certain of class 0 under a source prior of (1/2, 1/2): the maximum
    likelihood prior is (1, 0) and 2 log LR = 2 log 2."""
    L = np.array([[0.0, -np.inf]])
    stat, df, p = lr_test(L, np.log([0.5, 0.5]), np.array([1.0, 0.0]))
    assert_allclose(stat, 2 * np.log(2))
    assert df == 1
    assert_allclose(p, stats.chi2.sf(2 * np.log(2), 1))


def test_with_prior_takes_the_estimate(world, rng):
    model, theta, _, _ = world
    X, _ = generative(rng, 300, np.array([0.1, 0.1, 0.8]), theta)
    est = model.estimate_prior(X, n_bootstrap=0)
    assert isinstance(est, PriorEstimate)
    assert dict(est) == {c: float(p) for c, p in zip(model.classes_.tolist(), est.prior)}
    adapted = model.with_prior(est)
    assert_allclose(adapted.predict_proba(X), model.with_prior(est.prior.tolist()).predict_proba(X))
    assert_allclose(np.exp(adapted.class_log_prior_), est.prior / est.prior.sum())
    d = est.to_dict()
    assert set(d) >= {"prior", "interval", "test", "method"} and d["test"]["df"] == K - 1


def test_calibrated_estimates_and_bbse(world, rng):
    model, theta, X0, y0 = world
    cal = ShiftCalibration(cv=5).fit(model, X0, y0)
    # the bias makes the calibrated out-of-fold posteriors average to the class shares
    oof = nbayes.model_selection.cross_val_predict(model, X0, y0, cv=5, method="predict_log_proba")
    assert_allclose(np.exp(cal.transform(oof)).mean(axis=0), np.bincount(y0) / len(y0), atol=1e-5)
    assert_allclose(cal.confusion.sum(axis=0), 1.0)
    X, y = generative(rng, 3000, np.array([0.15, 0.7, 0.15]), theta)
    shares = np.bincount(y, minlength=K) / len(y)
    for method in ("em", "bbse"):
        est = model.estimate_prior(X, calibration=cal, method=method, n_bootstrap=50, random_state=1)
        assert est.calibrated and est.method == method
        assert_allclose(est.prior, shares, atol=0.03)
    # the functional form gives the same estimate
    again = estimate_prior(model, X, X0, y0, n_bootstrap=0)
    assert_allclose(again.prior, model.estimate_prior(X, calibration=cal, n_bootstrap=0).prior, atol=1e-8)


def test_calibration_follows_a_model_adapted_since(world, rng):
    """with_prior after calibration: Bayes' rule takes the posteriors back first, exactly."""
    model, theta, X0, y0 = world
    cal = ShiftCalibration(cv=3).fit(model, X0, y0)
    X, _ = generative(rng, 200, np.array([0.3, 0.3, 0.4]), theta)
    moved = model.with_prior([0.05, 0.05, 0.9])
    assert_allclose(cal.apply(moved, moved.predict_log_proba(X)), cal.apply(model, model.predict_log_proba(X)),
                    atol=1e-9)


@pytest.mark.parametrize("make", [
    lambda: nbayes.GaussianNB(), lambda: nbayes.GaussianBayes(), lambda: nbayes.BernoulliNB(),
    lambda: nbayes.CategoricalNB(),
])
def test_every_generative_model_estimates(make, rng):
    X = rng.integers(0, 3, size=(300, 4)).astype(float)
    y = (X[:, 0] + rng.random(300) > 1.5).astype(int)
    model = make().fit(X, y)
    est = model.estimate_prior(X[y == 1], n_bootstrap=20, random_state=0)
    assert est.prior[1] > 0.6 and est.p_value < 0.01


def test_logistic_regression_needs_a_calibration(rng):
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    model = nbayes.LogisticRegression().fit(X, y)
    with pytest.raises(InvalidParameterError, match="no class prior of its own.*ShiftCalibration"):
        model.estimate_prior(X)
    est = model.estimate_prior(X[y == 1], calibration=ShiftCalibration(cv=3).fit(model, X, y), n_bootstrap=0)
    assert est.prior[1] > 0.8


def test_text_classifier_estimates():
    docs = ["cheap pills buy now", "meeting at noon", "buy cheap now", "lunch meeting today"] * 10
    y = ["spam", "ham", "spam", "ham"] * 10
    model = nbayes.TextClassifier().fit(docs, y)
    est = model.estimate_prior(["buy pills now"] * 9 + ["noon meeting"], n_bootstrap=0)
    assert_allclose(est.prior, [0.1, 0.9], atol=0.02)
    assert est.classes.tolist() == ["ham", "spam"]


def test_bad_requests(world):
    model, _, X0, y0 = world
    with pytest.raises(DataError, match="0 sample"):
        model.estimate_prior(np.zeros((0, V)))
    with pytest.raises(InvalidParameterError, match="bbse.*confusion"):
        model.estimate_prior(X0[:5], method="bbse")
    with pytest.raises(InvalidParameterError, match="'method' must be one of"):
        model.estimate_prior(X0[:5], method="cc")
    with pytest.raises(InvalidParameterError, match="confidence"):
        model.estimate_prior(X0[:5], confidence=1.0)
    with pytest.raises(InvalidParameterError, match="not fitted"):
        ShiftCalibration().apply(model, model.predict_log_proba(X0[:2]))
    with pytest.raises(InvalidParameterError, match="both X and y"):
        estimate_prior(model, X0[:5], X0)
    other = nbayes.MultinomialNB().fit(X0[:20], np.where(y0[:20] == 0, 7, 8))
    cal = ShiftCalibration(cv=2).fit(other, X0[:20], np.where(y0[:20] == 0, 7, 8))
    with pytest.raises(InvalidParameterError, match="fitted for the classes"):
        model.estimate_prior(X0[:5], calibration=cal)


def test_a_calibrated_classifier_starts_from_its_base_models_prior(world, rng):
    model, theta, X0, y0 = world
    calibrated = nbayes.CalibratedClassifier(nbayes.MultinomialNB(), cv=3).fit(X0, y0)
    assert_allclose(calibrated.prediction_prior, np.exp(model.class_log_prior_))
    X, y = generative(rng, 2000, np.array([0.7, 0.2, 0.1]), theta)
    est = calibrated.estimate_prior(X, n_bootstrap=0)
    assert_allclose(est.prior, np.bincount(y, minlength=K) / len(y), atol=0.03)
