"""The command line's boundary: every expected failure ends as one line on stderr
(``nbayes: error: ...``) and exit status 2, without a traceback; every warning raised while a
command runs (numpy's, nbayes', a library's) is one line too (``nbayes: warning: ...``), once
for each place that raises it."""

from __future__ import annotations

import os
import signal
import sys
import threading
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


class _Interrupts:
    """Ctrl-C seen by the command, wherever it landed: a KeyboardInterrupt raised inside a
    callback from compiled code (a C library calling back into Python) is reported by Python as
    "ignored" and surfaces later as another error; it is an interruption all the same."""

    def __init__(self) -> None:
        self.seen = False

    def __enter__(self) -> "_Interrupts":
        self._hook = sys.unraisablehook
        sys.unraisablehook = self._unraisable
        self._handler = None
        if threading.current_thread() is threading.main_thread():
            self._handler = signal.signal(signal.SIGINT, self._sigint)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.unraisablehook = self._hook
        if self._handler is not None:
            signal.signal(signal.SIGINT, self._handler)

    def _sigint(self, signum: int, frame: Any) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def _unraisable(self, info: Any) -> None:
        if issubclass(info.exc_type, KeyboardInterrupt):
            self.seen = True  # swallowed where it was raised: no report, the command stops below
            return
        self._hook(info)


def _stop_interrupted() -> NoReturn:
    click.echo("nbayes: interrupted; nothing was written", err=True)
    sys.exit(130)


def line_buffered() -> None:
    """Each line of stdout written when it is complete, also through a pipe (Python buffers
    a pipe's output in blocks: a long command would print nothing, then everything at once)."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(line_buffering=True)
        except (ValueError, OSError):  # a closed or unusual stream: leave it as it is
            pass


def _reader_gone() -> NoReturn:
    """The reader of stdout closed it (``nbayes predict ... | head``): a quiet exit 0, as a
    Unix tool ends on SIGPIPE; stdout is pointed at /dev/null so that the exit's flush of what
    is left in its buffer does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(0)


def run_command(invoke: Any) -> Any:
    """``invoke()`` inside the boundary."""
    line_buffered()
    interrupts = _Interrupts()
    try:
        with interrupts, warnings_as_lines():
            result = invoke()
            sys.stdout.flush()  # (a closed pipe is found here, not at exit)
            return result
    except (click.exceptions.Exit, click.exceptions.Abort):
        raise
    except BrokenPipeError:
        _reader_gone()
    except KeyboardInterrupt:
        _stop_interrupted()
    except click.ClickException as exc:
        if interrupts.seen:
            _stop_interrupted()
        click.echo(f"nbayes: error: {message(exc)}", err=True)
        sys.exit(exc.exit_code if exc.exit_code else 2)
    except Exception as exc:  # noqa: BLE001 - the boundary: one line, no traceback
        if os.environ.get("NBAYES_DEBUG"):
            raise
        if interrupts.seen:  # the error an interruption left behind
            _stop_interrupted()
        fail(exc)
