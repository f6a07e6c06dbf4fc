"""The reports of ``nbayes.evaluate``: calibration measured before and after (on held-out rows,
on the out-of-fold rows of training, by cross-validation), the measures of predictions, and
the HTML page; the numbers are the measures of ``nbayes.metrics`` on the right probabilities."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes import evaluate
from nbayes.calibration import CalibratedClassifier, describe
from nbayes.errors import DataError, InvalidParameterError
from nbayes.metrics import brier_score, expected_calibration_error, log_loss
from nbayes.model_selection import check_cv


def blobs(rng, n=400, K=3, d=6):
    y = rng.integers(0, K, n)
    theta = rng.dirichlet(np.ones(d), size=K)
    base = np.stack([rng.multinomial(8, theta[c]) for c in y])
    return np.concatenate([base, base, base], axis=1).astype(float), np.array(["x", "y", "z"])[y]


def test_calibration_scores_are_the_metrics(rng):
    y = np.array(["a", "b"])[rng.integers(0, 2, 50)]
    P = rng.dirichlet([1, 1], 50)
    s = evaluate.calibration_scores(y, P, ["a", "b"])
    assert s["log_loss"] == log_loss(y, P, classes=["a", "b"]) and s["brier"] == brier_score(y, P, classes=["a", "b"])
    assert s["ece"] == expected_calibration_error(y, P, classes=["a", "b"], n_bins=evaluate.N_BINS)
    assert s["accuracy"] == np.mean(np.array(["a", "b"])[P.argmax(1)] == y)


@pytest.mark.parametrize("ensemble", [False, True])
def test_training_calibration_measures_each_row_through_the_map_fitted_without_it(rng, ensemble):
    X, y = blobs(rng)
    cal = CalibratedClassifier(nbayes.MultinomialNB(), method="sigmoid", cv=5, ensemble=ensemble).fit(X, y)
    out = evaluate.training_calibration(cal, y)
    oof = cal.oof_log_proba_
    if not ensemble:
        after = cal.calibrator_.transform(oof)
    else:  # what the CLI rebuilt by hand: each row through its split's map
        after = np.empty_like(oof)
        for (_, test), m in zip(check_cv(5, X, y), cal.calibrators_, strict=True):
            after[test] = m.transform(oof[test])
    assert_allclose(cal.oof_calibrated_log_proba_, after, rtol=0, atol=0)
    assert out["cv"] == 5 == cal.n_splits_
    assert out["out_of_fold_before"] == evaluate.calibration_scores(y, np.exp(oof), cal.classes_)
    assert out["out_of_fold_after"] == evaluate.calibration_scores(y, np.exp(after), cal.classes_)
    assert {k: out[k] for k in describe(cal)} == describe(cal)


def test_calibration_of_model_is_one_pass_before_and_after(rng, tmp_path):
    X, y = blobs(rng)
    cal = CalibratedClassifier(nbayes.MultinomialNB(), cv=3).fit(X[:300], y[:300])
    cal.save(tmp_path / "m.nbm")
    back = nbayes.load(tmp_path / "m.nbm")
    yq = y[300:].copy()
    yq[:3] = "never seen"  # left out of the measures
    out, curves = evaluate.calibration_of_model(back, X[300:], yq)
    keep = slice(3, None)
    before = np.exp(back.base_estimator_.predict_log_proba(X[300:]))[keep]
    after = back.predict_proba(X[300:])[keep]
    assert out["rows"] == 97 and out["measured_on"] == "the evaluation data"
    assert out["before"] == evaluate.calibration_scores(yq[keep], before, back.classes_)
    assert_allclose(curves.after, after, rtol=1e-15)
    with pytest.raises(DataError, match="out-of-fold"):
        evaluate.training_calibration(back, y[:300])  # a loaded model holds no training scores
    with pytest.raises(InvalidParameterError, match="CalibratedClassifier"):
        evaluate.calibration_of_model(nbayes.MultinomialNB().fit(X, y), X, y)


def test_cross_validated_calibration_and_the_html_report(rng, tmp_path):
    X, y = blobs(rng)
    folds = [test for _, test in check_cv(3, X, y)]
    out, curves = evaluate.cross_validated_calibration(
        lambda: nbayes.MultinomialNB(), lambda m, rows: X[rows], y, folds, "temperature")
    assert out["rows"] == len(y) and len(out["temperature_per_fold"]) == 3
    assert out["after"]["accuracy"] == out["before"]["accuracy"]  # temperature keeps every prediction
    model = nbayes.MultinomialNB().fit(X, y)
    result = evaluate.classification_measures(y, model.predict(X), model.predict_proba(X), model.classes_)
    assert result["log_loss"] == log_loss(y, model.predict_proba(X), classes=model.classes_)
    result["calibration"] = out
    page = evaluate.write_report(tmp_path / "r.html", result, curves, "blobs").read_text()
    assert "<h2>Calibration</h2>" in page and "Confusion matrix" in page
    assert not (tmp_path / ".r.html.tmp").exists()


def test_classification_measures_keep_label_types():
    m = evaluate.classification_measures(np.array([True, 1, 1], dtype=object), np.array([True, 1, True], dtype=object),
                                         None, np.array([True, 1], dtype=object))
    assert m["labels"] == [True, 1] and m["confusion_matrix"] == [[1, 0], [1, 1]]  # True is not 1
