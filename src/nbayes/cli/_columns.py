"""From rows of a file to a model: the label column, the typing of the feature columns, the
estimator a ``--model`` name makes, and the input in the form the model takes.

What a model can take is its ``input_kind`` (``"text"``: documents; ``"table"``: named columns
of values of any type; ``"matrix"``: numbers), which it declares through its capabilities,
never its class name.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np
import polars as pl

from ..errors import ConvergenceError, DataError
from ._read import Chunk, DataFile, Source



@dataclass
class Labelled:
    """Labelled rows: features ``X``, labels ``y``, and ``rows``: the data row of the file
    (0-based) of each of them, for error messages."""

    X: pl.DataFrame
    y: np.ndarray
    rows: np.ndarray
    dropped: int


def split_target(frame: pl.DataFrame, target: str, source: DataFile, start: int = 0) -> Labelled:
    """The rows of ``frame`` (its first row being data row ``start`` of the file) that have a
    label; rows without one are dropped and counted."""
    keep = _labelled(frame, target, source)
    dropped = int(len(keep) - keep.sum())
    kept = frame.filter(keep)
    rows = start + np.flatnonzero(keep.to_numpy())
    return Labelled(kept.drop(target), kept.get_column(target).to_numpy(), rows, dropped)


def labelled(chunks: Iterable[Chunk], target: str, source: DataFile) -> Labelled:
    """All labelled rows of ``chunks`` (of ``source``) at once."""
    parts = [split_target(c.frame, target, source, c.start) for c in chunks]
    if len(parts) == 1:
        return parts[0]
    return Labelled(pl.concat([p.X for p in parts], how="vertical_relaxed"), np.concatenate([p.y for p in parts]),
                    np.concatenate([p.rows for p in parts]), sum(p.dropped for p in parts))


def unlabelled_rows(frame: pl.DataFrame, target: str, source: DataFile) -> pl.DataFrame:
    """The feature frame of the rows whose label is empty (semi-supervised training)."""
    return frame.filter(~_labelled(frame, target, source)).drop(target)


def _labelled(frame: pl.DataFrame, target: str, source: DataFile) -> pl.Series:
    if target not in frame.columns:
        raise source.fail(f"no column {target!r} (the --target); columns are {frame.columns}")
    y = frame.get_column(target)
    keep = y.is_not_null()
    if y.dtype.is_float():
        keep = keep & y.is_not_nan()
    if y.dtype == pl.String:
        keep = keep & (y.str.strip_chars() != "")
    return keep


class Columns(dict[str, str]):
    """Column -> kind of the feature columns a model reads, and ``left_out``: column -> why the
    typing left it out by default (an identifier-like column; named by ``--categorical`` /
    ``--text`` it is kept)."""

    def __init__(self, kinds: dict[str, str], left_out: dict[str, str] | None = None,
                 named: set[str] | None = None) -> None:
        super().__init__(kinds)
        self.left_out: dict[str, str] = dict(left_out or {})
        #: the columns whose kind the command line named (the others' kinds are the data's)
        self.named: set[str] = set(named or ())


#: a string column with at least this many values, every one different, is an identifier (a
#: key, a timestamp string, a file path): as a categorical feature each value is seen once, so
#: it says nothing about a new row; left out unless named on the command line
IDENTIFIER_MIN_ROWS = 20

_WORD = re.compile(r"^[^\W\d_]+(?:['\u2019-][^\W\d_]+)*$")
_EDGE = ".,;:!?\"'()[]{}<>*\u201c\u201d\u2018\u2019"


def prose(values: list[str], min_words: float = 2.0) -> bool:
    """Whether strings read as free text: most whitespace-separated tokens are words (letters
    only, once edge punctuation is stripped), most characters are letters, ``min_words`` words
    or more a value on average. A timestamp (``Thu, 29 Apr 1993 11:57:19 GMT``) or a path with spaces
    (``C:/My Documents/report 2.pdf``) is not."""
    if not values:
        return False
    tokens = [t.strip(_EDGE) for v in values for t in v.split()]
    words = sum(1 for t in tokens if _WORD.match(t))
    letters = sum(ch.isalpha() for v in values for ch in v)
    chars = sum(len(v) for v in values)
    return words >= 0.5 * max(1, len(tokens)) and letters >= 0.5 * max(1, chars) and words >= min_words * len(values)


#: a text column whose values hold this many whitespace-separated tokens on average is made of
#: documents, whatever their tokens look like (codes, hashed or numbered words): an identifier,
#: a timestamp (``Thu, 29 Apr 1993 11:57:19 GMT``: 6) or a path has fewer
DOCUMENT_TOKENS = 8.0


def _tokens_per_value(values: list[str]) -> float:
    return sum(len(v.split()) for v in values) / max(1, len(values))


def identifier_reason(column: pl.Series, kind: str) -> str | None:
    """Why a column typed ``kind`` is an identifier (a sentence for the column table), or None:
    a non-numeric column of :data:`IDENTIFIER_MIN_ROWS` values or more, all distinct, that is
    not free text (:func:`prose`) nor documents of :data:`DOCUMENT_TOKENS` tokens or more."""
    if kind not in ("categorical", "text") or column.dtype.is_numeric() or column.dtype == pl.Boolean:
        return None
    values = column.drop_nulls()
    n = len(values)
    if n < IDENTIFIER_MIN_ROWS or values.n_unique() < n:
        return None
    sample = [str(v) for v in values.head(1000).to_list()]
    if kind == "text" and (prose(sample) or _tokens_per_value(sample) >= DOCUMENT_TOKENS):
        return None
    return f"identifier-like: all {n:,} values distinct"


def short_text(column: pl.Series, kind: str) -> bool:
    """Whether a string column typed categorical is short free text instead (review titles,
    one-line questions): :data:`IDENTIFIER_MIN_ROWS` values or more, all distinct (useless as
    categories, each seen once), that read as prose of three words or more on average; its
    words are the features a new row shares."""
    if kind != "categorical" or column.dtype != pl.String:
        return False
    values = column.drop_nulls()
    n = len(values)
    return n >= IDENTIFIER_MIN_ROWS and values.n_unique() == n and prose(values.head(1000).to_list(), 3.0)


def streams(model: Any) -> bool:
    """Whether ``partial_fit`` over chunks equals ``fit`` for this model: it learns from chunks
    and is its statistics (not logistic regression's iterative fit, nor nblr's)."""
    return bool({"partial_fit", "statistics"} <= model.capabilities)


def model_name(model: Any) -> str:
    """The estimator as the summaries show it: ``TextClassifier(multinomial)`` (a text model's
    ``model`` setting); a wrapper such as a calibrated text model by its own class name."""
    name = type(model).__name__
    inner = model.get_params(deep=False).get("model") if "text" in model.capabilities else None
    return f"{name}({inner})" if isinstance(inner, str) else name


def columns_of(model: Any, cli: dict[str, Any], frame: pl.DataFrame, target: str | None) -> dict[str, str]:
    """The columns a loaded model reads (as the CLI trained it, else as the model names them)."""
    model = getattr(model, "base_estimator_", model)  # a calibrated model: its base's columns
    if cli.get("columns"):
        return dict(cli["columns"])
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return {str(n): "?" for n in names}
    cols = [c for c in frame.columns if c != (target or cli.get("target"))]
    if model.input_kind == "text":
        return {("text" if "text" in cols else cols[0]): "text"}
    return {c: "?" for c in cols}


def model_input(model: Any, frame: pl.DataFrame, columns: dict[str, str], source: Any, column: bool = False) -> Any:
    """The feature frame in the form the model takes: documents, a table, or a float matrix.
    ``column``: documents as the frame's column (a missing one empty), which the text kernels
    read from its Arrow buffers without a Python string per document (to train on or predict a
    chunk; a list elsewhere, where the documents are indexed and joined)."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise DataError(f"{source}: no column {missing[0]!r}, which the model was trained on; columns are {frame.columns}")
    sub = frame.select(list(columns))
    kind = model.input_kind  # a calibrated model reads what its base model reads
    if kind == "text":
        col = sub.get_column(list(columns)[0])
        if column and col.dtype == pl.String:
            return col.fill_null("")
        return ["" if t is None else str(t) for t in col.to_list()]
    if kind == "table":
        return sub
    return numeric_matrix(sub, source)


def numeric_matrix(sub: pl.DataFrame, source: Any) -> np.ndarray:
    """The columns as floats, a missing value NaN (a column with no value at all too: the model
    leaves it out, or says it needs every feature)."""
    for name, dtype in sub.schema.items():
        if not (dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null):
            raise DataError(
                f"{source}: column {name!r} is {dtype}, not numeric; this model takes numbers only "
                "(use --model auto or categorical, or --ignore the column)"
            )
    return sub.cast(pl.Float64).to_numpy()


# ---------------------------------------------------------------------------- rows in errors
#: how the models name a row of their input: "X: row 12, column 'a' holds ...", or
#: "X: Negative values in data: row 12, column 3 holds ..."
_ROW = re.compile(r"^(X|y|sample_weight|X_unlabeled): (?:([^:]+): )?row (\d+)")
_COLUMN = re.compile(r"^, column (\d+)\b")
#: "X: column 3: ..." (a column as a whole)
_COLUMN_ONLY = re.compile(r"^(X|X_unlabeled): column (\d+)\b")


@contextmanager
def file_rows(source: Source, rows: np.ndarray, unlabeled: tuple[DataFile, np.ndarray] | None = None,
              columns: Iterable[str] | None = None) -> Iterator[None]:
    """A model's error about row ``i`` of its input, said of the file: ``FILE: line N: ...``
    (``rows[i]`` is that input row's data row in the file; ``unlabeled``: the same for
    ``X_unlabeled``; ``columns``: the names of a matrix's columns). Other errors of the model
    get the file's name in front."""
    try:
        yield
    except (DataError, ConvergenceError) as exc:  # about the data: said of the file
        names = list(columns) if columns is not None else None
        raise type(exc)(relabel(str(exc), source, rows, unlabeled, names)) from None


def relabel(message: str, source: Source, rows: np.ndarray, unlabeled: tuple[DataFile, np.ndarray] | None = None,
            columns: list[str] | None = None) -> str:
    """``message`` of a model about its input, said of the file (see :func:`file_rows`)."""
    c = _COLUMN_ONLY.match(message)
    if c is not None and columns is not None and int(c.group(2)) < len(columns):
        src = unlabeled[0] if (unlabeled is not None and c.group(1) == "X_unlabeled") else source
        return f"{src.name}: column {columns[int(c.group(2))]!r}{message[c.end():]}"
    m = _ROW.match(message)
    if m is not None:
        src, at = unlabeled if (unlabeled is not None and m.group(1) == "X_unlabeled") else (source, rows)
        i = int(m.group(3))
        if i < len(at):
            rest = message[m.end():]
            c = _COLUMN.match(rest)
            if c is not None and columns is not None and int(c.group(1)) < len(columns):
                rest = f", column {columns[int(c.group(1))]!r}{rest[c.end():]}"
            problem = f": {m.group(2)}" if m.group(2) else ""
            return f"{src.name}: {src.where(int(at[i]))}{problem}{rest}"
    if message.startswith(source.name):
        return message
    return f"{source.name}: {message}"
