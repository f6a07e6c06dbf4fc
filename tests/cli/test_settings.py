"""``--set NAME=VALUE`` of nbayes train, tune and evaluate: any parameter of the model from the
command line, equal to setting it in Python; bad names, values and repeats refused in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

import nbayes

WORDS = ["cheap", "pills", "offer", "win", "prize", "lunch", "noon", "meeting", "report", "today", "call", "now"]


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    rng = np.random.default_rng(11)
    rows = []
    for i in range(120):
        label = "spam" if i % 3 == 0 else "ham"
        pool = WORDS[:6] if label == "spam" else WORDS[5:]
        rows.append({"text": " ".join(rng.choice(pool, rng.integers(3, 9))), "label": label})
    path = tmp_path_factory.mktemp("settings") / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, [r["text"] for r in rows], np.array([r["label"] for r in rows])


def test_train_with_settings_equals_python(cli, texts, tmp_path):
    path, X, y = texts
    out = tmp_path / "m.nbm"
    cli.ok("train", str(path), "--target", "label", "--set", "ngram_range=1:2", "--set", "min_df=2",
           "--set", "binary=true", "--alpha", "0.5", "-o", str(out))
    model = nbayes.load(out)
    params = model.get_params()
    assert tuple(params["ngram_range"]) == (1, 2) and params["min_df"] == 2 and params["binary"] is True
    assert params["alpha"] == 0.5
    ref = nbayes.TextClassifier(ngram_range=(1, 2), min_df=2, binary=True, alpha=0.5).fit(X, y)
    assert_allclose(model.predict_proba(X), ref.predict_proba(X), rtol=1e-12, atol=1e-15)
    assert list(model.vocabulary_) == list(ref.vocabulary_)


def test_hashing_and_character_settings(cli, texts, tmp_path):
    path, X, y = texts
    out = tmp_path / "h.nbm"
    cli.ok("train", str(path), "--target", "label", "--set", "n_features=4096", "--set", "analyzer=char_wb",
           "--set", "ngram_range=2:4", "-o", str(out))
    model = nbayes.load(out)
    ref = nbayes.TextClassifier(n_features=4096, analyzer="char_wb", ngram_range=(2, 4)).fit(X, y)
    assert_allclose(model.predict_proba(X), ref.predict_proba(X), rtol=1e-12, atol=1e-15)


def test_tabular_model_settings(cli, tmp_path):
    rng = np.random.default_rng(2)
    y = rng.choice(["a", "b"], 80)
    x = rng.normal(size=80) + (y == "a")
    path = tmp_path / "g.csv"
    path.write_text("x,label\n" + "".join(f"{v},{c}\n" for v, c in zip(x, y)))
    out = tmp_path / "g.nbm"
    cli.ok("train", str(path), "--target", "label", "--model", "gaussian", "--set", "var_smoothing=0.5", "-o", str(out))
    model = nbayes.load(out)
    assert model.get_params()["var_smoothing"] == 0.5


@pytest.mark.parametrize(("args", "mentions"), [
    (("--set", "colour=1"), ("--set colour", "no parameter 'colour'", "ngram_range")),
    (("--set", "ngram_range"), ("expected NAME=VALUE",)),
    (("--set", "=3"), ("expected NAME=VALUE",)),
    (("--set", "alpha=0.1", "--alpha", "0.2"), ("--alpha and --set alpha", "twice")),
    (("--set", "min_df=1", "--set", "min_df=2"), ("--set min_df", "twice")),
    (("--set", "ngram_range=2:1"), ("ngram_range",)),
    (("--set", "analyzer=letters"), ("analyzer", "letters")),
])
def test_bad_settings_are_one_line(cli, texts, tmp_path, args, mentions):
    path, _, _ = texts
    out = tmp_path / "never.nbm"
    cli.bad("train", str(path), "--target", "label", *args, "-o", str(out), mentions=mentions)
    assert not out.exists()


def test_tune_and_evaluate_take_settings(cli, texts, tmp_path):
    path, X, y = texts
    proc = cli.ok("tune", str(path), "--target", "label", "--set", "ngram_range=1:2", "--grid", "alpha=0.1,1",
                  "--cv", "3", "-o", str(tmp_path / "best.nbm"), "--json")
    assert {r["alpha"] for r in json.loads(proc.stdout)["table"]} == {0.1, 1}
    assert tuple(nbayes.load(tmp_path / "best.nbm").get_params()["ngram_range"]) == (1, 2)
    cli.bad("tune", str(path), "--target", "label", "--set", "alpha=1", "--grid", "alpha=0.1,1",
            mentions=("--grid alpha and --set alpha",))
    proc = cli.ok("evaluate", str(path), "--target", "label", "--cv", "3", "--set", "analyzer=char_wb",
                  "--set", "ngram_range=2:3", "--json")
    plain = cli.ok("evaluate", str(path), "--target", "label", "--cv", "3", "--json")
    assert 0 < json.loads(proc.stdout)["accuracy"] <= 1 and json.loads(proc.stdout) != json.loads(plain.stdout)
    out = cli.run("evaluate", str(tmp_path / "best.nbm"), str(path), "--target", "label", "--set", "alpha=1")
    assert out.returncode == 2 and "--set" in out.stderr
