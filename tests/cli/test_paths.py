"""Every path on the command line, checked before any work: one line naming the path and what is
wrong, exit status 2, nothing written (no output, no temporary file)."""

from __future__ import annotations

import gzip
import pickle
import random

import pytest


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("paths")
    (d / "d.csv").write_text("colour,size,label\n" + "".join(
        f"{c},{s},{'yes' if c == 'red' else 'no'}\n" for c, s in zip(["red", "blue", "green"] * 10, range(30))))
    (d / "afile").write_text("x")
    (d / "folder").mkdir()
    return d


def leftovers(folder):
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp") or p.name.startswith(".nbayes-"))


@pytest.fixture(scope="module")
def model(cli, files):
    path = files / "m.nbm"
    cli.ok("train", str(files / "d.csv"), "--target", "label", "-o", str(path))
    return path


def test_outputs(cli, files, model):
    d = files
    data = str(d / "d.csv")
    cases = [
        (("predict", str(model), data, "-o"), "nodir/p.csv", "folder"),
        (("predict", str(model), data, "-o"), "folder", "is a folder"),
        (("predict", str(model), data, "-o"), "afile/p.csv", "not a folder"),
        (("predict", str(model), data, "-o"), "d.csv", "is also an input"),
        (("predict", str(model), data, "-o"), "p.xlsx", "unknown output kind"),
        (("train", data, "--target", "label", "-o"), "nodir/m.nbm", "does not exist"),
        (("train", data, "--target", "label", "-o"), "folder", "is a folder"),
        (("train", data, "--target", "label", "-o"), "d.csv", "is also an input"),
        (("tune", data, "--target", "label", "--grid", "alpha=1,2", "-o"), "nodir/m.nbm", "does not exist"),
        (("evaluate", str(model), data, "--target", "label", "--report"), "nodir/r.html", "does not exist"),
        (("evaluate", str(model), data, "--target", "label", "--report"), "folder", "is a folder"),
        (("compare", data, "--target", "label", "--repeats", "1", "-o"), "afile", "is a file, not a folder"),
        (("compare", data, "--target", "label", "--repeats", "1", "-o"), "nodir/sub", "does not exist"),
        (("demo", "--report"), "nodir/r.html", "does not exist"),
    ]
    before = sorted(p.name for p in d.rglob("*"))
    for args, out, hint in cases:
        target = str(d / out)
        err = cli.bad(*args, target, mentions=(target, hint))
        assert "None" not in err
    assert sorted(p.name for p in d.rglob("*")) == before  # nothing written, not even a temporary file
    assert not leftovers(d)


def test_inputs(cli, files, model, tmp_path):
    d = tmp_path
    (d / "empty.csv").write_bytes(b"")
    (d / "header.csv").write_text("a,label\n")
    (d / "nogzip.csv.gz").write_text("a,label\n1,x\n")
    random.seed(0)
    text = "a,label\n" + "".join(f"{random.random()},{random.choice('xy')}\n" for _ in range(300_000))
    raw = gzip.compress(text.encode())
    (d / "cut.csv.gz").write_bytes(raw[: len(raw) // 2])
    (d / "cut.jsonl.gz").write_bytes(gzip.compress(b'{"a": 1, "label": "x"}\n' * 50_000)[:2000])
    (d / "noclass").mkdir()
    (d / "data.xlsx").write_text("a")
    out = str(d / "m.nbm")
    for name, hint in [("missing.csv", "no such file"), ("empty.csv", "is empty"), ("header.csv", "no rows"),
                       ("nogzip.csv.gz", "not a valid gzip file"), ("cut.csv.gz", "gzip"), ("cut.jsonl.gz", "gzip"),
                       ("noclass", "no sub-folders"), ("data.xlsx", "unknown kind of file")]:
        cli.bad("train", str(d / name), "--target", "label", "-o", out, mentions=(str(d / name), hint))
    cli.bad("train", str(files / "d.csv"), "--target", "label", "--unlabeled", str(d / "missing.jsonl"), "-o", out,
            mentions=("missing.jsonl", "no such file"))
    (d / "pickle.nbm").write_bytes(pickle.dumps({"a": 1}))
    (d / "empty.nbm").write_bytes(b"")
    (d / "text.nbm").write_text("colour,label\nred,x\n")
    (d / "dir.nbm").mkdir()
    for name, hint in [("none.nbm", "no such model file"), ("empty.nbm", "is empty"), ("dir.nbm", "is a folder"),
                       ("text.nbm", "not an nbayes model file"), ("pickle.nbm", "pickle")]:
        path = str(d / name)
        cli.bad("info", path, mentions=(path, hint))
        cli.bad("predict", path, str(files / "d.csv"), mentions=(path, hint))
        cli.bad("evaluate", path, str(files / "d.csv"), "--target", "label", mentions=(path, hint))
        cli.bad("explain", path, "--row", "{}", mentions=(path, hint))
    assert not (d / "m.nbm").exists() and not leftovers(d)


def test_usage_errors_are_one_line(cli, files, model):
    data = str(files / "d.csv")
    cli.bad("evaluate", str(model), data, data, "--target", "label", mentions="evaluate takes MODEL DATA")
    cli.bad("train", data, "--target", "label", "-o", "x.nbm", "--model", "nope", mentions="--model")
    cli.bad("train", data, "--target", "label", mentions="-o")
    cli.bad("predict", str(model), data, "--no-such-option", mentions="--no-such-option")
    cli.bad("frobnicate", mentions="No such command")
