"""Model files: a multi-label model round-trips exactly through nbayes.load (no pickle), and a
file whose numbers no data could produce is refused."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import nbayes
from nbayes import MultiLabel
from nbayes.errors import ModelFileError
from nbayes.io.model_file import load_state, save_state


@pytest.mark.parametrize("make", [
    lambda: MultiLabel(nbayes.TextClassifier(alpha=0.3), cv=3),
    lambda: MultiLabel(nbayes.TextClassifier(model="bernoulli"), threshold=0.4, empty="keep"),
    lambda: MultiLabel(nbayes.TextClassifier(model="complement"), top_k=2),
    lambda: MultiLabel(nbayes.TextClassifier(model="nblr"), threshold=0.5),
])
def test_round_trip_text(make, texts, tmp_path):
    docs, tags = texts
    ml = make().fit(docs, tags)
    path = tmp_path / "m.nbm"
    ml.save(path)
    back = nbayes.load(path)
    assert isinstance(back, MultiLabel) and back.get_params()["threshold"] == ml.threshold
    probe = docs + ["corn oil gulf", ""]
    assert_allclose(back.predict_proba(probe), ml.predict_proba(probe), rtol=0, atol=0)
    assert_array_equal(back.predict(probe), ml.predict(probe))
    assert_array_equal(back.thresholds_, ml.thresholds_)
    if "partial_fit" in ml.capabilities:  # it learns on from the file as from the original
        a = ml.partial_fit(["sugar crop"], [["sugar"]])
        b = back.partial_fit(["sugar crop"], [["sugar"]])
        assert_allclose(a.predict_proba(probe), b.predict_proba(probe), rtol=1e-12, atol=0)


def test_round_trip_tabular(counts, tmp_path):
    X, Y = counts
    for base in (nbayes.MultinomialNB(), nbayes.CategoricalNB(), nbayes.GaussianNB()):
        ml = MultiLabel(base, cv=3).fit(X, Y)
        ml.save(tmp_path / "t.nbm")
        back = nbayes.load(tmp_path / "t.nbm")
        assert_allclose(back.predict_proba(X), ml.predict_proba(X), rtol=0, atol=0)
        assert_array_equal(back.classes_, ml.classes_)


def test_refuses_impossible_numbers(texts, tmp_path):
    docs, tags = texts
    ml = MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, tags)
    path = tmp_path / "m.nbm"
    ml.save(path)
    state = load_state(path)
    cc = state["arrays"]["base/stats/class_count"].copy()
    cc[0] = cc[-1] + 5  # a label with more documents than all documents
    state["arrays"]["base/stats/class_count"] = cc
    save_state(tmp_path / "bad.nbm", state)
    with pytest.raises(ModelFileError):
        nbayes.load(tmp_path / "bad.nbm")
    state = load_state(path)
    state["arrays"]["thresholds"] = state["arrays"]["thresholds"][:2]
    save_state(tmp_path / "bad2.nbm", state)
    with pytest.raises(ModelFileError, match="thresholds"):
        nbayes.load(tmp_path / "bad2.nbm")
