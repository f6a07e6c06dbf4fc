"""Streams of ``(X_i, y_i[, w_i])`` chunks, as ``fit`` / ``partial_fit`` / EM read them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..errors import DataError

__all__ = ["is_chunk_stream", "stream_chunks"]


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
