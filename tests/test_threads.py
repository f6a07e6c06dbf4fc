"""The parallel kernels' thread count is OpenMP's: OMP_NUM_THREADS and threadpoolctl set it, and
the answers do not depend on it beyond rounding (per-thread sums merge in another order)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from numpy.testing import assert_allclose
from threadpoolctl import threadpool_info, threadpool_limits

import nbayes
from nbayes._kernels import OPENMP, set_max_threads, threads


def test_omp_num_threads_sets_the_count() -> None:
    env = dict(os.environ, OMP_NUM_THREADS="1")
    code = "from nbayes._kernels import threads; print(threads())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


def test_threadpoolctl_sees_and_limits_the_kernels() -> None:
    before = threads()
    if OPENMP:
        assert "openmp" in {info["user_api"] for info in threadpool_info()}
    with threadpool_limits(limits=1, user_api="openmp"):
        assert threads() == 1
    assert threads() == before


def test_set_max_threads_refuses_zero() -> None:
    import pytest

    with pytest.raises(ValueError, match="at least 1"):
        set_max_threads(0)


def test_answers_do_not_depend_on_the_thread_count(rng: np.random.Generator) -> None:
    X = rng.normal(size=(3000, 6))
    y = rng.integers(0, 3, 3000)
    with threadpool_limits(limits=1, user_api="openmp"):
        one = nbayes.GaussianNB().fit(X, y).predict_proba(X)
    many = nbayes.GaussianNB().fit(X, y).predict_proba(X)
    assert_allclose(one, many, rtol=1e-12, atol=1e-15)
