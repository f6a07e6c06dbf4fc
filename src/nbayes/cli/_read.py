"""Data files for the command line, read in chunks that know where they come from.

CSV / TSV (``.gz`` too) are read by pyarrow's streaming CSV reader and Parquet by row groups, so
a file larger than memory streams; JSON Lines (``.gz`` too) in chunks of lines; a folder with one
sub-folder per class becomes a ``text`` and a ``label`` column. Every chunk is a polars frame with
the index of its first row in the file. Chunks hold at most ``chunk_rows`` rows and about
``chunk_bytes`` bytes of input (JSON Lines: the lines' bytes; Parquet: the row group's
uncompressed bytes per row; CSV: pyarrow's 4 MiB blocks), so that an error found anywhere (by the reader, by the
typing of the columns, by a model) names the row of the file: :meth:`DataFile.where` says
``line N`` for the text formats (the file's own line numbering: the CSV header is line 1, the
first data row line 2, a quoted field spanning lines counts them all) and ``row N`` for Parquet
(1-based; the first row is row 1).

Missing values: only an empty field is missing. ``NA``, ``null``, ``N/A``, ``NaN``, ``None`` are
values (a region code, a label): pyarrow's own list of null markers is switched off, and a
numeric-looking column holding the text ``NaN`` is read as text (a float NaN would be missing).
``na_values`` names more markers of missing values, in every format (string fields of JSON Lines
and Parquet too).
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import os
import sys
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import IO, Any, Iterator, Protocol, Sequence

import numpy as np
import polars as pl

from ..errors import DataError
from ..io.readers import read_folder

CHUNK_ROWS = 100_000
#: bytes of input per chunk (at most; a single longer row is a chunk of its own): memory while
#: streaming is bounded by bytes, not rows, so long documents do not blow it up
CHUNK_BYTES = 16 << 20
CSV_NAMES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".tab", ".txt")
JSONL_NAMES = (".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".json", ".json.gz")
#: bytes of a CSV file looked at before reading (binary content, encoding)
HEAD_BYTES = 1 << 16


_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
          "MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30}


def parse_size(text: str) -> int:
    """A number of bytes written as ``33554432``, ``32M``, ``32MB`` or ``1G`` (powers of 1024).

    >>> parse_size("32M"), parse_size("1.5k"), parse_size("4096")
    (33554432, 1536, 4096)
    """
    t = str(text).strip().upper().replace(" ", "")
    digits = t.rstrip("KMGIB")
    unit = t[len(digits):]
    try:
        value = float(digits)
    except ValueError:
        value = -1.0
    if unit not in _UNITS or not value >= 1 or value == float("inf"):
        raise DataError(f"chunk size: expected a positive number of bytes such as 33554432, 32M or 1G, got {text!r}")
    return max(1, int(value * _UNITS[unit]))


@dataclass(frozen=True)
class Chunk:
    """Rows of a file: ``frame``, whose first row is data row ``start`` (0-based) of the file."""

    frame: pl.DataFrame
    start: int


class Source(Protocol):
    """What the commands read rows from: a :class:`DataFile`, or rows given on the command line
    (``nbayes.cli._inline.InlineRows``)."""

    name: str

    def chunks(self, chunk_rows: int = ...) -> Iterator[Chunk]: ...

    def where(self, row: int) -> str: ...

    def fail(self, what: str) -> DataError: ...


class DataFile:
    """A data file (or class-per-folder tree) named on the command line.

    >>> DataFile("no/such.csv")
    Traceback (most recent call last):
    ...
    nbayes.errors.DataError: no/such.csv: no such file or folder
    """

    def __init__(self, path: str | os.PathLike[str], na_values: Sequence[str] = (),
                 chunk_bytes: int = CHUNK_BYTES) -> None:
        if chunk_bytes < 1:
            raise DataError(f"chunk_bytes: expected a positive number of bytes, got {chunk_bytes}")
        self.chunk_bytes = int(chunk_bytes)
        self.name = os.fspath(path)
        self.path = Path(path)
        self.na_values = tuple(dict.fromkeys(na_values))
        self.kind = self._kind()

    def __str__(self) -> str:
        return self.name

    def fail(self, what: str) -> DataError:
        return DataError(f"{self.name}: {what}")

    def _kind(self) -> str:
        p = self.path
        if p.is_dir():
            return "folder"
        if not p.exists():
            raise self.fail("no such file or folder")
        if not p.is_file():
            raise self.fail("is not a regular file")
        if not os.access(p, os.R_OK):
            raise self.fail("cannot be read (permission denied)")
        if p.stat().st_size == 0:
            raise self.fail("is empty")
        name = p.name.lower()
        if name.endswith(CSV_NAMES):
            return "tsv" if ".tsv" in name or name.endswith(".tab") else "csv"
        if name.endswith(".parquet"):
            return "parquet"
        if name.endswith(JSONL_NAMES):
            return "jsonl"
        raise self.fail("unknown kind of file; expected .csv, .tsv, .parquet, .jsonl (or .gz), or a folder")

    # ------------------------------------------------------------------ reading
    def chunks(self, chunk_rows: int = CHUNK_ROWS) -> Iterator[Chunk]:
        """The rows as polars frames of at most ``chunk_rows`` rows and about ``self.chunk_bytes``
        bytes of input each."""
        if self.kind == "folder":
            start = 0
            for texts, labels in read_folder(self.path, chunk_size=chunk_rows):
                yield Chunk(pl.DataFrame({"text": texts, "label": labels}), start)
                start += len(texts)
            return
        if self.kind == "jsonl":
            yield from self._jsonl(chunk_rows)
            return
        # CSV and Parquet are read by pyarrow, loaded only for them (a JSON Lines file, such as
        # a one-row predict, does without it: about 45 MB and a tenth of a second)
        arrow = import_module("._read_arrow", __package__)
        reader = arrow.parquet_chunks if self.kind == "parquet" else arrow.csv_chunks
        yield from reader(self, chunk_rows)

    def read_all(self) -> pl.DataFrame:
        frames = [c.frame for c in self.chunks()]
        return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")

    def _mark_missing(self, frame: pl.DataFrame) -> pl.DataFrame:
        """``na_values`` in the string columns of a frame read without them (JSON Lines, Parquet)."""
        if not self.na_values:
            return frame
        cols = [c for c, t in frame.schema.items() if t == pl.String]
        if not cols:
            return frame
        na = list(self.na_values)
        return frame.with_columns(
            [pl.when(pl.col(c).is_in(na)).then(None).otherwise(pl.col(c)).alias(c) for c in cols]
        )

    # CSV ---------------------------------------------------------------
    @property
    def delimiter(self) -> str:
        return "\t" if self.kind == "tsv" else ","

    def _open_text(self) -> IO[str]:
        return io.TextIOWrapper(_open_bytes(self.path), encoding="utf-8-sig", errors="replace", newline="")

    def _records(self) -> Iterator[tuple[int, list[str]]]:
        """(line where the record starts, fields) of every non-empty record, the header first."""
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
        with self._open_text() as f:
            reader = csv.reader(f, delimiter=self.delimiter)
            line = 1
            for rec in reader:
                if rec:
                    yield line, rec
                line = reader.line_num + 1

    def _header(self) -> list[str]:
        return next((rec for _, rec in self._records()), [])

    def _ragged_record(self) -> tuple[int, int, int] | None:
        want = None
        for line, rec in self._records():
            if want is None:
                want = len(rec)
            elif len(rec) != want:
                return line, len(rec), want
        return None

    def _find_value(self, col: int, value: str, from_row: int) -> int | None:
        for row, (_, rec) in enumerate(_skip(self._records(), 1)):
            if row >= from_row and col < len(rec) and rec[col] == value:
                return row
        return None

    def _bad_utf8_line(self) -> int:
        decoder = codecs.getincrementaldecoder("utf-8")()
        line = 1
        with _open_bytes(self.path) as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                try:
                    decoder.decode(block)
                except UnicodeDecodeError as exc:
                    return line + block[: exc.start].count(b"\n")
                line += block.count(b"\n")
        return line

    def _check_text_head(self) -> None:
        """A CSV must be UTF-8 text: refuse binary files and other encodings up front (the first
        64 KiB), naming the line and byte offset."""
        try:
            with _open_bytes(self.path) as f:
                head = f.read(HEAD_BYTES)
        except (OSError, EOFError) as exc:
            raise self.fail(f"cannot be read ({_gzip_reason(exc)})") from None
        if not head:
            raise self.fail("is empty")
        nul = head.find(b"\x00")
        if nul >= 0:
            raise self.fail(f"is a binary file (NUL byte at offset {nul}), not CSV text")
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as exc:
            if exc.start < len(head) - 4 or len(head) < HEAD_BYTES:  # not a character cut by the window
                line = head[: exc.start].count(b"\n") + 1
                raise self.fail(f"is not UTF-8 text (line {line}, byte offset {exc.start}); convert it to UTF-8") from None

    # JSON Lines ---------------------------------------------------------
    def _jsonl(self, chunk_rows: int) -> Iterator[Chunk]:
        """Lines gathered up to ``chunk_rows`` rows or ``chunk_bytes`` bytes, each gathering
        parsed by polars' JSON reader at once; a gathering it refuses is read again line by line
        (:meth:`_json_rows`), which names the line at fault. A block of ``chunk_bytes`` (ended at
        a line's end) whose every line is a JSON object is parsed as it was read, without a
        Python object per line."""
        lines: list[bytes] = []
        first = 1  # file line number of lines[0]
        n = size = rows = start = 0
        try:
            with self._open_binary() as f:
                while block := f.read(self.chunk_bytes):
                    if not block.endswith(b"\n"):
                        block += f.readline()
                    plain = 0 if lines else _object_lines(block, chunk_rows)
                    if plain:
                        frame = self._json_chunk(block, None, n + 1, plain, start)
                        del block  # not held while the chunk is used
                        yield Chunk(frame, start)
                        n, start = n + plain, start + plain
                        continue
                    for line in _split_lines(block):
                        n += 1
                        if not lines:
                            first = n
                        lines.append(line)
                        size += len(line)
                        if not line.isspace():
                            rows += 1
                        if rows >= chunk_rows or size >= self.chunk_bytes:
                            if rows:
                                yield Chunk(self._json_chunk(b"".join(lines), lines, first, rows, start), start)
                                start += rows
                            lines, size, rows = [], 0, 0
        except (OSError, EOFError) as exc:
            raise self.fail(f"cannot be read past line {n:,} ({_gzip_reason(exc)})") from None
        if rows:
            yield Chunk(self._json_chunk(b"".join(lines), lines, first, rows, start), start)
        elif start == 0:
            raise self.fail("holds no rows")

    def _open_binary(self) -> gzip.GzipFile | io.BufferedReader:
        """The file's bytes after its UTF-8 byte-order mark if any (no part of the first line)."""
        f = _open_bytes(self.path)
        if f.peek(3)[:3] == codecs.BOM_UTF8:
            f.read(3)
        return f

    def _json_chunk(self, data: bytes, lines: list[bytes] | None, first: int, rows: int, start: int) -> pl.DataFrame:
        """The ``rows`` rows of ``data`` (its ``lines`` if split already; the first is line
        ``first`` of the file) as a frame."""
        if lines is None or all(line.lstrip()[:1] == b"{" for line in lines if not line.isspace()):
            try:
                frame = pl.read_ndjson(io.BytesIO(data), infer_schema_length=None)
            except Exception:  # noqa: BLE001 - polars' many kinds: the line-by-line reading names the line
                frame = None
            if frame is not None and frame.height == rows:
                return self._mark_missing(frame)
        lines = _split_lines(data) if lines is None else lines
        return self._json_frame(self._json_rows(lines, first), start)

    def _json_rows(self, lines: list[bytes], first: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for n, raw in enumerate(lines, start=first):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise self.fail(f"is not UTF-8 text (line {n})") from None
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise self.fail(f"line {n} is not JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise self.fail(f"line {n} is not a JSON object")
            out.append(obj)
        return out

    def _json_frame(self, rows: list[dict[str, Any]], start: int) -> pl.DataFrame:
        try:
            frame = pl.DataFrame(rows, infer_schema_length=None)
        except Exception as exc:  # noqa: BLE001 - polars' many kinds; name the file and the lines
            raise self.fail(f"lines of data rows {start + 1:,}..{start + len(rows):,} cannot make a table "
                            f"({str(exc).splitlines()[0]})") from None
        return self._mark_missing(frame)

    # ------------------------------------------------------------------ locations
    def where(self, row: int) -> str:
        """Where data row ``row`` (0-based) is in the file: ``line N`` (text formats: the file's
        line numbering, the CSV header being line 1), ``row N`` (Parquet, 1-based) or
        ``file F`` (a class-per-folder tree)."""
        if self.kind == "parquet":
            return f"row {row + 1}"
        if self.kind == "folder":
            files = [f for c in sorted(p for p in self.path.iterdir() if p.is_dir())
                     for f in sorted(p for p in c.rglob("*") if p.is_file())]
            return f"file {files[row].relative_to(self.path)}" if row < len(files) else f"document {row + 1}"
        if self.kind == "jsonl":
            seen = -1
            with self._open_text() as f:
                for n, line in enumerate(f, start=1):
                    if line.strip():
                        seen += 1
                        if seen == row:
                            return f"line {n}"
            return f"data row {row + 1}"
        for i, (line, _) in enumerate(_skip(self._records(), 1)):
            if i == row:
                return f"line {line}"
        return f"data row {row + 1}"


def _open_bytes(path: Path) -> gzip.GzipFile | io.BufferedReader:
    """The bytes of the file at ``path``, decompressed when its name ends in .gz."""
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")


def _skip(it: Iterator[Any], n: int) -> Iterator[Any]:
    for _ in range(n):
        next(it, None)
    return it


def _gzip_reason(exc: BaseException) -> str:
    if isinstance(exc, gzip.BadGzipFile):
        return f"not a valid gzip file: {exc}"
    if isinstance(exc, EOFError):
        return "the gzip stream is truncated"
    return str(exc) or type(exc).__name__


def _object_lines(block: bytes, most: int) -> int:
    """The number of lines of ``block`` when each starts with ``{`` (no blank line, no
    indentation) and there are at most ``most``; else 0 (the block is read line by line)."""
    raw = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero(raw == 10)
    count = len(ends) + (0 if raw[-1] == 10 else 1)
    if count > most or raw[0] != 123 or not np.all(raw[ends[ends < len(raw) - 1] + 1] == 123):
        return 0
    return count


def _split_lines(block: bytes) -> list[bytes]:
    """The lines of ``block``, each with its LF: JSON Lines ends a line at LF only (a CR
    elsewhere is JSON whitespace), as iterating over the file splits it; ``bytes.splitlines``
    would also split at a lone CR."""
    return io.BytesIO(block).readlines()
