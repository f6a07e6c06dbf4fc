"""K-fold cross-validation of multi-label models (``nbayes.multilabel.cross_validate_labels``
and ``nbayes evaluate DATA --cv K --multilabel``): each fold's model is fitted on the other
folds only, thresholds included, and scored by micro-F1, macro-F1 and precision@1."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes.model_selection import KFold
from nbayes.multilabel import cross_validate_labels, label_set_scores, read_labels

from .test_cli import bad, ok

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def test_label_set_scores_equal_scikit_learns():
    rng = np.random.RandomState(3)
    T = (rng.rand(40, 6) < 0.3).astype(int)
    D = (rng.rand(40, 6) < 0.3).astype(int)
    P = rng.rand(40, 6)
    T[:, 5] = 0
    D[:, 5] = 0  # a label with no true and no predicted row: F1 0 in the macro average
    s = label_set_scores(sp.csr_matrix(T), D, P)
    assert s["micro_f1"] == pytest.approx(sklearn_metrics.f1_score(T, D, average="micro"), abs=1e-12)
    assert s["macro_f1"] == pytest.approx(sklearn_metrics.f1_score(T, D, average="macro", zero_division=0), abs=1e-12)
    assert s["precision_at_1"] == pytest.approx(T[np.arange(40), P.argmax(1)].mean(), abs=1e-12)


@pytest.mark.parametrize("make", [lambda: nbayes.MultiLabel(nbayes.MultinomialNB(alpha=0.5), cv=3),
                                  lambda: nbayes.MultiLabel(nbayes.MultinomialNB(), threshold=0.5)])
def test_each_fold_is_the_model_fitted_on_the_other_folds(counts, make):
    X, Y = counts
    splits = list(KFold(4, shuffle=True, random_state=1).split(X))
    got = cross_validate_labels(make(), X, Y, cv=splits)
    assert len(got["folds"]) == 4 and got["labels"] == [0, 1, 2, 3]
    for f, (train, test) in zip(got["folds"], splits):
        m = make().fit(X[train], Y[train])  # the held-out fold takes no part, thresholds included
        want = label_set_scores(sp.csr_matrix(Y[test]), m.predict(X[test]), m.predict_proba(X[test]))
        assert f["rows"] == len(test) and f["train_rows"] == len(train)
        for k, v in want.items():
            assert f[k] == pytest.approx(v, abs=1e-12)
    for k in ("micro_f1", "macro_f1", "precision_at_1"):
        assert got["mean"][k] == pytest.approx(np.mean([f[k] for f in got["folds"]]), abs=1e-12)


def test_a_label_missing_from_a_folds_training_rows(texts):
    docs, tags = texts
    tags = [list(t) for t in tags]
    tags[0] = ["grain", "wheat", "rare"]  # held out with row 0, never learned by that fold's model
    splits = [(np.arange(1, 12), np.array([0])), (np.arange(0, 11), np.array([11]))]
    got = cross_validate_labels(nbayes.MultiLabel(nbayes.TextClassifier(), threshold=0.5), docs, tags, cv=splits)
    m = nbayes.MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs[1:], tags[1:])
    Y, labels = read_labels(tags, 12)
    D = np.zeros((1, len(labels)))
    P = np.zeros((1, len(labels)))
    pos = [labels.tolist().index(c) for c in m.classes_]
    D[:, pos], P[:, pos] = m.predict(docs[:1]), m.predict_proba(docs[:1])
    want = label_set_scores(Y[:1], D, P)
    assert got["folds"][0]["micro_f1"] == pytest.approx(want["micro_f1"], abs=1e-12)
    assert "rare" in got["labels"]


def test_evaluate_cv_multilabel_cli(tmp_path, texts):
    docs, tags = texts
    rows = [{"text": d, "labels": t} for d, t in zip(docs * 2, tags * 2)]
    (tmp_path / "news.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = ["text,labels"] + [f'"{r["text"]}","{";".join(r["labels"])}"' for r in rows]
    (tmp_path / "news.csv").write_text("\n".join(lines) + "\n")
    a = json.loads(ok("evaluate", str(tmp_path / "news.jsonl"), "--target", "labels", "--cv", "3", "--multilabel",
                      "--json").stdout)
    b = json.loads(ok("evaluate", str(tmp_path / "news.csv"), "--target", "labels", "--cv", "3", "--multilabel",
                      "--labels-sep", ";", "--json").stdout)
    assert a["folds"] == b["folds"] and a["cv"] == 3 and a["rows"] == 24
    want = cross_validate_labels(nbayes.MultiLabel(nbayes.TextClassifier()), docs * 2, [list(t) for t in tags * 2], cv=3)
    assert a["folds"] == want["folds"] and a["mean"] == pytest.approx(want["mean"], abs=1e-12)
    text = ok("evaluate", str(tmp_path / "news.jsonl"), "--target", "labels", "--cv", "3", "--multilabel").stdout
    assert "3-fold cross-validation" in text and "micro-F1" in text and "mean" in text
    bad("evaluate", str(tmp_path / "news.csv"), "--target", "labels", "--cv", "3", "--labels-sep", ";",
        mentions="--multilabel")
    bad("evaluate", str(tmp_path / "news.jsonl"), "--target", "labels", "--cv", "3", "--multilabel", "--report",
        str(tmp_path / "r.html"), mentions="single-label")
