"""Crash recovery of ``nbayes serve --learn`` with real processes: the service is killed
(SIGKILL) mid-append, after an append, before and after a snapshot's rename and before its new
log's rename (the test
hook ``NBAYES_SERVE_CRASH_AT``), and at random instants of learn / unlearn bursts; each restart
recovers from the file and the log left behind. At the end every acknowledged update is in the
model and none half-applied: its predictions equal the original model plus exactly the
documents the service holds, learned offline, to 1e-12."""

from __future__ import annotations

import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("starlette", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")
pytest.importorskip("uvicorn", reason="nbayes serve needs the extra: pip install 'nbayes[serve]'")

import nbayes  # noqa: E402

TOKEN = "t0ken-for-tests"
SPAM = ["win a free prize now", "free cash claim now", "claim your free prize"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday"]
WORDS = ["free", "prize", "lunch", "home", "cash", "noon", "claim", "see"]


def base_model():
    return nbayes.TextClassifier(alpha=0.5).fit(SPAM + HAM, ["spam"] * 3 + ["ham"] * 3)


def doc(i: int) -> tuple[str, str]:
    return f"mk{i} {WORDS[i % 8]} {WORDS[(3 * i) % 8]}", ("spam" if i % 3 else "ham")


def call(url: str, path: str, body: dict | None = None, timeout: float = 20.0) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url + path, data=data, method="GET" if body is None else "POST",
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, model: Path, crash_at: str | None = None, extra: tuple[str, ...] = ()) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "NBAYES_TOKEN": TOKEN}
        env.pop("NBAYES_SERVE_CRASH_AT", None)
        if crash_at:
            env["NBAYES_SERVE_CRASH_AT"] = crash_at
        exe = shutil.which("nbayes")
        cmd = [exe] if exe else [sys.executable, "-m", "nbayes.cli"]
        self.log = model.parent / f"serve-{self.port}.log"
        with open(self.log, "wb") as err:
            self.proc = subprocess.Popen([*cmd, "serve", str(model), "--learn", "--port", str(self.port),
                                          "--snapshot-every", "3", *extra],
                                         stdout=subprocess.DEVNULL, stderr=err, env=env)

    def ready(self) -> bool:
        """True once it answers; False if it died first (a crash point hit while recovering)."""
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                return False
            try:
                if call(self.url, "/healthz", timeout=2)[0] == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"nbayes serve did not start: {self.log.read_text(errors='replace')}")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=20)


class Ledger:
    """What the clients were told: acknowledged learns and unlearns, and those sent unanswered."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.next = 0
        self.learned: set[int] = set()  # acknowledged
        self.unlearned: set[int] = set()  # acknowledged
        self.unknown: set[int] = set()  # learn or unlearn sent, no answer: either outcome is allowed
        self.unlearn_sent: set[int] = set()
        self.errors: list[str] = []

    def unlearn_one(self, url: str) -> None:
        """Unlearn one acknowledged document and wait for the answer (a loaded machine may crash
        every burst's unlearns before they are answered: the test must see one acknowledged)."""
        with self.lock:
            candidates = sorted(self.learned - self.unlearn_sent - self.unknown)
            if not candidates:
                return
            i = candidates[0]
            self.unlearn_sent.add(i)
        d, y = doc(i)
        status, answer = call(url, "/v1/unlearn", {"texts": [d], "labels": [y]})
        with self.lock:
            if status != 200:
                self.errors.append(f"unlearn [{i}]: {status} {answer}")
            else:
                self.unlearned.add(i)

    def burst(self, url: str, stop: threading.Event, seed: int) -> None:
        rng = random.Random(seed)
        while not stop.is_set():
            with self.lock:
                candidates = sorted(self.learned - self.unlearn_sent - self.unknown)
                if candidates and rng.random() < 0.15:
                    ids, op = [rng.choice(candidates)], "unlearn"
                    self.unlearn_sent.update(ids)
                else:
                    k = rng.choice((1, 1, 3))
                    ids, op = list(range(self.next, self.next + k)), "learn"
                    self.next += k
            docs = [doc(i) for i in ids]
            try:
                status, answer = call(url, f"/v1/{op}", {"texts": [d for d, _ in docs], "labels": [y for _, y in docs]})
            except (OSError, http.client.HTTPException):  # (the server killed mid-answer: IncompleteRead)
                with self.lock:
                    self.unknown.update(ids)
                return
            with self.lock:
                if status != 200:
                    self.errors.append(f"{op} {ids}: {status} {answer}")
                    return
                (self.learned if op == "learn" else self.unlearned).update(ids)


def run_until_crash(model: Path, ledger: Ledger, crash_at: str | None, seed: int) -> None:
    server = Server(model, crash_at)
    try:
        if not server.ready():  # died while recovering: that crash is the test
            return
        if crash_at is None:  # one unlearn acknowledged before the random kill, whatever the machine's load
            ledger.unlearn_one(server.url)
        stop = threading.Event()
        threads = [threading.Thread(target=ledger.burst, args=(server.url, stop, seed * 10 + k)) for k in range(4)]
        for t in threads:
            t.start()
        if crash_at is None:  # a random instant
            time.sleep(random.Random(seed).uniform(0.2, 1.2))
            server.kill()
        else:
            try:
                server.proc.wait(timeout=30)  # it kills itself at the point
            except subprocess.TimeoutExpired:
                raise AssertionError(f"crash point {crash_at} never reached") from None
        stop.set()
        for t in threads:
            t.join(timeout=30)
    finally:
        server.kill()


def test_every_acknowledged_update_survives_sigkill_at_any_point(tmp_path):
    model = tmp_path / "spam.nbm"
    base_model().save(model)
    ledger = Ledger()
    points = ["mid-append", "appended", "snapshot-written", "snapshot-saved", "log-written", None]
    for seed, point in enumerate(points):
        run_until_crash(model, ledger, point, seed)
    assert not ledger.errors, ledger.errors
    assert len(ledger.learned) > 10 and ledger.unlearned
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("serve-*.log"))
    assert "never acknowledged; cut" in logs  # the torn record of mid-append
    assert any(f" {n} update(s) replayed" in logs for n in range(1, 50))

    server = Server(model)
    try:
        assert server.ready(), server.log.read_text(errors="replace")
        prior = call(server.url, "/v1/predict", {"text": ""})[1]["probabilities"]
        present = set()
        for i in range(ledger.next):  # a learned document's marker is in the vocabulary
            p = call(server.url, "/v1/predict", {"text": f"mk{i}"})[1]["probabilities"]
            if p != prior:
                present.add(i)
        must = ledger.learned - ledger.unlearn_sent - ledger.unknown
        assert must <= present, f"acknowledged updates lost: {sorted(must - present)}"
        assert not (ledger.unlearned & present), f"acknowledged unlearns undone: {sorted(ledger.unlearned & present)}"
        assert present <= ledger.learned | ledger.unknown
        ref = base_model()
        ref.partial_fit([doc(i)[0] for i in sorted(present)], [doc(i)[1] for i in sorted(present)])
        probe = [doc(i)[0] for i in range(0, ledger.next, 3)] + ["free lunch", "zebra", "claim prize now"]
        got = call(server.url, "/v1/predict", {"texts": probe[:1000]})[1]["predictions"]
        np.testing.assert_allclose([[g["probabilities"][k] for k in ("ham", "spam")] for g in got],
                                   ref.predict_proba(probe[:1000]), rtol=0, atol=1e-12)
        version = call(server.url, "/v1/model")[1]["version"]
        server.proc.send_signal(signal.SIGHUP)  # a learning service keeps its model: no reload, no exit
        time.sleep(0.3)
        assert server.proc.poll() is None and call(server.url, "/v1/model")[1]["version"] == version
    finally:
        server.kill()


def test_acknowledged_updates_not_yet_visible_survive_sigkill(tmp_path):
    """An update is acknowledged once durable, before predictions see it (the next publish is a
    minute away here): SIGKILL then, and the restart holds it."""
    model = tmp_path / "spam.nbm"
    base_model().save(model)
    docs = [doc(i) for i in range(4)]
    server = Server(model, extra=("--publish-every", "60"))
    try:
        assert server.ready(), server.log.read_text(errors="replace")
        assert call(server.url, "/v1/learn", {"texts": [docs[0][0]], "labels": [docs[0][1]]}) == \
            (200, {"learned": 1, "version": 1})  # after a quiet spell: visible when answered
        for k, (d, y) in enumerate(docs[1:]):
            assert call(server.url, "/v1/learn", {"text": d, "label": y}) == (200, {"learned": 1, "version": k + 2})
        info = call(server.url, "/v1/model")[1]
        assert info["version"] == 1 and info["learning"]["durable_version"] == 4
        server.kill()
    finally:
        server.kill()
    ref = base_model().partial_fit([d for d, _ in docs], [y for _, y in docs])
    server = Server(model)
    try:
        assert server.ready(), server.log.read_text(errors="replace")
        assert call(server.url, "/v1/model")[1]["version"] == 4
        probe = [d for d, _ in docs] + ["free lunch", "claim prize now"]
        got = call(server.url, "/v1/predict", {"texts": probe})[1]["predictions"]
        np.testing.assert_allclose([[g["probabilities"][k] for k in ("ham", "spam")] for g in got],
                                   ref.predict_proba(probe), rtol=0, atol=1e-12)
    finally:
        server.kill()


# ---------------------------------------------------------------------------- label sets
def ml_base():
    return nbayes.MultiLabel(nbayes.TextClassifier(alpha=0.5), threshold=0.5).fit(
        SPAM + HAM, [["spam", "promo"], ["spam"], ["spam", "promo"], ["ham"], ["ham", "home"], ["ham", "work"]])


def ml_doc(i: int) -> tuple[str, list[str]]:
    return f"mk{i} {WORDS[i % 8]} {WORDS[(3 * i) % 8]}", sorted({("spam", "ham")[i % 2], ("promo", "home", "work")[i % 3]})


def test_multilabel_updates_survive_sigkill_at_every_crash_point(tmp_path):
    """A multi-label model's label-set updates (whole per-label statistics in the log) through
    every crash point: the recovered model equals the original plus exactly the documents it
    holds, learned offline by partial_fit, and holds every acknowledged one."""
    model = tmp_path / "ml.nbm"
    ml_base().save(model)
    acked: set[int] = set()
    unlearned: set[int] = set()
    unknown: set[int] = set()
    nxt = 0
    for point in ["mid-append", "appended", "snapshot-written", "snapshot-saved", "log-written"]:
        server = Server(model, point)
        try:
            if not server.ready():
                continue
            step = 0
            while server.proc.poll() is None and step < 200:
                step += 1
                gone = sorted(acked - unlearned - unknown)
                if step % 4 == 0 and gone:
                    ids, op = [gone[0]], "unlearn"
                else:
                    ids, op = [nxt, nxt + 1], "learn"
                    nxt += 2
                docs = [ml_doc(i) for i in ids]
                try:
                    status, answer = call(server.url, f"/v1/{op}", {"texts": [d for d, _ in docs],
                                                                     "labels": [s for _, s in docs]})
                except OSError:
                    unknown.update(ids)
                    break
                assert status == 200, answer
                (acked if op == "learn" else unlearned).update(ids)
            assert server.proc.wait(timeout=30) is not None, f"crash point {point} never reached"
        finally:
            server.kill()
    logs = "".join(p.read_text(errors="replace") for p in tmp_path.glob("serve-*.log"))
    assert "never acknowledged; cut" in logs and any(f" {n} update(s) replayed" in logs for n in range(1, 50))
    server = Server(model)
    try:
        assert server.ready(), server.log.read_text(errors="replace")
        prior = call(server.url, "/v1/predict", {"text": ""})[1]["probabilities"]
        present = {i for i in range(nxt) if call(server.url, "/v1/predict", {"text": f"mk{i}"})[1]["probabilities"] != prior}
        assert acked - unlearned - unknown <= present, sorted(acked - unlearned - unknown - present)
        assert not (unlearned - unknown) & present and present <= acked | unknown
        ref = ml_base()
        ref.partial_fit([ml_doc(i)[0] for i in sorted(present)], [ml_doc(i)[1] for i in sorted(present)])
        probe = [ml_doc(i)[0] for i in range(nxt)] + ["free lunch", "zebra", "claim prize now"]
        got = call(server.url, "/v1/predict", {"texts": probe})[1]["predictions"]
        np.testing.assert_allclose([list(g["probabilities"].values()) for g in got], ref.predict_proba(probe),
                                   rtol=0, atol=1e-12)
        assert [g["labels"] for g in got] == ref.predict_labels(probe)
    finally:
        server.kill()


#: labels a client may send: what the service refuses (422) never reaches the log; what it
#: accepts is served, snapshotted and replayed after a SIGKILL
ODD_LABELS = ["", "\ud800", "a\udfffb", "\x00", "tail\x00", "\uffff", "\U0001f600", "tab\t\nline", "\u202eRTL",
              "x" * 300, "quote\"'\\", 3, True, 2.5, "spam"]


def test_odd_labels_never_break_the_service_even_after_sigkill(tmp_path):
    model = tmp_path / "spam.nbm"
    base_model().save(model)
    server = Server(model, extra=("--allow-new-classes",))  # (a snapshot every 3 updates)
    accepted = []
    try:
        assert server.ready(), server.log.read_text(errors="replace")
        for i, label in enumerate(ODD_LABELS):
            status, answer = call(server.url, "/v1/learn", {"text": f"odd{i} w", "label": label})
            assert status in (200, 422), answer
            if status == 200:
                accepted.append(label)
            else:
                assert label in ("\ud800", "a\udfffb", "\x00", "tail\x00", 3, True, 2.5), answer
        server.kill()
    finally:
        server.kill()
    assert len(accepted) == 8
    server = Server(model, extra=("--allow-new-classes",))
    try:
        assert server.ready(), server.log.read_text(errors="replace")
        for path in ("/v1/model", "/openapi.json", "/healthz"):
            assert call(server.url, path)[0] == 200
        status, answer = call(server.url, "/v1/predict", {"texts": [f"odd{i} w" for i in range(len(ODD_LABELS))]})
        assert status == 200
        classes = call(server.url, "/v1/model")[1]["classes"]
        assert set(accepted) <= set(classes) and len(classes) == len(set(accepted) | {"ham"})
        assert call(server.url, "/v1/explain", {"text": "odd1 w"})[0] == 200
    finally:
        server.kill()


def test_a_second_service_refuses_and_sigterm_leaves_every_update_in_the_file(tmp_path):
    model = tmp_path / "spam.nbm"
    base_model().save(model)
    first = Server(model, extra=("--snapshot-every", "1000"))
    try:
        assert first.ready(), first.log.read_text(errors="replace")
        texts = [doc(i) for i in range(5)]
        for text, label in texts:
            assert call(first.url, "/v1/learn", {"text": text, "label": label})[0] == 200
        second = Server(model)
        assert second.proc.wait(timeout=60) == 2  # refused: one line naming the holder
        err = second.log.read_text(errors="replace")
        assert f"nbayes serve --learn (pid {first.proc.pid} on " in err and "since 20" in err, err
        assert call(first.url, "/v1/learn", {"text": "one more", "label": "ham"})[0] == 200  # the first goes on
        first.proc.send_signal(signal.SIGTERM)
        assert first.proc.wait(timeout=60) in (0, -signal.SIGTERM)  # (uvicorn re-raises it after its shutdown)
    finally:
        first.kill()
    assert "snapshot" in first.log.read_text(errors="replace")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the file holds everything: no stale warning
        got = nbayes.load(model)
    ref = base_model()
    ref.partial_fit([t for t, _ in texts] + ["one more"], [lab for _, lab in texts] + ["ham"])
    probe = [t for t, _ in texts] + ["free lunch", "one more"]
    np.testing.assert_allclose(got.predict_proba(probe), ref.predict_proba(probe), rtol=0, atol=1e-12)
