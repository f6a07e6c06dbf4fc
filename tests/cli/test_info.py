"""One model info: ``nbayes info --json`` and the service's ``GET /v1/model`` give the same values,
of the same types, for the same file (an integer count stays an integer)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import nbayes
from nbayes.cli import main

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from nbayes.serve import create_app  # noqa: E402


def same_values(a, b, where="") -> None:
    assert type(a) is type(b), (where, a, b)
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            same_values(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            same_values(x, y, f"{where}[{i}]")
    else:
        assert a == b, (where, a, b)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    d = tmp_path_factory.mktemp("info")
    rng = np.random.default_rng(1)
    out = {}
    X = rng.poisson(2, size=(120, 4))
    y = np.where(X[:, 0] > 2, "spam", "ham")
    nbayes.MultinomialNB().fit(X, y).save(d / "counts.nbm")
    w = np.full(120, 0.5)
    nbayes.GaussianNB().fit(X.astype(float), y, sample_weight=w).save(d / "weighted.nbm")
    nbayes.CalibratedClassifier(nbayes.GaussianNB(), method="sigmoid").fit(X.astype(float), y).save(d / "calibrated.nbm")
    texts = ["win a prize now", "meeting at noon", "free money win", "lunch tomorrow"] * 10
    nbayes.TextClassifier().fit(texts, ["spam", "ham", "spam", "ham"] * 10).save(d / "text.nbm")
    csv = d / "t.csv"
    csv.write_text("colour,size,label\n" + "".join(f"{c},{s},{'yes' if c == 'red' else 'no'}\n"
                                                    for c, s in zip(["red", "blue"] * 60, range(120))))
    result = CliRunner().invoke(main, ["train", str(csv), "--target", "label", "-o", str(d / "cli.nbm")])
    assert result.exit_code == 0, result.output
    for name in ("counts", "weighted", "calibrated", "text", "cli"):
        out[name] = d / f"{name}.nbm"
    return out


@pytest.mark.parametrize("name", ["counts", "weighted", "calibrated", "text", "cli"])
def test_info_equals_v1_model(models, name):
    path = str(models[name])
    result = CliRunner().invoke(main, ["info", path, "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    served = TestClient(create_app(path)).get("/v1/model").json()
    shared = [k for k in info if k in served]
    assert set(shared) == set(info)  # the service says everything info says
    for k in shared:
        same_values(info[k], served[k], k)
    assert isinstance(info["training_rows"], int) and info["training_rows"] == {"weighted": 60}.get(name, 120 if name != "text" else 40)
    if name == "calibrated":
        assert info["calibration"]["method"] == "sigmoid" and info["calibration"]["base_model"] == "GaussianNB"


def test_text_output_shows_an_integer(models):
    result = CliRunner().invoke(main, ["info", str(models["counts"])])
    line = next(x for x in result.stdout.splitlines() if "training_rows" in x)
    assert line.split()[-1] == "120"
