"""Streams of ``(X_i, y_i[, w_i])`` chunks, as ``fit`` / ``partial_fit`` / EM read them."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from .._validation import label_array, n_rows
from ..errors import DataError, NBayesError

__all__ = ["is_chunk_stream", "stream_chunks", "stream_into"]

if TYPE_CHECKING:  # pragma: no cover
    from ._base import BaseNB

_M = TypeVar("_M", bound="BaseNB")


def is_chunk_stream(X: Any) -> bool:
    """An iterator or generator (not a list, array or frame): a stream of (X_i, y_i) chunks."""
    return isinstance(X, Iterator)


def stream_chunks(chunks: Any) -> Iterator[tuple[int, Any, Any, Any]]:
    """(index, X, y, sample_weight or None) of each chunk (X, y) or (X, y, w) of a stream; a
    chunk of another shape, or an empty stream, is a DataError."""
    n = 0
    for n, chunk in enumerate(chunks, start=1):
        if not isinstance(chunk, tuple) or len(chunk) not in (2, 3):
            raise DataError(
                f"chunk {n - 1} of the stream is a {type(chunk).__name__}; expected a tuple "
                "(X, y) or (X, y, sample_weight)"
            )
        yield n - 1, chunk[0], chunk[1], chunk[2] if len(chunk) == 3 else None
    if n == 0:
        raise DataError("the stream of chunks is empty; nothing to learn")


class _Transaction:
    """Restores an estimator's attributes when the block inside raises."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def __enter__(self) -> None:
        self.saved = dict(self.model.__dict__)

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:  # the exception propagates
        if kind is not None:
            self.model.__dict__.clear()
            self.model.__dict__.update(self.saved)


def _is_empty(X: Any, y: Any) -> bool:
    """A chunk with no rows (and no labels)."""
    try:
        n = n_rows(X)
    except NBayesError:
        return False
    return n == 0 and y is not None and len(label_array(y)) == 0


def stream_into(model: _M, chunks: Any, *, fresh: bool, classes: Any = None) -> _M:
    """partial_fit every chunk on a working copy, then take its state: all chunks or none."""
    work = type(model)(**model.get_params()) if fresh or not hasattr(model, "classes_") else copy.deepcopy(model)
    for i, X, y, w in stream_chunks(chunks):
        try:
            work.partial_fit(X, y, classes=classes if i == 0 else None, sample_weight=w)
        except NBayesError as exc:
            raise type(exc)(f"chunk {i} of the stream: {exc}") from None
    model.__dict__.clear()
    model.__dict__.update(work.__dict__)
    return model
