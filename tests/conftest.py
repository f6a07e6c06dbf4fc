"""Shared fixtures: seeded randomness, the shared datasets, strict settings."""

from __future__ import annotations

import os
from pathlib import Path

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
