"""nbayes train --multilabel: label sets from a JSON list column or a CSV field split by
--labels-sep; predict and evaluate answer with label lists."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import polars as pl
import pytest

import nbayes

NBAYES = shutil.which("nbayes")


def run(*args):
    cmd = [NBAYES, *args] if NBAYES else [sys.executable, "-m", "nbayes.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=os.environ.copy())


def ok(*args):
    out = run(*args)
    assert out.returncode == 0, out.stderr
    return out


def bad(*args, mentions):
    """A command that must fail on bad input: exit 2, one line on stderr, no traceback."""
    out = run(*args)
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    err = out.stderr.strip()
    assert "Traceback" not in out.stderr and len(err.splitlines()) == 1, err
    for m in (mentions,) if isinstance(mentions, str) else mentions:
        assert m in err, (m, err)


@pytest.fixture
def files(tmp_path, texts):
    docs, tags = texts
    rows = [{"text": d, "labels": t} for d, t in zip(docs * 2, tags * 2)]
    (tmp_path / "news.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    pl.DataFrame(rows).write_parquet(tmp_path / "news.parquet")
    lines = ["text,labels"] + [f'"{r["text"]}","{";".join(r["labels"])}"' for r in rows]
    (tmp_path / "news.csv").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("name, extra", [("news.jsonl", ()), ("news.parquet", ()), ("news.csv", ("--labels-sep", ";"))])
def test_train_predict_evaluate(files, texts, name, extra):
    DOCS, TAGS = texts
    data, model = str(files / name), str(files / "m.nbm")
    summary = json.loads(ok("train", data, "--target", "labels", "--multilabel", *extra, "-o", model, "--json").stdout)
    assert summary["classes"] == ["corn", "crude", "grain", "ship", "wheat"]
    loaded = nbayes.load(model)
    assert isinstance(loaded, nbayes.MultiLabel)
    ref = nbayes.MultiLabel(nbayes.TextClassifier()).fit(DOCS * 2, [list(t) for t in TAGS * 2])
    assert loaded.predict_labels(DOCS) == ref.predict_labels(DOCS)
    preds = json.loads(ok("predict", model, data, "--json").stdout)
    assert [p["prediction"] for p in preds[:len(DOCS)]] == ref.predict_labels(DOCS)
    csv = ok("predict", model, data).stdout.splitlines()
    assert csv[0] == "prediction" and csv[2] == ";".join(ref.predict_labels(DOCS)[1])
    out = files / "p.parquet"
    ok("predict", model, data, "-o", str(out), "--proba")
    frame = pl.read_parquet(out)
    assert frame.get_column("prediction").to_list()[:2] == ref.predict_labels(DOCS[:2])
    assert "p_corn" in frame.columns
    r = json.loads(ok("evaluate", model, data, "--target", "labels", "--json").stdout)
    assert r["micro_f1"] == pytest.approx(ref.score(DOCS * 2, [list(t) for t in TAGS * 2]))
    assert {"macro_f1", "precision_at_1", "per_label"} <= set(r)


def test_bad_multilabel_input(files):
    rows = [json.loads(x) for x in (files / "news.jsonl").read_text().splitlines()]
    rows[4]["labels"] = []
    (files / "bad.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    bad("train", str(files / "bad.jsonl"), "--target", "labels", "--multilabel", "-o", str(files / "b.nbm"),
        mentions=("bad.jsonl", "line 5", "no label"))
    bad("train", str(files / "news.csv"), "--target", "labels", "--labels-sep", ";", "-o", str(files / "b.nbm"),
        mentions="--multilabel")
    bad("train", str(files / "news.csv"), "--target", "labels", "--multilabel", "--calibrate", "-o",
        str(files / "b.nbm"), mentions="--multilabel")


def test_a_mixed_column_table_trains_and_cross_validates(tmp_path):
    """The CLI's table model (NaiveBayes over mixed columns) under --multilabel."""
    lines = ["age,colour,smoker,tags", "23,red,true,a;b", "35,blue,false,b", "47,red,true,a;c", "52,green,false,b",
             "29,red,true,a", "61,blue,false,b;c", "33,green,false,b", "44,blue,true,a", "38,red,false,a;b",
             "57,green,true,c"]
    (tmp_path / "tab.csv").write_text("\n".join(lines) + "\n")
    data, model = str(tmp_path / "tab.csv"), str(tmp_path / "tab.nbm")
    ok("train", data, "--target", "tags", "--multilabel", "--labels-sep", ";", "-o", model)
    frame = pl.read_csv(data)
    sets = [t.split(";") for t in frame.get_column("tags").to_list()]
    X = frame.drop("tags")
    ref = nbayes.MultiLabel(nbayes.NaiveBayes()).fit(X, sets)
    loaded = nbayes.load(model)
    assert loaded.predict_labels(X) == ref.predict_labels(X)
    r = json.loads(ok("evaluate", data, "--target", "tags", "--cv", "2", "--multilabel", "--labels-sep", ";",
                      "--json").stdout)
    assert len(r["folds"]) == 2 and r["labels"] == ["a", "b", "c"]
