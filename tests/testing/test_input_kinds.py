"""The kinds of input: the laws ``wrong_input_kinds_refused`` and
``other_spellings_of_the_input_agree`` over the models the laws suite does not run (multi-label,
a table with a text column), the shared refusals of ``nbayes._validation.kinds``, and the law's
own power (a model that reinterprets an input fails it)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest

import nbayes
from nbayes.errors import DataError
from nbayes.testing import LawError
from nbayes.testing.data import Dataset, dataset_for, make_text
from nbayes.testing.laws_kinds import law_accepted_input_kinds, law_wrong_input_kinds, wrong_kinds

DOCS = ["cheap pills now", "win a free offer", "lunch at noon", "budget meeting today"]
Y = ["spam", "spam", "ham", "ham"]


def _text_frame_data() -> Dataset:
    text = make_text(seed=3, n_rows=40)
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"body": text.X, "n": rng.normal(size=40)})
    return Dataset(X, text.y, "frame", 3)


@pytest.mark.parametrize("estimator, data", [
    (nbayes.MultiLabel(nbayes.TextClassifier()), None),
    (nbayes.MultiLabel(nbayes.NaiveBayes()), None),
    (nbayes.MultiLabel(nbayes.MultinomialNB()), None),
    (nbayes.NaiveBayes(column_types={"body": "text"}), _text_frame_data()),
    (nbayes.EM(nbayes.TextClassifier(), n_components=2), None),
    (nbayes.CalibratedClassifier(nbayes.TextClassifier(model="nblr"), cv=2, ensemble=True), None),
], ids=["multilabel-text", "multilabel-table", "multilabel-counts", "mixed-text-column", "em-text",
        "calibrated-nblr-ensemble"])
def test_input_kind_laws(estimator, data):
    data = data if data is not None else dataset_for(estimator, seed=5, n_rows=40)
    law_wrong_input_kinds(estimator, data)
    law_accepted_input_kinds(estimator, data)


def test_the_issue_example_is_refused_naming_the_columns():
    model = nbayes.TextClassifier().fit(DOCS, Y)
    with pytest.raises(DataError, match=r"pandas DataFrame with 2 column\(s\) \('text', 'other'\).*df\['text'\]"):
        model.predict(pd.DataFrame({"text": DOCS, "other": DOCS}))


@pytest.mark.parametrize("X, given", [
    ({"text": DOCS}, r"a dict \(a mapping with keys 'text'\)"),
    (set(DOCS), r"a set of 4 item\(s\); a set has no order"),
    ("cheap pills", r"a single string \('cheap pills'\); a lone document: pass \[X\]"),
    (b"cheap pills", r"a single bytes value"),
    (3.0, r"a single float \(3\.0\)"),
    (None, r"None; no input"),
    (np.array(DOCS, dtype=object).reshape(-1, 1), r"a 2-D ndarray of shape \(4, 1\); pass one column"),
    (pl.DataFrame({"text": DOCS}), r"a polars DataFrame with 1 column\(s\) \('text'\)"),
])
def test_a_text_model_names_what_it_was_given(X, given):
    model = nbayes.TextClassifier().fit(DOCS, Y)
    for call in (model.predict, model.predict_proba, lambda X: model.partial_fit(X, Y), lambda X: nbayes.TextClassifier().fit(X, Y)):
        with pytest.raises(DataError, match="a text model takes a 1-D sequence of documents.*; got " + given):
            call(X)


@pytest.mark.parametrize("X, given", [
    ({"a": [1, 2, 3]}, r"a dict \(a mapping"),
    ([{"a": 1}, {"a": 2}, {"a": 0}], r"row 0 is a dict: records are read by pandas.DataFrame"),
    ((r for r in [[1, 0], [0, 1], [1, 1]]), r"a generator; an iterator is read once"),
    ({(1, 0), (0, 1), (1, 1)}, r"a set of 3 item\(s\)"),
    ([[1, 0], [0, 1, 2], [1, 1]], r"row 0 has 2 value\(s\) and row 1 3 value\(s\)"),
    (["cheap pills", "lunch", "noon"], r"row 0 is a single str \('cheap pills'\).*nbayes.TextClassifier"),
    (pd.Series([1.0, 2.0, 0.0]), r"a 1-D pandas Series of shape \(3,\); one feature is a one-column table"),
    ("1, 0", r"a single string"),
    (None, r"None; no input"),
])
@pytest.mark.parametrize("model", [nbayes.MultinomialNB(), nbayes.CategoricalNB(), nbayes.NaiveBayes(),
                                   nbayes.GaussianBayes(), nbayes.LogisticRegression()],
                         ids=lambda m: type(m).__name__)
def test_every_table_model_refuses_alike(model, X, given):
    with pytest.raises(DataError, match=r"X: expected a 2-D table \(rows x features.*got .*" + given):
        model.fit(X, [0, 1, 0])


def test_a_wrapper_counting_rows_refuses_before_counting():
    """CalibratedClassifier counts X's rows before its model reads them: a dict is not 1 row."""
    with pytest.raises(DataError, match=r"got a dict \(a mapping with keys 'text'\)"):
        nbayes.CalibratedClassifier(nbayes.TextClassifier(), cv=2).fit({"text": DOCS}, Y)


def test_an_ensemble_reads_a_generator_of_documents_once():
    model = nbayes.CalibratedClassifier(nbayes.TextClassifier(), cv=2, ensemble=True).fit(DOCS * 3, Y * 3)
    np.testing.assert_array_equal(model.predict_proba(d for d in DOCS), model.predict_proba(DOCS))


def test_explain_takes_one_document():
    model = nbayes.TextClassifier().fit(DOCS, Y)
    assert model.explain("cheap pills").tokens == ["cheap", "pills"]
    with pytest.raises(DataError, match=r"text: expected one document \(a str or UTF-8 bytes\), got a list of 2"):
        model.explain(["cheap", "pills"])


class _ReadsKeys(nbayes.TextClassifier):
    """A model that reads any iterable as documents (the bug of the issue: a dict as its keys)."""

    def predict_proba(self, X):
        return super().predict_proba([str(d) for d in X])


class _ReordersRows(nbayes.TextClassifier):
    """A model that reads a Series by its index labels (another order than the given one)."""

    def predict_proba(self, X):
        return super().predict_proba(X.sort_index() if hasattr(X, "sort_index") else X)


def test_the_laws_catch_a_reinterpretation():
    data = make_text(seed=1, n_rows=24)
    with pytest.raises(LawError, match=r"predict_proba\(dict of columns\) was accepted"):
        law_wrong_input_kinds(_ReadsKeys(), data)
    with pytest.raises(LawError, match=r"predict_proba\(pandas Series, index reversed\) answers otherwise"):
        law_accepted_input_kinds(_ReordersRows(), data)


def test_wrong_kinds_cover_the_issue_list():
    names = {name for name, _, _ in wrong_kinds(make_text(seed=0, n_rows=12))}
    assert {"pandas frame of two columns", "pandas frame of one column", "polars frame of two columns",
            "2-D array of documents", "dict of columns", "single str", "single number", "None", "single bytes",
            "generator of numbers", "generator of records", "ragged nested lists", "set of documents"} <= names
    table = {name for name, _, _ in wrong_kinds(dataset_for(nbayes.GaussianNB()))}
    assert {"documents", "pandas Series", "polars Series", "generator of rows", "set of rows", "ragged rows",
            "dict of columns", "list of records"} <= table


@pytest.mark.parametrize("X, given", [({"text": DOCS}, r"a dict"), (set(DOCS), r"a set"), (None, r"None"),
                                      (pd.DataFrame({"text": DOCS}), r"a pandas DataFrame")])
def test_the_vectorizer_refuses_alike(X, given):
    from nbayes.text import Vectorizer

    for call in (Vectorizer().fit, Vectorizer().fit_transform, Vectorizer().fit(DOCS).transform):
        with pytest.raises(DataError, match="a text model takes a 1-D sequence of documents.*; got " + given):
            call(X)
    reference = Vectorizer().fit_transform(DOCS).toarray()
    for same in ((d for d in DOCS), pd.Series(DOCS, index=[3, 2, 1, 0]), np.array(DOCS)):
        np.testing.assert_array_equal(Vectorizer().fit_transform(same).toarray(), reference)
