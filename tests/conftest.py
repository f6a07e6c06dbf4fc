"""Shared fixtures: seeded randomness, the shared datasets, strict settings."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# CI: bounded and deterministic (the same examples every run); dev: fresh random examples
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=30, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator: every test's randomness is reproducible."""
    return np.random.default_rng(20261123)


def data_dir() -> Path | None:
    """``$NBAYES_DATA`` or ``../shared/data`` beside the repository, if present."""
    env = os.environ.get("NBAYES_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[2] / "shared" / "data")
    for c in candidates:
        if c.is_dir():
            return c
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared datasets folder. Outside CI a test needing it skips when it is absent;
    with CI=true its absence is a failure, never a silent green."""
    d = data_dir()
    if d is None:
        msg = "shared datasets not found: set NBAYES_DATA or put ../shared/data beside the repo"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return d


# ---------------------------------------------------------------------------- live servers, a browser
CHROMIUM = "/usr/bin/chromium"


@contextlib.contextmanager
def _serving(app: Any) -> Iterator[str]:
    """``app`` on a real uvicorn server in a thread, on a free port: its base URL."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=2))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < end and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture(scope="session")
def live_server() -> Callable[[Any], contextlib.AbstractContextManager[str]]:
    """``with live_server(app) as url:`` serves an ASGI app over real HTTP for the block."""
    return _serving


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Debian Chromium for the page tests (absent: a skip, or a failure with CI=true)."""
    msg = f"{CHROMIUM} is absent: install Debian's browser with `apt-get install chromium` to run the page tests"
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip("playwright is not installed: pip install playwright")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
        )
        try:
            yield b
        finally:
            b.close()


#: a small multi-label text set (Reuters-like topics), shared by the multi-label and service tests
LABELLED_DOCS = [
    "wheat harvest up in the plains", "corn and wheat prices rise", "oil output cut by producers",
    "crude oil price falls", "wheat exports to asia", "oil tanker hit in the gulf",
    "grain silos full of corn", "opec crude quota talks", "corn belt rain helps crops",
    "gulf oil shipping rates", "wheat and corn futures", "crude stocks build",
]
LABEL_SETS = [
    ["grain", "wheat"], ["corn", "grain", "wheat"], ["crude"], ["crude"], ["grain", "wheat"], ["crude", "ship"],
    ["corn", "grain"], ["crude"], ["corn", "grain"], ["crude", "ship"], ["corn", "grain", "wheat"], ["crude"],
]


@pytest.fixture
def texts() -> tuple[list[str], list[list[str]]]:
    """(documents, label sets): fresh copies for each test."""
    return list(LABELLED_DOCS), [list(t) for t in LABEL_SETS]
