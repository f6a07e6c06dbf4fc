"""Errors name the file and the row of the file: ``line N`` in the file's own line numbering
(the CSV header is line 1; a quoted field over two lines counts both; blank JSON lines count),
``row N`` (1-based) for Parquet; never a row of a chunk or of the rows left after dropping
unlabelled ones."""

from __future__ import annotations

import json

import polars as pl
import pytest

N = 250_000  # past the first chunk (100,000 rows) and the reader's first block (4 MiB)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    d = tmp_path_factory.mktemp("rows")
    body = "".join(f"{i % 7},{'ab'[i % 2]}\n" for i in range(N))
    return d, "x,label\n" + body


def test_model_error_in_a_later_chunk(cli, big):
    d, text = big
    path = d / "neg.csv"
    path.write_text(text + "-1,b\n")  # data row N: line N + 2
    cli.bad("train", str(path), "--target", "label", "--model", "multinomial", "-o", str(d / "m.nbm"),
            mentions=(f"neg.csv: line {N + 2}", "column 'x'", "-1"))
    # rows without a label before it, in the same chunk, do not shift the line
    path.write_text("x,label\n" + "5,\n" * 10 + text[len("x,label\n"):] + "-1,b\n")
    cli.bad("train", str(path), "--target", "label", "--model", "multinomial", "-o", str(d / "m.nbm"),
            mentions=f"neg.csv: line {N + 12}")


def test_reader_errors_after_the_first_block(cli, tmp_path):
    body = "".join(f"{i % 7}.5,{'ab'[i % 2]}\n" for i in range(N)) * 3  # ~ 5 MiB: past pyarrow's first
    for name, tail, hint in [("word.csv", "oops,b\n", "'oops' is not a number"),  # block, which types
                             ("nan.csv", "NaN,b\n", "the text NaN"),               # the columns
                             ("ragged.csv", "1,b,c\n", "ragged rows")]:
        path = tmp_path / name
        path.write_text("x,label\n" + body + tail)
        cli.bad("train", str(path), "--target", "label", "-o", str(tmp_path / "m.nbm"),
                mentions=(f"{name}: line {3 * N + 2}", hint))
    assert not (tmp_path / "m.nbm").exists()


def test_quoted_newlines_and_blank_lines_count(cli, tmp_path):
    csv = tmp_path / "q.csv"
    csv.write_text('note,n,label\n"two\nlines",1,a\n\nplain,2,b\nthird,-1,a\n')
    cli.bad("train", str(csv), "--target", "label", "--model", "multinomial", "--ignore", "note",
            "-o", str(tmp_path / "m.nbm"), mentions=("q.csv: line 6", "column 'n'"))
    jl = tmp_path / "q.jsonl"
    jl.write_text('{"n": 1, "label": "a"}\n\n{"n": 2, "label": "b"}\n{"n": -3, "label": "a"}\n')
    cli.bad("train", str(jl), "--target", "label", "--model", "multinomial", "-o", str(tmp_path / "m.nbm"),
            mentions="q.jsonl: line 4")
    jl.write_text('{"n": 1, "label": "a"}\n\n{"n": 2, "label": "b"\n')
    cli.bad("train", str(jl), "--target", "label", "-o", str(tmp_path / "m.nbm"), mentions="q.jsonl: line 3")


def test_parquet_rows_and_predict(cli, tmp_path):
    pq = tmp_path / "p.parquet"
    pl.DataFrame({"n": [1, 2, 3, -4, 5], "label": ["a", "b", "a", "b", "a"]}).write_parquet(pq)
    cli.bad("train", str(pq), "--target", "label", "--model", "multinomial", "-o", str(tmp_path / "m.nbm"),
            mentions="p.parquet: row 4")
    good = tmp_path / "g.csv"
    good.write_text("n,label\n1,a\n2,b\n3,a\n")
    model = tmp_path / "m.nbm"
    cli.ok("train", str(good), "--target", "label", "--model", "multinomial", "-o", str(model))
    lines = [json.dumps({"n": i % 5}) for i in range(150_000)] + [json.dumps({"n": -2})]
    (tmp_path / "new.jsonl").write_text("\n".join(lines) + "\n")
    cli.bad("predict", str(model), str(tmp_path / "new.jsonl"), mentions="new.jsonl: line 150001")
