"""``/openapi.json`` is generated from the served model and is exactly as strict as the service:
schemathesis, with every check and both positive and negative data, finds no failure against a
text model and a table model, single- and multi-label (rows as objects and as arrays, typed per feature, nullable when
the model leaves missing values out, categories as an enum); a schema violation is 422 (400 for
a body that is not JSON), and 413 is kept for a body over ``--max-body`` only."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
schemathesis = pytest.importorskip("schemathesis", reason="the fuzzing test needs schemathesis (the test extra)")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from nbayes.serve.app import loads  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

SPAM = ["WIN a FREE prize now, call to claim", "Free entry in a weekly draw", "You have won a cash prize",
        "Claim your free ringtone now"]
HAM = ["Are we still meeting for lunch", "I will call you when I get home", "Can you pick up some milk",
       "Running late, be there in ten"]
#: limits small enough that no schema-valid body comes near --max-body
LIMITS = dict(max_body=1_000_000, max_batch=4, max_text=200)


def _table_frame():
    import polars as pl

    return pl.DataFrame({
        "age": [23.0, 35.0, 47.0, 52.0, 29.0, 61.0, 33.0, 44.0],
        "colour": ["red", "blue", "red", "green", "red", "blue", "green", "blue"],
        "smoker": [True, False, True, False, True, False, False, True],
    })


Y8 = ["yes", "no", "yes", "no", "yes", "no", "no", "yes"]


@pytest.fixture(scope="module")
def model_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("openapi-models")
    nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 4 + ["ham"] * 4).save(d / "text.nbm")
    nbayes.NaiveBayes().fit(_table_frame(), Y8).save(d / "table.nbm")
    X = np.array([[23.0, 1.0], [35.0, 0.0], [47.0, 1.0], [52.0, 0.0], [29.0, 1.0], [61.0, 0.0], [33.0, 0.0], [44.0, 1.0]])
    nbayes.LogisticRegression().fit(X, Y8).save(d / "logistic.nbm")  # no missing values: every feature required
    counts = np.array([[3, 0, 1], [0, 2, 2], [4, 1, 0], [0, 3, 1]] * 2)
    nbayes.MultinomialNB().fit(counts, Y8).save(d / "counts.nbm")  # counts: values >= 0
    nbayes.CalibratedClassifier(nbayes.NaiveBayes(), cv=2).fit(_table_frame(), Y8).save(d / "calibrated.nbm")
    sets = [["spam", "promo"], ["spam"], ["spam", "win"], ["promo"], ["ham"], ["ham", "home"], ["ham"], ["ham", "home"]]
    nbayes.MultiLabel(nbayes.TextClassifier(alpha=0.5), cv=2).fit(SPAM + HAM, sets).save(d / "multilabel_text.nbm")
    nbayes.MultiLabel(nbayes.NaiveBayes(), top_k=2).fit(_table_frame(), [[y, c] for y, c in zip(Y8, "abcabcab")]).save(
        d / "multilabel_table.nbm")
    return d


def _schema(path):
    config = schemathesis.Config()
    config.projects.default.generation.update(modes=list(schemathesis.GenerationMode), max_examples=20,
                                              database="none")
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(str(path), **LIMITS), config=config)


@pytest.fixture(scope="module", params=["text", "table", "logistic", "counts", "calibrated", "multilabel_text",
                                        "multilabel_table"])
def served_schema(request, model_files):
    return _schema(model_files / f"{request.param}.nbm")


fuzzed = schemathesis.pytest.from_fixture("served_schema")


@fuzzed.parametrize()
def test_schemathesis_finds_nothing(case):
    case.call_and_validate()  # every check: status codes, response schemas, positive and negative data


# ---------------------------------------------------------------------------- the schema itself
@pytest.fixture(scope="module")
def table_spec(model_files):
    with TestClient(create_app(str(model_files / "table.nbm"), **LIMITS)) as c:
        return c.get("/openapi.json").json()


def test_rows_typed_per_feature_as_objects_and_arrays(table_spec):
    as_object, as_array = table_spec["components"]["schemas"]["One"]["properties"]["row"]["oneOf"]
    props = as_object["properties"]
    assert list(props) == ["age", "colour", "smoker"] and as_object["additionalProperties"] is False
    assert "required" not in as_object  # NaiveBayes leaves missing values out: null or absent allowed
    assert props["age"]["type"] == ["number", "null"]
    assert props["colour"]["anyOf"][0] == {"enum": ["blue", "green", "red"]}
    assert as_array["prefixItems"] == [props["age"], props["colour"], props["smoker"]]
    assert as_array["items"] is False and as_array["minItems"] == as_array["maxItems"] == 3


def test_logistic_rows_require_every_feature(model_files):
    with TestClient(create_app(str(model_files / "logistic.nbm"), **LIMITS)) as c:
        spec = c.get("/openapi.json").json()
        as_object, as_array = spec["components"]["schemas"]["One"]["properties"]["row"]["oneOf"]
        assert as_object["required"] == ["x0", "x1"]
        assert all("null" not in v["type"] for v in as_array["prefixItems"])
        assert c.post("/v1/predict", json={"row": [1.0, None]}).status_code == 422


def test_limits_are_422_and_only_the_body_is_413(model_files):
    with TestClient(create_app(str(model_files / "text.nbm"), **LIMITS)) as c:
        spec = c.get("/openapi.json").json()
        assert spec["components"]["schemas"]["One"]["properties"]["text"]["maxLength"] == 200
        assert spec["components"]["schemas"]["Batch"]["properties"]["texts"]["maxItems"] == 4
        for body in ({"text": "x" * 201}, {"texts": ["a"] * 5}):
            r = c.post("/v1/predict", json=body)
            assert r.status_code == 422 and "limit" in r.json()["error"], r.text
        r = c.post("/v1/predict", content=json.dumps({"text": "y" * 1_000_001}).encode())
        assert r.status_code == 413 and "1,000,000" in r.json()["error"]
    with TestClient(create_app(str(model_files / "table.nbm"), **LIMITS)) as c:
        r = c.post("/v1/predict", json={"row": {"colour": "r" * 201}})
        assert r.status_code == 422 and "limit is 200" in r.json()["error"]
        r = c.post("/v1/predict", json={"rows": [{}] * 5})
        assert r.status_code == 422 and "limit is 4" in r.json()["error"]


def test_integers_beyond_64_bits_are_numbers(model_files):
    with TestClient(create_app(str(model_files / "table.nbm"), **LIMITS)) as c:
        r = c.post("/v1/predict", content=b'{"row": {"age": 100000000000000000000000}}')
        assert r.status_code == 200, r.text
        r = c.post("/v1/predict", content=b'{"row": {"age": 1' + b"0" * 400 + b"}}")
        assert r.status_code == 400 and "out of range" in r.json()["error"]


@pytest.mark.parametrize("raw", [
    b'{"rows": [[123456789012345678901234]]}',  # beyond 64 bits
    b'{"a": {"b": [1, 2, {"c": 18446744073709551616}]}}',  # 2**64, nested
    b'{"rows": [[-9223372036854775809]]}',  # 19 digits, below -2**63: orjson's float too
])
def test_json_integers_orjson_would_round_stay_exact(raw):
    """The body parser keeps every integer exact (the standard parser where orjson read one
    as a float), and takes orjson's values otherwise (floats of any size included)."""
    assert loads(raw) == json.loads(raw)
    assert loads(b'{"texts": ["a"], "w": [1.5e300, -2e19], "labels": ["b"]}') == {
        "texts": ["a"], "w": [1.5e300, -2e19], "labels": ["b"]}
