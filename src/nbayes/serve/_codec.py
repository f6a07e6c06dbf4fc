"""The body of an update log record: an update's statistics as compact named arrays.

A body is ``uint32 length | JSON | array bytes``. The JSON holds the update's class labels
(tagged with their type, as in a model file) and, per array of ``stats.to_arrays()``, how it is
stored; the bytes follow in that order (numpy ``tobytes``, little-endian):

- ``dense``: the values, as ``dtype``;
- ``sparse``: the flat positions of the non-zero values (``uint32``, or ``uint64`` past 2**32)
  then those values: a text update's per-class term counts are mostly zeros (a term of one
  class's documents counts 0 in the others);
- ``str``: strings (a vocabulary) as their UTF-8 byte lengths (``uint32``) then the bytes;
- ``json``: other object arrays (category values of mixed types) as tagged JSON values.

Float arrays whose values are all whole numbers that fit are stored as the narrowest unsigned
integer type that holds them exactly (``uint8``/``uint16``/``uint32``): counts of unweighted
rows take one or two bytes, not eight. Decoding gives float64 back, bit for bit.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np

from ..errors import ModelFileError
from ..io.model_file import decode_scalar, encode_scalar

_LEN = struct.Struct("<I")
_NARROW = (np.uint8, np.uint16, np.uint32)


def encode(classes: np.ndarray, arrays: dict[str, np.ndarray]) -> bytes:
    """The body of a record holding the statistics ``arrays`` of an update over ``classes``."""
    specs: list[list[Any]] = []
    parts: list[bytes] = []
    for name, a in arrays.items():
        a = np.asarray(a)
        spec, data = _encode_array(a)
        specs.append([name, list(a.shape), *spec])
        parts.extend(data)
    head = json.dumps({"classes": [encode_scalar(c, "labels") for c in np.asarray(classes).tolist()], "arrays": specs},
                      separators=(",", ":")).encode()
    return _LEN.pack(len(head)) + head + b"".join(parts)


def decode(body: bytes | memoryview, where: str) -> tuple[list[Any], dict[str, np.ndarray]]:
    """(the class labels, the named arrays) of a record body (ModelFileError when damaged)."""
    try:
        (n,) = _LEN.unpack_from(body)
        head = json.loads(bytes(body[_LEN.size:_LEN.size + n]))
        classes = [decode_scalar(c) for c in head["classes"]]
        at = _LEN.size + n
        arrays: dict[str, np.ndarray] = {}
        for name, shape, how, *rest in head["arrays"]:
            arrays[name], at = _decode_array(body, at, tuple(shape), how, rest)
        if at != len(body):
            raise ValueError(f"{len(body) - at} bytes left over")
    except (ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
        raise ModelFileError(f"{where}: a record's statistics cannot be read ({exc})") from None
    return classes, arrays


# ---------------------------------------------------------------------------- arrays
def _narrow(v: np.ndarray) -> np.ndarray:
    """``v`` (float64) as the narrowest unsigned integer type that holds every value exactly,
    else as float64."""
    if v.dtype != np.float64:
        return v
    if not len(v):
        return v.astype(np.uint8)
    lo, hi = float(v.min()), float(v.max())
    if lo >= 0 and hi < 2**32 and np.array_equal(np.floor(v), v) and not np.signbit(v).any():
        for t in _NARROW:
            if hi <= np.iinfo(t).max:
                return v.astype(t)
    return v


def _encode_array(a: np.ndarray) -> tuple[list[Any], list[bytes]]:
    if a.dtype == object:
        items = a.ravel().tolist()
        if all(type(s) is str for s in items):
            raw = [s.encode("utf-8", "surrogatepass") for s in items]
            return ["str"], [np.array([len(r) for r in raw], dtype="<u4").tobytes(), b"".join(raw)]
        data = json.dumps([encode_scalar(v, "statistics") for v in items], separators=(",", ":")).encode()
        return ["json", len(data)], [data]
    if a.dtype.kind == "U":
        return _encode_array(a.astype(object))
    flat = np.ascontiguousarray(a).ravel()
    if a.dtype == np.float64 and a.size >= 64:
        nz = np.flatnonzero(flat.view(np.uint64))  # every value but +0.0 (-0.0 is kept, bit for bit)
        idx = np.dtype(np.uint32 if a.size < 2**32 else np.uint64).newbyteorder("<")
        vals = _narrow(flat[nz])
        if len(nz) * (idx.itemsize + vals.itemsize) < a.size * vals.itemsize:
            return ["sparse", len(nz), idx.str, vals.dtype.str], \
                [nz.astype(idx).tobytes(), vals.astype(vals.dtype.newbyteorder("<")).tobytes()]
        # the +0.0 left out of ``vals`` change neither its bounds' type nor its wholeness: the
        # whole array narrows to the same type (what _narrow(flat) gives, without its passes)
        dense = flat if vals.dtype == np.float64 else flat.astype(vals.dtype)
    else:
        dense = _narrow(flat)
    return ["dense", dense.dtype.str, a.dtype.str], [dense.astype(dense.dtype.newbyteorder("<")).tobytes()]


def _take(body: bytes | memoryview, at: int, dtype: str, n: int) -> tuple[np.ndarray, int]:
    dt = np.dtype(dtype).newbyteorder("<")
    end = at + n * dt.itemsize
    if end > len(body):
        raise ValueError("the record ends inside an array")
    return np.frombuffer(body, dtype=dt, count=n, offset=at), end


def _decode_array(body: bytes | memoryview, at: int, shape: tuple[int, ...], how: str,
                  rest: list[Any]) -> tuple[np.ndarray, int]:
    size = int(np.prod(shape, dtype=np.int64))
    if how == "str":
        lengths, at = _take(body, at, "<u4", size)
        total = int(lengths.sum())
        if at + total > len(body):
            raise ValueError("the record ends inside its strings")
        text = bytes(body[at:at + total])
        ends = np.cumsum(lengths).tolist()
        starts = [0] + ends[:-1]
        out = np.empty(size, dtype=object)
        out[:] = [text[s:e].decode("utf-8", "surrogatepass") for s, e in zip(starts, ends)]
        return out.reshape(shape), at + total
    if how == "json":
        n = int(rest[0])
        items = json.loads(bytes(body[at:at + n]))
        out = np.empty(size, dtype=object)
        out[:] = [decode_scalar(v) for v in items]
        return out.reshape(shape), at + n
    if how == "sparse":
        nnz, idx_type, val_type = int(rest[0]), rest[1], rest[2]
        idx, at = _take(body, at, idx_type, nnz)
        vals, at = _take(body, at, val_type, nnz)
        out = np.zeros(size, dtype=np.float64)
        out[idx] = vals
        return out.reshape(shape), at
    if how == "dense":
        stored, dtype = rest[0], rest[1]
        vals, at = _take(body, at, stored, size)
        return vals.astype(np.dtype(dtype).newbyteorder("=")).reshape(shape), at
    raise ValueError(f"unknown array layout {how!r}")
