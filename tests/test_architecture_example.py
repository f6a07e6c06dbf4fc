"""docs/examples/poisson_nb.py, a model written outside nbayes through the public statistics
protocol, keeps every law nbayes.testing checks, and matches its closed form."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
from numpy.testing import assert_allclose
from scipy.stats import poisson

import nbayes
from nbayes.testing import check_estimator

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "poisson_nb.py"


def _module():
    spec = importlib.util.spec_from_file_location("poisson_nb_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def test_the_example_is_short():
    assert len(EXAMPLE.read_text(encoding="utf-8").splitlines()) < 80


def test_poisson_nb_keeps_every_law():
    PoissonNB = _module().PoissonNB
    for model in (PoissonNB(), PoissonNB(alpha=0.5, beta=2.0, fit_prior=False), PoissonNB(class_alpha=1.0)):
        check_estimator(model, kind="counts")


def test_poisson_nb_is_the_closed_form(tmp_path):
    PoissonNB = _module().PoissonNB
    rng = np.random.default_rng(0)
    X = rng.poisson([1.0, 4.0, 0.5], (200, 3))
    y = np.arange(200) % 2
    m = PoissonNB(alpha=1.0, beta=1.0).fit(X, y)
    rate = np.array([(X[y == c].sum(axis=0) + 1.0) / ((y == c).sum() + 1.0) for c in (0, 1)])
    jll = np.stack([poisson.logpmf(X, rate[c]).sum(axis=1) + np.log(0.5) for c in (0, 1)], axis=1)
    assert_allclose(m.predict_joint_log_proba(X), jll, rtol=1e-12)
    m.save(tmp_path / "p.nbm")
    assert_allclose(nbayes.load(tmp_path / "p.nbm").predict_proba(X), m.predict_proba(X), rtol=0, atol=0)
