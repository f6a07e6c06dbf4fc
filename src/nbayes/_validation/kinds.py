"""The kind of an input, checked before it is read: a table (rows x features) or documents.

Every reader of X (:func:`~nbayes._validation.arrays.check_X_numeric`, ``nbayes._tables.read_table``,
the text models' documents reader) calls one of these first, so every estimator refuses a
wrong kind the same way: a :class:`~nbayes.errors.DataError` that says what the model takes
and what it was given, never an input read as something else (a dict as its keys, a set in
an arbitrary order, a frame as its column names, a string as its characters).

>>> from nbayes._validation.kinds import check_table, describe
>>> describe({"a": [1, 2]})
"a dict (a mapping with keys 'a')"
>>> try:
...     check_table({"a": [1, 2]})
... except ValueError as e:
...     print(str(e)[:60])
X: expected a 2-D table (rows x features: an array, a list o
"""

from __future__ import annotations

import numbers
import types
from collections.abc import Iterator, Mapping, Set
from typing import Any

import numpy as np

from ..errors import DataError
from .common import show

_FRAMES = ("pandas", "polars", "pyarrow")

#: what a table model takes, in words (every refusal of a table says it)
TABLE = ("a 2-D table (rows x features: an array, a list of rows, a pandas / polars / pyarrow "
         "table or a SciPy sparse matrix)")
#: what a text model takes, in words
DOCUMENTS = ("a 1-D sequence of documents, one str (or UTF-8 bytes) each: a list, a tuple, a 1-D "
             "array, a pandas / polars Series, a pyarrow array or an iterator of str")


def _module(X: Any) -> str:
    return type(X).__module__.split(".")[0]


def _is_frame(X: Any) -> bool:
    return _module(X) in _FRAMES and (hasattr(X, "columns") or hasattr(X, "column_names"))


def _column_names(X: Any) -> list[str]:
    raw = X.column_names if hasattr(X, "column_names") else X.columns
    return [str(c) for c in list(raw)]


def describe(X: Any) -> str:
    """What ``X`` is, in words, for a message: ``"a dict (a mapping with keys 'a')"``,
    ``"a generator"``, ``"a 2-D ndarray of shape (3, 1)"``."""
    if X is None:
        return "None"
    name = type(X).__name__
    if isinstance(X, str):
        return f"a single string ({X!r:.40})"
    if isinstance(X, bytes | bytearray | memoryview):
        return f"a single {name} value ({bytes(X)!r:.40})"
    if isinstance(X, numbers.Number | np.generic):
        return f"a single {name} ({show(X)})"
    if _is_frame(X):
        names = _column_names(X)
        head = ", ".join(repr(n) for n in names[:5]) + (", ..." if len(names) > 5 else "")
        return f"a {_module(X)} {name} with {len(names)} column(s) ({head})"
    shape = getattr(X, "shape", None)
    if isinstance(shape, tuple) and hasattr(X, "ndim"):
        where = "ndarray" if isinstance(X, np.ndarray) else f"{_module(X)} {name}"
        return f"a {len(shape)}-D {where} of shape {tuple(shape)}"
    if isinstance(X, Mapping):
        keys = ", ".join(repr(k) for k in list(X)[:3]) + (", ..." if len(X) > 3 else "")
        return f"a {name} (a mapping with keys {keys})" if len(X) else f"an empty {name} (a mapping)"
    if isinstance(X, Set):
        return f"a {name} of {len(X)} item(s)"
    if isinstance(X, types.GeneratorType):
        return "a generator"
    if isinstance(X, Iterator):
        return f"an iterator ({name})"
    if isinstance(X, list | tuple):
        return f"a {name} of {len(X)} item(s)"
    return f"a {name}"


def _common_refusal(X: Any) -> str | None:
    """Why ``X`` is no input of any model (a hint for the message), or None: nothing, a lone
    value, a mapping, a set."""
    if X is None:
        return "no input"
    if isinstance(X, str | bytes | bytearray | memoryview | numbers.Number | np.generic):
        return "a lone value, not rows"
    if isinstance(X, Mapping):
        return "a mapping is not read by key or column name: pass a table (pandas.DataFrame(X)) or a list"
    if isinstance(X, Set):
        return "a set has no order: its rows could not be matched with labels or predictions; pass a list"
    if not hasattr(X, "__iter__") and not hasattr(X, "__array__") and not hasattr(X, "shape"):
        return "it holds no rows"
    return None


def check_rows(X: Any, who: str = "X") -> None:
    """Refuse what holds no rows of any model, before its rows are counted (a wrapper that
    splits X, such as cross-validation, counts them before its model reads them): nothing, a
    lone value, a mapping, a set, an iterator (counted, it would be used up)."""
    why = _common_refusal(X)
    if why is None and isinstance(X, Iterator):
        why = "an iterator is read once and has no length: pass a list or an array"
    if why is not None:
        raise DataError(f"{who}: expected rows (an array, a table or a list of documents or of rows), "
                        f"got {describe(X)}; {why}")


def reusable(X: Any) -> Any:
    """``X`` as an input that can be read more than once: an iterator (of documents) becomes a
    list; anything else is returned as it is. For a model that gives X to several models (an
    ensemble), each of which reads it."""
    return list(X) if isinstance(X, Iterator) else X


def check_table(X: Any, who: str = "X") -> None:
    """Refuse what is not a table before it is read: nothing, a lone value, a mapping, a set,
    an iterator (a stream of ``(X, y)`` chunks is the chunk reader's), a 1-D Series / Arrow
    array, a list of documents, of mappings or of rows of different lengths. Arrays of any
    number of dimensions pass (their reader says which shape it expected)."""
    why = _common_refusal(X)
    if why is None and isinstance(X, Iterator):
        why = ("an iterator is read once and has no length: pass a list or an array (an iterator of "
               "(X, y) chunks is taken by fit / partial_fit with y=None)")
    if why is None and _module(X) in _FRAMES and not _is_frame(X):
        why = "one feature is a one-column table: s.to_frame() (pandas, polars) or X.reshape(-1, 1)"
    if why is None and isinstance(X, list | tuple) and len(X):
        why = _rows_refusal(X)
    if why is not None:
        raise DataError(f"{who}: expected {TABLE}, got {describe(X)}; {why}")


def _rows_refusal(X: list[Any] | tuple[Any, ...]) -> str | None:
    """Why a list of rows is no table: its rows are documents or mappings, or differ in length."""
    first = X[0]
    if isinstance(first, str | bytes):
        return (f"row 0 is a single {type(first).__name__} ({first!r:.40}): a table takes rows of feature "
                "values, such as [[1.0, 'red'], ...] (documents are a text model's: nbayes.TextClassifier)")
    if isinstance(first, Mapping):
        return f"row 0 is a {type(first).__name__}: records are read by pandas.DataFrame(X) or polars.DataFrame(X)"
    if isinstance(first, Set):
        return f"row 0 is a {type(first).__name__}, whose values have no order: pass a list per row"
    if not hasattr(first, "__len__") or _is_frame(first):
        return None  # a 1-D list of values: the reader says it expected 2-D
    width = len(first)
    for i, row in enumerate(X):
        size = len(row) if hasattr(row, "__len__") and not isinstance(row, str | bytes) else None
        if size != width:
            what = f"{size} value(s)" if size is not None else f"a single {type(row).__name__}"
            return f"row 0 has {width} value(s) and row {i} {what}: every row holds the same features"
    return None


def check_documents(X: Any, who: str = "X") -> None:
    """Refuse what is not a 1-D sequence of documents before it is read: nothing, a lone
    string or value (``[text]`` is one document), a mapping, a set, a table (pandas / polars /
    pyarrow, even of one column: pass the column) or an array of more than one dimension.
    The documents themselves (one str each) are checked as they are read."""
    why = _common_refusal(X)
    if isinstance(X, str | bytes | bytearray):
        why = "a lone document: pass [X] for one document"
    elif _is_frame(X):
        names = _column_names(X)
        first = "text" if "text" in names else (names[0] if names else "text")
        why = f"pass the column of documents, such as df[{first!r}]"
    elif why is None:
        shape = getattr(X, "shape", None)
        if isinstance(shape, tuple) and len(shape) != 1:
            why = "pass one column of it, such as X[:, 0]" if len(shape) >= 2 else "a lone value, not documents"
    if why is not None:
        raise DataError(f"{who}: a text model takes {DOCUMENTS}; got {describe(X)}; {why}")


def check_document(text: Any, who: str = "text") -> None:
    """Refuse what is not one document (a str or UTF-8 bytes): what ``explain`` takes."""
    if not isinstance(text, str | bytes | bytearray):
        raise DataError(f"{who}: expected one document (a str or UTF-8 bytes), got {describe(text)}")
