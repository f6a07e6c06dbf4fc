"""nbayes tune, and nbayes evaluate --cv from fold statistics, through the installed command."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes
from nbayes.model_selection import SearchCV, StratifiedKFold, cross_val_predict


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(["nbayes", *args],
                          capture_output=True, text=True, timeout=300)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(5)
    n = 300
    y = rng.choice(["no", "yes"], n)
    colour = np.where(rng.random(n) < np.where(y == "yes", 0.7, 0.3), "red", "blue")
    size = rng.choice(["s", "m", "l"], n)
    path = tmp_path_factory.mktemp("tune") / "t.csv"
    path.write_text("colour,size,label\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(colour, size, y)))
    return path, np.column_stack([colour, size]).astype(object), y


def test_tune_prints_the_search_table_and_saves_the_best(table, tmp_path):
    path, X, y = table
    out = tmp_path / "best.nbm"
    proc = run("tune", str(path), "--target", "label", "--model", "categorical", "--grid", "alpha=0.01,0.5,5",
               "--grid", "fit_prior=true,false", "--cv", "4", "--seed", "3", "-o", str(out), "--json")
    got = json.loads(proc.stdout)
    import pandas as pd

    frame = pd.DataFrame(X, columns=["colour", "size"])
    want = SearchCV(nbayes.CategoricalNB(), {"alpha": [0.01, 0.5, 5.0], "fit_prior": [True, False]},
                    cv=StratifiedKFold(4, shuffle=True, random_state=3)).fit(frame, y)
    assert got["best_params"] == want.best_params_
    assert got["best_score"] == pytest.approx(want.best_score_, abs=1e-12)
    assert [r["rank"] for r in got["table"]] == sorted(r["rank"] for r in got["table"])
    assert len(got["table"]) == 6
    model = nbayes.load(out)
    assert model.alpha == want.best_params_["alpha"]
    human = run("tune", str(path), "--target", "label", "--model", "categorical", "--grid", "alpha=0.01,0.5")
    assert "best:" in human.stdout and "alpha" in human.stdout


def test_tune_bad_grid_is_one_line(table):
    path, _, _ = table
    proc = run("tune", str(path), "--target", "label", "--grid", "alpah=1,2", ok=False)
    assert proc.returncode == 2
    assert "no hyperparameter 'alpah'" in proc.stderr and "Traceback" not in proc.stderr
    proc = run("tune", str(path), "--target", "label", "--grid", "alpha", ok=False)
    assert proc.returncode == 2 and "NAME=VALUE" in proc.stderr


def test_evaluate_cv_equals_cross_val_predict(table):
    path, X, y = table
    got = json.loads(run("evaluate", str(path), "--target", "label", "--cv", "5", "--model", "categorical", "--json").stdout)
    import pandas as pd

    frame = pd.DataFrame(X, columns=["colour", "size"])
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    P = cross_val_predict(nbayes.CategoricalNB(), frame, y, cv=folds, method="predict_proba")
    acc = float(np.mean(np.array(["no", "yes"])[P.argmax(1)] == y))
    assert got["accuracy"] == pytest.approx(acc, abs=1e-12)
    assert_allclose(got["log_loss"], -np.mean(np.log(P[np.arange(len(y)), (y == "yes").astype(int)])), rtol=1e-9)
