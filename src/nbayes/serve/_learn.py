"""Learning and forgetting in ``nbayes serve --learn``: one authoritative model, updated by one
writer thread, made durable by the update log (:mod:`._log`) before any answer, made visible
to predictions at most once per ``publish_every``.

- A learn request is turned into statistics (a :class:`~._delta.Delta`) by the request itself,
  with the model's own hooks (``prepare_input``, ``count_statistics``; :mod:`._requests`, with
  the checks and answers of refused requests): tokenising and counting happen outside the
  writer.
- Group commit: the writer thread takes every update waiting, checks them (known labels,
  numbers far from float64's range: every refusal before the answer), sums the learns of a run
  into one record, appends the group's records with one fsync and answers each request with
  the version that will hold it (``{"learned": n, "version": v}``): acknowledged = durable.
  It does not build a model for them: their summed deltas wait, durable, in ``_pending``.
- Publishing (visibility): the pending deltas are added to the model (:func:`._delta.apply_all`,
  copy-on-write: the served version is never touched; a text model's parameters updated where
  the deltas touch them) and the new version replaces the served one whole, at most once per
  ``publish_every`` (0.1 s), and at once when nothing was published in the last interval (a
  lone update is visible when answered). A request asking ``?visible=true`` is answered after
  the publish that holds it. An update the cheap checks cannot clear (a new class, numbers
  near float64's range) is built before its answer instead, which refuses exactly what the
  model refuses.
- Forgetting: a group holding an unlearn is not logged; the pending learns are applied, then
  the unlearn, the model file is rewritten (a snapshot, :mod:`._snapshots`), the log emptied
  and the result published before the answer, so no record of the forgotten rows remains.
- Snapshots also every ``snapshot_every`` records or ``snapshot_bytes`` of log, from a
  published version holding every record logged, in the background (:mod:`._snapshots`).
"""

from __future__ import annotations

import concurrent.futures
from functools import partial
import gc
import math
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import encode_labels
from ..errors import ModelFileError, NBayesError
from ..io.info import count, json_value
from . import _delta, _log
from . import _labelsets as labelsets
from ._delta import Delta
from ._model import Loaded, ModelHolder, Problem, log
from ._requests import LEARN, SNAPSHOT, UNLEARN, cannot, counted, refused, unknown_label, without_rows
from ._lock import WriterLock
from ._snapshots import Snapshots

#: the shortest time (s) between the starts of two groups of updates (0: a group as soon as the
#: last one ends; the fsync of one group is the time the next gathers in)
WINDOW = 0.0
#: the shortest time (s) between two publishes of a new version (docs/serve.md, "Visibility")
PUBLISH_EVERY = 0.1
#: updates are added to the model without building a version before their answer while every
#: number of the model's statistics stays below this (far from float64's range, whatever the
#: estimation does with them: squares, sums over terms); beyond it, each is built before its answer
DEFER_LIMIT = 1e100


@dataclass
class Job:
    op: str
    X: Any  # a learn: its Delta (counted by the request); an unlearn: the rows
    y: list[Any]
    w: list[float] | None
    visible: bool = False  # answer only once a published version holds it
    future: concurrent.futures.Future[dict[str, Any]] = field(default_factory=concurrent.futures.Future)


# ---------------------------------------------------------------------------- the learner
class Learner(Snapshots):
    """The one model that learns: recovers it from the file and its log at start, logs updates
    in a writer thread, answers once they are durable, publishes them at most once per
    ``publish_every``.

    ``model`` / ``version``: the published version (what predictions use); ``durable_version``:
    the last version logged (>= ``version``); the versions between are ``_base`` (the newest
    model built) plus the summed deltas ``_pending`` (logged, not added yet)."""

    def __init__(self, holder: ModelHolder, *, allow_new_classes: bool = False, snapshot_every: int = 10_000,
                 snapshot_bytes: int = 256 << 20, freeze_gc: bool = False, pace: float = 0.0,
                 max_pause: float = 0.05, window: float = WINDOW, publish_every: float = PUBLISH_EVERY) -> None:
        self.holder = holder
        self.publish_every = float(publish_every)
        # after a group that took t of the writer's CPU, the next starts min(pace * t, max_pause)
        # later, the updates arriving meanwhile joining it: at most 1 / (1 + pace) of a core
        self.pace, self.max_pause = float(pace), float(max_pause)
        # group publish: a group starts no sooner than ``window`` after the last one started, so
        # at most one version per window whatever the rate of requests (a version's cost is
        # mostly fixed: the copies of the model's arrays), the updates arriving meanwhile joining it
        self.window = float(window)
        self.path = holder.path
        self.log_path = _log.log_path(self.path)
        self.allow_new_classes = allow_new_classes
        self.snapshot_every = snapshot_every
        self.snapshot_bytes = snapshot_bytes
        self.freeze_gc = freeze_gc
        # the one writer of the file and its log (a second service or `nbayes snapshot` refuses)
        self.lock = WriterLock(self.path, "nbayes serve --learn")
        try:
            self._start(holder)
        except BaseException:
            self.lock.release()
            raise

    def _start(self, holder: ModelHolder) -> None:
        if holder.changed():  # written by another writer between its load and the lock: the file as it is now
            holder.reload(force=True)
            if holder.error is not None:
                raise ModelFileError(holder.error["message"])
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
        self.durable_version = self.version
        self._base: Any = model  # the newest model built (published, or about to be)
        self._pending: list[Delta] = []  # summed deltas logged after _base, not added to it yet
        self._peak = _delta.model_peak(model)  # a bound on the numbers of _base plus _pending
        self._last_publish = -math.inf  # (monotonic) the next update after a quiet spell publishes at once
        self._waiters: list[tuple[int, concurrent.futures.Future[dict[str, Any]], dict[str, Any]]] = []
        self.fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND)
        self.log_bytes = os.fstat(self.fd).st_size
        self._publish(model)
        if replayed:
            log.info("nbayes serve: replayed %d update(s) of %s, now at version %d", replayed, self.log_path, self.version)
        self._cond = threading.Condition()
        self._queue: list[Job] = []
        self._stopping = False
        self._thread: threading.Thread | None = None
        # a snapshot in the background: its thread, (version, sha) once its file is in place
        # (or an exception), and the records (and their deltas) appended meanwhile
        self._snap: threading.Thread | None = None
        self._snap_done: tuple[int, str] | BaseException | None = None
        self._since: list[tuple[_log.Record, Delta]] = []

    # ------------------------------------------------------------------ requests
    def count(self, X: Any, y: list[Any], w: list[float] | None) -> Delta:
        """A learn request's statistics, counted by the caller's thread with the served model's
        settings (the same in every version)."""
        return counted(self.holder.current.model, X, y, w)

    def submit(self, op: str, X: Any, y: list[Any], w: list[float] | None, *,
               visible: bool = False) -> concurrent.futures.Future[dict[str, Any]]:
        """Queue an update (a learn: its :class:`Delta` as ``X``, or the rows, counted here),
        answered once durable (``visible``: once a published version holds it)."""
        if op == LEARN and not isinstance(X, Delta):
            X = self.count(X, y, w)
        job = Job(op, X, y, w, visible)
        with self._cond:
            if self._stopping:
                raise Problem(503, "the service is shutting down")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nbayes-learner", daemon=True)
                self._thread.start()
            self._queue.append(job)
            self._cond.notify()
        return job.future

    def visible(self, answer: dict[str, Any]) -> concurrent.futures.Future[dict[str, Any]]:
        """A future of ``answer`` once a published version holds ``answer["version"]``."""
        future: concurrent.futures.Future[dict[str, Any]] = concurrent.futures.Future()
        with self._cond:
            if int(answer["version"]) <= self.version:
                future.set_result(answer)
            elif self.broken is not None:
                future.set_exception(Problem(503, f"learning is stopped: {self.broken}"))
            else:
                self._waiters.append((int(answer["version"]), future, answer))
        return future

    def stop(self) -> None:
        """A clean stop (SIGTERM, SIGINT, the app's shutdown): the updates waiting are answered,
        then a snapshot writes every acknowledged update into the model file, and the lock is
        released."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join()
        try:
            self._end_snapshot(wait=True)
            self.snapshot_now()
        except (OSError, NBayesError) as exc:  # the log keeps them: the next start replays it
            log.error("nbayes serve: the snapshot at stop failed; %s keeps the updates: %s", self.log_path, exc)
        finally:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.lock.release()

    def _run(self) -> None:
        ready_at = 0.0  # pacing, window: the next group starts no sooner (the updates arriving meanwhile join it)
        while True:
            with self._cond:
                while True:
                    now = time.monotonic()
                    due = self._publish_due()
                    if self._stopping or self._snap_done is not None or (self._queue and now >= ready_at) or now >= due:
                        break
                    until = min(ready_at, due) if self._queue else due
                    self._cond.wait(None if until == math.inf else until - now)
                jobs, self._queue = (self._queue, []) if (self._stopping or time.monotonic() >= ready_at) else ([], self._queue)
                stopping = self._stopping and not self._queue
            self._end_snapshot(wait=False)
            if jobs:
                busy = time.thread_time()
                started = time.monotonic()
                try:
                    self._group(jobs)
                except BaseException as exc:  # noqa: BLE001 - every waiting request gets an answer
                    log.exception("nbayes serve: the learner failed on a group of updates")
                    for j in jobs:
                        if not j.future.done():
                            j.future.set_exception(Problem(500, f"internal error while learning ({type(exc).__name__})"))
                busy = time.thread_time() - busy  # the writer's CPU time for the group (not its fsync wait)
                ready_at = max(time.monotonic() + min(self.pace * busy, self.max_pause), started + self.window)
            if self.version < self.durable_version and (stopping or time.monotonic() >= self._publish_due()):
                self._publish_pending()
            if stopping:
                self._answer_waiters()  # (none left after a publish; a failed one answers them too)
                return

    def _publish_due(self) -> float:
        """When the durable versions not yet published are due (inf: none, or learning stopped)."""
        if self.version >= self.durable_version or self.broken is not None:
            return math.inf
        return self._last_publish + self.publish_every

    # ------------------------------------------------------------------ a group
    def _group(self, jobs: list[Job]) -> None:
        updates = [j for j in jobs if j.op != SNAPSHOT]
        if updates:  # an update whose numbers overflow (counts of 1e308) would leave a model of NaNs: refused
            with np.errstate(over="raise", invalid="raise"):
                self._apply_group(updates)
        for j in jobs:
            if j.op == SNAPSHOT:  # after the updates before it: the file holds them
                try:
                    j.future.set_result(self.snapshot_now())
                except (OSError, NBayesError) as exc:
                    j.future.set_exception(Problem(503, f"the snapshot could not be written ({exc}); the log keeps "
                                                        "every acknowledged update"))

    def _apply_group(self, jobs: list[Job]) -> None:
        if self.broken is not None:
            for j in jobs:
                j.future.set_exception(Problem(503, f"learning is stopped: {self.broken}"))
            return
        # the group works on copies of the state, kept only once its records are on disk
        base, pending, peak, version = self._base, list(self._pending), self._peak, self.durable_version
        apply_all = labelsets.apply_all if labelsets.applies(base) else partial(_delta.apply_all, words=self._terms)
        total = labelsets.total if labelsets.applies(base) else _delta.total
        self._terms.discard()
        done: list[tuple[Job, int, int]] = []  # (job, version, rows)
        records: list[_log.Record] = []
        deltas: list[Delta] = []  # of the records
        run: list[Job] = []  # learns not yet summed
        forgot = False
        learned = unlearned = 0

        def built() -> Any:
            """``base`` with the pending deltas added (checked when they were logged: cannot fail)."""
            nonlocal base, pending, peak
            if pending:
                try:
                    base = apply_all(base, pending)[0]
                except (NBayesError, FloatingPointError) as exc:  # a bug: not the fault of the group's updates
                    raise RuntimeError(f"the pending updates could not be added: {exc}") from exc
                pending = []
            return base

        def commit(items: list[Job]) -> None:
            """The deltas of ``items`` as one record (raises, changing nothing): summed and kept
            pending when their classes are the model's and the sum stays far from float64's
            range; otherwise added to the model now (what the model refuses is refused here)."""
            nonlocal base, version, learned, peak
            ds = [j.X for j in items]
            delta = total(ds) if all(_delta.known(d, base.classes_) for d in ds) else None
            top = math.inf if delta is None else _delta.peak(delta.stats)
            new = None
            if delta is None or peak + top > DEFER_LIMIT:
                new, delta = apply_all(built(), ds)
            body = self._terms.body(delta)
            if new is None:  # (nothing changes before this point: a refusal leaves the group's state)
                pending.append(delta)
                peak += top
            else:
                base, peak = new, _delta.model_peak(new)
            version += 1
            records.append(_log.Record(version, _log.OP_LEARN, delta.rows, delta.weight, body))
            deltas.append(delta)
            done.extend((j, version, j.X.rows) for j in items)
            learned += delta.rows

        def flush() -> None:
            try:
                if run:
                    commit(run)
            except (NBayesError, FloatingPointError) as exc:
                if len(run) == 1:
                    run[0].future.set_exception(refused(exc, LEARN))
                for item in run if len(run) > 1 else []:  # one of them is at fault: each on its own
                    try:
                        commit([item])
                    except (NBayesError, FloatingPointError) as exc_one:
                        item.future.set_exception(refused(exc_one, LEARN))
            run.clear()

        for job in jobs:
            try:
                if job.op == LEARN:
                    d: Delta = job.X
                    if not self.allow_new_classes:
                        _, unknown = encode_labels(d.classes, base.classes_)
                        if unknown.any() and isinstance(d, labelsets.LabelSetDelta):
                            labelsets.unknown_label(base.classes_, d.sets, learn=True)
                        if unknown.any():
                            labels = d.labels if d.labels is not None else d.classes
                            raise Problem(422, unknown_label(labels, base.classes_, learn=True))
                    run.append(job)
                else:
                    flush()
                    base, n, _ = without_rows(built(), job.X, job.y, job.w)
                    peak = _delta.model_peak(base)  # (an unlearn writes the whole file anyway)
                    version += 1
                    done.append((job, version, n))
                    unlearned += n
                    forgot = True
            except Problem as exc:
                job.future.set_exception(exc)
            except (NBayesError, FloatingPointError) as exc:
                job.future.set_exception(refused(exc, job.op))
        flush()
        if not done:
            return
        try:
            if forgot:
                built()  # the learns after the unlearn
                self._end_snapshot(wait=True)
                self._snapshot(base, version)  # no record of the forgotten rows is left on disk
            else:
                self._append(records, deltas, learned)
        except (OSError, ModelFileError) as exc:
            log.error("nbayes serve: an update could not be made durable: %s", exc)
            for j, _, _ in done:
                j.future.set_exception(Problem(503, f"the update could not be written to disk ({exc}); nothing was learned"))
            return
        self._base, self._pending, self.durable_version = base, pending, version
        self._peak = peak
        self.total_learned += learned
        self.total_unlearned += unlearned
        if forgot or time.monotonic() >= self._publish_due():  # a quiet service: visible when answered
            self._publish_pending()
        for j, v, n in done:
            answer = {"learned" if j.op == LEARN else "unlearned": n, "version": v}
            if j.visible and v > self.version:
                with self._cond:
                    self._waiters.append((v, j.future, answer))
            else:
                j.future.set_result(answer)

    def _append(self, records: list[_log.Record], deltas: list[Delta], learned: int) -> None:
        """Append the group's records to the log, one fsync (cut back if that fails)."""
        data = b"".join([_log.encode_record(r) for r in records])
        before = self.log_bytes
        try:
            _log.append(self.fd, data)
        except OSError:
            self._terms.discard()
            try:
                os.ftruncate(self.fd, before)
            except OSError:
                self.broken = f"{self.log_path} could not be written nor cut back"
            raise
        self._terms.commit()
        _log.crash_point("appended")
        self.log_bytes += len(data)
        self.records += len(records)
        self.rows_learned += learned
        if self._snap is not None:  # the next log keeps what its snapshot does not hold
            self._since.extend(zip(records, deltas))

    def _publish_pending(self) -> None:
        """Publish the durable versions: the pending deltas added to the model (one new version),
        then the requests waiting for it answered, then a snapshot if one is due."""
        if self._pending:
            try:
                with np.errstate(over="raise", invalid="raise"):
                    new = (labelsets.apply_all if labelsets.applies(self._base)
                           else partial(_delta.apply_all, words=self._terms))(self._base, self._pending)[0]
            except Exception as exc:  # noqa: BLE001 - checked before the answers: a bug; stop learning
                log.exception("nbayes serve: acknowledged updates could not be published")
                self.broken = f"acknowledged updates could not be published ({type(exc).__name__}: {exc})"
                self._answer_waiters()
                return
            self._base, self._pending = new, []
        self.model, self.version = self._base, self.durable_version
        self._last_publish = time.monotonic()
        self._publish(self.model)
        self._answer_waiters()
        if self._snap is None and (self.records >= self.snapshot_every or self.log_bytes >= self.snapshot_bytes):
            self._begin_snapshot(self.model, self.version)

    def _answer_waiters(self) -> None:
        """Answer the requests waiting for a version now published (all of them once learning broke)."""
        with self._cond:
            ready = [x for x in self._waiters if x[0] <= self.version or self.broken is not None]
            self._waiters = [x for x in self._waiters if x not in ready]
        for _, future, answer in ready:
            if self.broken is not None and answer["version"] > self.version:
                future.set_exception(Problem(503, f"learning is stopped: {self.broken} (the update is durable: "
                                                  "a restart replays it)"))
            else:
                future.set_result(answer)

    # ------------------------------------------------------------------ publishing
    def _publish(self, model: Any) -> None:
        cur = self.holder.current
        about = dict(cur.about)
        about["classes"] = [json_value(c) for c in np.asarray(model.classes_).tolist()]
        about["training_rows"] = count(labelsets.training_rows(model))
        new = Loaded(cur.path, model, cur.cli, cur.state_meta, cur.header, cur.signature, cur.loaded_at, about,
                     version=self.version)
        self.holder.current = new  # one reference swap: a request keeps the version it started with
        if self.freeze_gc:
            gc.freeze()

    def status(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "durable_version": self.durable_version,
            "publish_every": self.publish_every,
            "file_version": self.snapshot_version,
            "rows_learned_since_file": self.rows_learned,
            "rows_unlearned_since_file": self.rows_unlearned,
            "rows_learned_since_start": self.total_learned,
            "rows_unlearned_since_start": self.total_unlearned,
            "log": os.path.basename(self.log_path),
            "log_bytes": self.log_bytes,
            "snapshots": self.snapshots,
            "snapshot_running": self._snap is not None,
            "allow_new_classes": self.allow_new_classes,
            "learn": cannot(self.model, LEARN) is None,
            "unlearn": cannot(self.model, UNLEARN) is None,
            "error": self.broken,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }


