"""Active learning in ``nbayes serve --learn``: a pool registered once (``POST /v1/pool``),
``POST /v1/suggest`` hands each annotator the items most worth labelling (as
``nbayes.active.suggest``) under leases, so two annotators never share an item and an expired
lease returns it; ``POST /v1/label`` learns through the durable path (the prediction changes,
and a restart keeps it) and takes the items out of the pool; bad bodies are 422 naming the
field; schemathesis finds nothing in the pool endpoints' schema."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.active import DEFAULT, suggest  # noqa: E402
from nbayes.serve import _pool, create_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

TOKEN = "pool-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize", "win cash today"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday", "dinner at home"]
WORDS = "free prize cash claim win lunch home meeting dinner tonight thursday noon zebra okapi river".split()
POOL = [" ".join(np.random.default_rng(i).choice(WORDS, size=4)) for i in range(40)]


def base():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 4 + ["ham"] * 4)


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "spam.nbm"
    base().save(p)
    return p


def service(path, **kw):
    kw.setdefault("token", TOKEN)
    return TestClient(create_app(str(path), learn=True, **kw))


def post(c, route, body, status=200, headers=AUTH):
    r = c.post(route, json=body, headers=headers)
    assert r.status_code == status, r.text
    return r.json()


def ids(answer):
    return [item["id"] for item in answer["items"]]


# ---------------------------------------------------------------------------- suggestions and leases
def test_suggestions_are_nbayes_active_suggest_over_the_registered_pool(path):
    model = base()
    with service(path) as c:
        reg = post(c, "/v1/pool", {"texts": POOL})
        assert reg["registered"] == 40 and reg["pool"]["available"] == 40
        for strategy, seed in ((DEFAULT, None), ("entropy", None), ("expected_error", 3), ("random", 4)):
            post(c, "/v1/pool", {"texts": POOL})  # a new pool: no leases
            got = post(c, "/v1/suggest", {"annotator": "alice", "k": 7, "strategy": strategy,
                                          **({"seed": seed} if seed is not None else {})})
            want = suggest(model, POOL, 7, strategy=strategy, random_state=seed)
            assert ids(got) == [str(i) for i in want.tolist()], strategy
            assert got["strategy"] == strategy and got["annotator"] == "alice"
            assert [item["text"] for item in got["items"]] == [POOL[i] for i in want]
            P = model.predict_proba([POOL[i] for i in want])
            np.testing.assert_allclose([[it["probabilities"][k] for k in ("ham", "spam")] for it in got["items"]], P,
                                       rtol=1e-9)
            assert [it["label"] for it in got["items"]] == model.predict([POOL[i] for i in want]).tolist()
        assert post(c, "/v1/suggest", {"annotator": "bob"})["items"].__len__() == 10  # k defaults to 10


def test_two_annotators_never_share_an_item(path):
    with service(path) as c:
        post(c, "/v1/pool", {"texts": {f"doc-{i}": t for i, t in enumerate(POOL)}})
        alice = ids(post(c, "/v1/suggest", {"annotator": "alice", "k": 15}))
        bob = ids(post(c, "/v1/suggest", {"annotator": "bob", "k": 15}))
        assert len(alice) == len(bob) == 15 and not set(alice) & set(bob)
        carol = post(c, "/v1/suggest", {"annotator": "carol", "k": 30})
        assert len(ids(carol)) == 10 and not set(ids(carol)) & (set(alice) | set(bob))  # only the 10 left
        assert carol["pool"] == {**carol["pool"], "leased": 40, "available": 0,
                                 "leases": {"alice": 15, "bob": 15, "carol": 10}}
        assert post(c, "/v1/suggest", {"annotator": "dave"})["items"] == []  # all leased: nothing, not an error
        again = ids(post(c, "/v1/suggest", {"annotator": "alice", "k": 40}))  # her own, and no one else's
        assert set(again) == set(alice)
        # labelling an item leased to another annotator is refused, naming them
        r = c.post("/v1/label", json={"labels": {alice[0]: "ham"}, "annotator": "bob"}, headers=AUTH)
        assert r.status_code == 409 and "'alice'" in r.json()["error"] and alice[0] in r.json()["error"]


def test_an_expired_lease_returns_the_item(path, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(_pool, "clock", lambda: now[0])
    with service(path, lease_seconds=60) as c:
        post(c, "/v1/pool", {"texts": POOL[:6]})
        alice = ids(post(c, "/v1/suggest", {"annotator": "alice", "k": 6}))
        assert len(alice) == 6 and post(c, "/v1/suggest", {"annotator": "bob"})["items"] == []
        now[0] += 59.9
        assert post(c, "/v1/suggest", {"annotator": "bob"})["items"] == []
        now[0] += 0.2  # the leases have ended
        bob = post(c, "/v1/suggest", {"annotator": "bob", "k": 6})
        assert sorted(ids(bob)) == sorted(alice) and bob["pool"]["leases"] == {"bob": 6}
        # a lease renewed by a new suggestion lives from then
        now[0] += 30
        post(c, "/v1/suggest", {"annotator": "bob", "k": 6})
        now[0] += 45
        assert post(c, "/v1/suggest", {"annotator": "alice"})["items"] == []


# ---------------------------------------------------------------------------- labelling
def test_labelling_learns_durably_and_takes_the_items_out_of_the_pool(path):
    doc = "zebra okapi free"
    pool = [doc, "river lunch", "okapi home", "free zebra cash"]
    ref = base()
    with service(path) as c:
        post(c, "/v1/pool", {"texts": {"a": pool[0], "b": pool[1], "c": pool[2], "d": pool[3]}})
        before = c.post("/v1/predict", json={"text": doc}).json()
        assert before["label"] == "spam"
        got = ids(post(c, "/v1/suggest", {"annotator": "alice", "k": 4}))
        r = c.post("/v1/label?visible=true", json={"labels": {"a": "ham", "c": "ham"}, "annotator": "alice"},
                   headers=AUTH)
        assert r.status_code == 200, r.text
        assert r.json()["labelled"] == 2 and r.json()["version"] == 1
        assert r.json()["pool"] == {**r.json()["pool"], "labelled": 2, "leased": 2, "available": 0}
        ref.partial_fit([pool[0], pool[2]], ["ham", "ham"])
        after = c.post("/v1/predict", json={"text": doc}).json()
        assert after["label"] == "ham" != before["label"]
        np.testing.assert_allclose(after["probabilities"]["ham"], ref.predict_proba([doc])[0][0], rtol=1e-12)
        # labelled: never suggested again, and not labelled twice
        assert set(ids(post(c, "/v1/suggest", {"annotator": "alice", "k": 4}))) == set(got) - {"a", "c"}
        r = c.post("/v1/label", json={"labels": {"a": "spam"}}, headers=AUTH)
        assert r.status_code == 409 and "labelled already" in r.json()["error"]
        assert c.get("/v1/model").json()["pool"]["labelled"] == 2
    # durable: a restart keeps what was learned (the pool, in memory, is gone)
    with service(path) as c:
        again = c.post("/v1/predict", json={"text": doc}).json()
        assert again == after
        r = c.post("/v1/suggest", json={"annotator": "alice"}, headers=AUTH)
        assert r.status_code == 409 and "no pool" in r.json()["error"]
        assert c.get("/v1/model").json()["pool"] is None


def test_a_refused_label_leaves_the_item_in_the_pool(path):
    with service(path) as c:
        post(c, "/v1/pool", {"texts": POOL[:3]})
        r = c.post("/v1/label", json={"labels": {"1": "eggs"}}, headers=AUTH)
        assert r.status_code == 422 and "labels['1']" in r.json()["error"] and "eggs" in r.json()["error"]
        assert post(c, "/v1/label", {"labels": {"1": "spam"}})["labelled"] == 1
        assert c.get("/v1/model").json()["version"] == 1


def test_an_item_is_learned_once_whoever_labels_it_at_the_same_time(path):
    import threading

    with service(path) as c:
        post(c, "/v1/pool", {"texts": POOL[:4]})
        statuses: list[int] = []

        def label(who):
            r = c.post("/v1/label", json={"labels": {"2": "ham"}, "annotator": who}, headers=AUTH)
            statuses.append(r.status_code)

        threads = [threading.Thread(target=label, args=(f"a{i}",)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(statuses) == [200, 409, 409, 409]
        info = c.get("/v1/model").json()
        assert info["version"] == 1 and info["learning"]["rows_learned_since_start"] == 1
        assert info["pool"]["labelled"] == 1


def test_a_table_model_pool(tmp_path):
    p = tmp_path / "tennis.nbm"
    import polars as pl

    X = pl.DataFrame({"outlook": ["sunny", "rain", "overcast", "sunny", "rain", "overcast"],
                      "temp": [30.0, 18.0, 22.0, 28.0, 15.0, 21.0]})
    model = nbayes.NaiveBayes().fit(X, ["no", "yes", "yes", "no", "yes", "yes"])
    model.save(p)
    rows = [{"outlook": "sunny", "temp": 25.0}, {"outlook": "rain"}, {"temp": 20.0}, ["overcast", 35.0]]
    with service(p) as c:
        post(c, "/v1/pool", {"rows": rows})
        got = post(c, "/v1/suggest", {"annotator": "alice", "k": 4, "strategy": "entropy"})
        assert {it["id"] for it in got["items"]} == {"0", "1", "2", "3"}
        by_id = {it["id"]: it["row"] for it in got["items"]}
        assert by_id["1"] == {"outlook": "rain", "temp": None} and by_id["3"] == {"outlook": "overcast", "temp": 35.0}
        assert post(c, "/v1/label", {"labels": {"3": "no"}})["labelled"] == 1
        ref = model.partial_fit(pl.DataFrame({"outlook": ["overcast"], "temp": [35.0]}), ["no"])
        r = c.post("/v1/predict", json={"row": ["overcast", 35.0]}).json()
        np.testing.assert_allclose(r["probabilities"]["no"], ref.predict_proba(
            pl.DataFrame({"outlook": ["overcast"], "temp": [35.0]}))[0][0], rtol=1e-12)


# ---------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("route, body, status, words", [
    ("/v1/pool", {"texts": []}, 422, ["'texts'", "empty"]),
    ("/v1/pool", {"texts": ["a", 3]}, 422, ["texts[1]", "string"]),
    ("/v1/pool", {"texts": {"x": "a", "y": None}}, 422, ["texts['y']", "string"]),
    ("/v1/pool", {"texts": "abc"}, 422, ["'texts'", "array"]),
    ("/v1/pool", {"rows": [[1]]}, 422, ["'rows'"]),
    ("/v1/pool", {"texts": ["a"], "ids": ["x"]}, 422, ["unknown field", "'ids'"]),
    ("/v1/pool", {"texts": {"": "a"}}, 422, ["id"]),
    ("/v1/suggest", {"k": 3}, 422, ["'annotator'"]),
    ("/v1/suggest", {"annotator": ""}, 422, ["'annotator'"]),
    ("/v1/suggest", {"annotator": "a", "k": 0}, 422, ["'k'"]),
    ("/v1/suggest", {"annotator": "a", "k": 10_000}, 422, ["'k'", "1000"]),
    ("/v1/suggest", {"annotator": "a", "strategy": "smart"}, 422, ["'strategy'", "density"]),
    ("/v1/suggest", {"annotator": "a", "seed": "x"}, 422, ["'seed'"]),
    ("/v1/suggest", {"annotator": "a", "n": 1}, 422, ["unknown field", "'n'"]),
    ("/v1/label", {"ids": ["0"], "labels": ["ham"]}, 422, ["unknown field", "'ids'"]),
    ("/v1/label", {"labels": ["ham"]}, 422, ["'labels'", "object"]),
    ("/v1/label", {"labels": {}}, 422, ["'labels'", "non-empty"]),
    ("/v1/label", {"annotator": "a"}, 422, ["missing field 'labels'"]),
    ("/v1/label", {"labels": {"0": 5}}, 422, ["labels['0']"]),
    ("/v1/label", {"labels": {"nope": "ham"}}, 404, ["'nope'", "no item"]),
])
def test_bad_bodies_are_refused_naming_the_field(path, route, body, status, words):
    with service(path) as c:
        post(c, "/v1/pool", {"texts": POOL[:5]})
        r = c.post(route, json=body, headers=AUTH)
        assert r.status_code == status, r.text
        assert all(w in r.json()["error"] for w in words), r.json()["error"]
        assert c.get("/v1/model").json()["version"] == 0


def test_the_pool_needs_learning_and_the_token(path):
    with TestClient(create_app(str(path))) as c:
        r = c.post("/v1/pool", json={"texts": ["a"]})
        assert r.status_code == 409 and "--learn" in r.json()["error"]
        assert "/v1/pool" not in c.get("/openapi.json").json()["paths"]
    with service(path) as c:
        for route in ("/v1/pool", "/v1/suggest", "/v1/label"):
            assert c.post(route, json={}).status_code == 401
            assert c.post(route, json={}, headers={"Authorization": "Bearer nope"}).status_code == 403
        r = c.post("/v1/suggest", json={"annotator": "a"}, headers=AUTH)
        assert r.status_code == 409 and "POST /v1/pool" in r.json()["error"]
        r = c.post("/v1/pool", json={"texts": POOL[:3]}, headers=AUTH)
        r = c.post("/v1/suggest", json={"annotator": "a", "strategy": "expected_error"}, headers=AUTH)
        assert r.status_code == 200  # a multinomial text model: exact expected error reduction
    with pytest.raises(ValueError, match="lease_seconds"):
        create_app(str(path), learn=True, token=TOKEN, lease_seconds=-1)


def test_a_multi_label_model_has_no_pool(tmp_path):
    p = tmp_path / "sets.nbm"
    nbayes.MultiLabel(nbayes.TextClassifier()).fit(SPAM + HAM, [["a"], ["a", "b"]] * 4).save(p)
    with service(p) as c:
        r = c.post("/v1/pool", json={"texts": ["free"]}, headers=AUTH)
        assert r.status_code == 409 and "label sets" in r.json()["error"]


# ---------------------------------------------------------------------------- the schema
schemathesis = pytest.importorskip("schemathesis", reason="the fuzzing test needs schemathesis (the test extra)")


@pytest.fixture(params=["text", "table"])
def pool_schema(request, tmp_path):
    p = tmp_path / "m.nbm"
    if request.param == "text":
        base().save(p)
        items = {"texts": POOL[:8]}
    else:
        X = np.array([[1.0, 0.0], [0.5, 1.0], [3.0, 2.0], [2.5, 3.0]])
        nbayes.GaussianNB().fit(X, ["x", "x", "y", "y"]).save(p)
        items = {"rows": X.tolist() * 2}
    app = create_app(str(p), learn=True, token=TOKEN, max_batch=4, max_text=200, max_pool=20, allow_new_classes=False)
    post(TestClient(app), "/v1/pool", items)  # (no lifespan here: schemathesis runs it, and stops the learner)
    config = schemathesis.Config()
    config.projects.default.generation.update(modes=list(schemathesis.GenerationMode), max_examples=25,
                                              database="none")
    config.projects.default.headers = AUTH
    return schemathesis.openapi.from_asgi("/openapi.json", app, config=config)


fuzzed = schemathesis.pytest.from_fixture("pool_schema").include(path_regex="^/v1/(pool|suggest|label)$")


@fuzzed.parametrize()
def test_schemathesis_finds_nothing_in_the_pool_endpoints(case):
    case.call_and_validate(headers=AUTH)
