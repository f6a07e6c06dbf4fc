"""What ``predict`` and ``explain`` read: a data file, or rows given on the command line
(``--text``, ``--row``, or a TEXT argument for a text model), in the shape of a
:class:`~nbayes.cli._read.DataFile` so that both commands run one path over either."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import click
import polars as pl

from ..errors import DataError
from ._columns import columns_of
from ._read import Chunk, DataFile

#: endings of a name that is a data file (a TEXT argument never ends so)
_DATA_SUFFIXES = (".csv", ".tsv", ".tab", ".txt", ".parquet", ".jsonl", ".ndjson", ".json", ".gz")


class InlineRows:
    """Rows given on the command line, read like a file: one chunk; row i is ``where(i)``."""

    kind = "inline"

    def __init__(self, frame: pl.DataFrame, name: str, item: str) -> None:
        self.frame, self.name, self.item = frame, name, item
        self.na_values: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.name

    def fail(self, what: str) -> DataError:
        return DataError(f"{self.name}: {what}")

    def chunks(self, chunk_rows: int = 0) -> Iterator[Chunk]:
        yield Chunk(self.frame, 0)

    def read_all(self) -> pl.DataFrame:
        return self.frame

    def where(self, row: int) -> str:
        return f"{self.item} {row + 1}" if self.frame.height > 1 else self.item

    def complete(self, columns: dict[str, str], model: Any) -> None:
        """A column a ``--row`` leaves out is a missing value (Naive Bayes leaves it out of the
        product); a model that needs every feature says which one is absent."""
        absent = [c for c in columns if c not in self.frame.columns]
        if not absent or self.item != "row":
            return
        base = getattr(model, "base_estimator_", model)
        if "missing_values" not in base.capabilities:
            raise DataError(
                f"--row: no value for column {absent[0]!r}; a {type(base).__name__} needs every "
                f"feature ({', '.join(columns)}); only Naive Bayes leaves missing ones out"
            )
        self.frame = self.frame.with_columns(pl.lit(None).alias(c) for c in absent)


def inputs_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """``[DATA]``, ``--text TEXT`` and ``--row JSON`` (both repeatable): what ``predict`` and
    ``explain`` read."""
    f = click.option("--row", "rows", multiple=True, metavar="JSON",
                     help='A row of a table model as one JSON object, e.g. \'{"age": 40}\' (repeat for more).')(f)
    f = click.option("--text", "texts", multiple=True, metavar="TEXT",
                     help="A document for a text model (repeat for more).")(f)
    return click.argument("data", required=False)(f)


def looks_like_a_file(arg: str) -> bool:
    """Whether a DATA argument that does not exist names a file (a typo of a path) rather than
    a document: one word with a data file's ending or a folder separator."""
    if any(ch.isspace() for ch in arg):
        return False
    return arg.lower().endswith(_DATA_SUFFIXES) or "/" in arg or os.sep in arg


def read_inputs(model: Any, cli: dict[str, Any], model_path: str, data: str | None, texts: Sequence[str],
                rows: Sequence[str], na_values: Sequence[str]) -> DataFile | InlineRows:
    """The rows to predict or explain: the file DATA, or ``--text`` documents, or ``--row``
    objects; for a text model DATA that is no file and does not look like one is a document."""
    given = [what for what, v in (("DATA", data), ("--text", texts), ("--row", rows)) if v]
    if len(given) > 1:
        raise DataError(f"give one of DATA, --text or --row, not {' and '.join(given)}")
    text_model = model.input_kind == "text"
    if not given:
        what = "DATA (a file) or --text TEXT" if text_model else "DATA (a file) or --row JSON (column -> value)"
        raise DataError(f"{model_path}: nothing to read; give {what}")
    if data is not None and not Path(data).exists() and text_model and not looks_like_a_file(data):
        texts = [data]
    elif data is not None:
        return DataFile(data, na_values)
    if texts:
        if not text_model:
            raise DataError(f"--text: {model_path} is a table model; give a row as --row JSON (column -> value), "
                            "or a file")
        column = next(iter(columns_of(model, cli, pl.DataFrame({"text": [""]}), None)))
        return InlineRows(pl.DataFrame({column: list(texts)}, schema={column: pl.String}),
                          "--text" if data is None else "TEXT", "text")
    return InlineRows(_row_frame(rows), "--row", "row")


def _row_frame(rows: Sequence[str]) -> pl.DataFrame:
    values = []
    for i, row in enumerate(rows, start=1):
        where = "--row" if len(rows) == 1 else f"--row {i}"
        try:
            value = json.loads(row)
        except json.JSONDecodeError as exc:
            raise DataError(f"{where}: not JSON ({exc.msg}); expected one object, column -> value") from None
        if not isinstance(value, dict):
            raise DataError(f"{where}: expected one JSON object, column -> value, got {type(value).__name__}")
        values.append(value)
    names = list(dict.fromkeys(k for v in values for k in v))
    if not names:  # no column at all: every value missing, one row per object
        return pl.DataFrame({"": [None] * len(values)}).drop("")
    try:
        return pl.DataFrame([{k: v.get(k) for k in names} for v in values], infer_schema_length=None)
    except (pl.exceptions.PolarsError, TypeError, ValueError) as exc:
        raise DataError(f"--row: the rows' values do not make one table ({exc})") from None
