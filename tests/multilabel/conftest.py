"""Small multi-label data sets shared by the tests."""

from __future__ import annotations

import numpy as np
import pytest

DOCS = [
    "wheat harvest up in the plains", "corn and wheat prices rise", "oil output cut by producers",
    "crude oil price falls", "wheat exports to asia", "oil tanker hit in the gulf",
    "grain silos full of corn", "opec crude quota talks", "corn belt rain helps crops",
    "gulf oil shipping rates", "wheat and corn futures", "crude stocks build",
]
TAGS = [
    ["grain", "wheat"], ["corn", "grain", "wheat"], ["crude"], ["crude"], ["grain", "wheat"], ["crude", "ship"],
    ["corn", "grain"], ["crude"], ["corn", "grain"], ["crude", "ship"], ["corn", "grain", "wheat"], ["crude"],
]


@pytest.fixture
def counts():
    rng = np.random.RandomState(0)
    X = rng.poisson(1.0, size=(60, 8))
    Y = (rng.rand(60, 4) < 0.35).astype(int)
    Y[Y.sum(1) == 0, 0] = 1
    return X, Y


@pytest.fixture
def texts():
    return list(DOCS), [list(t) for t in TAGS]
