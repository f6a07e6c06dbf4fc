"""``nbayes serve --learn`` acknowledges an update once it is durable and makes it visible to
predictions at most once per ``publish_every`` (at once after a quiet spell); ``?visible=true``
answers after the publish that holds it. Acknowledged updates not yet visible are on disk (a
crash replays them), a refused update is refused before any answer and changes nothing while
others are pending, and an unlearn applies the pending learns first."""

from __future__ import annotations

import shutil
import time

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from nbayes.serve._learn import LEARN  # noqa: E402
from nbayes.serve._model import Problem  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

TOKEN = "correct horse battery staple"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]
PROBE = ["free lunch now", "zebra prize", "okapi lunch", "giraffe", ""]


def text_model():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "spam.nbm"
    text_model().save(path)
    return path


def client(path, **kw):
    return TestClient(create_app(str(path), learn=True, token=TOKEN, **kw))


def learn(c, body, visible=False, status=200, op="learn"):
    r = c.post(f"/v1/{op}" + ("?visible=true" if visible else ""), json=body, headers=AUTH)
    assert r.status_code == status, r.text
    return r.json()


def proba(c, docs=PROBE):
    out = c.post("/v1/predict", json={"texts": docs}).json()["predictions"]
    return np.array([[p["probabilities"][k] for k in ("ham", "spam")] for p in out])


def versions(c):
    """(published, durable) versions of GET /v1/model."""
    info = c.get("/v1/model").json()
    assert info["version"] == info["learning"]["version"]
    return info["version"], info["learning"]["durable_version"]


def test_an_acknowledged_update_is_durable_before_it_is_visible(text_file, tmp_path):
    ref = text_model()
    with client(text_file, publish_every=60) as c:
        # after a quiet spell: published before its answer
        assert learn(c, {"texts": ["zebra prize"], "labels": ["spam"]}) == {"learned": 1, "version": 1}
        ref.partial_fit(["zebra prize"], ["spam"])
        seen = proba(c)
        np.testing.assert_allclose(seen, ref.predict_proba(PROBE), rtol=0, atol=1e-12)
        # within the interval: durable and acknowledged, not visible yet
        assert learn(c, {"texts": ["okapi lunch"], "labels": ["ham"]}) == {"learned": 1, "version": 2}
        assert versions(c) == (1, 2)
        np.testing.assert_array_equal(proba(c), seen)
        assert c.post("/v1/predict", json={"text": "okapi"}).headers["x-model-version"] == "1"
        crash = tmp_path / "crash"  # the disk at this instant: a crash now keeps the update
        crash.mkdir()
        for name in ("spam.nbm", "spam.nbm.log"):
            shutil.copy(text_file.parent / name, crash / name)
    ref.partial_fit(["okapi lunch"], ["ham"])
    for path in (crash / "spam.nbm", text_file):  # replayed after the crash; published at the stop
        with client(path) as c:
            assert versions(c) == (2, 2)
            np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)


def test_updates_become_visible_within_the_interval(text_file):
    ref = text_model()
    with client(text_file, publish_every=0.3) as c:
        t0 = time.monotonic()
        learn(c, {"texts": ["zebra prize"], "labels": ["spam"]})
        # pending updates over different classes, summed into one version at the publish
        answers = [learn(c, {"texts": [f"okapi{i} lunch", f"prize{i}"], "labels": ["ham", "spam"][:i + 1][-1:] * 2})
                   for i in range(3)]
        assert [a["version"] for a in answers] == [2, 3, 4]
        acked = time.monotonic()
        while versions(c)[0] < 4:
            assert time.monotonic() - acked < 30, "acknowledged updates never became visible"
            time.sleep(0.01)
        assert time.monotonic() - t0 >= 0.3  # no sooner than the interval after the first publish
        ref.partial_fit(["zebra prize"], ["spam"])
        for i in range(3):
            ref.partial_fit([f"okapi{i} lunch", f"prize{i}"], ["ham", "spam"][:i + 1][-1:] * 2)
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)


def test_visible_true_answers_after_the_publish_that_holds_it(text_file):
    with client(text_file, publish_every=0.5) as c:
        t0 = time.monotonic()
        learn(c, {"texts": ["zebra prize"], "labels": ["spam"]})
        assert learn(c, {"texts": ["okapi"], "labels": ["ham"]}, visible=True) == {"learned": 1, "version": 2}
        assert time.monotonic() - t0 >= 0.5  # the next publish, one interval after the first
        assert versions(c) == (2, 2)
        assert c.post("/v1/predict", json={"text": "okapi"}).headers["x-model-version"] == "2"
        learn(c, {"texts": ["giraffe"], "labels": ["ham"]})
        # nothing to learn, visible: the last durable version, once predictions see it
        assert learn(c, {"texts": [], "labels": []}, visible=True) == {"learned": 0, "version": 3}
        assert versions(c) == (3, 3)
        for bad in ("maybe", "2"):
            r = c.post(f"/v1/learn?visible={bad}", json={"texts": ["x"], "labels": ["ham"]}, headers=AUTH)
            assert r.status_code == 422 and "visible" in r.json()["error"]
        assert versions(c) == (3, 3)


@pytest.mark.parametrize("bad", ["label", "overflow", "nan weight"])
def test_a_refused_update_changes_nothing_while_others_are_pending(tmp_path, bad):
    path = tmp_path / "counts.nbm"
    nbayes.MultinomialNB().fit(np.array([[3, 0, 1], [0, 2, 2]]), ["a", "b"]).save(path)
    probe = [[1, 1, 1], [0, 1, 0], [2, 0, 1]]
    with client(path, publish_every=60) as c:
        learn(c, {"rows": [[1, 0, 0]], "labels": ["a"]})  # visible
        learn(c, {"rows": [[0, 1, 0]], "labels": ["b"]})  # pending
        before = c.post("/v1/predict", json={"rows": probe}).json()
        log = (tmp_path / "counts.nbm.log").read_bytes()
        if bad == "label":
            assert "not a class" in learn(c, {"rows": [[0, 0, 1]], "labels": ["c"]}, status=422)["error"]
        elif bad == "overflow":  # finite counts whose estimate (with the pending update added) is not
            error = learn(c, {"rows": [[1e308, 1e308, 0]], "labels": ["a"]}, status=422)["error"]
            assert "overflow" in error or "float64's range" in error
        else:
            with pytest.raises(Problem) as err:
                c.app.state.learner.submit(LEARN, np.array([[0, 0, 1]]), ["a"], [float("nan")])
            assert err.value.status == 422
        assert versions(c) == (1, 2)
        assert c.post("/v1/predict", json={"rows": probe}).json() == before
        assert (tmp_path / "counts.nbm.log").read_bytes() == log
        assert learn(c, {"rows": [[0, 0, 1]], "labels": ["a"]})["version"] == 3  # (published at the stop)
    ref = nbayes.MultinomialNB().fit(np.array([[3, 0, 1], [0, 2, 2], [1, 0, 0], [0, 1, 0], [0, 0, 1]]),
                                     ["a", "b", "a", "b", "a"])
    with client(path) as c:
        assert versions(c) == (3, 3)
        got = c.post("/v1/predict", json={"rows": probe}).json()["predictions"]
        np.testing.assert_allclose([[g["probabilities"][k] for k in "ab"] for g in got], ref.predict_proba(probe),
                                   rtol=0, atol=1e-12)


def test_an_unlearn_after_pending_learns_applies_them_first(text_file):
    ref = text_model()
    with client(text_file, publish_every=60) as c:
        learn(c, {"texts": ["zebra prize"], "labels": ["spam"]})
        learn(c, {"texts": ["okapi lunch", "giraffe"], "labels": ["ham", "ham"]})  # pending
        assert versions(c) == (1, 2)
        # the unlearned document is only in the pending update: found, so applied first
        assert learn(c, {"texts": ["okapi lunch"], "labels": ["ham"]}, op="unlearn") == {"unlearned": 1, "version": 3}
        assert versions(c) == (3, 3)  # visible when answered
        ref.partial_fit(["zebra prize", "giraffe"], ["spam", "ham"])
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)
    np.testing.assert_allclose(nbayes.load(text_file).predict_proba(PROBE), ref.predict_proba(PROBE), rtol=0, atol=1e-12)
    with client(text_file) as c:
        assert versions(c) == (3, 3)
        np.testing.assert_allclose(proba(c), ref.predict_proba(PROBE), rtol=0, atol=1e-12)


def test_stopping_publishes_what_is_pending_and_answers_who_waits(text_file):
    app = create_app(str(text_file), learn=True, token=TOKEN, publish_every=60)
    learner = app.state.learner
    assert learner.submit(LEARN, ["zebra"], ["spam"], None).result(timeout=30)["version"] == 1
    waiting = learner.submit(LEARN, ["okapi"], ["ham"], None, visible=True)
    deadline = time.monotonic() + 30
    while learner.durable_version < 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert not waiting.done() and learner.version == 1  # durable, the publish 60 s away
    t0 = time.monotonic()
    learner.stop()
    assert time.monotonic() - t0 < 10
    assert waiting.result(timeout=1) == {"learned": 1, "version": 2} and learner.version == 2


def test_publish_every_zero_publishes_every_group_before_its_answers(text_file):
    with client(text_file, publish_every=0) as c:
        for i in range(4):
            assert learn(c, {"texts": [f"okapi{i}"], "labels": ["ham"]})["version"] == i + 1
            assert versions(c) == (i + 1, i + 1)
    for bad in (-1, float("nan"), "1", True, 61):
        with pytest.raises(ValueError, match="publish_every"):
            create_app(str(text_file), learn=True, token=TOKEN, publish_every=bad)


def test_a_new_class_behind_pending_updates_is_built_before_its_answer(text_file):
    ref = text_model()
    with client(text_file, publish_every=60, allow_new_classes=True) as c:
        learn(c, {"texts": ["zebra prize"], "labels": ["spam"]})
        learn(c, {"texts": ["okapi lunch"], "labels": ["ham"]})  # pending
        assert learn(c, {"texts": ["invoice due okapi"], "labels": ["bills"]}) == {"learned": 1, "version": 3}
        learn(c, {"texts": ["invoice paid"], "labels": ["bills"]})  # the new class is known now: pending
        assert versions(c) == (1, 4)
        assert c.get("/v1/model").json()["classes"] == ["ham", "spam"]  # not visible yet
    ref.partial_fit(["zebra prize", "okapi lunch"], ["spam", "ham"])
    ref.partial_fit(["invoice due okapi", "invoice paid"], ["bills", "bills"])
    with client(text_file) as c:
        assert versions(c) == (4, 4) and c.get("/v1/model").json()["classes"] == ["bills", "ham", "spam"]
        got = c.post("/v1/predict", json={"texts": PROBE}).json()["predictions"]
        np.testing.assert_allclose([[g["probabilities"][k] for k in ("bills", "ham", "spam")] for g in got],
                                   ref.predict_proba(PROBE), rtol=0, atol=1e-12)


def test_label_sets_pending_then_unlearned(tmp_path):
    docs = SPAM + HAM
    sets = [["spam", "promo"], ["spam"], ["spam", "promo"], ["ham"], ["ham", "home"], ["ham"]]
    path = tmp_path / "ml.nbm"
    nbayes.MultiLabel(nbayes.TextClassifier(alpha=0.5), threshold=0.5).fit(docs, sets).save(path)
    ref = nbayes.load(path)
    with client(path, publish_every=60) as c:
        learn(c, {"texts": ["zebra prize"], "labels": [["spam", "promo"]]})
        learn(c, {"texts": ["okapi lunch", "giraffe home"], "labels": [["ham"], ["ham", "home"]]})  # pending
        assert versions(c) == (1, 2)
        assert learn(c, {"texts": ["okapi lunch"], "labels": [["ham"]]}, op="unlearn") == {"unlearned": 1, "version": 3}
        assert versions(c) == (3, 3)
        got = c.post("/v1/predict", json={"texts": PROBE}).json()["predictions"]
    ref.partial_fit(["zebra prize", "giraffe home"], [["spam", "promo"], ["ham", "home"]])
    P = ref.predict_proba(PROBE)
    np.testing.assert_allclose([list(g["probabilities"].values()) for g in got], P, rtol=0, atol=1e-12)
    assert [g["labels"] for g in got] == ref.predict_labels(PROBE)
