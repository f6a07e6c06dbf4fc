"""Streams of ``(X_i, y_i[, w_i])`` chunks, as ``fit`` / ``partial_fit`` / EM read them."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .._validation import encode_labels, label_array, n_rows, show, sorted_unique, union_labels
from ..errors import DataError, NBayesError

__all__ = ["ChunkStream", "chunk_classes", "is_chunk_stream", "stream_chunks", "stream_into"]

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


class ChunkStream:
    """Chunks a model learns from, held aside until :meth:`finish` (``model.stream()``).

    ``add(X, y, classes=None, sample_weight=None)`` learns a chunk as ``partial_fit`` would, on
    a working copy the stream owns (of the model, or a new model with its settings when
    ``fresh``: what ``fit`` over chunks makes); the model is untouched until ``finish()``, which
    gives it the result in one step (its attributes swapped at once) and returns it. A chunk
    that fails leaves the stream as it was before that chunk. A family may count the chunks
    its own way until ``finish`` (:class:`~nbayes.text.TextClassifier`'s streams count into one
    open term table); the result equals ``partial_fit`` over the same chunks.
    """

    def __init__(self, model: Any, *, fresh: bool = False) -> None:
        self.model = model
        self.work = type(model)(**model.get_params()) if fresh or not hasattr(model, "classes_") else copy.deepcopy(model)
        self.finished = False

    def add(self, X: Any, y: Any = None, classes: Any = None, sample_weight: Any = None) -> ChunkStream:
        """Learn one chunk (as ``partial_fit``; ``classes`` as its first call takes it)."""
        self._check_open()
        self.work.partial_fit(X, y, classes=classes, sample_weight=sample_weight)
        return self

    def close(self) -> None:
        """Make what the stream counted its working model's statistics and parameters (a
        family that counts chunks its own way does it here; by default nothing is open)."""

    def finish(self) -> Any:
        """The model, having learned every chunk added: its attributes replaced by the working
        copy's in one assignment. The stream is spent."""
        self._check_open()
        self.close()
        self.finished = True
        self.model.__dict__ = dict(self.work.__dict__)  # one swap: a reader sees all of it or none
        return self.model

    def _check_open(self) -> None:
        if self.finished:
            raise NBayesError("this stream is finished: start another with model.stream()")


def stream_into(model: _M, chunks: Any, *, fresh: bool, classes: Any = None) -> _M:
    """Learn every chunk through ``model.stream()``, then take its state: all chunks or none."""
    stream = model.stream(fresh=fresh)
    for i, X, y, w in stream_chunks(chunks):
        try:
            stream.add(X, y, classes=classes if i == 0 else None, sample_weight=w)
        except NBayesError as exc:
            raise type(exc)(f"chunk {i} of the stream: {exc}") from None
    stream.finish()
    return model


def chunk_classes(labels: np.ndarray, classes: Any, fitted: np.ndarray | None, declared_before: bool) -> np.ndarray:
    """The classes after a ``partial_fit`` chunk with the sorted ``labels``: those of the
    earlier calls (``fitted``, None on the first call) and the chunk's. ``classes`` (this call's
    argument) must equal the earlier classes and hold every label; classes declared by the first
    call (``declared_before``) are a contract (CORRECTNESS.md): a label outside them is an error."""
    base = fitted
    if classes is not None:
        declared = sorted_unique(np.asarray(list(classes) if not hasattr(classes, "dtype") else classes))
        if fitted is not None and not _same_labels(declared, fitted):
            raise DataError(
                f"classes={declared.tolist()!r} differs from the classes of the earlier "
                f"partial_fit calls {fitted.tolist()!r}"
            )
        _, unknown = encode_labels(labels, declared)
        if unknown.any():
            raise DataError(
                f"y holds label {show(labels[np.argmax(unknown)])}, which is not in "
                f"classes={declared.tolist()!r}"
            )
        base = declared if fitted is None else base
    elif fitted is not None and declared_before:
        _, unknown = encode_labels(labels, fitted)
        if unknown.any():
            raise DataError(
                f"y holds label {show(labels[np.argmax(unknown)])}, which is not among the classes "
                f"declared by the first partial_fit (classes={fitted.tolist()!r}); the model "
                "is unchanged"
            )
    return labels if base is None else union_labels(base, labels)


def _same_labels(a: np.ndarray, b: np.ndarray) -> bool:
    if len(a) != len(b):
        return False
    _, unknown = encode_labels(a, b)
    return not unknown.any()
