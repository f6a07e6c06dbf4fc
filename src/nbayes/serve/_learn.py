"""Learning and forgetting in ``nbayes serve --learn``: one authoritative model, updated by one
writer thread, made durable by the update log (:mod:`._log`) before any answer.

- A learn request is turned into statistics (a :class:`~._delta.Delta`) by the request itself,
  with the model's own hooks (``prepare_input``, ``count_statistics``; :mod:`._requests`, with
  the checks and answers of refused requests): tokenising and counting happen outside the
  writer. The writer adds a group's deltas into new arrays
  (:func:`._delta.apply`: copy-on-write, the served version is never touched): a text model's
  parameters are updated where the group touches them (:func:`nbayes.text.online.add_counts`),
  other models estimate theirs once per group. An unlearn is ``stats_.subtract`` then
  ``set_statistics`` on a copy. Readers keep the model they started with; the new version replaces it whole.
- Group commit: the writer thread takes every update waiting, applies them in order (the
  learns of a run summed into one record), appends the records and fsyncs once, then publishes
  the new version and answers each request. Group publish: a group starts no sooner than
  ``window`` (20 ms) after the last one started, so a busy writer makes at most one version per
  window whatever the rate of requests. It can also pace itself (``pace``: docs/serve.md).
- Forgetting: a group holding an unlearn is not logged; the model file is rewritten (a
  snapshot) and the log emptied before the answer, so no record of the forgotten rows remains.
- Snapshots also every ``snapshot_every`` records or ``snapshot_bytes`` of log, written from an
  immutable version by a background thread while learning goes on; the writer then starts a
  new log after it holding the records made meanwhile. A snapshot's file records its version
  and the checksum of the file before it, so a crash between writing the file and replacing
  the log is recognised at start.
"""

from __future__ import annotations

import concurrent.futures
import gc
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import encode_labels
from ..errors import ModelFileError, NBayesError
from ..io.info import count, json_value
from ..io.model_file import state_to_bytes
from . import _delta, _log
from . import _labelsets as labelsets
from ._delta import Delta
from ._model import Loaded, ModelHolder, Problem, log
from ._records import LogTerms, read_deltas, replay
from ._requests import LEARN, UNLEARN, cannot, counted, refused, unknown_label, without_rows

#: the shortest time (s) between the starts of two groups of updates (group publish; docs/serve.md)
WINDOW = 0.02


@dataclass
class Job:
    op: str
    X: Any  # a learn: its Delta (counted by the request); an unlearn: the rows
    y: list[Any]
    w: list[float] | None
    future: concurrent.futures.Future[dict[str, Any]] = field(default_factory=concurrent.futures.Future)


# ---------------------------------------------------------------------------- the learner
class Learner:
    """The one model that learns: recovers it from the file and its log at start, applies
    updates in a writer thread, answers once they are durable."""

    def __init__(self, holder: ModelHolder, *, allow_new_classes: bool = False, snapshot_every: int = 10_000,
                 snapshot_bytes: int = 256 << 20, freeze_gc: bool = False, pace: float = 0.0,
                 max_pause: float = 0.05, window: float = WINDOW) -> None:
        self.holder = holder
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
        # a snapshot in the background: its thread, (version, sha) once its file is in place
        # (or an exception), and the records (and their deltas) appended meanwhile
        self._snap: threading.Thread | None = None
        self._snap_done: tuple[int, str] | BaseException | None = None
        self._since: list[tuple[_log.Record, Delta]] = []

    # ------------------------------------------------------------------ start
    def _recover(self, model: Any, parent: str | None) -> tuple[Any, int]:
        path = self.log_path
        for stale in (path + ".tmp", _log.snapshot_tmp(self.path)):  # what a crash left before a rename
            try:
                os.unlink(stale)
            except FileNotFoundError:
                pass
        self._terms = LogTerms()
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
            rewrite = True  # the snapshot was written, the crash came before the log was replaced
        else:
            raise ModelFileError(
                f"{path}: this update log belongs to another model file (it follows snapshot {str(follows)[:12]}..., "
                f"{self.path} is {self.sha[:12]}...); move it away if {self.path} was replaced on purpose"
            )
        expected = base + 1
        for r in records:
            if r.version != expected:
                raise ModelFileError(f"{path}: record for version {r.version} where version {expected} was expected")
            expected += 1
        skip = sum(1 for r in records if r.version <= self.version)  # held by the file already
        kept = records[skip:]
        model, words = replay(model, [r.body for r in records], skip, path)
        self._terms = LogTerms(words)
        if kept:
            self.version = kept[-1].version
            self.rows_learned = sum(r.rows for r in kept)
        self.records = len(kept)
        if rewrite:  # the records the file does not hold, in a log after it (numbering its terms anew)
            deltas = read_deltas(model, [r.body for r in records], path)[skip:]
            self._terms = LogTerms()
            frames = [_log.encode_record(_log.Record(r.version, r.op, r.rows, r.weight, self._terms.body(d)))
                      for r, d in zip(kept, deltas)]
            self._terms.commit()
            _log.write_new(path, self.sha, self.snapshot_version, frames)
        elif end < size:
            log.warning("nbayes serve: %s ends with %d bytes of an update that was never acknowledged; cut", path, size - end)
            _log.truncate(path, end)
        return model, len(kept)

    # ------------------------------------------------------------------ requests
    def count(self, X: Any, y: list[Any], w: list[float] | None) -> Delta:
        """A learn request's statistics, counted by the caller's thread with the served model's
        settings (the same in every version)."""
        return counted(self.holder.current.model, X, y, w)

    def submit(self, op: str, X: Any, y: list[Any], w: list[float] | None) -> concurrent.futures.Future[dict[str, Any]]:
        """Queue an update (a learn: its :class:`Delta` as ``X``, or the rows, counted here)."""
        if op == LEARN and not isinstance(X, Delta):
            X = self.count(X, y, w)
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
        self._end_snapshot(wait=True)
        try:
            os.close(self.fd)
        except OSError:
            pass

    def _run(self) -> None:
        ready_at = 0.0  # pacing, window: the next group starts no sooner (the updates arriving meanwhile join it)
        while True:
            with self._cond:
                while not self._queue and not self._stopping and self._snap_done is None:
                    self._cond.wait()
                while self._queue and not self._stopping and (left := ready_at - time.monotonic()) > 0:
                    self._cond.wait(left)
                jobs, self._queue = self._queue, []
                if not jobs and self._stopping:
                    return
            self._end_snapshot(wait=False)
            if not jobs:
                continue
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
        self._terms.discard()
        done: list[tuple[Job, int, int]] = []  # (job, version, rows)
        records: list[_log.Record] = []
        deltas: list[Delta] = []  # of the records
        run: list[Job] = []  # learns not yet applied
        forgot = False
        learned = unlearned = 0

        def commit(items: list[Job]) -> None:
            """Add the deltas of ``items`` to ``work`` as one record (raises, changing nothing)."""
            nonlocal work, version, learned
            new, delta = (labelsets.apply_all if labelsets.applies(work) else _delta.apply_all)(work, [j.X for j in items])
            body = self._terms.body(delta)
            work, version = new, version + 1
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
                        _, unknown = encode_labels(d.classes, work.classes_)
                        if unknown.any() and isinstance(d, labelsets.LabelSetDelta):
                            labelsets.unknown_label(work.classes_, d.sets, learn=True)
                        if unknown.any():
                            labels = d.labels if d.labels is not None else d.classes
                            raise Problem(422, unknown_label(labels, work.classes_, learn=True))
                    run.append(job)
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
                job.future.set_exception(refused(exc, job.op))
        flush()
        if not done:
            return
        try:
            if forgot:
                self._end_snapshot(wait=True)
                self._snapshot(work, version)  # no record of the forgotten rows is left on disk
            else:
                frames = [_log.encode_record(r) for r in records]
                data = b"".join(frames)
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
        if (not forgot and self._snap is None
                and (self.records >= self.snapshot_every or self.log_bytes >= self.snapshot_bytes)):
            self._begin_snapshot(work, version)

    # ------------------------------------------------------------------ snapshots
    def _image(self, model: Any, version: int, follows: str) -> bytes:
        """The model file image of ``model`` at ``version`` (its meta: the version and the file it follows)."""
        state = model.to_state()
        meta = dict(self.meta)
        cli = dict(meta.get("cli") or {})
        cli.pop("rows", None)  # the training rows are the statistics' now
        if cli:
            meta["cli"] = cli
        meta.update(state["meta"])
        meta["serve"] = {"version": int(version), "follows": follows}
        state["meta"] = meta
        return state_to_bytes(state)  # the model file format, as model.save writes it

    def _write_file(self, model: Any, version: int, follows: str) -> str:
        """Write the model file atomically (after the file ``follows``); its SHA-256 (hex)."""
        image = self._image(model, version, follows)
        _log.replace_file(self.path, image, "snapshot-written", _log.snapshot_tmp(self.path))
        _log.crash_point("snapshot-saved")
        return image[-32:].hex()

    def _new_log(self, sha: str, version: int, frames: list[bytes], rows: int) -> None:
        """Replace the log by one after the file ``sha`` (at ``version``) holding ``frames``."""
        try:
            _log.write_new(self.log_path, sha, version, frames)
            fd = os.open(self.log_path, os.O_WRONLY | os.O_APPEND)
        except OSError as exc:
            self.broken = f"the model file was written but its new log could not be ({exc})"
            raise
        os.close(self.fd)
        self.fd = fd
        self.sha, self.snapshot_version = sha, int(version)
        self.log_bytes = os.fstat(fd).st_size
        self.records = len(frames)
        self.rows_learned, self.rows_unlearned = rows, 0
        self.snapshots += 1

    def _snapshot(self, model: Any, version: int) -> None:
        """Write the model file (atomically, its version and the file it follows inside), then
        a new empty log after it. A crash between the two is recognised at start (the old log
        follows the file this one follows)."""
        self._new_log(self._write_file(model, version, self.sha), version, [], 0)
        self._terms = LogTerms()

    def _begin_snapshot(self, model: Any, version: int) -> None:
        """Write the file of ``model`` (an immutable version) in a background thread; the writer
        replaces the log once it is in place (:meth:`_end_snapshot`)."""
        self._since = []
        follows = self.sha

        def write() -> None:
            try:
                result: tuple[int, str] | BaseException = (version, self._write_file(model, version, follows))
            except BaseException as exc:  # noqa: BLE001 - reported to the writer
                result = exc
            with self._cond:
                self._snap_done = result
                self._cond.notify()

        self._snap = threading.Thread(target=write, name="nbayes-snapshot", daemon=True)
        self._snap.start()

    def _end_snapshot(self, wait: bool) -> None:
        """In the writer: once the background snapshot's file is in place, the new log after it
        (holding the records appended meanwhile). ``wait``: wait for the file first."""
        snap = self._snap
        if snap is None or (not wait and self._snap_done is None):
            return
        snap.join()
        with self._cond:
            result, self._snap_done = self._snap_done, None
        try:
            self._after_snapshot(result)
        finally:  # (after the new log: /v1/model never shows no snapshot running and none made)
            self._snap = None

    def _after_snapshot(self, result: tuple[int, str] | BaseException | None) -> None:
        since, self._since = self._since, []
        if isinstance(result, BaseException) or result is None:
            log.error("nbayes serve: a snapshot failed (the log keeps the updates): %s", result)
            return
        version, sha = result
        later = [(r, d) for r, d in since if r.version > version]
        terms = LogTerms()  # the new log numbers its terms anew
        frames = [_log.encode_record(_log.Record(r.version, r.op, r.rows, r.weight, terms.body(d))) for r, d in later]
        terms.commit()
        try:
            self._new_log(sha, version, frames, sum(r.rows for r, _ in later))
        except OSError as exc:  # the start recognises the old log after the new file
            log.error("nbayes serve: the log after a snapshot could not be written: %s", exc)
            return
        self._terms = terms

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

