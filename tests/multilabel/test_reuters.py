"""Reuters-21578 ModApte (90 categories): Naive Bayes with thresholds from out-of-fold
statistics reaches micro-F1 0.80 (issue 17; scikit-learn's untuned one-vs-rest NB: 0.723), and
NBLR with them 0.85 (scikit-learn's tf-idf one-vs-rest logistic regression: 0.836)."""

from __future__ import annotations

import gzip
import json
import os

import numpy as np
import pytest

import nbayes


def read(path):
    with gzip.open(path, "rt") as f:
        rows = [json.loads(line) for line in f]
    return [r["text"] for r in rows], [r["labels"] for r in rows]


def reuters(shared_data):
    d = shared_data / "reuters21578"
    if not (d / "train.jsonl.gz").exists():
        msg = f"Reuters-21578 not found in {d}"
        if os.environ.get("CI") == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return read(d / "train.jsonl.gz") + read(d / "test.jsonl.gz")


@pytest.mark.slow
@pytest.mark.data
def test_naive_bayes_micro_f1_at_least_080(shared_data):
    Xtr, ytr, Xte, yte = reuters(shared_data)
    ml = nbayes.MultiLabel(nbayes.TextClassifier(alpha=0.1, stop_words="english")).fit(Xtr, ytr)
    micro = ml.score(Xte, yte)
    assert micro >= 0.81, micro  # measured 0.8135
    assert len(ml.classes_) == 90
    P = ml.predict_proba(Xte)
    assert P.shape == (len(Xte), 90) and np.all((P >= 0) & (P <= 1))


@pytest.mark.slow
@pytest.mark.data
def test_nblr_with_out_of_fold_thresholds_micro_f1_at_least_085(shared_data):
    Xtr, ytr, Xte, yte = reuters(shared_data)
    ml = nbayes.MultiLabel(nbayes.TextClassifier(model="nblr", stop_words="english"), cv=3).fit(Xtr, ytr)
    micro = ml.score(Xte, yte)
    assert micro >= 0.86, micro  # measured 0.8769 (threshold 0.5: 0.7744)
