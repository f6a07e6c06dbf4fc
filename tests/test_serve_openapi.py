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


#: 413 is the answer to a body over --max-body, refused before it is read, whether or not it
#: follows the schema (JSON Schema bounds items and characters, not bytes; the request body's
#: description states the limit): a refusal of negative data, and the one refusal of a
#: schema-valid body the schema cannot state. Every other status is schemathesis' default.
NEGATIVE_STATUSES = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429", "5xx"]
POSITIVE_STATUSES = ["2xx", "3xx", "401", "403", "404", "409", "413", "429", "5xx"]
#: every check there is, named, so that none is left out by a default: positive data accepted,
#: negative data refused (also in the coverage phase's boundary cases), methods the schema does
#: not list refused (405), answers as the schema says
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance", "negative_data_rejection",
          "positive_data_acceptance", "missing_required_header", "unsupported_method"]


def _schema(path, limits):
    config = schemathesis.Config()
    project = config.projects.default
    project.generation.update(modes=list(schemathesis.GenerationMode), max_examples=20, database="none")
    project.phases.update(phases=["examples", "coverage", "fuzzing"])
    project.checks.update(included_check_names=CHECKS)
    project.checks.negative_data_rejection.expected_statuses = NEGATIVE_STATUSES
    project.checks.positive_data_acceptance.expected_statuses = POSITIVE_STATUSES
    return schemathesis.openapi.from_asgi("/openapi.json", create_app(str(path), **limits), config=config)


#: --max-body far under what --max-text and --max-batch (the defaults) let a body hold: bodies
#: valid and invalid come over it (as with the defaults, where a text over --max-text can be a
#: body over 1 MB: the three "schema-violating request accepted" of issue #28, 413 each)
TIGHT_BODY = dict(max_body=2_000)
#: (model, limits): small limits, under which no schema-valid body comes near --max-body, and a
#: body limit under the others'
SERVED = [(name, LIMITS) for name in ("text", "table", "logistic", "counts", "calibrated", "multilabel_text",
                                      "multilabel_table")] + [(name, TIGHT_BODY) for name in ("text", "table")]


@pytest.fixture(scope="module", params=SERVED,
                ids=[f"{m}-{'limits' if lim is LIMITS else 'tight-body'}" for m, lim in SERVED])
def served_schema(request, model_files):
    name, limits = request.param
    return _schema(model_files / f"{name}.nbm", limits)


fuzzed = schemathesis.pytest.from_fixture("served_schema")


@fuzzed.parametrize()
def test_schemathesis_finds_nothing(case):
    schemathesis.checks.load_all_checks()
    case.call_and_validate(checks=schemathesis.checks.CHECKS.get_by_names(CHECKS))  # every check, named


TOKEN = "t0ken"


def test_a_label_per_item(model_files, tmp_path):
    """A learning batch takes one label (and weight) per item. JSON Schema cannot tie two arrays'
    lengths (short of one branch per length), so the schema says it in the arrays' descriptions,
    and schemathesis' positive_data_acceptance would find such batches "schema-valid" yet
    refused: the one known gap of the learning endpoints' schema (they are not fuzzed here)."""
    path = tmp_path / "text.nbm"
    path.write_bytes((model_files / "text.nbm").read_bytes())
    with TestClient(create_app(str(path), learn=True, token=TOKEN, **LIMITS)) as c:
        spec = c.get("/openapi.json").json()
        assert "one per item of 'texts'" in spec["components"]["schemas"]["LearnBatch"]["properties"]["labels"]["description"]
        auth = {"Authorization": f"Bearer {TOKEN}"}
        for body in ({"texts": ["a b"], "labels": []}, {"texts": [], "labels": [], "weights": [1]},
                     {"texts": ["a b", "c d"], "labels": ["spam", "ham"], "weights": [1.0]}):
            r = c.post("/v1/learn", json=body, headers=auth)
            assert r.status_code == 422, (body, r.text)
        assert c.post("/v1/learn", json={"texts": ["a b"], "labels": ["spam"], "weights": [2.0]},
                      headers=auth).status_code == 200


def test_a_body_over_max_body_is_413_valid_or_not(model_files):
    with TestClient(create_app(str(model_files / "text.nbm"), max_body=1000)) as c:
        spec = c.get("/openapi.json").json()
        assert "At most 1,000 bytes" in spec["paths"]["/v1/predict"]["post"]["requestBody"]["description"]
        assert "413" in spec["paths"]["/v1/explain"]["post"]["responses"]
        for body in ({"text": "x" * 2000}, {"text": 3, "pad": "x" * 2000}):  # schema-valid, schema-invalid
            r = c.post("/v1/predict", json=body)
            assert r.status_code == 413 and "the limit is 1,000" in r.json()["error"], r.text
        assert c.post("/v1/predict", json={"text": 3}).status_code == 422  # under the limit: the schema's answer


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


@pytest.mark.parametrize("name, item", [("text", {"text": "brand new words here"}),
                                        ("table", {"row": {"age": 30.0, "colour": "red", "smoker": True}})])
def test_answers_of_a_service_that_learns_new_classes_follow_its_schema(model_files, tmp_path, name, item):
    """With --allow-new-classes the classes grow after the schema was read: a label is any value
    of the classes' type and the probabilities may name more classes; an explanation's numbers
    may be infinite (a class of one row under no smoothing), written as the strings JSON has."""
    jsonschema = pytest.importorskip("jsonschema")
    path = tmp_path / f"{name}.nbm"
    path.write_bytes((model_files / f"{name}.nbm").read_bytes())
    app = create_app(str(path), learn=True, token="t0ken", allow_new_classes=True)
    with TestClient(app) as c:
        spec = c.get("/openapi.json").json()
        r = c.post("/v1/learn?visible=true", json={**item, "label": ""}, headers={"Authorization": "Bearer t0ken"})
        assert r.status_code == 200, r.text
        for path_, schema_name in (("/v1/predict", "Prediction"), ("/v1/explain", "Explanation")):
            answer = c.post(path_, json=item).json()
            jsonschema.validate(answer, {"$ref": f"#/components/schemas/{schema_name}",
                                         "components": spec["components"]})
        assert "" in c.post("/v1/predict", json=item).json()["probabilities"]


def test_an_unknown_query_parameter_is_refused_on_every_endpoint(model_files, tmp_path):
    """A query parameter an endpoint does not take is a 422 naming it and the accepted ones (a
    misspelt ``?visable=true`` was answered 200 and ignored); the schema lists each operation's
    query parameters, the same as the service accepts, and says so."""
    from nbayes.serve._query import QUERY

    path = tmp_path / "text.nbm"
    path.write_bytes((model_files / "text.nbm").read_bytes())
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(create_app(str(path), learn=True, token=TOKEN, track_prior=True, **LIMITS)) as c:
        spec = c.get("/openapi.json").json()
        operations = [(p, m, op) for p, ops in spec["paths"].items() for m, op in ops.items()]
        assert {p for p, _, _ in operations} >= {"/v1/predict", "/v1/explain", "/v1/learn", "/v1/label", "/healthz", "/"}
        for p, method, op in operations:
            declared = tuple(q["name"] for q in op.get("parameters", ()) if q["in"] == "query")
            assert declared == QUERY.get(p, ()), p
            assert "refused with 422" in op["description"] and "422" in op["responses"], p
            r = c.request(method.upper(), f"{p}?visable=true&x=1", json={}, headers=auth)
            assert r.status_code == 422, (p, r.text)
            message = r.json()["error"]
            assert "'visable'" in message and "'x'" in message, message
            assert (f"its query parameters are: {', '.join(declared)}" if declared else "no query parameters") in message
        assert c.get("/openapi.json?pretty=1").status_code == 422  # (not in its own schema: refused too)
        # the accepted ones are still accepted, and a request without a query string unchanged
        assert c.post("/v1/learn?visible=true", json={"texts": ["a b"], "labels": ["spam"]}, headers=auth).status_code == 200
        assert c.post("/v1/predict", json={"text": "free prize"}).json()["label"] == "spam"
        assert c.get("/healthz").status_code == 200
