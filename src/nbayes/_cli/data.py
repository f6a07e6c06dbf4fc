"""Data files for the command line: read in chunks, type the columns, pick the model's input.

CSV / TSV (``.gz`` too) are read by pyarrow's streaming CSV reader and Parquet by row groups, so a
file larger than memory streams; JSON Lines (``.gz`` too) in chunks of lines; a folder with one
sub-folder per class becomes a ``text`` and a ``label`` column. Every chunk is a polars frame.
Errors name the file (and the line or column where known).
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from ..errors import DataError

CHUNK_ROWS = 100_000
TEXT_KINDS = ("multinomial", "complement", "bernoulli", "nblr")


def _fail(path: Path, what: str) -> DataError:
    return DataError(f"{path}: {what}")


def iter_frames(path: str | Path, chunk_rows: int = CHUNK_ROWS) -> Iterator[Any]:
    """The rows of ``path`` as polars frames of at most ``chunk_rows`` rows each."""
    import polars as pl

    p = Path(path)
    if p.is_dir():
        from ..io.readers import read_folder

        for texts, labels in read_folder(p, chunk_size=chunk_rows):  # type: ignore[union-attr]
            yield pl.DataFrame({"text": texts, "label": labels})
        return
    if not p.exists():
        raise _fail(p, "no such file or folder")
    if p.stat().st_size == 0:
        raise _fail(p, "is empty")
    name = p.name.lower()
    if name.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz", ".tab", ".txt")):
        yield from _csv(p, "\t" if ".tsv" in name or name.endswith(".tab") else ",", chunk_rows)
    elif name.endswith(".parquet"):
        yield from _parquet(p, chunk_rows)
    elif name.endswith((".jsonl", ".jsonl.gz", ".ndjson", ".ndjson.gz", ".json", ".json.gz")):
        yield from _jsonl(p, chunk_rows)
    else:
        raise _fail(p, "unknown kind of file; expected .csv, .tsv, .parquet, .jsonl (or .gz), or a folder")


def read_frame(path: str | Path) -> Any:
    """All rows of ``path`` as one polars frame."""
    import polars as pl

    frames = list(iter_frames(path))
    return frames[0] if len(frames) == 1 else pl.concat(frames, how="vertical_relaxed")


def _csv(p: Path, delimiter: str, chunk_rows: int) -> Iterator[Any]:
    import polars as pl
    import pyarrow as pa
    import pyarrow.csv as pacsv

    _check_text_file(p)
    try:
        reader = pacsv.open_csv(
            p,
            read_options=pacsv.ReadOptions(block_size=1 << 22),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(strings_can_be_null=True),  # empty field = missing
        )
        rows = 0
        for batch in reader:
            rows += batch.num_rows
            for start in range(0, batch.num_rows, chunk_rows):
                yield pl.from_arrow(pa.Table.from_batches([batch.slice(start, chunk_rows)]))
        if rows == 0:
            raise _fail(p, "has a header but no rows")
    except pa.ArrowInvalid as exc:
        raise _fail(p, _arrow_message(str(exc))) from None


def _arrow_message(msg: str) -> str:
    msg = msg.strip().splitlines()[0]
    if "Expected" in msg and "columns" in msg:
        return f"ragged rows: {msg} (every row needs as many fields as the header)"
    if "UTF8" in msg or "utf8" in msg.lower():
        return f"not UTF-8 text: {msg}"
    if "Empty CSV file" in msg:
        return "is empty"
    return f"cannot be read as a table: {msg}"


def _check_text_file(p: Path) -> None:
    """A CSV must be UTF-8 text: refuse binary files and other encodings up front (the first
    64 KiB), naming the byte offset."""
    opener = gzip.open if p.name.lower().endswith(".gz") else open
    try:
        with opener(p, "rb") as f:
            head = f.read(1 << 16)
    except (OSError, EOFError) as exc:
        raise _fail(p, f"cannot be read ({exc})") from None
    nul = head.find(b"\x00")
    if nul >= 0:
        raise _fail(p, f"is a binary file (NUL byte at offset {nul}), not CSV text")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4 or len(head) < 1 << 16:  # not a character cut by the window
            line = head[: exc.start].count(b"\n") + 1
            raise _fail(p, f"is not UTF-8 text (line {line}, byte offset {exc.start}); convert it to UTF-8") from None


def _parquet(p: Path, chunk_rows: int) -> Iterator[Any]:
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(p, pre_buffer=False)  # one row group at a time: memory stays flat
        any_rows = False
        for group in range(f.num_row_groups):
            for batch in f.iter_batches(batch_size=chunk_rows, row_groups=[group]):
                any_rows = any_rows or batch.num_rows > 0
                yield pl.from_arrow(pa.Table.from_batches([batch]))
        if not any_rows:
            raise _fail(p, "has no rows")
    except (pa.ArrowInvalid, OSError) as exc:
        raise _fail(p, f"cannot be read as Parquet ({str(exc).splitlines()[0]})") from None


def _jsonl(p: Path, chunk_rows: int) -> Iterator[Any]:
    import polars as pl

    raw = gzip.open(p, "rb") if p.name.lower().endswith(".gz") else open(p, "rb")
    rows: list[dict[str, Any]] = []
    n = 0
    try:
        with io.TextIOWrapper(raw, encoding="utf-8", errors="strict") as f:
            for n, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise _fail(p, f"line {n} is not JSON ({exc.msg})") from None
                if not isinstance(obj, dict):
                    raise _fail(p, f"line {n} is not a JSON object")
                rows.append(obj)
                if len(rows) == chunk_rows:
                    yield pl.DataFrame(rows, infer_schema_length=None)
                    rows = []
    except UnicodeDecodeError:
        raise _fail(p, f"is not UTF-8 text (near line {n + 1})") from None
    except (OSError, EOFError) as exc:
        raise _fail(p, f"cannot be read ({exc})") from None
    if rows:
        yield pl.DataFrame(rows, infer_schema_length=None)
    elif n == 0:
        raise _fail(p, "holds no rows")


# ---------------------------------------------------------------------------- columns
def split_target(frame: Any, target: str, path: Any) -> tuple[Any, np.ndarray, int]:
    """(feature frame, labels, number of rows dropped for a missing label)."""
    keep = _labelled(frame, target, path)
    dropped = int(len(keep) - keep.sum())
    frame = frame.filter(keep)
    return frame.drop(target), frame.get_column(target).to_numpy(), dropped


def unlabelled_rows(frame: Any, target: str, path: Any) -> Any:
    """The feature frame of the rows whose label is empty (semi-supervised training)."""
    return frame.filter(~_labelled(frame, target, path)).drop(target)


def _labelled(frame: Any, target: str, path: Any) -> Any:
    if target not in frame.columns:
        raise DataError(f"{path}: no column {target!r} (the --target); columns are {frame.columns}")
    y = frame.get_column(target)
    keep = y.is_not_null()
    if y.dtype.is_float():
        keep = keep & y.is_not_nan()
    if y.dtype == __import__("polars").String:
        keep = keep & (y.str.strip_chars() != "")
    return keep


def choose_columns(frame: Any, ignore: list[str], overrides: dict[str, str], path: Any) -> dict[str, str]:
    """Column -> kind (gaussian / categorical / bernoulli / text), the dtype's choice unless
    overridden on the command line."""
    from ..naive_bayes.mixed import NaiveBayes

    for name in list(ignore) + list(overrides):
        if name not in frame.columns:
            raise DataError(f"{path}: no column {name!r}; columns are {frame.columns}")
    cols = [c for c in frame.columns if c not in ignore]
    if not cols:
        raise DataError(f"{path}: no feature columns left (all ignored or only the target)")
    kinds = NaiveBayes()._infer_kinds(frame.select(cols))
    return {c: overrides.get(c, k) for c, k in zip(cols, kinds)}


def model_input(model: Any, frame: Any, columns: dict[str, str], path: Any) -> Any:
    """The feature frame in the form the model takes."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{path}: no column {missing[0]!r}, which the model was trained on; columns are {frame.columns}")
    sub = frame.select(list(columns))
    model = getattr(model, "base_estimator_", model)  # a calibrated model takes its base's input
    kind = type(model).__name__
    if kind == "TextClassifier":
        col = sub.get_column(list(columns)[0])
        return ["" if t is None else str(t) for t in col.to_list()]
    if kind in ("NaiveBayes", "CategoricalNB"):
        return sub
    return numeric_matrix(sub, path)


def numeric_matrix(sub: Any, path: Any) -> np.ndarray:
    import polars as pl

    for name, dtype in sub.schema.items():
        if not (dtype.is_numeric() or dtype == pl.Boolean):
            raise DataError(
                f"{path}: column {name!r} is {dtype}, not numeric; this model takes numbers only "
                "(use --model auto or categorical, or --ignore the column)"
            )
    return sub.cast(pl.Float64).to_numpy()
