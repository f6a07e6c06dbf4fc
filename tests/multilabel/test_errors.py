"""Bad input is refused with an nbayes error naming what is wrong, before anything changes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import MultiLabel
from nbayes.errors import DataError, InvalidParameterError, NBayesError, NotFittedError, UnlearnError


def test_a_row_without_labels(texts):
    docs, tags = texts
    tags[3] = []
    with pytest.raises(DataError, match="row 3 has no label.*allow_empty=True"):
        MultiLabel(nbayes.TextClassifier()).fit(docs, tags)
    Y = np.ones((len(docs), 2), dtype=int)
    Y[5] = 0
    with pytest.raises(DataError, match="row 5 has no label"):
        MultiLabel(nbayes.TextClassifier()).fit(docs, Y)
    ml = MultiLabel(nbayes.TextClassifier(), threshold=0.5, allow_empty=True).fit(docs, tags)
    ref = nbayes.TextClassifier().fit(docs, [int("crude" in t) for t in tags])
    j = ml.classes_.tolist().index("crude")
    np.testing.assert_allclose(ml.predict_proba(docs)[:, j], ref.predict_proba(docs)[:, 1], rtol=1e-10)
    assert ml.empty == "auto" and (ml.predict(["nothing known here"]).sum() == 0)  # empty rows seen: keep


def test_unknown_labels_in_unlearn(texts):
    docs, tags = texts
    ml = MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, tags)
    with pytest.raises(UnlearnError, match="row 1 has label 'barley'"):
        ml.unlearn(docs[:2], [["wheat"], ["barley"]])


@pytest.mark.parametrize("Y, what", [
    (np.ones((11, 3)), "11 rows but X has 12"),
    (sp.csr_matrix(np.ones((13, 3))), "13 rows but X has 12"),
    (np.full((12, 3), 2), "0 and 1 only"),
    ([["a"]] * 11, "11 label sets but X has 12"),
    ([["a"], "b"] * 6, "row 1 is 'b'"),
    ([["a"], None] * 6, "row 1 is None"),
    ([["a"], [None]] * 6, "row 1 holds a missing label"),
    (None, "got None"),
    (5, "got int"),
])
def test_bad_label_sets(texts, Y, what):
    docs, _ = texts
    with pytest.raises(DataError, match=what):
        MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, Y)


def test_indicator_columns_must_match_the_model(counts):
    X, Y = counts
    ml = MultiLabel(nbayes.MultinomialNB(), threshold=0.5).fit(X, Y)
    with pytest.raises(DataError, match="5 columns but the model has 4 labels"):
        ml.partial_fit(X, np.ones((len(X), 5)))
    with pytest.raises(DataError, match="5 columns"):
        ml.unlearn(X, np.ones((len(X), 5)))


@pytest.mark.parametrize("params, what", [
    ({"estimator": None}, "estimator"),
    ({"estimator": nbayes.LogisticRegression()}, "LogisticRegression"),
    ({"threshold": "best"}, "threshold"),
    ({"threshold": 1.0}, "threshold"),
    ({"threshold": 0.0}, "threshold"),
    ({"threshold": None}, "threshold"),
    ({"top_k": 0}, "top_k"),
    ({"empty": "none"}, "empty"),
    ({"normalize": "yes"}, "normalize"),
    ({"cv": 1}, "cv"),
    ({"estimator": nbayes.TextClassifier(tfidf=True)}, "idf"),
])
def test_bad_settings(texts, params, what):
    docs, tags = texts
    kw = {"estimator": nbayes.TextClassifier(), **params}
    with pytest.raises(InvalidParameterError, match=what):
        MultiLabel(**kw).fit(docs, tags)


def test_not_fitted_and_unknown_label(texts):
    docs, tags = texts
    with pytest.raises(NotFittedError):
        MultiLabel(nbayes.TextClassifier()).predict(docs)
    ml = MultiLabel(nbayes.TextClassifier(), threshold=0.5).fit(docs, tags)
    with pytest.raises(InvalidParameterError, match="'sugar'"):
        ml.explain("wheat", label="sugar")
    nblr = MultiLabel(nbayes.TextClassifier(model="nblr"), threshold=0.5).fit(docs, tags)
    for call in (lambda: nblr.partial_fit(docs, tags), lambda: nblr.unlearn(docs, tags)):
        with pytest.raises(NBayesError, match="nblr"):
            call()
