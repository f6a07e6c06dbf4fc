"""What the commands print: JSON on stdout, rich tables, a progress line on a terminal."""

from __future__ import annotations

import ctypes
import json
import sys
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any, Iterator

import click
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ._read import Chunk, Source


def emit(data: Any) -> None:
    """``data`` as indented JSON on stdout."""
    click.echo(json.dumps(data, indent=2, default=json_default))


def json_default(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def plain(v: Any) -> Any:
    """A label or value as JSON writes it (numpy scalars as Python ones, tuples as lists)."""
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, tuple):
        return [plain(e) for e in v]
    return v


class _Console(Console):
    """rich's console, but a closed stdout (``| head``) is left to the command line's boundary
    (a quiet exit 0) instead of rich's exit 1."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def console() -> Console:
    return _Console(stderr=False, highlight=False)


def progress(what: str) -> Progress:
    return Progress(
        SpinnerColumn(), TextColumn(what), BarColumn(), TextColumn("{task.completed:,} rows"),
        TimeElapsedColumn(), transient=True, console=Console(stderr=True),
    )


def return_freed_memory() -> None:
    """Have glibc give blocks of 1 MB and more back to the system when they are freed.

    Its default threshold for that adapts upward: once a block of up to 32 MB was freed, later
    blocks below that size stay in the heap, where a stream of chunk-sized arrays fragments it
    and holds the resident memory of its largest moments (measured: a 300 MB stream through
    ``nbayes train`` peaked at 716 MB with the default, 572 MB with the fixed threshold, at the
    same speed). Elsewhere, or without glibc, nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL("libc.so.6").mallopt(_M_MMAP_THRESHOLD, 1 << 20)
    except (OSError, AttributeError):
        pass


#: mallopt's parameter number for the mmap threshold (glibc's malloc.h)
_M_MMAP_THRESHOLD = -3


def chunks(source: Source, what: str, show: bool = True, ahead: bool = False) -> Iterator[Chunk]:
    """The chunks of ``source``, with a progress line on a terminal (stderr) while they come;
    with ``ahead``, each read and parsed on a thread while the one before is used
    (:func:`read_ahead`)."""
    return_freed_memory()
    every = read_ahead(source.chunks()) if ahead else source.chunks()
    if not (show and sys.stderr.isatty()):
        yield from every
        return
    with progress(what) as bar:
        task = bar.add_task(what, total=None)
        for chunk in every:
            rows = chunk.frame.height
            yield chunk
            del chunk  # (not held while the next is read)
            bar.update(task, advance=rows)


def read_ahead(items: Iterator[Chunk]) -> Iterator[Chunk]:
    """``items``, the next one made on another thread while the caller uses this one: reading
    and parsing a chunk (polars releases the GIL) overlap the counting of the one before. One
    chunk ahead at most, so memory holds two chunks. An error raised making a chunk is raised
    here, where that chunk would have been yielded."""
    pool = ThreadPoolExecutor(1, thread_name_prefix="nbayes-read")
    end = object()
    coming = pool.submit(next, items, end)
    try:
        while True:
            box: list[Any] = [coming.result()]
            if box[0] is end:
                return
            coming = pool.submit(next, items, end)
            yield box.pop()  # (the generator's frame keeps no reference to the chunk)
    finally:
        wait([coming])  # the reader is not left running while ``items`` is closed
        pool.shutdown()
        if hasattr(items, "close"):
            items.close()


def scores_table(first: str, per: dict[str, dict[str, Any]]) -> Any:
    """A rich table of precision, recall, F1 and support, one row per class or label (``first``
    names the first column)."""
    t = Table(show_edge=False)
    for c in (first, "precision", "recall", "f1", "support"):
        t.add_column(c, justify="left" if c == first else "right")
    for label, m in per.items():
        t.add_row(label, f"{m['precision']:.3f}", f"{m['recall']:.3f}", f"{m['f1']:.3f}", f"{m['support']:,}")
    return t
