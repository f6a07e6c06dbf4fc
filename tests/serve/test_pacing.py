"""The learning service's writer paces itself (nbayes.serve._learn.Learner: ``pace``,
``max_pause``, ``window``; ``create_app(learn_pace=..., learn_window=...)``, ``nbayes serve
--learn-pace``): updates that arrive during its pause after a group, or within the window
after a group started (group publish), join the next group (one version, one fsync), every one
of them is answered, the result equals the updates applied one by one, and stopping the
service never waits out a pause or a window."""

from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("starlette")

import nbayes  # noqa: E402
from nbayes.serve import create_app  # noqa: E402
from nbayes.serve._learn import LEARN  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

TOKEN = "correct horse battery staple"
DOCS = ["win a free prize now", "free cash claim now", "lunch at noon tomorrow", "see you at home tonight"]
LABELS = ["spam", "spam", "ham", "ham"]
PROBE = ["free lunch now", "zebra prize", "okapi giraffe", ""]


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "spam.nbm"
    nbayes.TextClassifier(alpha=0.5).fit(DOCS, LABELS).save(path)
    return path


def test_updates_arriving_during_a_pause_share_the_next_version(model_file):
    with TestClient(create_app(str(model_file), learn=True, token=TOKEN, learn_pace=1e9)) as c:
        learner = c.app.state.learner
        learner.max_pause = 0.5  # the pause after every group: long enough to submit into
        first = learner.submit(LEARN, ["zebra prize"], ["spam"], None).result(timeout=30)
        answers = _three_updates_in_one_group(learner, first)
        assert [a["learned"] for a in answers] == [1, 1, 1]
        _served_equals_offline(learner)


NEWS = [(["okapi giraffe"], ["ham"]), (["zebra zebra cash"], ["spam"]), (["giraffe lunch"], ["ham"])]


def _three_updates_in_one_group(learner, first):
    """Submit NEWS at once (after ``first``, the answer to learning "zebra prize"): they share
    the next version."""
    futures = [learner.submit(LEARN, X, y, None) for X, y in NEWS]
    answers = [f.result(timeout=30) for f in futures]
    assert {a["version"] for a in answers} == {first["version"] + 1}  # one group, one version
    assert learner.version == first["version"] + 1
    return answers


def _served_equals_offline(learner):
    served = learner.holder.current.model.predict_proba(PROBE)
    docs = DOCS + ["zebra prize"] + [x[0] for x, _ in NEWS]
    labels = LABELS + ["spam"] + [y[0] for _, y in NEWS]
    offline = nbayes.TextClassifier(alpha=0.5).fit(docs, labels)
    np.testing.assert_allclose(served, offline.predict_proba(PROBE), rtol=0, atol=1e-12)


def test_stopping_does_not_wait_out_a_pause_and_answers_what_is_queued(model_file):
    app = create_app(str(model_file), learn=True, token=TOKEN, learn_pace=1e9)
    learner = app.state.learner
    learner.max_pause = 30.0
    learner.submit(LEARN, ["zebra prize"], ["spam"], None).result(timeout=30)
    queued = learner.submit(LEARN, ["okapi"], ["ham"], None)  # waits for the pause to end
    t0 = time.monotonic()
    learner.stop()
    assert time.monotonic() - t0 < 10
    assert queued.result(timeout=1)["learned"] == 1


@pytest.mark.parametrize("bad", [-1, float("nan"), "2", True])
def test_a_bad_pace_is_refused(model_file, bad):
    with pytest.raises(ValueError, match="learn_pace"):
        create_app(str(model_file), learn=True, token=TOKEN, learn_pace=bad)


def test_updates_arriving_within_the_window_share_one_version(model_file):
    with TestClient(create_app(str(model_file), learn=True, token=TOKEN, learn_window=0.5)) as c:
        learner = c.app.state.learner
        assert learner.window == 0.5
        first = learner.submit(LEARN, ["zebra prize"], ["spam"], None).result(timeout=30)
        _three_updates_in_one_group(learner, first)  # within 0.5 s of the first group's start
        r = c.get("/v1/model")
        assert r.json()["learning"]["version"] == first["version"] + 1
        _served_equals_offline(learner)


def test_a_lone_update_does_not_wait_for_the_window(model_file):
    app = create_app(str(model_file), learn=True, token=TOKEN, learn_window=5.0)
    learner = app.state.learner
    try:
        t0 = time.monotonic()
        learner.submit(LEARN, ["zebra prize"], ["spam"], None).result(timeout=30)
        assert time.monotonic() - t0 < 4  # the first group starts at once (no group started before)
    finally:
        learner.stop()


def test_stopping_does_not_wait_out_a_window(model_file):
    app = create_app(str(model_file), learn=True, token=TOKEN, learn_window=10.0)
    learner = app.state.learner
    learner.submit(LEARN, ["zebra prize"], ["spam"], None).result(timeout=30)
    queued = learner.submit(LEARN, ["okapi"], ["ham"], None)  # waits for the window to end
    time.sleep(0.05)
    assert not queued.done()
    t0 = time.monotonic()
    learner.stop()
    assert time.monotonic() - t0 < 5
    assert queued.result(timeout=1)["learned"] == 1


@pytest.mark.parametrize("bad", [-1, float("nan"), "2", True, 11])
def test_a_bad_window_is_refused(model_file, bad):
    with pytest.raises(ValueError, match="learn_window"):
        create_app(str(model_file), learn=True, token=TOKEN, learn_window=bad)
