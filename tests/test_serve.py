"""``nbayes serve``: the JSON API through Starlette's test client (every endpoint, every error,
reloading), the real server as a subprocess (the CLI, SIGHUP), and the web page in Debian's
headless Chromium driven by Playwright."""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
pytest.importorskip("uvicorn", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

SPAM = [
    "WIN a FREE prize now, call to claim your cash",
    "Free entry in a weekly draw, text WIN to claim",
    "You have won a cash prize, claim it now for free",
    "URGENT: your mobile number won a free holiday prize",
    "Cheap pills and free offers, click now to win",
    "Claim your free ringtone now, reply WIN",
]
HAM = [
    "Are we still meeting for lunch tomorrow at noon?",
    "I will call you when I get home tonight",
    "Can you pick up some milk on the way home",
    "The meeting moved to Thursday, see you there",
    "Thanks for dinner last night, it was lovely",
    "Running late, be there in ten minutes",
]
LIMITS = dict(max_body=20_000, max_batch=5, max_text=500)


# ---------------------------------------------------------------------------- models
@pytest.fixture(scope="module")
def text_model():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 6 + ["ham"] * 6)


@pytest.fixture(scope="module")
def table_frame():
    import polars as pl

    return pl.DataFrame({
        "age": [23.0, 35.0, 47.0, 52.0, 29.0, 61.0, 33.0, 44.0],
        "colour": ["red", "blue", "red", "green", "red", "blue", "green", "blue"],
        "smoker": [True, False, True, False, True, False, False, True],
    })


@pytest.fixture(scope="module")
def table_model(table_frame):
    return nbayes.NaiveBayes().fit(table_frame, ["yes", "no", "yes", "no", "yes", "no", "no", "yes"])


@pytest.fixture(scope="module")
def files(tmp_path_factory, text_model, table_model):
    d = tmp_path_factory.mktemp("serve-models")
    text_model.save(d / "text.nbm")
    table_model.save(d / "table.nbm")
    counts = nbayes.MultinomialNB().fit(np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0], [0, 3, 1]]), [1, 0, 1, 0])
    counts.save(d / "counts.nbm")
    return d


@pytest.fixture(scope="module")
def text_client(files):
    with TestClient(create_app(str(files / "text.nbm"), **LIMITS)) as c:
        yield c


@pytest.fixture(scope="module")
def table_client(files):
    with TestClient(create_app(str(files / "table.nbm"), **LIMITS)) as c:
        yield c


@pytest.fixture(scope="module")
def counts_client(files):
    with TestClient(create_app(str(files / "counts.nbm"), **LIMITS)) as c:
        yield c


def ok(client, path, body):
    r = client.post(path, json=body)
    assert r.status_code == 200, r.text
    return r.json()


# ---------------------------------------------------------------------------- text models
def test_text_predict_one_and_batch(text_client, text_model):
    docs = ["Claim your FREE prize now", "see you at lunch tomorrow", ""]
    P = text_model.predict_proba(docs)
    labels = text_model.predict(docs).tolist()
    one = ok(text_client, "/v1/predict", {"text": docs[0]})
    assert one["label"] == labels[0] == "spam"
    assert one["probabilities"]["spam"] == pytest.approx(P[0, 1], abs=1e-12)
    batch = ok(text_client, "/v1/predict", {"texts": docs})["predictions"]
    assert [p["label"] for p in batch] == labels
    for p, row in zip(batch, P):
        assert [p["probabilities"][c] for c in ("ham", "spam")] == pytest.approx(row.tolist(), abs=1e-12)
        assert math.fsum(p["probabilities"].values()) == pytest.approx(1.0, abs=1e-12)
    assert ok(text_client, "/v1/predict", {"texts": []}) == {"predictions": []}


def test_a_large_batch_runs_off_the_event_loop_with_the_same_answers(files, text_model):
    from nbayes.serve.app import INLINE_SIZE

    docs = [(SPAM[i % 6] + " " + HAM[i % 6] + " ") * 60 for i in range(12)]
    assert sum(map(len, docs)) > INLINE_SIZE  # the worker-thread path
    with TestClient(create_app(str(files / "text.nbm"))) as c:
        got = ok(c, "/v1/predict", {"texts": docs})["predictions"]
    P = text_model.predict_proba(docs)
    assert [g["label"] for g in got] == text_model.predict(docs).tolist()
    assert np.allclose([[g["probabilities"][k] for k in ("ham", "spam")] for g in got], P, rtol=0, atol=1e-12)


def test_text_explain_sums_to_the_log_odds(text_client, text_model):
    text = "İİ Call NOW to claim your free prize, see you at lunch"  # 'İ' lower-cases to 2 code points
    ex = ok(text_client, "/v1/explain", {"text": text})
    jll = text_model.predict_joint_log_proba([text])[0]
    a, b = (list(text_model.classes_).index(ex[k]) for k in ("label", "runner_up"))
    assert ex["label"] == text_model.predict([text])[0] and ex["runner_up"] != ex["label"]
    assert ex["log_odds"] == pytest.approx(jll[a] - jll[b], abs=1e-12)
    total = ex["baseline"] + math.fsum(t["contribution"] for t in ex["tokens"])
    assert total == pytest.approx(ex["log_odds"], abs=1e-9)
    words = [t["token"] for t in ex["tokens"]]
    assert words[:3] == ["call", "now", "to"] and "prize" in words
    for t in ex["tokens"]:  # spans point into the text as sent, not into its lower-cased form
        assert text[t["start"]:t["end"]].lower() == t["token"]
    assert any(t["contribution"] > 0 for t in ex["tokens"]) and any(t["contribution"] < 0 for t in ex["tokens"])


# ---------------------------------------------------------------------------- table models
def test_table_predict_rows_objects_arrays_and_missing(table_client, table_model):
    rows = [{"age": 30, "colour": "red", "smoker": True}, {"age": 58.5, "colour": "blue"}, {}]
    X = np.array([[30, "red", True], [58.5, "blue", None], [None, None, None]], dtype=object)
    P = table_model.predict_proba(X)
    got = ok(table_client, "/v1/predict", {"rows": rows})["predictions"]
    assert [g["label"] for g in got] == table_model.predict(X).tolist()
    for g, p in zip(got, P):
        assert [g["probabilities"][c] for c in ("no", "yes")] == pytest.approx(p.tolist(), abs=1e-12)
    one = ok(table_client, "/v1/predict", {"row": [30, "red", True]})  # an array in feature order
    assert one == got[0]
    unseen = ok(table_client, "/v1/predict", {"row": {"colour": "purple"}})  # an unseen category
    assert math.fsum(unseen["probabilities"].values()) == pytest.approx(1.0)


def test_table_explain_per_feature(table_client, table_model):
    row = {"age": 27, "colour": "red", "smoker": None}
    ex = ok(table_client, "/v1/explain", {"row": row})
    X = np.array([[27, "red", None]], dtype=object)
    jll = table_model.predict_joint_log_proba(X)[0]
    a, b = (list(table_model.classes_).index(ex[k]) for k in ("label", "runner_up"))
    assert ex["log_odds"] == pytest.approx(jll[a] - jll[b], abs=1e-12)
    assert ex["baseline"] + math.fsum(f["contribution"] for f in ex["features"]) == pytest.approx(ex["log_odds"], abs=1e-9)
    assert [(f["feature"], f["value"]) for f in ex["features"]] == [("age", 27), ("colour", "red"), ("smoker", None)]
    assert ex["features"][2]["contribution"] == 0.0  # a missing feature is left out, exactly


def test_model_metadata_matches_nbayes_info(files, text_client, table_client):
    from click.testing import CliRunner

    from nbayes.cli import main

    for name, client in (("text.nbm", text_client), ("table.nbm", table_client)):
        info = json.loads(CliRunner().invoke(main, ["info", str(files / name), "--json"]).output)
        got = client.get("/v1/model").json()
        for key in ("file", "format_version", "written_by", "checksum", "model", "params", "classes", "n_features", "features", "target"):
            assert got[key] == info[key], key
        # `nbayes info` reads n_samples_seen from the raw header and misses it for models saved
        # from Python (it prints null); the service reads the decoded state
        assert got["training_rows"] == (12 if name == "text.nbm" else 8)
        assert got["limits"] == LIMITS
    schema = table_client.get("/v1/model").json()["feature_schema"]
    assert schema == [
        {"name": "age", "kind": "number"},
        {"name": "colour", "kind": "category", "categories": ["blue", "green", "red"]},
        {"name": "smoker", "kind": "boolean"},
    ]
    assert text_client.get("/v1/model").json()["input"] == "text"


def test_health_openapi_and_page(text_client, table_client):
    h = text_client.get("/healthz").json()
    assert h["status"] == "ok" and h["reload_error"] is None and h["model"]["kind"] == "TextClassifier"
    for client in (text_client, table_client):
        spec = client.get("/openapi.json").json()
        assert spec["openapi"].startswith("3.")
        assert {"/v1/predict", "/v1/explain", "/v1/model", "/healthz"} <= set(spec["paths"])
        assert spec["paths"]["/v1/predict"]["post"]["responses"].keys() >= {"200", "400", "413", "422"}
    props = table_client.get("/openapi.json").json()["components"]["schemas"]["One"]["properties"]["row"]["oneOf"][0]["properties"]
    assert set(props) == {"age", "colour", "smoker"}
    page = text_client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "connect-src 'self'" in page.headers["content-security-policy"]
    assert "http://" not in page.text and "https://" not in page.text  # no external requests


# ---------------------------------------------------------------------------- errors
TEXT_ERRORS = [
    ("/v1/predict", b"{not json", 400, "not valid JSON"),
    ("/v1/predict", b"", 400, "empty"),
    ("/v1/predict", b'{"text": NaN}', 400, "not valid JSON"),
    ("/v1/predict", b"\xff\xfe{}", 400, ""),
    ("/v1/predict", b'{"texts": ["a"], "n": 1e400}', 400, "not valid JSON"),
    ("/v1/predict", b"[1, 2]", 422, "JSON object"),
    ("/v1/predict", b'"text"', 422, "JSON object"),
    ("/v1/predict", b"{}", 422, "exactly one of"),
    ("/v1/predict", b'{"text": "a", "texts": ["b"]}', 422, "exactly one of"),
    ("/v1/predict", b'{"txt": "a"}', 422, "unknown field 'txt'"),
    ("/v1/predict", b'{"text": 3}', 422, "must be a string"),
    ("/v1/predict", b'{"text": null}', 422, "must be a string"),
    ("/v1/predict", b'{"texts": "abc"}', 422, "array of strings"),
    ("/v1/predict", b'{"texts": ["a", {"b": 1}]}', 422, "texts[1]"),
    ("/v1/predict", b'{"row": {"age": 3}}', 422, "text model"),
    ("/v1/explain", b'{"texts": ["a"]}', 422, "one item"),
    ("/v1/explain", b'{"rows": []}', 422, "text model"),
    ("/v1/predict", json.dumps({"texts": ["a"] * 6}).encode(), 422, "limit is 5"),
    ("/v1/predict", json.dumps({"text": "x" * 501}).encode(), 422, "limit is 500"),
    ("/v1/explain", json.dumps({"text": "y" * 501}).encode(), 422, "limit is 500"),
    ("/v1/predict", json.dumps({"text": "z" * 20_001}).encode(), 413, "limit is 20,000"),
]


@pytest.mark.parametrize("path,raw,status,words", TEXT_ERRORS)
def test_text_errors(text_client, path, raw, status, words):
    r = text_client.post(path, content=raw, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    body = r.json()
    assert body["status"] == status and words in body["error"]
    assert "Traceback" not in r.text


TABLE_ERRORS = [
    ({"text": "hello"}, 422, "table model"),
    ({"row": {"age": 3, "height": 2}}, 422, "unknown feature 'height'"),
    ({"row": {"age": "old"}}, 422, "row.age must be a number"),
    ({"row": {"age": True}}, 422, "row.age must be a number"),
    ({"row": {"smoker": "yes"}}, 422, "row.smoker must be true, false, 0 or 1"),
    ({"row": {"colour": ["red"]}}, 422, "row.colour must be a string, number or boolean"),
    ({"row": {"colour": "r" * 501}}, 422, "limit is 500"),
    ({"row": [1, 2]}, 422, "needs 3 values"),
    ({"row": "age=3"}, 422, "must be an object"),
    ({"rows": {"age": 3}}, 422, "array of objects"),
    ({"rows": [{"age": 3}, 7]}, 422, "rows[1] must be an object"),
    ({"rows": [{}] * 6}, 422, "limit is 5"),
    ({"row": {"age": 10**400}}, 400, "not valid JSON"),
]


@pytest.mark.parametrize("body,status,words", TABLE_ERRORS)
def test_table_errors(table_client, body, status, words):
    r = table_client.post("/v1/predict", content=json.dumps(body).encode())
    assert r.status_code == status, r.text
    assert words in r.json()["error"], r.text


def test_counts_model_needs_every_feature_and_numbers(counts_client):
    r = counts_client.post("/v1/predict", json={"row": {"x0": 1, "x1": 2}})
    assert r.status_code == 422 and "no value for feature 'x2'" in r.json()["error"]
    r = counts_client.post("/v1/predict", json={"row": {"x0": 1, "x1": 2, "x2": -4}})
    assert r.status_code == 422 and "error" in r.json()  # the model's own message: counts are >= 0
    got = ok(counts_client, "/v1/explain", {"row": [2, 0, 1]})
    assert got["label"] == 1 and [f["feature"] for f in got["features"]] == ["x0", "x1", "x2"]


def test_body_limits_with_and_without_content_length(text_client):
    r = text_client.post("/v1/predict", content=b"{}", headers={"content-length": "25000"})
    assert r.status_code == 413 and "20,000" in r.json()["error"]

    def chunks():  # no Content-Length: the body is counted as it arrives
        yield b'{"text": "'
        for _ in range(30):
            yield b"a" * 1000
        yield b'"}'

    r = text_client.post("/v1/predict", content=chunks())
    assert r.status_code == 413 and "limit" in r.json()["error"]


def test_unknown_routes_and_methods(text_client):
    r = text_client.get("/v2/predict")
    assert r.status_code == 404 and "no such endpoint" in r.json()["error"]
    r = text_client.get("/v1/predict")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    r = text_client.put("/v1/model")
    assert r.status_code == 405


def test_random_json_is_never_a_500(text_client, table_client):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
    values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=6), kids, max_size=4), max_leaves=12)
    keys = st.sampled_from(["text", "texts", "row", "rows", "age", "colour", "x"])
    bodies = st.dictionaries(keys, values, max_size=3) | values

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=bodies, path=st.sampled_from(["/v1/predict", "/v1/explain"]))
    def check(body, path):
        for client in (text_client, table_client):
            r = client.post(path, content=json.dumps(body).encode())
            assert r.status_code in (200, 400, 413, 422), (body, r.text)
            assert "error" in r.json() or r.status_code == 200

    check()


def _kinds():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    docs, labels = SPAM + HAM, ["spam"] * 6 + ["ham"] * 6
    text = {"text": "free prize, see you at lunch"}
    row = {"row": [0.5, -1.0, 2.0]}
    return {
        "text-bernoulli": (lambda: nbayes.TextClassifier(model="bernoulli").fit(docs, labels), text),
        "text-complement": (lambda: nbayes.TextClassifier(model="complement").fit(docs, labels), text),
        "text-nblr": (lambda: nbayes.TextClassifier(model="nblr").fit(docs, labels), text),
        "text-alpha0": (lambda: nbayes.TextClassifier(alpha=0).fit(docs, labels), text),
        "logistic-binary": (lambda: nbayes.LogisticRegression().fit(X, y), row),
        "logistic-3": (lambda: nbayes.LogisticRegression().fit(X, rng.integers(0, 3, 40)), row),
        "gaussian-missing": (lambda: nbayes.GaussianNB().fit(X, y), {"row": {"x0": 0.5, "x2": 1.0}}),
        "bernoulli": (lambda: nbayes.BernoulliNB().fit(X, y), row),
        "categorical-unseen": (lambda: nbayes.CategoricalNB().fit(rng.integers(0, 3, (40, 2)), y), {"row": [1, 5]}),
        "gaussian-bayes": (lambda: nbayes.GaussianBayes().fit(X, y), row),
    }


@pytest.mark.parametrize("kind", list(_kinds()))
def test_every_model_kind_answers_without_a_500(tmp_path, kind):
    make, body = _kinds()[kind]
    model = make()
    model.save(tmp_path / "m.nbm")
    with TestClient(create_app(str(tmp_path / "m.nbm")), raise_server_exceptions=False) as c:
        pred = ok(c, "/v1/predict", body)
        cur = c.app.state.holder.current
        X = [body["text"]] if "text" in body else cur.matrix([cur._row("row", body["row"], c.app.state.limits)])
        assert pred["label"] == model.predict(X)[0]
        assert math.fsum(pred["probabilities"].values()) == pytest.approx(1.0)
        r = c.post("/v1/explain", json=body)
        if kind == "gaussian-bayes":  # full covariance: no additive terms
            assert r.status_code == 422 and "no additive explanation" in r.json()["error"]
        else:
            assert r.status_code == 200, r.text
            ex = r.json()
            terms = [t["contribution"] for t in ex.get("tokens") or ex["features"]]
            if all(isinstance(t, float) for t in terms) and isinstance(ex["log_odds"], float):
                assert ex["baseline"] + math.fsum(terms) == pytest.approx(ex["log_odds"], abs=1e-9)
        assert c.get("/v1/model").status_code == 200 and c.get("/openapi.json").status_code == 200


# ---------------------------------------------------------------------------- reloading
def wait_for(predicate, timeout=8.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def test_reload_on_change_and_a_bad_file_keeps_the_old_model(tmp_path, text_model, caplog):
    caplog.set_level("INFO", logger="nbayes.serve")
    path = tmp_path / "m.nbm"
    text_model.save(path)
    with TestClient(create_app(str(path), reload_interval=0.05)) as c:
        assert c.get("/v1/model").json()["classes"] == ["ham", "spam"]
        # a new model (new classes) saved over the file is served within the interval
        nbayes.TextClassifier().fit(SPAM + HAM, ["a"] * 4 + ["b"] * 4 + ["c"] * 4).save(path)
        wait_for(lambda: c.get("/v1/model").json()["classes"] == ["a", "b", "c"])
        assert c.get("/healthz").json()["reloads"] == 1
        good = path.read_bytes()
        # truncated, then corrupted, then gone: the model in memory keeps serving; /healthz says why
        middle = len(good) // 2
        bad_files = (good[:20], good[:middle] + bytes([good[middle] ^ 1]) + good[middle + 1:], None)
        for n, (bad, words) in enumerate(zip(bad_files, ("truncated model file", "checksum mismatch", "cannot read")), 1):
            if bad is None:
                path.unlink()
            else:
                tmp = path.with_suffix(".tmp")
                tmp.write_bytes(bad)
                os.replace(tmp, path)  # whole, as a save does: one change, one failure
            h = wait_for(lambda: (lambda h: h if h["reload_failures"] == n else None)(c.get("/healthz").json()))
            assert words in h["reload_error"]["message"], h
            assert h["status"] == "stale" and h["model"]["kind"] == "TextClassifier"
            assert set(ok(c, "/v1/predict", {"text": "free prize"})["probabilities"]) == {"a", "b", "c"}
        assert ok(c, "/v1/predict", {"text": "lunch"})["label"] in ("a", "b", "c")
        text_model.save(path)  # a good file again: back to ok
        wait_for(lambda: c.get("/healthz").json()["status"] == "ok")
        assert c.get("/v1/model").json()["classes"] == ["ham", "spam"]
    messages = [r.getMessage() for r in caplog.records if r.name == "nbayes.serve"]
    assert sum("reloaded" in m for m in messages) == 2
    assert sum("cannot be loaded; still serving the previous model" in m for m in messages) == 3, messages  # once each
    assert not [r for r in caplog.records if r.exc_info], "the watcher must not fail"


def test_a_bad_file_at_start_is_an_error(tmp_path):
    from nbayes.errors import ModelFileError

    (tmp_path / "bad.nbm").write_bytes(b"not a model")
    with pytest.raises(ModelFileError, match="not an nbayes model file"):
        create_app(str(tmp_path / "bad.nbm"))
    with pytest.raises(ValueError, match="max_batch"):
        create_app(str(tmp_path / "bad.nbm"), max_batch=0)


# ---------------------------------------------------------------------------- the real server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(method: str, url: str, body: dict | None = None) -> tuple[int, dict]:
    import urllib.error
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture(scope="module")
def cli_server(files):
    """``nbayes serve`` in a subprocess, as a user runs it (its log in a file beside the models)."""
    port = free_port()
    exe = shutil.which("nbayes")
    cmd = [exe] if exe else [sys.executable, "-m", "nbayes.cli"]
    log = files / "serve.log"
    with open(log, "wb") as err:
        proc = subprocess.Popen([*cmd, "serve", str(files / "text.nbm"), "--port", str(port)],
                                stdout=subprocess.DEVNULL, stderr=err, env=os.environ.copy())
    url = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + 60
        while True:
            try:
                if http("GET", url + "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > end:
                raise AssertionError(f"nbayes serve did not start: {log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield proc, url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_cli_server_answers_and_reloads_on_sighup(cli_server):
    proc, url = cli_server
    status, got = http("POST", url + "/v1/predict", {"text": "win a free prize"})
    assert status == 200 and got["label"] == "spam"
    status, got = http("POST", url + "/v1/predict", {"texts": "nope"})
    assert status == 422 and "array of strings" in got["error"]
    before = http("GET", url + "/healthz")[1]["reloads"]
    proc.send_signal(signal.SIGHUP)
    wait_for(lambda: http("GET", url + "/healthz")[1]["reloads"] == before + 1)
    assert proc.poll() is None


def test_cli_serve_with_a_bad_file_is_one_line(tmp_path):
    from click.testing import CliRunner

    from nbayes.cli import main

    result = CliRunner().invoke(main, ["serve", str(tmp_path / "none.nbm")])
    assert result.exit_code == 2
    assert result.output.strip().endswith("none.nbm: no such model file")


@pytest.fixture(scope="module")
def thread_server(files, live_server):
    """The table model's app on a real uvicorn server in a thread."""
    with live_server(create_app(str(files / "table.nbm"))) as url:
        yield url


# ---------------------------------------------------------------------------- the page in Chromium
def open_page(browser, url):
    page = browser.new_context(viewport={"width": 1200, "height": 800}).new_page()  # closed with its context
    seen: list[str] = []
    problems: list[str] = []
    page.on("request", lambda r: seen.append(r.url))
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(url + "/")
    page.wait_for_selector("#go:not([disabled])", timeout=10_000)
    return page, seen, problems


def test_page_shows_probabilities_and_highlighted_words(browser, cli_server, tmp_path):
    _, url = cli_server
    page, seen, problems = open_page(browser, url)
    try:
        text = "URGENT! You WON a free prize: call now to claim. See you at lunch tomorrow?"
        page.fill("#text", text)
        page.click("#go")
        page.wait_for_selector("#bars .bar-row", timeout=10_000)
        page.wait_for_selector("#doc .tok.pos", timeout=10_000)
        probs = page.eval_on_selector_all("#bars .bar-row", "rows => rows.map(r => Number(r.dataset.p))")
        assert len(probs) == 2 and math.fsum(probs) == pytest.approx(1.0, abs=1e-9)
        assert page.inner_text("#label") == "spam"
        highlighted = page.eval_on_selector_all("#doc .tok.pos, #doc .tok.neg", "s => s.map(e => [e.textContent, e.style.backgroundColor])")
        assert len(highlighted) >= 1 and all(bg.startswith("rgba(") for _, bg in highlighted)
        assert any(w.lower() == "free" for w, _ in highlighted)
        assert page.inner_text("#doc") == text  # the document itself, every character, in order
        page.screenshot(path=str(tmp_path / "serve-text.png"), full_page=True)
        assert (tmp_path / "serve-text.png").stat().st_size > 5_000
        assert all(u.startswith(url) for u in seen), seen  # no external requests
        assert not problems, problems
    finally:
        page.context.close()  # and its connections: the servers stop without waiting for them


def test_page_form_for_a_table_model(browser, thread_server, tmp_path):
    page, seen, problems = open_page(browser, thread_server)
    try:
        assert page.eval_on_selector_all("#row label", "ls => ls.map(l => l.firstChild.textContent)") == ["age", "colour", "smoker"]
        page.fill("#f0", "26")
        page.select_option("#f1", label="red")
        page.select_option("#f2", label="true")
        page.click("#go")
        page.wait_for_selector("#features tr", timeout=10_000)
        probs = page.eval_on_selector_all("#bars .bar-row", "rows => rows.map(r => Number(r.dataset.p))")
        assert math.fsum(probs) == pytest.approx(1.0, abs=1e-9)
        assert page.inner_text("#label") == "yes"
        assert len(page.query_selector_all("#features tr")) == 3
        page.screenshot(path=str(tmp_path / "serve-table.png"), full_page=True)
        assert all(u.startswith(thread_server) for u in seen) and not problems, (seen, problems)
    finally:
        page.context.close()  # and its connections: the servers stop without waiting for them
