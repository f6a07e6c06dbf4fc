"""nbayes train --semi-supervised / --unlabeled FILE: EM from rows without labels, via the
installed command, equal to the Python API."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import nbayes


def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(["nbayes", *args], capture_output=True, text=True, timeout=300)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = np.random.default_rng(3)
    topics = {"sport": ["ball", "goal", "team", "match", "score"], "food": ["bread", "cheese", "wine", "soup", "salad"]}
    texts, labels = [], []
    for i in range(200):
        label = "sport" if i % 2 else "food"
        words = list(rng.choice(topics[label], 6)) + list(rng.choice(["the", "and", "today", "very"], 3))
        texts.append(" ".join(words))
        labels.append(label)
    labels = np.array(labels)
    labelled = np.zeros(200, dtype=bool)
    labelled[:6] = True
    folder = tmp_path_factory.mktemp("em")
    semi = folder / "semi.jsonl"
    with semi.open("w") as f:
        for t, y, k in zip(texts, labels, labelled):
            f.write(json.dumps({"text": t, "label": str(y) if k else None}) + "\n")
    extra = folder / "unlabelled.jsonl"
    with extra.open("w") as f:
        for t, k in zip(texts, labelled):
            if not k:
                f.write(json.dumps({"text": t}) + "\n")
    return semi, extra, texts, labels, labelled


def test_semi_supervised_flag_equals_fit_with_unlabelled_rows(corpus, tmp_path):
    semi, extra, texts, labels, labelled = corpus
    out = tmp_path / "m.nbm"
    summary = json.loads(run("train", str(semi), "--target", "label", "--semi-supervised", "-o", str(out), "--json").stdout)
    assert summary["semi_supervised"]["unlabelled_rows"] == int((~labelled).sum())
    assert summary["rows"] == int(labelled.sum()) and summary["rows_without_label"] == 0
    want = nbayes.TextClassifier().fit([t for t, k in zip(texts, labelled) if k], labels[labelled],
                                       X_unlabeled=[t for t, k in zip(texts, labelled) if not k])
    got = nbayes.load(out)
    np.testing.assert_allclose(got.predict_proba(texts), want.predict_proba(texts), rtol=1e-12)
    assert summary["semi_supervised"]["em_iterations"] == want.n_iter_
    out2 = tmp_path / "m2.nbm"
    run("train", str(semi), "--target", "label", "--unlabeled", str(extra), "-o", str(out2))
    np.testing.assert_allclose(nbayes.load(out2).predict_proba(texts), want.predict_proba(texts), rtol=1e-12)
    plain = json.loads(run("train", str(semi), "--target", "label", "-o", str(tmp_path / "p.nbm"), "--json").stdout)
    assert plain["rows_without_label"] == int((~labelled).sum()) and "semi_supervised" not in plain


def test_semi_supervised_refusals_are_one_line(corpus, tmp_path):
    semi, extra, *_ = corpus
    proc = run("train", str(semi), "--target", "label", "--semi-supervised", "--calibrate", "-o", str(tmp_path / "x.nbm"), ok=False)
    assert proc.returncode == 2 and "do not combine" in proc.stderr
    proc = run("train", str(semi), "--target", "label", "--model", "complement", "--semi-supervised",
               "-o", str(tmp_path / "y.nbm"), ok=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") <= 2
    assert not (tmp_path / "y.nbm").exists()
