"""Paths named on the command line, checked before any work: an output's folder must exist
and be writable, an output must not be a folder nor one of the inputs, an input model file must
be a file. Outputs are written to a temporary name beside them and renamed, so a failed or
interrupted run leaves nothing half-written."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from ..errors import DataError, ModelFileError


def _fail(path: str | os.PathLike[str], what: str) -> DataError:
    return DataError(f"{os.fspath(path)}: {what}")


def check_output(path: str | os.PathLike[str], what: str, inputs: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """``path`` as a place to write ``what`` (a model file, predictions, a report)."""
    name = os.fspath(path)
    if not name:
        raise DataError(f"an empty path where {what} should be written")
    p = Path(name)
    if p.is_dir():
        raise _fail(name, f"is a folder; give a file name for {what}")
    _check_folder(name, p.absolute().parent, what, shown=os.path.dirname(name) or ".")
    if p.exists() and not os.access(p, os.W_OK):
        raise _fail(name, f"cannot write {what}: the file is not writable")
    for source in inputs:
        if p.exists() and os.path.exists(source) and os.path.samefile(p, source):
            raise _fail(name, f"is also an input; writing {what} there would overwrite it")
    return p


def check_output_folder(path: str | os.PathLike[str], what: str) -> Path:
    """``path`` as a folder to write ``what`` into (made if its parent exists)."""
    name = os.fspath(path)
    p = Path(name)
    if p.exists() and not p.is_dir():
        raise _fail(name, f"is a file, not a folder; {what} needs a folder")
    if p.is_dir():
        _check_folder(name, p, what, shown=name)
    else:
        _check_folder(name, p.absolute().parent, what, shown=os.path.dirname(name.rstrip("/\\")) or ".")
    return p


def _check_folder(name: str, folder: Path, what: str, shown: str) -> None:
    if not folder.exists():
        raise _fail(name, f"cannot write {what}: folder {shown} does not exist")
    if not folder.is_dir():
        raise _fail(name, f"cannot write {what}: {shown} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _fail(name, f"cannot write {what}: folder {shown} is not writable")


def write_atomic(path: str | os.PathLike[str], write: Callable[[Path], object], what: str) -> None:
    """``write(tmp)`` to a temporary file beside ``path``, then renamed onto it; on any failure
    the temporary file is removed and the error names ``path``."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, p)
    except OSError as exc:
        raise _fail(path, f"cannot write {what} ({exc.strerror or exc})") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def check_model_file(path: str | os.PathLike[str]) -> None:
    """A model file named as input: a readable, non-empty file (what is inside, the loader checks)."""
    name = os.fspath(path)
    p = Path(name)
    if p.is_dir():
        raise ModelFileError(f"{name}: is a folder, not a model file")
    if not p.exists():
        raise ModelFileError(f"{name}: no such model file")
    if not p.is_file():
        raise ModelFileError(f"{name}: is not a regular file, not a model file")
    if p.stat().st_size == 0:
        raise ModelFileError(f"{name}: is empty, not a model file")
    if not os.access(p, os.R_OK):
        raise ModelFileError(f"{name}: cannot be read (permission denied)")
