"""The durability contract of ``nbayes serve --learn`` (docs/serve.md, "Durability"): one writer
per model file (a lock naming its holder), a damaged record followed by valid ones refused with
its offset (only a torn final append is cut), a clean stop and ``POST /v1/snapshot`` leaving
every acknowledged update in the model file."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402
from nbayes.errors import ModelFileError, ModelLockedError, StaleModelWarning  # noqa: E402
from nbayes.serve import create_app, updates  # noqa: E402
from nbayes.serve._log import LogDamagedError, later_record, read_log  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

TOKEN = "t0ken"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]
PROBE = ["free lunch now", "zebra prize", "see you thursday", "okapi giraffe"]
DOCS = [("zebra prize zebra", "spam"), ("giraffe lunch", "ham"), ("okapi cash", "spam"), ("quokka noon", "ham")]


def text_model():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "spam.nbm"
    text_model().save(p)
    return p


def app(path, **kw):
    return create_app(str(path), learn=True, token=TOKEN, **kw)


def learn(c, text, label):
    r = c.post("/v1/learn", json={"text": text, "label": label}, headers=AUTH)
    assert r.status_code == 200, r.text
    return r.json()["version"]


def reference(n):
    ref = text_model()
    for text, label in DOCS[:n]:
        ref.partial_fit([text], [label])
    return ref


def logged(path, n):
    """The file and log a SIGKILL leaves after ``n`` learns (the service killed before its stop)."""
    with TestClient(app(path)) as c:
        for text, label in DOCS[:n]:
            learn(c, text, label)
        state = path.read_bytes(), (path.parent / (path.name + ".log")).read_bytes()
    path.write_bytes(state[0])
    (path.parent / (path.name + ".log")).write_bytes(state[1])
    return path.parent / (path.name + ".log")


# ---------------------------------------------------------------------------- one writer
def test_a_second_learning_service_refuses_to_start_naming_the_holder(path):
    with TestClient(app(path)) as c:
        learn(c, *DOCS[0])
        with pytest.raises(ModelLockedError) as info:
            app(path)
        message = str(info.value)
        assert f"pid {os.getpid()}" in message and "nbayes serve --learn" in message and "since 20" in message
        assert str(path) in message
        learn(c, *DOCS[1])  # the first goes on
    with TestClient(app(path)) as c:  # released at its stop
        assert c.get("/v1/model").json()["version"] == 2


def test_the_lock_is_released_when_the_start_fails(path):
    log = path.parent / "spam.nbm.log"
    log.write_bytes(b"not a log at all")
    with pytest.raises(ModelFileError, match="not an nbayes update log"):
        app(path)
    log.unlink()
    with TestClient(app(path)) as c:
        assert learn(c, *DOCS[0]) == 1


# ---------------------------------------------------------------------------- damage
def test_a_flipped_byte_in_the_middle_is_corruption_named_by_offset(path):
    log = logged(path, 3)
    _, records, end, size = read_log(str(log))
    assert [r.version for r in records] == [1, 2, 3] and end == size
    raw = bytearray(log.read_bytes())
    first = size - sum(8 + 21 + len(r.body) for r in records)  # where record 1 starts
    for at in range(first, first + 8 + 21 + len(records[0].body)):  # every byte of record 1, in turn
        bad = bytearray(raw)
        bad[at] ^= 0x40
        log.write_bytes(bytes(bad))
        with pytest.raises(LogDamagedError) as info:
            app(path)
        assert info.value.at == first and f"damaged at byte {first}" in str(info.value)
        assert "nbayes repair" in str(info.value) and info.value.later[1] in (2, 3)
        assert log.read_bytes() == bytes(bad), "nothing is cut"
    log.write_bytes(bytes(raw))
    with TestClient(app(path)) as c:  # whole again: every version back
        assert c.get("/v1/model").json()["version"] == 3


def test_only_a_torn_final_record_is_cut(path, caplog):
    log = logged(path, 3)
    raw, original = log.read_bytes(), path.read_bytes()
    _, records, _, _ = read_log(str(log))
    last = len(raw) - (8 + 21 + len(records[-1].body))
    for cut in (len(raw) - 1, last + 5, last + 1):  # the final record torn at any length
        log.write_bytes(raw[:cut])
        with caplog.at_level("WARNING", logger="nbayes.serve"), TestClient(app(path)) as c:
            assert c.get("/v1/model").json()["version"] == 2
        assert "never acknowledged; cut" in caplog.text
        caplog.clear()
        log.write_bytes(raw)  # (the stop wrote version 2 into the file: back to the state of the kill)
        path.write_bytes(original)
    bad = bytearray(raw)
    bad[-3] ^= 1  # the final record complete but damaged: a torn append too (nothing after it)
    log.write_bytes(bytes(bad))
    with TestClient(app(path)) as c:
        assert c.get("/v1/model").json()["version"] == 2


def test_later_record_finds_a_valid_frame_after_garbage_only():
    assert later_record(b"\x00" * 500, 0, 0) is None
    rng = np.random.default_rng(0)
    assert later_record(rng.integers(0, 256, 100_000, dtype=np.uint8).tobytes(), 0, 0) is None


# ---------------------------------------------------------------------------- stop and snapshot
def test_a_clean_stop_leaves_every_acknowledged_update_in_the_file(path):
    with TestClient(app(path, publish_every=5.0)) as c:  # updates durable, not all published yet
        for text, label in DOCS:
            learn(c, text, label)
    model = nbayes.load(path)  # the file alone, no warning: it holds them
    np.testing.assert_allclose(model.predict_proba(PROBE), reference(4).predict_proba(PROBE), rtol=0, atol=1e-12)
    header, records, _, _ = read_log(str(path) + ".log")
    assert records == [] and header["version"] == 4


def test_snapshot_endpoint_writes_the_file_now(path):
    with TestClient(app(path)) as c:
        for text, label in DOCS[:2]:
            learn(c, text, label)
        r = c.post("/v1/snapshot")
        assert r.status_code == 401
        r = c.post("/v1/snapshot", headers=AUTH)
        assert r.status_code == 200 and r.json() == {"snapshot": True, "version": 2, "file_version": 2}
        model = nbayes.load(path)
        np.testing.assert_allclose(model.predict_proba(PROBE), reference(2).predict_proba(PROBE), rtol=0, atol=1e-12)
        assert c.post("/v1/snapshot", headers=AUTH).json() == {"snapshot": False, "version": 2, "file_version": 2}
        assert learn(c, *DOCS[2]) == 3
        assert c.get("/v1/model").json()["learning"]["file_version"] == 2
        assert "/v1/snapshot" in c.get("/openapi.json").json()["paths"]
    with TestClient(create_app(str(path))) as c:
        assert c.post("/v1/snapshot").status_code == 409


def test_a_snapshot_that_would_not_load_back_is_not_written(path, monkeypatch):
    """The service's snapshot is a save: its image is read back and built as ``load`` would
    before it replaces the file (issue #27: no writer of model files skips the check)."""
    before = path.read_bytes()
    with TestClient(app(path)) as c:
        for text, label in DOCS[:2]:
            learn(c, text, label)
        good = nbayes.TextClassifier.to_state

        def short(self):
            state = good(self)
            return {**state, "arrays": {**state["arrays"], "classes": state["arrays"]["classes"][:-1]}}

        monkeypatch.setattr(nbayes.TextClassifier, "to_state", short)
        r = c.post("/v1/snapshot", headers=AUTH)
        assert r.status_code == 503, r.text
        assert "would not load back" in r.text and "the log keeps every acknowledged update" in r.text
        assert path.read_bytes() == before
        monkeypatch.setattr(nbayes.TextClassifier, "to_state", good)
        assert c.post("/v1/snapshot", headers=AUTH).json() == {"snapshot": True, "version": 2, "file_version": 2}
    np.testing.assert_allclose(nbayes.load(path).predict_proba(PROBE), reference(2).predict_proba(PROBE),
                               rtol=0, atol=1e-12)


# ---------------------------------------------------------------------------- readers of the file
def test_load_warns_of_updates_the_file_lacks_and_replays_them_on_request(path):
    logged(path, 3)
    with pytest.warns(StaleModelWarning, match=r"version 0, but .*spam.nbm.log holds 3 acknowledged update\(s\) it "
                                               r"lacks \(versions 1-3, 3 row\(s\)\)") as caught:
        stale = nbayes.load(path)
    assert caught[0].filename == __file__  # the warning points at the caller
    np.testing.assert_allclose(stale.predict_proba(PROBE), text_model().predict_proba(PROBE), rtol=0, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh = nbayes.load(path, replay=True)
    np.testing.assert_allclose(fresh.predict_proba(PROBE), reference(3).predict_proba(PROBE), rtol=0, atol=1e-12)
    assert updates.pending(path).records == 3


def test_load_of_a_damaged_log_warns_and_refuses_to_replay(path):
    log = logged(path, 3)
    raw = bytearray(log.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    log.write_bytes(bytes(raw))
    with pytest.warns(StaleModelWarning, match="cannot be read .*damaged at byte"):
        nbayes.load(path)
    with pytest.raises(ModelFileError, match="damaged at byte"):
        nbayes.load(path, replay=True)


def test_a_service_without_learn_warns_or_replays(path, caplog):
    logged(path, 2)
    with caplog.at_level("WARNING", logger="nbayes.serve"), TestClient(create_app(str(path))) as c:
        stale = c.post("/v1/predict", json={"texts": PROBE}).json()["predictions"]
    assert "holds 2 acknowledged update(s) it lacks" in caplog.text
    with TestClient(create_app(str(path), replay=True)) as c:
        fresh = c.post("/v1/predict", json={"texts": PROBE}).json()["predictions"]
    got = [[p["probabilities"][k] for k in ("ham", "spam")] for p in fresh]
    np.testing.assert_allclose(got, reference(2).predict_proba(PROBE), rtol=0, atol=1e-12)
    assert stale != fresh


def test_offline_snapshot_writes_the_log_into_the_file_and_is_refused_while_a_service_runs(path):
    logged(path, 3)
    with TestClient(app(path)) as c:  # (its start replays; its lock is held)
        with pytest.raises(ModelLockedError, match="POST /v1/snapshot"):
            updates.snapshot(path)
        state = path.read_bytes(), (path.parent / "spam.nbm.log").read_bytes()
    path.write_bytes(state[0])
    (path.parent / "spam.nbm.log").write_bytes(state[1])
    assert updates.snapshot(path) == {"snapshot": True, "version": 3, "file_version": 3, "replayed": 3}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing stale any more
        model = nbayes.load(path)
    np.testing.assert_allclose(model.predict_proba(PROBE), reference(3).predict_proba(PROBE), rtol=0, atol=1e-12)
    assert updates.snapshot(path)["snapshot"] is False


def test_repair_keeps_the_valid_prefix_and_reports_what_it_drops(path):
    log = logged(path, 3)
    raw = log.read_bytes()
    _, records, _, _ = read_log(str(log))
    second = len(raw) - sum(8 + 21 + len(r.body) for r in records[1:])  # where record 2 starts
    bad = bytearray(raw)
    bad[second + 30] ^= 0x01
    log.write_bytes(bytes(bad))
    with pytest.raises(LogDamagedError, match=f"damaged at byte {second}"):
        app(path)
    report = updates.repair(path)
    assert report["repaired"] and report["kept"] == 1 and report["kept_versions"] == [1, 1]
    assert report["damaged_at"] == second and report["dropped_bytes"] == len(raw) - second
    assert report["lost_versions"] == [3]  # valid, but after the damage
    with open(report["copy"], "rb") as f:
        assert f.read() == bytes(bad)  # the whole log, aside
    assert log.read_bytes() == raw[:second]
    with TestClient(app(path)) as c:
        assert c.get("/v1/model").json()["version"] == 1
    assert updates.repair(path)["repaired"] is False


def test_any_flipped_byte_is_refused_unless_it_is_in_the_final_record(path):
    """Every byte of a log of 4 records, flipped in turn: the header's damage and a record's
    followed by valid ones are refused (the offset named); only the final record may be cut."""
    log = logged(path, 4)
    raw = log.read_bytes()
    _, records, _, _ = read_log(str(log))
    sizes = [8 + 21 + len(r.body) for r in records]
    starts = [len(raw) - sum(sizes[i:]) for i in range(len(sizes))]
    for at in range(len(raw)):
        bad = bytearray(raw)
        bad[at] ^= 1 << (at % 8)
        log.write_bytes(bytes(bad))
        if at < starts[0]:
            with pytest.raises(ModelFileError, match="header|magic"):
                read_log(str(log))
            continue
        k = max(i for i, s in enumerate(starts) if s <= at)  # the damaged record
        if k < len(records) - 1:
            with pytest.raises(LogDamagedError) as info:
                read_log(str(log))
            assert info.value.at == starts[k] and info.value.kept == k
        else:
            _, got, end, size = read_log(str(log))
            assert [r.version for r in got] == [1, 2, 3] and end == starts[-1] and size == len(raw)
