"""Calibration (``nbayes.calibration``) and its measures (``nbayes.metrics``): the measures equal
scikit-learn's; every map is monotone and gives probabilities summing to 1 (no NaN, also with
zero probabilities); temperature scaling keeps every prediction; the calibrated model saves to
one file, loads, serves and explains; the CLI trains, evaluates and reports with it."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from importlib import resources

import numpy as np
import pytest

import nbayes
from nbayes.calibration import (
    CalibratedClassifier,
    IsotonicCalibration,
    SigmoidCalibration,
    TemperatureScaling,
    calibrate,
)
from nbayes.errors import DataError, InvalidParameterError, NotFittedError
from nbayes.evaluate.metrics import (
    brier_score,
    expected_calibration_error,
    log_loss,
    reliability_curve,
    reliability_diagram,
)

METHODS = ("temperature", "sigmoid", "isotonic")
MAPS = {"temperature": TemperatureScaling, "sigmoid": SigmoidCalibration, "isotonic": IsotonicCalibration}


# ---------------------------------------------------------------------------- data
@pytest.fixture(scope="module")
def sms():
    raw = resources.files("nbayes").joinpath("data", "sms_spam.jsonl.gz").read_bytes()
    rows = [json.loads(line) for line in gzip.decompress(raw).decode("utf-8").splitlines()]
    return [r["text"] for r in rows], np.array([r["label"] for r in rows])


def blobs(rng, n=600, K=3, d=6):
    """Count data where Naive Bayes is over-confident (features are correlated copies)."""
    y = rng.integers(0, K, n)
    theta = rng.dirichlet(np.ones(d), size=K)
    base = np.stack([rng.multinomial(8, theta[c]) for c in y])
    X = np.concatenate([base, base, base], axis=1)  # three copies: log-odds tripled
    return X, y


def random_log_proba(rng, n, K, zeros=0.0):
    Z = rng.normal(scale=6.0, size=(n, K))
    if zeros:
        Z[rng.random((n, K)) < zeros] = -np.inf
        Z[np.arange(n), rng.integers(0, K, n)] = rng.normal(size=n)  # one finite entry per row
    m = Z.max(axis=1, keepdims=True)
    return Z - (m + np.log(np.exp(Z - m).sum(axis=1, keepdims=True)))


# ---------------------------------------------------------------------------- metrics
def test_metrics_equal_scikit_learn(rng):
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import brier_score_loss
    from sklearn.metrics import log_loss as sk_log_loss

    for K in (2, 3, 5):
        y = rng.integers(0, K, 300)
        P = rng.dirichlet(np.ones(K) * 0.3, size=300)
        P[:5] = np.eye(K)[(y[:5] + 1) % K]  # wrong and certain: clipped, as scikit-learn clips
        w = rng.random(300)
        labels = np.array(["c%d" % k for k in range(K)])
        assert log_loss(labels[y], P) == pytest.approx(sk_log_loss(labels[y], P), abs=1e-12)
        assert log_loss(y, P, sample_weight=w) == pytest.approx(sk_log_loss(y, P, sample_weight=w), abs=1e-12)
        assert brier_score(y, P, sample_weight=w) == pytest.approx(
            brier_score_loss(y, P if K > 2 else P[:, 1], sample_weight=w, labels=np.arange(K) if K > 2 else None), abs=1e-12
        )
    y = rng.integers(0, 2, 500)
    p = rng.random(500)
    P = np.column_stack([1 - p, p])
    assert brier_score(y, P) == pytest.approx(brier_score_loss(y, p), abs=1e-12)
    assert brier_score(y, p) == pytest.approx(brier_score_loss(y, p), abs=1e-12)  # one column: P(classes[1])
    acc, conf = calibration_curve(y, p, n_bins=7)
    c = reliability_curve(y, P, n_bins=7, positive=1)
    assert np.allclose(c.accuracy, acc, atol=1e-12) and np.allclose(c.confidence, conf, atol=1e-12)
    assert c.weight.sum() == pytest.approx(1.0) and c.count.sum() == 500


def test_expected_calibration_error_by_hand():
    y = ["a", "b", "b", "a", "a"]
    P = [[0.9, 0.1], [0.3, 0.7], [0.6, 0.4], [0.55, 0.45], [0.2, 0.8]]
    # 4 bins of width .25; top confidences .9 (right), .7 (right), .6 (wrong), .55 (right), .8 (wrong)
    # (.5, .75]: .7, .6, .55 -> acc 2/3, conf .6167; (.75, 1]: .9, .8 -> acc 1/2, conf .85
    want = 3 / 5 * abs(2 / 3 - (0.7 + 0.6 + 0.55) / 3) + 2 / 5 * abs(0.5 - 0.85)
    assert expected_calibration_error(y, P, n_bins=4) == pytest.approx(want, abs=1e-12)
    assert expected_calibration_error(y, np.eye(2)[[0, 1, 1, 0, 0]]) == 0.0


def test_metric_errors_name_the_problem():
    with pytest.raises(DataError, match="3 columns but there are 2 classes"):
        log_loss([0, 1], [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    with pytest.raises(DataError, match="row 1 has label 'z'"):
        log_loss(["a", "z"], [[0.5, 0.5], [0.5, 0.5]], classes=["a", "b"])
    with pytest.raises(DataError, match=r"row 0, column 1 is .*probabilities lie in \[0, 1\]"):
        brier_score([0, 1], [[0.5, 1.5], [0.5, 0.5]])
    with pytest.raises(DataError, match="pass classes="):
        log_loss(["a", "a"], [[0.5, 0.5], [0.5, 0.5]])


def test_reliability_diagram_png(rng, tmp_path):
    pytest.importorskip("matplotlib")
    y = rng.integers(0, 3, 200)
    P = rng.dirichlet(np.ones(3), size=200)
    png = reliability_diagram(y, {"a": P, "b": P ** 2 / (P ** 2).sum(axis=1, keepdims=True)}, path=tmp_path / "r.png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and (tmp_path / "r.png").read_bytes() == png


# ---------------------------------------------------------------------------- the maps
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("K", [2, 4])
def test_maps_give_probabilities_summing_to_one_without_nan(rng, method, K):
    L = random_log_proba(rng, 400, K, zeros=0.3)  # -inf entries: zero probabilities (alpha=0)
    y = np.array([rng.choice(np.flatnonzero(np.isfinite(r))) if rng.random() < 0.9 else rng.integers(0, K) for r in L])
    cal = MAPS[method]().fit(L, y)
    out = cal.transform(random_log_proba(rng, 300, K, zeros=0.5))
    assert not np.isnan(out).any() and (out <= 0).all()
    assert np.allclose(np.exp(out).sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_binary_maps_are_monotone_in_the_log_odds(rng, method):
    s = rng.normal(scale=8, size=2000)
    y = (rng.random(2000) < 1 / (1 + np.exp(-0.4 * s))).astype(int)  # over-confident scores
    L = np.column_stack([-np.logaddexp(0, s), -np.logaddexp(0, -s)])
    cal = MAPS[method]().fit(L, y)
    grid = np.r_[-np.inf, np.linspace(-60, 60, 4001), np.inf]
    G = np.column_stack([-np.logaddexp(0, grid), -np.logaddexp(0, -grid)])
    p1 = np.exp(cal.transform(G))[:, 1]
    assert np.all(np.diff(p1) >= -1e-15) and not np.isnan(p1).any()
    if method != "isotonic":
        assert p1[1] < 0.01 and p1[-2] > 0.99 and np.all(np.diff(p1[1:-1]) >= 0)


@pytest.mark.parametrize("method", METHODS)
def test_multiclass_maps_are_monotone_per_class(rng, method):
    """Raising one class's log-probability (the row renormalised) never lowers its calibrated
    probability."""
    X, y = blobs(rng)
    L = nbayes.MultinomialNB().fit(X, y).predict_log_proba(X)
    cal = MAPS[method]().fit(L, y)
    A = random_log_proba(rng, 200, 3)
    for k in range(3):
        for delta in (0.1, 1.0, 5.0):
            B = A.copy()
            B[:, k] += delta
            B -= np.logaddexp.reduce(B, axis=1, keepdims=True)
            assert np.all(np.exp(cal.transform(B))[:, k] >= np.exp(cal.transform(A))[:, k] - 1e-12)


def test_temperature_equals_scikit_learn_with_its_eps(rng):
    from sklearn.calibration import _TemperatureScaling

    X, y = blobs(rng)
    L = nbayes.MultinomialNB().fit(X[:300], y[:300]).predict_log_proba(X[300:])
    ours = TemperatureScaling(eps=1e-12).fit(L, y[300:])
    theirs = _TemperatureScaling().fit(np.exp(L), y[300:])
    assert ours.temperature_ == pytest.approx(1 / float(theirs.beta_), rel=1e-6)
    assert np.allclose(np.exp(ours.transform(L)), theirs.predict(np.exp(L)), atol=1e-8)
    auto = TemperatureScaling().fit(L, y[300:])  # eps chosen from a grid holding 1e-12 and 0
    assert auto.log_loss_ <= ours.log_loss_ + 1e-12 and auto.temperature_ > 1  # NB is over-confident


def test_sigmoid_equals_platt_as_scikit_learn_fits_it(rng):
    from sklearn.calibration import _sigmoid_calibration

    s = rng.normal(scale=3, size=500)
    y = (rng.random(500) < 1 / (1 + np.exp(-0.5 * s - 0.3))).astype(int)
    w = rng.random(500) + 0.5
    L = np.column_stack([-np.logaddexp(0, s), -np.logaddexp(0, -s)])
    cal = SigmoidCalibration().fit(L, y, sample_weight=w)
    a, b = _sigmoid_calibration(s, y, sample_weight=w)  # sigmoid(-(a s + b)) there
    assert cal.coef_[0] == pytest.approx(-a, rel=1e-5) and cal.intercept_[0] == pytest.approx(-b, abs=1e-5)


def test_isotonic_equals_scikit_learn_on_the_same_targets(rng):
    from sklearn.isotonic import IsotonicRegression

    s = np.round(rng.normal(scale=3, size=800), 1)  # ties, pooled first as scikit-learn does
    y = (rng.random(800) < 1 / (1 + np.exp(-s))).astype(int)
    w = rng.random(800) + 0.1
    L = np.column_stack([-np.logaddexp(0, s), -np.logaddexp(0, -s)])
    cal = IsotonicCalibration().fit(L, y, sample_weight=w)
    n1, n0 = w[y == 1].sum(), w[y == 0].sum()
    t = np.where(y == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))  # Platt's targets (the docstring's why)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, t, sample_weight=w)
    q = np.r_[rng.normal(scale=5, size=300), -20.0, 20.0]
    Q = np.column_stack([-np.logaddexp(0, q), -np.logaddexp(0, -q)])
    assert np.allclose(np.exp(cal.transform(Q))[:, 1], ref.predict(q), atol=1e-12)


@pytest.mark.parametrize("method", METHODS)
def test_integer_weights_equal_repeated_rows(rng, method):
    L = random_log_proba(rng, 200, 3)
    y = rng.integers(0, 3, 200)
    w = rng.integers(1, 4, 200)
    a = MAPS[method]().fit(L, y, sample_weight=w)
    b = MAPS[method]().fit(np.repeat(L, w, axis=0), np.repeat(y, w))
    Q = random_log_proba(rng, 100, 3)
    assert np.allclose(a.transform(Q), b.transform(Q), atol=1e-9)


# ---------------------------------------------------------------------------- the estimator
@pytest.mark.parametrize("method", METHODS)
def test_calibrated_model_is_the_base_fit_plus_a_map_on_out_of_fold_scores(rng, method):
    from nbayes.model_selection import cross_val_predict

    X, y = blobs(rng)
    cal = CalibratedClassifier(nbayes.MultinomialNB(alpha=0.5), method=method, cv=4).fit(X, y)
    base = nbayes.MultinomialNB(alpha=0.5).fit(X, y)
    assert np.array_equal(cal.base_estimator_.predict_log_proba(X), base.predict_log_proba(X))
    oof = cross_val_predict(nbayes.MultinomialNB(alpha=0.5), X, y, cv=4, method="predict_log_proba")
    ref = MAPS[method]().fit(oof, y)
    assert np.allclose(cal.predict_log_proba(X), ref.transform(base.predict_log_proba(X)), atol=1e-12)
    P = cal.predict_proba(X)
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12) and cal.classes_.tolist() == [0, 1, 2]
    assert log_loss(y, np.exp(ref.transform(oof))) < log_loss(y, np.exp(oof))  # NB was over-confident
    if method == "temperature":  # keeps every prediction
        assert np.array_equal(cal.predict(X), base.predict(X))
        assert cal.score(X, y) == base.score(X, y)


def test_text_frames_logistic_gaussian_bayes_and_zero_probabilities(rng, sms, tmp_path):
    import polars as pl

    texts, labels = sms
    cases = [
        (nbayes.TextClassifier(), texts[:1500], labels[:1500]),
        (nbayes.TextClassifier(alpha=0), texts[:1500], labels[:1500]),  # -inf log-probabilities
    ]
    frame = pl.DataFrame({
        "age": rng.normal(40, 10, 300), "colour": rng.choice(["red", "blue", "green"], 300),
        "smoker": rng.random(300) < 0.3,
    })
    yf = np.where(frame["age"].to_numpy() + 8 * (frame["colour"] == "red").to_numpy() > 44, "yes", "no")
    cases.append((nbayes.NaiveBayes(), frame, yf))
    Xg = rng.normal(size=(300, 3)) + np.repeat(np.eye(3), 100, axis=0)
    yg = np.repeat([0, 1, 2], 100)
    cases += [(nbayes.LogisticRegression(), Xg, yg), (nbayes.GaussianBayes(), Xg, yg), (nbayes.GaussianNB(), Xg, yg)]
    for est, X, y in cases:
        for method in METHODS:
            cal = CalibratedClassifier(est, method=method, cv=3).fit(X, y)
            P = cal.predict_proba(X)
            assert not np.isnan(P).any() and np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
            path = tmp_path / f"{type(est).__name__}-{method}.nbm"
            cal.save(path)
            back = nbayes.load(path)
            assert type(back) is CalibratedClassifier and type(back.base_estimator_) is type(est)
            assert np.array_equal(back.predict_proba(X), P) and np.array_equal(back.predict(X), cal.predict(X))
            assert back.calibrator_.method == method


def test_explain_is_the_base_models_scaled_or_labelled(sms):
    """(tests/calibration/test_calibrated_explain.py holds the law over every method.)"""
    texts, labels = sms
    cal = CalibratedClassifier(nbayes.TextClassifier(), cv=3).fit(texts[:800], labels[:800])
    e, b = cal.explain("WIN a FREE prize now"), cal.base_estimator_.explain("WIN a FREE prize now")
    assert e.predicted == b.predicted and e.tokens == b.tokens
    T = cal.calibrator_.temperature_
    if e.calibrated:  # eps 0: the base terms divided by T
        assert np.allclose(e.contributions, b.contributions / T, rtol=1e-15, atol=0)
    else:  # eps > 0: not additive; the base model's, unchanged and labelled
        assert np.array_equal(e.contributions, b.contributions) and "uncalibrated" in e.sums_to


def test_calibrate_a_fitted_model_on_held_out_rows(rng):
    X, y = blobs(rng)
    model = nbayes.MultinomialNB().fit(X[:400], y[:400])
    cal = calibrate(model, X[400:], y[400:], method="sigmoid")
    assert cal.base_estimator_ is model
    assert log_loss(y[400:], cal.predict_proba(X[400:])) < log_loss(y[400:], model.predict_proba(X[400:]))
    with pytest.raises(NotFittedError, match="not fitted"):
        calibrate(nbayes.MultinomialNB(), X, y)
    with pytest.raises(DataError, match="a class the model does not know"):
        calibrate(model, X[:3], [0, 1, 7])


def test_errors_are_clear(rng):
    X, y = blobs(rng, n=60)
    with pytest.raises(InvalidParameterError, match="method"):
        CalibratedClassifier(nbayes.MultinomialNB(), method="beta").fit(X, y)
    with pytest.raises(InvalidParameterError, match="cannot produce probabilities"):
        CalibratedClassifier(_NoProba()).fit(X, y)
    y2 = y.copy()
    y2[:3] = 9  # a class of 3 rows
    with pytest.raises(DataError, match=r"cv=5: class 9 has 3 rows, fewer than the 5 folds"):
        CalibratedClassifier(nbayes.MultinomialNB()).fit(X, y2)
    folds = [(np.flatnonzero(y != 0), np.flatnonzero(y == 0)), (np.flatnonzero(y == 0), np.flatnonzero(y != 0))]
    with pytest.raises(DataError, match="split 0 has no row of class 0"):
        CalibratedClassifier(nbayes.MultinomialNB(), cv=folds).fit(X, y)
    with pytest.raises(DataError, match="one class"):
        CalibratedClassifier(nbayes.MultinomialNB()).fit(X, np.zeros(len(X), dtype=int))
    with pytest.raises(InvalidParameterError, match="cv"):
        CalibratedClassifier(nbayes.MultinomialNB(), cv=1).fit(X, y)
    with pytest.raises(NotFittedError):
        CalibratedClassifier(nbayes.MultinomialNB()).predict_proba(X)
    with pytest.raises(InvalidParameterError, match="eps"):
        TemperatureScaling(eps=-1).fit(random_log_proba(rng, 10, 2), np.arange(10) % 2)


class _NoProba:
    def fit(self, X, y):
        return self

    def get_params(self, deep=True):
        return {}


def test_public_names():
    assert nbayes.CalibratedClassifier is CalibratedClassifier
    assert nbayes.metrics.log_loss is log_loss and "CalibratedClassifier" in nbayes.__all__
    assert nbayes.evaluate.log_loss is log_loss and "evaluate" in nbayes.__all__


# ---------------------------------------------------------------------------- serving
def test_the_service_serves_a_calibrated_model_unchanged(sms, tmp_path):
    pytest.importorskip("starlette")
    from nbayes.serve import create_app
    from starlette.testclient import TestClient

    texts, labels = sms
    cal = CalibratedClassifier(nbayes.TextClassifier(), method="sigmoid", cv=3).fit(texts[:1500], labels[:1500])
    cal.save(tmp_path / "cal.nbm")
    docs = ["WIN a FREE prize, call now", "see you at lunch", ""]
    with TestClient(create_app(str(tmp_path / "cal.nbm"))) as c:
        r = c.post("/v1/predict", json={"texts": docs})
        assert r.status_code == 200, r.text
        got = r.json()["predictions"]
        assert [g["label"] for g in got] == cal.predict(docs).tolist()
        P = np.array([[g["probabilities"][k] for k in ("ham", "spam")] for g in got])
        assert np.allclose(P, cal.predict_proba(docs), rtol=0, atol=1e-12)
        ex = c.post("/v1/explain", json={"text": docs[0]}).json()
        base = cal.base_estimator_
        jll = base.predict_joint_log_proba([docs[0]])[0]
        assert ex["log_odds"] == pytest.approx(abs(jll[1] - jll[0]), abs=1e-9)  # the base model's
        info = c.get("/v1/model").json()
        assert info["model"] == "CalibratedClassifier" and info["input"] == "text"
        assert info["calibration"]["method"] == "sigmoid" and info["calibration"]["base_model"] == "TextClassifier"


def test_the_service_serves_a_calibrated_table_model(rng, tmp_path):
    pytest.importorskip("starlette")
    import polars as pl
    from nbayes.serve import create_app
    from starlette.testclient import TestClient

    frame = pl.DataFrame({"age": rng.normal(40, 10, 200), "colour": rng.choice(["red", "blue"], 200)})
    y = np.where(frame["age"].to_numpy() > 40, "old", "young")
    cal = CalibratedClassifier(nbayes.NaiveBayes(), cv=3).fit(frame, y)
    cal.save(tmp_path / "t.nbm")
    with TestClient(create_app(str(tmp_path / "t.nbm"))) as c:
        got = c.post("/v1/predict", json={"row": {"age": 61.0, "colour": "red"}}).json()
        want = cal.predict_proba(pl.DataFrame({"age": [61.0], "colour": ["red"]}))[0]
        assert got["probabilities"]["old"] == pytest.approx(want[0], abs=1e-12)
        assert c.post("/v1/explain", json={"row": {"age": 61.0, "colour": None}}).status_code == 200


# ---------------------------------------------------------------------------- the CLI
NBAYES = shutil.which("nbayes")


def run(*args: str) -> subprocess.CompletedProcess:
    cmd = [NBAYES, *args] if NBAYES else [sys.executable, "-m", "nbayes.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ.copy())


@pytest.fixture(scope="module")
def sms_files(sms, tmp_path_factory):
    texts, labels = sms
    d = tmp_path_factory.mktemp("sms-cal")
    for name, rows in (("train", range(0, 2000)), ("test", range(2000, 3000))):
        with open(d / f"{name}.jsonl", "w", encoding="utf-8") as f:
            for i in rows:
                f.write(json.dumps({"text": texts[i], "label": str(labels[i])}) + "\n")
    return d


def test_cli_train_calibrate_evaluate_report_info(sms_files, tmp_path):
    model, report = tmp_path / "m.nbm", tmp_path / "r.html"
    out = run("train", str(sms_files / "train.jsonl"), "--target", "label", "-o", str(model), "--calibrate", "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    c = summary["calibration"]
    assert c["method"] == "temperature" and c["temperature"] > 0
    assert c["out_of_fold_after"]["log_loss"] <= c["out_of_fold_before"]["log_loss"]
    out = run("evaluate", str(model), str(sms_files / "test.jsonl"), "--target", "label", "--json", "--report", str(report))
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    cal = nbayes.load(model)
    rows = [json.loads(x) for x in (sms_files / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    texts, y = [r["text"] for r in rows], np.array([r["label"] for r in rows])
    assert res["log_loss"] == pytest.approx(log_loss(y, cal.predict_proba(texts), classes=cal.classes_), abs=1e-6)
    assert res["calibration"]["after"]["log_loss"] == pytest.approx(res["log_loss"], abs=1e-6)
    assert res["calibration"]["before"]["accuracy"] == res["calibration"]["after"]["accuracy"]
    page = report.read_text(encoding="utf-8")
    assert "Reliability diagram" in page and "<svg " in page and "before" in page
    info = json.loads(run("info", str(model), "--json").stdout)
    assert info["model"] == "CalibratedClassifier" and info["calibration"]["base_model"] == "TextClassifier"
    out = run("explain", str(model), "WIN a FREE prize now", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["predicted"] == "spam"
    out = run("train", str(sms_files / "train.jsonl"), "--target", "label", "-o", str(tmp_path / "i.nbm"), "--calibrate", "isotonic")
    assert out.returncode == 0 and "calibrated (isotonic)" in out.stdout, out.stderr


def test_cli_evaluate_cv_calibrate_and_usage_errors(sms_files, tmp_path):
    out = run("evaluate", str(sms_files / "train.jsonl"), "--target", "label", "--cv", "3", "--calibrate", "sigmoid", "--json")
    assert out.returncode == 0, out.stderr
    c = json.loads(out.stdout)["calibration"]
    assert c["method"] == "sigmoid" and "3-fold" in c["measured_on"] and c["rows"] == 2000
    assert c["after"]["log_loss"] < c["before"]["log_loss"]
    plain = tmp_path / "plain.nbm"
    assert run("train", str(sms_files / "train.jsonl"), "--target", "label", "-o", str(plain)).returncode == 0
    out = run("evaluate", str(plain), str(sms_files / "test.jsonl"), "--target", "label", "--calibrate")
    assert out.returncode == 2 and "not calibrated" in out.stderr
    out = run("evaluate", str(plain), str(sms_files / "test.jsonl"), "--target", "label", "--report", str(tmp_path / "p.html"))
    assert out.returncode == 0 and "Reliability diagram" in (tmp_path / "p.html").read_text(encoding="utf-8")
    out = run("train", str(sms_files / "train.jsonl"), "--target", "label", "-o", str(plain), "--calibrate", "beta")
    assert out.returncode == 2 and "beta" in out.stderr


# ---------------------------------------------------------------------------- ensemble=True
def by_hand_ensemble(make, X, y, splits, method, take, sample_weight=None):
    """scikit-learn's ensemble design written out with nbayes: per split, a model fitted on the
    training rows and the same map class fitted on its held-out log-probabilities; the
    calibrated probabilities averaged."""
    models, maps = [], []
    for train, test in splits:
        kw = {} if sample_weight is None else {"sample_weight": sample_weight[train]}
        m = make().fit(take(X, train), y[train], **kw)
        codes = np.searchsorted(m.classes_, y[test])
        maps.append(MAPS[method]().fit(m.predict_log_proba(take(X, test)), codes,
                                       None if sample_weight is None else sample_weight[test]))
        models.append(m)
    return lambda Q: np.mean([np.exp(c.transform(m.predict_log_proba(Q))) for m, c in zip(models, maps)], axis=0)


def _rows(X, rows):
    return [X[i] for i in rows] if isinstance(X, list) else X[rows]


def test_ensemble_false_is_the_default_and_unchanged(rng, tmp_path):
    X, y = blobs(rng)
    cal = CalibratedClassifier(nbayes.MultinomialNB(), method="sigmoid", cv=4).fit(X, y)
    assert cal.get_params()["ensemble"] is False
    assert cal.estimators_ == [cal.base_estimator_] and cal.calibrators_ == [cal.calibrator_]
    assert np.array_equal(cal.predict_log_proba(X), cal.calibrator_.transform(cal.base_estimator_.predict_log_proba(X)))
    state = cal.to_state()
    assert "ensemble" not in state["params"] and "folds" not in state["meta"]
    assert not any(k.startswith("fold/") for k in state["arrays"])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("case", ["multinomial", "text"])
def test_ensemble_equals_fold_models_and_maps_by_hand(rng, sms, method, case):
    from nbayes.model_selection import check_cv

    if case == "multinomial":
        X, y = blobs(rng)
        w = rng.random(len(y)) + 0.5
        make = lambda: nbayes.MultinomialNB(alpha=0.5)  # noqa: E731
        Q = X[:200]
    else:
        texts, labels = sms
        X, y, w = texts[:1500], labels[:1500], None
        make = lambda: nbayes.TextClassifier(min_df=2)  # noqa: E731 - a fold's vocabulary matters
        Q = texts[1500:1800] + ["", "zzqx unseen words only"]
    cal = CalibratedClassifier(make(), method=method, cv=4, ensemble=True).fit(X, y, sample_weight=w)
    splits = check_cv(4, X, y)
    want = by_hand_ensemble(make, X, y, splits, method, _rows, w)(Q)
    P = cal.predict_proba(Q)
    assert np.allclose(P, want, rtol=0, atol=1e-10)
    assert np.allclose(P.sum(axis=1), 1.0, atol=1e-12) and (P >= 0).all()
    assert np.allclose(cal.predict_log_proba(Q), np.log(want), rtol=0, atol=1e-9)
    assert np.array_equal(cal.predict(Q), cal.classes_[np.argmax(P, axis=1)])
    assert len(cal.estimators_) == len(cal.calibrators_) == 4 and cal.calibrator_ is None
    assert all(type(c) is MAPS[method] for c in cal.calibrators_)
    full = make().fit(X, y, **({} if w is None else {"sample_weight": w}))
    assert np.allclose(cal.base_estimator_.predict_log_proba(Q), full.predict_log_proba(Q), atol=1e-10)  # all rows


@pytest.mark.parametrize("est", ["text", "naive_bayes", "logistic"])
def test_ensemble_saves_loads_and_predicts_identically(rng, sms, tmp_path, est):
    import polars as pl

    from nbayes.io.model_file import load_state

    if est == "text":
        texts, labels = sms
        model, X, y, Q = nbayes.TextClassifier(alpha=0), texts[:1200], labels[:1200], texts[1200:1400]  # -inf scores
    elif est == "naive_bayes":
        X = pl.DataFrame({"age": rng.normal(40, 10, 300), "colour": rng.choice(["red", "blue", "green"], 300)})
        y = np.where(X["age"].to_numpy() + 8 * (X["colour"] == "red").to_numpy() > 44, "yes", "no")
        model, Q = nbayes.NaiveBayes(), X[:50]
    else:  # refitted per fold: each fold model is fitted once and kept
        X = rng.normal(size=(300, 3)) + np.repeat(np.eye(3), 100, axis=0)
        y = np.repeat([0, 1, 2], 100)
        model, Q = nbayes.LogisticRegression(), X[::3]
    for method in METHODS:
        cal = CalibratedClassifier(model, method=method, cv=3, ensemble=True).fit(X, y)
        path = tmp_path / f"{est}-{method}.nbm"
        cal.save(path)
        back = nbayes.load(path)
        assert type(back) is CalibratedClassifier and back.ensemble is True and back.calibrator_ is None
        assert len(back.estimators_) == 3 and all(type(m) is type(model) for m in back.estimators_)
        assert np.array_equal(back.predict_proba(Q), cal.predict_proba(Q))
        assert np.array_equal(back.predict_log_proba(Q), cal.predict_log_proba(Q))
        assert np.array_equal(back.predict(Q), cal.predict(Q))
        P = cal.predict_proba(Q)
        assert not np.isnan(P).any() and np.allclose(P.sum(axis=1), 1.0, atol=1e-12)
        state = load_state(path)
        assert state["params"]["ensemble"] is True and len(state["meta"]["folds"]) == 3
        assert any(k.startswith("fold/2/") for k in state["arrays"]) and any(k.startswith("calibrator/2/") for k in state["arrays"])


def test_ensemble_errors(rng):
    X, y = blobs(rng, n=60)
    with pytest.raises(InvalidParameterError, match="ensemble: expected True or False"):
        CalibratedClassifier(nbayes.MultinomialNB(), ensemble="yes").fit(X, y)
    with pytest.raises(InvalidParameterError, match="leave-one-out"):
        CalibratedClassifier(nbayes.MultinomialNB(), cv="loo", ensemble=True).fit(X, y)


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("K", [2, 3])
def test_ensemble_against_scikit_learn_calibrated_classifier_cv(rng, method, K):
    """On counts the fold models are scikit-learn's own (equal to 1e-10, split by split); the
    maps differ by design (nbayes: the log-odds and Platt's smoothed targets; scikit-learn: the
    probabilities, and 0/1 targets for isotonic), so the test log-loss is only required to be
    finite, better than the uncalibrated model's and near scikit-learn's."""
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import StratifiedKFold
    from sklearn.naive_bayes import MultinomialNB

    X, y = blobs(rng, n=1600, K=K)
    Xtr, ytr, Xte, yte = X[:1000], y[:1000], X[1000:], y[1000:]
    cv = StratifiedKFold(5)
    ours = CalibratedClassifier(nbayes.MultinomialNB(), method=method, cv=cv, ensemble=True).fit(Xtr, ytr)
    theirs = CalibratedClassifierCV(MultinomialNB(), method=method, cv=cv, ensemble=True).fit(Xtr, ytr)
    for m, c in zip(ours.estimators_, theirs.calibrated_classifiers_, strict=True):
        assert np.allclose(m.predict_log_proba(Xte), c.estimator.predict_log_proba(Xte), rtol=0, atol=1e-10)
    raw = log_loss(yte, nbayes.MultinomialNB().fit(Xtr, ytr).predict_proba(Xte))
    a, b = log_loss(yte, ours.predict_proba(Xte)), log_loss(yte, theirs.predict_proba(Xte))
    assert np.isfinite(a) and a < raw and a < 1.15 * b, (a, b, raw)


def test_the_service_serves_an_ensemble_with_its_probabilities(sms, tmp_path):
    pytest.importorskip("starlette")
    from nbayes.serve import create_app
    from starlette.testclient import TestClient

    texts, labels = sms
    cal = CalibratedClassifier(nbayes.TextClassifier(), method="isotonic", cv=3, ensemble=True).fit(texts[:1500], labels[:1500])
    cal.save(tmp_path / "ens.nbm")
    docs = ["WIN a FREE prize, call now", "see you at lunch", ""]
    with TestClient(create_app(str(tmp_path / "ens.nbm"))) as c:
        r = c.post("/v1/predict", json={"texts": docs})
        assert r.status_code == 200, r.text
        got = r.json()["predictions"]
        assert [g["label"] for g in got] == cal.predict(docs).tolist()
        P = np.array([[g["probabilities"][k] for k in ("ham", "spam")] for g in got])
        assert np.allclose(P, cal.predict_proba(docs), rtol=0, atol=1e-12)
        assert not np.allclose(P, cal.base_estimator_.predict_proba(docs), atol=1e-3)  # calibrated, not the base
        assert c.post("/v1/explain", json={"text": docs[0]}).status_code == 200  # the base model explains
        info = c.get("/v1/model").json()
        assert info["calibration"] == {"method": "isotonic", "base_model": "TextClassifier", "ensemble": 3}


def test_cli_train_calibrate_ensemble(sms_files, tmp_path):
    model = tmp_path / "e.nbm"
    out = run("train", str(sms_files / "train.jsonl"), "--target", "label", "-o", str(model),
              "--calibrate", "isotonic", "--calibrate-ensemble", "--json")
    assert out.returncode == 0, out.stderr
    c = json.loads(out.stdout)["calibration"]
    assert c["method"] == "isotonic" and c["ensemble"] == 5
    assert c["out_of_fold_after"]["log_loss"] < c["out_of_fold_before"]["log_loss"]
    cal = nbayes.load(model)
    assert cal.ensemble is True and len(cal.estimators_) == 5
    out = run("evaluate", str(model), str(sms_files / "test.jsonl"), "--target", "label", "--json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    rows = [json.loads(x) for x in (sms_files / "test.jsonl").read_text(encoding="utf-8").splitlines()]
    texts, y = [r["text"] for r in rows], np.array([r["label"] for r in rows])
    assert res["calibration"]["after"]["log_loss"] == pytest.approx(log_loss(y, cal.predict_proba(texts), classes=cal.classes_), abs=1e-6)
    out = run("train", str(sms_files / "train.jsonl"), "--target", "label", "-o", str(model), "--calibrate-ensemble")
    assert out.returncode == 2 and "--calibrate" in out.stderr


def test_a_failed_fit_leaves_a_fitted_calibrated_model_unchanged():
    """CORRECTNESS.md: a failed fit leaves the model as it was (nothing assigned before the end)."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 120)
    X = rng.poisson(1.0, (120, 5)).astype(float) + y[:, None]
    cal = nbayes.CalibratedClassifier(nbayes.MultinomialNB(), method="sigmoid").fit(X, y)
    before = cal.predict_proba(X)
    state = dict(cal.__dict__)
    with pytest.raises(nbayes.errors.NBayesError):
        cal.fit(-X, y)  # negative counts: refused by the base model
    with pytest.raises(nbayes.errors.NBayesError):
        cal.fit(X, np.zeros(120, dtype=int))  # one class
    assert cal.__dict__.keys() == state.keys() and all(cal.__dict__[k] is state[k] for k in state)
    np.testing.assert_array_equal(cal.predict_proba(X), before)
