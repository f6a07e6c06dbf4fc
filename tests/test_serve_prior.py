"""Label shift in ``nbayes serve``: ``POST /v1/prior`` answers what ``model.estimate_prior``
gives on the same rows (same seed) and never changes the served model; ``--track-prior`` keeps
a bounded window of the rows predicted and reports their estimated prior in ``GET /v1/model``
(computed when asked, cached), flagging drift after a shifted stream and not after an
unshifted one; models without a prior of their own are refused with the reason; bad bodies
are 422 naming the field; schemathesis finds nothing in the schema of ``/v1/prior``."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

WORDS = [f"w{i}" for i in range(30)]
_rng = np.random.default_rng(0)
THETA = {"a": _rng.dirichlet(np.full(30, 0.5)), "b": _rng.dirichlet(np.full(30, 0.5))}


def documents(n_a: int, n_b: int, seed: int) -> list[str]:
    """Documents drawn from two multinomials (a true Naive Bayes world): ``n_a`` of class a,
    then ``n_b`` of b (exact shares, so an unshifted stream has exactly the training prior)."""
    r = np.random.default_rng(seed)
    return [" ".join(r.choice(WORDS, size=12, p=THETA[c])) for c in ["a"] * n_a + ["b"] * n_b]


def shuffled(docs: list[str], seed: int) -> list[str]:
    return [docs[i] for i in np.random.default_rng(seed).permutation(len(docs))]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("prior-models")
    nbayes.TextClassifier().fit(documents(600, 600, 1), ["a"] * 600 + ["b"] * 600).save(d / "text.nbm")
    X = np.random.default_rng(2).normal(size=(40, 2)) + np.repeat([[0, 0], [2, 1]], 20, axis=0)
    y = ["no"] * 20 + ["yes"] * 20
    nbayes.GaussianNB().fit(X, y).save(d / "gauss.nbm")
    nbayes.LogisticRegression().fit(X, y).save(d / "logistic.nbm")
    sets = [["a"], ["a", "b"], ["b"], ["b"]] * 3
    nbayes.MultiLabel(nbayes.TextClassifier()).fit(documents(6, 6, 3), sets).save(d / "multilabel.nbm")
    return d


def estimate(c, body, status=200):
    r = c.post("/v1/prior", json=body)
    assert r.status_code == status, r.text
    return r.json()


def assert_same(answer, est):
    """The JSON answer holds ``est`` (a PriorEstimate) to 1e-12."""
    keys = [str(k) for k in est.classes.tolist()]
    np.testing.assert_allclose([answer["prior"][k] for k in keys], est.prior, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([answer["interval"][k] for k in keys], np.c_[est.lower, est.upper], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([answer["source_prior"][k] for k in keys], est.source_prior, rtol=1e-12)
    np.testing.assert_allclose(answer["test"]["p_value"], est.p_value, rtol=1e-9, atol=1e-300)
    np.testing.assert_allclose(answer["test"]["statistic"], est.statistic, rtol=1e-9, atol=1e-12)
    assert answer["test"]["shifted"] == est.shifted and answer["test"]["df"] == est.df
    assert answer["n_samples"] == est.n_samples and answer["method"] == est.method


# ---------------------------------------------------------------------------- POST /v1/prior
def test_the_prior_of_a_batch_is_estimate_prior_on_the_same_rows(files):
    model = nbayes.load(files / "text.nbm")
    batch = shuffled(documents(160, 40, 7), 0)
    with TestClient(create_app(str(files / "text.nbm"))) as c:
        before = c.post("/v1/predict", json={"texts": batch[:20]}).json()
        answer = estimate(c, {"texts": batch, "seed": 11})
        assert_same(answer, model.estimate_prior(batch, random_state=11))
        assert answer["prior"]["a"] > 0.7 and answer["test"]["shifted"]  # 80% a, against 50% in training
        options = {"texts": batch, "seed": 5, "confidence": 0.8, "n_bootstrap": 37}
        assert_same(estimate(c, options), model.estimate_prior(batch, random_state=5, confidence=0.8, n_bootstrap=37))
        none = estimate(c, {"texts": batch, "n_bootstrap": 0})
        assert none["interval"]["a"] == [none["prior"]["a"]] * 2
        one = estimate(c, {"text": batch[0]})
        assert_same(one, model.estimate_prior(batch[:1], random_state=0))
        # never changes the served model
        assert c.post("/v1/predict", json={"texts": batch[:20]}).json() == before
        assert c.get("/v1/model").json()["version"] == 0


def test_a_table_model_takes_rows_as_objects_and_arrays(files):
    model = nbayes.load(files / "gauss.nbm")
    X = np.random.default_rng(4).normal(size=(30, 2)) + [2, 1]
    with TestClient(create_app(str(files / "gauss.nbm"))) as c:
        as_arrays = estimate(c, {"rows": X.tolist(), "seed": 2})
        as_objects = estimate(c, {"rows": [{"x0": a, "x1": b} for a, b in X.tolist()], "seed": 2})
    assert as_arrays == as_objects
    assert_same(as_arrays, model.estimate_prior(X, random_state=2))


@pytest.mark.parametrize("name, reason", [("logistic", "no class prior of its own"), ("multilabel", "label sets")])
def test_a_model_without_a_prior_of_its_own_is_409_saying_why(files, name, reason):
    body = {"rows": [[0.0, 1.0]]} if name == "logistic" else {"texts": ["w1 w2"]}
    with TestClient(create_app(str(files / f"{name}.nbm"))) as c:
        r = c.post("/v1/prior", json=body)
        assert r.status_code == 409 and reason in r.json()["error"], r.text
    with pytest.raises(ValueError, match=reason):
        create_app(str(files / f"{name}.nbm"), track_prior=True)


@pytest.mark.parametrize("body, words", [
    ({"texts": ["w1"], "method": "bbse"}, ["'method'", "bbse", "calibration"]),
    ({"texts": ["w1"], "method": "qq"}, ["'method'", "'em'"]),
    ({"texts": ["w1"], "confidence": 1}, ["'confidence'", "between 0 and 1"]),
    ({"texts": ["w1"], "confidence": "high"}, ["'confidence'"]),
    ({"texts": ["w1"], "n_bootstrap": 10_000}, ["'n_bootstrap'", "1000"]),
    ({"texts": ["w1"], "n_bootstrap": 2.5}, ["'n_bootstrap'", "integer"]),
    ({"texts": ["w1"], "seed": -1}, ["'seed'"]),
    ({"texts": []}, ["'texts'", "empty"]),
    ({"texts": "w1"}, ["'texts'", "array"]),
    ({"texts": ["w1"], "weights": [1]}, ["unknown field", "'weights'"]),
    ({"rows": [[1, 2]]}, ["text model", "'rows'"]),
])
def test_bad_bodies_are_422_naming_the_field(files, body, words):
    with TestClient(create_app(str(files / "text.nbm"))) as c:
        r = c.post("/v1/prior", json=body)
    assert r.status_code == 422, r.text
    assert all(w in r.json()["error"] for w in words), r.json()["error"]


# ---------------------------------------------------------------------------- --track-prior
def tracking(c):
    return c.get("/v1/model").json()["prior_tracking"]


def predict(c, docs, batch=100):
    for i in range(0, len(docs), batch):
        assert c.post("/v1/predict", json={"texts": docs[i:i + batch]}).status_code == 200
    if docs:
        assert c.post("/v1/predict", json={"text": docs[0]}).status_code == 200  # a single one counts too


def test_drift_is_flagged_after_a_shifted_stream_and_not_after_an_unshifted_one(files):
    model = nbayes.load(files / "text.nbm")
    with TestClient(create_app(str(files / "text.nbm"), track_prior=True, track_window=1000, track_refresh=0)) as c:
        empty = tracking(c)
        assert empty["rows"] == 0 and empty["estimate"] is None and not empty["drift"] and "no rows" in empty["message"]
        assert empty["training_prior"] == {"a": 0.5, "b": 0.5}
        same = shuffled(documents(250, 250, 20), 1)[:-1]  # (+ its first again, single)
        predict(c, same)
        t = tracking(c)
        assert t["rows"] == t["rows_seen"] == 500 and not t["drift"], t
        assert "no evidence" in t["message"] and t["estimate"]["test"]["p_value"] > 0.05
        seen = same + same[:1]
        assert_same(t["estimate"], model.estimate_prior(seen, random_state=0))
        shifted = shuffled(documents(900, 100, 21), 2)[:-1]
        predict(c, shifted)
        t = tracking(c)
        assert t["rows"] == 1000 and t["rows_seen"] == 1500 and t["drift"], t
        assert "differs from training" in t["message"] and "with_prior" in t["message"]
        assert t["estimate"]["prior"]["a"] > 0.8 and t["estimate"]["interval"]["a"][0] > 0.5
        # the window holds the last 1,000 rows predicted, in order
        assert_same(t["estimate"], model.estimate_prior(shifted + shifted[:1], random_state=0))
        # adaptation only when asked: the served model still predicts under its training prior
        probe = shifted[:50]
        served = c.post("/v1/predict", json={"texts": probe}).json()["predictions"]
        np.testing.assert_allclose([[p["probabilities"][k] for k in ("a", "b")] for p in served],
                                   model.predict_proba(probe), rtol=1e-12)
        assert c.get("/v1/model").json()["classes"] == ["a", "b"]


def test_the_estimate_is_computed_when_asked_and_cached(files):
    with TestClient(create_app(str(files / "text.nbm"), track_prior=True, track_refresh=3600)) as c:
        predict(c, documents(50, 50, 30))
        first = tracking(c)
        assert first["rows"] == 101
        predict(c, documents(80, 0, 31))
        cached = tracking(c)
        assert cached == first  # within the refresh interval: no new estimate (no bootstrap per request)
    with TestClient(create_app(str(files / "text.nbm"), track_prior=True, track_refresh=0)) as c:
        predict(c, documents(50, 50, 30))
        a = tracking(c)
        assert tracking(c) == a  # nothing predicted since: the same estimate
        predict(c, documents(80, 0, 31))
        assert tracking(c)["rows"] == 182


def test_a_batch_larger_than_the_window_keeps_its_last_rows(files):
    model = nbayes.load(files / "text.nbm")
    docs = shuffled(documents(300, 100, 40), 3)
    with TestClient(create_app(str(files / "text.nbm"), track_prior=True, track_window=150, track_refresh=0)) as c:
        assert c.post("/v1/predict", json={"texts": docs[:70]}).status_code == 200
        assert c.post("/v1/predict", json={"texts": docs[70:]}).status_code == 200
        t = tracking(c)
    assert t["rows"] == 150 and t["rows_seen"] == 400 and t["window"] == 150
    assert_same(t["estimate"], model.estimate_prior(docs[-150:], random_state=0))


def test_a_learning_service_re_expresses_old_rows_under_its_current_prior(files, tmp_path):
    """Rows predicted by an older version count with their likelihoods under the prior the
    model has now (Saerens et al. eq. 2.4): the estimate equals the current model's over the
    same rows up to the change of its likelihoods, which learning 40 documents barely moves."""
    path = tmp_path / "text.nbm"
    path.write_bytes((files / "text.nbm").read_bytes())
    docs = shuffled(documents(150, 50, 50), 4)
    extra = documents(40, 0, 51)
    with TestClient(create_app(str(path), learn=True, token="t", track_prior=True, track_refresh=0)) as c:
        predict(c, docs[:-1])
        r = c.post("/v1/learn?visible=true", json={"texts": extra, "labels": ["a"] * 40},
                   headers={"Authorization": "Bearer t"})
        assert r.status_code == 200, r.text
        t = tracking(c)
    now = nbayes.load(files / "text.nbm").partial_fit(extra, ["a"] * 40)
    assert t["training_prior"]["a"] == pytest.approx(640 / 1240)
    est = now.estimate_prior(docs, random_state=0)
    np.testing.assert_allclose(t["estimate"]["source_prior"]["a"], est.source_prior[0], rtol=1e-12)
    np.testing.assert_allclose(t["estimate"]["prior"]["a"], est.prior[0], atol=0.02)


def test_track_prior_settings_are_checked(files):
    for bad in ({"track_window": 0}, {"track_refresh": -1}, {"track_window": 2.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            create_app(str(files / "text.nbm"), track_prior=True, **bad)


# ---------------------------------------------------------------------------- the schema
schemathesis = pytest.importorskip("schemathesis", reason="the fuzzing test needs schemathesis (the test extra)")


@pytest.fixture(scope="module", params=["text", "gauss", "logistic"])
def prior_schema(request, files):
    config = schemathesis.Config()
    config.projects.default.generation.update(modes=list(schemathesis.GenerationMode), max_examples=25,
                                              database="none")
    app = create_app(str(files / f"{request.param}.nbm"), max_batch=4, max_text=200, track_prior=request.param != "logistic")
    return schemathesis.openapi.from_asgi("/openapi.json", app, config=config)


fuzzed = schemathesis.pytest.from_fixture("prior_schema").include(path="/v1/prior")


@fuzzed.parametrize()
def test_schemathesis_finds_nothing_in_v1_prior(case):
    case.call_and_validate()


def test_the_schema_names_the_options_and_the_estimate(files):
    with TestClient(create_app(str(files / "text.nbm"), max_batch=4)) as c:
        spec = c.get("/openapi.json").json()
    body = spec["components"]["schemas"]["PriorBatch"]
    assert body["properties"]["method"]["enum"] == ["em"] and "bbse" in body["properties"]["method"]["description"]
    assert body["properties"]["texts"]["minItems"] == 1 and body["properties"]["texts"]["maxItems"] == 4
    assert body["properties"]["n_bootstrap"]["maximum"] == 1000
    est = spec["components"]["schemas"]["PriorEstimate"]
    assert est["properties"]["prior"]["required"] == ["a", "b"] and est["additionalProperties"] is False
    assert "409" in spec["paths"]["/v1/prior"]["post"]["responses"]


def test_a_reload_to_a_model_without_a_prior_stops_tracking_and_says_why(files, tmp_path):
    path = tmp_path / "m.nbm"
    path.write_bytes((files / "gauss.nbm").read_bytes())
    app = create_app(str(path), track_prior=True, track_refresh=0)
    with TestClient(app) as c:
        assert c.post("/v1/predict", json={"rows": [[0.0, 1.0]] * 5}).status_code == 200
        assert tracking(c)["rows"] == 5
        path.write_bytes((files / "logistic.nbm").read_bytes())
        assert app.state.holder.reload(force=True)
        for _ in range(2):  # predictions go on, untracked
            assert c.post("/v1/predict", json={"rows": [[0.0, 1.0]] * 3}).status_code == 200
        t = tracking(c)
        assert t["estimate"] is None and not t["drift"] and "no class prior of its own" in t["message"]
        path.write_bytes((files / "gauss.nbm").read_bytes())
        assert app.state.holder.reload(force=True)
        assert c.post("/v1/predict", json={"rows": [[0.0, 1.0]] * 4}).status_code == 200
        assert tracking(c)["rows"] == 4  # a new window (the classes came back with another model)


def test_nbayes_serve_track_prior_refuses_a_model_without_a_prior(files):
    import socket
    import subprocess

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    for args in (["--track-prior"], ["--track-prior", "--workers", "2"]):
        out = subprocess.run(["nbayes", "serve", str(files / "logistic.nbm"), "--port", port, *args],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and "--track-prior" in out.stderr and "no class prior" in out.stderr, out.stderr
    out = subprocess.run(["nbayes", "serve", str(files / "text.nbm"), "--port", port, "--track-window", "10"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "--track-window is for --track-prior" in out.stderr, out.stderr
