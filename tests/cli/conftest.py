"""Helpers for the command-line tests: run the installed ``nbayes`` (or ``python -m nbayes.cli``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

NBAYES = shutil.which("nbayes")


def run(*args: str) -> subprocess.CompletedProcess:
    cmd = [NBAYES, *args] if NBAYES else [sys.executable, "-m", "nbayes.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ.copy())


def ok(*args: str) -> subprocess.CompletedProcess:
    out = run(*args)
    assert out.returncode == 0, out.stderr
    return out


def bad(*args: str, mentions: str | tuple[str, ...]) -> str:
    """Run a command that must fail on bad input: exit 2, one line on stderr, no traceback."""
    out = run(*args)
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    err = out.stderr.strip()
    assert "Traceback" not in out.stderr and len(err.splitlines()) == 1, err
    assert err.startswith("nbayes: error:"), err
    for m in (mentions,) if isinstance(mentions, str) else mentions:
        assert m in err, (m, err)
    return err


@pytest.fixture(name="cli", scope="session")
def _cli() -> object:
    return sys.modules[__name__]
