"""The learning service's writer paces itself (nbayes.serve._learn.Learner: ``pace``,
``max_pause``; ``create_app(learn_pace=...)``, ``nbayes serve --learn-pace``): updates that
arrive during its pause after a group join the next group (one version, one fsync), every one
of them is answered, the result equals the updates applied one by one, and stopping the
service never waits out a pause."""

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
        news = [(["okapi giraffe"], ["ham"]), (["zebra zebra cash"], ["spam"]), (["giraffe lunch"], ["ham"])]
        futures = [learner.submit(LEARN, X, y, None) for X, y in news]
        answers = [f.result(timeout=30) for f in futures]
        assert {a["version"] for a in answers} == {first["version"] + 1}  # one group, one version
        assert [a["learned"] for a in answers] == [1, 1, 1]
        assert learner.version == first["version"] + 1
        served = learner.holder.current.model.predict_proba(PROBE)
    docs = DOCS + ["zebra prize"] + [x[0] for x, _ in news]
    labels = LABELS + ["spam"] + [y[0] for _, y in news]
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
