"""nbayes prior and nbayes suggest: label shift and active learning from the command line."""

from __future__ import annotations

import json

import pytest

SPAM = ["win cash prize now", "free prize claim now", "cash bonus win free", "claim your free cash"]
HAM = ["see you at lunch", "meeting moved to noon", "call me after work", "lunch at noon then"]


@pytest.fixture
def files(tmp_path, cli):
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps({"text": t, "label": lab}) + "\n"
                             for _ in range(5) for t, lab in [(s, "spam") for s in SPAM] + [(h, "ham") for h in HAM]))
    week = tmp_path / "week.jsonl"
    week.write_text("".join(json.dumps({"text": t}) + "\n" for t in SPAM * 6 + HAM[:2]))
    model = tmp_path / "m.nbm"
    cli.ok("train", str(train), "--target", "label", "--text", "text", "-o", str(model))
    return train, week, model


def test_prior_estimates_and_tests(files, cli):
    train, week, model = files
    out = json.loads(cli.ok("prior", str(model), str(week), "--json").stdout)
    assert out["source_prior"] == {"ham": 0.5, "spam": 0.5}
    assert abs(out["prior"]["spam"] - 24 / 26) < 0.05
    assert out["test"]["shifted"] and out["test"]["p_value"] < 1e-3 and out["test"]["df"] == 1
    lo, hi = out["interval"]["spam"]
    assert lo <= out["prior"]["spam"] <= hi
    cal = json.loads(cli.ok("prior", str(model), str(week), "--train", str(train), "--target", "label",
                            "--cv", "2", "--method", "bbse", "--json").stdout)
    assert cal["calibrated"] and cal["method"] == "bbse" and cal["prior"]["spam"] > 0.8
    text = cli.ok("prior", str(model), str(week)).stdout
    assert "likelihood-ratio test" in text and "p = " in text and "changed" in text


def test_suggest_lists_rows(files, cli):
    _, week, model = files
    out = json.loads(cli.ok("suggest", str(model), str(week), "-k", "3", "--strategy", "entropy", "--json").stdout)
    rows = [r["row"] for r in out["rows"]]
    assert len(rows) == 3 == len(set(rows)) and all(0 <= r < 26 for r in rows)
    assert "label these 2 of 26 rows" in cli.ok("suggest", str(model), str(week), "-k", "2").stdout


def test_bad_input(files, cli, tmp_path):
    train, week, model = files
    cli.bad("prior", str(model), str(tmp_path / "none.jsonl"), mentions="none.jsonl")
    cli.bad("prior", str(model), str(week), "--method", "bbse", mentions="bbse")
    cli.bad("suggest", str(model), str(week), "-k", "0", mentions="'k'")


def test_suggest_on_a_table_model(tmp_path, cli):
    """A table of mixed columns has no document similarity: the density strategy ranks by entropy."""
    data = tmp_path / "t.csv"
    data.write_text("a,b,label\n" + "".join(f"{i % 3},{(i * 7) % 5},{'x' if i % 3 else 'y'}\n" for i in range(30)))
    model = tmp_path / "t.nbm"
    cli.ok("train", str(data), "--target", "label", "-o", str(model))
    pool = tmp_path / "p.csv"
    pool.write_text("a,b\n" + "".join(f"{i % 4},{i % 5}\n" for i in range(12)))
    out = json.loads(cli.ok("suggest", str(model), str(pool), "-k", "4", "--json").stdout)
    assert len({r["row"] for r in out["rows"]}) == 4
