"""A calibrated model's explanation says what its terms add up to, and they do, exactly: the
calibrated model's numbers where the map is affine in the log-odds (temperature with eps 0,
sigmoid of two classes inside its range), else the base model's own (labelled uncalibrated).
Over every method, ensemble or not, table and text base models; and its capabilities are the
base model's that a map keeps."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes._math import logsumexp
from nbayes.calibration import CalibratedClassifier, CalibratedExplanation, TemperatureScaling, calibrate
from nbayes.errors import InvalidParameterError

METHODS = ("temperature", "sigmoid", "isotonic")
TOL = dict(rtol=1e-10, atol=1e-10)


def counts(rng, n=300, K=2, d=6):
    y = rng.integers(0, K, n)
    theta = rng.dirichlet(np.ones(d), size=K)
    base = np.stack([rng.multinomial(8, theta[c]) for c in y])
    return np.concatenate([base, base], axis=1).astype(float), y  # correlated copies: over-confident


def texts(rng, n=240):
    words = {"a": ["cheap", "win", "offer", "prize", "now", "free"], "b": ["meeting", "lunch", "noon", "team", "now", "notes"]}
    y = rng.choice(["a", "b"], n)
    docs = [" ".join(rng.choice(words[c], rng.integers(2, 9))) for c in y]
    return docs, y


def check_sum(cal: CalibratedClassifier, X, e: CalibratedExplanation) -> None:
    """The law: the terms add up to what ``sums_to`` says."""
    base = cal.base_estimator_
    assert isinstance(e, CalibratedExplanation) and isinstance(e.sums_to, str) and e.sums_to
    text = isinstance(X, str)
    if text:
        total = float(np.sum(e.explanation.contributions)) + float(e.explanation.baseline)
        classes = list(cal.classes_)
        a, b = classes.index(e.explanation.predicted), classes.index(e.explanation.runner_up)
        if e.calibrated:
            lp = cal.predict_log_proba([X])[0]
            assert_allclose(total, lp[a] - lp[b], **TOL)
            assert e.explanation.predicted == cal.predict([X])[0]
            assert "calibrated log-odds" in e.sums_to
        else:
            jll = base.predict_joint_log_proba([X])[0]
            assert_allclose(total, jll[a] - jll[b], **TOL)
            assert "uncalibrated" in e.sums_to
    else:
        joint = e.explanation.joint()
        if e.calibrated:
            assert_allclose(joint - logsumexp(joint, axis=1, keepdims=True), cal.predict_log_proba(X), **TOL)
            assert "calibrated joint scores" in e.sums_to
        else:
            assert_allclose(joint, base.predict_joint_log_proba(X), **TOL)
            assert "uncalibrated" in e.sums_to


def expected_calibrated(cal: CalibratedClassifier, method: str, ensemble: bool, n_classes: int) -> bool | None:
    """Whether the explanation must be the calibrated one (None: it depends on the rows)."""
    if ensemble or method == "isotonic" or (method == "sigmoid" and n_classes > 2):
        return False
    if method == "temperature":
        return cal.calibrator_.eps_ == 0
    return None  # sigmoid of two classes: calibrated unless a row is clipped


@pytest.mark.parametrize("ensemble", [False, True])
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("K", [2, 3])
def test_table_model_explanations_add_up(rng, method, ensemble, K):
    X, y = counts(rng, K=K)
    cal = CalibratedClassifier(nbayes.MultinomialNB(), method=method, cv=3, ensemble=ensemble).fit(X, y)
    Q = X[:25]
    e = cal.explain(Q)
    check_sum(cal, Q, e)
    want = expected_calibrated(cal, method, ensemble, K)
    if want is not None:
        assert e.calibrated is want
    if method == "sigmoid" and K == 2 and not ensemble:
        assert e.calibrated  # rows of the training distribution lie inside the fitted range
        assert_allclose([e.scale, e.shift], [cal.calibrator_.coef_[0], cal.calibrator_.intercept_[0]], rtol=1e-15)


@pytest.mark.parametrize("ensemble", [False, True])
@pytest.mark.parametrize("method", METHODS)
def test_text_model_explanations_add_up(rng, method, ensemble):
    docs, y = texts(rng)
    cal = CalibratedClassifier(nbayes.TextClassifier(), method=method, cv=3, ensemble=ensemble).fit(docs, y)
    for doc in ["cheap offer now", "team lunch notes", "now", "unknown words only"]:
        e = cal.explain(doc)
        check_sum(cal, doc, e)
        want = expected_calibrated(cal, method, ensemble, 2)
        if want is not None:
            assert e.calibrated is want
        assert list(e.tokens) == list(cal.base_estimator_.explain(doc).tokens)  # the explanation's fields, reachable


@pytest.mark.parametrize("text", [False, True])
def test_temperature_without_the_uniform_mixture_scales_the_terms_by_one_over_T(rng, text):
    """eps 0: softmax(joint / T), so the terms / T add up to the calibrated numbers."""
    if text:
        X, y = texts(rng)
        model, Q = nbayes.TextClassifier().fit(X[:150], y[:150]), "cheap lunch now"
    else:
        X, y = counts(rng, K=3)
        model, Q = nbayes.MultinomialNB().fit(X[:150], y[:150]), X[150:170]
    cal = calibrate(model, X[150:], y[150:])
    L = model.predict_log_proba(X[150:])
    codes = np.searchsorted(model.classes_, y[150:])
    cal._set(model, TemperatureScaling(eps=0).fit(L, codes))
    e = cal.explain(Q)
    assert e.calibrated and e.shift == 0
    assert_allclose(e.scale, 1 / cal.calibrator_.temperature_, rtol=1e-15)
    check_sum(cal, Q, e)
    b = model.explain(Q)
    assert_allclose(np.asarray(e.contributions), np.asarray(b.contributions) / cal.calibrator_.temperature_, rtol=1e-15)


def test_a_sigmoid_row_outside_the_fitted_range_gets_the_base_explanation(rng):
    X, y = counts(rng)
    cal = CalibratedClassifier(nbayes.MultinomialNB(), method="sigmoid", cv=3).fit(X, y)
    extreme = X[:3] * 50  # log-odds far beyond those seen: the map is clipped (constant) there
    e = cal.explain(extreme)
    assert not e.calibrated
    check_sum(cal, extreme, e)


def test_a_sigmoid_that_turns_the_order_explains_the_calibrated_winner(rng):
    """Two classes, text: the terms are oriented toward the class the calibrated model predicts."""
    docs, y = texts(rng)
    cal = CalibratedClassifier(nbayes.TextClassifier(), method="sigmoid", cv=3).fit(docs, y)
    cal.calibrator_.intercept_ = np.array([-40.0])  # pushes every row toward classes_[0]
    doc = "cheap offer now"
    e = cal.explain(doc)
    assert e.calibrated and e.predicted == cal.predict([doc])[0] == cal.classes_[0]
    check_sum(cal, doc, e)


def test_explain_of_a_base_without_explanations_is_a_clear_error(rng):
    X, y = counts(rng)
    cal = CalibratedClassifier(nbayes.GaussianBayes(shrinkage="auto"), cv=3).fit(X, y)
    assert "explain" not in cal.capabilities
    with pytest.raises(InvalidParameterError, match="GaussianBayes"):
        cal.explain(X[:2])


@pytest.mark.parametrize("method", ["temperature", "isotonic"])
def test_a_calibrated_logistic_regression_explains(rng, method):
    """A logistic regression explains (its decision function, term by term): calibrated, its
    terms add up to the calibrated scores where the map is affine, else to the base model's."""
    X, y = counts(rng)
    cal = CalibratedClassifier(nbayes.LogisticRegression(), method=method, cv=3).fit(X, y)
    assert "explain" in cal.capabilities
    e = cal.explain(X[:5])
    joint = e.explanation.joint()
    want = cal.predict_log_proba(X[:5]) if e.calibrated else cal.base_estimator_.predict_log_proba(X[:5])
    assert_allclose(joint - logsumexp(joint, axis=1, keepdims=True), want, **TOL)


@pytest.mark.parametrize("make", [
    lambda: nbayes.MultinomialNB(), lambda: nbayes.TextClassifier(), lambda: nbayes.NaiveBayes(),
    lambda: nbayes.GaussianNB(), lambda: nbayes.LogisticRegression(), lambda: nbayes.GaussianBayes(),
], ids=["multinomial", "text", "columns", "gaussian", "logistic", "gaussian-bayes"])
def test_capabilities_are_the_base_models_that_a_map_keeps(make):
    base = make()
    cal = CalibratedClassifier(base)
    # missing values are not passed on: the map was fitted on the scores of complete rows
    kept = {"explain", "text", "columns", "sparse", "sample_weight", "save"}
    assert cal.capabilities == (base.capabilities & kept) | {"calibrated"}  # (what evaluate's reports read)
    assert "calibrated" not in base.capabilities
    assert "missing_values" not in cal.capabilities
    for name in ("partial_fit", "unlearn", "merge", "with_prior", "to_logistic", "statistics", "joint_log_proba"):
        assert name not in cal.capabilities
        if name in ("partial_fit", "unlearn", "merge", "with_prior", "to_logistic"):
            assert not hasattr(cal, name)  # not declared, not offered
    assert ("text" in cal.capabilities) == ("text" in base.capabilities)
    assert ("explain" in cal.capabilities) == hasattr(base, "explain")
