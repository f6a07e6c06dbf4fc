"""Small multi-label data sets shared by the tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def counts():
    rng = np.random.RandomState(0)
    X = rng.poisson(1.0, size=(60, 8))
    Y = (rng.rand(60, 4) < 0.35).astype(int)
    Y[Y.sum(1) == 0, 0] = 1
    return X, Y
