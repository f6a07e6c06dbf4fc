"""nbayes train reads the next chunk on a thread while the current one is counted
(cli._output.read_ahead): same chunks, in order, one ahead at most, errors where they occur."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from nbayes.cli._output import read_ahead
from nbayes.errors import DataError


def test_the_chunks_come_in_order_one_ahead_at_most() -> None:
    made: list[int] = []
    readers: set[str] = set()

    def source() -> Iterator[int]:
        for i in range(6):
            readers.add(threading.current_thread().name)
            made.append(i)
            yield i

    got = []
    for item in read_ahead(source()):  # type: ignore[arg-type]
        got.append(item)
        assert len(made) <= item + 2  # this one and at most the next made
    assert got == list(range(6))
    assert threading.current_thread().name not in readers


def test_an_error_making_a_chunk_is_raised_where_it_would_come() -> None:
    def source() -> Iterator[int]:
        yield 0
        yield 1
        raise DataError("line 3 of data.jsonl: not JSON")

    got = []
    with pytest.raises(DataError, match="line 3"):
        for item in read_ahead(source()):  # type: ignore[arg-type]
            got.append(item)
    assert got == [0, 1]


def test_leaving_early_closes_the_source() -> None:
    closed = threading.Event()

    def source() -> Iterator[int]:
        try:
            yield from range(100)
        finally:
            closed.set()

    it = read_ahead(source())  # type: ignore[arg-type]
    assert next(it) == 0
    it.close()
    assert closed.is_set()
