"""Reading CSV, TSV and Parquet files with pyarrow, in chunks (:class:`nbayes.cli._read.DataFile`
loads this module for those kinds only)."""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ..errors import DataError
from ._read import Chunk, DataFile

#: pyarrow's type names, as the messages say them
_ARROW_KINDS = {"double": "a number", "float": "a number", "int64": "an integer", "bool": "a boolean",
                "date32[day]": "a date", "timestamp[s]": "a date-time", "null": "empty"}


def _csv_reader(source: DataFile, as_text: Sequence[str] = ()) -> Any:
    return pacsv.open_csv(
        source.path,
        read_options=pacsv.ReadOptions(block_size=1 << 22),
        parse_options=pacsv.ParseOptions(delimiter=source.delimiter, newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(
            null_values=["", *source.na_values],  # only an empty field (and --na-values) is missing
            strings_can_be_null=True,
            column_types={c: pa.string() for c in as_text},
        ),
    )


def csv_chunks(source: DataFile, chunk_rows: int) -> Iterator[Chunk]:
    """The rows of a CSV or TSV file in chunks (``NaN`` text in a column of numbers refused)."""
    source._check_text_head()
    rows = 0
    try:
        reader = _csv_reader(source)
        batch = reader.read_next_batch()
    except StopIteration:
        raise source.fail("has a header but no rows") from None
    except (pa.ArrowInvalid, OSError, EOFError) as exc:
        raise _arrow_failure(source, exc, 0) from None
    text_nan = _nan_columns(batch)
    if text_nan:  # the text "NaN" is a value: those columns are text, read again as such
        try:
            reader = _csv_reader(source, text_nan)
            batch = reader.read_next_batch()
        except (pa.ArrowInvalid, OSError, EOFError) as exc:
            raise _arrow_failure(source, exc, 0) from None
    while True:
        bad = _nan_columns(batch)
        if bad:
            col = bad[0]
            at = rows + int(pc.index(pc.is_nan(batch.column(col)), True).as_py())
            raise source.fail(
                f"{source.where(at)}, column {col!r}: the text NaN in a column of numbers (only an "
                "empty field is missing; --na-values NaN makes it missing)"
            )
        for start in range(0, batch.num_rows, chunk_rows):
            part = batch.slice(start, chunk_rows)
            # from_arrow of a Table is a DataFrame (polars types it DataFrame | Series)
            yield Chunk(pl.from_arrow(pa.Table.from_batches([part])), rows + start)  # type: ignore[arg-type]
        rows += batch.num_rows
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            break
        except (pa.ArrowInvalid, OSError, EOFError) as exc:
            raise _arrow_failure(source, exc, rows) from None
    if rows == 0:
        raise source.fail("has a header but no rows")


def _arrow_failure(source: DataFile, exc: BaseException, rows: int) -> DataError:
    """pyarrow's message, with the line of the file it is about."""
    msg = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if isinstance(exc, (OSError, EOFError)) and not isinstance(exc, pa.ArrowInvalid):
        hint = " (a truncated or corrupted gzip file)" if source.path.name.lower().endswith(".gz") else ""
        after = f" after data row {rows}" if rows else ""
        return source.fail(f"cannot be read{after}: {msg}{hint}")
    if "Empty CSV file" in msg:
        return source.fail("is empty")
    if "Expected" in msg and "columns" in msg:
        found = source._ragged_record()
        if found is not None:
            line, got, want = found
            return source.fail(f"line {line}: ragged rows: {got} field{'s' * (got != 1)} where the header has "
                             f"{want} (every row needs as many fields as the header)")
        return source.fail(f"ragged rows: {msg} (every row needs as many fields as the header)")
    if "UTF8" in msg or "utf8" in msg.lower():
        line = source._bad_utf8_line()
        return source.fail(f"is not UTF-8 text (line {line}); convert it to UTF-8")
    if "conversion error" in msg and "invalid value" in msg:
        value = msg.split("invalid value", 1)[1].strip().strip("'")
        col = _column_number(msg)
        names = source._header()
        name = names[col] if col is not None and col < len(names) else f"#{col}"
        row = source._find_value(col, value, rows) if col is not None else None
        where = source.where(row) if row is not None else f"after data row {rows:,}"
        kind = msg.split("conversion error to", 1)[1].split(":", 1)[0].strip()
        return source.fail(
            f"{where}, column {name!r}: {value!r} is not {_ARROW_KINDS.get(kind, kind)}, as the column's "
            "values in the rows above are (a column holds one type of value)"
        )
    return source.fail(f"cannot be read as a table: {msg}")


def parquet_chunks(source: DataFile, chunk_rows: int) -> Iterator[Chunk]:
    """The rows of a Parquet file, a row group at a time."""
    import pyarrow.parquet as pq  # only for Parquet: its import costs a CSV's predict 40 ms

    rows = 0
    try:
        f = pq.ParquetFile(source.path, pre_buffer=False)  # one row group at a time: memory stays flat
        for group in range(f.num_row_groups):
            meta = f.metadata.row_group(group)
            per_row = meta.total_byte_size / max(meta.num_rows, 1)  # uncompressed bytes of a row
            size = max(1, min(chunk_rows, int(source.chunk_bytes // max(per_row, 1.0))))
            for batch in f.iter_batches(batch_size=size, row_groups=[group]):
                frame = pl.from_arrow(pa.Table.from_batches([batch]))
                # from_arrow of a Table is a DataFrame (polars types it DataFrame | Series)
                yield Chunk(source._mark_missing(frame), rows)  # type: ignore[arg-type]
                rows += batch.num_rows
    except (pa.ArrowInvalid, OSError) as exc:
        raise source.fail(f"cannot be read as Parquet ({str(exc).splitlines()[0]})") from None
    if rows == 0:
        raise source.fail("has no rows")


def _nan_columns(batch: pa.RecordBatch) -> list[str]:
    """Float columns of a CSV batch holding NaN: in a text file, the text ``NaN`` (or ``nan``)."""
    out = []
    for name, col in zip(batch.schema.names, batch.columns):
        if pa.types.is_floating(col.type) and col.null_count < len(col) and pc.any(pc.is_nan(col)).as_py():
            out.append(name)
    return out


def _column_number(msg: str) -> int | None:
    """The column index of pyarrow's "In CSV column #3: ..."."""
    if "column #" not in msg:
        return None
    digits = msg.split("column #", 1)[1].split(":", 1)[0]
    return int(digits) if digits.isdigit() else None
