"""The one writer of a model file and its update log: an exclusive lock on ``MODEL.lock`` beside
them, held by ``nbayes serve --learn`` for its whole life and by ``nbayes snapshot`` / ``nbayes
repair`` while they work.

The lock is the operating system's (``flock`` on POSIX, ``msvcrt.locking`` on Windows), so it
ends with its process, however it ends (a SIGKILL leaves no stale lock to remove by hand). The
holder writes who it is into the file (pid, host, role, start time) so that a refused writer can
name it. The file itself stays: removing it would let a third process lock a new file while the
second still holds the old one.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from typing import Any

from ..errors import ModelLockedError

# (a platform test rather than try / except ImportError: mypy checks each branch for its platform)
if sys.platform == "win32":  # pragma: no cover - Windows
    import msvcrt
else:
    import fcntl

#: where the Windows lock sits (a byte past any holder's description, so that reading the
#: description is never blocked by the lock)
_WINDOWS_BYTE = 1 << 20


def lock_path(model_path: str) -> str:
    return os.fspath(model_path) + ".lock"


class WriterLock:
    """The exclusive lock on ``model_path`` (and its log), taken at construction (or
    :class:`ModelLockedError` naming the holder), released by :meth:`release` or when the
    process ends."""

    def __init__(self, model_path: str, role: str) -> None:
        self.path = lock_path(model_path)
        self.model_path = os.fspath(model_path)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock(fd)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise ModelLockedError(
                f"{self.model_path} and its update log are being written by {holder}; one writer at a time "
                f"(stop it, or use its endpoints: POST /v1/snapshot takes a snapshot now). The lock is "
                f"{self.path}, released when that process ends"
            ) from None
        self.fd: int | None = fd
        about = {"pid": os.getpid(), "host": socket.gethostname(), "role": role,
                 "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": " ".join(sys.argv)[:300]}
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, (json.dumps(about) + "\n").encode())

    def release(self) -> None:
        fd, self.fd = getattr(self, "fd", None), None
        if fd is not None:
            os.close(fd)  # (closing the descriptor ends the lock)

    def __enter__(self) -> WriterLock:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()

    def __del__(self) -> None:  # a writer that never released (an error in its start): the process's end would
        self.release()


def _lock(fd: int) -> None:
    """Take the lock without waiting (OSError if another holds it)."""
    if sys.platform == "win32":  # pragma: no cover - Windows
        os.lseek(fd, _WINDOWS_BYTE, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _holder(fd: int) -> str:
    """The holder as its description names it."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        raw = os.read(fd, 4096)
        about = json.loads(raw.decode("utf-8", "replace").splitlines()[0])
        return (f"{about.get('role', 'another process')} (pid {about.get('pid')} on {about.get('host')}, "
                f"since {about.get('since')})")
    except (OSError, ValueError, IndexError, AttributeError):
        return "another process (it has not written its name yet)"
