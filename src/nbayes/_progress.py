"""Progress of long jobs (a search, a comparison, cross-validation): a rich progress bar with
an estimate of the time left, on stderr, when it is a terminal; nothing otherwise.

The Python APIs take ``verbose=`` (default False, as scikit-learn's). The command line turns it
on, and :func:`shows_progress` decides: a bar only when asked and when stderr is a terminal (or
a notebook), so that a pipe, a log file or CI gets no control characters. rich is imported only
when a bar is shown (``import nbayes`` stays fast).

>>> with progress(3, "folds", verbose=False) as advance:
...     for _ in range(3):
...         advance()
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

__all__ = ["progress", "shows_progress"]


def shows_progress(verbose: Any, stream: Any = None) -> bool:
    """Whether a progress bar is drawn: ``verbose`` true and ``stream`` (default stderr) a
    terminal, or a Jupyter notebook's; never when piped, nor with ``TERM=dumb``."""
    if not verbose:
        return False
    stream = sys.stderr if stream is None else stream
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        if isatty is not None and isatty():
            return True
    except (ValueError, OSError):  # a closed stream
        return False
    return "ipykernel" in sys.modules and stream is sys.stderr  # a notebook shows rich's bars too


@contextmanager
def progress(total: float | None, what: str, verbose: Any = False, *, unit: str = "",
             percent: bool = False) -> Iterator[Callable[..., None]]:
    """``with progress(n, "searching", verbose) as advance:`` then ``advance()`` (or
    ``advance(k)``, ``advance(k, total=t)`` to change the total) per piece of work done. Draws
    a bar with the share done, the elapsed time and the estimated time left when
    :func:`shows_progress`; else ``advance`` does nothing. The bar is removed at the end.
    ``percent``: the share done in %, for a total that is not a count (seconds of work)."""
    if not shows_progress(verbose):
        yield _nothing
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    done = [TaskProgressColumn()] if percent else [MofNCompleteColumn(), TextColumn(unit)]
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), *done, TimeElapsedColumn(), TextColumn("eta"),
               TimeRemainingColumn()]
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=total)

        def advance(k: float = 1, *, total: float | None = None, what: str | None = None) -> None:
            bar.update(task, advance=k, total=total, description=what)

        yield advance


def _nothing(k: float = 1, *, total: float | None = None, what: str | None = None) -> None:
    """``advance`` when no bar is drawn."""
