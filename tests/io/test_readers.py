"""Readers of labelled documents."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import nbayes
from nbayes.errors import DataError
from nbayes.io.readers import read_columns, read_folder, read_jsonl, read_texts

ROWS = [{"text": "cheap pills", "label": "spam"}, {"text": "lunch at noon", "label": "ham"}, {"text": "naïve", "label": "ham"}]


def test_jsonl_plain_gz_and_chunks(tmp_path):
    body = "\n".join(json.dumps(r) for r in ROWS) + "\n\n"
    (tmp_path / "a.jsonl").write_text(body, encoding="utf-8")
    with gzip.open(tmp_path / "a.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(body)
    for name in ("a.jsonl", "a.jsonl.gz"):
        texts, labels = read_texts(tmp_path / name)
        assert texts == [r["text"] for r in ROWS] and labels == [r["label"] for r in ROWS]
    chunks = list(read_jsonl(tmp_path / "a.jsonl", chunk_size=2))
    assert [len(t) for t, _ in chunks] == [2, 1]


def test_byte_order_mark(tmp_path):
    """A UTF-8 byte-order mark (some Windows tools write one) is no part of the first line or
    column name."""
    body = ("\n".join(json.dumps(r) for r in ROWS) + "\n").encode()
    (tmp_path / "a.jsonl").write_bytes(b"\xef\xbb\xbf" + body)
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(b"\xef\xbb\xbf" + body))
    csv = "message,y\n" + "".join(f"{r['text']},{r['label']}\n" for r in ROWS)
    (tmp_path / "a.csv").write_bytes(b"\xef\xbb\xbf" + csv.encode())
    for name in ("a.jsonl", "a.jsonl.gz"):
        texts, labels = read_texts(tmp_path / name)
        assert texts == [r["text"] for r in ROWS] and labels == [r["label"] for r in ROWS], name
    texts, labels = read_columns(tmp_path / "a.csv", text="message", label="y")
    assert texts == [r["text"] for r in ROWS] and labels == [r["label"] for r in ROWS]


def test_jsonl_field_names_and_errors(tmp_path):
    p = tmp_path / "b.jsonl"
    p.write_text('{"body": "x y", "cls": 1}\n{"body": 3}\n')
    with pytest.raises(DataError, match="line 2: field 'body' is not a string"):
        read_jsonl(p, text="body", label="cls")
    p.write_text('{"body": "x y"}\nnot json\n')
    with pytest.raises(DataError, match=r"b.jsonl: line 2 is not valid JSON"):
        read_jsonl(p, text="body")
    with pytest.raises(DataError, match="line 1 has no field 'text'"):
        read_jsonl(p)
    with pytest.raises(DataError, match="no such file"):
        read_jsonl(tmp_path / "missing.jsonl")
    (tmp_path / "trunc.jsonl.gz").write_bytes(gzip.compress(b'{"text": "a b", "label": 1}\n' * 50)[:-12])
    with pytest.raises(DataError, match="cannot be read"):
        read_jsonl(tmp_path / "trunc.jsonl.gz")


def test_csv_tsv_parquet(tmp_path):
    table = pa.table({"message": [r["text"] for r in ROWS], "y": [r["label"] for r in ROWS]})
    pq.write_table(table, tmp_path / "d.parquet")
    (tmp_path / "d.csv").write_text('message,y\n"cheap pills",spam\n"lunch at noon",ham\nnaïve,ham\n', encoding="utf-8")
    (tmp_path / "d.tsv").write_text("message\ty\ncheap pills\tspam\nlunch at noon\tham\nnaïve\tham\n", encoding="utf-8")
    for name in ("d.parquet", "d.csv", "d.tsv"):
        texts, labels = read_columns(tmp_path / name, text="message", label="y")
        assert texts == [r["text"] for r in ROWS] and labels == [r["label"] for r in ROWS], name
    with pytest.raises(DataError, match="no column 'text'"):
        read_columns(tmp_path / "d.csv")


def test_folder_tree(tmp_path):
    for label, docs in {"ham": ["hello there", "lunch"], "spam": ["cheap \xff pills"]}.items():
        (tmp_path / label).mkdir()
        for i, d in enumerate(docs):
            (tmp_path / label / f"{i}.txt").write_bytes(d.encode("latin-1"))
    texts, labels = read_folder(tmp_path)
    assert labels == ["ham", "ham", "spam"]
    assert texts[2] == "cheap \ufffd pills"  # invalid UTF-8 replaced, never a crash
    model = nbayes.TextClassifier().fit(texts, labels)
    assert model.predict(["cheap stuff"]).tolist() == ["spam"]
    with pytest.raises(DataError, match="no sub-folders"):
        read_folder(tmp_path / "ham")


def test_streaming_into_partial_fit_equals_fit(tmp_path, shared_data):
    path = shared_data / "sms_spam" / "all.jsonl.gz"
    texts, labels = read_jsonl(path)
    classes = sorted(set(labels))
    streamed = nbayes.TextClassifier()
    for chunk_texts, chunk_labels in read_jsonl(path, chunk_size=1000):
        streamed.partial_fit(chunk_texts, chunk_labels, classes=classes)
    full = nbayes.TextClassifier().fit(texts, labels)
    np.testing.assert_allclose(
        streamed.predict_joint_log_proba(texts[:200]), full.predict_joint_log_proba(texts[:200]), rtol=1e-12
    )
