"""Snapshots of ``nbayes serve --learn`` (a part of :class:`._learn.Learner`): the model file
rewritten atomically from a published version (its version and the checksum of the file
before it inside), then a new log after it.

- Before an unlearn's answer (:meth:`Snapshots._snapshot`, in the writer): the file, then an
  empty log, so no record of the forgotten rows remains.
- Every ``snapshot_every`` records or ``snapshot_bytes`` of log (:meth:`Snapshots._begin_snapshot`):
  the file is written by a background thread from an immutable published version whose log
  position matches (nothing logged after it unapplied), while learning goes on; the writer then
  starts a new log after it holding the records made meanwhile (:meth:`Snapshots._end_snapshot`).

A crash between writing the file and replacing the log is recognised at start (the old log
follows the file the new one follows: :meth:`Snapshots._recover`, which also replays the log).
A clean stop and ``POST /v1/snapshot`` write one now (:meth:`Snapshots.snapshot_now`).
"""

from __future__ import annotations

import os
import threading
from typing import Any

from ..errors import ModelFileError
from .._estimator import rebuild
from ..io.model_file import state_to_bytes
from . import _log
from ._delta import Delta
from ._model import log
from ._records import LogTerms, read_deltas, replay


class Snapshots:
    """The snapshot half of the learner (its state is the learner's)."""

    path: str
    log_path: str
    meta: dict[str, Any]
    sha: str
    snapshot_version: int
    fd: int
    log_bytes: int
    records: int
    rows_learned: int
    rows_unlearned: int
    snapshots: int
    broken: str | None
    version: int
    durable_version: int
    model: Any
    _terms: LogTerms
    _cond: threading.Condition
    _snap: threading.Thread | None
    _snap_done: tuple[int, str] | BaseException | None
    _since: list[tuple[_log.Record, Delta]]

    def _publish_pending(self) -> None:  # (the learner's)
        raise NotImplementedError

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
        # the model file format, read back and checked as model.save checks it (a snapshot
        # never writes what load refuses: a ModelFileError leaves the file and the log as they are)
        return state_to_bytes(state, rebuild(model), f"{self.path} (snapshot at version {version})")

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
        """Write the file of ``model`` (an immutable version holding every record logged) in a
        background thread; the writer replaces the log once it is in place (:meth:`_end_snapshot`)."""
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

    def snapshot_now(self) -> dict[str, Any]:
        """Write the model file now if the log holds updates it lacks (``POST /v1/snapshot``,
        and at stop); the writer must be idle (stopped, or called in its thread)."""
        if self.broken is not None:
            raise ModelFileError(f"learning is stopped: {self.broken}; the log keeps the updates")
        if self.version < self.durable_version:
            self._publish_pending()
        written = self.durable_version > self.snapshot_version or self.records > 0
        if written:
            self._end_snapshot(wait=True)
            self._snapshot(self.model, self.version)
            log.info("nbayes serve: snapshot: %s holds version %d", self.path, self.version)
        return {"snapshot": written, "version": self.version, "file_version": self.snapshot_version}

    # ------------------------------------------------------------------ start (recovery)
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
