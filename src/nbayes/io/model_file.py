"""The nbayes model file: versioned, checksummed, pickle-free, written atomically.

Layout (docs/model-format.md)::

    MAGIC (8 bytes) | format version (uint32 LE) | header length (uint64 LE)
    | header (UTF-8 JSON) | payload (raw little-endian arrays, 8-byte aligned)
    | SHA-256 of every byte before it (32 bytes)

The header holds the model kind, hyperparameters, metadata and a table of arrays. Numeric
arrays live in the payload; label arrays (class names, category values) live in the header as
typed JSON. Loading verifies size, magic, version and checksum before it parses anything, and
builds arrays only with ``numpy.frombuffer`` of whitelisted dtypes: no pickle, no code.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import struct
import tempfile
from typing import Any, Callable

import numpy as np

from .._estimator import rebuild
from ..errors import DataError, ModelFileError

__all__ = [
    "FORMAT_VERSION", "MAGIC", "save_model", "save_state", "load_state", "read_header", "encode_params", "decode_params",
    "state_to_bytes", "state_from_bytes",
]

FORMAT_VERSION = 3  # 2: text statistics as (class, term) pairs; 3: binned columns (docs/model-format.md)


def file_version(arrays: Any) -> int:
    """The lowest format that holds these arrays: 3 for a model with binned columns (a reader of
    format 2 would drop them from its predictions without a word), else 2."""
    return 3 if any("part/binned/" in name for name in arrays) else 2
MAGIC = b"NBAYES\x00\x01"
_PREFIX = struct.Struct("<8sIQ")  # magic, version, header length
_DIGEST = 32
_NUMERIC = {
    "|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f4", "<f8",
}


# ----------------------------------------------------------------------------- encoding
def encode_scalar(v: Any, where: str) -> Any:
    """A label element as a tagged JSON value that keeps its Python type."""
    if v is None:
        return ["none", None]
    if isinstance(v, bool | np.bool_):
        return ["bool", bool(v)]
    if isinstance(v, int | np.integer):
        return ["int", int(v)]
    if isinstance(v, float | np.floating):
        f = float(v)
        return ["float", f if math.isfinite(f) else repr(f)]
    if isinstance(v, str | np.str_):
        return ["str", str(v)]
    raise DataError(f"{where}: cannot store a value of type {type(v).__name__} ({v!r}) in a model file")


def decode_scalar(tagged: Any) -> Any:
    """The value :func:`encode_scalar` tagged, with its Python type."""
    tag, value = tagged
    if tag == "none":
        return None
    if tag == "bool":
        return bool(value)
    if tag == "int":
        return int(value)
    if tag == "float":
        return float(value)
    if tag == "str":
        return str(value)
    raise ValueError(f"unknown value tag {tag!r}")


def _json_value(v: Any, where: str) -> Any:
    """Hyperparameters and metadata: JSON, with numpy arrays and non-finite floats tagged."""
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "biuf":
            return {"__ndarray__": v.dtype.str, "shape": list(v.shape), "data": [_json_value(x, where) for x in v.ravel().tolist()]}
        return {"__labels__": [encode_scalar(x, where) for x in v.ravel().tolist()]}
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return {"__float__": repr(v)}
    if isinstance(v, dict):
        return {"__dict__": [[_json_value(k, where), _json_value(x, where)] for k, x in v.items()]}
    if isinstance(v, list | tuple):
        return [_json_value(x, where) for x in v]
    if v is None or isinstance(v, bool | int | float | str):
        return v
    raise DataError(f"{where}: cannot store a value of type {type(v).__name__} in a model file")


def _from_json(v: Any) -> Any:
    if isinstance(v, list):
        return [_from_json(x) for x in v]
    if isinstance(v, dict):
        if "__ndarray__" in v:
            dt = v["__ndarray__"]
            if dt not in _NUMERIC:
                raise ValueError(f"dtype {dt!r} is not allowed")
            return np.array([_from_json(x) for x in v["data"]], dtype=np.dtype(dt)).reshape(v["shape"])
        if "__labels__" in v:
            return _label_array([decode_scalar(x) for x in v["__labels__"]], "object")
        if "__float__" in v:
            return float(v["__float__"])
        if "__dict__" in v:
            return {_hashable(_from_json(k)): _from_json(x) for k, x in v["__dict__"]}
        return {k: _from_json(x) for k, x in v.items()}
    return v


def _hashable(v: Any) -> Any:
    return tuple(v) if isinstance(v, list) else v


def _label_array(values: list[Any], kind: str) -> np.ndarray:
    if kind == "str":
        return np.array(values, dtype=str) if values else np.array([], dtype="<U1")
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _serialise(state: dict[str, Any]) -> list[Any]:
    """The file's parts in order (prefix + header bytes, then each array's raw bytes and its
    padding), without copying the arrays: a model of hundreds of MB is written, and hashed, piece
    by piece."""
    for key in ("kind", "params", "meta", "arrays"):
        if key not in state:
            raise DataError(f"model state lacks {key!r}")
    table: dict[str, Any] = {}
    blobs: list[Any] = []
    offset = 0
    for name, arr in state["arrays"].items():
        arr = np.asarray(arr)
        if arr.dtype.kind in "biuf":
            raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
            data = raw.reshape(-1).view(np.uint8).data if raw.size else memoryview(b"")
            dt = arr.dtype.newbyteorder("<").str if arr.dtype.itemsize > 1 else arr.dtype.str
            table[name] = {"dtype": dt, "shape": list(arr.shape), "offset": offset, "nbytes": data.nbytes}
            pad = (-data.nbytes) % 8
            blobs.append(data)
            blobs.append(b"\0" * pad)
            offset += data.nbytes + pad
        elif arr.dtype.kind in "UO" and arr.ndim == 1:
            kind = "str" if arr.dtype.kind == "U" else "object"
            table[name] = {"labels": kind, "values": [encode_scalar(v, f"array {name!r}") for v in arr.tolist()]}
        else:
            raise DataError(f"array {name!r}: dtype {arr.dtype} with shape {arr.shape} cannot be stored")
    try:
        from importlib.metadata import version

        nbayes_version = version("nbayes")
    except Exception:  # noqa: BLE001 - metadata absent in a source tree
        nbayes_version = None
    header = {
        "format_version": file_version(state["arrays"]),
        "nbayes_version": nbayes_version,
        "kind": state["kind"],
        "params": _json_value(state["params"], "params"),
        "meta": _json_value(state["meta"], "meta"),
        "arrays": table,
    }
    head = json.dumps(header, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return [_PREFIX.pack(MAGIC, header["format_version"], len(head)) + head, *blobs]


# ----------------------------------------------------------------------------- files
def save_state(path: str | os.PathLike[str], state: dict[str, Any],
               build: Callable[[dict[str, Any]], Any] | None = None) -> None:
    """Write ``state`` to ``path`` atomically: a crash mid-save leaves the old file intact.

    ``build`` (the model class's own ``from_state``, nested kinds with their inner builders):
    the serialised bytes are parsed back with the file reader and built before anything is
    written, so ``save`` never writes what ``load`` refuses (a ModelFileError instead)."""
    parts = _serialise(state)  # a serialisation error writes nothing
    name = os.fsdecode(os.fspath(path)) if isinstance(path, str | bytes | os.PathLike) else repr(path)
    if build is not None:
        _loads_back(parts, name, build, keep=False)
    path, folder = _target(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".nbayes-", suffix=".tmp")
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot save, cannot write in folder {folder!r} ({exc.strerror})") from None
    try:
        digest = hashlib.sha256()
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                digest.update(part)
                f.write(part)
            f.write(digest.digest())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):  # a full disk, a path turned into a folder meanwhile
            raise ModelFileError(f"{path}: cannot save ({exc.strerror or exc}); nothing was written") from None
        raise
    fsync_dir(folder)


def save_model(model: Any, path: str | os.PathLike[str], *, meta: dict[str, Any] | None = None) -> None:
    """``model.save(path)`` with ``meta`` added to the file's meta data (what a caller records
    beside the model, such as the command line's columns under ``"cli"``): the same state, read
    back and checked as ``load`` would before anything is written (:func:`save_state`'s
    ``build``), so no writer of model files skips the check."""
    state = model.to_state()
    if meta:
        state["meta"] = {**state["meta"], **meta}
    save_state(path, state, rebuild(model))


def fsync_dir(folder: str) -> None:
    """fsync a folder, so a rename in it survives a crash (a no-op where a folder cannot be
    fsync'd)."""
    try:
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:  # platforms that cannot fsync a folder
        pass


def _target(path: str | os.PathLike[str]) -> tuple[str, str]:
    """(path, its folder) for a model file about to be written, or a ModelFileError that names
    the path and what is wrong with it."""
    if not isinstance(path, str | bytes | os.PathLike):
        raise ModelFileError(f"cannot save to {path!r}: expected a file path (str or os.PathLike)")
    name = os.fsdecode(os.fspath(path))
    if not name:
        raise ModelFileError("cannot save: the path is empty")
    if os.path.isdir(name) or name.endswith(("/", os.sep)):
        raise ModelFileError(
            f"{name}: cannot save, it is a folder; give a file path (e.g. {os.path.join(name, 'model.nbm')})"
        )
    folder = os.path.dirname(os.path.abspath(name))
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ModelFileError(f"{name}: cannot save, {folder!r} is a file, not a folder")
    if not os.path.isdir(folder):
        raise ModelFileError(f"{name}: cannot save, folder {folder!r} does not exist")
    return name, folder


def state_to_bytes(state: dict[str, Any], build: Callable[[dict[str, Any]], Any] | None = None,
                   name: str = "<model file image>") -> bytes:
    """The bytes :func:`save_state` would write for ``state`` (checksum included), in memory
    (``nbayes serve --learn``'s snapshots); with ``build``, read back and built first, as
    :func:`save_state` checks, so an image that ``load`` would refuse is a ModelFileError."""
    parts = _serialise(state)
    if build is not None:
        return _loads_back(parts, name, build, keep=True)
    data = b"".join(bytes(part) for part in parts)
    return data + hashlib.sha256(data).digest()


def _loads_back(parts: list[Any], name: str, build: Callable[[dict[str, Any]], Any], keep: bool) -> bytes:
    """The file's bytes (``parts`` joined, their checksum after), once parsed with the file reader
    and built by ``build`` as ``load`` would: a ModelFileError naming ``name`` when that fails.
    Without ``keep``, the bytes go before the model is built (the parsed arrays are copies) and
    nothing is returned."""
    data = b"".join(bytes(part) for part in parts)
    data += hashlib.sha256(data).digest()
    try:
        parsed = _state_of(*_verify(data, name))
        if not keep:
            data = b""
        build(parsed)
    except (ModelFileError, KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise ModelFileError(f"{name}: cannot save, the file would not load back ({type(exc).__name__}: "
                             f"{exc}); nothing was written") from None
    return data


def state_from_bytes(raw: bytes, name: str = "<bytes>") -> dict[str, Any]:
    """:func:`load_state` of bytes made by :func:`state_to_bytes` (verified the same way)."""
    return _state_of(*_verify(bytes(raw), name))


def _read_verified(path: str | os.PathLike[str]) -> tuple[dict[str, Any], memoryview, str]:
    name = os.fspath(path)
    try:
        with open(name, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise ModelFileError(f"{name}: no such model file") from None
    except IsADirectoryError:
        raise ModelFileError(f"{name}: is a folder, not a model file") from None
    except OSError as exc:
        raise ModelFileError(f"{name}: cannot read ({exc.strerror})") from None
    return _verify(raw, name)


def _verify(raw: bytes, name: str) -> tuple[dict[str, Any], memoryview, str]:
    if len(raw) < len(MAGIC) or raw[: len(MAGIC)] != MAGIC:
        if raw[:1] == b"\x80":
            raise ModelFileError(f"{name}: not an nbayes model file (it looks like a pickle; nbayes never loads pickles)")
        raise ModelFileError(f"{name}: not an nbayes model file (bad magic bytes)")
    if len(raw) < _PREFIX.size + _DIGEST:
        raise ModelFileError(f"{name}: truncated model file ({len(raw)} bytes)")
    _, version, head_len = _PREFIX.unpack_from(raw)
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"{name}: written by a newer nbayes (format {version}); this nbayes reads format "
            f"<= {FORMAT_VERSION}; upgrade nbayes"
        )
    if version < 1:
        raise ModelFileError(f"{name}: unknown model format version {version}")
    body, digest = raw[:-_DIGEST], raw[-_DIGEST:]
    if hashlib.sha256(body).digest() != digest:
        raise ModelFileError(f"{name}: corrupted or truncated model file (checksum mismatch)")
    if _PREFIX.size + head_len > len(body):
        raise ModelFileError(f"{name}: corrupted model file (header length out of range)")
    try:
        header = json.loads(raw[_PREFIX.size : _PREFIX.size + head_len].decode("utf-8"))
        if not isinstance(header, dict) or not isinstance(header.get("arrays"), dict):
            raise ValueError("header is not an object with an array table")
    except (UnicodeDecodeError, ValueError) as exc:
        raise ModelFileError(f"{name}: corrupted model file (bad header: {exc})") from None
    payload = memoryview(body)[_PREFIX.size + head_len :]
    return header, payload, name


def read_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The verified header (kind, params, meta, array table), without building the model."""
    header, _, _ = _read_verified(path)
    return header


def load_state(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a file written by :func:`save_state` back into a state dictionary."""
    return _state_of(*_read_verified(path))


def _state_of(header: dict[str, Any], payload: memoryview, name: str) -> dict[str, Any]:
    arrays: dict[str, np.ndarray] = {}
    try:
        for key, entry in header["arrays"].items():
            if "labels" in entry:
                kind = entry["labels"]
                if kind not in ("str", "object"):
                    raise ValueError(f"array {key!r}: unknown label kind {kind!r}")
                arrays[key] = _label_array([decode_scalar(v) for v in entry["values"]], kind)
                continue
            dt = entry["dtype"]
            if dt not in _NUMERIC:
                raise ValueError(f"array {key!r}: dtype {dt!r} is not allowed")
            dtype = np.dtype(dt)
            shape = tuple(int(s) for s in entry["shape"])
            off, nbytes = int(entry["offset"]), int(entry["nbytes"])
            if any(s < 0 for s in shape) or nbytes != math.prod(shape) * dtype.itemsize:
                raise ValueError(f"array {key!r}: {nbytes} bytes do not hold shape {shape} of {dt}")
            if off < 0 or off + nbytes > len(payload):
                raise ValueError(f"array {key!r}: bytes {off}..{off + nbytes} lie outside the file")
            arr = np.frombuffer(payload[off : off + nbytes], dtype=dtype).reshape(shape)
            arrays[key] = arr.astype(dtype.newbyteorder("="), copy=True)
        return {
            "kind": header["kind"],
            "params": _from_json(header["params"]),
            "meta": _from_json(header["meta"]),
            "arrays": arrays,
            "format_version": header.get("format_version"),
            "nbayes_version": header.get("nbayes_version"),
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(f"{name}: corrupted model file ({type(exc).__name__}: {exc})") from None


# ----------------------------------------------------------------------------- hyperparameters
def encode_params(params: dict[str, Any]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Hyperparameters to JSON-able values; lists of arrays go to the array section."""
    out: dict[str, Any] = {}
    arrays: dict[str, np.ndarray] = {}
    for name, value in params.items():
        if isinstance(value, list | tuple) and any(
            isinstance(e, np.ndarray | list | tuple) for e in value
        ):
            out[name] = {"__arrays__": len(value), "none": [i for i, e in enumerate(value) if e is None]}
            for i, e in enumerate(value):
                if e is not None:
                    arrays[f"params/{name}/{i}"] = as_label_array(e)
        elif isinstance(value, list | tuple):
            out[name] = np.asarray(value)
        else:
            out[name] = value
    return out, arrays


def as_label_array(e: Any) -> np.ndarray:
    arr = np.asarray(e)
    if arr.dtype.kind not in "biufU":
        obj = np.empty(len(e), dtype=object)
        obj[:] = list(e)
        return obj
    return arr


def decode_params(params: dict[str, Any], arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """The hyperparameters of a model file: the inverse of :func:`encode_params` (lists of arrays read back
    from ``arrays``)."""
    out = {}
    for name, value in params.items():
        if isinstance(value, dict) and "__arrays__" in value:
            none = set(value["none"])
            out[name] = [
                None if i in none else arrays[f"params/{name}/{i}"] for i in range(value["__arrays__"])
            ]
        else:
            out[name] = value
    return out
