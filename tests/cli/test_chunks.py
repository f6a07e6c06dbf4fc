"""The command line reads in chunks bounded by bytes, not rows: long documents make small
chunks, and the memory of a stream does not grow with its length."""

from __future__ import annotations

import gzip
import json
import tracemalloc

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from nbayes.cli import train as train_module
from nbayes.cli._read import DataFile, parse_size
from nbayes.errors import DataError

MB = 1 << 20


def _line(text: str, label: str) -> bytes:
    return (json.dumps({"text": text, "label": label}) + "\n").encode()


def _corpus(path, n_docs: int, seed: int, long_docs: dict[int, int] | None = None, words: int = 60) -> list[bytes]:
    """JSON Lines over a fixed vocabulary of 2,000 words; ``long_docs`` maps a row to its length in words."""
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(2000)], dtype=object)
    lines = []
    for i in range(n_docs):
        k = (long_docs or {}).get(i, words)
        label = "ab"[i % 2]
        lines.append(_line(" ".join(vocab[rng.integers(0, 1000, k) + (1000 if label == "b" else 0) * (i % 3 == 0)]), label))
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wb") as f:
        f.writelines(lines)
    return lines


@pytest.mark.parametrize("name", ["long.jsonl", "long.jsonl.gz"])
def test_long_documents_make_byte_bounded_chunks(tmp_path, name):
    path = tmp_path / name
    long_docs = {50: 400_000, 51: 400_000, 700: 300_000}  # about 2.4-3.2 MB each
    lines = _corpus(path, 8000, 0, long_docs)  # and 2.8 MB of short documents
    sizes = np.array([len(x) for x in lines])
    limit = MB
    chunks = list(DataFile(path, chunk_bytes=limit).chunks())
    assert sum(c.frame.height for c in chunks) == len(lines)
    assert [c.start for c in chunks] == np.cumsum([0] + [c.frame.height for c in chunks[:-1]]).tolist()
    for c in chunks:
        got = sizes[c.start:c.start + c.frame.height]
        # a chunk stops at the first line that reaches the limit: all lines but its last are below it
        assert got[:-1].sum() < limit, (c.start, c.frame.height, got.sum())
        assert c.frame["text"].to_list() == [json.loads(x)["text"] for x in lines[c.start:c.start + c.frame.height]]
    for row in long_docs:  # each very long document ends its chunk: it is not gathered with others
        at = next(c for c in chunks if c.start <= row < c.start + c.frame.height)
        assert row == at.start + at.frame.height - 1
    # every chunk but the last was closed by reaching the limit
    assert all(sizes[c.start:c.start + c.frame.height].sum() >= limit for c in chunks[:-1])
    assert len(chunks) >= 3 + int(sizes.sum() - sum(sizes[r] for r in long_docs)) // limit
    # the row bound still holds
    assert max(c.frame.height for c in DataFile(path, chunk_bytes=1 << 30).chunks(chunk_rows=100)) == 100


def test_parquet_batches_are_bounded_by_bytes(tmp_path):
    path = tmp_path / "long.parquet"
    rng = np.random.default_rng(0)
    texts = [" ".join(f"w{j}" for j in rng.integers(0, 10**6, 1500)) for _ in range(3000)]  # ~10 kB per row
    pl.DataFrame({"text": texts, "label": ["a", "b"] * 1500}).write_parquet(path, row_group_size=3000)
    chunks = list(DataFile(path, chunk_bytes=MB).chunks())
    assert sum(c.frame.height for c in chunks) == 3000
    assert max(c.frame.height for c in chunks) <= 110  # about 1 MB / 10 kB rows
    assert len(chunks) >= 28


def test_bad_lines_are_named_in_any_chunk(tmp_path):
    good = b"".join(_line(f"doc {i} words here", "ab"[i % 2]) for i in range(3000))
    cases = [(b"not json\n", "line 3002 is not JSON"), (b"[1, 2]\n", "line 3002 is not a JSON object"),
             (b'{"text": "\xff\xfe", "label": "a"}\n', "is not UTF-8 text (line 3002)")]
    for tail, message in cases:
        path = tmp_path / "bad.jsonl"
        path.write_bytes(good + b"\n" + tail + _line("after", "a"))  # a blank line counts as a line
        with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
            list(DataFile(path, chunk_bytes=4096).chunks())
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n \n")
    with pytest.raises(DataError, match="holds no rows"):
        list(DataFile(path).chunks())


def test_chunk_size_option(tmp_path):
    assert parse_size("32M") == 32 * MB and parse_size("1g") == 1 << 30 and parse_size("100") == 100
    for bad in ("0", "-1", "ten", "5X", "nan"):
        with pytest.raises(DataError, match="chunk size"):
            parse_size(bad)
    path = tmp_path / "d.jsonl"
    _corpus(path, 50, 0)
    out = CliRunner().invoke(train_module.train, [str(path), "--target", "label", "-o", str(tmp_path / "m.nbm"),
                                                  "--chunk-bytes", "lots"])
    assert out.exit_code == 2 and "--chunk-bytes" in out.output
    out = CliRunner().invoke(train_module.train, [str(path), "--target", "label", "-o", str(tmp_path / "m.nbm"),
                                                  "--chunk-bytes", "2k", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["rows"] == 50


def _peak(path, out) -> tuple[int, int]:
    tracemalloc.start()
    try:
        res = CliRunner().invoke(train_module.train, [str(path), "--target", "label", "-o", str(out),
                                                      "--chunk-bytes", "1M", "--json"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert res.exit_code == 0, res.output
    return peak, json.loads(res.output)["rows"]


def test_memory_does_not_grow_with_the_stream(tmp_path):
    """Python-side peak memory of `nbayes train` on 10 MB and on 20 MB of the same kind of text (a
    fixed vocabulary, so the statistics are the same size): the longer stream may not need more."""
    short, long_ = tmp_path / "short.jsonl", tmp_path / "long.jsonl"
    _corpus(short, 30_000, 1)
    _corpus(long_, 60_000, 2)
    assert 8 * MB < short.stat().st_size < 12 * MB
    _peak(short, tmp_path / "warm.nbm")  # compiled kernels and caches loaded before measuring
    p1, n1 = _peak(short, tmp_path / "a.nbm")
    p2, n2 = _peak(long_, tmp_path / "b.nbm")
    assert (n1, n2) == (30_000, 60_000)
    # one chunk (1 MB of input) and its token buffers dominate; a row-bounded reader held the
    # whole 10-20 MB file in one 100,000-row chunk and peaked at several times the file's size
    assert p2 < 1.25 * p1 + 2 * MB, (p1 / MB, p2 / MB)
    assert p2 < 0.8 * long_.stat().st_size, (p2 / MB, long_.stat().st_size / MB)


@pytest.mark.parametrize("shape", ["plain", "crlf", "no final newline", "blank lines", "indented", "gz"])
def test_blocks_read_as_the_lines(tmp_path, shape):
    """Blocks whose every line is a JSON object are parsed as read; any other block (a blank or
    indented line) line by line: the same rows, chunk starts and chunk ends either way."""
    lines = [_line(f"doc {i} " + "w" * (i % 97), "ab"[i % 2]) for i in range(4000)]
    if shape == "crlf":
        lines = [x.replace(b"\n", b"\r\n") for x in lines]
    if shape == "blank lines":
        lines[1500] = b"\n" + lines[1500]
    if shape == "indented":
        lines[2500] = b"  " + lines[2500]
    data = b"".join(lines)
    if shape == "no final newline":
        data = data.rstrip(b"\n")
    path = tmp_path / ("d.jsonl.gz" if shape == "gz" else "d.jsonl")
    path.write_bytes(gzip.compress(data) if shape == "gz" else data)
    for limit, rows in ((8192, 100_000), (1 << 20, 100_000), (8192, 7)):
        chunks = list(DataFile(path, chunk_bytes=limit).chunks(chunk_rows=rows))
        texts = [t for c in chunks for t in c.frame["text"].to_list()]
        assert texts == [json.loads(x)["text"] for x in data.splitlines() if x.strip()]
        assert [c.start for c in chunks] == np.cumsum([0] + [c.frame.height for c in chunks[:-1]]).tolist()
        assert max(c.frame.height for c in chunks) <= rows
        if rows > 4000 and limit == 8192:  # every chunk but the last reached the limit, none much over it
            sizes = np.array([len(x) for x in data.splitlines(keepends=True) if x.strip()])
            ends = np.cumsum([c.frame.height for c in chunks])
            per_chunk = np.add.reduceat(sizes, np.r_[0, ends[:-1]])
            assert np.all(per_chunk[:-1] >= limit - 2) and np.all(per_chunk < limit + 2 * sizes.max())


@pytest.mark.parametrize("limit, rows", [(1 << 20, 100_000), (64, 100_000), (1 << 20, 3)])
def test_a_carriage_return_inside_a_line_is_whitespace(tmp_path, limit, rows):
    """JSON Lines ends a line at LF only: a CR between a line's tokens is JSON whitespace, read
    as it was line by line (a blank line sends its block down that path), and the rows keep
    their line numbers."""
    lines = [_line(f"doc {i}", "ab"[i % 2]).replace(b", ", b",\r") for i in range(10)]
    lines[4] = b"\n" + lines[4]
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"".join(lines))
    chunks = list(DataFile(path, chunk_bytes=limit).chunks(chunk_rows=rows))
    assert [t for c in chunks for t in c.frame["text"].to_list()] == [f"doc {i}" for i in range(10)]
    assert [c.start for c in chunks] == np.cumsum([0] + [c.frame.height for c in chunks[:-1]]).tolist()
