"""The update log beside a model file, from outside a learning service.

A learning service (``nbayes serve MODEL --learn``) acknowledges an update once it is in
``MODEL.log``; the model file catches up at its snapshots and at its clean stop. Until then, or
after a crash, the log holds updates the file lacks. This module reads that state:

- :func:`pending`: what the log holds that the file lacks (and whether it is damaged);
- :func:`with_updates` (what ``nbayes.load`` calls when a log is there): the model of the file,
  with a :class:`~nbayes.errors.StaleModelWarning` when the log holds updates the file lacks, or
  with them replayed (``replay=True``);
- :func:`snapshot` (``nbayes snapshot MODEL``): the file rewritten with every update of its log,
  and the log emptied, exactly as the service's own snapshot (it takes the writer's lock);
- :func:`repair` (``nbayes repair MODEL``): a log damaged in the middle copied aside and cut back to
  its valid records, with a report of what was dropped.
"""

from __future__ import annotations

import os
import time
import warnings
from dataclasses import dataclass
from typing import Any

from ..errors import ModelFileError, StaleModelWarning
from ..io import load as _io_load
from . import _log
from ._learn import Learner
from ._lock import WriterLock
from ._model import ModelHolder
from ._records import replay as replay_records

__all__ = ["Pending", "pending", "with_updates", "snapshot", "repair"]


@dataclass(frozen=True)
class Pending:
    """What the update log beside a model file holds that the file lacks."""

    log: str
    file_version: int
    #: the records the file lacks, their versions and rows
    records: int = 0
    first: int = 0
    last: int = 0
    rows: int = 0
    #: why the log cannot be replayed (damaged, another file's), or None
    problem: str | None = None

    def message(self, path: str) -> str | None:
        """One line for a warning (None when the file holds everything)."""
        if self.problem is not None:
            return f"{path}: the update log beside it cannot be read ({self.problem})"
        if not self.records:
            return None
        span = f"version {self.last}" if self.first == self.last else f"versions {self.first}-{self.last}"
        return (f"{path} is version {self.file_version}, but {self.log} holds {self.records} acknowledged update(s) "
                f"it lacks ({span}, {self.rows} row(s)): a learning service has not written them into the file yet. "
                f"nbayes.load(path, replay=True) or --replay adds them; `nbayes snapshot {path}` writes them into the file")


def _file_version(state: dict[str, Any]) -> tuple[int, str | None]:
    serve = (state.get("meta") or {}).get("serve") or {}
    return int(serve.get("version", 0)), serve.get("follows")


def _read(path: str, state: dict[str, Any]) -> tuple[Pending, list[_log.Record], int] | None:
    """(what the log lacks, its records, how many of them the file holds), None without a log."""
    log = _log.log_path(path)
    if not os.path.exists(log):
        return None
    version, parent = _file_version(state)
    try:
        header, records, _, _ = _log.read_log(log)
    except ModelFileError as exc:
        return Pending(log, version, problem=str(exc)), [], 0
    if header["snapshot"] not in (_log.file_checksum(path), parent):
        return Pending(log, version, problem=f"it follows another model file (snapshot {str(header['snapshot'])[:12]}...)"), [], 0
    expected = int(header["version"]) + 1
    for r in records:
        if r.version != expected:
            return Pending(log, version, problem=f"record for version {r.version} where {expected} was expected"), [], 0
        expected += 1
    skip = sum(1 for r in records if r.version <= version)
    kept = records[skip:]
    if not kept:
        return Pending(log, version), records, skip
    return Pending(log, version, len(kept), kept[0].version, kept[-1].version, sum(r.rows for r in kept)), records, skip


def pending(path: str | os.PathLike[str]) -> Pending | None:
    """What the update log beside the model file ``path`` holds that the file lacks (None: no log)."""
    _, state = _io_load.load_with_state(path, replay=None)
    found = _read(os.fspath(path), state)
    return None if found is None else found[0]


def with_updates(path: str, model: Any, state: dict[str, Any], replay: bool) -> Any:
    """``model`` (of the file ``path``, its verified ``state``), and the updates of the log beside
    it that it lacks: a :class:`~nbayes.errors.StaleModelWarning` naming them, or (``replay``)
    them added. What :func:`nbayes.load` calls when the file has a log beside it."""
    found = _read(path, state)
    if found is None:
        return model
    info, records, skip = found
    message = info.message(path)
    if message is None:
        return model
    if not replay:
        # (the caller of nbayes.load: here, io.load.load_with_state, io.load.load, then it)
        warnings.warn(message, StaleModelWarning, stacklevel=4)
        return model
    if info.problem is not None:
        raise ModelFileError(message)
    model = replay_records(model, [r.body for r in records], skip, info.log)[0]
    # the state's metadata as a snapshot would write it (what `nbayes info` shows: rows, version)
    meta = dict(state.get("meta") or {})
    cli = dict(meta.pop("cli", None) or {})
    cli.pop("rows", None)  # the training rows are the statistics' now
    meta.update(model.to_state()["meta"])
    if cli:
        meta["cli"] = cli
    meta["serve"] = {"version": info.last, "follows": (meta.get("serve") or {}).get("follows")}
    state["meta"] = meta
    return model


def snapshot(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Write every update of the log beside the model file ``path`` into the file (atomically)
    and empty the log, as a learning service's snapshot does; refused (ModelLockedError) while a
    service or another writer holds the file. ``{"snapshot": written, "version": v,
    "replayed": n}``."""
    if not os.path.exists(_log.log_path(os.fspath(path))):
        _, state = _io_load.load_with_state(path, replay=None)
        return {"snapshot": False, "version": _file_version(state)[0], "file_version": _file_version(state)[0],
                "replayed": 0}
    learner = Learner(ModelHolder(os.fspath(path), replay=None))  # takes the lock, replays the log (a damaged one refuses)
    replayed = learner.replayed
    try:
        result = learner.snapshot_now()
    finally:
        learner.stop()
    result["replayed"] = replayed
    return result


def repair(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Cut the update log beside the model file ``path`` back to its valid records before the
    first damaged one, after copying the whole log aside (``MODEL.log.damaged-<time>``). The
    report: the records kept (and their versions), the byte where the damage starts, the bytes
    dropped and the versions of the valid records found after the damage (lost: each update
    builds on the ones before it). A log whose header is damaged is copied aside and replaced by
    an empty log after the model file (every record dropped)."""
    path = os.fspath(path)
    log = _log.log_path(path)
    with WriterLock(path, "nbayes repair"):
        if not os.path.exists(log):
            return {"log": log, "repaired": False, "reason": "there is no update log"}
        with open(log, "rb") as f:
            raw = f.read()
        try:
            header, records, end, size = _log.read_log(log, damaged_ok=True)
        except ModelFileError as exc:  # the header: nothing in the log can be trusted to follow the file
            _, state = _io_load.load_with_state(path, replay=None)
            aside = _aside(log, raw)
            _log.write_new(log, _log.file_checksum(path), _file_version(state)[0])
            return {"log": log, "repaired": True, "copy": aside, "kept": 0, "damaged_at": 0, "dropped_bytes": len(raw),
                    "reason": str(exc), "lost_versions": []}
        if end == size:
            return {"log": log, "repaired": False, "reason": "the log is whole", "kept": len(records)}
        lost = []
        at, after = end, records[-1].version if records else int(header["version"])
        while (found := _log.later_record(raw, at, after)) is not None:
            lost.append(found[1])
            at, after = found
        aside = _aside(log, raw)
        _log.replace_file(log, raw[:end], "log-written")
        return {"log": log, "repaired": True, "copy": aside, "kept": len(records),
                "kept_versions": [records[0].version, records[-1].version] if records else [],
                "damaged_at": end, "dropped_bytes": size - end, "lost_versions": lost}


def _aside(log: str, raw: bytes) -> str:
    """A copy of the log's bytes beside it (fsync'd), its name."""
    aside = f"{log}.damaged-{time.strftime('%Y%m%dT%H%M%S')}"
    n = 1
    while os.path.exists(aside):
        aside = f"{log}.damaged-{time.strftime('%Y%m%dT%H%M%S')}-{n}"
        n += 1
    with open(aside, "xb") as f:
        f.write(raw)
        f.flush()
        os.fsync(f.fileno())
    _log.fsync_dir(aside)
    return aside
