"""The update log of ``nbayes serve --learn``: an append-only file beside the model file.

Layout (docs/serve.md)::

    header:  MAGIC (8 bytes) | length (uint32 LE) | CRC-32 of the JSON (uint32 LE) | JSON
             {"snapshot": SHA-256 (hex) of the model file it follows, "version": that file's version}
    record:  length (uint32 LE) | CRC-32 of the payload (uint32 LE) | payload
    payload: version (uint64 LE) | op (uint8, 1 = learn) | rows (uint32 LE) | weight (float64 LE)
             | the statistics of the update (:mod:`._codec`: named arrays, sparse and narrowed)

A record holds counts, never the rows: the statistics of the update over its own classes and
terms (a text's terms and their counts, a row's per-class sums). Records are numbered by the
model version they make, one after the other from the header's version + 1.

Reading stops at the first record that is incomplete or fails its CRC. When nothing valid
follows it, that is a torn final append (a crash mid-append: the record was never acknowledged)
and the service cuts the file there, with a log line. When a valid record follows it
(:func:`later_record`: a frame whose length, version, op and CRC all hold, further on), the
damage is in the middle of acknowledged updates: :func:`read_log` refuses the log, naming the
byte offset, and ``nbayes repair MODEL`` (:mod:`nbayes.serve.updates`) keeps the valid records
before it, copying the whole log aside first. A new log (after a snapshot) is
written aside, fsync'd and renamed over the old one, so a crash leaves one or the other.
The first format (magic ``NBLOG\\0\\0\\1``, each record a model file image) was never
released and is not read.
"""

from __future__ import annotations

import json
import os
import signal
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ModelFileError
from ..io import model_file

MAGIC = b"NBLOG\x00\x00\x02"
#: the first format's magic (each record a model file image): never released, refused by name
MAGIC_V1 = b"NBLOG\x00\x00\x01"
_HEAD = struct.Struct("<8sII")
_FRAME = struct.Struct("<II")
_RECORD = struct.Struct("<QBId")
OP_LEARN = 1
#: a record larger than this is corruption, not an update (the request body limit is far below)
MAX_RECORD = 1 << 31


@dataclass(frozen=True)
class Record:
    version: int
    op: int
    rows: int
    weight: float
    body: bytes | memoryview  # the update's statistics (:mod:`._codec`)


def log_path(model_path: str) -> str:
    return os.fspath(model_path) + ".log"


def file_checksum(path: str) -> str:
    """The model file's own SHA-256 (its last 32 bytes, verified when it was loaded), in hex."""
    with open(path, "rb") as f:
        f.seek(-32, os.SEEK_END)
        return f.read(32).hex()


def encode_record(r: Record) -> bytes:
    payload = _RECORD.pack(r.version, r.op, r.rows, r.weight) + bytes(r.body)
    return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def encode_header(snapshot: str, version: int) -> bytes:
    head = json.dumps({"snapshot": snapshot, "version": int(version)}, separators=(",", ":")).encode()
    return _HEAD.pack(MAGIC, len(head), zlib.crc32(head)) + head


class LogDamagedError(ModelFileError):
    """A record of the update log fails its check and valid records follow it: corruption of
    acknowledged updates, not a torn append (``nbayes repair``)."""

    def __init__(self, path: str, at: int, later: tuple[int, int], kept: int) -> None:
        self.path, self.at, self.later, self.kept = path, at, later, kept
        model = path[:-4] if path.endswith(".log") else path
        super().__init__(
            f"{path} is damaged at byte {at}: the record there fails its check, and a valid record follows it "
            f"(version {later[1]} at byte {later[0]}), so this is corruption of acknowledged updates, not an "
            f"interrupted append, and nothing was cut. `nbayes repair {model}` copies the log aside, keeps the "
            f"{kept} valid record(s) before byte {at} and reports what it drops")


def read_log(path: str, *, damaged_ok: bool = False) -> tuple[dict[str, Any], list[Record], int, int]:
    """(header, the complete records, the byte length they end at, the file's length). A bad
    header is a ModelFileError: the log is written whole by a rename, so it is damage. A damaged
    record followed by a valid one is a :class:`LogDamagedError` (unless ``damaged_ok``)."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:8] == MAGIC_V1:
        raise ModelFileError(f"{path}: an update log of an earlier, unreleased format (records as model file "
                             "images); this nbayes does not read it: move it away to start from the model file")
    if len(raw) < _HEAD.size or raw[:8] != MAGIC:
        raise ModelFileError(f"{path}: not an nbayes update log (bad magic bytes)")
    _, n, crc = _HEAD.unpack_from(raw)
    head = raw[_HEAD.size:_HEAD.size + n]
    if len(head) != n or zlib.crc32(head) != crc:
        raise ModelFileError(f"{path}: the update log's header is damaged (CRC mismatch)")
    try:
        header = json.loads(head)
    except ValueError:
        header = None
    if not isinstance(header, dict) or not isinstance(header.get("version"), int) or not isinstance(header.get("snapshot"), str):
        raise ModelFileError(f"{path}: the update log's header is damaged (not the expected JSON)")
    records, end = list(_records(raw, _HEAD.size + n)), _HEAD.size + n
    for r in records:
        end += _FRAME.size + _RECORD.size + len(r.body)
    if end < len(raw) and not damaged_ok:
        later = later_record(raw, end, records[-1].version if records else int(header["version"]))
        if later is not None:
            raise LogDamagedError(path, end, later, len(records))
    return header, records, end, len(raw)


def later_record(raw: bytes, start: int, after: int) -> tuple[int, int] | None:
    """(offset, version) of the first valid record beginning after byte ``start`` of the log
    ``raw`` whose version is above ``after``; None if there is none (a torn tail). Candidates
    are found by numpy over every offset (a plausible length, version and op), then checked by
    their CRC."""
    size = len(raw)
    last = size - _FRAME.size - _RECORD.size  # the last offset a record can begin at
    step = 1 << 22  # (offsets per pass)
    for c0 in range(start + 1, last + 1, step):
        m = min(step, last + 1 - c0)
        op = np.ndarray((m,), dtype=np.uint8, buffer=raw, offset=c0 + _FRAME.size + 8, strides=(1,))
        idx = np.flatnonzero(op == OP_LEARN)  # (views of the bytes at every offset: no copies)
        n = np.ndarray((m,), dtype="<u4", buffer=raw, offset=c0, strides=(1,))[idx].astype(np.int64)
        version = np.ndarray((m,), dtype="<u8", buffer=raw, offset=c0 + _FRAME.size, strides=(1,))[idx]
        ok = (n >= _RECORD.size) & (n <= MAX_RECORD) & (c0 + idx + _FRAME.size + n <= size)
        ok &= (version > after) & (version <= after + size)
        for q in idx[ok].tolist():
            q += c0
            k, crc = _FRAME.unpack_from(raw, q)
            if zlib.crc32(memoryview(raw)[q + _FRAME.size:q + _FRAME.size + k]) == crc:
                return q, int(_RECORD.unpack_from(raw, q + _FRAME.size)[0])
    return None


def _records(data: bytes, at: int) -> Iterator[Record]:
    raw = memoryview(data)  # records are views into the file's bytes, not copies
    while at + _FRAME.size <= len(raw):
        n, crc = _FRAME.unpack_from(raw, at)
        if n < _RECORD.size or n > MAX_RECORD or at + _FRAME.size + n > len(raw):
            return  # a torn tail
        payload = raw[at + _FRAME.size:at + _FRAME.size + n]
        if zlib.crc32(payload) != crc:
            return
        version, op, rows, weight = _RECORD.unpack_from(payload)
        yield Record(version, op, rows, weight, payload[_RECORD.size:])
        at += _FRAME.size + n


def write_new(path: str, snapshot: str, version: int, records: list[bytes] | None = None) -> None:
    """Write a log (header and ``records``) aside, fsync it, rename it over ``path``, fsync the
    folder: afterwards the old log is gone, before it the old log is whole."""
    replace_file(path, encode_header(snapshot, version) + b"".join(records or []), "log-written")


def snapshot_tmp(model_path: str) -> str:
    """The service's own temporary name for a snapshot of ``model_path`` (removed at start, so
    a crash mid-snapshot leaves no copy of statistics that a later unlearn removes)."""
    return os.fspath(model_path) + ".snapshot.tmp"


def replace_file(path: str, data: bytes, point: str, tmp: str | None = None) -> None:
    """``data`` to ``tmp`` (default ``path + ".tmp"``), fsync, rename over ``path``, fsync the folder."""
    tmp = tmp or path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    crash_point(point)
    os.replace(tmp, path)
    fsync_dir(path)


def truncate(path: str, length: int) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, length)
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def append(fd: int, data: bytes) -> None:
    """Append and fsync (one fsync for every record of a group)."""
    if os.environ.get("NBAYES_SERVE_CRASH_AT") == "mid-append" and len(data) > 1:
        _write_all(fd, data[: len(data) // 2])
        os.fsync(fd)
        crash_point("mid-append")
    _write_all(fd, data)
    os.fdatasync(fd) if hasattr(os, "fdatasync") else os.fsync(fd)


def fsync_dir(path: str) -> None:
    """fsync the folder of ``path`` (after a rename in it)."""
    model_file.fsync_dir(os.path.dirname(os.path.abspath(path)))


def crash_point(name: str) -> None:
    """A test hook: ``NBAYES_SERVE_CRASH_AT=name`` kills the process (SIGKILL) right here, to test
    recovery at that instant. Points: mid-append, appended, snapshot-written (before its rename),
    snapshot-saved, log-written (before its rename)."""
    if os.environ.get("NBAYES_SERVE_CRASH_AT") == name:
        os.kill(os.getpid(), signal.SIGKILL)
