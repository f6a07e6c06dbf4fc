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

Reading stops at the first record that is incomplete or fails its CRC (a crash mid-append: the
record was never acknowledged) and the file is cut there. A new log (after a snapshot) is
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


def read_log(path: str) -> tuple[dict[str, Any], list[Record], int, int]:
    """(header, the complete records, the byte length they end at, the file's length). A bad
    header is a ModelFileError: the log is written whole by a rename, so it is damage."""
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
    return header, records, end, len(raw)


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
