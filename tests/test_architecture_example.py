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


def test_poisson_nb_goes_through_the_door(tmp_path):
    """A model written outside nbayes, declaring only capabilities and the protocol methods, is
    taken by every layer above the models: model selection, the service and the CLI (no list of
    classes anywhere decides what it reads: its input_kind does)."""
    import json

    from click.testing import CliRunner
    from starlette.testclient import TestClient

    from nbayes.cli import main
    from nbayes.model_selection import SearchCV, cross_val_predict
    from nbayes.serve import create_app

    PoissonNB = _module().PoissonNB
    rng = np.random.default_rng(1)
    y = np.arange(120) % 2
    X = rng.poisson(np.where(y[:, None] == 1, [4.0, 1.0, 2.0], [1.0, 3.0, 2.0]))
    assert PoissonNB().input_kind == "matrix"

    # model selection: out-of-fold predictions equal refits by hand; the search picks a setting
    folds = [(np.flatnonzero(np.arange(120) % 3 != k), np.flatnonzero(np.arange(120) % 3 == k)) for k in range(3)]
    P = cross_val_predict(PoissonNB(), X, y, cv=folds, method="predict_proba")
    for train, test in folds:
        assert_allclose(P[test], PoissonNB().fit(X[train], y[train]).predict_proba(X[test]), rtol=1e-10)
    search = SearchCV(PoissonNB(), {"alpha": [0.5, 2.0]}, cv=3).fit(X, y)
    assert search.best_params_["alpha"] in (0.5, 2.0)

    # the service: predictions and explanations as a Python user gets them
    m = PoissonNB().fit(X, y)
    path = tmp_path / "poisson.nbm"
    m.save(path)
    row = {"x0": 3, "x1": 1, "x2": 2}
    with TestClient(create_app(str(path))) as c:
        got = c.post("/v1/predict", json={"row": row}).json()
        want = m.predict_proba([[3, 1, 2]])[0]
        assert_allclose([got["probabilities"][k] for k in ("0", "1")], want, rtol=1e-12)
        ex = c.post("/v1/explain", json={"row": row}).json()
        total = sum(f["contribution"] for f in ex["features"]) + ex["baseline"]
        assert np.isclose(total, ex["log_odds"], rtol=1e-12)
        jll = m.predict_joint_log_proba([[3, 1, 2]])[0]
        assert np.isclose(ex["log_odds"], abs(jll[1] - jll[0]), rtol=1e-12)

    # the CLI (in this process, where the kind is registered)
    out = CliRunner().invoke(main, ["explain", str(path), "--row", json.dumps(row), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["predicted"] == int(m.predict([[3, 1, 2]])[0])
