"""``nbayes train --calibrate`` and ``nbayes evaluate --calibrate`` report what
:mod:`nbayes.evaluate` computes (the command holds no measures of its own), for any type of label."""

from __future__ import annotations

import gzip
import json

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes import evaluate


@pytest.fixture(scope="module")
def pima(shared_data, tmp_path_factory):
    """pima's rows with the integer label column ``class`` (0 / 1) as a plain CSV."""
    path = tmp_path_factory.mktemp("pima") / "pima.csv"
    path.write_bytes(gzip.decompress((shared_data / "pima_diabetes" / "data.csv.gz").read_bytes()))
    return path


def test_cv_calibrate_with_integer_labels(cli, pima):
    """Integer labels (the CLI's former copy sorted label keys of mixed types and failed)."""
    res = json.loads(cli.ok("evaluate", str(pima), "--target", "class", "--cv", "4", "--calibrate", "--json").stdout)
    c = res["calibration"]
    assert res["labels"] == [0, 1] and c["rows"] == res["rows"] == 768
    assert len(c["temperature_per_fold"]) == 4 and all(t > 0 for t in c["temperature_per_fold"])
    # each fold's base model is the fold model of the uncalibrated cross-validation
    assert c["before"]["log_loss"] == pytest.approx(res["log_loss"], rel=1e-9)
    assert c["before"]["accuracy"] == pytest.approx(res["accuracy"], rel=1e-12)
    assert c["after"]["accuracy"] == c["before"]["accuracy"]  # temperature keeps every argmax


@pytest.mark.parametrize("ensemble", [False, True])
def test_train_calibrate_summary_is_training_calibration(cli, pima, tmp_path, ensemble):
    """The summary's calibration equals nbayes.evaluate.training_calibration of the same fit."""
    model = tmp_path / "m.nbm"
    args = ["train", str(pima), "--target", "class", "-o", str(model), "--calibrate", "sigmoid", "--json"]
    c = json.loads(cli.ok(*args, *(["--calibrate-ensemble"] if ensemble else [])).stdout)["calibration"]
    frame = pl.read_csv(pima)
    X, y = frame.drop("class"), frame["class"].to_numpy()
    base = nbayes.load(model).base_estimator_
    fitted = nbayes.CalibratedClassifier(nbayes.NaiveBayes(**base.get_params()), method="sigmoid",
                                         ensemble=ensemble).fit(X, y)
    want = evaluate.training_calibration(fitted, y)
    assert c.keys() == want.keys() and c["cv"] == 5 and ("ensemble" in c) == ensemble
    for k in ("out_of_fold_before", "out_of_fold_after"):
        np.testing.assert_allclose([c[k][m] for m in sorted(c[k])], [want[k][m] for m in sorted(want[k])], rtol=1e-9)


def test_model_name_of_a_calibrated_text_model():
    """A calibrated text model takes text but has no ``model`` setting of its own."""
    from nbayes.cli._columns import model_name

    texts, y = ["free prize now", "see you at noon", "win cash now", "lunch at noon"] * 4, ["s", "h", "s", "h"] * 4
    text = nbayes.TextClassifier()
    assert model_name(text) == "TextClassifier(multinomial)"
    cal = nbayes.CalibratedClassifier(text, cv=2).fit(texts, y)
    assert "text" in cal.capabilities and model_name(cal) == "CalibratedClassifier"
