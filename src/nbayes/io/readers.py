"""Readers of labelled documents: JSON Lines, CSV / Parquet columns, class-per-folder trees.

Each returns ``(texts, labels)``, or with ``chunk_size`` an iterator of such pairs so that a
corpus larger than memory can be streamed into ``partial_fit``. Errors name the file, and the
line or column where known.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path
from typing import Any, Iterator

from ..errors import DataError

__all__ = ["read_jsonl", "read_columns", "read_folder", "read_texts"]

Pair = tuple[list[Any], list[Any]]


def _open_text(path: Path) -> io.TextIOWrapper:
    try:
        raw = gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DataError(f"{path}: is a folder, not a file") from None
    # utf-8-sig: a byte-order mark (as some Windows tools write) is not part of the first line
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace")


def _chunks(pairs: Iterator[tuple[Any, Any]], chunk_size: int | None) -> Iterator[Pair]:
    texts: list[Any] = []
    labels: list[Any] = []
    for t, y in pairs:
        texts.append(t)
        labels.append(y)
        if chunk_size and len(texts) == chunk_size:
            yield texts, labels
            texts, labels = [], []
    if texts or not chunk_size:
        yield texts, labels


def _finish(chunks: Iterator[Pair], chunk_size: int | None, path: Path) -> Pair | Iterator[Pair]:
    if chunk_size:
        return chunks
    texts, labels = next(chunks)
    if not texts:
        raise DataError(f"{path}: holds no documents")
    return texts, labels


def read_jsonl(
    path: str | os.PathLike[str], *, text: str = "text", label: str = "label", chunk_size: int | None = None
) -> Pair | Iterator[Pair]:
    """Documents from JSON Lines (``.gz`` too): one object per line with a text and a label
    field (names configurable). A line without the label field gets label None."""
    path = Path(path)

    def pairs() -> Iterator[tuple[Any, Any]]:
        with _open_text(path) as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}: line {n} is not valid JSON ({exc.msg})") from None
                except (EOFError, OSError) as exc:
                    raise DataError(f"{path}: cannot be read past line {n} ({exc})") from None
                if not isinstance(obj, dict) or text not in obj:
                    raise DataError(f"{path}: line {n} has no field {text!r}")
                if not isinstance(obj[text], str):
                    raise DataError(f"{path}: line {n}: field {text!r} is not a string")
                yield obj[text], obj.get(label)

    return _finish(_chunks(_guard(pairs(), path), chunk_size), chunk_size, path)


def _guard(pairs: Iterator[tuple[Any, Any]], path: Path) -> Iterator[tuple[Any, Any]]:
    try:
        yield from pairs
    except (EOFError, gzip.BadGzipFile, OSError) as exc:
        raise DataError(f"{path}: cannot be read ({exc})") from None


def read_columns(
    path: str | os.PathLike[str], *, text: str = "text", label: str = "label", chunk_size: int | None = None
) -> Pair | Iterator[Pair]:
    """Documents from two columns of a CSV, TSV or Parquet file (read with pyarrow). Only an
    empty field is missing: ``NA``, ``null``, ``N/A``, ``NaN`` are values."""
    path = Path(path)
    try:
        import pyarrow.csv as pacsv
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("reading CSV/Parquet needs pyarrow: pip install 'nbayes[frames]'") from None
    if not path.exists():
        raise DataError(f"{path}: no such file")
    try:
        if path.suffix == ".parquet":
            table = pq.read_table(path)
        else:
            delim = "\t" if path.suffix in (".tsv", ".tab") or path.name.endswith(".tsv.gz") else ","
            # only an empty field is missing: NA, null, N/A, NaN are values (a label, a word)
            table = pacsv.read_csv(
                path,
                parse_options=pacsv.ParseOptions(delimiter=delim, newlines_in_values=True),
                convert_options=pacsv.ConvertOptions(null_values=[""], strings_can_be_null=True),
            )
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds; name the file
        raise DataError(f"{path}: cannot be read as a table ({exc})") from None
    for col in (text, label):
        if col not in table.column_names:
            raise DataError(f"{path}: no column {col!r}; columns are {table.column_names}")
    texts = table.column(text).to_pylist()
    labels = table.column(label).to_pylist()
    for n, t in enumerate(texts):
        if t is not None and not isinstance(t, str):
            where = f"row {n + 1}" if path.suffix == ".parquet" else f"line {n + 2}"  # the header is line 1
            raise DataError(f"{path}: {where}, column {text!r} is not text")
    pairs = ((t if t is not None else "", y) for t, y in zip(texts, labels))
    return _finish(_chunks(pairs, chunk_size), chunk_size, path)


def read_folder(path: str | os.PathLike[str], *, chunk_size: int | None = None) -> Pair | Iterator[Pair]:
    """Documents from a folder with one sub-folder per class (the 20 Newsgroups layout): each
    file is a document (UTF-8, invalid bytes replaced), its folder's name the label. Classes
    and files are visited in sorted order."""
    path = Path(path)
    if not path.is_dir():
        raise DataError(f"{path}: no such folder")
    classes = sorted(p for p in path.iterdir() if p.is_dir())
    if not classes:
        raise DataError(f"{path}: has no sub-folders (one per class expected)")

    def pairs() -> Iterator[tuple[Any, Any]]:
        for folder in classes:
            for f in sorted(p for p in folder.rglob("*") if p.is_file()):
                yield f.read_bytes().decode("utf-8", errors="replace"), folder.name

    return _finish(_chunks(pairs(), chunk_size), chunk_size, path)


def read_texts(path: str | os.PathLike[str], **kw: Any) -> Pair | Iterator[Pair]:
    """Any of the above, chosen by the path: a folder, ``.jsonl`` / ``.json`` (``.gz``), or a
    CSV / TSV / Parquet file."""
    p = Path(path)
    if p.is_dir():
        return read_folder(p, chunk_size=kw.get("chunk_size"))
    name = p.name.lower()
    if name.endswith((".jsonl", ".jsonl.gz", ".json", ".json.gz", ".ndjson")):
        return read_jsonl(p, **kw)
    if name.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz", ".parquet")):
        return read_columns(p, **kw)
    raise DataError(f"{p}: unknown kind of file; expected a folder, .jsonl(.gz), .csv, .tsv or .parquet")
