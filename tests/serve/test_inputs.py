"""Nothing a client sends can break the learning service for others: every string of a body is
valid Unicode, and a label keeps the type of the model's classes (:func:`check_label`). What
the checks accept can always be saved, loaded, answered in JSON and replayed: generated labels
against the check, and a live server that learns odd labels, is killed, restarts and answers."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
orjson = pytest.importorskip("orjson", reason="the strict JSON check of answers uses orjson")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from nbayes.serve._json import dumps, loads  # noqa: E402
from nbayes.serve._model import Problem  # noqa: E402
from nbayes.serve._requests import bad_strings, check_label, labels_of  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}

#: every code point, lone surrogates included
ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=()), max_size=12)
LABELS = st.one_of(ANY_TEXT, st.integers(), st.integers(min_value=-(2**70), max_value=2**70),
                   st.floats(allow_nan=False, allow_infinity=False), st.booleans())
CLASSES = [np.array(["ham", "spam"]), np.array([1, 2]), np.array([False, True]), np.array([0.0, 1.0]),
           np.array([1, "a"], dtype=object), np.array([np.uint8(3), np.uint8(7)])]


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def json_text(obj) -> bytes:
    """JSON with every non-ASCII character escaped (a lone surrogate as ``\\ud800``), as a client may send."""
    return json.dumps(obj).encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label=LABELS, k=st.integers(0, len(CLASSES) - 1))
def test_an_accepted_label_can_be_learned_saved_loaded_and_answered(label, k, tmp_path_factory):
    classes = CLASSES[k]
    try:
        check_label(label, classes, "label", 1000)
    except Problem as exc:
        assert exc.status == 422 and exc.message.startswith("label ")
        return
    # the type is the classes' (a boolean is not an integer, an integer not a string)
    assert type(label) is bool if classes.dtype.kind == "b" else type(label) is not bool or classes.dtype == object
    orjson.dumps(label)  # the strict encoder of answers takes it
    X = np.eye(len(classes), dtype=float)
    model = nbayes.MultinomialNB().fit(np.vstack([X, X]), list(classes) * 2)
    model.partial_fit([[1.0] + [0.0] * (len(classes) - 1)], [label])
    buf = tmp_path_factory.mktemp("m") / "m.nbm"
    model.save(buf)
    back = nbayes.load(buf)
    assert back.classes_.tolist() == model.classes_.tolist()
    same = {"i": "iu", "u": "iu"}.get(classes.dtype.kind, classes.dtype.kind)
    assert back.classes_.dtype.kind in same or classes.dtype == object
    orjson.dumps([c.item() if hasattr(c, "item") else c for c in back.classes_.tolist()])
    keys = [str(c) for c in back.classes_.tolist()]
    assert len(set(keys)) == len(keys), "two classes answer under one key"


@settings(max_examples=200, deadline=None)
@given(obj=st.recursive(st.one_of(ANY_TEXT, st.integers(-5, 5), st.none()),
                        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=3),
                        max_leaves=12))
def test_a_body_holding_a_lone_surrogate_anywhere_is_refused_with_its_place(obj):
    raw = json_text({"texts": obj})
    has = any(0xD800 <= ord(ch) <= 0xDFFF for ch in "".join(strings(obj)))
    try:
        parsed = loads(raw)
    except Problem as exc:
        assert has and exc.status == 422 and "lone surrogate" in exc.message
        assert exc.message.startswith(("texts", "the key", "the body"))
        return
    assert not has
    assert parsed == {"texts": obj}
    dumps(parsed)


def test_the_checks_name_what_was_wrong():
    cases = [(np.array(["a", "b"]), 3, "is an integer, but the classes of this model are strings"),
             (np.array([1, 2]), "3", "is a string, but the classes of this model are integers"),
             (np.array([1, 2]), True, "is a boolean, but"),
             (np.array([1, 2]), 1.0, "a number with a fraction or a decimal point (1.0)"),
             (np.array([1, 2]), 2**63, "beyond the integers this model's classes hold"),
             (np.array(["a", "b"]), "x\ud800", "holds a lone surrogate '\\ud800' at character 1"),
             (np.array(["a", "b"]), "ab\x00", "holds a NUL character (\\u0000) at character 2")]
    for classes, label, message in cases:
        with pytest.raises(Problem) as info:
            labels_of({"labels": [label]}, 1, False, classes=classes)
        assert info.value.status == 422 and message in info.value.message, info.value.message
        assert info.value.message.startswith("labels[0] ")
    with pytest.raises(Problem, match=r"labels\[0\]\[1\] is an integer"):
        labels_of({"labels": [["a", 3]]}, 1, False, sets=True, classes=np.array(["a", "b"]))
    assert bad_strings({"rows": [{"ok": 1, "f": ["x", "\udfff"]}]}).startswith("rows[0].f[1] holds a lone surrogate")
    assert bad_strings({"rows": [{"\ud800": 1}]}).startswith("the key '\\ud800' of rows[0] holds")


def test_an_answer_holding_what_orjson_refuses_is_still_json():
    assert json.loads(dumps({"a": "x\ud800", "b": 2**70})) == {"a": "x\ud800", "b": 2**70}


ODD = ["", "\uffff", "\U0001f600 emoji", "tab\tnew\nline", "\u202eRTL", "a" * 500, "quote\"'\\"]


def test_odd_labels_are_learned_served_snapshotted_and_replayed(tmp_path):
    path = tmp_path / "m.nbm"
    nbayes.TextClassifier().fit(["free prize", "lunch noon"], ["spam", "ham"]).save(path)
    ok = lambda r: r.status_code == 200  # noqa: E731
    for snapshot_every in (1, 1000):  # the labels in the file, then only in the log
        for f in (path, tmp_path / "m.nbm.log"):
            if snapshot_every == 1000 and f.suffix == ".log" and f.exists():
                os.unlink(f)
        app = create_app(str(path), learn=True, token=TOKEN, allow_new_classes=True, snapshot_every=snapshot_every)
        with TestClient(app) as c:
            for i, label in enumerate(ODD):
                r = c.post("/v1/learn?visible=true", content=json_text({"text": f"doc{i} w", "label": label}),
                           headers=AUTH)
                assert r.status_code in (200, 422), r.text
            r = c.post("/v1/learn", content=json_text({"text": "x", "label": 3}), headers=AUTH)
            assert r.status_code == 422 and "strings" in r.json()["error"]
            r = c.post("/v1/learn", content=json_text({"text": "x", "label": "\ud800"}), headers=AUTH)
            assert r.status_code == 422 and "lone surrogate" in r.json()["error"]
            r = c.post("/v1/learn", content=json_text({"text": "x", "label": "a\x00"}), headers=AUTH)
            assert r.status_code == 422 and r.json()["error"].startswith("label holds a NUL character")
            assert ok(c.post("/v1/predict", json={"text": "doc1 w"}))
            assert ok(c.get("/v1/model")) and ok(c.get("/openapi.json"))
            learned = c.get("/v1/model").json()["classes"]
        with TestClient(create_app(str(path), learn=True, token=TOKEN, allow_new_classes=True)) as c:
            assert c.get("/v1/model").json()["classes"] == learned
            r = c.post("/v1/predict", json={"texts": [f"doc{i} w" for i in range(len(ODD))]})
            assert ok(r) and ok(c.get("/openapi.json"))
            assert set(ODD) <= set(learned)
