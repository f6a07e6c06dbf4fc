"""Documents to one lower-cased code point buffer, the input of the text kernels."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Iterable

import numpy as np

from .._kernels.arrow import gather_strings
from .._validation import check_documents as check_kind
from ..errors import DataError

SEP = "\x00"  # not a word character, not cased: lower-casing never sees across it


@lru_cache(maxsize=2)
def word_table(wide: bool) -> np.ndarray:
    """1 for the code points Python's ``re`` matches with ``\\w`` (Unicode), else 0.

    Built from ``re`` itself, so the tokeniser is exactly ``(?u)\\b\\w\\w+\\b`` of this Python.
    """
    n = 0x110000 if wide else 0x100
    points = np.arange(n, dtype=np.uint32)
    points = points[(points < 0xD800) | (points >= 0xE000)]
    text = points.tobytes().decode("utf-32-le")
    table = np.zeros(n, dtype=np.uint8)
    hits = [m.start() for m in re.finditer(r"\w", text)]
    table[points[hits]] = 1
    return table


def as_text(doc: Any, i: int) -> str:
    if isinstance(doc, str):
        return doc
    if isinstance(doc, bytes | bytearray | memoryview):
        return bytes(doc).decode("utf-8", errors="replace")
    hint = "; X looks 2-D: pass a 1-D sequence of texts, one per document" if isinstance(doc, list | tuple | np.ndarray) else ""
    raise DataError(
        f"documents: item {i} is a {type(doc).__name__}; expected a str (or UTF-8 bytes){hint}"
    )


def check_documents(docs: Any) -> None:
    """The text input boundary: documents come as a 1-D sequence (a list, a Series, a 1-D
    array, an iterator of str). A table or a 2-D array (``df[["text"]]``, ``X.reshape(-1, 1)``),
    a mapping, a set, a lone string or value is refused with what to pass instead
    (:func:`nbayes._validation.check_documents`): iterated, a pandas frame would give its column
    names as documents, a dict its keys, a set its items in an arbitrary order."""
    check_kind(docs)


def to_buffer(docs: Iterable[Any], lowercase: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(code points, document bounds, word table) for a batch of documents.

    Latin-1 text becomes a uint8 buffer (one byte per character), anything else uint32.
    """
    check_documents(docs)
    arrow = _ascii_column(docs, lowercase)
    if arrow is not None:  # no separators: the word kernels stop every token at bounds[d + 1]
        return arrow[0], arrow[1], word_table(False)
    texts = _texts(docs, lowercase)
    buf, table = _encode(SEP.join(texts))
    # document d spans bounds[d] .. bounds[d+1]: it starts at its first character, and ends
    # with the separator after it (not a word character, so no token changes; a NUL inside a
    # document is no word character either); bounds come from the lengths, not a search
    bounds = np.empty(len(texts) + 1, dtype=np.int64)
    bounds[0] = 0
    np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1, out=bounds[1:])
    bounds[-1] = len(buf)
    return buf, bounds, table


#: below this many documents a column is read as Python strings: reading its Arrow buffers
#: saves less than importing pyarrow costs (a one-row predict: 40 ms and 25 MB)
_ARROW_MIN_DOCS = 64


def _ascii_column(docs: Any, lowercase: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """(bytes, bounds) of a column of ASCII strings held by Arrow (a polars Series, a pyarrow
    Array or ChunkedArray), read from its buffers without making a Python string per document
    and without an intermediate copy (polars' string views are read as they are); None for
    anything else (other input, nulls, a non-ASCII character: the general path, which says what
    is wrong or decodes the text). ASCII is UTF-8 and Latin-1 alike, so the bytes are the code
    points, lower-cased as ``str.lower`` would."""
    module = type(docs).__module__.split(".")[0]
    if module not in ("polars", "pyarrow") or not hasattr(docs, "__len__") or len(docs) < _ARROW_MIN_DOCS:
        return None
    try:
        import pyarrow as pa
        if module == "polars":
            import polars as pl
            arr = docs.to_arrow(compat_level=pl.CompatLevel.newest())
        else:
            arr = docs
        parts = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
        if arr.null_count or not all(_is_text(part.type, pa) for part in parts):
            return None
        bases = np.cumsum([0] + [len(part) for part in parts])
        pieces = [_pieces(part, pa, int(base)) for part, base in zip(parts, bases)]
    except (ImportError, AttributeError, TypeError, ValueError, NotImplementedError):
        return None
    bounds = np.zeros(len(docs) + 1, dtype=np.int64)
    for piece in pieces:
        for _, _, length, row in piece:
            bounds[row + 1] = length
    np.cumsum(bounds, out=bounds)
    buf = np.empty(int(bounds[-1]), dtype=np.uint8)
    for piece in pieces:
        for src, src_start, length, row in piece:
            gather_strings(src, src_start, length, buf, bounds[row])
    if buf.size and int(buf.max()) >= 128:
        return None
    if lowercase:  # A-Z are the bytes b with b - 65 < 26; by blocks of 256 kB, so temporaries stay small
        step = 1 << 18  # (under the 1 MB above which the CLI has temporaries mapped afresh)
        for i in range(0, len(buf), step):
            part = buf[i : i + step]
            part += (part - np.uint8(65) < 26).view(np.uint8) << np.uint8(5)
    return buf, bounds


def _is_text(kind: Any, pa: Any) -> bool:
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind))


def _pieces(arr: Any, pa: Any, base: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """(source bytes, start of each string in them, lengths, the strings' rows counted from
    ``base``) covering an Arrow array of strings: one piece for offsets into one data buffer;
    for string views, one for the strings held inline and one per data buffer."""
    n, first = len(arr), arr.offset
    buffers = arr.buffers()
    if not pa.types.is_string_view(arr.type):
        kind = np.int64 if pa.types.is_large_string(arr.type) else np.int32
        offsets = np.frombuffer(buffers[1], dtype=kind)[first : first + n + 1].astype(np.int64)
        data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.zeros(0, dtype=np.uint8)
        return [(data, offsets[:-1], np.diff(offsets), base + np.arange(n))]
    views = np.frombuffer(buffers[1], dtype=np.int32).reshape(-1, 4)[first : first + n]
    raw = np.frombuffer(buffers[1], dtype=np.uint8)
    length = views[:, 0].astype(np.int64)
    inline = np.flatnonzero(length <= 12)
    out = [(raw, (first + inline) * 16 + 4, length[inline], base + inline)]
    held = np.flatnonzero(length > 12)
    which = views[held, 2]
    for b in np.unique(which):
        mine = held[which == b]
        out.append((np.frombuffer(buffers[2 + int(b)], dtype=np.uint8), views[mine, 3].astype(np.int64),
                    length[mine], base + mine))
    return out


def _texts(docs: Iterable[Any], lowercase: bool) -> list[str]:
    """The documents as str (lower-cased when ``lowercase``), checked."""
    if isinstance(docs, str | bytes):
        raise DataError("documents: expected an iterable of documents, got a single string")
    if type(docs).__module__.split(".")[0] == "pyarrow" and hasattr(docs, "to_pylist"):
        docs = docs.to_pylist()  # an Array / ChunkedArray of strings iterates as pyarrow scalars
    texts = [as_text(d, i) for i, d in enumerate(docs)]
    if not texts:
        raise DataError("documents: no documents given; at least one is required")
    if lowercase:  # per document: str.lower is fastest on the (usually ASCII) pieces
        texts = [t.lower() for t in texts]
    return texts


@lru_cache(maxsize=2)
def space_table(wide: bool) -> np.ndarray:
    """1 for the code points Python's ``re`` matches with ``\\s`` (what ``str.split()`` splits
    on), else 0: the character kernels' whitespace."""
    n = 0x110000 if wide else 0x100
    points = np.arange(n, dtype=np.uint32)
    points = points[(points < 0xD800) | (points >= 0xE000)]
    text = points.tobytes().decode("utf-32-le")
    table = np.zeros(n, dtype=np.uint8)
    table[points[[m.start() for m in re.finditer(r"\s", text)]]] = 1
    return table


def to_char_buffer(docs: Iterable[Any], lowercase: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(code points, document bounds, whitespace table) for the character kernels: as
    :func:`to_buffer`, but the documents are joined without a separator, so every code point
    of ``bounds[d]:bounds[d + 1]`` is document d's own (a character n-gram sees them all)."""
    check_documents(docs)
    arrow = _ascii_column(docs, lowercase)
    if arrow is not None:
        return arrow[0], arrow[1], space_table(False)
    texts = _texts(docs, lowercase)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    bounds = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    joined = "".join(texts)
    try:
        return np.frombuffer(joined.encode("latin-1"), dtype=np.uint8), bounds, space_table(False)
    except UnicodeEncodeError:
        raw = joined.encode("utf-32-le", errors="surrogatepass")
        return np.frombuffer(raw, dtype=np.uint32), bounds, space_table(True)


def _encode(text: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        return np.frombuffer(text.encode("latin-1"), dtype=np.uint8), word_table(False)
    except UnicodeEncodeError:
        raw = text.encode("utf-32-le", errors="surrogatepass")
        return np.frombuffer(raw, dtype=np.uint32), word_table(True)
