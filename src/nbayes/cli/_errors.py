"""The command line's boundary: every expected failure ends as one line on stderr
(``nbayes: error: ...``) and exit status 2, without a traceback; every warning raised while a
command runs (numpy's, nbayes', a library's) is one line too (``nbayes: warning: ...``), once
for each place that raises it."""

from __future__ import annotations

import os
import sys
import warnings
from contextlib import contextmanager
from typing import Any, Iterator, NoReturn

import click

from ..errors import NBayesError


def message(exc: BaseException) -> str:
    """One line saying what went wrong, naming the file when the error knows it."""
    if isinstance(exc, NBayesError):
        text = str(exc)
    elif isinstance(exc, OSError):
        reason = "no such file or folder" if isinstance(exc, FileNotFoundError) else (exc.strerror or str(exc))
        name = exc.filename if exc.filename is not None else exc.filename2
        text = f"{os.fsdecode(name)}: {reason}" if name is not None else f"{reason} ({type(exc).__name__})"
    elif isinstance(exc, click.ClickException):
        text = exc.format_message()
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            text += f" (see '{ctx.command_path} --help')"
    else:
        text = f"{type(exc).__name__}: {exc} (set NBAYES_DEBUG=1 for the traceback)"
    return " ".join(text.split()) or type(exc).__name__


def fail(exc: BaseException) -> NoReturn:
    click.echo(f"nbayes: error: {message(exc)}", err=True)
    sys.exit(2)


class _WarningLines:
    """``warnings.showwarning`` for the command line: one line for each place that warns (a
    warning raised again there, say once per fold with other numbers, is not repeated)."""

    def __init__(self) -> None:
        self.seen: set[tuple[type, str, int]] = set()

    def show(self, message: Any, category: type[Warning], filename: str, lineno: int,
             file: Any = None, line: str | None = None) -> None:
        text = " ".join(str(message).split()) or category.__name__
        if (category, filename, lineno) in self.seen:
            return
        self.seen.add((category, filename, lineno))
        if issubclass(category, RuntimeWarning):  # numpy's floating point ("divide by zero ...")
            text = f"numerical problem: {text}; some results may be inf or NaN"
        click.echo(f"nbayes: warning: {text}", err=True)


@contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Every warning in the block as one line on stderr (never Python's ``file:line: Category``
    form with the source line), once for each place that raises it."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _WarningLines().show
        yield


def run_command(invoke: Any) -> Any:
    """``invoke()`` inside the boundary."""
    try:
        with warnings_as_lines():
            return invoke()
    except (click.exceptions.Exit, click.exceptions.Abort):
        raise
    except KeyboardInterrupt:
        click.echo("nbayes: interrupted; nothing was written", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        click.echo(f"nbayes: error: {message(exc)}", err=True)
        sys.exit(exc.exit_code if exc.exit_code else 2)
    except Exception as exc:  # noqa: BLE001 - the boundary: one line, no traceback
        if os.environ.get("NBAYES_DEBUG"):
            raise
        fail(exc)
