"""Learning and forgetting in ``nbayes serve --learn``: one authoritative model, updated by one
writer thread, made durable by the update log (:mod:`._log`) before any answer.

- An update is turned into statistics with the model's own hooks (``prepare_input``,
  ``count_statistics``); a learn is ``model.merge(update)`` (the statistics added, a new model:
  the served one is never touched), an unlearn ``stats_.subtract`` then ``set_statistics`` on a
  copy. Readers keep the model they started with; the new version replaces it whole.
- Group commit: the writer thread takes every update waiting, applies them in order (the
  learns of a run summed into one record), appends the records and fsyncs once, then publishes
  the new version and answers each request.
- Forgetting: a group holding an unlearn is not logged; the model file is rewritten (a
  snapshot) and the log emptied before the answer, so no record of the forgotten rows remains.
- Snapshots also every ``snapshot_every`` records or ``snapshot_bytes`` of log. A snapshot's
  file records its version and the checksum of the file before it, so a crash between writing
  the file and emptying the log is recognised at start.
"""

from __future__ import annotations

import concurrent.futures
import copy
import gc
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_sample_weight, check_y, encode_labels, show, sorted_unique
from ..errors import ModelFileError, NBayesError
from ..io.info import count, json_value
from ..io.load import from_state
from ..io.model_file import state_from_bytes, state_to_bytes
from . import _log
from ._model import Loaded, ModelHolder, Problem, log

LEARN, UNLEARN = "learn", "unlearn"


@dataclass
class Job:
    op: str
    X: Any
    y: list[Any]
    w: list[float] | None
    future: concurrent.futures.Future[dict[str, Any]] = field(default_factory=concurrent.futures.Future)


def cannot(model: Any, op: str) -> str | None:
    """Why ``model`` cannot ``op`` online (None if it can)."""
    caps = model.capabilities
    need = ("partial_fit", "statistics") if op == LEARN else ("partial_fit", "statistics", "unlearn")
    missing = [c for c in need if c not in caps]
    if not missing:
        return None
    kind = type(model).__name__
    extra = ""
    if hasattr(model, "base_estimator_"):
        extra = " (a calibrated model: its map was fitted on out-of-fold predictions of all rows)"
    elif getattr(model, "model", None) == "nblr":
        extra = " (model='nblr': weights fitted by logistic regression over all documents)"
    elif getattr(model, "tfidf", False) and getattr(model, "idf", None) is None:
        extra = " (tfidf=True with an idf learned from all training documents; a frozen idf= learns)"
    elif "mixture" in caps and "partial_fit" not in caps:
        extra = " (fitted by EM with mixture components over all rows)"
    return (f"this {kind} cannot {op}{extra}: its capabilities lack {', '.join(repr(m) for m in missing)}; "
            f"it has {sorted(caps)}")


# ---------------------------------------------------------------------------- statistics
def update_model(work: Any, X: Any, y: list[Any], w: list[float] | None, allow_new: bool) -> tuple[Any, int, float]:
    """(a model whose statistics are those of the rows (X, y, w) with the settings of ``work``,
    rows, weight). A label outside ``work.classes_`` is a 422 unless ``allow_new``."""
    Xv, _ = work.prepare_input(X, fitting=False)
    n = int(Xv.shape[0])
    labels = check_y(_labels(y), n)
    weights = check_sample_weight(w, n)
    distinct = sorted_unique(labels)
    _, unknown = encode_labels(distinct, work.classes_)
    if unknown.any() and not allow_new:
        raise Problem(422, _unknown_label(labels, work.classes_, learn=True))
    # the update's own classes only (merge lays them into the model's): a record holds the
    # counts of the classes it touches, not K rows of zeros
    classes = distinct
    codes, _ = encode_labels(labels, classes)
    stats = work.count_statistics(Xv, codes, len(classes), weights)
    d = copy.copy(work)
    d.set_statistics(stats, classes, work.n_features_in_, work.input_feature_names())
    return d, n, float(n if weights is None else weights.sum())


def without_rows(work: Any, X: Any, y: list[Any], w: list[float] | None) -> tuple[Any, int, float]:
    """(``work`` without the rows (X, y, w), rows, weight): a new model; UnlearnError (422) if a
    count would go below zero."""
    Xv, _ = work.prepare_input(X, fitting=False)
    n = int(Xv.shape[0])
    labels = check_y(_labels(y), n)
    weights = check_sample_weight(w, n)
    codes, unknown = encode_labels(labels, work.classes_)
    if unknown.any():
        raise Problem(422, _unknown_label(labels, work.classes_, learn=False))
    part = work.count_statistics(Xv, codes, len(work.classes_), weights)
    stats = work.stats_.subtract(part, work.classes_)
    new = copy.copy(work)
    new.set_statistics(stats, work.classes_, work.n_features_in_, work.input_feature_names())
    return new, n, float(n if weights is None else weights.sum())


def _labels(y: list[Any]) -> np.ndarray:
    """JSON labels as an array; labels of mixed JSON types stay Python objects."""
    if len({type(v) for v in y}) > 1:
        out = np.empty(len(y), dtype=object)
        out[:] = y
        return out
    return np.asarray(y)


def _unknown_label(labels: np.ndarray, classes: np.ndarray, *, learn: bool) -> str:
    _, unknown = encode_labels(labels, classes)
    i = int(np.argmax(unknown))
    known = [json_value(c) for c in classes.tolist()]
    if learn:
        return (f"labels[{i}] is {show(labels[i])}, not a class of this model {known}; the service runs "
                "without --allow-new-classes, so a typo cannot create a class. Nothing was learned")
    return f"labels[{i}] is {show(labels[i])}, a class this model never learned {known}; nothing was unlearned"


# ---------------------------------------------------------------------------- the learner
class Learner:
    """The one model that learns: recovers it from the file and its log at start, applies
    updates in a writer thread, answers once they are durable."""

    def __init__(self, holder: ModelHolder, *, allow_new_classes: bool = False, snapshot_every: int = 10_000,
                 snapshot_bytes: int = 256 << 20, freeze_gc: bool = False) -> None:
        self.holder = holder
        self.path = holder.path
        self.log_path = _log.log_path(self.path)
        self.allow_new_classes = allow_new_classes
        self.snapshot_every = snapshot_every
        self.snapshot_bytes = snapshot_bytes
        self.freeze_gc = freeze_gc
        loaded = holder.current
        self.meta = {k: v for k, v in loaded.state_meta.items() if k != "serve"}
        serve = loaded.state_meta.get("serve") or {}
        self.sha = _log.file_checksum(self.path)
        self.snapshot_version = int(serve.get("version", 0))
        self.version = self.snapshot_version
        self.rows_learned = self.rows_unlearned = 0
        self.total_learned = self.total_unlearned = 0
        self.records = 0
        self.broken: str | None = None
        self.snapshots = 0
        model, replayed = self._recover(loaded.model, serve.get("follows"))
        self.replayed = replayed
        self.model = model
        self.fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND)
        self.log_bytes = os.fstat(self.fd).st_size
        self._publish(model)
        if replayed:
            log.info("nbayes serve: replayed %d update(s) of %s, now at version %d", replayed, self.log_path, self.version)
        self._cond = threading.Condition()
        self._queue: list[Job] = []
        self._stopping = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ start
    def _recover(self, model: Any, parent: str | None) -> tuple[Any, int]:
        path = self.log_path
        for stale in (path + ".tmp", _log.snapshot_tmp(self.path)):  # what a crash left before a rename
            try:
                os.unlink(stale)
            except FileNotFoundError:
                pass
        if not os.path.exists(path):
            _log.write_new(path, self.sha, self.version)
            return model, 0
        header, records, end, size = _log.read_log(path)
        follows, base = header["snapshot"], int(header["version"])
        if follows == self.sha:
            if base != self.version:
                raise ModelFileError(f"{path}: the log starts at version {base}, the model file is version {self.version}")
            rewrite = False
        elif parent is not None and follows == parent:
            rewrite = True  # the snapshot was written, the crash came before the log was emptied
        else:
            raise ModelFileError(
                f"{path}: this update log belongs to another model file (it follows snapshot {str(follows)[:12]}..., "
                f"{self.path} is {self.sha[:12]}...); move it away if {self.path} was replaced on purpose"
            )
        expected = base + 1
        kept: list[_log.Record] = []
        total = _Sum()
        for r in records:
            if r.version != expected:
                raise ModelFileError(f"{path}: record for version {r.version} where version {expected} was expected")
            expected += 1
            if r.version <= self.version:
                continue
            total.add(self.decode(r.image))
            kept.append(r)
            self.version = r.version
            self.rows_learned += r.rows
        if kept:
            model = model.merge(total.result())
        self.records = len(kept)
        if rewrite:
            _log.write_new(path, self.sha, self.snapshot_version, [_log.encode_record(r) for r in kept])
        elif end < size:
            log.warning("nbayes serve: %s ends with %d bytes of an update that was never acknowledged; cut", path, size - end)
            _log.truncate(path, end)
        return model, len(kept)

    @staticmethod
    def decode(image: bytes) -> Any:
        return from_state(state_from_bytes(image, "an update log record"))

    # ------------------------------------------------------------------ requests
    def submit(self, op: str, X: Any, y: list[Any], w: list[float] | None) -> concurrent.futures.Future[dict[str, Any]]:
        job = Job(op, X, y, w)
        with self._cond:
            if self._stopping:
                raise Problem(503, "the service is shutting down")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nbayes-learner", daemon=True)
                self._thread.start()
            self._queue.append(job)
            self._cond.notify()
        return job.future

    def stop(self) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join()
        try:
            os.close(self.fd)
        except OSError:
            pass

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if not self._queue:
                    return
                jobs, self._queue = self._queue, []
            try:
                self._group(jobs)
            except BaseException as exc:  # noqa: BLE001 - every waiting request gets an answer
                log.exception("nbayes serve: the learner failed on a group of updates")
                for j in jobs:
                    if not j.future.done():
                        j.future.set_exception(Problem(500, f"internal error while learning ({type(exc).__name__})"))

    # ------------------------------------------------------------------ a group
    def _group(self, jobs: list[Job]) -> None:
        # an update whose numbers overflow (counts of 1e308) would leave a model of NaNs: refused
        with np.errstate(over="raise", invalid="raise"):
            self._apply_group(jobs)

    def _apply_group(self, jobs: list[Job]) -> None:
        if self.broken is not None:
            for j in jobs:
                j.future.set_exception(Problem(503, f"learning is stopped: {self.broken}"))
            return
        work, version = self.model, self.version
        done: list[tuple[Job, int, int]] = []  # (job, version, rows)
        records: list[_log.Record] = []
        run: list[tuple[Job, Any, int, float]] = []  # learns not yet applied
        forgot = False
        learned = unlearned = 0

        def commit(items: list[tuple[Job, Any, int, float]]) -> None:
            """Merge the updates of ``items`` into ``work`` as one record (raises, changing nothing)."""
            nonlocal work, version, learned
            delta = items[0][1]
            for _, d, _, _ in items[1:]:
                delta = delta.merge(d)
            new, image = work.merge(delta), state_to_bytes(delta.to_state())
            work, version = new, version + 1
            rows, weight = sum(r[2] for r in items), sum(r[3] for r in items)
            records.append(_log.Record(version, _log.OP_LEARN, rows, weight, image))
            done.extend((j, version, n) for j, _, n, _ in items)
            learned += rows

        def flush() -> None:
            try:
                if run:
                    commit(run)
            except (NBayesError, FloatingPointError) as exc:
                if len(run) == 1:
                    run[0][0].future.set_exception(_refused(exc, LEARN))
                for item in run if len(run) > 1 else []:  # one of them is at fault: each on its own
                    try:
                        commit([item])
                    except (NBayesError, FloatingPointError) as exc_one:
                        item[0].future.set_exception(_refused(exc_one, LEARN))
            run.clear()

        for job in jobs:
            try:
                if job.op == LEARN:
                    d, n, weight = update_model(work, job.X, job.y, job.w, self.allow_new_classes)
                    run.append((job, d, n, weight))
                else:
                    flush()
                    work, n, _ = without_rows(work, job.X, job.y, job.w)
                    version += 1
                    done.append((job, version, n))
                    unlearned += n
                    forgot = True
            except Problem as exc:
                job.future.set_exception(exc)
            except (NBayesError, FloatingPointError) as exc:
                job.future.set_exception(_refused(exc, job.op))
        flush()
        if not done:
            return
        try:
            if forgot:
                self._snapshot(work, version)  # no record of the forgotten rows is left on disk
            else:
                data = b"".join(_log.encode_record(r) for r in records)
                before = self.log_bytes
                try:
                    _log.append(self.fd, data)
                except OSError:
                    try:
                        os.ftruncate(self.fd, before)
                    except OSError:
                        self.broken = f"{self.log_path} could not be written nor cut back"
                    raise
                _log.crash_point("appended")
                self.log_bytes += len(data)
                self.records += len(records)
                self.rows_learned += learned
        except (OSError, ModelFileError) as exc:
            log.error("nbayes serve: an update could not be made durable: %s", exc)
            for j, _, _ in done:
                j.future.set_exception(Problem(503, f"the update could not be written to disk ({exc}); nothing was learned"))
            return
        self.model, self.version = work, version
        self.total_learned += learned
        self.total_unlearned += unlearned
        self._publish(work)
        for j, v, n in done:
            j.future.set_result({"learned" if j.op == LEARN else "unlearned": n, "version": v})
        if not forgot and (self.records >= self.snapshot_every or self.log_bytes >= self.snapshot_bytes):
            try:
                self._snapshot(work, version)
            except (OSError, ModelFileError) as exc:  # the log still holds every update
                log.error("nbayes serve: a snapshot failed (the log keeps the updates): %s", exc)

    def _snapshot(self, model: Any, version: int) -> None:
        """Write the model file (atomically, its version and the file it follows inside), then
        a new empty log after it. A crash between the two is recognised at start (the old log
        follows the file this one follows)."""
        state = model.to_state()
        meta = dict(self.meta)
        cli = dict(meta.get("cli") or {})
        cli.pop("rows", None)  # the training rows are the statistics' now
        if cli:
            meta["cli"] = cli
        meta.update(state["meta"])
        meta["serve"] = {"version": int(version), "follows": self.sha}
        state["meta"] = meta
        image = state_to_bytes(state)  # the model file format, as model.save writes it
        _log.replace_file(self.path, image, "snapshot-written", _log.snapshot_tmp(self.path))
        _log.crash_point("snapshot-saved")
        sha = image[-32:].hex()
        try:
            _log.write_new(self.log_path, sha, version)
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            self.broken = f"the model file was written but its new log could not be ({exc})"
            raise
        os.close(self.fd)
        self.fd = fd
        self.sha, self.snapshot_version = sha, int(version)
        self.log_bytes = os.fstat(fd).st_size
        self.records = 0
        self.rows_learned = self.rows_unlearned = 0
        self.snapshots += 1

    # ------------------------------------------------------------------ publishing
    def _publish(self, model: Any) -> None:
        cur = self.holder.current
        about = dict(cur.about)
        about["classes"] = [json_value(c) for c in np.asarray(model.classes_).tolist()]
        about["training_rows"] = count(float(np.sum(model.stats_.class_count)))
        new = Loaded(cur.path, model, cur.cli, cur.state_meta, cur.header, cur.signature, cur.loaded_at, about,
                     version=self.version)
        self.holder.current = new  # one reference swap: a request keeps the version it started with
        if self.freeze_gc:
            gc.freeze()

    def status(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "file_version": self.snapshot_version,
            "rows_learned_since_file": self.rows_learned,
            "rows_unlearned_since_file": self.rows_unlearned,
            "rows_learned_since_start": self.total_learned,
            "rows_unlearned_since_start": self.total_unlearned,
            "log": os.path.basename(self.log_path),
            "log_bytes": self.log_bytes,
            "snapshots": self.snapshots,
            "allow_new_classes": self.allow_new_classes,
            "learn": cannot(self.model, LEARN) is None,
            "unlearn": cannot(self.model, UNLEARN) is None,
            "error": self.broken,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }


def _refused(exc: Exception, op: str) -> Problem:
    nothing = f"nothing was {'learned' if op == LEARN else 'unlearned'}"
    if isinstance(exc, FloatingPointError):
        return Problem(422, f"the update would make the model's numbers overflow or undefined ({exc}); {nothing}")
    return Problem(422, f"{exc}; {nothing}")


class _Sum:
    """The sum (``merge``) of many update models in a balanced tree (a binary counter: at most
    log2(n) partial sums alive), so replaying n records costs O(size x log n), not n merges
    into the whole model. Counts add exactly; other statistics agree to rounding."""

    def __init__(self) -> None:
        self.stack: list[tuple[int, Any]] = []

    def add(self, model: Any) -> None:
        level = 0
        while self.stack and self.stack[-1][0] == level:
            model = self.stack.pop()[1].merge(model)
            level += 1
        self.stack.append((level, model))

    def result(self) -> Any:
        out = self.stack[-1][1]
        for _, m in reversed(self.stack[:-1]):
            out = m.merge(out)
        return out


