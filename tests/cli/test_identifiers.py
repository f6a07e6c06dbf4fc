"""Identifier-like columns (a key, a timestamp string, a file path: a string column of 20 rows
or more whose values are all distinct) are left out by default, said in the column table with
the reason, and kept when named by --categorical; free text with distinct values stays text."""

from __future__ import annotations

import gzip
import json

import polars as pl
import pytest

from nbayes.cli._columns import identifier_reason, prose
from nbayes.cli._models import choose_columns

N = 40


def _table(tmp_path):
    rows = ["id,stamp,path,spaced_path,email,colour,x,label"]
    for i in range(N):
        rows.append(
            f"u{i:05d}-a7f,2024-01-{1 + i % 28:02d} 12:{i:02d}:05,/data/img/{i:04d}.png,"
            f"C:/My Documents/scan {i} final.pdf,user{i}@example.org,{'red' if i % 3 else 'blue'},{i % 7 + 0.5},"
            f"{'yes' if i % 2 else 'no'}"
        )
    path = tmp_path / "t.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_identifier_columns_left_out_and_said(cli, tmp_path):
    data = _table(tmp_path)
    out = cli.ok("train", str(data), "--target", "label", "-o", str(tmp_path / "m.nbm"), "--json")
    summary = json.loads(out.stdout)
    assert summary["columns"] == {"colour": "categorical", "x": "gaussian"}
    assert set(summary["left_out"]) == {"id", "stamp", "path", "spaced_path", "email"}
    for why in summary["left_out"].values():
        assert f"all {N} values distinct" in why
    assert summary["left_out"]["id"].endswith("(--categorical id keeps it)")
    text = cli.ok("train", str(data), "--target", "label", "-o", str(tmp_path / "m2.nbm")).stdout
    line = next(l for l in text.splitlines() if l.strip().startswith("stamp"))
    assert "left out: identifier-like" in line
    # predict reads the columns the model was trained on, the identifiers are not needed
    cli.ok("predict", str(tmp_path / "m.nbm"), str(data), "-o", str(tmp_path / "p.csv"))


def test_categorical_keeps_an_identifier(cli, tmp_path):
    data = _table(tmp_path)
    out = cli.ok("train", str(data), "--target", "label", "-o", str(tmp_path / "m.nbm"), "--json",
                 "--categorical", "id", "--text", "spaced_path")
    summary = json.loads(out.stdout)
    assert summary["columns"]["id"] == "categorical" and summary["columns"]["spaced_path"] == "text"
    assert set(summary["left_out"]) == {"stamp", "path", "email"}


def test_tune_and_evaluate_leave_them_out_too(cli, tmp_path):
    data = _table(tmp_path)
    out = json.loads(cli.ok("evaluate", str(data), "--target", "label", "--cv", "3", "--json").stdout)
    assert set(out["left_out"]) == {"id", "stamp", "path", "spaced_path", "email"}
    out = json.loads(cli.ok("tune", str(data), "--target", "label", "--grid", "alpha=1", "--cv", "3", "--json").stdout)
    assert set(out["left_out"]) == {"id", "stamp", "path", "spaced_path", "email"}


def test_20news_id_left_out_text_stays_text(cli, shared_data, tmp_path):
    src = shared_data / "20newsgroups" / "train.jsonl.gz"
    if not src.exists():
        pytest.skip("20newsgroups not in NBAYES_DATA")
    with gzip.open(src, "rt", encoding="utf-8") as f:
        lines = [next(f) for _ in range(300)]
    data = tmp_path / "20news-train.jsonl"
    data.write_text("".join(lines))
    summary = json.loads(cli.ok("train", str(data), "--target", "label", "-o", str(tmp_path / "n.nbm"), "--json").stdout)
    assert summary["columns"] == {"text": "text"}
    assert list(summary["left_out"]) == ["id"]
    assert summary["model"].startswith("TextClassifier")


def test_only_identifiers_is_one_line_error(cli, tmp_path):
    path = tmp_path / "ids.csv"
    path.write_text("id,label\n" + "".join(f"k{i},{i % 2}\n" for i in range(N)))
    cli.bad("train", str(path), "--target", "label", "-o", str(tmp_path / "m.nbm"),
            mentions=("ids.csv", "no feature columns left", "'id'", "--categorical id"))


SENTENCES = [f"the {w} quick brown fox number {i} jumps over the lazy dog again"
             for i, w in enumerate(["red", "green", "blue", "happy", "sad"] * 6)]


@pytest.mark.parametrize("values, kind, left_out", [
    ([f"id-{i}" for i in range(20)], "categorical", True),            # 20 distinct: an identifier
    ([f"id-{i}" for i in range(19)], "categorical", False),           # too few rows to say
    ([f"id-{i}" for i in range(30)] + ["id-0"], "categorical", False),  # a repeat: a category
    ([f"id-{i}" for i in range(25)] + [None] * 10, "categorical", True),  # missing values aside
    (SENTENCES, "text", False),                                       # distinct free text stays text
    ([f"Thu, {i:02d} Apr 1993 11:57:{i:02d} GMT" for i in range(25)], "text", True),
    ([f"C:/My Documents/report {i}.pdf" for i in range(25)], "text", True),
    # documents of coded tokens (hashed, numbered or product words): documents, not identifiers
    ([" ".join(f"w{(i * 7 + j) % 97}" for j in range(12)) for i in range(25)], "text", False),
    ([" ".join(f"{i}-{j}" for j in range(9)) for i in range(25)], "text", False),
])
def test_identifier_reason(values, kind, left_out):
    col = pl.Series("c", values, dtype=pl.String)
    assert (identifier_reason(col, kind) is not None) is left_out


def test_numbers_and_booleans_are_never_identifiers():
    assert identifier_reason(pl.Series("n", list(range(50))), "gaussian") is None
    assert identifier_reason(pl.Series("n", [str(i) for i in range(50)]).cast(pl.Categorical), "categorical") is not None


def test_prose():
    assert prose(SENTENCES)
    assert prose(["Great phone, the battery lasts two days!", "Terrible: it broke after a week."])
    assert not prose(["Thu, 29 Apr 1993 11:57:19 GMT"])
    assert not prose(["/home/me/My Documents/a b.txt"])


def test_short_distinct_free_text_is_text():
    titles = [f"{a} {b} {c}" for a in ("red", "big", "old", "new") for b in ("cup", "hat", "box", "pen")
              for c in ("for me", "to buy")]  # 32 distinct, 14 characters: the library types them categorical
    frame = pl.DataFrame({"title": titles, "names": [f"Ann Lee{i}" for i in range(32)], "c": ["a", "b"] * 16})
    cols = choose_columns(frame, [], {}, "f.csv")
    assert cols["title"] == "text" and "names" in cols.left_out and cols["c"] == "categorical"
    assert choose_columns(frame, [], {"title": "categorical"}, "f.csv")["title"] == "categorical"


def test_choose_columns_in_process():
    frame = pl.DataFrame({"id": [f"r{i}" for i in range(30)], "c": ["a", "b", "c"] * 10, "x": [1.0] * 30})
    cols = choose_columns(frame, [], {}, "f.csv")
    assert dict(cols) == {"c": "categorical", "x": "gaussian"} and list(cols.left_out) == ["id"]
    cols = choose_columns(frame, ["id"], {}, "f.csv")
    assert cols.left_out == {}
    cols = choose_columns(frame, [], {"id": "categorical"}, "f.csv")
    assert cols["id"] == "categorical" and cols.left_out == {}
