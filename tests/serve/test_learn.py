"""``nbayes serve --learn`` in process (Starlette's test client): the learning endpoints, their
auth, refused updates leaving the model unchanged, forgetting (vocabulary and disk), the log
and its snapshots, and readers under concurrent learning."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.errors import ModelFileError  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

TOKEN = "correct horse battery staple"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]
PROBE = ["free lunch now", "zebra prize", "see you thursday", "okapi giraffe zebra", ""]


def text_model():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "spam.nbm"
    text_model().save(path)
    return path


def client(path, **kw):
    kw.setdefault("token", TOKEN)
    return TestClient(create_app(str(path), learn=True, max_batch=50, **kw))


def proba(c, docs=PROBE):
    out = c.post("/v1/predict", json={"texts": docs}).json()["predictions"]
    return np.array([[p["probabilities"][k] for k in ("ham", "spam")] for p in out])


def post(c, path, body, status=200, headers=AUTH, visible=True):
    """POST (a learn or unlearn answered once predictions see it, unless ``visible=False``)."""
    learning = path in ("/v1/learn", "/v1/unlearn")
    r = c.post(path + ("?visible=true" if learning and visible else ""), json=body, headers=headers)
    assert r.status_code == status, r.text
    return r.json()


def on_disk(path):
    """The bytes of a running service's model file and log."""
    return path.read_bytes(), (path.parent / (path.name + ".log")).read_bytes()


def as_killed(path, state):
    """Put back the file and log of :func:`on_disk`: what a SIGKILL then would have left (a clean
    stop writes a snapshot)."""
    path.write_bytes(state[0])
    (path.parent / (path.name + ".log")).write_bytes(state[1])


# ---------------------------------------------------------------------------- endpoints
def test_learn_and_unlearn_equal_the_offline_model_and_survive_a_restart(text_file):
    ref = text_model()
    with client(text_file) as c:
        assert post(c, "/v1/learn", {"texts": ["zebra prize zebra", "giraffe lunch"], "labels": ["spam", "ham"]}) == \
            {"learned": 2, "version": 1}
        ref.partial_fit(["zebra prize zebra", "giraffe lunch"], ["spam", "ham"])
        assert post(c, "/v1/learn", {"text": "okapi", "label": "ham", "weight": 2.5}) == {"learned": 1, "version": 2}
        ref.partial_fit(["okapi"], ["ham"], sample_weight=[2.5])
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)
        info = c.get("/v1/model").json()
        assert info["version"] == 2 and info["learning"]["rows_learned_since_file"] == 3
        assert info["training_rows"] == pytest.approx(6 + 2 + 2.5)
        assert post(c, "/v1/unlearn", {"texts": ["giraffe lunch"], "labels": ["ham"]}) == {"unlearned": 1, "version": 3}
        ref.unlearn(["giraffe lunch"], ["ham"])
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)
        r = c.post("/v1/predict", json={"text": "zebra"})
        assert r.headers["x-model-version"] == "3"
    with client(text_file) as c:  # the file plus the log: the same model
        assert c.get("/v1/model").json()["version"] == 3
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)


def test_forgetting_removes_the_terms_and_leaves_no_record_on_disk(text_file):
    secret = "xylophonist quokka"
    with client(text_file) as c:
        post(c, "/v1/learn", {"texts": [secret], "labels": ["ham"]})
        assert b"quokka" in (text_file.parent / "spam.nbm.log").read_bytes()  # counts keep their terms
        post(c, "/v1/unlearn", {"texts": [secret], "labels": ["ham"]})
        for name in os.listdir(text_file.parent):  # the answer came after the compaction
            assert b"quokka" not in (text_file.parent / name).read_bytes(), name
    model = nbayes.load(text_file)
    assert "quokka" not in model.vocabulary_ and "xylophonist" not in model.vocabulary_
    stale = text_file.parent / "spam.nbm.snapshot.tmp"  # a snapshot a crash left before its rename
    stale.write_bytes(b"... quokka ...")
    with client(text_file):
        assert not stale.exists()
    np.testing.assert_allclose(model.predict_proba(PROBE), text_model().predict_proba(PROBE), rtol=0, atol=1e-12)
    assert sorted(model.vocabulary_) == sorted(text_model().vocabulary_)


def test_auth_is_required_for_changes_and_optionally_for_predictions(text_file):
    with client(text_file) as c:
        body = {"texts": ["zebra"], "labels": ["ham"]}
        r = c.post("/v1/learn", json=body)
        assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
        assert post(c, "/v1/learn", body, 401, {"Authorization": "Basic abc"})["status"] == 401
        assert post(c, "/v1/learn", body, 403, {"Authorization": "Bearer nope"})["status"] == 403
        assert post(c, "/v1/unlearn", body, 403, {"Authorization": "Bearer " + TOKEN + "x"})["status"] == 403
        assert c.post("/v1/predict", json={"text": "a"}).status_code == 200
        assert c.get("/v1/model").json()["version"] == 0
    with client(text_file, token_required_for_predict=True) as c:
        assert c.post("/v1/predict", json={"text": "a"}).status_code == 401
        assert c.post("/v1/explain", json={"text": "a"}, headers={"Authorization": "Bearer x"}).status_code == 403
        assert c.post("/v1/predict", json={"text": "a"}, headers=AUTH).status_code == 200
    with pytest.raises(ValueError, match="token"):
        create_app(str(text_file), learn=True)


@pytest.mark.parametrize("op, body, status, words", [
    ("learn", {"texts": ["zebra"], "labels": ["spma"]}, 422, "typo"),
    ("learn", {"texts": ["zebra", "x"], "labels": ["spam"]}, 422, "1 labels for 2 items"),
    ("learn", {"texts": ["zebra"]}, 422, "missing field 'labels'"),
    ("learn", {"texts": ["zebra"], "labels": [None]}, 422, "must be a string"),
    ("learn", {"texts": ["zebra"], "labels": ["spam"], "weights": [-1]}, 422, ">= 0"),
    ("learn", {"texts": [3], "labels": ["spam"]}, 422, "must be a string"),
    ("learn", {"rows": [{"a": 1}], "labels": ["spam"]}, 422, "text model"),
    ("learn", {"texts": ["a"] * 51, "labels": ["spam"] * 51}, 422, "limit"),
    ("unlearn", {"texts": ["never seen words"], "labels": ["ham"]}, 422, "nothing was unlearned"),
    ("unlearn", {"texts": ["free free free free free free"], "labels": ["spam"]}, 422, "unchanged"),
    ("unlearn", {"texts": ["zebra"], "labels": ["other"]}, 422, "never learned"),
])
def test_a_bad_update_is_refused_and_changes_nothing(text_file, op, body, status, words):
    with client(text_file) as c:
        before = proba(c)
        log = (text_file.parent / "spam.nbm.log").read_bytes()
        r = c.post(f"/v1/{op}", json=body, headers=AUTH)
        assert r.status_code == status, r.text
        assert words in r.json()["error"]
        np.testing.assert_array_equal(proba(c), before)
        assert c.get("/v1/model").json()["version"] == 0
        assert (text_file.parent / "spam.nbm.log").read_bytes() == log


def test_an_update_that_would_overflow_is_refused_and_the_others_of_its_group_learned(tmp_path):
    path = tmp_path / "counts.nbm"
    nbayes.MultinomialNB().fit(np.array([[3, 0, 1], [0, 2, 2]]), ["a", "b"]).save(path)
    with client(path) as c:
        huge = {"rows": [[1e308, 1e308, 1e308]] * 2, "labels": ["a", "a"]}
        r = c.post("/v1/learn", json=huge, headers=AUTH)
        assert r.status_code == 422 and ("overflow" in r.json()["error"] or "float64's range" in r.json()["error"])
        assert c.get("/v1/model").json()["version"] == 0
        assert post(c, "/v1/learn", {"rows": [[1, 0, 0]], "labels": ["a"]})["version"] == 1
        # in one group with good updates (the writer takes whatever waits): only the bad one fails
        # (its counts are finite, the model's estimate from them is not)
        learner = c.app.state.learner
        X = np.array([[1e308, 1e308, 0]])
        futures = [learner.submit("learn", np.array([[0, 1, 0]]), ["b"], None, visible=True),
                   learner.submit("learn", X, ["a"], None, visible=True),
                   learner.submit("learn", np.array([[0, 0, 1]]), ["a"], None, visible=True)]
        outcomes = [f.exception(timeout=30) for f in futures]
        assert outcomes[0] is None and outcomes[2] is None and "overflow" in str(outcomes[1])
        P = c.post("/v1/predict", json={"rows": [[1, 1, 1]]}).json()["predictions"][0]["probabilities"]
    ref = nbayes.MultinomialNB().fit(np.array([[3, 0, 1], [0, 2, 2], [1, 0, 0], [0, 1, 0], [0, 0, 1]]), ["a", "b", "a", "b", "a"])
    np.testing.assert_allclose([P["a"], P["b"]], ref.predict_proba([[1, 1, 1]])[0], rtol=0, atol=1e-12)


def test_new_classes_only_when_allowed(text_file):
    with client(text_file, allow_new_classes=True) as c:
        assert post(c, "/v1/learn", {"texts": ["invoice due"], "labels": ["bills"]})["version"] == 1
        assert c.get("/v1/model").json()["classes"] == ["bills", "ham", "spam"]
    with client(text_file) as c:  # recovered with the class
        assert c.get("/v1/model").json()["classes"] == ["bills", "ham", "spam"]
        assert c.post("/v1/predict", json={"text": "invoice"}).json()["label"] == "bills"


def test_models_that_cannot_learn_answer_409(tmp_path):
    nblr = tmp_path / "nblr.nbm"
    nbayes.TextClassifier(model="nblr").fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3).save(nblr)
    with client(nblr) as c:
        r = c.post("/v1/learn", json={"texts": ["zebra"], "labels": ["ham"]}, headers=AUTH)
        assert r.status_code == 409 and "nblr" in r.json()["error"] and "partial_fit" in r.json()["error"]
    plain = tmp_path / "plain.nbm"
    text_model().save(plain)
    with TestClient(create_app(str(plain))) as c:  # a service without --learn
        r = c.post("/v1/learn", json={"texts": ["zebra"], "labels": ["ham"]})
        assert r.status_code == 409 and "--learn" in r.json()["error"]
        assert c.get("/v1/model").json()["learning"] is None


def test_a_table_model_learns_rows(tmp_path):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"age": [23.0, 35.0, 47.0, 52.0], "colour": ["red", "blue", "red", "green"],
                          "smoker": [True, False, True, False]})
    y = ["yes", "no", "yes", "no"]
    path = tmp_path / "table.nbm"
    nbayes.NaiveBayes().fit(frame, y).save(path)
    new = [{"age": 30.0, "colour": "green", "smoker": True}, {"age": 61.0, "colour": "blue", "smoker": None}]
    with client(path) as c:
        assert post(c, "/v1/learn", {"rows": new, "labels": ["yes", "no"]})["learned"] == 2
        post(c, "/v1/unlearn", {"row": new[0], "label": "yes"})
        got = c.post("/v1/predict", json={"rows": new}).json()["predictions"]
    ref = nbayes.NaiveBayes().fit(frame, y)
    X = pl.DataFrame(new, schema=frame.schema)
    ref.partial_fit(X, ["yes", "no"])
    ref.unlearn(X[:1], ["yes"])
    np.testing.assert_allclose([[g["probabilities"][k] for k in ("no", "yes")] for g in got],
                               ref.predict_proba(X), rtol=0, atol=1e-12)
    model = nbayes.load(path)  # the unlearn wrote a snapshot
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), rtol=0, atol=1e-12)
    with client(path) as c:
        post(c, "/v1/learn", {"rows": new, "labels": ["no", "yes"]})
    ref.partial_fit(X, ["no", "yes"])
    with client(path) as c:  # the log replayed: mixed-column statistics read back from a record
        got = c.post("/v1/predict", json={"rows": new}).json()["predictions"]
    np.testing.assert_allclose([[g["probabilities"][k] for k in ("no", "yes")] for g in got],
                               ref.predict_proba(X), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- the log
def test_snapshots_truncate_the_log_and_a_foreign_log_is_refused(text_file, tmp_path):
    ref = text_model()
    with client(text_file, snapshot_every=3) as c:
        for i in range(7):
            post(c, "/v1/learn", {"texts": [f"word{i} prize"], "labels": ["spam"]})
            ref.partial_fit([f"word{i} prize"], ["spam"])
    with client(text_file) as c:  # (snapshots are written in the background: the counts after they ended)
        status = c.get("/v1/model").json()["learning"]
        assert status["snapshots"] == 0 and status["version"] == 7 and 3 <= status["file_version"] <= 7
        assert status["file_version"] + status["rows_learned_since_file"] == 7 == status["version"]
    assert nbayes.load(text_file).predict_proba(["word1"]).shape == (1, 2)
    with client(text_file) as c:
        np.testing.assert_allclose(proba(c, PROBE + ["word6 word1"]), ref.predict_proba(PROBE + ["word6 word1"]),
                                   rtol=0, atol=1e-12)
    other = tmp_path / "other.nbm"
    text_model().save(other)
    os.replace(text_file.parent / "spam.nbm.log", tmp_path / "other.nbm.log")
    with pytest.raises(ModelFileError, match="belongs to another model file"):
        create_app(str(other), learn=True, token=TOKEN)


def test_a_torn_tail_is_cut_and_the_rest_replayed(text_file):
    ref = text_model()
    with client(text_file) as c:
        post(c, "/v1/learn", {"texts": ["zebra prize"], "labels": ["spam"]})
        ref.partial_fit(["zebra prize"], ["spam"])
        post(c, "/v1/learn", {"texts": ["giraffe"], "labels": ["ham"]})
        state = on_disk(text_file)
    as_killed(text_file, state)
    log = text_file.parent / "spam.nbm.log"
    whole = log.read_bytes()
    with open(log, "ab") as f:  # half of a third record
        f.write(whole[-200:-100])
    raw = log.read_bytes()
    log.write_bytes(raw[: len(whole) - 50] + raw[len(whole):])  # and the second one torn
    with client(text_file) as c:
        assert c.get("/v1/model").json()["version"] == 1
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)
        assert post(c, "/v1/learn", {"texts": ["okapi"], "labels": ["ham"]})["version"] == 2
        ref.partial_fit(["okapi"], ["ham"])
    with client(text_file) as c:
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- concurrency
def test_concurrent_learners_and_readers_see_whole_versions(text_file):
    docs = [f"zebra{i % 7} prize lunch{i % 3}" for i in range(40)]
    labels = ["spam" if i % 3 else "ham" for i in range(40)]
    seen: list[tuple[int, list[float]]] = []
    errors: list[str] = []
    with client(text_file) as c:
        stop = threading.Event()

        def learner(k: int) -> None:
            for i in range(k, 40, 4):
                r = c.post("/v1/learn", json={"texts": [docs[i]], "labels": [labels[i]]}, headers=AUTH)
                if r.status_code != 200:
                    errors.append(r.text)

        def reader() -> None:
            while not stop.is_set():
                r = c.post("/v1/predict", json={"text": "zebra3 prize lunch1"})
                if r.status_code != 200:
                    errors.append(r.text)
                    continue
                seen.append((int(r.headers["x-model-version"]), r.json()["probabilities"]["spam"]))

        readers = [threading.Thread(target=reader) for _ in range(6)]
        learners = [threading.Thread(target=learner, args=(k,)) for k in range(4)]
        for t in readers + learners:
            t.start()
        for t in learners:
            t.join()
        stop.set()
        for t in readers:
            t.join()
        assert not errors
        version = c.get("/v1/model").json()["version"]
        assert 1 <= version <= 40  # group commit: concurrent updates may share a version
        state = on_disk(text_file)  # (before the clean stop's snapshot)
    as_killed(text_file, state)
    # every answer is the answer of the version it names: replay the log version by version
    from nbayes.serve._delta import apply
    from nbayes.serve._log import read_log
    from nbayes.serve._records import read_deltas

    _, records, _, _ = read_log(str(text_file) + ".log")
    assert sum(r.rows for r in records) == 40
    model, answers = text_model(), {0: None}
    answers[0] = model.predict_proba(["zebra3 prize lunch1"])[0, 1]
    for r, d in zip(records, read_deltas(model, [r.body for r in records])):
        model = apply(model, d)
        answers[r.version] = model.predict_proba(["zebra3 prize lunch1"])[0, 1]
    assert len(seen) > 10
    for v, p in seen:
        assert p == pytest.approx(answers[v], abs=1e-12)


def test_a_few_terms_join_a_large_vocabulary_as_a_set_union():
    """The learning path's union of an update's terms into the model's (a binary search, not a
    sort of the whole vocabulary) equals the sorted set union, whichever side is larger."""
    from nbayes.stats.text import union_terms

    rng = np.random.default_rng(0)
    words = sorted({"".join(rng.choice(list("abcdé"), rng.integers(1, 6))) for _ in range(3000)})
    for _ in range(200):
        a = sorted(set(rng.choice(words, 800).tolist()))
        b = sorted(set(rng.choice(words, rng.integers(1, 40)).tolist()))
        A, B = np.empty(len(a), dtype=object), np.empty(len(b), dtype=object)
        A[:], B[:] = a, b
        assert union_terms(A, B).tolist() == union_terms(B, A).tolist() == sorted(set(a) | set(b))


def test_a_small_update_adds_to_large_text_statistics_term_by_term():
    """TextStats + a few documents' statistics (the fast paths for a large vocabulary) equals
    the counts added term by term."""
    from nbayes.stats.text import TextStats

    rng = np.random.default_rng(1)
    words = sorted({"".join(rng.choice(list("abcdeé"), rng.integers(1, 7))) for _ in range(4000)})

    def stats(terms):
        T = np.empty(len(terms), dtype=object)
        T[:] = terms
        tc = rng.integers(0, 4, (2, len(terms))).astype(float)
        return TextStats(T, np.array([3.0, 4.0]), tc, np.minimum(tc, 1.0), (tc > 0).sum(0) * 1.0, tc.sum(0), 7.0)

    for _ in range(30):
        big = stats(sorted(set(rng.choice(words, 1500).tolist())))
        small = stats(sorted(set(rng.choice(words, rng.integers(1, 25)).tolist())))
        total = big + small
        want: dict[str, np.ndarray] = {}
        for s in (big, small):
            for j, t in enumerate(s.terms.tolist()):
                want[t] = want.get(t, 0) + s.term_count[:, j]
        assert total.terms.tolist() == sorted(want)
        np.testing.assert_array_equal(total.term_count, np.array([want[t] for t in sorted(want)]).T)


def test_openapi_lists_the_learning_endpoints(text_file):
    with client(text_file) as c:
        doc = c.get("/openapi.json").json()
    learn = doc["paths"]["/v1/learn"]["post"]
    assert {"401", "403", "409", "422"} <= set(learn["responses"]) and learn["security"] == [{"bearer": []}]
    batch = doc["components"]["schemas"]["LearnBatch"]
    assert batch["required"] == ["texts", "labels"] and batch["properties"]["labels"]["items"]["enum"] == ["ham", "spam"]
    assert "/v1/unlearn" in doc["paths"]


def _kinds():
    rng = np.random.default_rng(0)
    Xc, Xn = rng.integers(0, 5, (30, 4)), rng.integers(0, 5, (4, 4))
    Xg, Xgn = rng.normal(size=(30, 3)), rng.normal(size=(4, 3))
    Xk = rng.choice(["x", "y", "z"], (30, 3)).astype(object)
    Xkn = np.array([["x", "y", "w"], ["z", "z", "z"], ["y", "x", "x"], ["w", "w", "w"]], dtype=object)
    y, yn = rng.choice(["a", "b", "c"], 30), ["a", "b", "a", "c"]
    docs, lab = (SPAM + HAM) * 3, (["spam"] * 3 + ["ham"] * 3) * 3
    nd, nl = ["free lunch zebra", "okapi now", "zebra zebra win", "cash"], ["spam", "ham", "spam", "spam"]
    idf = {t: 1.0 + i / 10 for i, t in enumerate(sorted({w for d in docs for w in d.split()}))}
    return {
        "multinomial": (nbayes.MultinomialNB(), Xc, y, Xn, yn),
        "complement": (nbayes.ComplementNB(), Xc, y, Xn, yn),
        "bernoulli": (nbayes.BernoulliNB(), (Xc > 2) * 1.0, y, (Xn > 2) * 1.0, yn),
        "gaussian": (nbayes.GaussianNB(), Xg, y, Xgn, yn),
        "gaussian-float32": (nbayes.GaussianNB(), Xg.astype(np.float32), y, Xgn.astype(np.float32), yn),
        "categorical, a new category": (nbayes.CategoricalNB(), Xk, y, Xkn, yn),
        "integer labels": (nbayes.MultinomialNB(), Xc, np.arange(30) % 3, Xn, [0, 1, 2, 0]),
        "text bernoulli": (nbayes.TextClassifier(model="bernoulli"), docs, lab, nd, nl),
        "text complement": (nbayes.TextClassifier(model="complement"), docs, lab, nd, nl),
        "text hashing": (nbayes.TextClassifier(n_features=64), docs, lab, nd, nl),
        "text binary bigrams min_df": (nbayes.TextClassifier(binary=True, ngram_range=(1, 2), min_df=2), docs, lab, nd, nl),
        "text tf-idf, frozen idf": (nbayes.TextClassifier(tfidf=True, idf=idf), docs, lab, nd, nl),
    }


@pytest.mark.parametrize("kind", list(_kinds()))
def test_every_model_that_learns_serves_its_updates_exactly(tmp_path, kind):
    model, X, y, Xn, yn = _kinds()[kind]
    path = tmp_path / "m.nbm"
    model.fit(X, y).save(path)
    ref = nbayes.load(path)
    key = "texts" if isinstance(Xn, list) else "rows"
    body = (lambda A: {key: list(A)}) if key == "texts" else (lambda A: {key: np.asarray(A).tolist()})
    with client(path) as c:
        post(c, "/v1/learn", {**body(Xn), "labels": list(yn)})
        post(c, "/v1/unlearn", {**body(Xn[:1]), "labels": list(yn[:1])})
    ref.partial_fit(Xn, yn)
    ref.unlearn(Xn[:1], yn[:1])
    mid = ref.predict_proba(Xn)
    with client(path) as c:  # the snapshot the unlearn wrote, then nothing to replay
        got = c.post("/v1/predict", json=body(Xn)).json()["predictions"]
        post(c, "/v1/learn", {**body(Xn[1:]), "labels": list(yn[1:])})
    ref.partial_fit(Xn[1:], yn[1:])
    P = np.array([[g["probabilities"][str(k)] for k in ref.classes_] for g in got])
    with client(path) as c:  # the log replayed
        again = c.post("/v1/predict", json=body(Xn)).json()["predictions"]
    Q = np.array([[g["probabilities"][str(k)] for k in ref.classes_] for g in again])
    np.testing.assert_allclose(P, mid, rtol=0, atol=1e-12)
    np.testing.assert_allclose(Q, ref.predict_proba(Xn), rtol=0, atol=1e-12)


def test_a_replaced_version_is_freed_without_the_cycle_collector(text_file):
    """A version no request holds any more is freed by reference counting alone: the service
    freezes the collector (gc.freeze), so a version caught in a reference cycle would stay
    in memory for good (a model's arrays per update)."""
    import gc
    import weakref

    with client(text_file, freeze_gc=True) as c:
        post(c, "/v1/learn", {"texts": ["zebra prize"], "labels": ["spam"]})
        c.post("/v1/predict", json={"text": "zebra"})
        old = weakref.ref(c.app.state.learner.model)
        loaded = weakref.ref(c.app.state.learner.holder.current)
        gc.disable()
        try:
            for i in range(3):
                post(c, "/v1/learn", {"texts": [f"okapi{i}"], "labels": ["ham"]})
            assert old() is None and loaded() is None
        finally:
            gc.enable()
            gc.unfreeze()


def test_learning_goes_on_while_a_snapshot_is_written(text_file, monkeypatch):
    """A snapshot is written in the background from the version it was taken at; the updates
    acknowledged meanwhile go to the old log, then to the new log after the snapshot (their
    words numbered anew), and a restart holds every one of them."""
    import time

    from nbayes.serve._learn import Learner

    slow = threading.Event()
    write = Learner._write_file

    def slow_write(self, model, version, follows):
        slow.set()
        time.sleep(0.4)  # learns keep landing while the file is written
        return write(self, model, version, follows)

    monkeypatch.setattr(Learner, "_write_file", slow_write)
    ref = text_model()
    with client(text_file, snapshot_every=2) as c:
        for i in range(10):
            docs = [f"zebra{i} okapi{i % 3} prize", f"giraffe{i} lunch"]
            post(c, "/v1/learn", {"texts": docs, "labels": ["spam", "ham"]})
            ref.partial_fit(docs, ["spam", "ham"])
            if i == 1:
                assert slow.wait(5)
        status = c.get("/v1/model").json()["learning"]
        assert status["version"] == 10 and (status["snapshot_running"] or status["snapshots"] >= 1)
    probe = PROBE + ["zebra9 okapi2", "giraffe3 zebra1", "okapi1"]
    with client(text_file) as c:
        status = c.get("/v1/model").json()["learning"]
        assert status["version"] == 10 and status["file_version"] >= 2
        np.testing.assert_allclose(proba(c, probe), ref.predict_proba(probe), rtol=0, atol=1e-12)
    assert nbayes.load(text_file).predict_proba(["zebra1"]).shape == (1, 2)
