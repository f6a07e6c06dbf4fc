"""The commands agree (#29): predict and explain read the same inputs (a file, --text, --row, a
TEXT argument for a text model); explain shows the probability; every command takes --json; a
closed stdout (``| head``) is a quiet exit 0; a port in use is one line; messages name words and
columns; a table given where documents are expected says what to pass."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import click
import numpy as np
import pandas as pd
import polars as pl
import pytest
from click.testing import CliRunner

import nbayes
from nbayes.cli import COMMANDS, main
from nbayes.errors import DataError

SPAM = ["win a free prize now", "free cash claim now", "claim your free prize", "urgent prize call now"]
HAM = ["lunch at noon tomorrow", "see you at home tonight", "meeting moved to thursday", "call me at home"]


def cli(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def spam(tmp_path):
    path = tmp_path / "spam.nbm"
    nbayes.TextClassifier().fit(SPAM + HAM, ["spam"] * 4 + ["ham"] * 4).save(path)
    return str(path)


@pytest.fixture
def table(tmp_path):
    X = pl.DataFrame({"age": [20.0, 30, 40, 50, 60, 25], "job": ["a", "b", "a", "b", "a", "b"]})
    y = ["no", "no", "yes", "yes", "yes", "no"]
    path = tmp_path / "t.nbm"
    nbayes.NaiveBayes().fit(X, y).save(path)
    lr = tmp_path / "lr.nbm"
    numbers = pl.DataFrame({"age": [20.0, 30, 40, 50], "hours": [10.0, 20, 30, 40]})
    nbayes.LogisticRegression().fit(numbers, ["no", "no", "yes", "yes"]).save(lr)
    return str(path), str(lr), X, y


def test_predict_reads_a_text_argument_and_text_options_as_explain_does(spam, tmp_path):
    model = nbayes.load(spam)
    code, out, err = cli("predict", spam, "win a free prize", "--proba", "--json")
    assert code == 0, err
    got = json.loads(out)
    assert got[0]["prediction"] == "spam"
    np.testing.assert_allclose([got[0]["p_ham"], got[0]["p_spam"]], model.predict_proba(["win a free prize"])[0])
    code, out, _ = cli("predict", spam, "--text", "win a free prize", "--text", "lunch at home", "--json")
    assert [r["prediction"] for r in json.loads(out)] == ["spam", "ham"]
    code, out, _ = cli("explain", spam, "--text", "win a free prize", "--text", "lunch at home", "--json")
    assert [e["predicted"] for e in json.loads(out)] == ["spam", "ham"]
    data = tmp_path / "new.csv"
    data.write_text("text\nwin a free prize\nlunch at home\n")
    code, out, _ = cli("explain", spam, str(data), "--json")
    assert [e["predicted"] for e in json.loads(out)] == ["spam", "ham"]
    code, _, err = cli("predict", spam, "nosuch.csv")  # a file name is never read as a document
    assert code == 2 and "nosuch.csv: no such file or folder" in err
    code, _, err = cli("predict", spam, "hello", "--text", "x")
    assert code == 2 and "not DATA and --text" in err
    code, _, err = cli("predict", spam)
    assert code == 2 and "give DATA (a file) or --text TEXT" in err


def test_explain_shows_the_probability(spam, table):
    model = nbayes.load(spam)
    code, out, _ = cli("explain", spam, "win a free prize", "--json")
    e = json.loads(out)
    assert e["probability"] == pytest.approx(model.predict_proba(["win a free prize"])[0][1], abs=1e-12)
    code, out, _ = cli("explain", spam, "win a free prize")
    assert code == 0 and f"(P = {e['probability']:.3f})" in out
    path, _, X, y = table
    code, out, _ = cli("explain", path, "--row", '{"age": 45}', "--json")
    e = json.loads(out)
    row = pl.DataFrame({"age": [45.0], "job": pl.Series([None], dtype=pl.String)})
    P = nbayes.load(path).predict_proba(row)[0]
    assert e["probability"] == pytest.approx(P.max(), abs=1e-12) and e["features"][1]["contribution"] == 0.0


def test_predict_and_explain_take_rows_alike(table):
    path, lr, _, _ = table
    code, out, err = cli("predict", path, "--row", '{"age": 45}', "--row", '{"age": 21, "job": "b"}', "--json")
    assert code == 0, err
    assert [r["prediction"] for r in json.loads(out)] == ["yes", "no"]
    code, _, err = cli("predict", path, "--text", "hello")
    assert code == 2 and "table model; give a row as --row JSON" in err
    for command in ("predict", "explain"):
        code, _, err = cli(command, lr, "--row", '{"age": 1}')
        assert code == 2 and "no value for column 'hours'" in err and "needs every feature" in err
        code, _, err = cli(command, path, "--row", "[1, 2]")
        assert code == 2 and "--row: expected one JSON object" in err


def test_every_command_takes_json():
    ctx = click.Context(main)
    lacking = [n for n in COMMANDS if not any("--json" in p.opts for p in main.get_command(ctx, n).params)]
    assert lacking == []


def _nbayes(*args: str, **kw):
    return subprocess.Popen([sys.executable, "-m", "nbayes.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy(), **kw)


@pytest.mark.parametrize("command", ["predict", "evaluate"])
def test_a_closed_stdout_is_a_quiet_exit_0(spam, tmp_path, command):
    data = tmp_path / "big.csv"
    data.write_text("text,label\n" + "win a free prize now,spam\nlunch at home,ham\n" * 20_000)
    args = [command, spam, str(data)] + (["--proba"] if command == "predict" else ["--target", "label"])
    p = _nbayes(*args)
    assert p.stdout is not None and p.stdout.readline()
    p.stdout.close()  # `| head -1`
    assert p.stderr is not None
    with p.stderr:
        err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and err == ""


def test_a_port_in_use_is_one_line(spam):
    pytest.importorskip("uvicorn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        p = _nbayes("serve", spam, "--port", str(port))
        out, err = p.communicate(timeout=60)
    assert p.returncode == 2
    assert err.strip().splitlines() == [f"nbayes: error: cannot listen on http://127.0.0.1:{port}/: address already "
                                        "in use; another service listens there: stop it or choose another --port"]


def test_unlearn_refusal_names_the_word_not_its_column():
    pytest.importorskip("starlette")
    from nbayes.errors import UnlearnError
    from nbayes.serve._requests import without_rows

    model = nbayes.TextClassifier().fit(SPAM + HAM, ["spam"] * 4 + ["ham"] * 4)
    with pytest.raises(UnlearnError, match=r"class 'spam' than the model learned \(the term 'lunch'\)"):
        without_rows(model, ["lunch lunch"], ["spam"], None)
    with pytest.raises(UnlearnError, match=r"\(the term 'kiwi'\)"):  # never learned at all
        without_rows(model, ["kiwi"], ["spam"], None)
    hashed = nbayes.TextClassifier(n_features=64).fit(SPAM + HAM, ["spam"] * 4 + ["ham"] * 4)
    with pytest.raises(UnlearnError, match=r"\(hash bucket \d+\)"):
        without_rows(hashed, ["kiwi"], ["spam"], None)


@pytest.mark.parametrize("make", [
    lambda df: df[["text"]], lambda df: pl.from_pandas(df[["text"]]), lambda df: df,
])
def test_a_frame_where_documents_are_expected_says_pass_the_column(make):
    df = pd.DataFrame({"text": SPAM + HAM, "label": ["spam"] * 4 + ["ham"] * 4})
    with pytest.raises(DataError, match=r"pass the column of documents, such as df\['text'\]"):
        nbayes.TextClassifier().fit(make(df), df["label"])
    model = nbayes.TextClassifier().fit(df["text"], df["label"])
    with pytest.raises(DataError, match=r"df\['text'\]"):
        model.predict(make(df))


def test_a_2d_array_or_nested_list_of_documents_says_what_to_pass():
    X = np.array(SPAM + HAM, dtype=object).reshape(-1, 1)
    with pytest.raises(DataError, match=r"2-D ndarray of shape \(8, 1\); pass one column of it, such as X\[:, 0\]"):
        nbayes.TextClassifier().fit(X, ["spam"] * 4 + ["ham"] * 4)
    with pytest.raises(DataError, match="pass a 1-D sequence of texts"):
        nbayes.TextClassifier().fit([[t] for t in SPAM + HAM], ["spam"] * 4 + ["ham"] * 4)
