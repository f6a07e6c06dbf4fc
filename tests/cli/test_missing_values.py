"""Only an empty field is missing: ``NA``, ``null``, ``N/A``, ``NaN``, ``None`` are values (a region
code, a label) in every format the command line reads, unless ``--na-values`` says otherwise."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from numpy.testing import assert_allclose

import nbayes

MARKERS = ["NA", "null", "N/A", "NaN", "None", "nan", "NULL", "#N/A"]


def table(n: int = 64) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    region = [MARKERS[i % len(MARKERS)] if i % 3 else "EU" for i in range(n)]
    label = ["NA" if i % 2 else "null" for i in range(n)]
    size = rng.normal(size=n).round(3)
    return pl.DataFrame({"region": region, "size": size, "label": label})


@pytest.mark.parametrize("ext", ["csv", "tsv", "jsonl", "parquet"])
def test_markers_are_values_in_every_format(cli, tmp_path, ext):
    frame = table()
    path = tmp_path / f"d.{ext}"
    {"csv": lambda: frame.write_csv(path), "tsv": lambda: frame.write_csv(path, separator="\t"),
     "jsonl": lambda: frame.write_ndjson(path), "parquet": lambda: frame.write_parquet(path)}[ext]()
    model = tmp_path / "m.nbm"
    summary = json.loads(cli.ok("train", str(path), "--target", "label", "-o", str(model), "--json").stdout)
    assert summary["rows"] == frame.height and summary["rows_without_label"] == 0
    assert summary["classes"] == ["NA", "null"]
    assert summary["columns"] == {"region": "categorical", "size": "gaussian"}
    want = nbayes.NaiveBayes(column_types=summary["columns"]).fit(frame.drop("label"), frame["label"].to_numpy())
    got = json.loads(cli.ok("predict", str(model), str(path), "--proba", "--json").stdout)
    assert_allclose([[r["p_NA"], r["p_null"]] for r in got], want.predict_proba(frame.drop("label")), rtol=1e-12)
    cats = nbayes.load(model).components_["categorical"].categories_[0].tolist()
    assert set(MARKERS) | {"EU"} == set(cats)


def test_text_nan_in_a_numeric_column_is_a_value(cli, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("score,label\n1.5,a\nNaN,b\n2,a\nnan,b\n,a\n")
    summary = json.loads(cli.ok("train", str(path), "--target", "label", "-o", str(tmp_path / "m.nbm"), "--json").stdout)
    assert summary["columns"] == {"score": "categorical"} and summary["rows"] == 5
    cats = nbayes.load(tmp_path / "m.nbm").components_["categorical"].categories_[0].tolist()
    assert sorted(cats) == ["1.5", "2", "NaN", "nan"]  # the empty field alone is missing
    # a label column of numbers with the text NaN: NaN is a class
    path.write_text("x,label\n1,1\n2,NaN\n3,2\n4,NaN\n")
    summary = json.loads(cli.ok("train", str(path), "--target", "label", "-o", str(tmp_path / "m.nbm"), "--json").stdout)
    assert summary["classes"] == ["1", "2", "NaN"] and summary["rows_without_label"] == 0


def test_na_values_makes_markers_missing_and_predict_remembers(cli, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("region,score,label\nNA,1,x\n?,2,y\nEU,?,NA\nEU,3,x\nUS,NaN,y\n")
    model = tmp_path / "m.nbm"
    summary = json.loads(cli.ok("train", str(path), "--target", "label", "--na-values", "NA,?", "--na-values", "NaN",
                                "-o", str(model), "--json").stdout)
    assert summary["rows"] == 4 and summary["rows_without_label"] == 1
    assert summary["columns"] == {"region": "categorical", "score": "gaussian"}  # '?' and NaN missing: numbers
    m = nbayes.load(model)
    assert sorted(m.components_["categorical"].categories_[0].tolist()) == ["EU", "US"]
    # predict reads the file with the markers the model was trained with
    rows = json.loads(cli.ok("predict", str(model), str(path), "--json", "--proba").stdout)
    frame = pl.DataFrame({"region": [None, None, "EU", "EU", "US"], "score": [1.0, 2.0, None, 3.0, None]})
    assert_allclose([[r["p_x"], r["p_y"]] for r in rows], m.predict_proba(frame), rtol=1e-12)


@pytest.mark.parametrize("ext", ["jsonl", "parquet"])
def test_na_values_apply_to_strings_of_jsonl_and_parquet(cli, tmp_path, ext):
    frame = pl.DataFrame({"colour": ["red", "n/a", "blue", "red", "n/a", "blue"], "label": ["a", "b", "a", "b", "-", "a"]})
    path = tmp_path / f"d.{ext}"
    frame.write_ndjson(path) if ext == "jsonl" else frame.write_parquet(path)
    summary = json.loads(cli.ok("train", str(path), "--target", "label", "--na-values", "n/a,-",
                                "-o", str(tmp_path / "m.nbm"), "--json").stdout)
    assert summary["rows"] == 5 and summary["rows_without_label"] == 1
    assert sorted(nbayes.load(tmp_path / "m.nbm").components_["categorical"].categories_[0].tolist()) == ["blue", "red"]


def test_read_columns_keeps_markers(tmp_path):
    from nbayes.io.readers import read_columns

    path = tmp_path / "d.csv"
    path.write_text("text,label\nNA,1\nnull,NA\nN/A,2\n,3\n")
    texts, labels = read_columns(path)
    assert texts == ["NA", "null", "N/A", ""] and labels == ["1", "NA", "2", "3"]
