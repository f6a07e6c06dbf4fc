"""Every command on awkward inputs (a constant column, an all-missing column, a single class,
values near the float limit, subnormal values): stderr holds only ``nbayes:`` lines (never
Python's ``file.py:12: RuntimeWarning`` form nor a traceback), and a failure is one line that
names the file (and, when it is about a value, its line and column). In process (click's
runner), so that the many runs stay fast."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from nbayes.cli import main

N = 40
#: Python's own warning line: "path/file.py:12: RuntimeWarning: ..." (or any "SomethingWarning:")
PYTHON_WARNING = re.compile(r"\.py:\d+|\b[A-Z]\w*Warning:")
FILES = {
    "constant": ("x,k,c,label", lambda i: f"1.5,7,same,{'ab'[i % 2]}"),
    "allmissing": ("x,gone,c,label", lambda i: f"{i % 5},,{'pq'[i % 2]},{'ab'[i % 2]}"),
    "single": ("x,c,label", lambda i: f"{i},{'pqr'[i % 3]},only"),
    "huge": ("x,y,label", lambda i: f"{1e308 if i % 4 < 2 else -1e308},{i * 1e300},{'ab'[i % 2]}"),
    "huge_per_class": ("x,y,label", lambda i: f"{1e308 if i % 2 else -1e308},{i},{'ab'[i % 2]}"),
    "tiny": ("x,y,label", lambda i: f"{1e-320 * (i % 3)},5e-324,{'ab'[i % 2]}"),
    "numbers_only": ("x,y,label", lambda i: f"{i % 7},{(i * 3) % 11},{'abc'[i % 3]}"),
}


def _write(tmp_path, name):
    header, row = FILES[name]
    path = tmp_path / f"{name}.csv"
    path.write_text(header + "\n" + "".join(row(i) + "\n" for i in range(N)))
    return path


def _run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    for line in lines:  # progress and summaries may be said on stderr; Python's warning form never
        assert not PYTHON_WARNING.search(line) and "Traceback" not in line, (args, line)
        assert "warning" not in line.lower() or line.startswith("nbayes: warning: "), (args, line)
    errors = [line for line in lines if line.startswith("nbayes: error:")]
    if result.exit_code == 0:
        assert not errors, (args, lines)
    else:
        assert result.exit_code == 2 and len(errors) == 1 and errors[0] == lines[-1], (args, result.exit_code, lines)
    return result, errors


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_command_on_awkward_data(name, tmp_path):
    data = _write(tmp_path, name)
    models = []
    for kind in ("auto", "gaussian", "categorical", "logistic"):
        model = tmp_path / f"{kind}.nbm"
        result, errors = _run("train", data, "--target", "label", "--model", kind, "-o", model, "--json")
        if errors:
            assert data.name in errors[0], errors
            assert not model.exists()  # nothing written on failure
        else:
            models.append(model)
    for model in models:
        _run("predict", model, data, "-o", tmp_path / "p.csv", "--proba")
        _run("evaluate", model, data, "--target", "label", "--json")
        _run("info", model, "--json")
        _run("explain", model, "--row", json.dumps({"x": 1}), "--json")
    for extra in ((), ("--calibrate",)):
        result, errors = _run("evaluate", data, "--target", "label", "--cv", "3", "--json", *extra)
        assert not errors or data.name in errors[0], errors
    result, errors = _run("tune", data, "--target", "label", "--grid", "alpha=0.5,1", "--cv", "3", "--json")
    assert not errors or data.name in errors[0], errors
    result, errors = _run("compare", data, "--target", "label", "-o", tmp_path / "cmp", "--repeats", "2", "--json")
    assert not errors or data.name in errors[0], errors


@pytest.mark.parametrize("name, line, value", [("huge", 2, "1e+308"), ("huge_per_class", 2, "-1e+308")])
def test_overflowing_column_names_its_line_and_column(name, line, value, tmp_path):
    data = _write(tmp_path, name)
    for kind in ("auto", "gaussian"):
        model = tmp_path / "m.nbm"
        result, errors = _run("train", data, "--target", "label", "--model", kind, "-o", model)
        assert result.exit_code == 2 and not model.exists()
        assert errors[0].startswith(f"nbayes: error: {data}: line {line}, column 'x' holds {value}"), errors
        assert "overflows float64" in errors[0]


def test_a_model_file_never_holds_nan_statistics(tmp_path):
    """Before: training on +-1e308 wrote a file that did not load back (mean NaN)."""
    import numpy as np

    import nbayes
    from nbayes.errors import StatisticsError

    X = np.array([[1e308 if i % 4 < 2 else -1e308] for i in range(N)])
    y = np.array(["ab"[i % 2] for i in range(N)])
    for make in (nbayes.GaussianNB, nbayes.NaiveBayes):
        with pytest.raises(StatisticsError, match=r"row \d+, column 0 .*overflows float64"):
            make().fit(X, y)
        with pytest.raises(StatisticsError, match="overflows float64"):
            make().partial_fit(X, y)


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "jsonl.gz", "jsonl_blank_line"])
def test_a_byte_order_mark_is_not_part_of_the_first_field(kind, tmp_path):
    """Files written by some Windows tools start with a UTF-8 byte-order mark: the first column's
    name (CSV) or the first line's JSON (JSON Lines) is read without it, and the model and its
    predictions are those of the same file without the mark."""
    import gzip

    rows = [(f"{w} world {i}", "ab"[i % 2]) for i, w in enumerate(["hello", "bye"] * 10)]
    if kind in ("csv", "tsv"):
        sep = "," if kind == "csv" else "\t"
        body = (f"text{sep}label\n" + "".join(f"{t}{sep}{y}\n" for t, y in rows)).encode()
    else:
        lines = [json.dumps({"text": t, "label": y}) for t, y in rows]
        if kind == "jsonl_blank_line":  # read line by line, not in one block
            lines.insert(3, "")
        body = ("\n".join(lines) + "\n").encode()
    suffix = {"jsonl_blank_line": "jsonl"}.get(kind, kind)
    outputs = []
    for name, data in (("plain", body), ("bom", BOM + body)):
        path = tmp_path / f"{name}.{suffix}"
        path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
        model = tmp_path / f"{name}.nbm"
        result, errors = _run("train", path, "--target", "label", "--text", "text", "-o", model, "--json")
        assert not errors and result.exit_code == 0, errors
        result, errors = _run("predict", model, path)
        assert not errors and result.exit_code == 0
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1] and "a" in outputs[0].split()


def test_a_byte_order_mark_keeps_line_numbers(tmp_path):
    """A bad line after the mark is named by its own number."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(BOM + b'{"text": "a b", "label": "x"}\n{"text": "c d", "label": "y"}\n{"text": "e f", "label"\n')
    result, errors = _run("train", path, "--target", "label", "-o", tmp_path / "m.nbm")
    assert result.exit_code == 2 and "line 3" in errors[0], errors
